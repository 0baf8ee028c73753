"""Whether the panel can vouch for what it shows of a table, and what it refused.

The controller signs every message it publishes on ``state``, ``events``,
``sensors``, ``health``, ``private/<seat>``, ``effects``, ``summary`` and
``recent`` (``controller.protocol.publication``).
A panel that holds a table's control token takes only messages that verify
under it, for that table and topic, and newer than the last one it took
(so an old signed state published again cannot take the place of the
current one). What it refuses is counted per table and reason, and shown
on the table's page; it never reaches a page.

A panel without the token cannot check a signature. It shows what the
broker holds, and says, on the page and in ``/api/t/<t>``, that it cannot
vouch for it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from controller.protocol.publication import (
    Freshness,
    PublicationError,
    Stamp,
    open_publication,
)
from controller.protocol.signing import SignatureError, open_signed, signing_key

log = logging.getLogger(__name__)

LOG_EVERY_S = 60.0
SIGNED_KINDS = ("state", "events", "sensors", "health", "private", "effects", "summary", "recent")
REASONS = {
    "unsigned": "not signed",
    "old": "signed by an older version of the table (update the table and the panel together)",
    "forged": "signed with another token (is the panel's token this table's?)",
    "misplaced": "signed for another table or topic",
    "stale": "older than what the table had already published",
}


class Vouching:
    """Checks the signed topics of every table whose token the panel holds; thread-safe."""

    def __init__(self, token_for: Callable[[str], str | None]) -> None:
        self._token_for = token_for
        self._keys: dict[str, bytes] = {}
        self._fresh: dict[str, Freshness] = {}
        self._refused: dict[str, Counter[str]] = {}
        self._logged_at: dict[str, float] = {}  # table -> when a refusal was last logged
        self._status_since: dict[str, float] = {}  # table -> when the run of the newest status began
        self._lock = threading.Lock()

    def holds(self, table: str) -> bool:
        return self._key(table) is not None

    def _key(self, table: str) -> bytes | None:
        token = self._token_for(table)
        if token is None:
            return None
        with self._lock:
            key = self._keys.get(token)  # keyed by token: one HMAC derivation per token, not per message
            if key is None:
                key = self._keys[token] = signing_key(token)
            return key

    def open(self, table: str, topic: str, payload: bytes) -> tuple[dict[str, Any], Stamp]:
        """The fields of a message the table signed for ``topic``; :class:`PublicationError` otherwise."""
        key = self._key(table)
        if key is None:
            raise PublicationError("unsigned", "this panel holds no token to check the table's signature")
        return open_publication(key, table, topic, payload)

    def check_status(self, table: str, raw: bytes) -> None:
        """A ``status`` the table signed (``controller.protocol.signing``, kind ``status``), of its newest run.

        The status says whether the table is online, and a panel refuses commands to an offline
        table, so a forged "offline" would silence it. :class:`PublicationError` otherwise: an
        older run's status (``since`` before the newest seen) is ``stale``. Within one run the
        status carries no counter: a replay of its own earlier "online" is not told apart.
        """
        key = self._key(table)
        if key is None:
            raise PublicationError("unsigned", "this panel holds no token to check the table's signature")
        try:
            payload = open_signed(key, "status", table, "status", raw)
        except SignatureError as exc:
            raise PublicationError(exc.kind, f"a status: {exc}") from None
        since = payload.get("since")
        if isinstance(since, bool) or not isinstance(since, (int, float)):
            return  # signed, but not saying when its run began: nothing to order it by
        with self._lock:
            newest = self._status_since.get(table)
            if newest is not None and since < newest:
                raise PublicationError("stale", "the status of a run older than the one already seen")
            self._status_since[table] = float(since)

    def take(self, table: str, topic: str, stamp: Stamp) -> bool:
        """True if newer than what was taken on ``topic``, False if the same; ``stale`` error if older."""
        with self._lock:
            return self._fresh.setdefault(table, Freshness()).take(topic, stamp)

    def refuse(self, table: str, topic: str, exc: PublicationError) -> None:
        now = time.monotonic()
        with self._lock:
            counts = self._refused.setdefault(table, Counter())
            counts[exc.kind] += 1
            # A flood of forgeries must not flood the log: the first, then one line a minute per table.
            say = now - self._logged_at.get(table, -1e9) >= LOG_EVERY_S
            if say:
                self._logged_at[table] = now
            total = sum(counts.values())
        if say:
            log.warning("panel: refused a message on table %r's %s: %s (%d refused so far)", table, topic, exc,
                        total)

    def describe(self, table: str) -> dict[str, Any]:
        """What a page says about where the table's data comes from (plain words, and the counts)."""
        with self._lock:
            refused = dict(self._refused.get(table, {}))
        total = sum(refused.values())
        if not self.holds(table):
            return {"vouched": False, "refused": refused,
                    "text": "This panel does not hold this table's control token, so it cannot vouch that what "
                            "it shows comes from the table: anyone on the broker could have published it."}
        text = "Signed by the table: this panel shows only what the table itself published."
        if total:
            why = ", ".join(f"{n} {REASONS.get(kind, kind)}" for kind, n in sorted(refused.items()))
            text += (f" It refused {total} message{'s' if total != 1 else ''} that "
                     f"{'were' if total != 1 else 'was'} not the table's ({why}).")
        return {"vouched": True, "refused": refused, "text": text}
