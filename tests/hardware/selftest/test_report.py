"""The report's JSON schema and text form, and the checks that need a hand-set board."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from hardware.config import load_hardware_config
from hardware.hub import SensorHub
from hardware.selftest.checks import Probe, check_impossible, check_wiring
from hardware.selftest.report import (
    SCHEMA,
    CheckResult,
    Report,
    Status,
    StepResult,
    StepStatus,
    validate_report,
)
from hardware.selftest.runner import run_hardware
from hardware.selftest.simboard import SimBoard
from tests.hardware.selftest.test_faults import GPIO_BOARD


def sample() -> dict[str, Any]:
    report = Report(guided=True)
    report.add(CheckResult("mcu.ping", "mcu", Status.WARN, "slow", {"p50_ms": 3.0}))
    report.add([CheckResult("data.dogs_tiles", "data", Status.PASS, "loads and validates")])
    report.steps.append(StepResult("launcher.launched", "Launch the ghost", StepStatus.PASS, "ok", "launcher",
                                   "launched", ("launcher",), (), 3, 1.5, 22.0))
    report.finished = report.started + 1
    return report.to_json()


def test_a_good_report_validates_and_has_the_documented_shape() -> None:
    data = sample()
    validate_report(data)
    assert data["schema"] == SCHEMA == "gravekeeper.selftest/1"
    assert data["ok"] is True
    assert data["summary"] == {"pass": 1, "warn": 1, "fail": 0, "skip": 0, "steps_pass": 1, "steps_fail": 0,
                               "steps_skipped": 0, "steps_timeout": 0}
    assert data["steps"][0] == {"id": "launcher.launched", "prompt": "Launch the ghost", "status": "pass",
                                "message": "ok", "sensor": "launcher", "expected": "launched",
                                "answered": ["launcher"], "crossed": [], "bounces": 3, "settle_ms": 1.5,
                                "latency_ms": 22.0}


@pytest.mark.parametrize(("mutate", "problem"), [
    (lambda d: d.update(schema="other/1"), "report.schema"),
    (lambda d: d.update(ok=False), "report.ok: disagrees"),
    (lambda d: d.pop("summary"), "report.summary"),
    (lambda d: d.update(finished="soon"), "report.finished"),
    (lambda d: d["checks"][0].update(status="meh"), r"report.checks\[0\].status: 'meh'"),
    (lambda d: d["checks"][1].pop("message"), r"report.checks\[1\].message"),
    (lambda d: d["steps"][0].update(bounces="3"), r"report.steps\[0\].bounces"),
    (lambda d: d["steps"][0].update(latency_ms="22"), r"report.steps\[0\].latency_ms"),
    (lambda d: d["steps"][0].update(status="timeout"), "report.ok: disagrees"),
    (lambda d: d.update(steps={}), "report.steps: must be a list"),
    (lambda d: d.update(running="yes"), "report.running"),
    (lambda d: d.update(current=[]), "report.current"),
    (lambda d: d["summary"].update(fail=2), "report.summary.fail: 2 disagrees with the checks and steps"),
    (lambda d: d["summary"].pop("steps_timeout"), "report.summary.steps_timeout: missing"),
    (lambda d: d["summary"].update(extra=1), "report.summary.extra: not a documented count"),
    (lambda d: d["steps"][0].update(bounces=True), r"report.steps\[0\].bounces"),
])
def test_schema_violations_are_named(mutate: Any, problem: str) -> None:
    data = copy.deepcopy(sample())
    mutate(data)
    with pytest.raises(ValueError, match=problem):
        validate_report(data)


def test_text_form_has_one_line_per_result_and_a_verdict() -> None:
    report = Report()
    report.add(CheckResult("broker.reachable", "broker", Status.FAIL, "no broker: nothing answers at 127.0.0.1:1"))
    report.steps.append(StepResult("tomb.wolf.end_b", "Slide", StepStatus.TIMEOUT, "nothing answered", "tomb.wolf",
                                   "end_b"))
    lines = report.to_text().splitlines()
    assert lines[0] == "[FAIL] broker.reachable: no broker: nothing answers at 127.0.0.1:1"
    assert lines[1] == "[TIMEOUT] step tomb.wolf.end_b: nothing answered"
    assert lines[2].startswith("FAILED: 0 passed, 0 warned, 1 failed") and "1 timed out" in lines[2]
    assert report.failed


@pytest.fixture
def board_hub() -> Iterator[tuple[SimBoard, Probe]]:
    config = load_hardware_config(GPIO_BOARD)
    board = SimBoard(config)
    probe = Probe()
    hub = SensorHub(config, on_observation=probe.observe, pin_factory=board.factory)
    hub.start()
    probe.hub = hub
    yield board, probe
    hub.close()
    board.close()


def test_sprung_trap_with_both_pegs_in_is_impossible(board_hub: tuple[SimBoard, Probe]) -> None:
    board, probe = board_hub
    config = board.config
    assert [c.id for c in check_impossible(config, probe)] == ["impossible.none"]
    mark = probe.mark()
    board.move("trap.ladder.sprung", "sprung")
    assert probe.wait(lambda items: any(o.sensor == "trap.ladder.sprung" for o, _ in items), 2.0, mark=mark)
    found = check_impossible(config, probe)
    assert [(c.id, c.status) for c in found] == [("impossible.trap.ladder", Status.FAIL)]
    assert "sprung with both pegs in" in found[0].message and "GPIO 24" in found[0].message
    # once a peg is out, a sprung trap is what a real board shows
    mark = probe.mark()
    board.move("trap.ladder.peg_b", "pulled")
    assert probe.wait(lambda items: any(o.sensor == "trap.ladder.peg_b" for o, _ in items), 2.0, mark=mark)
    assert [c.id for c in check_impossible(config, probe)] == ["impossible.none"]


def test_idle_check_warns_about_a_part_out_of_place(board_hub: tuple[SimBoard, Probe]) -> None:
    board, probe = board_hub
    mark = probe.mark()
    board.move("launcher", "launched")
    assert probe.wait(lambda items: any(o.sensor == "launcher" for o, _ in items), 2.0, mark=mark)
    idle = [c for c in check_wiring(board.config, probe) if c.group == "idle"]
    assert [(c.id, c.status) for c in idle] == [("idle.launcher", Status.WARN)]
    assert "launcher reads launched at rest (expected armed; GPIO 13 is high)" in idle[0].message


def test_wiring_check_flags_pulls_that_hide_a_cut_wire() -> None:
    config = load_hardware_config({"pin_map": "none", "sensors": {
        "launcher": {"pin": 13, "pull": "up", "active": "high"},
        "chute.left": {"pin": 17, "pull": "none", "active": "low"},
        "chute.right": {"pin": 22}}})
    checks, _ = run_hardware(config, simulate=True, quiet_s=0.1)
    wiring = {c.id: c for c in checks if c.group == "wiring"}
    assert set(wiring) == {"wiring.launcher", "wiring.chute.left"}
    assert "a cut wire would read as closed" in wiring["wiring.launcher"].message
    assert "no pull resistor" in wiring["wiring.chute.left"].message
    assert all(c.status is Status.WARN for c in wiring.values())


def test_sensors_that_cannot_be_opened_are_one_failed_check() -> None:
    class Broken:
        def __getattr__(self, name: str) -> Any:
            raise OSError("no GPIO chip here")

    config = load_hardware_config(GPIO_BOARD)
    checks, steps = run_hardware(config, pin_factory=Broken(), quiet_s=0.1)
    assert steps == []
    assert [(c.id, c.status) for c in checks] == [("hardware.open", Status.FAIL)]
    assert "cannot open the sensors" in checks[0].message


MCU_ONLY: dict[str, Any] = {
    "pin_map": "none",
    "sensors": {"launcher": {"source": "mcu", "channel": 0}, "chute.left": {"source": "mcu", "channel": 1}},
}


def test_real_path_against_a_virtual_mcu_on_its_serial_port() -> None:
    from firmware_bridge.virtual_mcu import VirtualMcu

    with VirtualMcu(8, board_id="bench") as mcu:
        mcu.set_channel(0, False)  # the ghost on its launcher: closed, pulled low
        mcu.set_channel(1, False)  # the beam reaches its receiver
        config = load_hardware_config({**MCU_ONLY, "mcu": {"port": str(mcu.path), "start_timeout_s": 3}})
        checks, steps = run_hardware(config, quiet_s=0.1)
    by_id = {c.id: c for c in checks}
    assert steps == []  # real hardware without --guided: nobody to move the parts
    assert all(c.status is Status.PASS for c in checks), [c for c in checks if c.status is not Status.PASS]
    assert "on board 'bench'" in by_id["mcu.handshake"].message
    assert by_id["mcu.ping"].data["lost"] == 0 and by_id["mcu.errors"].data["bad"] == 0


def test_an_mcu_port_that_cannot_be_opened_is_not_called_dead(tmp_path: Any) -> None:
    config = load_hardware_config({**MCU_ONLY, "mcu": {"port": str(tmp_path / "ttyNone"), "start_timeout_s": 0.3}})
    checks, _ = run_hardware(config, quiet_s=0.1)
    handshake = next(c for c in checks if c.id == "mcu.handshake")
    assert handshake.status is Status.FAIL and "cannot open the MCU's port" in handshake.message
    assert "ttyNone" in handshake.message and "dead MCU" not in handshake.message


def test_heartbeat_check_needs_a_heartbeat_not_just_any_frame() -> None:
    """A firmware that never sends HEARTBEAT, next to a chattering channel whose CHANGEs
    keep the line busy, must still fail mcu.heartbeat: on a quiet board the link would drop."""
    import threading as _threading

    from firmware_bridge.link import McuLink
    from firmware_bridge.virtual_mcu import VirtualMcu
    from hardware.selftest.mcu_checks import check_mcu
    from tests.firmware_bridge.recorder import Recorder as LinkRecorder

    config = load_hardware_config({"pin_map": "none", "mcu": {"port": "unused"},
                                   "sensors": {"launcher": {"source": "mcu", "channel": 0}}})

    class Hub:
        def health(self) -> dict[str, Any]:
            return {"links": {"mcu": {"state": "online", "hello": {}, "problems": []}}}

    stop = _threading.Event()
    with VirtualMcu(4, heartbeat_interval=3600.0) as mcu:
        def chatter() -> None:
            level = True
            while not stop.wait(0.05):
                level = not level
                mcu.set_channel(3, level)

        rec = LinkRecorder()
        with McuLink(mcu.path, rec, heartbeat_timeout=10.0) as link:
            assert rec.wait_count("snapshot", 1)
            worker = _threading.Thread(target=chatter, daemon=True)
            worker.start()
            try:
                busy = {c.id: c for c in check_mcu(config, Hub(), link)}
            finally:
                stop.set()
                worker.join(2.0)
            quiet = {c.id: c for c in check_mcu(config, Hub(), link)}
    # a busy line cannot show a heartbeat either way: said, not passed
    assert busy["mcu.heartbeat"].status is Status.WARN, busy["mcu.heartbeat"].message
    assert "never idle" in busy["mcu.heartbeat"].message
    assert quiet["mcu.heartbeat"].status is Status.FAIL, quiet["mcu.heartbeat"].message
    assert "does not send heartbeats" in quiet["mcu.heartbeat"].message
