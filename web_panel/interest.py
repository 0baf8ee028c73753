"""Which tables' full traffic the panel subscribes to, and for how long.

A club panel lists 20 to 50 tables, but a person watches a few at a time. The
list needs each table's retained ``status`` and ``summary`` only, so that is all
the panel subscribes to for every table. A table's full traffic (state, events,
sensors, health, sealed views, replies, effects) is subscribed when the first
page, stream or API request for that table needs it, and unsubscribed when the
last one is gone and a linger has passed (so a page reload, or a phone's stream
reconnecting, does not unsubscribe and subscribe again).

:class:`Interest` only counts: who holds a table, when its linger is over.
:class:`Subscriptions` is the MQTT side: what to subscribe, knowing when the
retained topics are in, unsubscribing. The picture itself stays with
``web_panel.mqtt.MqttView``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

# What the club list shows: subscribed for every table, all the time (``+`` for the table).
LIST_KINDS = ("status", "summary")
# A table's own traffic, subscribed only while someone looks at that table.
# ``recent`` (retained) holds the current game's latest moves, so a table opened mid-game shows them at once.
TABLE_KINDS = ("state", "events", "recent", "sensors", "health", "private/+", "reply/+", "effects")
TABLE_QOS = {"effects": 0}  # passing cues: a late one is worth nothing, so no resend


def list_filters(base: str) -> list[tuple[str, int]]:
    """The standing subscription: every table's list topics."""
    return [(f"{base}/+/{kind}", 1) for kind in LIST_KINDS]


def table_filters(base: str, table: str) -> list[tuple[str, int]]:
    """One table's full traffic (besides its list topics, already subscribed)."""
    return [(f"{base}/{table}/{kind}", TABLE_QOS.get(kind, 1)) for kind in TABLE_KINDS]


class _Hold:
    __slots__ = ("count", "ready", "timer")

    def __init__(self) -> None:
        self.count = 0
        self.ready = threading.Event()  # set once the table's retained topics have arrived
        self.timer: threading.Timer | None = None


class Interest:
    """Reference counts per table, with a linger after the last one goes; thread-safe.

    ``take(table, ready)`` is called (outside the lock) when a table is first held: it subscribes
    and sets ``ready`` once the retained topics are in. ``drop(table)`` is called when the linger
    after the last release is over: it unsubscribes and forgets the table's traffic.
    """

    def __init__(self, linger: float, take: Callable[[str, threading.Event], None],
                 drop: Callable[[str], None]) -> None:
        self.linger = linger
        self._take, self._drop = take, drop
        self._lock = threading.Lock()
        # Taken around every ``take`` and ``drop``: a table dropped at the very moment someone holds
        # it again is unsubscribed before it is subscribed again, never the other way round.
        self._transition = threading.Lock()
        self._holds: dict[str, _Hold] = {}
        self._closed = False

    def hold(self, table: str) -> threading.Event:
        """Count one more user of ``table``; returns the event set when its picture is complete."""
        with self._lock:
            hold = self._holds.get(table)
            first = hold is None
            if hold is None:
                hold = self._holds[table] = _Hold()
            hold.count += 1
            if hold.timer is not None:  # back within the linger: nothing to subscribe again
                hold.timer.cancel()
                hold.timer = None
        if first:
            with self._transition:
                self._take(table, hold.ready)
        return hold.ready

    def release(self, table: str) -> None:
        """One user fewer; the last one starts the linger, after which the table is dropped."""
        with self._lock:
            hold = self._holds.get(table)
            if hold is None or hold.count <= 0:
                return
            hold.count -= 1
            if hold.count or self._closed:
                return
            if self.linger > 0:
                hold.timer = threading.Timer(self.linger, self._expire, (table, hold))
                hold.timer.daemon = True
                hold.timer.name = f"gk-linger-{table}"
                hold.timer.start()
                return
        self._expire(table, hold)

    def _expire(self, table: str, hold: _Hold) -> None:
        with self._transition:
            with self._lock:
                # Held again meanwhile (the count rose), or already replaced: not this timer's to drop.
                if self._holds.get(table) is not hold or hold.count or self._closed:
                    return
                del self._holds[table]
            self._drop(table)

    def tables(self) -> list[str]:
        """Tables whose full traffic is subscribed now (held, or lingering)."""
        with self._lock:
            return sorted(self._holds)

    def holders(self, table: str) -> int:
        with self._lock:
            hold = self._holds.get(table)
            return hold.count if hold is not None else 0

    def ready_event(self, table: str) -> threading.Event | None:
        with self._lock:
            hold = self._holds.get(table)
            return hold.ready if hold is not None else None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timers = [h.timer for h in self._holds.values() if h.timer is not None]
        for timer in timers:
            timer.cancel()


