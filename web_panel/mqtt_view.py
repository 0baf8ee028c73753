"""The panel's picture of the broker: every table's line of the list, and the tables someone watches.

One paho-mqtt 2 client subscribes to what the club list shows of every table
under the base topic (its retained ``status`` and ``summary``), and to a
table's full traffic only while a page, stream or request of that table needs
it (``web_panel.interest``: held, then released after a linger). For a watched
table it keeps the last retained ``state``, ``sensors``, ``health`` and sealed
``private/<seat>``, plus a short log of events: the current game's latest ones
from the retained ``recent`` (so a table opened mid-game shows its moves at
once), then every event since it was first watched, merged by seq. It fans
every change out to the SSE clients watching that table. It also
sends signed commands and waits for their replies.

An ``act`` for a seat is sent sealed for that seat (``controller.protocol.security.
seal_command``) and its reply opened here, so a spectator on the broker never
reads a player's move, nor the reason the table refused it.

Messages a table signs (``state``, ``events``, ``recent``, ``sensors``,
``health``, ``private/<seat>``, ...) are taken only when they verify, if the panel holds the
table's token (``web_panel.trust``); the client announces the largest packet
it takes (MQTT 5, ``controller.protocol.mqtt5``), so no broker sends it a bigger one.

Sealed private views are stored sealed. They are opened only when a player's
own stream asks for them (see ``views/player.py``), so nothing secret sits in
the shared picture that every page reads.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from controller.games import GAME_NAMES, get_game
from controller.protocol import mqtt5
from controller.protocol.names import default_name, shown_name
from controller.protocol.publication import PublicationError, Stamp
from controller.protocol.security import (
    MAX_DEPTH,
    SealError,
    loads_utf8,
    seal_command,
    too_deep,
    unseal_reply,
)
from controller.protocol.signing import signed_command, verify_reply

from .fanout import Item, Subscriber
from .interest import LIST_KINDS, Subscriptions, list_filters
from .settings import TABLE_ID_RE, PanelSettings
from .trust import SIGNED_KINDS, Vouching

log = logging.getLogger(__name__)

RETAINED_KINDS = ("status", "state", "sensors", "health")
# A retained state older than this by the table's stamp is not aged by it: the outcome windows are at
# most two minutes (referee.skull_window_ms), so the clocks of the panel and the table disagree.
MAX_RETAINED_AGE_S = 300.0
TRUST_EVERY_S = 0.5  # a table's pages hear of refused forgeries at most this often
MAX_PAYLOAD = mqtt5.MAX_PAYLOAD_BYTES  # a state bigger than this is a broken publisher, not a game
RESYNC_MIN_INTERVAL = 2.0
# Commands that change the game: each names the game it was made in (``in_game``), so the table
# runs it in no other one. Reading ones (resync, selftest, history) are not bound.
GAME_BOUND = frozenset({"new_game", "act", "sim", "undo", "undo_request", "undo_answer", "pause", "resume",
                        "correct"})
# ... and these also name the point of the game they were made at (``at_seq``): an undo takes back
# the last step, whichever it is, so a held-back one published after a retry took back one more.
SEQ_BOUND = frozenset({"undo"})
# How long the first request for a table waits for its retained topics after subscribing. The broker
# sends them right away; under load they can queue behind other messages, so a little margin.
RETAINED_WAIT_S = 3.0


class CommandTimeout(TimeoutError):
    """The table did not answer a command in time."""


@dataclass
class TableView:
    """What the panel knows of one table. Only public data; private views stay sealed."""

    table: str
    status: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    sensors: dict[str, Any] | None = None
    health: dict[str, Any] | None = None
    sealed: dict[int, dict[str, Any]] = field(default_factory=dict)
    events: deque[dict[str, Any]] = field(default_factory=deque)
    last_seq: int | None = None
    gaps: int = 0
    game: dict[str, Any] | None = None  # the game the next event belongs to (see ``game_context``)
    glance: dict[str, Any] | None = None  # the retained ``summary`` topic: the table in plain words
    state_at: float | None = None  # this panel's monotonic clock when the table made ``state``, as best known
    vouched: bool = False  # the panel holds the table's token, so its status was checked (``name``)

    def name(self) -> str:
        """What people read for the table: the name its status carries, else one made from the id.

        The name is who the table is, so it is taken only from a status the panel could check (signed
        with the table's token: a forged one is refused before it gets here). A panel without the token
        cannot tell the table's name from anyone's, and shows the one made from the id.
        """
        return shown_name(self.table, (self.status or {}).get("name") if self.vouched else None)

    def snapshot(self) -> dict[str, Any]:
        """Everything public, as one JSON object (what a page draws on connect)."""
        return {
            "table": self.table,
            "name": self.name(),
            "status": self.status,
            "state": self.aged_state(),
            "sensors": self.sensors,
            "health": self.health,
            "events": list(self.events),
        }

    def aged_state(self) -> dict[str, Any] | None:
        """The state, with ``age_ms`` (how long ago the table made it) when it shows a running timer.

        A state carries what is left of an outcome window when it was made (``expects[].left_ms``);
        a page that opens in the middle of the window gets this copy, maybe seconds later, and
        counts down from what is left now (``countdown.js``). A state without a timer is as published.
        """
        if self.state is None or "time" not in self.state or self.state_at is None:
            return self.state
        return {**self.state, "age_ms": max(0, round((time.monotonic() - self.state_at) * 1000))}

    def summary(self) -> dict[str, Any]:
        # Every field is checked for its type: a table the panel cannot vouch for shows whatever
        # anyone published there, and one list line of the wrong type broke the whole club list.
        status = self.status or {}
        state = self.state or {}
        glance = self.glance or {}
        mismatch = state.get("mismatch") if self.state is not None else None
        gm = state.get("gm") if isinstance(state.get("gm"), dict) else {}
        game = _text(state.get("game")) or _text(glance.get("game")) or _text(status.get("game"))
        return {
            "table": self.table,
            "name": self.name(),  # what people read; "table" stays for links and filters
            "room": room_of(self.table),
            "online": status.get("state") == "online",
            "game": game,
            # What people read: the game's title (the id stays in "game" for machines).
            "title": _text(glance.get("title")) or game_title(game),
            "players": _players(state.get("players")) or _names(glance.get("players")),
            "turn": _text(glance.get("turn")) or _turn(state),
            "waiting_for": _text(state.get("waiting_for")) or _text(glance.get("waiting_for")),
            "over": (state.get("over") is True) if self.state is not None else glance.get("over") is True,
            "mismatch": bool(mismatch) if self.state is not None else glance.get("mismatch") is True,
            "mismatch_text": _text(mismatch.get("message") if isinstance(mismatch, dict)
                                   else glance.get("mismatch") is True and glance.get("mismatch_text")),
            # the game master paused it
            "paused": bool(gm.get("paused")) if self.state is not None else glance.get("paused") is True,
        }


def made_at(state: dict[str, Any], retained: bool) -> float:
    """When the table made ``state``, on this panel's monotonic clock.

    A message published while the panel listens was made a few milliseconds before it arrived.
    The broker's retained copy (a panel that started or reconnected mid-window) may be older:
    then the table's own stamp (``time``, its wall clock, present while a timer runs) says by
    how much, if the two clocks roughly agree (a panel on the table's own machine, or both on
    NTP); a stamp from the future or from long ago is a clock that does not, and is not trusted.
    """
    now = time.monotonic()
    stamp = state.get("time")
    if not retained or isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        return now
    age = time.time() - float(stamp)
    return now - age if 0.0 <= age <= MAX_RETAINED_AGE_S else now


def game_context(data: Any) -> dict[str, Any] | None:
    """Which game an event belongs to, from a ``game_started`` event's data or a state: id, name, title, players."""
    if not isinstance(data, dict) or not isinstance(data.get("game_id"), str):
        return None
    view = data.get("view") if isinstance(data.get("view"), dict) else {}
    players = data.get("players")
    return {"game_id": data["game_id"], "game": data.get("game"), "title": data.get("title") or view.get("title"),
            "players": list(players) if isinstance(players, list) else []}


def game_title(game: Any) -> str | None:
    """The title people know a game by ("Terror in the Graveyard"), or None for no or an unknown game."""
    return get_game(game).title if isinstance(game, str) and game in GAME_NAMES else None


def _turn(state: dict[str, Any]) -> str | None:
    """Whose turn, by name, from the state (a table that publishes no summary yet)."""
    players, seat = state.get("players"), state.get("current_player")
    if state.get("over") or not isinstance(players, list) or isinstance(seat, bool) or not isinstance(seat, int):
        return None
    return _text(players[seat]) if 0 <= seat < len(players) else None


def _players(value: Any) -> list[str]:
    """The players' names from a state: a list of text, or none (never a forgery's other types)."""
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _names(value: Any) -> list[str]:
    """The players from a summary, which words them as one line ("Ann, Bo")."""
    return [name for name in value.split(", ") if name] if isinstance(value, str) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _seat(text: str) -> int:
    return int(text) if text.isdigit() else -1


def room_of(table: str) -> str | None:
    """A table's room, from its id: the part before its last ``-`` (``bar-3`` is in ``bar``,
    ``hall-b-12`` in ``hall-b``); an id without ``-`` is in no room (docs/panel.md)."""
    room, sep, rest = table.rpartition("-")
    return room if sep and room and rest else None


LIST = ""  # the key of the club list's subscribers: no table id is empty (TABLE_ID_RE)


class MqttView:
    """The shared, thread-safe picture of every table, kept current from MQTT."""

    def __init__(self, settings: PanelSettings, client_id: str | None = None) -> None:
        self.settings = settings
        self.base = settings.base_topic
        self._lock = threading.RLock()
        self._tables: dict[str, TableView] = {}
        self._subscribers: dict[str, set[Subscriber]] = {}
        # id -> done, the signed reply, the token, an unsigned "not authorised" kept in case no signed one comes
        # command id -> (answered, the answer, token, an unsigned refusal kept aside, the command's name)
        self._pending: dict[str, tuple[threading.Event, list[dict[str, Any]], str, list[dict[str, Any]], str, str]] = {}
        self._last_resync: dict[str, float] = {}
        self._trust_at: dict[str, float] = {}  # table -> when its pages were last told what was refused
        self._trust_due: set[str] = set()  # tables whose pages are to be told again (a timer runs)
        self._forgotten: set[str] = set()  # tables this panel deleted (``forget``) until they publish again
        self.connected = threading.Event()
        self.changed = threading.Condition(self._lock)  # notified after every message and link change
        self.bad_messages = 0
        self.vouching = Vouching(settings.token_for)
        self._closed = False
        self.client_id = client_id or f"gk-panel-{uuid.uuid4().hex[:12]}"
        self._client = mqtt5.new_client(self.client_id, mqtt5=settings.broker_mqtt5)
        if settings.broker_username is not None:
            self._client.username_pw_set(settings.broker_username, settings.broker_password)
        if settings.broker_tls:
            self._client.tls_set(ca_certs=settings.broker_ca_file, cert_reqs=ssl.CERT_REQUIRED)
        self._client.reconnect_delay_set(0.2, 5)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        # Which tables' full traffic is subscribed (web_panel.interest).
        self.subscriptions = Subscriptions(self._client, self.base, self.client_id, self.connected,
                                           settings.table_linger, self._forget_traffic, self._notify)
        self._client.on_subscribe = self.subscriptions.on_subscribe
        self._client.on_unsubscribe = self.subscriptions.on_unsubscribe

    # ----- lifecycle -----------------------------------------------------------
    def start(self, wait: float | None = None) -> None:
        """Connect in the background (a broker that is down now is retried); optionally wait."""
        mqtt5.connect_async(self._client, self.settings.broker_host, self.settings.broker_port, 30,
                            tls=self.settings.broker_tls)
        self._client.loop_start()
        if wait is not None:
            self.connected.wait(wait)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            subscribers = [s for subs in self._subscribers.values() for s in subs]
        self.subscriptions.close()
        for sub in subscribers:
            sub.close()
        self._client.disconnect()
        self._client.loop_stop()

    # ----- paho callbacks (paho's network thread) --------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            if not mqtt5.fall_back_to_v311(client, reason):
                log.warning("panel: broker refused the connection: %s", reason)
            return
        sock = client.socket()
        if isinstance(sock, socket.socket):
            # paho leaves Nagle on; with delayed ACKs that costs 40 ms per small message.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Every table's list topics; the full traffic only of the tables someone watches (a clean
        # session has no subscriptions left from before a reconnect).
        client.subscribe(list_filters(self.base))
        # Connected first: a table held from now on subscribes by itself (at worst twice, harmless).
        self.connected.set()
        self.subscriptions.connected()
        self._notify()
        self._broadcast_all(("link", {"broker": "connected"}))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        self.subscriptions.disconnected()
        self._notify()
        if not self._closed:
            self._broadcast_all(("link", {"broker": "disconnected"}))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.handle(msg.topic, msg.payload, retained=bool(msg.retain))
        except Exception:
            log.exception("panel: failed to handle a message on %s", msg.topic)

    # ----- the picture -------------------------------------------------------------
    def handle(self, topic: str, payload: bytes, *, retained: bool = False) -> None:
        """Take one message into the picture (public so tests can feed it directly).

        ``retained``: the broker's stored copy, sent when this panel subscribed (so it may be old),
        not a message published while the panel listened.
        """
        try:
            self._handle(topic, payload, retained)
        finally:
            self._notify()

    def _notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds after some message (or already does); False on timeout."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def _handle(self, topic: str, payload: bytes, retained: bool = False) -> None:
        prefix = self.base + "/"
        if not topic.startswith(prefix):
            return
        parts = topic[len(prefix):].split("/")
        if len(parts) < 2 or not TABLE_ID_RE.match(parts[0]):
            return
        table, kind = parts[0], parts[1]
        rel = "/".join(parts[1:])
        if kind not in LIST_KINDS and self.subscriptions.released(table):
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
                self._broadcast(table, ("effects", data))  # passing cues: played now or never, not kept
        elif kind in RETAINED_KINDS and len(parts) == 2:
            if not self._fresh(table, rel, stamp, missing=self._missing(table, kind)):
                return
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
            self._broadcast(table, (kind, sent))
            if kind in ("status", "state"):
                self._list_changed(table)

    def _set_glance(self, table: str, data: dict[str, Any] | None) -> None:
        with self._lock:
            view = self._tables.get(table) if data is None else self._table(table)
            if view is None:
                return
            view.glance = data
        self._list_changed(table)

    def _list_changed(self, table: str) -> None:
        """Tell the club list's streams how ``table`` looks now (one line of the list, not its traffic)."""
        with self._lock:
            if not self._subscribers.get(LIST):
                return
            view = self._tables.get(table)
            line = view.summary() if view is not None and (view.status or view.state) else {"table": table,
                                                                                            "gone": True}
        self._broadcast(LIST, ("table", line))

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
        self._broadcast(table, ("trust", self.vouching.describe(table)))

    def _tell_trust(self, table: str) -> None:
        with self._lock:
            self._trust_due.discard(table)
            self._trust_at[table] = time.monotonic()
            if self._closed:
                return
        self._broadcast(table, ("trust", self.vouching.describe(table)))

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
        self._broadcast(table, (kind, None))
        self._list_changed(table)

    def _clear_private(self, table: str, seat: int) -> None:
        with self._lock:
            view = self._tables.get(table)
            if view is None or view.sealed.pop(seat, None) is None:
                return
        self._broadcast(table, ("private_changed", {"seat": seat}))

    def _on_event(self, table: str, data: dict[str, Any], stamp: Stamp | None = None) -> None:
        seq = data.get("seq")
        gap = False
        with self._lock:
            view = self._table(table)
            numbered = isinstance(seq, int) and not isinstance(seq, bool)
            if numbered and view.last_seq is not None and seq <= view.last_seq and any(
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
            if numbered:
                if view.last_seq is not None and seq > view.last_seq + 1:
                    gap = True
                    view.gaps += 1
                if view.last_seq is None or seq > view.last_seq:
                    view.last_seq = seq
            view.events.append(data)
        self._broadcast(table, ("event", data))
        if gap:
            self.request_resync(table)

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
        top = data.get("seq") if isinstance(data.get("seq"), int) and not isinstance(data.get("seq"), bool) else 0
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
            self._broadcast(table, ("snapshot", snap))

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
        self._broadcast(table, ("private_changed", {"seat": seat}))

    def seats_changed(self, table: str) -> None:
        """Someone joined or left a seat of ``table`` here: each player's own stream checks its seat at
        once (a second page of the same phone must not go on showing a hand it no longer holds)."""
        self._broadcast(table, ("seats_changed", {}))

    def request_resync(self, table: str) -> bool:
        """Ask the table to republish its retained topics after a gap (needs its token)."""
        token = self.settings.token_for(table)
        now = time.monotonic()
        with self._lock:
            if token is None or now - self._last_resync.get(table, -1e9) < RESYNC_MIN_INTERVAL:
                return False
            self._last_resync[table] = now
        self.publish_command(table, "resync", {}, token)
        return True

    def forget(self, table: str) -> bool:
        """Delete an offline table's retained topics, so it leaves this panel's list, and the lists of
        panels that hold no token for it (one that does refuses a deletion the table did not sign, and
        keeps listing it).

        Only an offline table: a running controller would publish them again at once. Nothing is
        lost: a controller that comes back republishes everything from its journal. False when the
        table is online (or unknown).
        """
        with self._lock:
            view = self._tables.get(table)
            if view is None or (view.status or {}).get("state") != "offline":
                return False
            seats = sorted(view.sealed)
            del self._tables[table]
            self._forgotten.add(table)
        for kind in (*RETAINED_KINDS, *(f"private/{seat}" for seat in seats)):
            self._client.publish(f"{self.base}/{table}/{kind}", b"", qos=1, retain=True)
        self._list_changed(table)  # the club list's streams drop its line now
        return True

    # ----- which tables are watched (web_panel.interest) ----------------------------------
    def hold(self, table: str, timeout: float = RETAINED_WAIT_S) -> None:
        """Subscribe to ``table``'s full traffic (once, however many hold it) and wait for its picture.

        The first hold subscribes, then waits until the table's retained topics are in (or
        ``timeout``), so the first page or API answer is complete, not empty. Every hold needs its
        :meth:`release`. Without a broker there is nothing to wait for: the picture fills in once
        the panel connects.
        """
        ready = self.subscriptions.hold(table)  # counted even when closing: every hold meets its release
        if self._closed or not self.connected.is_set():
            return
        deadline = time.monotonic() + timeout
        ready.wait(timeout)
        # The broker sends the retained messages before it answers the barrier; under load a few may
        # queue behind other messages: an online table without its state yet is waited for a bit more.
        self.wait_until(lambda: not self._awaits_state(table), max(0.0, deadline - time.monotonic()))

    def release(self, table: str) -> None:
        """One holder of ``table`` fewer; after the last, and the linger, its traffic is unsubscribed."""
        self.subscriptions.release(table)

    @contextmanager
    def holding(self, table: str) -> Iterator[None]:
        self.hold(table)
        try:
            yield
        finally:
            self.release(table)

    def watched(self) -> list[str]:
        """The tables whose full traffic this panel subscribes to now: watched, lingering, or
        unsubscribed but not yet confirmed by the broker."""
        return self.subscriptions.watched()

    def _awaits_state(self, table: str) -> bool:
        with self._lock:
            view = self._tables.get(table)
            return view is not None and view.state is None and (view.status or {}).get("state") == "online"

    def _forget_traffic(self, table: str) -> None:
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
        self._list_changed(table)

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

    def sealed_view(self, table: str, seat: int) -> dict[str, Any] | None:
        with self._lock:
            view = self._tables.get(table)
            return view.sealed.get(seat) if view is not None else None

    # ----- fan-out ------------------------------------------------------------------------
    def subscribe(self, table: str) -> Subscriber:
        sub = Subscriber(table)
        with self._lock:
            if self._closed:
                sub.close()
            self._subscribers.setdefault(table, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            subs = self._subscribers.get(sub.table)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subscribers[sub.table]

    def subscriber_count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def _broadcast(self, table: str, change: tuple[str, Any]) -> None:
        item = Item(*change)
        with self._lock:
            subs = list(self._subscribers.get(table, ()))
        for sub in subs:
            sub.offer(item)

    def _broadcast_all(self, change: tuple[str, Any]) -> None:
        item = Item(*change)
        with self._lock:
            subs = [s for group in self._subscribers.values() for s in group]
        for sub in subs:
            sub.offer(item)

    # ----- commands ---------------------------------------------------------------------------
    def publish_command(self, table: str, name: str, fields: dict[str, Any], token: str) -> str:
        """Sign and publish ``cmd/<name>`` without waiting; returns the command id."""
        cmd_id = uuid.uuid4().hex
        payload = signed_command(token, table, name, {"id": cmd_id, **fields})
        self._client.publish(f"{self.base}/{table}/cmd/{name}", payload, qos=1)
        return cmd_id

    def command(self, table: str, name: str, fields: dict[str, Any], token: str,
                timeout: float | None = None) -> dict[str, Any]:
        """Send a signed command and wait for the reply with the same id.

        Raises :class:`CommandTimeout` when no reply comes within ``timeout``.
        """
        return self._command(table, name, lambda cmd_id: fields, token, timeout)

    def act(self, table: str, action: dict[str, Any], token: str,
            timeout: float | None = None) -> dict[str, Any]:
        """Send ``action`` sealed for its seat and return the reply opened: ``{"id", "ok", "error"?, "data"?}``.

        An action of no seat has nothing of a player's to hide and goes in clear.
        """
        seat = action.get("player")
        if isinstance(seat, bool) or not isinstance(seat, int):
            return self.command(table, "act", {"action": action}, token, timeout)

        def fields(cmd_id: str) -> dict[str, Any]:
            return {"seat": seat, "sealed": seal_command(token, table, seat, cmd_id, action)}

        reply = self._command(table, "act", fields, token, timeout)
        if "sealed" not in reply:
            # Refused before it was opened (a bad signature, say): the reason is in clear.
            return {k: reply[k] for k in ("id", "ok", "error", "data") if k in reply}
        try:
            opened = unseal_reply(token, table, seat, str(reply.get("id")), reply["sealed"])
        except SealError as exc:
            return {"id": reply.get("id"), "ok": False,
                    "error": f"the table's reply could not be opened: {exc}"}
        if not isinstance(opened, dict) or not isinstance(opened.get("ok"), bool):
            return {"id": reply.get("id"), "ok": False, "error": "the table's sealed reply has no answer in it"}
        # The verdict is read from the sealed part, which only a holder of the seat's key can make.
        return {"id": reply.get("id"), **{k: opened[k] for k in ("ok", "error", "data") if k in opened}}

    def _command(self, table: str, name: str, build: Callable[[str], dict[str, Any]], token: str,
                 timeout: float | None) -> dict[str, Any]:
        """Publish the signed fields ``build(id)`` under a new id and wait for that id's reply."""
        with self.holding(table):  # its replies come on its own topics
            return self._command_held(table, name, build, token, timeout)

    def _command_held(self, table: str, name: str, build: Callable[[str], dict[str, Any]], token: str,
                      timeout: float | None) -> dict[str, Any]:
        cmd_id = uuid.uuid4().hex
        done = threading.Event()
        box: list[dict[str, Any]] = []
        unsigned: list[dict[str, Any]] = []
        with self.changed:
            self._pending[cmd_id] = (done, box, token, unsigned, name, table)
            self.changed.notify_all()
        try:
            fields = build(cmd_id)
            state = self.state(table) or {}
            game_id, seq = state.get("game_id"), state.get("seq")
            if name in GAME_BOUND and isinstance(game_id, str) and game_id:
                # Bound to the game the page showed: held back on the broker and published after
                # a retry has started a new game, it runs in no other (docs/topics.md, Replay).
                fields = {**fields, "in_game": game_id}
            if name in SEQ_BOUND and isinstance(seq, int) and not isinstance(seq, bool):
                fields = {**fields, "at_seq": seq}
            payload = signed_command(token, table, name, {"id": cmd_id, **fields})
            self._client.publish(f"{self.base}/{table}/cmd/{name}", payload, qos=1)
            wait = self.settings.command_timeout if timeout is None else timeout
            if not done.wait(wait):
                with self._lock:
                    refusal = unsigned[0] if unsigned else None
                if refusal is not None:
                    return refusal  # no signed answer came: the table's own refusal of our token, likely
                raise CommandTimeout(f"table {table!r} did not answer {name!r} within {wait:g} s")
            return box[0]
        finally:
            with self._lock:
                self._pending.pop(cmd_id, None)

    def _on_reply(self, table: str, name: str, data: dict[str, Any], raw: bytes) -> None:
        cmd_id = data.get("id")
        if not isinstance(cmd_id, str):
            return
        with self._lock:
            pending = self._pending.get(cmd_id)
        if pending is None:
            return
        done, box, token, unsigned, sent_as, sent_to = pending
        # Anyone can publish a copy of this command on another table's topic: that table refuses it
        # (signed for another table) and, when one token serves both, signs the refusal with it.
        # Only this table's answer, on its own reply topic and signed for it, answers the command.
        if table != sent_to:
            return
        # Anyone who sees the command go by can publish it again with its id, exactly or altered,
        # on any command topic, and the table answers that copy too (signed: "replayed command id",
        # "not authorised", "unknown command"), often before the command itself, which waits for
        # the journal. Such an answer is marked a copy's, or comes on another command's reply topic:
        # never the answer to this command, which ran (or not) all the same.
        if name != sent_as or data.get("copy") is True:
            return
        # Anyone on the broker can publish on reply/: only the table holds the token to sign. A
        # table that refuses the signature itself cannot sign with the token the sender got wrong,
        # so that refusal cannot be checked. Anyone who sees the command's id can send it too, and
        # faster than the table: taken at once, it would show a move the table made as refused (and
        # the player would make it again). So it is kept aside and shown only if no signed answer
        # comes before the command's timeout.
        if not verify_reply(token, table, name, raw):
            if data.get("ok") is False and str(data.get("error", "")).startswith("not authorised"):
                with self._lock:
                    if not unsigned:
                        unsigned.append({k: v for k, v in data.items() if k != "auth"})
                return
            log.warning("ignored a reply to command %s that the table did not sign", cmd_id)
            return
        if not done.is_set():
            box.append({k: v for k, v in data.items() if k != "auth"})
            done.set()

