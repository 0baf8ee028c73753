"""The pure stability filter, driven with explicit times (no threads, no sleeps)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.debounce import StableFilter
from hardware.simulator import bounce_trace, worst_gap_trace

W = 0.020


def run(filter_: StableFilter[bool], edges: list[tuple[float, bool]],
        until: float) -> list[tuple[bool, float, float, float]]:
    """Feed edges in order, resolving deadlines exactly when they fall due, as the hub's worker does."""
    out = []
    pending: float | None = None
    for t, level in edges:
        if pending is not None and pending <= t:
            got = filter_.due(pending)
            if got:
                out.append((got.value, got.first_edge, got.last_edge, got.accepted))
        pending = filter_.feed(level, t)
    if pending is not None and pending <= until:
        got = filter_.due(pending)
        if got:
            out.append((got.value, got.first_edge, got.last_edge, got.accepted))
    return out


def test_clean_edge_costs_exactly_the_window() -> None:
    f = StableFilter(False, W)
    assert f.feed(True, 1.0) == pytest.approx(1.0 + W)
    assert f.due(1.0 + W - 1e-6) is None
    got = f.due(1.0 + W)
    assert got is not None and got.value is True and got.first_edge == 1.0 and got.last_edge == 1.0
    assert f.stable is True and not f.pending
    assert f.stats.changes == 1 and f.stats.edges == 1 and f.stats.bounces == 0


def test_burst_settles_a_window_after_its_last_edge_and_keeps_its_first_edge() -> None:
    f = StableFilter(False, W)
    trace = [(1.000, True), (1.002, False), (1.003, True), (1.009, False), (1.010, True)]
    out = run(f, trace, until=2.0)
    assert out == [(True, 1.000, 1.010, pytest.approx(1.010 + W))]
    assert f.stats.edges == 5 and f.stats.bounces == 4 and f.stats.longest_burst == pytest.approx(0.010)


def test_a_glitch_shorter_than_the_window_is_not_a_change() -> None:
    f = StableFilter(True, W)
    out = run(f, [(5.0, False), (5.004, True)], until=6.0)
    assert out == [] and f.stable is True
    assert f.stats.glitches == 1 and f.stats.changes == 0


def test_reset_drops_a_pending_burst() -> None:
    f = StableFilter(False, W)
    f.feed(True, 1.0)
    f.reset(False)
    assert f.due(2.0) is None and f.stable is False and not f.pending


def test_generic_values_for_the_settle_stage() -> None:
    f: StableFilter[str] = StableFilter("end_a", 0.25)
    f.feed("moving", 0.0)
    f.feed("middle", 0.1)
    f.feed("moving", 0.2)
    assert f.due(0.44) is None
    f.feed("end_b", 0.3)
    got = f.due(0.55)
    assert got is not None and got.value == "end_b" and got.first_edge == 0.0


def test_negative_window_is_refused() -> None:
    with pytest.raises(ValueError, match="window"):
        StableFilter(False, -0.001)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    burst_ms=st.floats(0.0, 10.0),
    actions=st.integers(1, 8),
    gap_ms=st.floats(W * 1000 + 1, 500.0),
)
def test_bursts_up_to_10ms_give_exactly_one_change_per_action(seed: int, burst_ms: float, actions: int,
                                                              gap_ms: float) -> None:
    rng = random.Random(seed)
    f = StableFilter(False, W)
    edges: list[tuple[float, bool]] = []
    starts, ends = [], []
    t = 1.0
    level = False
    for i in range(actions):
        level = not level
        trace = worst_gap_trace(level, burst_ms / 1000) if i % 3 == 2 else bounce_trace(level, burst_ms / 1000, rng)
        edges += [(t + off, lvl) for off, lvl in trace]
        starts.append(t)
        ends.append(t + trace[-1][0])
        t = ends[-1] + gap_ms / 1000
    out = run(f, edges, until=t + 1)
    assert [v for v, *_ in out] == [i % 2 == 0 for i in range(actions)]
    for (_, first, last, accepted), start, end in zip(out, starts, ends, strict=True):
        assert first == pytest.approx(start) and last == pytest.approx(end)
        assert accepted - last == pytest.approx(W)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.05), st.booleans()), max_size=40))
def test_accepted_value_is_always_the_level_that_held_for_the_window(steps: list[tuple[float, bool]]) -> None:
    f = StableFilter(False, W)
    t = 0.0
    edges = []
    for dt, level in steps:
        t += dt
        edges.append((t, level))
    out = run(f, edges, until=t + 1)
    # Every accepted change follows a quiet stretch of at least W, and alternates.
    values = [v for v, *_ in out]
    assert all(a != b for a, b in zip([False, *values], values, strict=False))
    final_level = False
    for _, level in edges:
        final_level = level
    assert f.stable == final_level
