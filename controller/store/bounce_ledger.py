"""Contact bounces, journalled per game: which switch to re-solder, across games and restarts.

The sensor hub counts, per input, the edges its debouncer swallowed
(``hardware/debounce.py``, ``FilterStats.bounces``), from the moment it
started. Those counters live in memory and die with the process. A journal
row per bounce would put a write (and its fsync) on the path from an edge to
the referee, so instead the service hands the hub's counters to a
:class:`BounceLedger` now and then, and the ledger journals what is new since
last time against the game running then (``Journal.add_sensor_counts``):

* every :data:`FLUSH_EVERY_S` seconds, from the worker, between decisions;
* on the next worker pass after a mismatch (a maker looks at the table then);
* before a new game starts (the bounces so far belong to the game that ends);
* before a history ``sensors`` answer, so the table is up to now;
* when the service stops.

A ``kill -9`` or a power cut loses at most the counts of the last interval.
They are statistics, not game input: not among the replayed inputs, so
``gravekeeper replay --verify`` never sees them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

FLUSH_EVERY_S = 60.0


def bounce_counts(health: Mapping[str, Any]) -> dict[str, int]:
    """Sensor -> bounces of all its inputs, from the hub's ``health()``."""
    out: dict[str, int] = {}
    for sensor, state in (health.get("sensors") or {}).items():
        inputs = state.get("inputs") if isinstance(state, Mapping) else None
        total = 0
        for stats in (inputs or {}).values():
            n = stats.get("bounces") if isinstance(stats, Mapping) else None
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                total += n
        out[str(sensor)] = total
    return out


class BounceLedger:
    """What of the hub's bounce counters is already in the journal; used under the service's decision lock."""

    def __init__(self, every_s: float = FLUSH_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._written: dict[str, int] = {}  # the hub's counters as they were at the last write
        self._every = every_s
        self._clock = clock
        self._next = clock() + every_s
        self.due = False  # set to write at the next chance (after a mismatch)

    def maybe_flush(self, hub: Any, journal: Any, game_id: str | None) -> int:
        """:meth:`flush` when it is due; the bounces written."""
        if not self.due and self._clock() < self._next:
            return 0
        return self.flush(hub, journal, game_id)

    def flush(self, hub: Any, journal: Any, game_id: str | None) -> int:
        """Journal the bounces counted since the last write against ``game_id``; the number written.

        A failed write raises, and the counts stay unwritten: the next flush tries them again.
        """
        self.due = False
        self._next = self._clock() + self._every
        if hub is None or journal is None or game_id is None:
            return 0
        now = bounce_counts(hub.health())
        new: dict[str, int] = {}
        for sensor, n in now.items():
            before = self._written.get(sensor, 0)
            # Fewer than last time: the hub's counters started again (a new hub), all of them are new.
            added = n - before if n >= before else n
            if added > 0:
                new[sensor] = added
        journal.add_sensor_counts(game_id, new)
        self._written = now
        return sum(new.values())
