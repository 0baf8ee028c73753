"""The hardware half of a self-test run: open the sensors (or the simulated board), check, walk through.

:func:`automatic_checks` works on any started hub (the CLI's own, or the
running service's); :func:`run_hardware` opens a hub of its own for the CLI.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import GPIOZeroError

from hardware.config import HardwareConfig
from hardware.hub import HardwareError, SensorHub
from hardware.selftest.checks import (
    Probe,
    check_channels,
    check_impossible,
    check_noise,
    check_wiring,
    quiet_counts,
)
from hardware.selftest.faults import Fault
from hardware.selftest.guided import (
    Actor,
    Person,
    Progress,
    SimHand,
    StepControl,
    plan_steps,
    run_steps,
    wait_idle,
)
from hardware.selftest.mcu_checks import check_mcu
from hardware.selftest.report import CheckResult, Status, StepResult
from hardware.selftest.simboard import SimBoard

QUIET_S = 0.5
ActorFactory = Callable[[SimBoard | None], Actor]


def automatic_checks(config: HardwareConfig, probe: Probe, link: Any, *, quiet_s: float = QUIET_S,
                     on_check: Callable[[CheckResult], None] | None = None) -> list[CheckResult]:
    """Every automatic hardware check, in the documented order."""
    results: list[CheckResult] = []

    def add(items: Sequence[CheckResult]) -> None:
        results.extend(items)
        for item in items:
            if on_check is not None:
                on_check(item)

    add(check_channels(config, probe))
    add(check_wiring(config, probe))
    add(check_impossible(config, probe))
    before = probe.inputs()
    started = time.monotonic()
    mcu = check_mcu(config, probe.hub, link)  # the MCU's sample doubles as the quiet window
    wait_idle(probe, quiet_s - (time.monotonic() - started))
    window = time.monotonic() - started
    add(check_noise(config, quiet_counts(probe, before), window))
    add(mcu)
    return results


def sim_step_timeout(config: HardwareConfig) -> float:
    """A simulated hand answers at once: a step only waits out its windows, with margin for a busy machine."""
    slowest = max((max(s.window, s.settle) for s in config.sensors), default=0.0)
    return max(1.0, slowest * 2 + 0.6)


def run_hardware(config: HardwareConfig, *, simulate: bool = False, faults: Sequence[Fault] = (),
                 guided: bool = False, step_timeout: float = 20.0, quiet_s: float = QUIET_S,
                 actor: ActorFactory | None = None, control: StepControl | None = None,
                 on_progress: Progress | None = None, on_check: Callable[[CheckResult], None] | None = None,
                 pin_factory: Any = None) -> tuple[list[CheckResult], list[StepResult]]:
    """Open the sensors, run the automatic checks, then the walk-through.

    On a simulated board without ``guided`` the simulator's hand does every
    step, so wiring faults show up without a person; with ``guided`` the
    ``actor`` (default: a person) does.
    """
    try:
        board = SimBoard(config, faults) if simulate else None
    except (OSError, RuntimeError, TimeoutError) as exc:  # no pseudo-terminal left, a virtual MCU that hung
        failed = CheckResult("hardware.open", "hardware", Status.FAIL, f"cannot build the simulated board: {exc}")
        if on_check is not None:
            on_check(failed)
        return [failed], []
    probe = Probe()
    links: list[Any] = []

    def link_factory(port: str, listener: Any, *, baudrate: int = 115200) -> Any:
        if board is not None:
            link = board.link_factory(port, listener, baudrate=baudrate)
        else:
            from firmware_bridge.link import McuLink

            link = McuLink(port, listener, baudrate=baudrate)
        links.append(link)
        return link

    hub: SensorHub | None = None
    try:
        try:
            hub = SensorHub(config, on_observation=probe.observe,
                            pin_factory=board.factory if board is not None else pin_factory,
                            mcu_link_factory=link_factory)
            hub.start()
        except (HardwareError, GPIOZeroError, OSError) as exc:
            hub = None
            hint = "" if "--simulate" in str(exc) else (
                " (if `gravekeeper run` is using them, use the panel's self-test page or the selftest command)")
            failed = CheckResult("hardware.open", "hardware", Status.FAIL, f"cannot open the sensors: {exc}{hint}")
            if on_check is not None:
                on_check(failed)
            return [failed], []
        probe.hub = hub
        if board is not None:
            board.start_chatter()
        checks = automatic_checks(config, probe, links[0] if links else None, quiet_s=quiet_s, on_check=on_check)
        steps: list[StepResult] = []
        plan = plan_steps(config, {sensor: state.value for sensor, state in hub.snapshot().items()})
        noisy = frozenset(c.id.removeprefix("noise.") for c in checks if c.group == "noise" and c.status is Status.FAIL)
        if guided:
            who = actor(board) if actor is not None else Person()
            steps = run_steps(config, probe, plan, who, timeout=step_timeout, control=control,
                              on_progress=on_progress, person=True, noisy=noisy)
        elif board is not None:
            who = actor(board) if actor is not None else SimHand(board)
            steps = run_steps(config, probe, plan, who, timeout=sim_step_timeout(config), control=control,
                              on_progress=on_progress, person=False, noisy=noisy)
        return checks, steps
    finally:
        if hub is not None:
            hub.close()
        if board is not None:
            board.close()
