"""The hub on gpiozero's MockFactory: realistic bounce traces through the real code path."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.config import DEFAULT_PINS, load_hardware_config
from hardware.hub import SensorHub
from hardware.simulator import bounce_trace, play_trace, worst_gap_trace
from tests.hardware.support import Recorder, TraceClock

FAST = {"debounce": {"tomb_settle": 60},
        "sensors": {"chute.left": {"pin": 2}, "chute.right": {"pin": 3, "active": "high"}}}
# The lower bounds below are exact (never before the window has passed); the
# upper bound only catches "far too late", as a loaded test machine can hold a
# thread for tens of milliseconds. bench/bench_debounce.py measures the real cost.
SLACK = 0.5


def closer(factory: MockFactory, pin: int, active_high: bool = False) -> Callable[[bool], None]:
    p = factory.pin(pin)

    def drive(closed: bool) -> None:
        (p.drive_high if closed == active_high else p.drive_low)()

    return drive


class WiredPin(MockPWMPin):
    """A mock pin with a switch that may already be closed when the pull is applied."""

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        level = getattr(self._factory, "wired", {}).get(self.info.name)
        if level is not None:
            (self.drive_high if level else self.drive_low)()


def test_start_reads_every_sensor_now(recorder: Recorder) -> None:
    factory = MockFactory(pin_class=WiredPin)
    factory.wired = {f"GPIO{DEFAULT_PINS['tomb.wolf.end_b']}": False,  # type: ignore[attr-defined]
                     f"GPIO{DEFAULT_PINS['trap.mirror.peg_a']}": False,
                     f"GPIO{DEFAULT_PINS['tomb.mummy.end_a']}": False,
                     f"GPIO{DEFAULT_PINS['tomb.mummy.middle']}": False}
    cfg = load_hardware_config(None)
    with SensorHub(cfg, on_observation=recorder, pin_factory=factory) as hub:
        initial = {o.sensor: o for o in recorder.items}
        assert set(initial) == set(cfg.sensor_ids)
        assert all(o.initial and o.source == "gpio" and o.first_edge == o.settled for o in initial.values())
        assert initial["tomb.wolf"].value == "end_b"
        assert initial["tomb.mummy"].value == "fault"
        assert initial["tomb.monster"].value == "moving"
        assert initial["trap.mirror.peg_a"].value == "in"
        assert initial["trap.mirror.peg_b"].value == "pulled"
        assert initial["trap.ladder.sprung"].value == "sprung"
        assert initial["launcher"].value == "launched"
        snap = hub.snapshot()
        assert list(snap) == list(cfg.sensor_ids)
        assert snap["tomb.wolf"].to_json()["value"] == "end_b"
        assert snap["tomb.wolf"].changed == snap["tomb.wolf"].seen == initial["tomb.wolf"].settled
    factory.reset()


BINARY = [
    ("trap.ladder.peg_a", DEFAULT_PINS["trap.ladder.peg_a"], False, ("in", "pulled"), 0.020),
    ("trap.grave2.sprung", DEFAULT_PINS["trap.grave2.sprung"], False, ("cocked", "sprung"), 0.020),
    ("launcher", DEFAULT_PINS["launcher"], False, ("armed", "launched"), 0.020),
    ("chute.left", 2, False, ("clear", "blocked"), 0.015),
    ("chute.right", 3, True, ("clear", "blocked"), 0.015),
]


@pytest.mark.parametrize(("sensor", "pin", "active_high", "values", "window"), BINARY)
def test_every_bounced_action_gives_exactly_one_observation(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock,
        sensor: str, pin: int, active_high: bool, values: tuple[str, str], window: float) -> None:
    make_hub(load_hardware_config(FAST))
    drive = closer(factory, pin, active_high)
    rng = random.Random(sensor)
    closed = [o for o in recorder.items if o.sensor == sensor][0].value == values[0]
    for n in range(1, 13):
        closed = not closed
        burst = 0.010 if n % 4 == 0 else rng.uniform(0.0, 0.010)
        trace = worst_gap_trace(closed, burst) if n % 3 == 0 else bounce_trace(closed, burst, rng)
        played = tclock.play(drive, trace)
        got = recorder.wait_count(n, sensor)
        assert len(got) == n, got
        obs = got[-1]
        assert obs.value == (values[0] if closed else values[1])
        assert obs.source == "gpio" and not obs.initial
        assert obs.first_edge == played[0][0]
        assert window - 1e-6 <= obs.settled - played[-1][0] <= window + SLACK
    assert recorder.stays_at(12, 0.1, sensor)
    assert recorder.changes() == recorder.changes(sensor)  # nothing leaked to other sensors


def test_a_short_glitch_is_not_an_observation(make_hub: Callable[..., SensorHub], factory: MockFactory,
                                              recorder: Recorder, tclock: TraceClock) -> None:
    hub = make_hub(load_hardware_config(None))
    drive = closer(factory, DEFAULT_PINS["trap.mirror.peg_b"])
    tclock.play(drive, [(0.0, True), (0.004, False), (0.006, True), (0.008, False)])
    assert recorder.stays_at(0, 0.08)
    stats = hub.health()["sensors"]["trap.mirror.peg_b"]["inputs"]["input"]
    assert stats["edges"] == 4 and stats["glitches"] == 1 and stats["changes"] == 0 and stats["bounces"] == 3
    assert stats["longest_burst_ms"] == pytest.approx(8.0)
    assert hub.snapshot()["trap.mirror.peg_b"].value == "pulled"


TOMB_PINS = {role: DEFAULT_PINS[f"tomb.wolf.{role}"] for role in ("end_a", "middle", "end_b")}


def test_tomb_moves_with_bounce_give_one_observation_per_stop(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    hub = make_hub(load_hardware_config(FAST))
    rng = random.Random(7)
    drives = {role: closer(factory, pin) for role, pin in TOMB_PINS.items()}
    drives["end_a"](True)
    recorder.wait_count(1, "tomb.wolf")
    path = ["middle", "end_b", "middle", "end_a", "end_b"]
    at = "end_a"
    for n, target in enumerate(path, start=2):
        opened = tclock.play(drives[at], bounce_trace(False, rng.uniform(0, 0.01), rng))
        closed = tclock.play(drives[target], bounce_trace(True, rng.uniform(0, 0.01), rng),
                             start=opened[-1][0] + 0.002)
        got = recorder.wait_count(n, "tomb.wolf")
        assert len(got) == n and got[-1].value == target
        assert got[-1].first_edge == opened[0][0]
        assert 0.060 - 1e-6 <= got[-1].settled - closed[-1][0] <= 0.060 + SLACK
        at = target
    assert recorder.stays_at(len(path) + 1, 0.15, "tomb.wolf")
    assert [o.value for o in recorder.changes("tomb.wolf")] == ["end_a", *path]
    assert hub.snapshot()["tomb.wolf"].value == "end_b"


def test_tomb_swept_end_to_end_reports_the_stop_not_the_middle(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    hub = make_hub(load_hardware_config(None))  # the default 250 ms settle time
    drives = {role: closer(factory, pin) for role, pin in TOMB_PINS.items()}
    rng = random.Random(3)
    drives["end_a"](True)
    recorder.wait_count(1, "tomb.wolf")

    def sweep(start: str, stop: str, dwell: float) -> tuple[float, float]:
        """Slide the magnet past the middle reed at hand speed: 30 ms gaps, ``dwell`` on the middle.

        Long enough on the middle (more than its 15 ms window) for that reed to
        settle; the whole sweep is one timeline of planned edges.
        """
        timeline: list[tuple[float, Callable[[bool], None], bool]] = []
        at = 0.0
        for role, closed, gap in ((start, False, 0.03), ("middle", True, dwell), ("middle", False, 0.03),
                                  (stop, True, 0.0)):
            trace = bounce_trace(closed, 0.004, rng)
            timeline += [(at + offset, drives[role], level) for offset, level in trace]
            at += trace[-1][0] + gap
        t0 = tclock.play_timeline(timeline)
        return t0, t0 + timeline[-1][0]

    t0, last = sweep("end_a", "end_b", dwell=0.05)
    got = recorder.wait_count(2, "tomb.wolf")
    assert got[-1].value == "end_b" and len(got) == 2
    assert got[-1].first_edge == t0
    assert 0.25 - 1e-6 <= got[-1].settled - last <= 0.25 + SLACK
    sweep("end_b", "end_a", dwell=0.2)  # a slow hand: 200 ms on the middle is still passing through
    got = recorder.wait_count(3, "tomb.wolf")
    assert got[-1].value == "end_a"
    assert recorder.stays_at(3, 0.1, "tomb.wolf")
    assert "middle" not in [o.value for o in got]
    # the middle reed did settle on the way (its own window), it just was not a stop
    middle = hub.health()["sensors"]["tomb.wolf"]["inputs"]["middle"]
    assert middle["changes"] == 4 and middle["glitches"] == 0


def test_tomb_stopping_on_the_middle_is_reported(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    make_hub(load_hardware_config(FAST))
    drives = {role: closer(factory, pin) for role, pin in TOMB_PINS.items()}
    drives["end_b"](True)
    recorder.wait_count(1, "tomb.wolf")
    t0 = tclock.play(drives["end_b"], [(0.0, False)])[0][0]
    # The hand reaches the middle 30 ms after leaving the end: planned edge times, as in a sweep.
    tclock.play(drives["middle"], bounce_trace(True, 0.008, random.Random(5)), start=t0 + 0.03)
    got = recorder.wait_count(2, "tomb.wolf")
    assert got[-1].value == "middle" and got[-1].first_edge == t0
    assert recorder.stays_at(2, 0.1, "tomb.wolf")


def test_tomb_left_between_stops_is_moving_and_two_reeds_are_a_fault(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    make_hub(load_hardware_config(FAST))
    drives = {role: closer(factory, pin) for role, pin in TOMB_PINS.items()}
    drives["end_a"](True)
    recorder.wait_count(1, "tomb.wolf")
    drives["end_a"](False)
    assert recorder.wait_count(2, "tomb.wolf")[-1].value == "moving"
    tclock.play_timeline([(0.0, drives["middle"], True), (0.001, drives["end_b"], True)])
    assert recorder.wait_count(3, "tomb.wolf")[-1].value == "fault"
    drives["middle"](False)
    assert recorder.wait_count(4, "tomb.wolf")[-1].value == "end_b"


def test_pull_down_active_high_input(make_hub: Callable[..., SensorHub], factory: MockFactory,
                                     recorder: Recorder) -> None:
    cfg = load_hardware_config({"pin_map": "none",
                                "sensors": {"launcher": {"pin": 13, "pull": "down"},
                                            "chute.left": {"pin": 20, "pull": "none", "active": "low"}}})
    hub = make_hub(cfg)
    assert hub.snapshot()["launcher"].value == "launched"
    factory.pin(13).drive_high()
    assert recorder.wait_count(1, "launcher")[-1].value == "armed"
    assert hub.snapshot()["chute.left"].value == "clear"  # a floating mock pin reads low
    factory.pin(20).drive_high()
    assert recorder.wait_count(1, "chute.left")[-1].value == "blocked"


def test_worker_survives_a_failing_callback(factory: MockFactory) -> None:
    seen: list[str] = []
    done = threading.Event()

    def flaky(obs: Any) -> None:
        seen.append(obs.value)
        if obs.initial:
            raise RuntimeError("subscriber bug")
        done.set()

    with SensorHub(load_hardware_config(None), on_observation=flaky, pin_factory=factory):
        factory.pin(DEFAULT_PINS["launcher"]).drive_low()
        assert done.wait(2.0)
    assert seen[-1] == "armed"


def test_one_worker_thread_whatever_the_edge_count(make_hub: Callable[..., SensorHub], factory: MockFactory,
                                                   recorder: Recorder) -> None:
    make_hub(load_hardware_config(None))
    before = threading.active_count()
    rng = random.Random(1)
    for sensor in ("trap.ladder.peg_a", "trap.ladder.peg_b", "trap.mirror.sprung", "launcher"):
        play_trace(closer(factory, DEFAULT_PINS[sensor]), bounce_trace(True, 0.010, rng, max_pairs=20))
        assert threading.active_count() == before
    recorder.wait_count(4)
    assert threading.active_count() == before


def test_close_is_idempotent_and_final(factory: MockFactory, recorder: Recorder) -> None:
    hub = SensorHub(load_hardware_config(None), on_observation=recorder, pin_factory=factory)
    hub.start()
    hub.start()  # idempotent: no second initial read
    assert len(recorder.items) == 16  # 3 tombs, 12 trap sensors, the launcher
    worker = [t for t in threading.enumerate() if t.name == "sensor-hub"]
    hub.close()
    hub.close()
    assert not any(t.is_alive() for t in worker)
    with pytest.raises(RuntimeError, match="closed"):
        hub.start()
    # pins are released: a new hub can claim them
    with SensorHub(load_hardware_config(None), on_observation=lambda o: None, pin_factory=factory) as again:
        assert len(again.snapshot()) == 16


def test_a_pin_in_use_is_a_clear_error(factory: MockFactory, recorder: Recorder) -> None:
    from gpiozero import LED

    from hardware.hub import HardwareError

    squatter = LED(DEFAULT_PINS["launcher"], pin_factory=factory)
    hub = SensorHub(load_hardware_config(None), on_observation=recorder, pin_factory=factory)
    with pytest.raises(HardwareError, match=r"GPIO 13 for launcher"):
        hub.start()
    squatter.close()
    hub.close()


def test_health_reports_links_and_counters(make_hub: Callable[..., SensorHub], factory: MockFactory,
                                           recorder: Recorder, tclock: TraceClock) -> None:
    hub = make_hub(load_hardware_config(None))
    tclock.play(closer(factory, DEFAULT_PINS["trap.ladder.peg_b"]), [(0, True), (0.002, False), (0.004, True)])
    recorder.wait_count(1)
    health = hub.health()
    assert health["links"]["gpio"]["state"] == "online"
    assert health["links"]["mcu"] == {"state": "absent"}
    peg = health["sensors"]["trap.ladder.peg_b"]
    assert peg["value"] == "in" and peg["observations"] == 2
    assert peg["inputs"]["input"] == {
        "wire": "GPIO 23", "closed": True, "edges": 3, "changes": 1, "bounces": 2, "glitches": 0,
        "longest_burst_ms": 4.0, "burst_ms": 0.0}


def test_a_contact_that_never_settles_shows_in_health_not_as_changes(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    hub = make_hub(load_hardware_config(None))
    drive = closer(factory, DEFAULT_PINS["trap.grave1.sprung"])
    # a broken switch chattering every 5 ms for 300 ms: 200 ms of it already past, 100 ms to come
    start = time.monotonic() - 0.2
    tclock.play(drive, [(k * 0.005, k % 2 == 0) for k in range(60)], start=start)
    assert hub.sync()
    inp = hub.health()["sensors"]["trap.grave1.sprung"]["inputs"]["input"]
    assert inp["edges"] == 60 and inp["changes"] == 0
    assert inp["burst_ms"] >= 195.0  # still chattering, as far as the hub knows
    assert recorder.stays_at(0, 0.25)
    inp = hub.health()["sensors"]["trap.grave1.sprung"]["inputs"]["input"]
    assert inp["burst_ms"] == 0.0 and inp["glitches"] == 1 and inp["longest_burst_ms"] == pytest.approx(295.0)


def test_observations_come_from_the_worker_thread_in_order(factory: MockFactory) -> None:
    seen: list[tuple[str, str, str]] = []
    done, pegs_settled = threading.Event(), threading.Event()

    def on_obs(obs: Any) -> None:
        seen.append((threading.current_thread().name, obs.sensor, obs.value))
        if not obs.initial and obs.sensor == "trap.mirror.peg_a":
            pegs_settled.set()
        if not obs.initial and obs.value == "launched":
            done.set()

    with SensorHub(load_hardware_config(None), on_observation=on_obs, pin_factory=factory):
        assert len(seen) == 16  # start() returns once the start-up reading was delivered
        pin = factory.pin(DEFAULT_PINS["launcher"])
        pin.drive_low()
        for trap in ("ladder", "mirror"):
            factory.pin(DEFAULT_PINS[f"trap.{trap}.peg_a"]).drive_low()
        # Hold the launcher until the last of the three has settled: its window has passed too.
        assert pegs_settled.wait(2.0)
        pin.drive_high()
        assert done.wait(2.0)
    assert {name for name, _, _ in seen} == {"sensor-hub"}
    assert [v for _, s, v in seen if s == "launcher"] == ["launched", "armed", "launched"]
    assert [s for _, s, v in seen[16:]] == ["launcher", "trap.ladder.peg_a", "trap.mirror.peg_a", "launcher"]


def test_every_sensor_bouncing_at_once_gives_one_observation_each(
        make_hub: Callable[..., SensorHub], factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    """Ten inputs moved within the same 10 ms: one timer heap with all their windows open together."""
    hub = make_hub(load_hardware_config(FAST))
    rng = random.Random(11)
    timeline: list[tuple[float, Callable[[bool], None], bool]] = []
    expected: dict[str, str] = {}
    for sensor, value in (("trap.ladder.peg_a", "in"), ("trap.ladder.peg_b", "in"), ("trap.mirror.sprung", "cocked"),
                          ("trap.grave1.peg_a", "in"), ("trap.grave2.sprung", "cocked"), ("launcher", "armed"),
                          ("chute.left", "clear"), ("trap.grave1.peg_b", "in")):
        drive = closer(factory, {**DEFAULT_PINS, "chute.left": 2}[sensor])  # FAST puts the left beam on GPIO 2
        timeline += [(off, drive, level) for off, level in bounce_trace(True, rng.uniform(0.0, 0.010), rng)]
        expected[sensor] = value
    for tomb in ("mummy", "monster"):
        drive = closer(factory, DEFAULT_PINS[f"tomb.{tomb}.end_b"])
        timeline += [(off, drive, level) for off, level in bounce_trace(True, rng.uniform(0.0, 0.010), rng)]
        expected[f"tomb.{tomb}"] = "end_b"
    timeline.sort(key=lambda e: e[0])
    tclock.play_timeline(timeline)
    got = recorder.wait_count(len(expected))
    assert recorder.stays_at(len(expected), 0.15)
    assert {o.sensor: o.value for o in got} == expected and len(got) == len(expected)
    assert {sid: s.value for sid, s in hub.snapshot().items() if sid in expected} == expected


def test_nothing_is_reported_after_close(factory: MockFactory, recorder: Recorder, tclock: TraceClock) -> None:
    hub = SensorHub(load_hardware_config(None), on_observation=recorder, pin_factory=factory, clock=tclock)
    hub.start()
    tclock.play(closer(factory, DEFAULT_PINS["launcher"]), [(0.0, True)])  # its window is still open...
    hub.close()  # ...when the hub closes
    assert recorder.stays_at(0, 0.06)
    assert not hub.sync()


def test_an_edge_during_the_start_up_read_is_not_lost(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand pulls a peg while start() reads the pins: the read saw the peg in, the edge came
    right after it. The edge must still count, or the hub believes "in" until the next change."""
    from hardware.channels import GpioInput

    factory = MockFactory(pin_class=WiredPin)
    factory.wired = {"GPIO18": False}  # type: ignore[attr-defined]  # the peg is in (pull-up, active low)
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"trap.ladder.peg_a": {"pin": 18}}})
    pin = factory.pin(18)
    real_read = GpioInput.read
    pulled = threading.Event()

    def read_then_pull(self: GpioInput) -> bool:
        value = real_read(self)
        if not pulled.is_set():
            pulled.set()
            pin.drive_high()  # the peg comes out just after it was sampled
        return value

    monkeypatch.setattr(GpioInput, "read", read_then_pull)
    with SensorHub(cfg, on_observation=recorder, pin_factory=factory) as hub:
        assert pulled.is_set()
        assert recorder.items[0].initial and recorder.items[0].value == "in"
        got = recorder.wait_count(1, "trap.ladder.peg_a")
        assert [o.value for o in got] == ["pulled"]
        assert hub.snapshot()["trap.ladder.peg_a"].value == "pulled"
    factory.reset()


