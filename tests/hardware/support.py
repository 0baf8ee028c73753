"""Helpers of the hardware tests: an observation recorder with timed waits, a traced clock, a health log."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hardware.observation import Observation


class Recorder:
    """Collects observations from the hub's worker thread; waits with timeouts, never sleeps."""

    def __init__(self) -> None:
        self.items: list[Observation] = []
        self._cond = threading.Condition()

    def __call__(self, obs: Observation) -> None:
        with self._cond:
            self.items.append(obs)
            self._cond.notify_all()

    def changes(self, sensor: str | None = None) -> list[Observation]:
        with self._cond:
            return [o for o in self.items if not o.initial and (sensor is None or o.sensor == sensor)]

    def wait_for(self, pred: Callable[[list[Observation]], bool], timeout: float = 2.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: pred(self.items), timeout)

    def wait_count(self, n: int, sensor: str | None = None, timeout: float = 2.0) -> list[Observation]:
        ok = self.wait_for(lambda items: len([o for o in items if not o.initial
                                              and (sensor is None or o.sensor == sensor)]) >= n, timeout)
        got = self.changes(sensor)
        assert ok, f"expected {n} observations of {sensor or 'any sensor'}, got {got}"
        return got

    def stays_at(self, n: int, quiet: float, sensor: str | None = None) -> bool:
        """True if no observation beyond ``n`` arrives within ``quiet`` seconds."""
        return not self.wait_for(
            lambda items: len([o for o in items if not o.initial and (sensor is None or o.sensor == sensor)]) > n,
            quiet,
        )


class TraceClock:
    """``time.monotonic`` for the hub, except inside :meth:`play` on the test thread.

    A loaded test machine can stretch a ``time.sleep`` by 15 ms, which would
    turn a planned 10 ms bounce burst into two real actions. So ``play``
    delivers a burst's edges through the real mock pins at once, each stamped
    (by the hub's own pin callback, which runs on this thread) with its
    planned time. The hub's worker, timer heap and windows still run on the
    real clock.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self) -> float:
        t = getattr(self._local, "t", None)
        return time.monotonic() if t is None else t

    @contextmanager
    def at(self, t: float) -> Iterator[None]:
        """Calls to the clock from this thread return ``t`` (e.g. a link callback's receipt time)."""
        self._local.t = t
        try:
            yield
        finally:
            self._local.t = None

    def play_timeline(self, timeline: list[tuple[float, Callable[[bool], None], bool]]) -> float:
        """Several inputs at once: ``(offset, drive, closed)`` in time order; returns the start.

        The hub replays queued edges in time order, settling each window that
        closed before the next edge, so a whole sweep can be delivered at once.
        """
        start = time.monotonic()
        try:
            for offset, drive, closed in timeline:
                self._local.t = start + offset
                drive(closed)
        finally:
            self._local.t = None
        return start

    def play(self, drive: Callable[[bool], None], trace: list[tuple[float, bool]],
             start: float | None = None) -> list[tuple[float, bool]]:
        start = time.monotonic() if start is None else start
        edges = [(start + offset, closed) for offset, closed in trace]
        try:
            for t, closed in edges:
                self._local.t = t
                drive(closed)
        finally:
            self._local.t = None
        return edges


class HealthLog:
    """An ``on_health`` callback: every health report the hub pushed, with timed waits."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def __call__(self, health: dict[str, Any]) -> None:
        with self._cond:
            self.items.append(health)
            self._cond.notify_all()

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 2.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: bool(self.items) and pred(self.items[-1]), timeout)
