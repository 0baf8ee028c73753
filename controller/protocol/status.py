"""A controller run's ``status`` topic: its payloads, and telling a newer run of the same table.

Two controllers given one table id would otherwise take turns on the broker
(one client id: each connection pushes the other off, and the broker publishes
the pushed one's last will) or both publish one table's events. Every status,
the last will included, names its run (``instance``, random) and when the run
started (``since``). The older of two runs stops when it sees any status of
the newer: with one client id, that is the will or the "online" it finds when
it comes back. A status of an older run is left alone: it is a controller that
died or stopped before this one started, or the older one, which stops by this
rule. :class:`~controller.mqtt.link.MqttLink` also leaves alone the status
already retained at its first connection: ``since`` is a wall clock, and a Pi
without a real-time clock may start with one behind the run it replaces.

Every status is signed under the table's control token
(``controller.protocol.signing``, kind ``status``). Anyone on the broker may publish on
the status topic, so only a signed claim of a newer run stops this one; any
other status is ignored and counted (``status_refused`` in health).

Runs in order. ``since`` is when the run began by its clock, but never before
the run before it on the same journal began: the journal keeps the last run's
``since`` (``Journal.begin_run``), and a run whose clock is behind it (a Pi
without a real-time clock, or a clock put right after a run set ahead) begins
a millisecond after it instead. So ``since`` orders a table's runs as they
happened, whatever the clocks said, for this rule, for a panel (which takes
only the status of the newest run it has seen) and for the publications'
stamps (``controller.protocol.publication``), which carry the same ``since``.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

from controller import __version__
from controller.protocol.security import too_deep
from controller.protocol.signing import SignatureError, open_status, signed_status


class RunStatus:
    """This run's ``online``/``offline`` payloads; thread-safe."""

    def __init__(self, table: str, extra: Mapping[str, Any] | None = None, *, token: str,
                 since: float | None = None) -> None:
        self.table = table
        self._token = token
        self.refused = 0  # statuses that were not signed with the table's token
        self.instance = secrets.token_hex(8)
        self.since = time.time() if since is None else since  # see "Runs in order" in the module doc
        self._host = socket.gethostname()
        self._extra = dict(extra or {})
        self._lock = threading.Lock()
        self._former: set[str] = set()  # runs this one replaced: never a newer run, whatever their clock said

    def update(self, **extra: Any) -> bool:
        """Change fields of the ``online`` payload (e.g. the game); False if nothing changed."""
        with self._lock:
            if all(self._extra.get(k) == v for k, v in extra.items()):
                return False
            self._extra.update(extra)
            return True

    def online(self) -> bytes:
        with self._lock:
            extra = dict(self._extra)
        return signed_status(self._token, self.table, {
            "state": "online", "table": self.table, "version": __version__, "since": self.since,
            "instance": self.instance, "host": self._host, **extra})

    def offline(self) -> bytes:
        """The last will and the clean stop: they name the run too (see the module doc), and the
        table by the name people read, which a panel keeps showing while the table is away."""
        with self._lock:
            name = self._extra.get("name")
        named = {"name": name} if name is not None else {}
        return signed_status(self._token, self.table, {
            "state": "offline", "table": self.table, **named, "instance": self.instance, "since": self.since})

    def note_former(self, payload: bytes) -> None:
        """The status retained at our first connection: if it is a run's signed "offline", that run
        ended before this one began, so no status of it may ever stop this run.

        Its ``since`` may still be later than ours (a Pi without a real-time clock starts behind),
        and its statuses stay on record: anyone could otherwise publish one again, live, and this
        run would stop for good (status 3 is not restarted). A former run still alive has "online"
        there, not "offline": it is not noted, and the older of the two stops as before.
        """
        status = self._signed(payload)
        if status is None or status.get("state") != "offline":
            return
        other = status.get("instance")
        if isinstance(other, str) and other != self.instance:
            with self._lock:
                self._former.add(other)

    def _signed(self, payload: bytes) -> dict[str, Any] | None:
        """The fields of a status signed for this table (by any run of it), or None."""
        if not payload or too_deep(payload):
            return None  # nested deeper than any status (controller.protocol.security.MAX_DEPTH): unread
        try:
            return open_status(self._token, self.table, payload)
        except (SignatureError, ValueError, RecursionError):
            return None

    def forget_former(self) -> None:
        """The link dropped: perhaps another connection took our session (our client id), so a run we
        took for ended may be alive after all (two controllers given one table id). From here the
        older of the two stops as before, whatever the replays."""
        with self._lock:
            self._former.clear()

    def newer_run(self, payload: bytes) -> str | None:
        """Why this run must stop, if ``payload`` is a status of a newer run of the table; else None."""
        if not payload:
            return None  # a retained status cleared: no claim at all
        status = self._signed(payload)
        if status is None:
            with self._lock:
                self.refused += 1
            return None
        other, since = status.get("instance"), status.get("since")
        if not isinstance(other, str) or other == self.instance:
            return None
        with self._lock:
            if other in self._former:
                return None  # a run that had ended before this one began (note_former)
        if isinstance(since, bool) or not isinstance(since, (int, float)):
            return None
        if (since, other) < (self.since, self.instance):
            return None  # an older run (the tie broken by instance, so exactly one of two stops)
        where = f" on {status['host']}" if isinstance(status.get("host"), str) else ""
        return (f"another controller{where} started later for table {self.table!r} on this broker; "
                "two controllers must not share a table id, so this one stops")