class Subscriptions:
    """The MQTT side of :class:`Interest`: a held table's traffic subscribed, its retained topics known
    to be in, and unsubscribed after the linger. Thread-safe; the paho callbacks are wired by the owner.

    ``on_drop(table)`` is called when a table is unsubscribed, before the UNSUBSCRIBE goes out, so
    the owner forgets the table's traffic; ``notify()`` after every change a waiter may look for.
    """

    def __init__(self, client: mqtt.Client, base: str, client_id: str, connected: threading.Event, linger: float,
                 on_drop: Callable[[str], None], notify: Callable[[], None]) -> None:
        self._client, self._base, self._client_id, self._connected = client, base, client_id, connected
        self._on_drop, self._notify = on_drop, notify
        self._lock = threading.Lock()
        self._barriers: dict[int, tuple[threading.Event, str]] = {}  # SUBSCRIBE id -> ready, its topic
        self._leaving: dict[int, str] = {}  # UNSUBSCRIBE id -> its table, until the broker confirms it
        # Tables whose traffic was unsubscribed: a late message of theirs (sent before the broker took
        # the unsubscribe) would put back a picture nothing keeps current, so the owner ignores it.
        self._released: set[str] = set()
        self.interest = Interest(linger, self._take, self._drop)

    def hold(self, table: str) -> threading.Event:
        return self.interest.hold(table)

    def release(self, table: str) -> None:
        self.interest.release(table)

    def released(self, table: str) -> bool:
        return table in self._released  # one set lookup per message; a set's membership test is atomic

    def watched(self) -> list[str]:
        """Tables whose traffic is subscribed: held, lingering, or unsubscribed but not yet confirmed."""
        with self._lock:
            leaving = set(self._leaving.values())
        return sorted(set(self.interest.tables()) | leaving)

    def connected(self) -> None:
        """A new (clean) session: subscribe again to the traffic of every table still held."""
        for table in self.interest.tables():
            ready = self.interest.ready_event(table)
            if ready is not None:
                self._subscribe(table, ready)

    def disconnected(self) -> None:
        with self._lock:
            # A clean session: nothing of this connection's subscriptions is left to confirm.
            self._barriers.clear()
            self._leaving.clear()

    def close(self) -> None:
        self.interest.close()

    def _take(self, table: str, ready: threading.Event) -> None:
        self._released.discard(table)
        if self._connected.is_set():
            self._subscribe(table, ready)  # else ``connected`` does, once the panel is

    def _subscribe(self, table: str, ready: threading.Event) -> None:
        rc, _ = self._client.subscribe(table_filters(self._base, table))
        if rc != mqtt.MQTT_ERR_SUCCESS:
            return  # the link just dropped: ``connected`` subscribes again
        # A second SUBSCRIBE, to a topic nobody publishes on: the broker answers it after it has sent
        # the retained messages of the first, so its SUBACK says the picture is complete.
        # (Named after this client, wildcards and levels taken out, so no other panel's barrier is it.)
        barrier = f"{self._base}/{table}/barrier/{re.sub(r'[+#/]', '_', self._client_id)}"
        with self._lock:  # held over the call, so the SUBACK's callback finds the id registered
            rc, mid = self._client.subscribe(barrier, 0)
            if rc == mqtt.MQTT_ERR_SUCCESS and mid is not None:
                self._barriers[mid] = (ready, barrier)

    def on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        with self._lock:
            barrier = self._barriers.pop(mid, None)
        if barrier is None:
            return
        ready, topic = barrier
        client.unsubscribe(topic)
        ready.set()
        self._notify()

    def _drop(self, table: str) -> None:
        self._released.add(table)
        self._on_drop(table)
        if self._connected.is_set():
            with self._lock:
                rc, mid = self._client.unsubscribe([topic for topic, _ in table_filters(self._base, table)])
                if rc == mqtt.MQTT_ERR_SUCCESS and mid is not None:
                    self._leaving[mid] = table
        self._notify()

    def on_unsubscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        with self._lock:
            left = self._leaving.pop(mid, None)
        if left is not None:
            self._notify()  # from now on the broker sends nothing more of that table
