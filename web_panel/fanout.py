"""Fanning one table's changes out to its SSE clients: an encoded item, a bounded queue per client."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from gravekeeper.locks import comes_free

SUBSCRIBER_QUEUE = 1000


def encode_sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Item:
    """One change for the streams: its SSE text is made once, not once per watching client."""

    __slots__ = ("_text", "data", "kind")

    def __init__(self, kind: str, data: Any) -> None:
        self.kind, self.data = kind, data
        self._text: str | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.kind, self.data))

    @property
    def text(self) -> str:
        if self._text is None:  # two threads may both make it; they make the same text
            self._text = encode_sse(self.kind, self.data)
        return self._text


# Which changes a stream takes at all, asked in the thread that fans them out: a stream that would drop a
# change (a cue on a player's page, another seat's sealed view) is not woken for it. On a table with nine
# pages open each move is some eight changes, and every woken stream thread waits its turn for the GIL
# before the next one can write: in one trace the last stream wrote an event 2 to 31 ms after it arrived.
Wants = Callable[[Item], bool]


class Subscriber:
    """One SSE client's queue. A client too slow to keep up is told to resync, not blocked on."""

    def __init__(self, table: str, maxsize: int = SUBSCRIBER_QUEUE, wants: Wants | None = None) -> None:
        self.table = table
        self.wants = wants
        self.queue: queue.Queue[Item | None] = queue.Queue(maxsize)
        self.overflowed = threading.Event()
        self.closing = threading.Event()

    def offer(self, item: Item | None) -> None:
        if item is not None and self.wants is not None and not self.wants(item):
            return
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            self.overflowed.set()

    def get(self, timeout: float) -> Item | None:
        """The next item; raises ``queue.Empty`` on timeout; ``None`` means the panel is closing."""
        return self.queue.get(timeout=timeout)

    def close(self) -> None:
        """The panel is closing: the stream ends even if its queue is full."""
        self.closing.set()
        self.offer(None)

    def drain(self) -> None:
        while True:
            try:
                self.queue.get_nowait()
            except queue.Empty:
                return


class Fanout:
    """Who watches which table (a table id, or the club list's key), and each change handed to them;
    thread-safe. Once closed, every stream ends, and one that subscribes after ends at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._closed = False

    def subscribe(self, table: str, wants: Wants | None = None) -> Subscriber:
        sub = Subscriber(table, wants=wants)
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

    def count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def comes_free(self, timeout: float) -> bool:
        """Whether the lock every change to every live page takes comes free within ``timeout`` seconds (the
        panel's heartbeat asks: a deadlock holds it for ever, and every live page stands still)."""
        return comes_free(self._lock, timeout)

    def watched(self, table: str) -> bool:
        with self._lock:
            return bool(self._subscribers.get(table))

    def broadcast(self, table: str, change: tuple[str, Any]) -> None:
        item = Item(*change)
        with self._lock:
            subs = list(self._subscribers.get(table, ()))
        for sub in subs:
            sub.offer(item)

    def broadcast_all(self, change: tuple[str, Any]) -> None:
        item = Item(*change)
        with self._lock:
            subs = [s for group in self._subscribers.values() for s in group]
        for sub in subs:
            sub.offer(item)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            subs = [s for group in self._subscribers.values() for s in group]
        for sub in subs:
            sub.close()
