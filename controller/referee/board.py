"""Comparing the sensed board with what the engine expects: pure functions, no clock.

Every sensor the referee knows falls in one of four groups:

* **at rest**: it shows what ``Game.expected_board()`` says (or the board says
  nothing about it);
* **accepted**: an expectation maps its value to an action (the rolled tomb
  reached a neighbouring position, a peg was pulled on the challenged trap);
* **in progress**: it belongs to a ``requires`` expectation that is not yet
  complete (a trap being reset, pegs in any order);
* **unexplained**: anything else, which becomes a mismatch.

Two accepted readings at once are ambiguous (both pegs pulled before either
was taken) and count as unexplained, so the referee never guesses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.games.base import Action, Expectation, Game
from controller.games.errors import IllegalAction

MAX_CATCH_UP = 4  # accepted steps one reading may explain (peg pulled, then trap sprung, ...)


@dataclass
class BoardCheck:
    expected: dict[str, str]
    unexplained: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # sensor -> (want, have)
    accepted: list[tuple[str, str, Action]] = field(default_factory=list)
    requires_met: Action | None = None
    ambiguous: list[str] = field(default_factory=list)  # accepted readings that arrived together

    @property
    def moving_only(self) -> bool:
        return bool(self.unexplained) and all(have == "moving" for _, have in self.unexplained.values())


def sensed(exp: Expectation, sensors: Mapping[str, str]) -> bool:
    """Whether any sensor of ``exp`` has ever reported; if none has (not wired), commands play it."""
    return any(s in sensors for s in exp.sensors())


def board_kinds(expectations: list[Expectation], sensors: Mapping[str, str]) -> set[str]:
    """Kinds of the actions the sensed board produces now: in sensors mode these are not commands."""
    kinds: set[str] = set()
    for exp in expectations:
        if not sensed(exp, sensors):
            continue
        for values in exp.accepts.values():
            kinds.update(a.kind for a in values.values())
        if exp.action is not None:
            kinds.add(exp.action.kind)
        if exp.on_timeout is not None:
            kinds.add(exp.on_timeout.kind)
    return kinds


def check_board(game: Game, sensors: Mapping[str, str], trigger: str | None) -> BoardCheck:
    """Sort every known sensor into at rest / accepted / in progress / unexplained.

    A sensor the resting board says nothing about (a chute beam) is only taken as
    accepted when it is the reading that just arrived (``trigger``), or in a full
    reconcile (``trigger is None``), so a stale value never fires an action.
    """
    expectations = game.expects()
    check = BoardCheck(expected=game.expected_board())
    in_progress: set[str] = set()
    for exp in expectations:
        in_progress.update(exp.requires)
    for sensor, have in sensors.items():
        want = check.expected.get(sensor)
        if have != want and (want is not None or trigger is None or sensor == trigger):
            action = next((a for e in expectations if (a := e.action_for(sensor, have)) is not None), None)
            if action is not None:
                check.accepted.append((sensor, have, action))
                continue
        if want is None or have == want or sensor in in_progress:
            continue
        check.unexplained[sensor] = (want, have)
    if len(check.accepted) > 1:
        for sensor, have, _ in check.accepted:
            check.unexplained[sensor] = (check.expected.get(sensor), have)
            check.ambiguous.append(sensor)
        check.accepted = []
    if not check.unexplained and not check.accepted:
        for exp in expectations:
            if exp.requires and exp.action is not None and all(sensors.get(s) == v for s, v in exp.requires.items()):
                check.requires_met = exp.action
                break
    return check


def is_foul(sensor: str, have: str, sensors: Mapping[str, str]) -> bool:
    """Readings that break a rule outright; they are never explained away by catching up."""
    if sensor == "launcher" and have == "launched":
        return True
    parts = sensor.split(".")
    if parts[0] == "trap" and len(parts) == 3 and parts[2] in ("peg_a", "peg_b") and have == "pulled":
        other = f"trap.{parts[1]}.{'peg_b' if parts[2] == 'peg_a' else 'peg_a'}"
        return sensors.get(other) == "pulled"
    return False


def explains(game: Game, action: Action, sensors: Mapping[str, str]) -> bool:
    """Would the game, once ``action`` is taken, agree with the board as it is? (an override)"""
    trial = type(game).from_json(game.to_json())  # a copy: the real game is untouched
    try:
        trial.apply(action)
    except IllegalAction:
        return False
    return not check_board(trial, sensors, "").unexplained


def catch_up_explains(game: Game, action: Action, sensors: Mapping[str, str], trigger: str | None) -> bool:
    """Would taking ``action`` (and what follows from it) explain the whole board?

    Sensors settle in any order: a trap's ``sprung`` may arrive before the pulled
    peg that fired it. Tried on a copy of the game, so the real one is untouched.
    """
    trial = type(game).from_json(game.to_json())
    for _ in range(MAX_CATCH_UP):
        try:
            trial.apply(action)
        except IllegalAction:
            return False
        check = check_board(trial, sensors, trigger)
        if not check.unexplained:
            return True
        if len(check.accepted) != 1:
            return False
        action = check.accepted[0][2]
    return False
