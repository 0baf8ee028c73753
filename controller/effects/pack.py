"""Effects packs: TOML rules that turn a game's events into cues (sound, speech, light, vibration, animation).

A pack is one TOML file of ``[[rule]]`` tables::

    [[rule]]
    name = "the ghost flies"          # shown in errors and in the effects topic
    when = "skull_hit"                # an event type (docs/effects.md lists them)
    where = { hit = true }            # optional: each field must equal the event's ("*": be present)
    cues = [
      { sound = "ghost" },
      { say = "{player} destroyed the Headless Ghost!" },
      { light = "crypt", pattern = "flicker", ms = 3000 },
      { vibrate = "all", ms = [200, 100, 200] },
      { animate = "ghost_fly" },
    ]

Loading checks every rule and cue and raises :class:`BadPack`, whose one-line
message names the file, the rule and the key, so an owner editing a copy finds
the mistake at once. Parsing is pure: no I/O beyond reading the file, no
threads; :mod:`controller.effects.engine` matches events against a pack.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.games.datafile import read_text
from gravekeeper.errors import GravekeeperError

PACKS_DIR = Path(__file__).with_name("packs")
MAX_RULES = 500
MAX_CUES = 16
MAX_MS = 60_000

# Sounds the panel synthesises itself (web_panel/static/effects.js): nothing recorded ships.
SOUNDS = frozenset({
    "roll", "slide", "fall", "spell", "cure", "drop", "ghost", "fanfare", "peg", "zap", "sneak",
    "whammy", "charm", "home", "bork", "attack", "haunt", "rise", "scores", "turn", "alarm", "clear",
    "tick", "card",
})
ANIMATIONS = frozenset({"dice", "tomb_slide", "pawn_fall", "trap_spring", "ghost_fly", "spell", "bork",
                        "haunt", "rise", "confetti"})
PATTERNS = frozenset({"on", "off", "blink", "pulse", "flicker"})
VIBRATE_WHO = frozenset({"player", "all"})
CUE_KINDS = ("sound", "say", "light", "vibrate", "animate")
# The words a spoken line may use; engine.py fills each from the event in plain words.
SAY_FIELDS = frozenset({
    "player", "pawn", "tomb", "position", "trap", "peg", "whammy", "charm", "card", "spook", "other",
    "winners", "scores", "sensor", "what", "number", "game",
})
# keys a cue of each kind may carry, besides its kind
_CUE_KEYS: dict[str, frozenset[str]] = {
    "sound": frozenset({"volume"}),
    "say": frozenset(),
    "light": frozenset({"pattern", "ms", "period_ms", "level"}),
    "vibrate": frozenset({"ms"}),
    "animate": frozenset(),
}
ANY = "*"  # in ``where``: the field is present, whatever its value
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_RULE_KEYS = frozenset({"name", "when", "where", "cues"})


class BadPack(GravekeeperError, ValueError):
    """An effects pack that cannot be used; the message names the file, the rule and the key."""


@dataclass(frozen=True)
class Cue:
    """One thing to play. ``kind`` is one of :data:`CUE_KINDS`; ``args`` its checked settings."""

    kind: str
    value: Any
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, **self.args}


@dataclass(frozen=True)
class Rule:
    name: str
    when: str
    where: Mapping[str, Any]
    cues: tuple[Cue, ...]

    def matches(self, event_type: str, data: Mapping[str, Any]) -> bool:
        return event_type == self.when and all(
            data.get(k) is not None if v == ANY else data.get(k) == v for k, v in self.where.items())


@dataclass(frozen=True)
class Pack:
    source: str
    rules: tuple[Rule, ...]

    def rules_for(self, event_type: str, data: Mapping[str, Any]) -> list[Rule]:
        return [r for r in self.rules if r.matches(event_type, data)]

    @property
    def outputs(self) -> frozenset[str]:
        """Every output name a light cue of this pack drives."""
        return frozenset(c.value for r in self.rules for c in r.cues if c.kind == "light")


def default_pack_path(game: str) -> Path:
    return PACKS_DIR / f"{game}.toml"


def load_pack(path: str | Path) -> Pack:
    """Read and check a pack file; :class:`BadPack` names what is wrong."""
    label = str(path)
    try:
        text = read_text(Path(path), "effects pack")
    except ValueError as exc:
        raise BadPack(str(exc)) from None
    return parse_pack(text, label)


def parse_pack(text: str, source: str = "<pack>") -> Pack:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadPack(f"effects pack {source}: not valid TOML: {exc}") from None
    extra = set(data) - {"rule"}
    if extra:
        raise BadPack(f"effects pack {source}: unknown top-level key {min(extra)!r} (a pack holds [[rule]] tables)")
    rules = data.get("rule", [])
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise BadPack(f"effects pack {source}: 'rule' must be an array of tables ([[rule]])")
    if len(rules) > MAX_RULES:
        raise BadPack(f"effects pack {source}: {len(rules)} rules, at most {MAX_RULES}")
    out: list[Rule] = []
    names: set[str] = set()
    for i, raw in enumerate(rules, start=1):
        rule = _rule(raw, f"effects pack {source}: rule {i}")
        if rule.name in names:
            raise BadPack(f"effects pack {source}: rule {i} ({rule.name!r}): name: used by an earlier rule")
        names.add(rule.name)
        out.append(rule)
    return Pack(source, tuple(out))


def _rule(raw: Mapping[str, Any], where: str) -> Rule:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise BadPack(f"{where}: name: must be a short text")
    where = f"{where} ({name!r})"
    extra = set(raw) - _RULE_KEYS
    if extra:
        raise BadPack(f"{where}: unknown key {min(extra)!r} (a rule has name, when, where, cues)")
    when = raw.get("when")
    if not isinstance(when, str) or not _NAME.match(when):
        raise BadPack(f"{where}: when: must be an event type such as \"pawn_fell\", got {when!r}")
    cond = raw.get("where", {})
    if not isinstance(cond, dict):
        raise BadPack(f"{where}: where: must be a table of field = value")
    for key, value in cond.items():
        if not isinstance(value, (str, int, float, bool)):
            raise BadPack(f"{where}: where.{key}: must be a text, number or true/false")
    cues = raw.get("cues")
    if not isinstance(cues, list) or not cues:
        raise BadPack(f"{where}: cues: must be a non-empty array of cues")
    if len(cues) > MAX_CUES:
        raise BadPack(f"{where}: cues: {len(cues)} cues, at most {MAX_CUES}")
    return Rule(name.strip(), when, dict(cond), tuple(_cue(c, f"{where}: cues[{j}]") for j, c in enumerate(cues)))


def _cue(raw: Any, where: str) -> Cue:
    if not isinstance(raw, dict):
        raise BadPack(f"{where}: must be a table such as {{ sound = \"roll\" }}")
    kinds = [k for k in CUE_KINDS if k in raw]
    if len(kinds) != 1:
        raise BadPack(f"{where}: must have exactly one of {', '.join(CUE_KINDS)}")
    kind = kinds[0]
    extra = set(raw) - {kind} - _CUE_KEYS[kind]
    if extra:
        allowed = ", ".join(sorted(_CUE_KEYS[kind])) or "nothing else"
        raise BadPack(f"{where}: {kind}: unknown key {min(extra)!r} (a {kind} cue takes {allowed})")
    value = raw[kind]
    args: dict[str, Any] = {}
    if kind == "sound":
        _choice(value, SOUNDS, f"{where}.sound")
        if "volume" in raw:
            args["volume"] = _number(raw["volume"], 0.0, 1.0, f"{where}.volume")
    elif kind == "say":
        _template(value, f"{where}.say")
    elif kind == "light":
        if not isinstance(value, str) or not _NAME.match(value):
            raise BadPack(f"{where}.light: must be an output name from [hardware.outputs], got {value!r}")
        pattern = raw.get("pattern", "blink")
        _choice(pattern, PATTERNS, f"{where}.pattern")
        args["pattern"] = pattern
        if pattern != "off":
            args["ms"] = _int(raw.get("ms", 1000), 1, MAX_MS, f"{where}.ms")
        if pattern in ("blink", "pulse", "flicker"):
            default_period = {"blink": 400, "pulse": 1000, "flicker": 120}[pattern]
            args["period_ms"] = _int(raw.get("period_ms", default_period), 20, 10_000, f"{where}.period_ms")
        if "level" in raw:
            args["level"] = _number(raw["level"], 0.0, 1.0, f"{where}.level")
    elif kind == "vibrate":
        _choice(value, VIBRATE_WHO, f"{where}.vibrate")
        ms = raw.get("ms", 200)
        steps = ms if isinstance(ms, list) else [ms]
        if not steps or len(steps) > 10:
            raise BadPack(f"{where}.ms: one to ten durations")
        args["ms"] = [_int(s, 1, 5000, f"{where}.ms") for s in steps]
    else:  # animate
        _choice(value, ANIMATIONS, f"{where}.animate")
    return Cue(kind, value, args)


def _choice(value: Any, choices: frozenset[str], where: str) -> None:
    if value not in choices:
        raise BadPack(f"{where}: {value!r} is not one of {', '.join(sorted(choices))}")


def _int(value: Any, lo: int, hi: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadPack(f"{where}: must be a whole number of milliseconds from {lo} to {hi}, got {value!r}")
    return value


def _number(value: Any, lo: float, hi: float, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise BadPack(f"{where}: must be a number from {lo:g} to {hi:g}, got {value!r}")
    return float(value)


def _template(value: Any, where: str) -> None:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise BadPack(f"{where}: must be a short text")
    try:
        fields = [f for _, f, spec, conv in string.Formatter().parse(value) if f is not None]
    except ValueError as exc:
        raise BadPack(f"{where}: {exc} (write {{{{ and }}}} for a brace)") from None
    for name in fields:
        if name not in SAY_FIELDS:
            words = ", ".join("{" + f + "}" for f in sorted(SAY_FIELDS))
            raise BadPack(f"{where}: unknown word {{{name}}} (use {words})")


