"""What is wrong with the board and how to fix it, in words a player understands.

Each unexplained sensor becomes a :class:`Problem` (a code, a sentence saying
what happened, a sentence saying what to do). The most serious problem gives
the mismatch its code; the sentences of all of them are joined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.games.base import Expectation
from hardware.words import TOMB_PLACES, part, reading

# A tomb's stops in the words the self-test and the table page use (hardware.words.TOMB_PLACES).
_AT = {place: reading(place) for place in TOMB_PLACES}
_TO = {place: f"to {words}" for place, words in TOMB_PLACES.items()}
_TRAP = {"ladder": "Ladder", "mirror": "Mirror", "grave1": "first Grave", "grave2": "second Grave"}

# lower ranks are reported first
_RANK = {
    "both_pegs": 0,
    "foul_launch": 0,
    "wrong_tomb": 1,
    "tomb_not_rolled": 1,
    "tomb_two_positions": 1,
    "wrong_trap": 1,
    "ambiguous": 1,
    "peg_pulled": 2,
    "trap_sprung": 2,
    "chute_blocked": 3,
    "sensor_fault": 3,
    "board": 4,
    "setup": 4,
    "tomb_moving": 5,
}


@dataclass(frozen=True)
class Problem:
    code: str
    what: str
    fix: str


def _tomb(sensor: str) -> str:
    return sensor.split(".")[1].capitalize()


def _peg(sensor: str) -> str:
    return "A" if sensor.endswith("peg_a") else "B"


def _trap(sensor: str) -> str:
    name = sensor.split(".")[1]
    return _TRAP.get(name, name.capitalize())


def _accepted_values(sensor: str, expectations: list[Expectation]) -> list[str]:
    return [v for e in expectations for v in e.accepts.get(sensor, {})]


def label(sensor: str) -> str:
    """A sensor's name for people."""
    parts = sensor.split(".")
    if parts[0] == "tomb" and len(parts) == 2:
        return f"the {_tomb(sensor)} tomb"
    if parts[0] == "trap" and len(parts) == 3:
        if parts[2] == "sprung":
            return f"the {_trap(sensor)} trap"
        return f"peg {_peg(sensor)} of the {_trap(sensor)} trap"
    if sensor == "launcher":
        return "the Headless Ghost's launcher"
    if parts[0] == "chute" and len(parts) == 2:
        return part(sensor)  # one name for the Crypt's windows everywhere (hardware.words)
    return sensor


def _tomb_problem(sensor: str, want: str | None, have: str, expectations: list[Expectation]) -> Problem:
    name = _tomb(sensor)
    accepted = _accepted_values(sensor, expectations)
    if have == "moving":
        targets = " or ".join(_TO.get(v, v) for v in (accepted or [want or "middle"]))
        return Problem(
            "tomb_moving", f"The {name} tomb is between positions.", f"Slide the {name} tomb fully {targets}."
        )
    if have == "fault":
        return Problem(
            "sensor_fault",
            f"The {name} tomb's sensors report two positions at once.",
            f"Check the {name} tomb's position sensors.",
        )
    back = _AT.get(want or "", "where it was")
    if accepted:
        one = " or ".join(_TO.get(v, v) for v in accepted)
        fix = f"Slide the {name} tomb back {_TO[want]}, or" if want in _TO else f"Slide the {name} tomb"
        return Problem("tomb_two_positions", f"The {name} tomb moved two positions.",
                       f"{fix} one position only: {one}.")
    rolled = sorted({_tomb(s) for e in expectations for s in e.accepts if s.startswith("tomb.")})
    if rolled:
        only = " or the ".join(rolled)
        return Problem(
            "wrong_tomb",
            f"The {name} tomb moved, but the {only} was rolled.",
            f"Put the {name} tomb back {back}: only the {only} was rolled.",
        )
    return Problem(
        "tomb_not_rolled",
        f"The {name} tomb moved, but no tomb move is due.",
        f"Put the {name} tomb back {back}: a tomb moves only after a roll.",
    )


