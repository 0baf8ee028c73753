"""Debouncing in our own code: a value must hold still for a window to count.

gpiozero's ``bounce_time`` means different things on different backends (a
delay on lgpio, a lock-out on RPi.GPIO), so inputs are opened with
``bounce_time=None`` and filtered here instead.

:class:`StableFilter` is pure (times are passed in), so it is tested without
threads or sleeps. The same filter serves two stages:

* a raw input's level, with the sensor's stability window: a change is
  accepted ``window`` seconds after the *last* edge of its burst, so a burst
  shorter than the window never shows, and a clean edge costs exactly the
  window;
* a tomb's derived position, with the settle time, so that a tomb sliding
  past the middle is not reported as stopping there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Settled(Generic[T]):
    """A change the filter accepted: the burst's first and last edges, and when it was accepted."""

    value: T
    first_edge: float
    last_edge: float
    accepted: float


@dataclass
class FilterStats:
    """Counters for health and the self-test (bouncing, stuck or noisy inputs)."""

    edges: int = 0  # every raw change fed in
    changes: int = 0  # bursts accepted as a new value
    bounces: int = 0  # edges superseded inside the window
    glitches: int = 0  # bursts that ended on the value they started from
    longest_burst: float = 0.0  # seconds from a burst's first to its last edge

    def to_json(self) -> dict[str, float | int]:
        return {
            "edges": self.edges,
            "changes": self.changes,
            "bounces": self.bounces,
            "glitches": self.glitches,
            "longest_burst_ms": round(self.longest_burst * 1000.0, 3),
        }


class StableFilter(Generic[T]):
    """Accept a new value once it has held for ``window`` seconds.

    ``feed`` returns the deadline at which :meth:`due` should be called (or
    ``None`` if nothing is pending); the caller owns the clock and the timer.
    """

    def __init__(self, value: T, window: float) -> None:
        if window < 0:
            raise ValueError(f"window must be >= 0 seconds, got {window}")
        self.window = window
        self.stable: T = value
        self.stats = FilterStats()
        self._candidate: T = value
        self._first_edge: float | None = None
        self._last_edge = 0.0
        self._edges_in_burst = 0

    @property
    def pending(self) -> bool:
        return self._first_edge is not None

    @property
    def deadline(self) -> float | None:
        return None if self._first_edge is None else self._last_edge + self.window

    @property
    def first_edge(self) -> float | None:
        return self._first_edge

    @property
    def candidate(self) -> T:
        return self._candidate

    def feed(self, value: T, t: float) -> float | None:
        """A raw value seen at time ``t``; returns the new deadline, if any."""
        if value == self._candidate:
            return self.deadline  # no change (a repeated level report)
        self.stats.edges += 1
        if self._first_edge is None:
            self._first_edge = t
            self._edges_in_burst = 0
        else:
            self.stats.bounces += 1
        self._edges_in_burst += 1
        self._candidate = value
        # Edges can arrive out of order by a hair (two sources' clocks); never go back.
        self._last_edge = max(t, self._last_edge, self._first_edge)
        return self.deadline

    def due(self, now: float) -> Settled[T] | None:
        """Resolve the pending burst if its window has passed; the change, if any."""
        deadline = self.deadline
        if deadline is None or now < deadline:
            return None
        assert self._first_edge is not None
        first, last = self._first_edge, self._last_edge
        self.stats.longest_burst = max(self.stats.longest_burst, last - first)
        self._first_edge = None
        if self._candidate == self.stable:
            self.stats.glitches += 1
            return None
        self.stats.changes += 1
        self.stable = self._candidate
        return Settled(self.stable, first, last, now)

    def reset(self, value: T) -> None:
        """Take ``value`` as the truth now (a fresh reading), dropping any pending burst."""
        self.stable = value
        self._candidate = value
        self._first_edge = None
