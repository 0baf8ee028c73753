"""Bounce traces: how a real contact chatters, for the simulator, tests and bench.

A trace is a list of ``(offset_seconds, closed)`` edges starting at 0 and
ending on the target state. Reed switches chatter for well under a
millisecond; cheap micro-switches and hand-made peg contacts for up to about
10 ms, which is the worst case the stability windows are sized for.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

Trace = list[tuple[float, bool]]


def bounce_trace(target: bool, duration: float, rng: random.Random, *, max_pairs: int = 6) -> Trace:
    """A burst of edges lasting exactly ``duration`` seconds that settles on ``target``.

    The first edge (at 0) and the last (at ``duration``) both go to
    ``target``; in between the contact flips back and forth 1..``max_pairs``
    times at random moments. ``duration`` 0 gives one clean edge.
    """
    if duration < 0:
        raise ValueError(f"duration must be >= 0, got {duration}")
    if duration == 0:
        return [(0.0, target)]
    pairs = rng.randint(1, max_pairs)
    inner = sorted(rng.uniform(0.0, duration) for _ in range(2 * pairs - 1))
    trace: Trace = [(0.0, target)]
    level = target
    for offset in inner:
        level = not level
        trace.append((offset, level))
    trace.append((duration, target))
    return trace


def worst_gap_trace(target: bool, duration: float) -> Trace:
    """The hardest burst for a window: one long gap almost as long as the burst."""
    if duration <= 0:
        return [(0.0, target)]
    return [(0.0, target), (duration * 0.98, not target), (duration, target)]


def play_trace(drive: Callable[[bool], None], trace: Sequence[tuple[float, bool]],
               clock: Callable[[], float] = time.monotonic) -> list[tuple[float, bool]]:
    """Drive a trace in real time; returns when each edge really happened.

    On a loaded machine a sleep can overshoot, so callers that judge the
    result should look at the edges as played, not as planned.
    """
    start = clock()
    played: list[tuple[float, bool]] = []
    for offset, closed in trace:
        remaining = start + offset - clock()
        if remaining > 0:
            time.sleep(remaining)
        played.append((clock(), closed))
        drive(closed)
    return played
