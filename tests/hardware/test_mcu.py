"""The MCU source: the hub as a ``LinkListener``, driven directly and through the real link."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from hardware.channels import McuClock
from hardware.config import HardwareConfig, load_hardware_config
from hardware.hub import SensorHub
from tests.hardware.support import HealthLog, Recorder, TraceClock

MCU_CONFIG: dict[str, Any] = {
    "pin_map": "none",
    "mcu": {"port": "fake://mcu", "start_timeout_s": 2},
    "sensors": {
        "tomb.wolf": {"end_a": {"source": "mcu", "channel": 0}, "middle": {"source": "mcu", "channel": 1},
                      "end_b": {"source": "mcu", "channel": 2}, "settle_ms": 60},
        "launcher": {"source": "mcu", "channel": 3},
        "chute.left": {"source": "mcu", "channel": 4, "active": "high"},
    },
    "outputs": {"eyes": {"kind": "pwm_led", "source": "mcu", "channel": 1},
                "alarm": {"kind": "buzzer", "source": "mcu", "channel": 0, "active": "low"}},
}
# electrical levels, pull-ups: wolf at end_a, launcher armed (closed, low), chute clear (high)
AT_REST = {0: False, 1: True, 2: True, 3: False, 4: True, 5: True}


class Hello:
    firmware = "1.0.0"
    board_id = "bench"
    channels = 6
    outputs = 2
    protocol = 1


class FakeLink:
    """Stands in for ``firmware_bridge.link.McuLink``; the test plays the MCU through its listener."""

    def __init__(self, url: str, listener: Any, *, baudrate: int = 115200) -> None:
        self.url, self.listener, self.baudrate = url, listener, baudrate
        self.outputs: list[tuple[int, int]] = []
        self.patterns: list[tuple[int, int, int, int, int]] = []
        self.counters = {"crc_errors": 0, "reconnects": 0}
        self.online = False
        self.closed = False
        self.started = threading.Event()

    def start(self) -> None:
        self.started.set()

    def close(self) -> None:
        self.closed = True

    def set_output(self, channel: int, value: int) -> None:
        self.outputs.append((channel, value))

    def play_pattern(self, channel: int, kind: int, duration_ms: int, period_ms: int, level: int,
                     seed: int = 0) -> bool:
        self.patterns.append((channel, kind, duration_ms, period_ms, level))
        return True

    def connect(self, levels: dict[int, bool], mcu_us: int, hello: Any = None) -> None:
        self.listener.on_hello(hello or Hello())
        self.listener.on_online()
        self.listener.on_snapshot(levels, mcu_us)


class Rig:
    def __init__(self, hub: SensorHub, link: FakeLink) -> None:
        self.hub, self.link = hub, link


@pytest.fixture
def rig(recorder: Recorder, tclock: TraceClock) -> Any:
    made: list[SensorHub] = []

    def make(config: HardwareConfig | None = None, levels: dict[int, bool] | None = None,
             **kwargs: Any) -> Rig:
        links: list[FakeLink] = []

        def factory(url: str, listener: Any, **kw: Any) -> FakeLink:
            link = FakeLink(url, listener, **kw)
            # the MCU answers as soon as the link starts, like a board already plugged in
            orig = link.start

            def start() -> None:
                orig()
                link.connect(dict(AT_REST if levels is None else levels), 5_000_000)

            link.start = start  # type: ignore[method-assign]
            links.append(link)
            return link

        hub = SensorHub(config or load_hardware_config(MCU_CONFIG), on_observation=recorder,
                        mcu_link_factory=factory, clock=tclock, **kwargs)
        made.append(hub)
        hub.start()
        return Rig(hub, links[0])

    yield make
    for hub in made:
        hub.close()


def test_start_reports_every_mcu_sensor_from_the_first_snapshot(rig: Callable[..., Rig], recorder: Recorder) -> None:
    r = rig()
    assert r.link.url == "fake://mcu"
    initial = {o.sensor: o for o in recorder.items}
    assert {k: o.value for k, o in initial.items()} == {
        "tomb.wolf": "end_a", "launcher": "armed", "chute.left": "clear"}
    assert all(o.initial and o.source == "mcu" for o in initial.values())
    assert all(s.online for s in r.hub.snapshot().values())
    health = r.hub.health()["links"]["mcu"]
    assert health["state"] == "online" and health["port"] == "fake://mcu"
    assert health["hello"] == {"firmware": "1.0.0", "board_id": "bench", "channels": 6, "outputs": 2, "protocol": 1}
    assert health["counters"] == {"crc_errors": 0, "reconnects": 0} and health["problems"] == []
    assert r.hub.health()["warnings"] == []


def test_mcu_bounce_burst_is_debounced_on_mcu_time(rig: Callable[..., Rig], recorder: Recorder,
                                                   tclock: TraceClock) -> None:
    r = rig()
    # Learn the clock offset from a first change, then play a 9 ms burst as the
    # link would deliver it: MCU timestamps, received a little later, all at once.
    base_mcu = 6_000_000
    now = time.monotonic()
    offset = now - base_mcu / 1e6
    burst = [(0, True), (1_500, False), (2_000, True), (6_000, False), (9_000, True)]  # us; True = high = open
    for dt, level in burst:
        with tclock.at(offset + (base_mcu + dt) / 1e6 + 0.0004):
            r.link.listener.on_change(3, level, base_mcu + dt)
    got = recorder.wait_count(1, "launcher")
    assert len(got) == 1 and got[0].value == "launched" and got[0].source == "mcu"
    assert got[0].first_edge == pytest.approx(now, abs=0.0005)
    assert got[0].settled - (now + 0.009) >= 0.020 - 0.0006
    assert recorder.stays_at(1, 0.08, "launcher")
    stats = r.hub.health()["sensors"]["launcher"]["inputs"]["input"]
    assert stats["edges"] == 5 and stats["bounces"] == 4 and stats["wire"] == "MCU channel 3"


def test_tomb_on_mcu_channels_settles(rig: Callable[..., Rig], recorder: Recorder, tclock: TraceClock) -> None:
    r = rig()
    t = 7_000_000
    with tclock.at(time.monotonic()):  # both frames arrive together, as one USB packet would
        r.link.listener.on_change(0, True, t)  # end_a opens
        r.link.listener.on_change(2, False, t + 40_000)  # end_b closes
    got = recorder.wait_count(1, "tomb.wolf")
    assert got[0].value == "end_b" and recorder.stays_at(1, 0.1, "tomb.wolf")


def test_reconnect_reports_only_real_differences(rig: Callable[..., Rig], recorder: Recorder,
                                                 health_log: HealthLog) -> None:
    r = rig(on_health=health_log)
    r.link.listener.on_offline("port vanished")
    assert health_log.wait_for(lambda h: h["links"]["mcu"]["state"] == "offline")
    assert r.hub.health()["links"]["mcu"]["reason"] == "port vanished"
    assert r.hub.health()["warnings"] == ["MCU offline: port vanished"]
    assert not any(s.online for s in r.hub.snapshot().values())
    before = r.hub.snapshot()
    # back, nothing moved: no observation at all, but every sensor is "seen" again
    r.link.connect(dict(AT_REST), 100)
    assert health_log.wait_for(lambda h: h["links"]["mcu"]["snapshots"] == 2)
    assert all(s.online for s in r.hub.snapshot().values())
    assert recorder.stays_at(0, 0.05)
    after = r.hub.snapshot()
    assert all(after[k].changed == before[k].changed and after[k].seen > before[k].seen for k in before)
    # unplugged again; the launcher fired and the wolf moved meanwhile
    r.link.listener.on_offline("port vanished")
    r.link.connect({**AT_REST, 3: True, 0: True, 1: False}, 200)
    assert recorder.wait_for(lambda items: len(items) >= 3 + 2)
    assert recorder.stays_at(0, 0.05)  # none of them is a "change": the timing is unknown
    news = recorder.items[3:]
    assert {(o.sensor, o.value, o.initial) for o in news} == {
        ("launcher", "launched", True), ("tomb.wolf", "middle", True)}
    assert r.hub.snapshot()["chute.left"].changed == before["chute.left"].changed
    assert r.hub.snapshot()["launcher"].changed > before["launcher"].changed


def test_a_burst_cut_by_a_disconnect_never_settles(rig: Callable[..., Rig], recorder: Recorder) -> None:
    r = rig()
    r.link.listener.on_change(3, True, 9_000_000)
    r.link.listener.on_offline("heartbeat timeout")
    assert recorder.stays_at(0, 0.08)
    assert r.hub.snapshot()["launcher"].value == "armed"


def test_hello_with_too_few_channels_and_unmapped_changes_show_in_health(
        rig: Callable[..., Rig], health_log: HealthLog) -> None:
    class Small(Hello):
        channels = 3

    r = rig(on_health=health_log)
    r.link.listener.on_change(17, True, 2_000)
    r.link.connect(dict(AT_REST), 1_000, hello=Small())
    assert health_log.wait_for(lambda h: h["links"]["mcu"]["snapshots"] == 2)
    mcu = r.hub.health()["links"]["mcu"]
    assert mcu["unmapped_changes"] == 1
    assert mcu["problems"] == [
        "The Ghost launcher uses MCU channel 3, but the board has only 3 channels",
        "The left Crypt window uses MCU channel 4, but the board has only 3 channels",
    ]


def test_snapshot_missing_a_channel_is_a_problem_not_a_guess(rig: Callable[..., Rig], recorder: Recorder) -> None:
    levels = {k: v for k, v in AT_REST.items() if k != 4}
    r = rig(levels=levels)
    assert "chute.left" not in r.hub.snapshot()
    assert r.hub.health()["links"]["mcu"]["problems"] == ["the MCU's reading lacks the left Crypt window (channel 4)"]
    assert r.hub.health()["warnings"] == ["the MCU's reading lacks the left Crypt window (channel 4)",
                                          "not read yet (waiting for the MCU): the left Crypt window"]


def test_mcu_outputs_go_through_the_link(rig: Callable[..., Rig]) -> None:
    r = rig()
    r.hub.set_output("eyes", 0.5)
    r.hub.set_output("eyes", True)
    r.hub.set_output("alarm", True)  # active low
    r.hub.set_output("alarm", False)
    assert r.link.outputs == [(1, 32768), (1, 65535), (0, 0), (0, 65535)]
    with pytest.raises(ValueError, match="output 'alarm' \\(buzzer\\) takes true or false, got 0.5"):
        r.hub.set_output("alarm", 0.5)
    with pytest.raises(ValueError, match="unknown output 'horn'"):
        r.hub.set_output("horn", True)
    assert len(r.link.outputs) == 4


def test_an_mcu_pattern_is_one_request_the_firmware_times(rig: Callable[..., Rig]) -> None:
    from hardware.patterns import Pattern

    r = rig()
    r.hub.play_pattern("eyes", Pattern("flicker", ms=1500, period_ms=120, level=0.5))
    assert r.link.patterns == [(1, 4, 1500, 120, 32768)] and r.link.outputs == []
    # wired active low, the firmware's "off" would be on: that output is stepped from the host instead
    r.hub.play_pattern("alarm", Pattern("on", ms=100))
    assert len(r.link.patterns) == 1
    assert rig_wait(lambda: r.link.outputs[-2:] == [(0, 0), (0, 65535)])


def rig_wait(cond: Callable[[], bool], timeout: float = 3.0) -> bool:
    done = threading.Event()
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        done.wait(0.005)
    return True


def test_close_closes_the_link(rig: Callable[..., Rig]) -> None:
    r = rig()
    r.hub.close()
    assert r.link.closed
    assert r.hub.health()["links"]["mcu"]["state"] in ("online", "offline")


def test_no_snapshot_in_time_leaves_mcu_sensors_unread_but_start_returns(recorder: Recorder) -> None:
    cfg = load_hardware_config({**MCU_CONFIG, "mcu": {"port": "fake://", "start_timeout_s": 0.05}})
    links: list[FakeLink] = []

    def factory(url: str, listener: Any, **kw: Any) -> FakeLink:
        links.append(FakeLink(url, listener, **kw))
        return links[-1]

    with SensorHub(cfg, on_observation=recorder, mcu_link_factory=factory) as hub:
        assert hub.snapshot() == {} and hub.health()["links"]["mcu"]["state"] == "offline"
        links[0].connect(dict(AT_REST), 10)
        assert recorder.wait_for(lambda items: len(items) == 3)
        assert all(o.initial for o in recorder.items)


# -- the clock mapping -------------------------------------------------------------


def test_mcu_clock_maps_with_the_least_delayed_sample() -> None:
    c = McuClock()
    assert c.to_host(1_000_000, 100.010) == pytest.approx(100.010)
    # a frame that spent less time in transit teaches a better offset
    assert c.to_host(1_100_000, 100.105) == pytest.approx(100.105)
    # a frame held up by 16 ms is mapped back to when it happened
    assert c.to_host(1_200_000, 100.221) == pytest.approx(100.205, abs=1e-4)


def test_mcu_clock_unwraps_32_bits_and_relearns_after_a_jump() -> None:
    c = McuClock()
    c.to_host(2**32 - 1_000, 50.0)
    assert c.to_host(1_000, 50.002) == pytest.approx(50.002)
    c.reset()
    assert c.to_host(5, 60.0) == 60.0
    assert c.to_host(10_000_000, 61.0) == pytest.approx(61.0)  # ran ahead: never later than receipt
    assert c.to_host(11, 62.0) == pytest.approx(62.0)  # jumped back: relearnt, not 10 s in the past


def test_a_tomb_wired_half_to_gpio_half_to_the_mcu(rig: Callable[..., Rig], recorder: Recorder,
                                                    factory: Any, tclock: TraceClock) -> None:
    cfg = load_hardware_config({**MCU_CONFIG, "sensors": {"tomb.wolf": {
        "end_a": {"source": "mcu", "channel": 0}, "middle": {"source": "mcu", "channel": 1},
        "end_b": {"pin": 6}, "settle_ms": 40}}, "outputs": {}})
    r = rig(cfg, pin_factory=factory)
    # known only once the MCU answered, then reported once, as one sensor
    assert [(o.sensor, o.value, o.initial) for o in recorder.items] == [("tomb.wolf", "end_a", True)]
    with tclock.at(time.monotonic()):
        r.link.listener.on_change(0, True, 6_000_000)  # leaves end_a (MCU)...
        factory.pin(6).drive_low()  # ...and arrives at end_b (GPIO)
    got = recorder.wait_count(1, "tomb.wolf")
    assert got[0].value == "end_b" and recorder.stays_at(1, 0.1)
    assert got[0].source == "gpio"  # the edge that completed the move
    r.link.listener.on_offline("unplugged")
    assert r.hub.sync() and r.hub.snapshot()["tomb.wolf"].online is False


def test_a_resync_snapshot_reports_a_hidden_change_as_a_debounced_change(
        rig: Callable[..., Rig], recorder: Recorder, tclock: TraceClock) -> None:
    """A damaged CHANGE frame makes the link fetch a snapshot while it stays online (no HELLO):
    the difference it shows is a real move, so the referee must get it as a change, not a reading."""
    r = rig()
    start = len(recorder.items)
    now = time.monotonic()
    with tclock.at(now):
        r.link.listener.on_snapshot({**AT_REST, 3: True}, 6_000_000)  # the launcher fired
    got = recorder.wait_count(1, "launcher")
    assert [(o.value, o.initial) for o in recorder.items[start:]] == [("launched", False)]
    assert got[0].settled - got[0].first_edge >= 0.020 - 1e-6  # it went through the launcher's window
    assert recorder.stays_at(1, 0.05)


def test_a_resync_snapshot_that_catches_a_bounce_invents_nothing(
        rig: Callable[..., Rig], recorder: Recorder, tclock: TraceClock) -> None:
    """The snapshot samples the raw level mid-bounce; the next CHANGE (2 ms later) puts it back."""
    r = rig()
    start = len(recorder.items)
    now = time.monotonic()
    with tclock.at(now):
        r.link.listener.on_snapshot({**AT_REST, 3: True}, 6_000_000)
    with tclock.at(now + 0.002):
        r.link.listener.on_change(3, False, 6_002_000)
    assert r.hub.sync()
    assert recorder.stays_at(0, 0.1)
    assert recorder.items[start:] == [] and r.hub.snapshot()["launcher"].value == "armed"


def test_an_output_the_board_lacks_is_a_problem_in_health(
        rig: Callable[..., Rig], health_log: HealthLog) -> None:
    class OneOutput(Hello):
        outputs = 1

    r = rig(on_health=health_log)
    r.link.connect(dict(AT_REST), 1_000, hello=OneOutput())
    assert health_log.wait_for(lambda h: h["links"]["mcu"]["snapshots"] == 2)
    assert r.hub.health()["links"]["mcu"]["problems"] == [
        "output eyes uses MCU output 1, but the board has only 1 outputs"]
    assert "output eyes uses MCU output 1, but the board has only 1 outputs" in r.hub.health()["warnings"]


def test_a_tomb_passing_the_middle_when_the_link_drops_is_not_reported_as_stopping_there(
        rig: Callable[..., Rig], recorder: Recorder, tclock: TraceClock) -> None:
    """The middle reed closed, then the cable came out before end_b's CHANGE could arrive:
    the tomb's settle time must not run out while nobody can see it moving on."""
    slow = {**MCU_CONFIG, "sensors": {**MCU_CONFIG["sensors"],
                                      "tomb.wolf": {**MCU_CONFIG["sensors"]["tomb.wolf"], "settle_ms": 300}}}
    r = rig(load_hardware_config(slow))
    start = len(recorder.items)
    t = 7_000_000
    now = time.monotonic()
    with tclock.at(now):
        r.link.listener.on_change(0, True, t)  # end_a opens
        r.link.listener.on_change(1, False, t + 20_000)  # the magnet passes the middle reed
    # the middle input settles (15 ms window), then the link is lost within the 300 ms settle time
    pause = threading.Event()
    deadline = time.monotonic() + 2.0
    while not r.hub.health()["sensors"]["tomb.wolf"]["inputs"]["middle"]["closed"]:
        assert time.monotonic() < deadline, "the middle input never settled"
        pause.wait(0.002)
    with tclock.at(now + 0.035):
        r.link.listener.on_offline("port lost: unplugged")
    assert recorder.stays_at(0, 0.45, "tomb.wolf")
    # back: the tomb is at end_b now, which is a reading, and "middle" was never claimed
    r.link.connect({**AT_REST, 0: True, 1: True, 2: False}, 100)
    assert recorder.wait_for(lambda items: any(o.sensor == "tomb.wolf" for o in items[start:]))
    assert [(o.value, o.initial) for o in recorder.items[start:] if o.sensor == "tomb.wolf"] == [("end_b", True)]


def test_changes_the_hub_cannot_use_are_counted_not_silently_dropped(
        rig: Callable[..., Rig], health_log: HealthLog) -> None:
    r = rig(on_health=health_log)
    r.link.listener.on_offline("heartbeat timeout")
    r.link.listener.on_change(3, True, 9_000_000)  # a frame that slipped in after the loss
    assert health_log.wait_for(lambda h: h["links"]["mcu"]["state"] == "offline")
    assert r.hub.sync()
    assert r.hub.health()["links"]["mcu"]["ignored_changes"] == 1
