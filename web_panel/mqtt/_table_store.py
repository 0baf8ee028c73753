"""The panel's picture of every table, kept from the messages the broker hands it.

Every table's line of the club list comes from its retained ``status`` and
``summary``; a watched table (``web_panel.interest``) also keeps its last
retained ``state``, ``sensors``, ``health`` and sealed ``private/<seat>``, plus
a short log of events: the current game's latest ones from the retained
``recent`` (so a table opened mid-game shows its moves at once), then every
event since it was first watched, merged by seq. Every change is fanned out to
the SSE clients watching that table.

Messages a table signs (``state``, ``events``, ``recent``, ``sensors``,
``health``, ``private/<seat>``, ...) are taken only when they verify, if the
panel holds the table's token (``web_panel.trust``). Sealed private views are
stored sealed: they are opened only when a player's own stream asks for them
(see ``views/player.py``), so nothing secret sits in the shared picture that
every page reads.

The store does not talk to the broker: ``web_panel.mqtt._client`` feeds it
messages and hands it what it needs (who answers replies, who asks for a
resync, which tables are no longer subscribed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from controller.protocol import mqtt5
from controller.protocol.names import default_name, is_table_id
from controller.protocol.publication import PublicationError, Stamp
from controller.protocol.security import MAX_DEPTH, loads_utf8, too_deep
from gravekeeper.locks import comes_free

from ..fanout import Fanout
from ..interest import LIST_KINDS
from ..settings import PanelSettings
from ..terror_places import with_places
from ..trust import SIGNED_KINDS, Vouching
from ._table_view import TableView, game_context, made_at

__all__ = ["LIST", "RETAINED_KINDS", "TableStore"]

log = logging.getLogger(__name__)

RETAINED_KINDS = ("status", "state", "sensors", "health")
TRUST_EVERY_S = 0.5  # a table's pages hear of refused forgeries at most this often
MAX_PAYLOAD = mqtt5.MAX_PAYLOAD_BYTES  # a state bigger than this is a broken publisher, not a game
LIST = ""  # the key of the club list's subscribers: no table id is empty (controller.protocol.names)

Reply = Callable[[str, str, dict[str, Any], bytes], None]  # (table, command name, reply, its bytes)


def _seat(text: str) -> int:
    return int(text) if text.isdigit() else -1


class TableStore:
    """The shared, thread-safe picture of every table, and the SSE clients that watch each.

    ``connected`` is set while the panel has the broker; ``released(table)`` says the panel no
    longer subscribes to the table's traffic (a late message of it is dropped); ``on_reply``
    takes every command reply; ``resync(table)`` asks a table to publish its picture again
    after a gap in its events.
    """

    def __init__(self, settings: PanelSettings, vouching: Vouching, connected: threading.Event, *,
                 released: Callable[[str], bool], on_reply: Reply, resync: Callable[[str], object],
                 on_status: Callable[[str, dict[str, Any]], object] = lambda table, status: None) -> None:
        self.settings = settings
        self.base = settings.base_topic
        self.vouching = vouching
        self.connected = connected
        self._released = released
        self._on_reply = on_reply
        self._resync = resync
        self._on_status = on_status
        self._lock = threading.RLock()
        self._tables: dict[str, TableView] = {}
        self.fanout = Fanout()  # the SSE clients watching each table, and the club list's
        self._trust_at: dict[str, float] = {}  # table -> when its pages were last told what was refused
        self._trust_due: set[str] = set()  # tables whose pages are to be told again (a timer runs)
        self._forgotten: set[str] = set()  # tables this panel deleted (``forget``) until they publish again
        self.changed = threading.Condition(self._lock)  # notified after every message and link change
        self.bad_messages = 0
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> bool:
        """End every SSE client's stream; False when it was closed already."""
        with self._lock:
            if self._closed:
                return False
            self._closed = True
        self.fanout.close()
        return True

    # ----- taking messages in ------------------------------------------------------
    def handle(self, topic: str, payload: bytes, *, retained: bool = False) -> None:
        """Take one message into the picture (public so tests can feed it directly).

        ``retained``: the broker's stored copy, sent when this panel subscribed (so it may be old),
        not a message published while the panel listened.
        """
        try:
            self._handle(topic, payload, retained)
        finally:
            self.notify()


    def notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def comes_free(self, timeout: float) -> bool:
        """Whether the lock every message and every page's snapshot takes comes free within ``timeout`` seconds."""
        return comes_free(self._lock, timeout)

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds after some message (or already does); False on timeout."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)


    def _handle(self, topic: str, payload: bytes, retained: bool = False) -> None:
        prefix = self.base + "/"
        if not topic.startswith(prefix):
            return
        parts = topic[len(prefix):].split("/")
        if len(parts) < 2 or not is_table_id(parts[0]):
            return
        table, kind = parts[0], parts[1]
        rel = "/".join(parts[1:])
        if kind not in LIST_KINDS and self._released(table):
            return  # sent before the broker took this panel's unsubscribe: nobody watches it now
        # With the table's token, only what the table signed counts (web_panel.trust).
        vouched = kind in SIGNED_KINDS and self.vouching.holds(table)
        status_vouched = kind == "status" and len(parts) == 2 and self.vouching.holds(table)
        if not payload and table in self._forgotten:
            return  # the echo of this panel's own deletions (``forget``): nothing to refuse or clear
        if not payload and status_vouched:
            # the table never deletes its status (its last will says offline); anyone can
            self._refuse(table, rel, PublicationError("unsigned", "a deletion the table did not sign"))
            return
        if not payload:
            # A retained message deleted by its owner.
            if kind == "summary" and len(parts) == 2 and not vouched:
                self._set_glance(table, None)
            elif kind in RETAINED_KINDS and len(parts) == 2:
                if vouched:
                    # The table never deletes these; anyone can, and nothing signs an empty message.
                    self._refuse(table, rel, PublicationError("unsigned", "a deletion the table did not sign"))
                    return
                self._clear(table, kind)
            elif kind == "recent" and len(parts) == 2:
                if vouched:  # the table never deletes it (a new game publishes it anew, with its game_started)
                    self._refuse(table, rel, PublicationError("unsigned", "a deletion the table did not sign"))
                return  # else nothing to clear: the log keeps what it has
            elif kind == "private" and len(parts) == 3 and parts[2].isdigit():
                # A seat the game no longer has. Its freshness is kept: an old envelope replayed after
                # the clear is still older than the last one the table published.
                self._clear_private(table, int(parts[2]))
            return
        self._forgotten.discard(table)  # it publishes again: no longer forgotten
        if len(payload) > MAX_PAYLOAD:
            self.bad_messages += 1
            log.warning("panel: ignored an oversized message on %s", topic)
            return
        stamp: Stamp | None = None
        data: Any = None
        if vouched:
            try:
                data, stamp = self.vouching.open(table, rel, payload)
            except PublicationError as exc:
                self._refuse(table, rel, exc)
                return
            except ValueError:
                data = None  # signed, yet not JSON: a broken table, counted below
        else:
            try:
                data = loads_utf8(payload)  # UTF-8 JSON only, as the topics promise: no UTF-16, no BOM
            except (ValueError, RecursionError):
                data = None
            if isinstance(data, dict) and kind in SIGNED_KINDS:
                data.pop("pub", None)  # a signature this panel cannot check; the page needs neither
                data.pop("auth", None)
            if isinstance(data, dict) and too_deep(payload):
                self.bad_messages += 1
                log.warning("panel: ignored a message nested more than %d levels deep on %s", MAX_DEPTH, topic)
                return
        if not isinstance(data, dict):
            self.bad_messages += 1
            log.warning("panel: ignored a message that is not a JSON object on %s", topic)
            return
        if status_vouched:
            try:
                self.vouching.check_status(table, payload)
            except PublicationError as exc:
                self._refuse(table, rel, exc)
                return
        if kind == "reply" and len(parts) == 3:
            self._on_reply(table, parts[2], data, payload)
        elif kind == "private" and len(parts) == 3:
            if self._fresh(table, rel, stamp, missing=self.sealed_view(table, _seat(parts[2])) is None):
                self._on_private(table, parts[2], data)
        elif kind == "events" and len(parts) == 2:
            self._on_event(table, data, stamp)
        elif kind == "recent" and len(parts) == 2:
            # The same message again (on a new subscription) is taken again: merging it twice adds nothing.
            if self._fresh(table, rel, stamp, missing=True):
                self._on_recent(table, data)
        elif kind == "summary" and len(parts) == 2:
            if self._fresh(table, rel, stamp):
                self._set_glance(table, data)
        elif kind == "effects" and len(parts) == 2:
            if isinstance(data.get("cues"), list) and self._fresh(table, rel, stamp):
                self.fanout.broadcast(table, ("effects", data))  # passing cues: played now or never, not kept
        elif kind in RETAINED_KINDS and len(parts) == 2:
            if not self._fresh(table, rel, stamp, missing=self._missing(table, kind)):
                return
            if kind == "state":
                data = with_places(data)  # a Terror board's spaces in words, for the pages (web_panel.terror_places)
            with self._lock:
                view = self._table(table)
                setattr(view, kind, data)
                if kind == "state":
                    view.state_at = made_at(data, retained)
                if kind == "state" and isinstance(data.get("seq"), int):
                    if view.last_seq is not None and data["seq"] < view.last_seq:
                        # A table restarted from an empty journal numbers its events from the start again.
                        view.events.clear()
                        view.last_seq = None
                    if view.last_seq is None or data["seq"] > view.last_seq:
                        view.last_seq = data["seq"]
                    known = game_context(data)
                    if known is not None and (view.game is None or view.game.get("game_id") != known["game_id"]):
                        view.game = known  # its game_started event was missed (before the panel started)
                # A state with a running timer goes out with its age (a retained copy may be old).
                sent = view.aged_state() if kind == "state" else data
            self.fanout.broadcast(table, (kind, sent))
            if kind == "status":
                self._on_status(table, data)
            if kind in ("status", "state"):
                self.list_changed(table)

    def _set_glance(self, table: str, data: dict[str, Any] | None) -> None:
        with self._lock:
            view = self._tables.get(table) if data is None else self._table(table)
            if view is None:
                return
            view.glance = data
        self.list_changed(table)

    def list_changed(self, table: str) -> None:
        """Tell the club list's streams how ``table`` looks now (one line of the list, not its traffic)."""
        with self._lock:
            if not self.fanout.watched(LIST):
                return
            view = self._tables.get(table)
            line = view.summary() if view is not None and (view.status or view.state) else {"table": table,
                                                                                            "gone": True}
        self.fanout.broadcast(LIST, ("table", line))

    def _fresh(self, table: str, topic: str, stamp: Stamp | None, missing: bool = False) -> bool:
        """Whether a verified message is newer than the last one taken; an older one is refused.

        ``missing``: the picture lacks this topic (dropped when nobody watched the table), so the
        same message as the last one taken, sent again on a new subscription, is taken again.
        """
        if stamp is None:
            return True  # not checked: the panel holds no token for this table
        try:
            return self.vouching.take(table, topic, stamp) or missing
        except PublicationError as exc:
            self._refuse(table, topic, exc)
            return False

    def _missing(self, table: str, kind: str) -> bool:
        with self._lock:
            view = self._tables.get(table)
            return view is None or getattr(view, kind) is None

    def _refuse(self, table: str, topic: str, exc: PublicationError) -> None:
        self.vouching.refuse(table, topic, exc)
        # Anyone can publish thousands of forgeries a second: each page is told of them at most
        # TRUST_EVERY_S apart (the last count always arrives), not once per forgery.
        now = time.monotonic()
        with self._lock:
            wait = self._trust_at.get(table, -1e9) + TRUST_EVERY_S - now
            if wait > 0:
                if table in self._trust_due:
                    return  # already on its way
                self._trust_due.add(table)
            else:
                self._trust_at[table] = now
        if wait > 0:
            timer = threading.Timer(wait, self._tell_trust, (table,))
            timer.daemon = True
            timer.start()
            return
        self.fanout.broadcast(table, ("trust", self.vouching.describe(table)))

    def _tell_trust(self, table: str) -> None:
        with self._lock:
            self._trust_due.discard(table)
            self._trust_at[table] = time.monotonic()
            if self._closed:
                return
        self.fanout.broadcast(table, ("trust", self.vouching.describe(table)))

    def _table(self, table: str) -> TableView:
        view = self._tables.get(table)
        if view is None:
            view = TableView(table, events=deque(maxlen=self.settings.event_log_size),
                             vouched=self.vouching.holds(table))
            self._tables[table] = view
        return view

    def _clear(self, table: str, kind: str) -> None:
        with self._lock:
            view = self._tables.get(table)
            if view is None:
                return
            setattr(view, kind, None)
            if all(getattr(view, k) is None for k in RETAINED_KINDS):
                del self._tables[table]
        self.fanout.broadcast(table, (kind, None))
        self.list_changed(table)

    def _clear_private(self, table: str, seat: int) -> None:
        with self._lock:
            view = self._tables.get(table)
            if view is None or view.sealed.pop(seat, None) is None:
                return
        self.fanout.broadcast(table, ("private_changed", {"seat": seat}))

    def _on_event(self, table: str, data: dict[str, Any], stamp: Stamp | None = None) -> None:
        seq = data.get("seq") if isinstance(data.get("seq"), int) and not isinstance(data.get("seq"), bool) else None
        gap = False
        with self._lock:
            view = self._table(table)
            if seq is not None and view.last_seq is not None and seq <= view.last_seq and any(
                    e.get("seq") == seq for e in view.events):
                return  # a QoS 1 duplicate
            # After the duplicate check: a resent event is older than the last one, yet no replay.
            if not self._fresh(table, "events", stamp):
                return
            # Each event keeps the game it belongs to, so a page words it with that game's names even
            # after a new game began, and can keep earlier games' events apart from the current one's.
            started = game_context(data.get("data")) if data.get("type") == "game_started" else None
            if started is not None:
                view.game = started
            elif view.game is None and view.state is not None:
                view.game = game_context(view.state)
            data = {**data, "context": view.game}
            if seq is not None:
                if view.last_seq is not None and seq > view.last_seq + 1:
                    gap = True
                    view.gaps += 1
                if view.last_seq is None or seq > view.last_seq:
                    view.last_seq = seq
            view.events.append(data)
        self.fanout.broadcast(table, ("event", data))
        if gap:
            self._resync(table)

    def _on_recent(self, table: str, data: dict[str, Any]) -> None:
        """Merge the table's retained latest events of its current game into the log, by seq.

        A page opened mid-game shows the moves made before the panel watched the table. Each event
        the log lacks is put in its place by seq (none twice; live events after it stay in order).
        A ``recent`` of a game older than the one the panel already knows (it is published at most
        once a second, so it can lag a new game) is not merged: never an older game's moves in the
        current game's log.
        """
        raw = data.get("events")
        context = game_context(data.get("game"))
        if not isinstance(raw, list) or context is None:
            self.bad_messages += 1
            log.warning("panel: ignored a recent-moves message of table %r without its game or events", table)
            return
        top: int = data["seq"] if isinstance(data.get("seq"), int) and not isinstance(data.get("seq"), bool) else 0
        incoming = [e for e in raw if isinstance(e, dict) and isinstance(e.get("seq"), int)
                    and not isinstance(e.get("seq"), bool) and isinstance(e.get("type"), str)]
        with self._lock:
            view = self._table(table)
            known = game_context(view.state) if view.state is not None else None
            current = known or view.game
            newest = max([view.last_seq or 0, *(s for s in [(view.state or {}).get("seq")] if isinstance(s, int))])
            if current is not None and current["game_id"] != context["game_id"] and newest >= top:
                return  # the table has moved on to another game since this was published
            have = {e.get("seq") for e in view.events}
            full = view.events.maxlen is not None and len(view.events) >= view.events.maxlen
            oldest = min((s for s in have if isinstance(s, int)), default=None) if full else None
            # A full log keeps its newest: events older than all it holds would only be pushed out again.
            added = [{**e, "context": context} for e in incoming
                     if e["seq"] not in have and (oldest is None or e["seq"] > oldest)]
            if not added:
                return
            merged = sorted([*view.events, *added], key=lambda e: e["seq"] if isinstance(e.get("seq"), int) else -1)
            view.events.clear()
            view.events.extend(merged)  # the deque's maxlen keeps the newest
            top = max(e["seq"] for e in added)
            if view.last_seq is None or top > view.last_seq:
                view.last_seq = top
            view.game = context  # the same game as the panel knew, or a newer one: the next event's
        # Pages draw the log again from the whole picture: events put in before ones they already hold.
        snap = self.snapshot(table)
        if snap is not None:
            self.fanout.broadcast(table, ("snapshot", snap))

    def _on_private(self, table: str, seat_text: str, data: dict[str, Any]) -> None:
        try:
            seat = int(seat_text)
        except ValueError:
            self.bad_messages += 1
            return
        if not isinstance(data.get("sealed"), str):
            self.bad_messages += 1
            return
        with self._lock:
            view = self._table(table)
            view.sealed[seat] = data
        # Only the sealed envelope's arrival is announced; a player's own stream opens it.
        self.fanout.broadcast(table, ("private_changed", {"seat": seat}))

    def seats_changed(self, table: str) -> None:
        """Someone joined or left a seat of ``table`` here: each player's own stream checks its seat at
        once (a second page of the same phone must not go on showing a hand it no longer holds)."""
        self.fanout.broadcast(table, ("seats_changed", {}))


    def forget(self, table: str) -> list[str] | None:
        """Drop an offline table from the picture; the topics under it to delete on the broker, or None
        when the table is online (or unknown): a running controller would publish them again at once.

        Its own deletions come back from the broker as empty messages, which are then not taken as
        anyone's (see ``_handle``) until the table publishes again.
        """
        with self._lock:
            view = self._tables.get(table)
            if view is None or (view.status or {}).get("state") != "offline":
                return None
            seats = sorted(view.sealed)
            del self._tables[table]
            self._forgotten.add(table)
        return [*RETAINED_KINDS, *(f"private/{seat}" for seat in seats)]

    def awaits_state(self, table: str) -> bool:
        with self._lock:
            view = self._tables.get(table)
            return view is not None and view.state is None and (view.status or {}).get("state") == "online"


    def forget_traffic(self, table: str) -> None:
        """Nobody watched ``table`` for the linger, and its traffic is being unsubscribed.

        Its line of the list stays, from its ``status`` and ``summary``; its state, sensors, health,
        sealed views and event log go, since nothing would keep them current.
        """
        with self._lock:
            view = self._tables.get(table)
            if view is not None:
                view.state = view.sensors = view.health = None
                view.sealed.clear()
                view.events.clear()
                view.last_seq = None
                view.game = None
                if view.status is None and view.glance is None:
                    del self._tables[table]
        self.list_changed(table)


    # ----- reading ------------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        """Tables a controller has announced (status or state); a stray health report alone,
        such as ``gravekeeper selftest`` publishes for a table no controller runs, is no table."""
        with self._lock:
            return [self._tables[t].summary() for t in sorted(self._tables)
                    if self._tables[t].status is not None or self._tables[t].state is not None]

    def table_name(self, table: str) -> str:
        """What people read for ``table``: its announced name, or one made from the id until it is known."""
        with self._lock:
            view = self._tables.get(table)
            return view.name() if view is not None else default_name(table)

    def has_table(self, table: str) -> bool:
        with self._lock:
            return table in self._tables

    def snapshot(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            view = self._tables.get(table)
            snap = view.snapshot() if view is not None else None
        if snap is not None:
            snap["broker"] = "connected" if self.connected.is_set() else "disconnected"
            snap["trust"] = self.vouching.describe(table)
        return snap

    def state(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            view = self._tables.get(table)
            return view.state if view is not None else None

    def status(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            view = self._tables.get(table)
            return view.status if view is not None else None

    def sealed_view(self, table: str, seat: int) -> dict[str, Any] | None:
        with self._lock:
            view = self._tables.get(table)
            return view.sealed.get(seat) if view is not None else None