def test_close_from_the_observation_callback_is_clean(recorder: Recorder, caplog: pytest.LogCaptureFixture) -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"launcher": {"pin": 13}}})
    closed = threading.Event()
    hub: SensorHub | None = None

    def on_obs(obs: Any) -> None:
        recorder(obs)
        if not obs.initial and hub is not None:
            hub.close()
            closed.set()

    hub = SensorHub(cfg, on_observation=on_obs, pin_factory=factory)
    hub.start()
    factory.pin(13).drive_low()
    assert closed.wait(2.0)
    assert hub.sync() is False  # closed
    hub._worker.join(2.0)  # type: ignore[union-attr]
    assert not hub._worker.is_alive()  # type: ignore[union-attr]
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")], caplog.text
    hub.close()
    factory.reset()


def test_a_bug_while_settling_windows_does_not_stop_the_worker(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from hardware.engine import Engine

    factory = MockFactory(pin_class=MockPWMPin)
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"launcher": {"pin": 13}}})
    real = Engine.fire_due
    failed = threading.Event()

    def fire_due(self: Engine, now: float, emitted: list[Any]) -> None:
        if self.inputs[0].filter is not None and self.inputs[0].filter.pending and not failed.is_set():
            failed.set()
            raise RuntimeError("settling bug")
        real(self, now, emitted)

    monkeypatch.setattr(Engine, "fire_due", fire_due)
    with SensorHub(cfg, on_observation=recorder, pin_factory=factory) as hub:
        factory.pin(13).drive_low()  # the ghost goes on the launcher
        assert failed.wait(2.0)
        got = recorder.wait_count(1, "launcher")  # the worker lived on and settled it
        assert got[0].value == "armed"
        assert "settling bug" in caplog.text and "internal error" in " ".join(hub.health()["warnings"])
    factory.reset()
