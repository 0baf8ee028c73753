"""The hub against the real serial link and the virtual MCU (reference firmware on a pty)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from firmware_bridge.link import McuLink
from firmware_bridge.virtual_mcu import VirtualMcu
from hardware.config import load_hardware_config
from hardware.hub import SensorHub
from tests.hardware.support import HealthLog, Recorder

CONFIG: dict[str, Any] = {
    "pin_map": "none",
    "mcu": {"port": "unused-under-the-simulator", "start_timeout_s": 5},
    "sensors": {
        "tomb.mummy": {"end_a": {"source": "mcu", "channel": 0}, "middle": {"source": "mcu", "channel": 1},
                       "end_b": {"source": "mcu", "channel": 2}, "settle_ms": 80},
        "trap.ladder.peg_a": {"source": "mcu", "channel": 3},
        "launcher": {"pin": 13},  # a GPIO sensor alongside, on the simulator's mock pins
    },
}


def test_simulator_runs_mcu_sensors_on_a_virtual_mcu(recorder: Recorder) -> None:
    with SensorHub(load_hardware_config(CONFIG), on_observation=recorder, simulate=True) as hub:
        initial = {o.sensor: (o.value, o.source) for o in recorder.items}
        assert initial == {"tomb.mummy": ("end_a", "mcu"), "trap.ladder.peg_a": ("in", "mcu"),
                           "launcher": ("armed", "gpio")}
        health = hub.health()["links"]["mcu"]
        assert health["state"] == "online" and health["hello"]["board_id"] == "simulated"
        # The virtual MCU plays its bursts in real time on its own thread, so on a
        # badly stalled machine a burst can really be stretched past the window;
        # exactness is proven on mock pins and the pure engine, this proves the path.
        for sensor, value, bounce in (("trap.ladder.peg_a", "pulled", 8), ("tomb.mummy", "end_b", 5),
                                      ("launcher", "launched", 5)):
            hub.simulate(sensor, value, bounce_ms=bounce)
            assert recorder.wait_for(lambda items, s=sensor, v=value: hub.snapshot()[s].value == v
                                     and items[-1].sensor == s, timeout=3)
        peg = recorder.changes("trap.ladder.peg_a")
        assert peg[0].value == "pulled" and peg[0].source == "mcu" and peg[-1].value == "pulled"
        assert recorder.changes("launcher")[-1].source == "gpio"
        stats = hub.health()["sensors"]["trap.ladder.peg_a"]["inputs"]["input"]
        assert stats["edges"] >= 3 and stats["bounces"] >= 2  # the burst crossed the wire and was filtered


@pytest.fixture
def vmcu() -> Iterator[VirtualMcu]:
    mcu = VirtualMcu(8, heartbeat_interval=0.2)
    mcu.start()
    for ch in (0, 3):  # mummy at end_a, peg in (closed = low)
        mcu.set_channel(ch, False)
    yield mcu
    mcu.close()


def test_unplug_and_reset_report_real_differences_only(vmcu: VirtualMcu, recorder: Recorder,
                                                       health_log: HealthLog) -> None:
    cfg = load_hardware_config({**CONFIG, "sensors": {k: v for k, v in CONFIG["sensors"].items() if k != "launcher"}})

    def link(url: str, listener: Any, **kw: Any) -> McuLink:
        return McuLink(vmcu.path, listener, backoff=(0.02, 0.1), heartbeat_timeout=1.0, **kw)

    with SensorHub(cfg, on_observation=recorder, mcu_link_factory=link, on_health=health_log) as hub:
        assert {o.sensor: o.value for o in recorder.items} == {"tomb.mummy": "end_a", "trap.ladder.peg_a": "in"}
        vmcu.unplug()
        assert health_log.wait_for(lambda h: h["links"]["mcu"]["state"] == "offline", timeout=5)
        vmcu.set_channel(3, True)  # the peg is pulled while the cable is out
        vmcu.replug()
        assert recorder.wait_for(lambda items: len(items) == 3, timeout=5)
        assert recorder.items[2].sensor == "trap.ladder.peg_a" and recorder.items[2].value == "pulled"
        assert recorder.items[2].initial  # seen after the fact: a reading, not a timed change
        assert health_log.wait_for(lambda h: h["links"]["mcu"]["state"] == "online")
        # an MCU reset with nothing moved: a fresh snapshot, and no phantom change
        snapshots = hub.health()["links"]["mcu"]["snapshots"]
        vmcu.reset()
        assert health_log.wait_for(lambda h: h["links"]["mcu"]["snapshots"] > snapshots, timeout=5)
        assert recorder.stays_at(0, 0.2) and len(recorder.items) == 3
        # and live changes still flow after all that
        vmcu.bounce(0, True, duration_ms=6, edges=5)
        vmcu.bounce(1, False, duration_ms=6, edges=5)
        assert recorder.wait_for(lambda items: items[-1].sensor == "tomb.mummy" and items[-1].value == "middle",
                                 timeout=3)
        # one stop; a machine that stalls for more than the 80 ms settle time may also show the gap
        assert [o.value for o in recorder.changes("tomb.mummy")] in (["middle"], ["moving", "middle"])


def test_a_move_whose_change_frame_was_damaged_is_still_a_move(vmcu: VirtualMcu, recorder: Recorder) -> None:
    """Through the real link: the damaged CHANGE is recovered by a snapshot, and the referee
    must get it as a change of the peg, not as a start-up style reading it would only reconcile."""
    cfg = load_hardware_config({**CONFIG, "sensors": {k: v for k, v in CONFIG["sensors"].items() if k != "launcher"}})

    def link(url: str, listener: Any, **kw: Any) -> McuLink:
        return McuLink(vmcu.path, listener, backoff=(0.02, 0.1), heartbeat_timeout=1.0, **kw)

    with SensorHub(cfg, on_observation=recorder, mcu_link_factory=link) as hub:
        start = len(recorder.items)
        vmcu.corrupt_next(2)  # the peg's CHANGE is damaged on the line
        vmcu.set_channel(3, True)
        got = recorder.wait_count(1, "trap.ladder.peg_a", timeout=5)
        assert [(o.value, o.initial) for o in recorder.items[start:]] == [("pulled", False)]
        assert got[0].settled - got[0].first_edge >= 0.020 - 1e-6
        counters = hub.health()["links"]["mcu"]["counters"]
        assert counters["bad_frames"] >= 1 and counters["snapshots"] >= 2
