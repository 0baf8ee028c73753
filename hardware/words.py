"""The board's parts and their readings as a person says them, for messages people read.

Sensor ids (``tomb.mummy``) and input labels (``tomb.mummy.end_a``) stay in the
JSON for machines; the self-test's messages, the monitor's findings and the
hub's warnings name the part ("the Mummy tomb's end A switch") and its reading
("at end B"). The panel labels the same parts in its tables with
``words_places.js`` (``sensorName``, ``sensorValue``: "Ladder, peg A", "at end B").
"""

from __future__ import annotations

# The named parts as a person calls them (the guided self-test's prompts use them too).
NAMES = {"mummy": "Mummy", "monster": "Monster", "wolf": "Wolf", "ladder": "Ladder", "mirror": "Mirror",
         "grave1": "first Grave", "grave2": "second Grave"}
_TRAPS = {k: NAMES[k] for k in ("ladder", "mirror", "grave1", "grave2")}
_TOMBS = {k: NAMES[k] for k in ("mummy", "monster", "wolf")}
# A tomb's three stops, as the table page, the referee's guidance and docs/wiring.md name them; the
# switches, the readings and the guided prompts ("Slide the Wolf tomb to end B") are all built from it.
TOMB_PLACES = {"end_a": "end A", "middle": "the middle", "end_b": "end B"}
_TRAP_PARTS = {"peg_a": "peg A", "peg_b": "peg B", "sprung": "spring switch"}
_TOMB_SWITCHES = {k: f"{v.removeprefix('the ')} switch" for k, v in TOMB_PLACES.items()}
_VALUES = {
    **{k: f"{'in' if k == 'middle' else 'at'} {v}" for k, v in TOMB_PLACES.items()},
    "moving": "between positions", "fault": "at two positions at once",
    "armed": "armed", "launched": "launched", "clear": "clear", "blocked": "blocked",
    "in": "in", "pulled": "pulled", "cocked": "cocked", "sprung": "sprung",
}


def part(label: str) -> str:
    """A sensor, or one input of a sensor, with its article: "the Ladder trap's peg A".

    An id outside the board's vocabulary (a config typo reported back) is named as given,
    with its dots and underscores as spaces, so a message never fails on it.
    """
    p = label.split(".")
    if p[0] == "tomb" and len(p) >= 2 and p[1] in _TOMBS:
        tomb = f"the {_TOMBS[p[1]]} tomb"
        if len(p) == 2:
            return tomb
        if len(p) == 3 and p[2] in _TOMB_SWITCHES:
            return f"{tomb}'s {_TOMB_SWITCHES[p[2]]}"
    if p[0] == "trap" and len(p) == 3 and p[1] in _TRAPS and p[2] in _TRAP_PARTS:
        return f"the {_TRAPS[p[1]]} trap's {_TRAP_PARTS[p[2]]}"
    if p[0] == "trap" and len(p) == 2 and p[1] in _TRAPS:
        return f"the {_TRAPS[p[1]]} trap"
    if label == "launcher":
        return "the Ghost launcher"
    if p[0] == "chute" and len(p) == 2 and p[1] in ("left", "right"):
        return f"the {p[1]} Crypt window"  # the rulebook's name, which the referee's guidance uses too
    return label.replace(".", " ").replace("_", " ")


def switch(role: str) -> str:
    """One input of a sensor by its role, for "its end A switch"."""
    return _TOMB_SWITCHES.get(role) or _TRAP_PARTS.get(role) or role.replace("_", " ")


def parts(labels: list[str] | tuple[str, ...]) -> str:
    """Several parts in one phrase: "A", "A and B", "A, B and C" (as ``controller.games.words.listed``,
    which the sensor layer may not import)."""
    named = [part(label) for label in labels] or ["nothing"]
    return ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]


def reading(value: str) -> str:
    """A sensor's value as a person says it: "at end B", "pulled"."""
    return _VALUES.get(value, value.replace("_", " "))


def capital(text: str) -> str:
    """``text`` with its first letter upper case, to open a sentence."""
    return text[:1].upper() + text[1:]
