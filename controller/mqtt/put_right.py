"""Putting a retained message right after someone else published over it, at most so often.

Anyone on the broker may publish on a table's retained topics (the state, the
status, the Home Assistant discovery config). The table answers by publishing
its own copy again, but a flood of forgeries must not become a flood of
answers: each topic is put right at most once every ``every_s``. A forgery that
comes sooner is not dropped: it stays marked, and the caller's next round
(the service's worker, at most a second away) puts it right then, so the last
forgery of a flood never stays retained.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

EVERY_S = 0.25  # a flood of forgeries on one topic gets at most 4 answers a second


class PutRightGate(Generic[K]):
    """Which forged topics (any hashable key) to put right now. Thread-safe: forgeries are seen in
    paho's thread and put right by the worker."""

    def __init__(self, every_s: float = EVERY_S) -> None:
        self.every_s = every_s
        self.restored = 0  # how many times a topic was put right
        self._lock = threading.Lock()
        self._marked: dict[K, None] = {}  # forged, not put right yet (in the order seen)
        self._at: dict[K, float] = {}  # when each was last put right

    def forged(self, key: K) -> None:
        """Someone else's message was seen on ``key``: put it right at the next :meth:`due`."""
        with self._lock:
            self._marked[key] = None

    def due(self, now: float, wanted: Callable[[K], bool] = lambda _key: True) -> list[K]:
        """The marked keys to put right now (each counted in :attr:`restored`).

        A key put right less than ``every_s`` ago stays marked for a later call; one the
        caller no longer keeps (``wanted`` says no) is forgotten uncounted.
        """
        out: list[K] = []
        with self._lock:
            for key in list(self._marked):
                if not wanted(key):
                    del self._marked[key]
                elif now - self._at.get(key, -1e9) >= self.every_s:
                    del self._marked[key]
                    self._at[key] = now
                    self.restored += 1
                    out.append(key)
        return out

    def pending(self) -> bool:
        """Whether a forgery waits for a later call (too soon after the last answer)."""
        with self._lock:
            return bool(self._marked)
