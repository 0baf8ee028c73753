"""The guided walk-through: every moving part, one step at a time, each with a timeout.

A step asks for one movement ("Pull peg A of the Ladder trap", in the words of
``hardware.words``, which the table page and docs/wiring.md share) and then watches
every input: the right sensor must reach the asked value, and no other part
may answer (parts of the same trap may, since pulling the live peg springs
it). A wrong answer is named as crossed wires; no answer is diagnosed from
the input's level (stuck high, stuck low) or its edges (chatter).

Who moves the part is an *actor*: a person at the board (the actor does
nothing, the prompt is shown through ``on_progress``), or the simulator's
hand (:class:`SimHand`) for ``--simulate`` runs and tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hardware.config import HardwareConfig, SensorSpec
from hardware.observation import Observation
from hardware.selftest.checks import Probe
from hardware.selftest.report import StepResult, StepStatus
from hardware.sensors import BINARY_VALUES, closed_for
from hardware.words import NAMES, TOMB_PLACES, capital, part, parts, reading, switch

WRONG_ANSWER_GRACE_S = 1.0  # after a wrong part answered, how long the right one still has
LINGER_S = 0.1  # after the right answer, watch this long more for a second (crossed) answer


@dataclass(frozen=True)
class Step:
    id: str
    prompt: str
    sensor: str
    values: tuple[str, ...]  # what the sensor must report, in order
    allowed: tuple[str, ...] = ()  # other sensors that may move with it


class Actor(Protocol):
    def act(self, step: Step, probe: Probe, mark: int) -> None: ...


class Person:
    """The person at the board does the moving; nothing to do here."""

    def act(self, step: Step, probe: Probe, mark: int) -> None:
        return None


class SimHand:
    """The simulator moves each part as asked, with a little contact bounce."""

    def __init__(self, board: Any, bounces: int = 2) -> None:
        self.board = board
        self.bounces = bounces

    def act(self, step: Step, probe: Probe, mark: int) -> None:
        for i, value in enumerate(step.values):
            self.board.move(step.sensor, value, bounces=self.bounces)
            if i + 1 < len(step.values):  # a skull passes the beam: wait until it was seen, then it falls on
                probe.wait(reported(step.sensor, value), 1.0, mark=mark)


def reported(sensor: str, value: str) -> Callable[[list[tuple[Observation, float]]], bool]:
    """A probe condition: ``sensor`` was reported at ``value``.

    A function of its own, so a hand's loop hands each value over as it is then, not as the loop ends.
    """
    return lambda items: any(o.sensor == sensor and o.value == value for o, _ in items)


def plan_steps(config: HardwareConfig, start: Mapping[str, str] | None = None) -> list[Step]:
    """The walk-through for the configured sensors, in board order.

    Each part goes away from where it is (``start``: sensor -> value, default
    a board at rest) and back, so every input is asked to change both ways
    and the board ends as it began.
    """
    start = start or {}
    steps: list[Step] = []
    for sensor in config.sensors:
        parts = sensor.id.split(".")
        sid = sensor.id
        if sensor.kind == "tomb":
            here = start.get(sid, "end_a")
            here = here if here in TOMB_PLACES else "end_a"
            order = [p for p in ("end_a", "middle", "end_b") if p != here]
            if here == "end_a":
                order = ["middle", "end_b"]
            for place in (*order, here):
                verb = "back to" if place == here else "to"
                steps.append(Step(f"{sid}.{place}", f"Slide {part(sid)} {verb} {TOMB_PLACES[place]}",
                                  sid, (place,)))
        elif sensor.kind == "chute":
            steps.append(Step(f"{sid}.drop", f"Drop a skull through {part(sid)}", sid, ("blocked", "clear")))
        else:
            on, off = BINARY_VALUES[sensor.kind]
            away = off if start.get(sid, on) == on else on
            allowed = tuple(s.id for s in config.sensors if sensor.kind in ("peg", "sprung") and s.id != sid
                            and s.id.startswith(f"trap.{parts[1]}."))
            for value in (away, on if away == off else off):
                steps.append(Step(f"{sid}.{value}", _prompt(sensor.kind, parts, value), sid, (value,), allowed))
    return steps


def _prompt(kind: str, parts: list[str], value: str) -> str:
    if kind == "launcher":
        return "Launch the Headless Ghost" if value == "launched" else "Put the Headless Ghost back on its launcher"
    name = NAMES[parts[1]]
    if kind == "sprung":
        return f"Spring the {name} trap" if value == "sprung" else f"Cock the {name} trap again, both pegs in"
    # As the referee's guidance says it ("Push peg A of the Ladder trap back in."), and the page ("Ladder, peg A").
    peg = f"{switch(parts[2])} of the {name} trap"
    if value == "pulled":
        return f"Pull {peg}"
    return f"Push {peg} back in (cock the trap again if it sprang)"


@dataclass
class StepControl:
    """Lets another thread (the terminal, the panel) skip the current step or stop the walk-through."""

    skip_event: threading.Event
    stop_event: threading.Event

    @classmethod
    def new(cls) -> StepControl:
        return cls(threading.Event(), threading.Event())

    def skip(self) -> None:
        self.skip_event.set()

    def stop(self) -> None:
        self.stop_event.set()
        self.skip_event.set()


Progress = Callable[[dict[str, Any]], None]


def run_steps(config: HardwareConfig, probe: Probe, steps: Sequence[Step], actor: Actor, *, timeout: float,
              control: StepControl | None = None, on_progress: Progress | None = None,
              person: bool = True, noisy: frozenset[str] = frozenset()) -> list[StepResult]:
    """Run each step in turn; ``person`` says whether silence is a timeout (a person) or a failure."""
    control = control or StepControl.new()
    results: list[StepResult] = []
    total = len(steps)
    for index, step in enumerate(steps):
        if control.stop_event.is_set():
            result = _result(step, StepStatus.SKIPPED, "not run: the walk-through was stopped")
        else:
            control.skip_event.clear()
            if on_progress is not None:
                on_progress({"kind": "step", "index": index, "total": total, "done": index, "left": total - index,
                             "id": step.id, "prompt": step.prompt, "timeout_s": timeout})
            result = run_step(config, probe, step, actor, timeout=timeout, skip=control.skip_event, person=person,
                              noisy=noisy)
        results.append(result)
        if on_progress is not None:
            on_progress({"kind": "result", "index": index, "total": total, "done": index + 1,
                         "left": total - index - 1, "result": result.to_json()})
    return results


def _result(step: Step, status: StepStatus, message: str, **kw: Any) -> StepResult:
    return StepResult(step.id, step.prompt, status, message, step.sensor, step.values[0], **kw)


def _label(sensor: SensorSpec, role: str) -> str:
    return sensor.id if role == "input" else f"{sensor.id}.{role}"


def run_step(config: HardwareConfig, probe: Probe, step: Step, actor: Actor, *, timeout: float,
             skip: threading.Event | None = None, person: bool = True,
             noisy: frozenset[str] = frozenset()) -> StepResult:
    """One step; ``noisy`` inputs (already failed as chattering) are not taken for a second answer."""
    spec = config.sensor(step.sensor)
    state = probe.hub.snapshot().get(step.sensor)
    if state is None or not state.online:
        return _result(step, StepStatus.FAIL, f"cannot test: {part(step.sensor)} is not read "
                       f"({', '.join(s.describe() for _, s in spec.inputs)}; is the MCU answering?)")
    if skip is not None and skip.is_set():
        return _result(step, StepStatus.SKIPPED, "skipped")  # before anyone was asked to move
    noisy_here = sorted(_label(spec, role) for role, _ in spec.inputs if _label(spec, role) in noisy)
    if noisy_here:
        return _result(step, StepStatus.FAIL, f"cannot be trusted: {parts(noisy_here)} "
                       f"{'chatters' if len(noisy_here) == 1 else 'chatter'} (see the quiet-window check)")
    before = probe.inputs()
    mark = probe.mark()
    started = probe.clock()
    target = step.values[-1]

    def reached(items: list[tuple[Observation, float]]) -> bool:
        seen = [o.value for o, _ in items if o.sensor == step.sensor]
        it = iter(seen)
        return all(any(v == want for v in it) for want in step.values)  # the values, in order

    noisy_sensors = {s.id for s in config.sensors if any(_label(s, role) in noisy for role, _ in s.inputs)}

    def foreign(items: list[tuple[Observation, float]]) -> list[tuple[Observation, float]]:
        return [(o, t) for o, t in items
                if o.sensor != step.sensor and o.sensor not in step.allowed and o.sensor not in noisy_sensors]

    def answer_or_news(had_wrong: bool) -> Callable[[list[tuple[Observation, float]]], bool]:
        """The answer, or a change in whether a wrong part answered (its grace starts)."""
        return lambda items: reached(items) or bool(foreign(items)) != had_wrong

    actor.act(step, probe, mark)
    cancel = skip or threading.Event()
    deadline = started + timeout
    grace = min(WRONG_ANSWER_GRACE_S, timeout / 3)
    done = False
    while True:
        left = deadline - probe.clock()
        wrong = foreign(probe.since(mark))
        if wrong:
            left = min(left, wrong[0][1] + grace - probe.clock())
        if left <= 0 or cancel.is_set():
            break
        # Wake for the answer, for a wrong answer (its grace starts), or for a skip.
        if probe.wait(answer_or_news(bool(wrong)), left, mark=mark, cancel=cancel) and reached(probe.since(mark)):
            done = True
            break
    if done:
        probe.wait(lambda items: False, LINGER_S, mark=mark, cancel=cancel)
    items = probe.since(mark)
    after = probe.inputs()
    mine = {_label(spec, role) for role, _ in spec.inputs}
    allowed = {label for label in after if any(label == s or label.startswith(f"{s}.") for s in step.allowed)}
    moved = {label: int(after[label].get("edges", 0)) - int(before.get(label, {}).get("edges", 0)) for label in after}
    others = sorted(label for label, n in moved.items()
                    if n > 0 and label not in mine and label not in allowed and label not in noisy)
    others_settled = sorted({o.sensor for o, _ in foreign(items)})
    wires = {label: after[label].get("wire", "?") for label in after}
    crossed = tuple(sorted(set(others) | {w for w in others_settled if w in after}))
    bounces = sum(int(after[label].get("bounces", 0)) - int(before.get(label, {}).get("bounces", 0))
                  for label in mine if label in after)
    if done:
        obs, got = next((o, t) for o, t in items if o.sensor == step.sensor and o.value == step.values[0])
        hold = spec.settle if spec.kind == "tomb" else spec.window
        settle_ms = max(0.0, (obs.settled - obs.first_edge - hold) * 1000.0)
        latency_ms = max(0.0, (got - obs.first_edge) * 1000.0)
        answered = tuple(sorted({step.sensor, *(o.sensor for o, _ in items)}))
        if crossed:
            names = ", ".join(f"{part(c)} ({wires.get(c, '?')})" for c in crossed)
            return _result(step, StepStatus.FAIL,
                           f"{capital(part(step.sensor))} answered, but so did {names}: crossed or shorted wires",
                           answered=answered, crossed=crossed, bounces=bounces, settle_ms=settle_ms,
                           latency_ms=latency_ms)
        readings = " then ".join(reading(v) for v in step.values)
        return _result(step, StepStatus.PASS, f"{capital(part(step.sensor))} answered: {readings}",
                       answered=answered, bounces=bounces, settle_ms=settle_ms, latency_ms=latency_ms)
    # Not answered: a part of the same trap that moved instead is a crossed wire too.
    crossed = tuple(sorted(set(crossed) | {label for label in allowed if moved.get(label, 0) > 0}))
    answered = tuple(sorted({o.sensor for o, _ in items} | set(crossed)))
    wrong_place = [o.value for o, _ in items if o.sensor == step.sensor and o.value in dict(spec.inputs)
                   and o.value != target and o.value != state.value]
    if spec.kind == "tomb" and wrong_place and not crossed:
        pair = (f"{step.sensor}.{target}", f"{step.sensor}.{wrong_place[0]}")
        return _result(step, StepStatus.FAIL,
                       f"crossed wires: asked for {part(step.sensor)} {reading(target)}, "
                       f"but it was {reading(wrong_place[0])}: "
                       f"the wires of {part(pair[0])} ({wires.get(pair[0], '?')}) "
                       f"and {part(pair[1])} ({wires.get(pair[1], '?')}) are crossed",
                       answered=answered, crossed=pair, bounces=bounces)
    if crossed:
        names = " and ".join(f"{part(c)} ({wires.get(c, '?')})" for c in crossed)
        expect = ", ".join(f"{part(label)} ({wires.get(label, '?')})" for label in sorted(mine))
        return _result(step, StepStatus.FAIL, f"crossed wires: asked for {part(step.sensor)}, but {names} answered "
                       f"instead of {expect}", answered=answered, crossed=crossed, bounces=bounces)
    if skip is not None and skip.is_set():
        return _result(step, StepStatus.SKIPPED, "skipped", answered=answered, bounces=bounces)
    why = _silence(spec, probe, after, before, target, state.value)
    if person:
        # A person may simply not have moved the part in time: the wiring diagnosis is conditional.
        return _result(step, StepStatus.TIMEOUT, f"nothing answered within {timeout:g} s; if the part was "
                       f"moved: {why}",
                       answered=answered, bounces=bounces)
    return _result(step, StepStatus.FAIL, why, answered=answered, bounces=bounces)


def _silence(spec: SensorSpec, probe: Probe, after: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]],
             target: str, start_value: str) -> str:
    """Why the asked part did not answer, from its inputs' levels and edges."""
    roles = [role for role, _ in spec.inputs]
    want = closed_for(spec.kind, target, roles, {})
    reasons = []
    for role, input_spec in spec.inputs:
        label = _label(spec, role)
        data = after.get(label, {})
        edges = int(data.get("edges", 0)) - int(before.get(label, {}).get("edges", 0))
        changes = int(data.get("changes", 0)) - int(before.get(label, {}).get("changes", 0))
        closed, was = data.get("closed"), before.get(label, {}).get("closed")
        if closed is None:
            reasons.append(f"{part(label)} ({input_spec.describe()}) is not read")
        elif edges >= 4 and changes == 0:
            reasons.append(f"{part(label)} ({input_spec.describe()}) chatters: {edges} edges, never settled")
        elif edges == 0 and (bool(was) != want[role] or start_value == target):
            level = "high" if bool(closed) == input_spec.active_high else "low"
            cause = "a cut wire or a pin stuck high" if level == "high" else "a pin stuck low (shorted to ground?)"
            already = f"was already {reading(target)} before the step and " if start_value == target else ""
            reasons.append(f"{part(label)} ({input_spec.describe()}) {already}never changed: it stays {level}, "
                           f"stuck {level}? ({cause})")
    if not reasons:
        reasons.append(f"{part(spec.id)} is still {reading(start_value)}")
    return "; ".join(reasons)


def wait_idle(probe: Probe, seconds: float) -> None:
    """Let the board be still for ``seconds`` (the quiet window), without a bare sleep."""
    end = time.monotonic() + seconds
    pause = threading.Event()
    while (left := end - time.monotonic()) > 0:
        pause.wait(left)
