"""The guided walk-through on the simulated board: a person's moves, a skipped step, a timed-out step."""

from __future__ import annotations

import re
import threading
from typing import Any

from hardware.config import load_hardware_config
from hardware.selftest.checks import Probe
from hardware.selftest.guided import SimHand, Step, StepControl, plan_steps
from hardware.selftest.report import Report, StepStatus, validate_report
from hardware.selftest.runner import run_hardware
from hardware.selftest.simboard import SimBoard
from hardware.words import NAMES, TOMB_PLACES, part, reading, switch
from tests.hardware.selftest.test_faults import GPIO_BOARD


class ScriptedPerson:
    """Plays the person: moves each part with the simulator's hand, except where told otherwise."""

    def __init__(self, board: SimBoard, control: StepControl, *, idle: set[str], skip: set[str],
                 stop_at: str | None = None) -> None:
        self.hand = SimHand(board)
        self.control = control
        self.idle, self.skip, self.stop_at = idle, skip, stop_at
        self.asked: list[str] = []

    def act(self, step: Step, probe: Probe, mark: int) -> None:
        self.asked.append(step.id)
        if step.id == self.stop_at:
            self.control.stop()
        elif step.id in self.skip:
            self.control.skip()  # as the terminal or the panel would, from another thread
        elif step.id not in self.idle:
            # A person moves a moment after the prompt, on their own thread.
            threading.Thread(target=self.hand.act, args=(step, probe, mark)).start()


def test_plan_covers_every_moving_part_with_the_issue_prompts() -> None:
    config = load_hardware_config(None)
    prompts = [s.prompt for s in plan_steps(config)]
    # The parts by the names the table page, the referee's guidance and docs/wiring.md give them.
    for wanted in ("Slide the Wolf tomb to end B", "Slide the Wolf tomb back to end A", "Pull peg A of the Ladder trap",
                   "Spring the Mirror trap", "Launch the Headless Ghost"):
        assert wanted in prompts
    chute = load_hardware_config({"sensors": {"chute.left": {"pin": 2}}})
    assert "Drop a skull through the left Crypt window" in [s.prompt for s in plan_steps(chute)]
    # every tomb position, both pegs both ways, spring and cock: each input is asked to change
    assert len(prompts) == 3 * 3 + 4 * 6 + 2


def test_the_prompts_name_parts_and_places_as_every_other_message_does() -> None:
    """One vocabulary (hardware.words): "end A", "peg B", never a near or far end or a left or right peg,
    which name nothing on the table page, in the referee's guidance or in docs/wiring.md."""
    config = load_hardware_config({"sensors": {"chute.left": {"pin": 2}}})
    start = {"tomb.mummy": "end_a", "tomb.monster": "middle", "tomb.wolf": "end_b"}
    for step in plan_steps(config) + plan_steps(config, start):
        said = step.prompt.lower()
        assert not re.search(r"\b(?:near|far|nearer|farther)\b|\b(?:left|right) peg\b|\bchute\b", said), step.prompt
        assert not re.search(r"[a-z]+_[a-z]+|\w\.\w", step.prompt), step.prompt  # no id, no snake_case
        place = step.values[-1]
        if step.sensor.startswith("tomb."):
            assert step.prompt.endswith(" " + TOMB_PLACES[place]), step.prompt
            assert reading(place).endswith(TOMB_PLACES[place])  # the reading the step's result gives says the same
        if step.sensor.startswith("trap.") and not step.sensor.endswith(".sprung"):
            assert f"{switch(step.sensor.split('.')[2])} of the {NAMES[step.sensor.split('.')[1]]} trap" in step.prompt
        if step.sensor.startswith("chute."):
            assert part(step.sensor) in step.prompt


def test_guided_run_with_a_skipped_and_a_timed_out_step() -> None:
    config = load_hardware_config(GPIO_BOARD)
    control = StepControl.new()
    people: list[ScriptedPerson] = []
    progress: list[dict[str, Any]] = []

    def actor(board: SimBoard | None) -> ScriptedPerson:
        assert board is not None
        people.append(ScriptedPerson(board, control, idle={"tomb.wolf.middle"}, skip={"trap.ladder.sprung.sprung"}))
        return people[0]

    checks, steps = run_hardware(config, simulate=True, guided=True, step_timeout=1.0, quiet_s=0.2,
                                 actor=actor, control=control, on_progress=progress.append)
    by_id = {s.id: s for s in steps}
    assert people[0].asked == [s.id for s in plan_steps(config)]
    timed_out = by_id["tomb.wolf.middle"]
    assert timed_out.status is StepStatus.TIMEOUT and "nothing answered within 1 s" in timed_out.message
    assert by_id["trap.ladder.sprung.sprung"].status is StepStatus.SKIPPED
    # the trap was never sprung, so cocking it again changes nothing: a person would see it time out too
    assert by_id["trap.ladder.sprung.cocked"].status is StepStatus.TIMEOUT
    passed = [s for s in steps if s.status is StepStatus.PASS]
    assert {s.id for s in passed} == set(by_id) - {"tomb.wolf.middle", "trap.ladder.sprung.sprung",
                                                   "trap.ladder.sprung.cocked"}
    drop = by_id["chute.left.drop"]
    assert drop.answered == ("chute.left",) and drop.expected == "blocked"
    assert all(s.latency_ms is not None and s.latency_ms >= 0 for s in passed)

    # the progress display: each step announced with done/left, then its result
    starts = [p for p in progress if p["kind"] == "step"]
    assert [(p["done"], p["left"]) for p in starts] == [(i, len(steps) - i) for i in range(len(steps))]
    assert starts[0]["prompt"] == "Slide the Wolf tomb to the middle" and starts[0]["timeout_s"] == 1.0
    results = [p for p in progress if p["kind"] == "result"]
    assert [r["result"]["id"] for r in results] == [s.id for s in steps] and results[-1]["left"] == 0

    report = Report(checks=checks, steps=steps, guided=True)
    data = report.to_json()
    validate_report(data)
    assert data["ok"] is False and data["summary"]["steps_timeout"] == 2 and data["summary"]["steps_skipped"] == 1
    assert "1 skipped" in report.to_text().splitlines()[-1]


def test_stopping_the_walk_through_skips_the_rest() -> None:
    config = load_hardware_config(GPIO_BOARD)
    control = StepControl.new()

    def actor(board: SimBoard | None) -> ScriptedPerson:
        assert board is not None
        return ScriptedPerson(board, control, idle=set(), skip=set(), stop_at="trap.ladder.peg_a.pulled")

    _, steps = run_hardware(config, simulate=True, guided=True, step_timeout=1.0, quiet_s=0.2, actor=actor,
                            control=control)
    statuses = [(s.id, s.status) for s in steps]
    cut = [s.id for s in steps].index("trap.ladder.peg_a.pulled")
    assert all(status is StepStatus.PASS for _, status in statuses[:cut])
    assert all(status is StepStatus.SKIPPED for _, status in statuses[cut:])
    assert steps[-1].message == "not run: the walk-through was stopped"
