"""The panel's one MQTT connection, and the object every page asks about tables.

One paho-mqtt 2 client subscribes to what the club list shows of every table
under the base topic (its retained ``status`` and ``summary``), and to a
table's full traffic only while a page, stream or request of that table needs
it (``web_panel.interest``: held, then released after a linger). What it
hears goes into the table store (``_table_store``); commands go out through
the command sender (``_command_sender``). :class:`MqttView` joins the three,
so a page holds one object: it reads the picture, streams its changes, and
sends commands.

The client announces the largest packet it takes (MQTT 5,
``controller.protocol.mqtt5``), so no broker sends it a bigger one.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import paho.mqtt.client as mqtt

from controller.protocol import mqtt5

from ..fanout import Subscriber, Wants
from ..interest import Subscriptions, list_filters
from ..settings import PanelSettings
from ..trust import Vouching
from ._command_sender import CommandSender
from ._table_store import LIST, TableStore

__all__ = ["MqttView"]

# A broker that hangs, or a network that drops between the panel and a broker on another machine, closes
# no connection: only the keepalive tells. At 30 s the pages said "broker: connected" through a 20 s hang
# (and up to a minute), while every tap waited its 5 s in vain. A ping every 10 s costs nothing.
KEEPALIVE_S = 10

log = logging.getLogger(__name__)

# How long the first request for a table waits for its retained topics after subscribing. The broker
# sends them right away; under load they can queue behind other messages, so a little margin.
RETAINED_WAIT_S = 3.0


class MqttView:
    """The shared, thread-safe picture of every table, kept current from MQTT, and the way to
    send commands to a table. ``store`` holds the picture, ``commands`` the commands under way."""

    def __init__(self, settings: PanelSettings, client_id: str | None = None) -> None:
        self.settings = settings
        self.base = settings.base_topic
        self.connected = threading.Event()
        self.vouching = Vouching(settings.token_for)
        self.client_id = client_id or f"gk-panel-{uuid.uuid4().hex[:12]}"
        self._client = mqtt5.new_client(self.client_id, mqtt5=settings.broker_mqtt5)
        if settings.broker_username is not None:
            self._client.username_pw_set(settings.broker_username, settings.broker_password)
        if settings.broker_tls:
            self._client.tls_set(ca_certs=settings.broker_ca_file, cert_reqs=ssl.CERT_REQUIRED)
        self._client.reconnect_delay_set(0.2, 5)  # type: ignore[arg-type]  # paho's hint says int; it takes seconds
        # When paho's network thread entered one of our callbacks and has not come back: the heartbeat's
        # question (``stuck``). A float written and read whole, so no lock.
        self._busy_since: float | None = None
        self._client.on_connect = self._callback(self._on_connect)
        self._client.on_disconnect = self._callback(self._on_disconnect)
        self._client.on_message = self._callback(self._on_message)
        # The three parts call each other only through what they are handed here.
        self.store = TableStore(settings, self.vouching, self.connected,
                                released=lambda table: self.subscriptions.released(table),
                                on_reply=lambda table, name, data, raw: self.commands.on_reply(table, name, data, raw),
                                resync=lambda table: self.commands.request_resync(table),
                                on_status=lambda table, status: self.commands.on_status(table, status))
        self.changed = self.store.changed  # notified after every message and link change
        # Which tables' full traffic is subscribed (web_panel.interest).
        self.subscriptions = Subscriptions(self._client, self.base, self.client_id, self.connected,
                                           settings.table_linger, self.store.forget_traffic, self.store.notify)
        self._client.on_subscribe = self._callback(self.subscriptions.on_subscribe)
        self._client.on_unsubscribe = self._callback(self.subscriptions.on_unsubscribe)
        self.commands = CommandSender(settings, lambda topic, payload: self._client.publish(topic, payload, qos=1),
                                      state=self.store.state, status=self.store.status, holding=self.holding,
                                      notify=self.store.notify,
                                      told=self._told)

    def _told(self, table: str, answering: dict[str, Any]) -> None:
        # Under the command sender's lock, so in order; only the fan-out's own lock is taken here.
        self.store.fanout.broadcast(table, ("answering", answering))
        # The club list too: a hung table still says "online" in its status until its keepalive lapses.
        self.store.fanout.broadcast(LIST, ("answering", {"table": table, **answering}))

    # ----- lifecycle -----------------------------------------------------------
    def start(self, wait: float | None = None) -> None:
        """Connect in the background (a broker that is down now is retried); optionally wait."""
        mqtt5.connect_async(self._client, self.settings.broker_host, self.settings.broker_port, KEEPALIVE_S,
                            tls=self.settings.broker_tls)
        self._client.loop_start()
        if wait is not None:
            self.connected.wait(wait)

    def close(self) -> None:
        if not self.store.close():
            return
        self.subscriptions.close()
        self._client.disconnect()
        self._client.loop_stop()

    # ----- paho callbacks (paho's network thread) --------------------------------
    def _callback(self, handler: Callable[..., None]) -> Callable[..., None]:
        """``handler`` as paho calls it: timed for ``stuck``, and never raising (``mqtt5.never_raising``): the
        panel would go on serving pages that never move again."""
        def timed(*args: Any) -> None:
            self._busy_since = time.monotonic()
            try:
                handler(*args)
            finally:
                self._busy_since = None
        timed.__name__ = handler.__name__
        return mqtt5.never_raising(timed, log)

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
        self.store.notify()
        self.store.fanout.broadcast_all(("link", {"broker": "connected"}))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        self.subscriptions.disconnected()
        self.store.notify()
        if not self.store.closed:
            self.store.fanout.broadcast_all(("link", {"broker": "disconnected"}))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.handle(msg.topic, bytes(msg.payload), retained=bool(msg.retain))  # paho may hand a bytearray
        except Exception:
            log.exception("panel: failed to handle a message on %s", msg.topic)  # with its topic, unlike _callback

    # ----- the picture (web_panel.mqtt._table_store) -------------------------------------
    def handle(self, topic: str, payload: bytes, *, retained: bool = False) -> None:
        """Take one message into the picture (public so tests can feed it directly)."""
        self.store.handle(topic, payload, retained=retained)

    def stuck(self, timeout: float) -> str | None:
        """Why no live page would move or no command go through now, in words, or None: the broker connection's
        thread is not held in one of our callbacks for longer than ``timeout`` seconds, and the locks that
        every message, every live page's change and every command take each come free within it. Either
        leaves the pages served but standing still (``PanelServer.stuck`` asks)."""
        since = self._busy_since
        if since is not None and time.monotonic() - since > timeout:
            return f"its broker connection stayed on one message for more than {timeout:g} s"
        for what, part in (("the tables' store", self.store), ("the live pages' fan-out", self.store.fanout),
                           ("the commands' sender", self.commands)):
            if not part.comes_free(timeout):
                return f"{what} stayed locked for {timeout:g} s"
        return None

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds after some message (or already does); False on timeout."""
        return self.store.wait_until(predicate, timeout)

    @property
    def bad_messages(self) -> int:
        """How many messages were refused as broken (not JSON, too big, too deep, ...)."""
        return self.store.bad_messages

    def tables(self) -> list[dict[str, Any]]:
        """The club list's lines, each with ``answering``: False while the table does not answer commands.

        A line sent again as the table changes (``TableStore.list_changed``) does not carry it: the list's
        stream says it in ``answering`` messages of its own, in the order the sender saw it change."""
        lines = self.store.tables()
        for line in lines:
            line["answering"] = not self.commands.silent(line["table"])
        return lines

    def table_name(self, table: str) -> str:
        return self.store.table_name(table)

    def has_table(self, table: str) -> bool:
        return self.store.has_table(table)

    def snapshot(self, table: str) -> dict[str, Any] | None:
        snap = self.store.snapshot(table)
        if snap is not None:
            snap["answering"] = self.commands.answering(table)  # whether it answers commands (the panel's word)
        return snap

    def state(self, table: str) -> dict[str, Any] | None:
        return self.store.state(table)

    def sealed_view(self, table: str, seat: int) -> dict[str, Any] | None:
        return self.store.sealed_view(table, seat)

    def seats_changed(self, table: str) -> None:
        self.store.seats_changed(table)

    def subscribe(self, table: str, wants: Wants | None = None) -> Subscriber:
        """A stream of ``table``'s changes (``LIST``: the club list's lines), those ``wants`` takes if given;
        :meth:`unsubscribe` it."""
        return self.store.fanout.subscribe(table, wants)

    def unsubscribe(self, sub: Subscriber) -> None:
        self.store.fanout.unsubscribe(sub)

    def subscriber_count(self) -> int:
        return self.store.fanout.count()

    def forget(self, table: str) -> bool:
        """Delete an offline table's retained topics, so it leaves this panel's list, and the lists of
        panels that hold no token for it (one that does refuses a deletion the table did not sign, and
        keeps listing it).

        Only an offline table: a running controller would publish them again at once. Nothing is
        lost: a controller that comes back republishes everything from its journal. False when the
        table is online (or unknown).
        """
        kinds = self.store.forget(table)
        if kinds is None:
            return False
        for kind in kinds:
            self._client.publish(f"{self.base}/{table}/{kind}", b"", qos=1, retain=True)
        self.store.list_changed(table)  # the club list's streams drop its line now
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
        if self.store.closed or not self.connected.is_set():
            return
        deadline = time.monotonic() + timeout
        ready.wait(timeout)
        # The broker sends the retained messages before it answers the barrier; under load a few may
        # queue behind other messages: an online table without its state yet is waited for a bit more.
        self.wait_until(lambda: not self.store.awaits_state(table), max(0.0, deadline - time.monotonic()))

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

    # ----- commands (web_panel.mqtt._command_sender) ---------------------------------------
    def request_resync(self, table: str) -> bool:
        """Ask the table to republish its retained topics after a gap (needs its token)."""
        return self.commands.request_resync(table)

    def publish_command(self, table: str, name: str, fields: dict[str, Any], token: str) -> str:
        """Sign and publish ``cmd/<name>`` without waiting; returns the command id."""
        return self.commands.publish_command(table, name, fields, token)

    def command(self, table: str, name: str, fields: dict[str, Any], token: str,
                timeout: float | None = None) -> dict[str, Any]:
        """Send a signed command and wait for the reply with the same id (``CommandTimeout`` if none comes)."""
        return self.commands.command(table, name, fields, token, timeout)

    def act(self, table: str, action: dict[str, Any], token: str,
            timeout: float | None = None) -> dict[str, Any]:
        """Send ``action`` sealed for its seat and return the reply opened: ``{"id", "ok", "error"?, "data"?}``."""
        return self.commands.act(table, action, token, timeout)