def _trap_problem(
    sensor: str, want: str | None, have: str, sensors: Mapping[str, str], expectations: list[Expectation]
) -> Problem:
    trap = _trap(sensor)
    if sensor.endswith(".sprung"):
        if have == "sprung":
            return Problem(
                "trap_sprung",
                f"The {trap} trap went off, but nobody was challenging it.",
                f"Re-cock the {trap} trap: pull its slide back and put both pegs in.",
            )
        # "Leave it as it was" would not say how to get back there: it has already been changed.
        return Problem(
            "board",
            f"The {trap} trap was re-cocked too early.",
            f"Set the {trap} trap off again: it stays sprung until the game asks for it to be reset.",
        )
    peg = _peg(sensor)
    if have == "pulled":
        other = sensor[:-1] + ("b" if sensor.endswith("a") else "a")
        if sensors.get(other) == "pulled":
            return Problem(
                "both_pegs",
                f"Both pegs of the {trap} trap were pulled: that is a foul.",
                f"Push peg {peg} of the {trap} trap back in.",
            )
        challenged = sorted(
            {_trap(s) for e in expectations for s in e.accepts if s.startswith("trap.") and not s.endswith("sprung")}
        )
        if challenged and trap not in challenged:
            return Problem(
                "wrong_trap",
                f"A peg of the {trap} trap was pulled, but the challenge is at the {' or '.join(challenged)} trap.",
                f"Push peg {peg} of the {trap} trap back in.",
            )
        return Problem(
            "peg_pulled",
            f"Peg {peg} of the {trap} trap was pulled, but nobody is challenging it.",
            f"Push peg {peg} of the {trap} trap back in.",
        )
    return Problem(
        "board",
        f"Peg {peg} of the {trap} trap was pushed back in too early.",
        f"Pull peg {peg} of the {trap} trap out again.",
    )


def _setup_problem(sensor: str, want: str | None, have: str) -> Problem:
    """Before the first move, a difference is a board not yet set up, not a wrong move."""
    what = "The board is not set up for the game yet."
    if have in ("moving", "fault") or want is None:
        return problem_for(sensor, want, have, {}, [])
    if sensor.startswith("tomb."):
        return Problem("setup", what, f"Slide the {_tomb(sensor)} tomb {_TO.get(want, want)}.")
    if sensor == "launcher" and want == "armed":
        return Problem("setup", what, "Put the Headless Ghost on its launcher.")
    if sensor.startswith("trap.") and want in ("in", "cocked"):
        if sensor.endswith(".sprung"):
            return Problem("setup", what, f"Cock the {_trap(sensor)} trap.")
        return Problem("setup", what, f"Push peg {_peg(sensor)} of the {_trap(sensor)} trap in.")
    return Problem("setup", what, f"Set {label(sensor)} to {want}.")


def problem_for(
    sensor: str, want: str | None, have: str, sensors: Mapping[str, str], expectations: list[Expectation]
) -> Problem:
    if sensor.startswith("tomb."):
        return _tomb_problem(sensor, want, have, expectations)
    if sensor.startswith("trap."):
        return _trap_problem(sensor, want, have, sensors, expectations)
    if sensor == "launcher" and have == "launched":
        return Problem(
            "foul_launch",
            "The Headless Ghost was launched with no skull attempt: that is a foul.",
            "Put the Headless Ghost back on its launcher.",
        )
    if sensor.startswith("chute.") and have == "blocked":
        return Problem(
            "chute_blocked",
            f"Something blocks {part(sensor)}.",
            f"Take the skull out of {part(sensor)}.",
        )
    if want is None:
        return Problem(
            "board", f"{label(sensor).capitalize()} changed when nothing was expected.", "Undo that change."
        )
    return Problem(
        "board",
        f"{label(sensor).capitalize()} shows {have}, but the game expects {want}.",
        f"Set {label(sensor)} back to {want}.",
    )


def describe(
    unexplained: Mapping[str, tuple[str | None, str]],
    sensors: Mapping[str, str],
    expectations: list[Expectation],
    *,
    setup: bool = False,
    ambiguous: Sequence[str] = (),
) -> dict[str, Any]:
    """The mismatch as published: ``{"code", "message", "guidance", "sensors"}``.

    ``setup``: the board has not matched this game yet, so it is being set up.
    ``ambiguous``: sensors that each show an outcome the game accepts, at once.
    """
    found = [
        _setup_problem(s, want, have) if setup else problem_for(s, want, have, sensors, expectations)
        for s, (want, have) in sorted(unexplained.items())
        if s not in ambiguous
    ]
    if ambiguous:
        names = " and ".join(f"{label(s)} ({unexplained[s][1]})" for s in sorted(ambiguous))
        found.append(
            Problem(
                "ambiguous",
                f"The board shows two outcomes at once: {names}.",
                "Undo the one that did not happen, or send the one that did as a command.",
            )
        )
    problems = sorted(found, key=lambda p: _RANK.get(p.code, 4))
    return {
        "code": problems[0].code,
        "message": " ".join(dict.fromkeys(p.what for p in problems)),
        "guidance": " ".join(dict.fromkeys(p.fix for p in problems)),
        "sensors": {s: {"expected": want, "actual": have} for s, (want, have) in sorted(unexplained.items())},
    }
