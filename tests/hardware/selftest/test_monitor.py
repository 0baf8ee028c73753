"""The live health monitor, fed with hand-made health readings (no threads, no clock)."""

from __future__ import annotations

from typing import Any

import pytest

from hardware.selftest.monitor import FAILURE, WARNING, HealthMonitor


def reading(value: str | None = "in", *, edges: int = 0, changes: int = 0, observations: int = 0,
            online: bool = True, wire: str = "GPIO 18", bounces: int = 0) -> dict[str, Any]:
    return {"value": value, "online": online, "observations": observations,
            "inputs": {"input": {"wire": wire, "closed": True, "edges": edges, "changes": changes,
                                 "bounces": bounces}}}


def test_quiet_board_has_no_findings_and_reports_counters() -> None:
    mon = HealthMonitor()
    for t in range(5):
        assert mon.update(float(t), {"trap.ladder.peg_a": reading(edges=2, changes=1, bounces=1)}) == []
    assert mon.active == []
    live = mon.sensors_json({"trap.ladder.peg_a": reading(edges=2, changes=1, bounces=1)})
    assert live == {"trap.ladder.peg_a": {"last_change": None, "last_seen": 4.0, "edges": 2, "bounces": 1}}


def test_chatter_is_a_warning_then_a_failure_on_a_sensor_the_game_waits_for() -> None:
    mon = HealthMonitor(window_s=2.0, chatter_edges=12, fail_after_s=3.0)
    sid = "trap.ladder.peg_a"
    assert mon.update(0.0, {sid: reading(edges=0)}, waiting=[sid]) == []
    new = mon.update(1.0, {sid: reading(edges=30)}, waiting=[sid])
    assert [(f.level, f.code, f.sensor) for f in new] == [(WARNING, "chatter", sid)]
    assert "chatters: 30 edges" in new[0].message and "GPIO 18" in new[0].guidance
    assert mon.update(2.0, {sid: reading(edges=60)}, waiting=[sid]) == []  # still the same warning
    new = mon.update(3.5, {sid: reading(edges=90)}, waiting=[sid])
    assert [(f.level, f.code) for f in new] == [(FAILURE, "chatter")]
    assert mon.failures and mon.failures[0].sensor == sid
    # the contact settles: edges stop, the finding clears
    mon.update(4.0, {sid: reading(edges=90)}, waiting=[sid])
    mon.update(6.5, {sid: reading(edges=90)}, waiting=[sid])
    assert mon.active == []


def test_many_edges_that_settle_are_not_chatter() -> None:
    mon = HealthMonitor(chatter_edges=12)
    mon.update(0.0, {"launcher": reading("armed", edges=0)})
    # a part moved four times, each with a few bounces: busy, not chattering
    assert mon.update(1.0, {"launcher": reading("armed", edges=20, changes=4, observations=4)}) == []
    # a chattering contact that a stall let settle once is still chatter
    new = mon.update(2.0, {"launcher": reading("armed", edges=60, changes=5, observations=5)})
    assert [f.code for f in new] == ["chatter"]


def test_flapping_sensor_is_a_warning() -> None:
    mon = HealthMonitor(window_s=2.0, flap_changes=4)
    values = ["armed", "launched"] * 3
    new: list[Any] = []
    for i, value in enumerate(values):
        new += mon.update(i * 0.3, {"launcher": reading(value, edges=i, changes=i, observations=i)})
    assert [(f.code, f.level) for f in new] == [("flapping", WARNING)]
    assert "changed 4 times" in new[0].message or "changed 5 times" in new[0].message


def test_stuck_sensor_the_game_says_moved() -> None:
    mon = HealthMonitor(stuck_after_s=5.0)
    sid = "tomb.wolf"
    at_a = reading("end_a", edges=3, wire="GPIO 11")
    # the game starts expecting end_a: no finding, even though nothing moves
    for t in (0.0, 10.0):
        assert mon.update(t, {sid: at_a}, expected={sid: "end_a"}) == []
    # the game says the Wolf tomb moved to end_b; the sensor never changes
    assert mon.update(11.0, {sid: at_a}, expected={sid: "end_b"}) == []
    assert mon.update(15.0, {sid: at_a}, expected={sid: "end_b"}) == []
    new = mon.update(16.5, {sid: at_a}, expected={sid: "end_b"})
    assert [(f.code, f.level) for f in new] == [("stuck", WARNING)]
    assert "the game says the Wolf tomb is now at end B, but its sensor still says at end A" in new[0].message
    assert "GPIO 11" in new[0].guidance
    # once the part moves the warning is gone
    mon.update(17.0, {sid: reading("end_b", edges=5, observations=1)}, expected={sid: "end_b"})
    assert mon.active == []


def test_a_part_being_moved_is_not_stuck() -> None:
    mon = HealthMonitor(stuck_after_s=2.0)
    sid = "tomb.wolf"
    mon.update(0.0, {sid: reading("end_a", edges=0)}, expected={sid: "end_a"})
    mon.update(1.0, {sid: reading("end_a", edges=0)}, expected={sid: "end_b"})
    assert mon.update(5.0, {sid: reading("moving", edges=1)}, expected={sid: "end_b"}) == []


def test_offline_sensor_the_game_needs_becomes_a_failure() -> None:
    mon = HealthMonitor(fail_after_s=3.0)
    sid = "trap.mirror.sprung"
    new = mon.update(0.0, {sid: reading("cocked", online=False)}, expected={sid: "cocked"})
    assert [(f.code, f.level) for f in new] == [("offline", WARNING)]
    new = mon.update(3.0, {sid: reading("cocked", online=False)}, expected={sid: "cocked"})
    assert [(f.code, f.level) for f in new] == [("offline", FAILURE)]
    assert "MCU" in new[0].guidance
    # an offline sensor no game needs is not a finding
    other = HealthMonitor()
    assert other.update(0.0, {sid: reading(None, online=False)}) == []
    # back online: cleared
    mon.update(4.0, {sid: reading("cocked")}, expected={sid: "cocked"})
    assert mon.active == []


@pytest.mark.parametrize("kwargs", [{"window_s": 0}, {"chatter_edges": 1}, {"stuck_after_s": -1}])
def test_bad_thresholds_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="thresholds"):
        HealthMonitor(**kwargs)


def test_unplugged_mcu_read_from_a_real_hub_becomes_a_failure() -> None:
    import threading

    from firmware_bridge.virtual_mcu import VirtualMcu
    from hardware.config import load_hardware_config
    from hardware.hub import SensorHub

    with VirtualMcu(4) as mcu:
        mcu.set_channel(0, False)  # the ghost on its launcher
        config = load_hardware_config({"pin_map": "none", "mcu": {"port": str(mcu.path), "start_timeout_s": 3},
                                       "sensors": {"launcher": {"source": "mcu", "channel": 0}}})
        offline = threading.Event()
        with SensorHub(config, on_observation=lambda obs: None,
                       on_health=lambda h: offline.set() if h["links"]["mcu"]["state"] == "offline" else None) as hub:
            mon = HealthMonitor(fail_after_s=5.0)
            expected = {"launcher": "armed"}
            assert mon.update(0.0, hub.health()["sensors"], expected=expected) == []
            mcu.unplug()
            assert offline.wait(5.0), "the hub did not notice the unplugged MCU"
            sensors = hub.health()["sensors"]
            assert sensors["launcher"]["online"] is False
            assert [(f.code, f.level) for f in mon.update(1.0, sensors, expected=expected)] == [("offline", WARNING)]
            assert [(f.code, f.level) for f in mon.update(6.0, sensors, expected=expected)] == [("offline", FAILURE)]
