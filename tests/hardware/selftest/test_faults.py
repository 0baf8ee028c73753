"""The self-test on a simulated board: a clean board passes, each injected fault is found and named."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hardware.config import HardwareConfig, load_hardware_config
from hardware.selftest.faults import FaultError, parse_fault, parse_faults
from hardware.selftest.report import (
    CheckResult,
    Report,
    Status,
    StepResult,
    StepStatus,
    validate_report,
)
from hardware.selftest.runner import run_hardware

# A small board keeps the walk-through short: a tomb, a trap and the launcher on GPIO, a chute.
GPIO_BOARD: dict[str, Any] = {
    "pin_map": "none",
    "debounce": {"tomb_settle": 30},
    "sensors": {
        "tomb.wolf": {"end_a": {"pin": 11}, "middle": {"pin": 5}, "end_b": {"pin": 6}},
        "trap.ladder": {"peg_a": {"pin": 18}, "peg_b": {"pin": 23}, "sprung": {"pin": 24}},
        "launcher": {"pin": 13},
        "chute.left": {"pin": 17, "pull": "down", "active": "high"},
    },
}
# The same with a second trap on the MCU.
MCU_BOARD: dict[str, Any] = {
    **GPIO_BOARD,
    "mcu": {"port": "/dev/ttyGK-not-used", "start_timeout_s": 2},
    "sensors": {
        **GPIO_BOARD["sensors"],
        "trap.mirror": {"peg_a": {"source": "mcu", "channel": 0}, "peg_b": {"source": "mcu", "channel": 1},
                        "sprung": {"source": "mcu", "channel": 2}},
    },
}


SENSOR_ID = re.compile(r"\b(?:tomb|trap|chute)\.[a-z0-9_]+|\b(?:end_a|end_b|peg_a|peg_b|sprung\.)")


def run(board: dict[str, Any], *faults: str) -> tuple[HardwareConfig, Report]:
    config = load_hardware_config(board)
    checks, steps = run_hardware(config, simulate=True, faults=parse_faults(faults, config), quiet_s=0.3)
    report = Report(checks=checks, steps=steps)
    validate_report(report.to_json())
    # People read the messages (the CLI, the panel): the parts by name, never a sensor's id or an input's role.
    spoken = [f"{item.id}: {item.message}" for item in [*report.checks,
                                                        *report.steps] if SENSOR_ID.search(item.message)]
    assert not spoken, "\n".join(spoken)
    return config, report


def failed(report: Report) -> list[CheckResult | StepResult]:
    return [c for c in report.checks if c.status is Status.FAIL] + [
        s for s in report.steps if s.status in (StepStatus.FAIL, StepStatus.TIMEOUT)]


def test_clean_simulated_board_passes_every_check_and_step() -> None:
    config, report = run(MCU_BOARD)
    assert not report.failed, report.to_text()
    # a busy test machine may make one ping slow (a warning), but nothing else may warn and no ping is lost
    warned = [c for c in report.checks if c.status is Status.WARN]
    assert all(c.id == "mcu.ping" and c.data["lost"] == 0 for c in warned), report.to_text()
    ids = {c.id for c in report.checks}
    assert {"mcu.handshake", "mcu.heartbeat", "mcu.ping", "mcu.errors", "noise.quiet", "impossible.none"} <= ids
    assert {f"channel.{s}" for s in config.sensor_ids} <= ids
    # every moving part was walked through and answered, with its measurements
    assert len(report.steps) == 3 + 6 + 6 + 2 + 1
    assert all(s.status is StepStatus.PASS for s in report.steps)
    assert all(s.latency_ms is not None and s.settle_ms is not None for s in report.steps)
    assert any(s.bounces > 0 for s in report.steps)  # the simulated hand bounces its contacts
    assert report.to_json()["ok"] is True


def test_stuck_high_pin_is_named() -> None:
    _, report = run(GPIO_BOARD, "stuck_high:trap.ladder.peg_a")
    bad = failed(report)
    assert {b.id for b in bad} == {"trap.ladder.peg_a.pulled", "trap.ladder.peg_a.in"}
    assert all("stuck high" in b.message and "GPIO 18" in b.message for b in bad)
    idle = next(c for c in report.checks if c.id == "idle.trap.ladder.peg_a")
    assert idle.status is Status.WARN and "pulled at rest" in idle.message


def test_stuck_low_pin_is_named() -> None:
    _, report = run(GPIO_BOARD, "stuck_low:launcher")
    bad = failed(report)
    assert {b.id for b in bad} == {"launcher.launched", "launcher.armed"}
    assert all("stuck low" in b.message and "GPIO 13" in b.message for b in bad)


def test_stuck_low_tomb_reed_shows_two_positions_at_once() -> None:
    _, report = run(GPIO_BOARD, "stuck_low:tomb.wolf.end_b")
    impossible = next(c for c in report.checks if c.id == "impossible.tomb.wolf")
    assert impossible.status is Status.FAIL
    assert "two positions at once" in impossible.message and "its end B switch (GPIO 6)" in impossible.message


def test_chattering_pin_is_named_and_blamed_only_once() -> None:
    _, report = run(GPIO_BOARD, "chatter:trap.ladder.sprung")
    noise = next(c for c in report.checks if c.id == "noise.trap.ladder.sprung")
    assert noise.status is Status.FAIL and "chatters" in noise.message and "GPIO 24" in noise.message
    assert noise.data["edges"] >= 8 and noise.data["changes"] * 10 < noise.data["edges"]
    bad_steps = {s.id for s in report.steps if s.status is StepStatus.FAIL}
    # only the chattering part's own steps fail; the others are not blamed for its edges
    assert bad_steps == {"trap.ladder.sprung.sprung", "trap.ladder.sprung.cocked"}
    assert all("chatters" in s.message for s in report.steps if s.id in bad_steps)


def test_two_crossed_wires_are_named_as_crossed() -> None:
    _, report = run(GPIO_BOARD, "crossed:trap.ladder.peg_a,launcher")
    bad = {s.id: s for s in report.steps if s.status is StepStatus.FAIL}
    assert set(bad) == {"trap.ladder.peg_a.pulled", "trap.ladder.peg_a.in", "launcher.launched", "launcher.armed"}
    assert bad["trap.ladder.peg_a.pulled"].crossed == ("launcher",)
    assert bad["launcher.launched"].crossed == ("trap.ladder.peg_a",)
    assert all("crossed wires" in s.message for s in bad.values())


def test_crossed_reeds_of_one_tomb_are_named() -> None:
    _, report = run(GPIO_BOARD, "crossed:tomb.wolf.end_a,tomb.wolf.end_b")
    bad = {s.id: s for s in report.steps if s.status is StepStatus.FAIL}
    assert set(bad) == {"tomb.wolf.end_b", "tomb.wolf.end_a"}
    assert set(bad["tomb.wolf.end_b"].crossed) == {"tomb.wolf.end_a", "tomb.wolf.end_b"}
    assert "GPIO 6" in bad["tomb.wolf.end_b"].message and "GPIO 11" in bad["tomb.wolf.end_b"].message


def test_dead_mcu_is_named_and_its_inputs_unread() -> None:
    _, report = run(MCU_BOARD, "mcu:dead")
    by_id = {c.id: c for c in report.checks}
    assert by_id["mcu.handshake"].status is Status.FAIL and "dead MCU" in by_id["mcu.handshake"].message
    assert {by_id[k].status for k in ("mcu.heartbeat", "mcu.ping", "mcu.errors")} == {Status.SKIP}
    for part in ("peg_a", "peg_b", "sprung"):
        assert by_id[f"channel.trap.mirror.{part}"].status is Status.FAIL
    mirror_steps = [s for s in report.steps if s.sensor.startswith("trap.mirror.")]
    assert mirror_steps and all(s.status is StepStatus.FAIL and "not read" in s.message for s in mirror_steps)
    # the GPIO side is still tested and fine
    assert all(s.status is StepStatus.PASS for s in report.steps if not s.sensor.startswith("trap.mirror."))


def test_corrupting_serial_line_is_named() -> None:
    _, report = run(MCU_BOARD, "serial:corrupt")
    errors = next(c for c in report.checks if c.id == "mcu.errors")
    assert errors.status is Status.FAIL and "corrupting serial line" in errors.message
    assert 0.15 < errors.data["rate"] < 0.6 and errors.data["bad"] > 0
    assert next(c for c in report.checks if c.id == "mcu.handshake").status is Status.PASS


@pytest.mark.parametrize(("text", "problem"), [
    ("stuck_high", "expected KIND:TARGET"),
    ("melted:launcher", "unknown kind 'melted'"),
    ("stuck_low:tomb.wolf", "'tomb.wolf' is not a configured input"),
    ("crossed:launcher", "takes two inputs"),
    ("crossed:launcher,launcher", "crossed with itself"),
    ("mcu:asleep", "the target of mcu is dead"),
    ("serial:corrupt", "the config has no MCU"),
    ("broker:up", "the target of broker is down"),
])
def test_bad_fault_is_refused_with_its_reason(text: str, problem: str) -> None:
    with pytest.raises(FaultError, match=problem) as info:
        parse_fault(text, load_hardware_config(GPIO_BOARD))
    assert isinstance(info.value, ValueError)


def test_gpio_cannot_be_crossed_with_an_mcu_channel_and_one_input_takes_one_fault() -> None:
    config = load_hardware_config(MCU_BOARD)
    with pytest.raises(FaultError, match="GPIO wire cannot be crossed with an MCU channel"):
        parse_fault("crossed:launcher,trap.mirror.peg_a", config)
    with pytest.raises(FaultError, match="launcher already has the fault stuck_high:launcher"):
        parse_faults(["stuck_high:launcher", "chatter:launcher"], config)
    assert [f.text for f in parse_faults(["mcu:dead", "broker:down"], config)] == ["mcu:dead", "broker:down"]
