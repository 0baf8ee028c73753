"""The controller's MQTT link: status, retained topics, the event outbox, commands.

Ordering is the whole design. Events, retained topics and replies go out only
through :meth:`MqttLink.flush`, called by one thread at a time (the service
holds its decision lock around it), at QoS 1, in this order: events from the
journal in ``seq`` order, then retained topics (state last changed after those
events), then replies. Paho keeps unacknowledged
QoS 1 messages across a reconnect and resends them, in order, before anything
we publish after the reconnect (we publish only once our resubscription is
acknowledged, which is after paho's resend), so a broker outage reorders nothing.

The journal is the outbox. ``published_seq`` moves only when the broker has
acknowledged every event up to it, so a broker outage or a ``kill -9`` loses
nothing: a restarted controller publishes from there. To avoid doubling the
events that reached the broker just before a ``kill -9`` (acknowledged, but the
acknowledgement not yet written down), the first connection reads our own
retained ``state``: it is always published after the events it includes, so if
it belongs to the same game its ``seq`` proves the broker already has those.

Commands are checked in the network thread (``controller.protocol.commands``)
before the worker sees them; each refusal gets a reply naming the problem.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

import paho.mqtt.client as mqtt

from controller.mqtt.put_right import PutRightGate
from controller.protocol import mqtt5
from controller.protocol.commands import (  # noqa: F401 - re-exported: the link's public names
    MAX_COMMAND_BYTES,
    Command,
    CommandChecker,
    CommandRefused,
    Topics,
    dumps,
)
from controller.protocol.publication import (
    PublicationError,
    Publisher,
    check_body,
    open_publication,
)
from controller.protocol.signing import signed_reply, signing_key
from controller.protocol.status import RunStatus
from controller.store.journal import JournalError

log = logging.getLogger(__name__)

# Unacknowledged QoS 1 messages we allow ourselves; paho's own limit is set higher
# so that paho never holds a message back and every message is written in our order.
WINDOW = 500
PAHO_INFLIGHT = 2 * WINDOW
# What an event on the events topic holds (the journal's public_body): never anything private it keeps.
EVENT_KEYS = ("seq", "table", "type", "time", "data")
MARK_EVERY_S = 1.0
FOREIGN_LOG_EVERY_S = 60.0
# Refusals answered per second (a token bucket): anyone on the broker can send commands that the
# checker refuses, and each answer goes to every panel (they all read reply/+). Past this, a refused
# command gets no answer and no log line, only a count (refusals_unanswered in health).
REFUSAL_REPLIES_PER_S = 20.0
REFUSAL_REPLIES_BURST = 40.0
# Someone else's retained message on a private topic no seat has: deleted, this many a second at most,
# with at most this many waiting (a flood over countless topics must not grow a list without end).
STRAYS_CLEARED_PER_S = 20
STRAYS_WAITING = 256


class OutboxJournal(Protocol):
    def last_seq(self) -> int: ...
    def public_after(self, seq: int, limit: int | None = None) -> list[tuple[int, bytes]]: ...
    def published_seq(self) -> int: ...
    def mark_published(self, seq: int) -> None: ...  # JournalError: the cursor was not written
    def command_used(self, command_id: str) -> bool: ...
    def use_command(self, command_id: str) -> None: ...


class LinkSettings(Protocol):
    """What the link reads from ``controller.config.MqttConfig``."""

    @property
    def base_topic(self) -> str: ...
    @property
    def username(self) -> str | None: ...
    @property
    def password(self) -> str | None: ...
    @property
    def tls(self) -> bool: ...
    @property
    def ca_file(self) -> str | None: ...
    @property
    def client_id(self) -> str | None: ...
    @property
    def keepalive(self) -> int: ...


class MqttLink:
    """One paho client for one table. Publish only through :meth:`flush`, one caller at a time."""

    def __init__(
        self,
        settings: LinkSettings,
        *,
        host: str,
        port: int,
        table: str,
        token: str,
        journal: OutboxJournal,
        commands: Collection[str],
        on_command: Callable[[Command], None],
        on_wake: Callable[[], None],
        status: Mapping[str, Any] | None = None,
        on_conflict: Callable[[str], None] | None = None,
        mqtt5_protocol: bool = True,
        since: float | None = None,
    ) -> None:
        self.topics = Topics(settings.base_topic, table)
        self.host, self.port = host, port
        self._table = table
        self._journal = journal
        self._on_command = on_command
        self._on_wake = on_wake
        self._token = token
        self._checker = CommandChecker(token, commands, journal.command_used, table=table, spend=journal.use_command)
        # Tells this run from another of the same table id.
        self.status = RunStatus(table, status, token=token, since=since)
        self._on_conflict = on_conflict
        # Everything on state, events, sensors, health and private/ is signed (controller.protocol.publication).
        self._publisher = Publisher(token, table, self.status.instance, self.status.since)
        self._pub_key = signing_key(token)
        self._prefix = self.topics.command("")[: -len("cmd/")]

        self._lock = threading.Lock()  # guards the fields the network thread writes
        self._ready = False            # connected and resubscribed: flush may publish
        self._ever_ready = threading.Event()
        self._connects = 0
        self._disconnects = 0
        self._last_error: str | None = None
        self._sync_mid: int | None = None
        self._syncing = False
        self._broker_state: dict[str, Any] | None = None
        self._replies: collections.deque[tuple[str, bytes]] = collections.deque()
        self._acked_mids: collections.deque[int] = collections.deque()
        self._want_wake = False
        self._refresh_pending = False
        self._closed = False
        self._conflict: str | None = None
        self._listeners: dict[str, Callable[[bytes, bool], None]] = {}  # topic -> handler(payload, retained)
        # Our retained topics (the status too) someone else published on: put right, a few times a second at most.
        self._put_right: PutRightGate[str] = PutRightGate()
        self._foreign_count = 0
        self._foreign_logged_at = -1e9
        self._refusal_budget = REFUSAL_REPLIES_BURST  # see _may_answer_refusal
        self._refusal_at = time.monotonic()
        self._refusals_unanswered = 0
        self._refusal_logged_at = -1e9
        self._retained_commands_cleared = 0  # retained messages on our command topics, deleted unanswered
        self._strays: dict[str, None] = {}  # others' messages on private topics no seat has, to delete
        self._strays_at = -1e9
        self._strays_cleared = 0
        self._strays_dropped = 0
        self._junk_cleared = 0  # others' retained messages on topics we never retain (events, reply/...)
        self._own_statuses: collections.deque[bytes] = collections.deque(maxlen=8)  # to tell our echoes

        # Fields of flush's caller (one at a time, see the class doc); paho's thread never touches them.
        self._sent_seq = journal.published_seq()
        self._acked_events: set[int] = set()
        self._acked_seq = self._sent_seq
        self._marked_seq = self._sent_seq
        self._marked_at = 0.0
        self._inflight: dict[int, int | None] = {}  # mid -> event seq (None: not an event)
        self._last_event: mqtt.MQTTMessageInfo | None = None  # under _lock: see wait_events_sent
        self._retained: dict[str, bytes] = {}
        self._dirty: dict[str, None] = {}
        self._published_events = 0
        self._need_marker_check = True

        # A fixed id per table: a restarted controller takes over the session of the one that
        # died, so the broker sends that one's last will ("offline") at once, before our
        # "online", instead of a keepalive later, on top of it.
        client_id = settings.client_id or f"gravekeeper-{table}"
        # MQTT 5, so the broker learns the largest packet we take (controller.protocol.mqtt5).
        self.client = mqtt5.new_client(client_id, mqtt5=mqtt5_protocol)
        self.client.max_inflight_messages_set(PAHO_INFLIGHT)
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        if settings.username:
            self.client.username_pw_set(settings.username, settings.password)
        if settings.tls:
            self.client.tls_set(ca_certs=settings.ca_file)
        self.client.will_set(self.topics.status, self.status.offline(), qos=1, retain=True)
        self.client.on_socket_open = self._on_socket_open
        self.client.on_connect = mqtt5.never_raising(self._on_connect, log)
        self.client.on_disconnect = mqtt5.never_raising(self._on_disconnect, log)
        self.client.on_subscribe = mqtt5.never_raising(self._on_subscribe, log)
        self.client.on_message = mqtt5.never_raising(self._on_message, log)
        self.client.on_publish = mqtt5.never_raising(self._on_publish, log)
        self._keepalive = settings.keepalive
        self._tls = settings.tls

    # ----- lifecycle ------------------------------------------------------
    def start(self) -> None:
        """Connect in the background; paho retries until the broker answers."""
        mqtt5.connect_async(self.client, self.host, self.port, self._keepalive, tls=self._tls)
        self.client.loop_start()

    def wait_online(self, timeout: float) -> bool:
        return self._ever_ready.wait(timeout)

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._ready

    def close(self, timeout: float = 2.0) -> None:
        """Publish ``offline``, persist the outbox cursor, disconnect. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self.connected:
            self.flush()
            info = self.client.publish(self.topics.status, self.status.offline(), qos=1, retain=True)
            deadline = time.monotonic() + timeout
            # Not connected any more: the broker's last will says offline for us.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
            # Let the last acknowledgements land, so the next start does not resend them.
            while self._inflight and time.monotonic() < deadline:
                self._drain_acks()
                if self._inflight:
                    time.sleep(0.01)
        self._drain_acks()
        self._persist_mark(now=True)
        self.client.disconnect()
        self.client.loop_stop()

    # ----- what the service hands us --------------------------------------
    def set_retained(self, topic: str, payload: Mapping[str, Any] | None, *, force: bool = False) -> None:
        """Queue ``payload`` for a retained topic (``None`` clears it); sent by the next flush."""
        if payload is not None:
            check_body(payload)
        self.set_retained_encoded(topic, b"" if payload is None else dumps(payload), force=force)

    def set_retained_encoded(self, topic: str, data: bytes, *, force: bool = False) -> None:
        """:meth:`set_retained` for a payload the caller has already encoded as ``dumps`` would: a JSON
        object without the fields the signature adds (``b""`` clears the topic).

        For a payload made of bytes encoded once already (the journal's event bodies), which would
        otherwise be decoded only to be encoded again.
        """
        if force or self._retained.get(topic) != data:
            self._retained[topic] = data
            self._dirty[topic] = None

    def set_status(self, **extra: Any) -> None:
        """Change fields of the ``online`` status (e.g. the game) and republish it if connected."""
        if self.status.update(**extra) and self.connected:
            self._publish_status()

    def retained(self, topic: str) -> bytes | None:
        return self._retained.get(topic)

    # ----- outside the ordered stream (effects, Home Assistant discovery) ----
    def publish_now(self, topic: str, data: bytes, *, qos: int = 0, retain: bool = False, sign: bool = False) -> bool:
        """Publish at once, outside :meth:`flush`'s order; False (dropped) when not connected.

        For messages nothing is ordered against and nothing must wait for: an
        effect cue is worthless later, and discovery is published again on
        every connection. ``sign`` stamps and signs a JSON object as the table's
        other publications are (``controller.protocol.publication``). Paho's publish and
        the publisher are thread-safe, so any thread may call this.
        """
        if self._closed or not self.client.is_connected():
            return False  # (not `connected`: that waits for the resubscription the ordered stream needs)
        if sign:
            data = self._publisher.sign(topic[len(self._prefix):], data)
        self.client.publish(topic, data, qos=qos, retain=retain)
        return True

    def listen(self, topic: str, handler: Callable[[bytes, bool], None]) -> None:
        """Hand every message on ``topic`` (no wildcards) to ``handler(payload, retained)``.

        Subscribed on every connection; the handler runs in paho's network
        thread, so it must be quick and must not raise.
        """
        with self._lock:
            self._listeners[topic] = handler
        # Connected already (its on_connect may have subscribed before this listener was added): subscribe
        # now. A second subscription, when on_connect saw it too, only repeats a retained message.
        if self.client.is_connected():
            self.client.subscribe(topic, qos=1)

    def refresh_all(self) -> None:
        """Republish every retained topic (after a reconnect, or on ``cmd/resync``)."""
        for topic in self._retained:
            self._dirty[topic] = None

    def reply(self, name: str, command_id: Any, ok: bool, *, error: str | None = None,
              data: Mapping[str, Any] | None = None, sealed: str | None = None, copy: bool = False) -> None:
        """Queue a reply; ``sealed`` (a sealed act's error or data) goes instead of them, never with.

        ``copy``: the refusal of a message whose id a command that passed the checks had taken
        already (a replay, or an altered copy): marked, so its sender's panel does not take it for
        the answer to the command that took the id (docs/topics.md, Replies to copies).
        """
        body: dict[str, Any] = {"id": command_id, "ok": ok}
        if copy:
            body["copy"] = True
        if sealed is not None:
            if error is not None or data is not None:
                raise ValueError("a sealed reply carries its error and data inside 'sealed' only")
            body["sealed"] = sealed
        if error is not None:
            body["error"] = error
        if data is not None:
            body["data"] = dict(data)
        # Signed like the commands, for this table and reply topic: anyone on the broker could otherwise
        # answer in the table's name, or pass another table's refusal (same token) off as this one's.
        signed = signed_reply(self._token, self._table, name, body)
        with self._lock:
            self._replies.append((self.topics.reply(name), signed))

    # ----- publishing (one caller at a time) ------------------------------
    def flush(self, *, events_only: bool = False, persist: bool = True) -> int:
        """Publish pending events, then dirty retained topics, then replies, while connected.

        ``events_only`` sends just the events (the service does that before it computes
        the new views, so an event is not held up by them); ``persist`` writes the outbox
        cursor down (an fsync; the service skips it while more input is waiting).
        Returns how many events it handed to paho.
        """
        if not events_only or len(self._inflight) >= WINDOW // 2:
            # An events-only flush (on a decision's way) leaves the acknowledgements to the full
            # flush that always follows it, unless they could take up its window.
            self._drain_acks()
        with self._lock:
            ready = self._ready
        if not ready:
            if persist:
                self._persist_mark()
            return 0
        if self._need_marker_check:
            self._apply_broker_marker()
        if not events_only:
            # These only mark retained topics to send, which an events-only flush does not: the
            # full flush that follows it (the service always makes one) takes them, off the event's way.
            if self.take_refresh():
                self.refresh_all()  # the broker may have lost them (no persistence) or hold stale ones
            self._restore_foreign()
            self._clear_strays()
        backlog = False
        sent = 0
        room = WINDOW - len(self._inflight)
        last = self._journal.last_seq()
        if room > 0 and self._sent_seq < last:
            # The journal hands over each event's public bytes (only EVENT_KEYS, never a private
            # part), encoded once when it was recorded: signed as they are, not decoded and re-encoded.
            for seq, body in self._journal.public_after(self._sent_seq, limit=room):
                sent += 1
                self._publish(self.topics.events, self._publisher.sign("events", body), False, seq)
                self._sent_seq = seq
                self._published_events += 1
            room = WINDOW - len(self._inflight)
        if self._sent_seq < last:
            backlog = True  # retained state must not overtake the events it includes
        elif not events_only:
            for topic in list(self._dirty):
                if room <= 0:
                    backlog = True
                    break
                data = self._retained[topic]
                # An empty payload deletes the retained message; there is nothing to sign.
                self._publish(topic, self._publisher.sign(topic[len(self._prefix):], data) if data else b"",
                              True, None)
                del self._dirty[topic]
                room -= 1
        while room > 0 and not events_only:
            with self._lock:
                if not self._replies:
                    break
                topic, data = self._replies.popleft()
            self._publish(topic, data, False, None)
            room -= 1
        with self._lock:
            self._want_wake = backlog or bool(self._replies) or bool(self._dirty)
        if persist:
            self._persist_mark()
        return sent

    def rehearse(self) -> None:
        """Warm the signing of an event, changing nothing (the service's rehearsal, any thread)."""
        self._publisher.rehearse()

    def _publish(self, topic: str, data: bytes, retain: bool, seq: int | None) -> None:
        info = self.client.publish(topic, data, qos=1, retain=retain)
        # paho keeps the message (and resends it after a reconnect) even when rc says "no connection".
        self._inflight[info.mid] = seq
        if seq is not None:
            with self._lock:
                self._last_event = info

    def wait_events_sent(self, timeout: float) -> bool:
        """Block (GIL released) until the broker acknowledged the last event published, or ``timeout``.

        Paho's network thread writes what :meth:`flush` queued, and it needs the
        interpreter lock to do so. The service calls this before it spends a
        millisecond of pure Python on the new views; without it the write can
        wait for the whole of that. The acknowledgement comes right after the
        write on a healthy link; the timeout bounds the wait on a slow one.
        """
        with self._lock:  # any thread: the service calls it outside its decision lock
            info, self._last_event = self._last_event, None
        if info is None:
            return True
        try:
            info.wait_for_publish(timeout)
        except (RuntimeError, ValueError):
            return False  # not connected: paho resends it after the reconnect
        return info.is_published()

    def _drain_acks(self) -> None:
        while self._acked_mids:
            mid = self._acked_mids.popleft()
            # publish() has always returned (and we stored the mid) before we get here, since
            # flush's callers take turns; an unknown mid is a status message sent outside flush.
            seq = self._inflight.pop(mid, None)
            if seq is not None:
                self._acked_events.add(seq)
        while self._acked_seq + 1 in self._acked_events:
            self._acked_seq += 1
            self._acked_events.discard(self._acked_seq)

    def _persist_mark(self, *, now: bool = False) -> None:
        # Each write is an fsync; at most one a second keeps it off the path of the next
        # decision. A cursor that lags after a crash costs nothing: the retained state
        # tells the next start what the broker already has (see the module doc).
        if self._acked_seq > self._marked_seq and (
            now or time.monotonic() - self._marked_at >= MARK_EVERY_S
        ):
            try:
                self._journal.mark_published(self._acked_seq)
            except JournalError as exc:
                # A full or failing disk must not stop publishing, nor a clean close (the service
                # still has the journal and the sensors to close): a lagging cursor only means
                # events the broker has may be sent again after a restart, and QoS 1 allows that.
                log.warning("could not write the outbox cursor (seq %d) to the journal: %s", self._acked_seq, exc)
                self._marked_at = time.monotonic()  # try again a second later, not on every flush
                return
            self._marked_seq = self._acked_seq
            self._marked_at = time.monotonic()

    def _restore_foreign(self) -> None:
        """Republish our retained topics that someone else published on (a forgery, or a replay).

        One put right too soon after the last stays marked: the worker's next round (at most a
        second away) takes it."""
        status = self.topics.status
        for topic in self._put_right.due(time.monotonic(), lambda t: t == status or t in self._retained):
            if topic == status:
                self._publish_status()
            else:
                self._dirty[topic] = None

    def _apply_broker_marker(self) -> None:
        self._need_marker_check = False
        with self._lock:
            remote = self._broker_state
        mine = self._retained.get(self.topics.state)
        if not remote or not mine:
            return
        raw_seq = remote.get("seq")
        if isinstance(raw_seq, bool) or not isinstance(raw_seq, int):
            return
        seq = raw_seq
        try:
            game_id = json.loads(mine).get("game_id")
        except ValueError:
            return
        if game_id is None or remote.get("game_id") != game_id:
            return
        if self._sent_seq < seq <= self._journal.last_seq():
            log.info("broker already has events up to seq %d; not sending them again", seq)
            self._sent_seq = self._acked_seq = seq
            self._persist_mark(now=True)

    # ----- paho callbacks (network thread) --------------------------------
    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        _nodelay(sock)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            if mqtt5.fall_back_to_v311(client, reason):
                log.info("MQTT: the broker at %s:%d has no MQTT 5; using 3.1.1, so it cannot be told our "
                         "largest packet (set a message size limit on the broker)", self.host, self.port)
                return
            with self._lock:
                self._last_error = f"broker refused the connection: {reason}"
            log.warning("MQTT: %s", self._last_error)
            return
        _nodelay(client.socket())  # again, in case on_socket_open saw a wrapper
        with self._lock:
            if self._conflict is not None:
                client.disconnect()  # the table belongs to another controller: stay off the broker
                return
            self._connects += 1
            first = self._connects == 1
            self._syncing = first
        # Before the commands, so the retained status is read before ours goes out (see _check_status).
        client.subscribe(self.topics.status, qos=1)
        if first:
            # Read our own retained state before publishing anything (see the module doc).
            # paho's stub wants a list of one option type: ours is one type per connection (MQTT 5 or 3.1.1).
            client.subscribe([(self.topics.state, mqtt5.state_options(client))])  # type: ignore[arg-type]
        elif mqtt5.is_mqtt5(client):
            self._watch(client)
        with self._lock:
            listened = list(self._listeners)
        for topic in listened:
            client.subscribe(topic, qos=1)
        # The retain flag as published (MQTT 5): a command published retained while we run is told
        # from a live one at once, not only at our next connection (see _take_message).
        # paho's stub wants a list of one option type: ours is one type per connection (MQTT 5 or 3.1.1).
        _, mid = client.subscribe([(self.topics.commands, mqtt5.command_options(client))])  # type: ignore[arg-type]
        with self._lock:
            self._sync_mid = mid

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        with self._lock:
            if mid != self._sync_mid or self._conflict is not None:
                return  # a newer controller's status came first: never publish ours over it
            syncing, self._syncing = self._syncing, False
            self._ready = True
            self._want_wake = False
        if syncing:
            if mqtt5.is_mqtt5(client):
                self._watch(client, state=False)  # the state's first subscription watches it already
            else:
                client.unsubscribe(self.topics.state)  # our own would come back: 3.1.1 has no no_local
        # Status is independent of the event order, so it may go straight out.
        self._publish_status()
        self._ever_ready.set()
        self._wake_for_refresh()

    def _watch(self, client: mqtt.Client, *, state: bool = True) -> None:
        """Hear what others publish on our topics (MQTT 5 ``no_local``): forgeries and replays."""
        options = mqtt5.watch_options(client)
        junk = mqtt5.junk_options(client)  # events, effects, moment, reply/+: never retained by us
        watched = ([self.topics.state] if state else []) + [
            self.topics.sensors, self.topics.health, self.topics.summary, self.topics.recent,
            self.topics.private(0)[:-1] + "+"]
        # paho's stub wants a list of one option type: ours is one type per connection (MQTT 5 or 3.1.1).
        client.subscribe([(t, options) for t in watched]  # type: ignore[arg-type]
                         + [(t, junk) for t in self.topics.unretained])

    def _wake_for_refresh(self) -> None:
        with self._lock:
            self._refresh_pending = True
        self._on_wake()

    def take_refresh(self) -> bool:
        """True once after each (re)connection: every retained topic is then republished."""
        with self._lock:
            pending, self._refresh_pending = self._refresh_pending, False
        return pending

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not self._closed:
            # Pushed off (another connection with our client id does that, and Mosquitto does not
            # say so: the reason is "unspecified"): a run we took for ended may be alive after all.
            self.status.forget_former()
        with self._lock:
            was = self._ready
            self._ready = False
            if was:
                self._disconnects += 1
                if reason.is_failure:  # a refused CONNECT keeps its own, clearer, message
                    self._last_error = f"disconnected: {reason}"
        if was and not self._closed:
            log.warning("MQTT: lost the broker at %s:%d (%s); events are kept", self.host, self.port, reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        self._acked_mids.append(mid)
        with self._lock:
            wake = self._want_wake
        if wake:
            self._on_wake()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._take_message(msg)
        except Exception:
            log.exception("could not handle a message on %s", msg.topic)

    def _take_message(self, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            listener = self._listeners.get(msg.topic)
        if listener is not None:
            listener(bytes(msg.payload), bool(msg.retain))
            return
        if msg.topic == self.topics.status:
            self._check_status(msg)
            return
        if msg.topic == self.topics.state and msg.retain:
            try:
                state, stamp = open_publication(self._pub_key, self._table, "state", bytes(msg.payload))
            except (PublicationError, ValueError):
                # A forged retained state must not tell us which events the broker has.
                self._note_foreign(msg.topic)
                return
            if stamp.run != self.status.instance:
                self._publisher.follow(stamp)  # a new run publishes after the old one's stamps
            with self._lock:
                self._broker_state = state
            return
        if msg.topic.startswith(self._prefix) and not msg.topic.startswith(self.topics.command("")):
            if self.topics.is_unretained(msg.topic):
                # Watched with the retain flag as published: retained here is someone else's, always.
                if msg.payload and msg.retain:
                    self._note_stray(msg.topic)
                if msg.topic == self.topics.events:
                    self._note_foreign(msg.topic)
                return
            if msg.payload and self.topics.stray_private(msg.topic):
                self._note_stray(msg.topic)
            if not msg.retain:  # a retained copy is only what the broker held when we subscribed
                self._note_foreign(msg.topic)
            return
        prefix = self.topics.command("")
        if not msg.topic.startswith(prefix):
            return
        name = msg.topic[len(prefix):]
        if not msg.payload:
            # Retained: a retained command being deleted (by us, below), nothing was sent. Live: a
            # sender's malformed command, answered in words like any other (docs/topics.md).
            if not msg.retain and self._may_answer_refusal():
                log.info("refused an empty %s command", name)
                self.reply(name, None, False, error="an empty message is not a command: a command is a "
                                                    "signed JSON object (see docs/topics.md)")
                self._on_wake()
            return
        if msg.retain:
            # The broker's copy of something once published retained on a command topic: never a
            # live command (commands are not retained), and it would come back on every connection
            # and to every subscriber. Delete it, unanswered (counted as a refusal without answer).
            self.client.publish(msg.topic, b"", qos=1, retain=True)
            with self._lock:
                self._retained_commands_cleared += 1
            return
        raw = bytes(msg.payload)
        # Anyone can send thousands of forgeries a second, and a signed command waits behind them in
        # the broker's stream: one that cannot be signed (doomed) and will get no answer anyway is
        # refused without being decoded or hashed. Only the answered ones are read, for their id.
        doomed = self._checker.doomed(name, raw)
        if doomed and not self._may_answer_refusal():
            return  # counted (refusals_unanswered), neither read, answered nor logged
        try:
            command = self._checker.check(name, raw)
        except CommandRefused as exc:
            if not doomed and not self._may_answer_refusal():
                return  # a flood: counted, neither answered nor logged
            log.info("refused %s command: %s", name, exc)
            # The command that took this id gets its own answer; this one must not pass for it.
            copy = exc.copy or (exc.command_id is not None and self._checker.taken(exc.command_id))
            self.reply(name, exc.command_id, False, error=str(exc), copy=copy)
            self._on_wake()
            return
        except Exception:
            if not self._may_answer_refusal():
                return  # whatever broke, a flood of it must not flood the replies or the log
            log.exception("could not check a %s command", name)
            self.reply(name, None, False, error="internal error while checking the command")
            self._on_wake()
            return
        self._on_command(command)

    def _may_answer_refusal(self) -> bool:
        """Whether one more refused command may be answered now (a token bucket, paho's thread only)."""
        now = time.monotonic()
        self._refusal_budget = min(REFUSAL_REPLIES_BURST,
                                   self._refusal_budget + (now - self._refusal_at) * REFUSAL_REPLIES_PER_S)
        self._refusal_at = now
        if self._refusal_budget >= 1.0:
            self._refusal_budget -= 1.0
            return True
        with self._lock:
            self._refusals_unanswered += 1
            count = self._refusals_unanswered
            say = now - self._refusal_logged_at >= FOREIGN_LOG_EVERY_S
            if say:
                self._refusal_logged_at = now
        if say:
            log.warning("a flood of refused commands: %d left unanswered so far (at most %.0f refusals "
                        "a second are answered)", count, REFUSAL_REPLIES_PER_S)
        return False

    def _note_stray(self, topic: str) -> None:
        # A retained one would stay for every panel that subscribes to private/+ (it refuses it:
        # it is not signed by the table, but it is clutter and a way to fill the broker).
        with self._lock:
            if topic in self._strays or len(self._strays) < STRAYS_WAITING:
                self._strays[topic] = None
            else:
                self._strays_dropped += 1

    def _clear_strays(self) -> None:
        now = time.monotonic()
        if now - self._strays_at < 1.0:
            return  # the worker's next round, at most a second away, takes the rest
        with self._lock:
            topics = list(self._strays)[:STRAYS_CLEARED_PER_S]
            for topic in topics:
                del self._strays[topic]
        if topics:
            self._strays_at = now
        for topic in topics:
            self._publish(topic, b"", True, None)
            if self.topics.is_unretained(topic):
                self._junk_cleared += 1
            else:
                self._strays_cleared += 1

    def _note_foreign(self, topic: str) -> None:
        # no_local keeps our own messages out: this one is someone else's, in the table's name.
        now = time.monotonic()
        with self._lock:
            self._foreign_count += 1
            count = self._foreign_count
            if topic != self.topics.events:
                self._put_right.forged(topic)
                self._want_wake = True
            say = now - self._foreign_logged_at >= FOREIGN_LOG_EVERY_S  # a flood must not flood the log
            if say:
                self._foreign_logged_at = now
        if say:
            log.warning("someone else published on %s in the table's name (%d such messages so far; "
                        "retained topics are put right, and a panel with the token refuses them)", topic, count)
        self._on_wake()

    # ----- health ---------------------------------------------------------
    def _check_status(self, msg: mqtt.MQTTMessage) -> None:
        """A newer controller of this table on the broker: stop, and say why (``controller.protocol.status``)."""
        payload = bytes(msg.payload)
        with self._lock:
            first = msg.retain and self._connects <= 1
            if self._conflict is not None:
                return
        if first:
            # The status retained before our first connection may be a dead run's: never a claim,
            # and a dead run's statuses published again later are none either (note_former).
            self.status.note_former(payload)
            return
        reason = self.status.newer_run(payload)
        if reason is None:
            self._status_heard(payload)
            return
        with self._lock:
            self._conflict = self._last_error = reason
        log.error("MQTT: %s", reason)
        # A clean disconnect: no last will, so the newer controller's status stays as it is.
        self.client.disconnect()
        if self._on_conflict is not None:
            self._on_conflict(reason)

    def _status_heard(self, payload: bytes) -> None:
        """A status that is not a newer run's claim: put ours back unless it is our own echo.

        The status subscription cannot be ``no_local`` (a second controller of the table
        shares our client id, and Mosquitto tells local from foreign by client id), so our
        own statuses come back here too. Anything else (a forged "offline", an older run's
        genuinely signed status replayed, an empty message clearing it) would otherwise stay
        retained: a panel or Home Assistant that starts later would take the table for
        offline. Unsigned ones are already counted (``status_refused``).
        """
        with self._lock:
            if self._closed or not self._ready or payload in self._own_statuses:
                return
            self._put_right.forged(self.topics.status)
            self._want_wake = True
        self._on_wake()

    def _publish_status(self) -> None:
        """Publish our ``online`` status (retained), remembering it so its echo is told from others'."""
        data = self.status.online()
        with self._lock:
            self._own_statuses.append(data)
        self.client.publish(self.topics.status, data, qos=1, retain=True)

    def health(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": "connected" if self._ready else "disconnected",
                "broker": f"{self.host}:{self.port}",
                "connects": self._connects,
                "disconnects": self._disconnects,
                "last_error": self._last_error,
            }

    def counters(self) -> dict[str, int]:
        return {
            "events_published": self._published_events,
            "events_acknowledged_seq": self._acked_seq,
            "outbox_backlog": max(0, self._journal.last_seq() - self._acked_seq),
            "unacknowledged": len(self._inflight),
            "status_refused": self.status.refused,  # statuses of this table not signed with its token
            # Messages others published on this table's topics (each one refused by a panel that
            # holds the token), and how often a retained one was put right by publishing ours again.
            "foreign_publications": self._foreign_count,
            "retained_restored": self._put_right.restored,
            # Refused commands past the answering rate (a flood): neither answered nor logged.
            "refusals_unanswered": self._refusals_unanswered,
            "retained_commands_cleared": self._retained_commands_cleared,
            "stray_private_cleared": self._strays_cleared,
            "stray_private_dropped": self._strays_dropped,
            "retained_junk_cleared": self._junk_cleared,
        }


def _nodelay(sock: Any) -> None:
    """Nagle plus delayed ACKs stall small QoS 1 exchanges by ~40 ms; paho never turns it off."""
    if sock is None:
        return
    # Not a TCP socket (a test double or a unix socket): nothing to tune.
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
