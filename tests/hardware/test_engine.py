"""The hub's filtering engine driven with explicit times, as an ideal worker would: properties."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.config import load_hardware_config
from hardware.engine import Engine
from hardware.observation import TOMB_POSITIONS, Observation
from hardware.sensors import tomb_value
from hardware.simulator import bounce_trace

WINDOW, SETTLE = 0.015, 0.25
POS = {role: i for i, role in enumerate(TOMB_POSITIONS)}  # input index of each reed

Event = tuple[float, int, bool]  # (time, input index, closed)


def tomb_engine() -> Engine:
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"tomb.wolf": {
        "end_a": {"pin": 5}, "middle": {"pin": 6}, "end_b": {"pin": 7}}}})
    return Engine(cfg)


def run(engine: Engine, initial: dict[int, bool], events: list[Event]) -> list[Observation]:
    """Feed events in time order, settling each window exactly when it closes."""
    out: list[Observation] = []
    engine.handle("init", (initial, 0.0), out)
    for t, index, closed in events:
        while (d := engine.next_deadline()) is not None and d <= t:
            engine.fire_due(d, out)
        engine.handle("edge", (index, closed, t), out)
    while (d := engine.next_deadline()) is not None:
        engine.fire_due(d, out)
    return [o for o in out if not o.initial]


def burst(index: int, closed: bool, at: float, rng: random.Random, length: float) -> list[Event]:
    return [(at + off, index, level) for off, level in bounce_trace(closed, length, rng)]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stops=st.lists(st.sampled_from(TOMB_POSITIONS), min_size=1, max_size=8))
def test_a_tomb_reports_each_stop_once_and_never_a_pass(seed: int, stops: list[str]) -> None:
    """Hand moves at random speeds: gaps 20-80 ms, passing the middle in 20-200 ms,
    bounce bursts up to 5 ms, and a rest longer than the settle time at each stop."""
    rng = random.Random(seed)
    engine = tomb_engine()
    at, events, expected = "end_a", [], []
    starts, ends = [], []
    t = 1.0
    for stop in stops:
        if stop == at:
            continue
        path = [at, "middle", stop] if {at, stop} == {"end_a", "end_b"} else [at, stop]
        starts.append(t)
        for here, there in zip(path, path[1:], strict=False):
            leave = burst(POS[here], False, t, rng, rng.uniform(0, 0.005))
            t = leave[-1][0] + rng.uniform(0.02, 0.08)
            arrive = burst(POS[there], True, t, rng, rng.uniform(0, 0.005))
            events += leave + arrive
            t = arrive[-1][0]
            if there != stop:
                t += rng.uniform(0.02, 0.2)  # passing through the middle, under the settle time
        ends.append(t)
        expected.append(stop)
        t += SETTLE + rng.uniform(0.01, 1.0)
        at = stop
    got = run(engine, {0: True, 1: False, 2: False}, events)
    assert [o.value for o in got] == expected
    for obs, start, end in zip(got, starts, ends, strict=True):
        assert obs.first_edge == start
        assert abs(obs.settled - (end + SETTLE)) < 1e-9


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.4), st.integers(0, 2), st.booleans()), max_size=60))
def test_any_reed_noise_ends_on_the_truth_without_repeats(steps: list[tuple[float, int, bool]]) -> None:
    engine = tomb_engine()
    levels = {0: True, 1: False, 2: False}
    t = 1.0
    events: list[Event] = []
    for dt, index, closed in steps:
        t += dt
        events.append((t, index, closed))
        levels[index] = closed
    got = run(engine, {0: True, 1: False, 2: False}, events)
    values = ["end_a", *(o.value for o in got)]
    assert all(a != b for a, b in zip(values, values[1:], strict=False))
    truth = tomb_value({role: levels[i] for role, i in POS.items()})
    assert values[-1] == truth
    assert engine.snapshot()["tomb.wolf"].value == truth


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), actions=st.integers(1, 12))
def test_binary_sensor_one_change_per_bounced_action(seed: int, actions: int) -> None:
    rng = random.Random(seed)
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"trap.ladder.sprung": {"pin": 5}}})
    engine = Engine(cfg)
    events: list[Event] = []
    closed, t = True, 1.0
    lasts = []
    for _ in range(actions):
        closed = not closed
        events += burst(0, closed, t, rng, rng.uniform(0, 0.010))
        lasts.append(events[-1][0])
        t = events[-1][0] + 0.020 + rng.uniform(0.0001, 0.5)
    got = run(engine, {0: True}, events)
    assert [o.value for o in got] == ["sprung" if i % 2 == 0 else "cocked" for i in range(actions)]
    assert all(abs(o.settled - (last + 0.020)) < 1e-9 for o, last in zip(got, lasts, strict=True))


@settings(max_examples=100, deadline=None)
@given(before=st.lists(st.booleans(), min_size=4, max_size=4), after=st.lists(st.booleans(), min_size=4, max_size=4))
def test_a_reconnect_snapshot_reports_exactly_the_real_differences(before: list[bool], after: list[bool]) -> None:
    cfg = load_hardware_config({"pin_map": "none", "mcu": {"port": "loop://"}, "sensors": {
        "tomb.mummy": {"end_a": {"source": "mcu", "channel": 0}, "middle": {"source": "mcu", "channel": 1},
                       "end_b": {"source": "mcu", "channel": 2}},
        "launcher": {"source": "mcu", "channel": 3}}})
    engine = Engine(cfg)
    out: list[Observation] = []
    engine.handle("snapshot", (dict(enumerate(before)), 1_000, 5.0), out)
    first = {o.sensor: o.value for o in out}
    assert len(out) == 2 and all(o.initial for o in out)
    engine.handle("offline", ("unplugged",), out)
    out.clear()
    engine.handle("snapshot", (dict(enumerate(after)), 2_000, 6.0), out)
    # levels are electrical: low (False) is closed
    now = {"tomb.mummy": tomb_value({r: not after[i] for r, i in POS.items()}),
           "launcher": "armed" if not after[3] else "launched"}
    assert {o.sensor: o.value for o in out} == {k: v for k, v in now.items() if first[k] != v}
    assert all(o.initial and o.first_edge == o.settled == 6.0 for o in out)
    assert all(s.online and s.seen == 6.0 for s in engine.snapshot().values())
