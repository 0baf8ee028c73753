"""The Superstition board as data: load, validate and index it.

The rulebook gives no layout, so the default board in
``data/board.json`` is a reconstruction (drawn in
``docs/rules/superstition.md``). Owners may edit a copy to match their own
printing and pass it as ``options={"board": path}``; every mistake is reported
as :class:`BadGameData` naming the entry, because a silently wrong board would
referee a game wrongly.

Shape of the file::

    spaces        id -> {"kind": brick|stone|circle|platform|tomb_side, "x": n, "y": n}
    brick_path    the outer ring of brick spaces, in clockwise order
    gate          the brick space next to the start circles
    stone_path    the inner ring of stone spaces, in clockwise order
    start_circles colour -> circle space
    platforms     ladder|mirror -> {"kind": "ladder_mirror", "space", "brick_entrance", "stone_exit"}
                  grave1|grave2 -> {"kind": "grave", "space", "front", "tomb_side"}
    tomb          {"x", "y", "width", "height"}: where to draw the Wizard's Tomb
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..datafile import read_json
from ..errors import BadGameData
from ..words import cap

DEFAULT_BOARD_PATH = Path(__file__).with_name("data") / "board.json"

SPACE_KINDS = ("brick", "stone", "circle", "platform", "tomb_side")
LADDER_MIRROR = ("ladder", "mirror")
GRAVES = ("grave1", "grave2")
TRAPS = LADDER_MIRROR + GRAVES
TRAP_NAMES = {"ladder": "Ladder", "mirror": "Mirror", "grave1": "first Grave", "grave2": "second Grave"}
MIN_PATH = 9  # spaces on each path for a new board; see ring() below
# What the loader took before that minimum: a saved game or a journal's game on such a board still
# loads and replays (a table must start again after an update), though no new game may use one.
LEGACY_MIN_PATH = 4
_TOP_KEYS = {"spaces", "brick_path", "gate", "stone_path", "start_circles", "platforms", "tomb"}
_OPTIONAL_TOP_KEYS = {"name", "notes"}


@dataclass(frozen=True)
class Platform:
    """A Superstition trap's platform and the spaces that lead to it.

    For the Ladder and Mirror, ``brick`` is the entrance space on the brick path
    and ``stone`` the space on the stone path where a pawn steps off. For a
    Grave, ``stone`` is the space in front of it and ``tomb_side`` the space
    between it and the Wizard's Tomb.
    """

    trap: str
    kind: str
    space: str
    stone: str
    brick: str | None = None
    tomb_side: str | None = None


@dataclass(frozen=True)
class Board:
    raw: dict[str, Any]
    spaces: dict[str, tuple[str, float, float]]
    brick: tuple[str, ...]
    stone: tuple[str, ...]
    gate: str
    circles: dict[str, str]
    platforms: dict[str, Platform]

    @property
    def colours(self) -> list[str]:
        """The start colours in seat order: the circles as drawn, left to right (then top to bottom).

        Not the file's key order: a board sent inside a new game's options is signed, and so
        journalled, with its keys sorted, and the seats must get the same colours either way.
        """
        return sorted(self.circles, key=lambda c: (self.spaces[self.circles[c]][1], self.spaces[self.circles[c]][2], c))

    def ring(self, name: str) -> tuple[str, ...]:
        return self.brick if name == "brick" else self.stone

    def kind(self, space: str) -> str:
        return self.spaces[space][0]

    def path_spaces(self) -> tuple[str, ...]:
        """Spaces a Whammy may stand on: every brick and stone path space."""
        return self.brick + self.stone

    def platform_at(self, space: str) -> Platform | None:
        for platform in self.platforms.values():
            if platform.space == space:
                return platform
        return None

    def geometry(self) -> dict[str, Any]:
        """What a panel needs to draw the board (coordinates for an SVG)."""
        return {
            "name": self.raw.get("name", ""),
            "spaces": {sid: {"kind": k, "x": x, "y": y} for sid, (k, x, y) in self.spaces.items()},
            "brick_path": list(self.brick),
            "stone_path": list(self.stone),
            "gate": self.gate,
            "start_circles": dict(self.circles),
            "platforms": {t: dict(self.raw["platforms"][t]) for t in TRAPS},
            "tomb": dict(self.raw["tomb"]),
        }


def load_board(source: str | Path | None = None) -> Board:
    """Read and validate a board file (the default board when ``source`` is None)."""
    path = Path(source) if source is not None else DEFAULT_BOARD_PATH
    return parse_board(read_json(path, "board file"), where=f"board file {str(path)!r}")


def parse_board(data: Any, where: str = "board", *, min_path: int = MIN_PATH) -> Board:
    """Validate board JSON; :class:`BadGameData` names the first bad entry.

    ``min_path``: the fewest spaces a path may have; ``LEGACY_MIN_PATH`` for a board a game
    already played on (a saved state, a journal), :data:`MIN_PATH` for every new one.
    """

    def bad(entry: str, problem: str, reason: str) -> BadGameData:
        # The entry, as the editor names its fields: platforms['ladder'].front -> platforms.ladder.front.
        # ``reason`` is the same in a person's words: spaces by their number on the path, never their ids.
        return BadGameData(f"{where}: {entry} {problem}", reason=reason,
                           at={"entry": entry.replace("'", "").replace("[", ".").replace("]", "")})

    if not isinstance(data, Mapping):
        raise bad("the top level", "must be a JSON object", "This file is not a Superstition board.")
    missing = sorted(_TOP_KEYS - set(data))
    if missing:
        raise bad(f"key {missing[0]!r}", "is missing", f"The board does not say {_KEY_WORDS[missing[0]]}.")
    unknown = sorted(set(data) - _TOP_KEYS - _OPTIONAL_TOP_KEYS)
    if unknown:
        raise bad(f"key {unknown[0]!r}", "is not a board key", "The file has parts a Superstition board does not have.")

    raw_spaces = data["spaces"]
    if not isinstance(raw_spaces, Mapping) or not raw_spaces:
        raise bad("'spaces'", "must be a non-empty object of id -> space", "The board lists no spaces.")
    spaces: dict[str, tuple[str, float, float]] = {}
    for sid, spec in raw_spaces.items():
        drawn = "One of the board's spaces is not written as a space (what it is, and where it is drawn)."
        if not isinstance(spec, Mapping):
            raise bad(f"spaces[{sid!r}]", "must be an object", drawn)
        kind = spec.get("kind")
        if kind not in SPACE_KINDS:
            raise bad(f"spaces[{sid!r}].kind", f"is {kind!r}; expected one of {', '.join(SPACE_KINDS)}",
                      "One of the board's spaces is of a kind the game does not know.")
        coords = []
        for axis in ("x", "y"):
            value = spec.get(axis)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad(f"spaces[{sid!r}].{axis}", f"must be a number, got {value!r}", drawn)
            coords.append(value)
        extra = sorted(set(spec) - {"kind", "x", "y"})
        if extra:
            raise bad(f"spaces[{sid!r}].{extra[0]}", "is not a space field", drawn)
        spaces[sid] = (kind, coords[0], coords[1])

    def ring(key: str, kind: str) -> tuple[str, ...]:
        value = data[key]
        path = f"the {kind} path"
        if not isinstance(value, list) or len(value) < min_path:
            # Shorter, up to four pawns can stand so close that no throw ever moves one (rule 3: nobody
            # passes), and the game never ends (docs/rules/superstition.md, "Editing the board").
            raise bad(f"{key!r}", f"must be a list of at least {min_path} space ids",
                      f"{cap(path)} needs at least {min_path} spaces: on a shorter one the pawns can shut each "
                      "other in for good.")
        seen: set[str] = set()
        for i, sid in enumerate(value):
            if not isinstance(sid, str) or sid not in spaces:
                raise bad(f"{key}[{i}]", f"is {sid!r}, which is not a space id",
                          f"{cap(path)} lists, as its space {i + 1}, a space the board does not have.")
            if spaces[sid][0] != kind:
                raise bad(f"{key}[{i}]", f"is {sid!r}, a {spaces[sid][0]} space; expected a {kind} space",
                          f"{cap(path)} lists, as its space {i + 1}, {_KIND_WORDS[spaces[sid][0]]}.")
            if sid in seen:
                raise bad(f"{key}[{i}]", f"repeats {sid!r}", f"{cap(path)} lists a space twice (its space {i + 1}).")
            seen.add(sid)
        unlisted = [s for s, (k, _, _) in spaces.items() if k == kind and s not in seen]
        if unlisted:
            raise bad(f"spaces[{unlisted[0]!r}]", f"is a {kind} space missing from {key!r}",
                      f"The board has a {kind} space that is not on {path}: no pawn could ever reach it.")
        return tuple(value)

    brick = ring("brick_path", "brick")
    stone = ring("stone_path", "stone")

    gate = data["gate"]
    if gate not in brick:
        raise bad("'gate'", f"is {gate!r}; it must be a space of 'brick_path'",
                  "The gate must be a space of the brick path: the start circles lead onto the brick path "
                  "through it, so without it the brick path has no way in." + _past_end(gate, "brick", brick))

    raw_circles = data["start_circles"]
    if not isinstance(raw_circles, Mapping) or len(raw_circles) < 4:
        raise bad("'start_circles'", "must map at least 4 colours to circle spaces",
                  "The board needs at least 4 start circles, one for each colour.")
    circles: dict[str, str] = {}
    for colour, sid in raw_circles.items():
        if not isinstance(sid, str) or sid not in spaces or spaces[sid][0] != "circle":
            raise bad(f"start_circles[{colour!r}]", f"is {sid!r}, which is not a circle space",
                      f"The start circle for {colour} is not a circle on the board.")
        if sid in circles.values():
            raise bad(f"start_circles[{colour!r}]", f"reuses circle {sid!r}",
                      f"The colour {colour} starts on a circle another colour already starts on.")
        circles[colour] = sid
    stray = [s for s, (k, _, _) in spaces.items() if k == "circle" and s not in circles.values()]
    if stray:
        raise bad(f"spaces[{stray[0]!r}]", "is a circle no colour starts on",
                  "The board has a start circle no colour starts on.")

    platforms = _parse_platforms(data["platforms"], spaces, brick, stone, gate, bad)

    tomb = data["tomb"]
    drawn = "The board does not say where the Wizard's Tomb is drawn."
    if not isinstance(tomb, Mapping):
        raise bad("'tomb'", "must be an object with x, y, width, height", drawn)
    for key in ("x", "y", "width", "height"):
        value = tomb.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad(f"tomb.{key}", f"must be a number, got {value!r}", drawn)

    return Board(
        raw=json.loads(json.dumps(data)),
        spaces=spaces,
        brick=brick,
        stone=stone,
        gate=gate,
        circles=circles,
        platforms=platforms,
    )


_KEY_WORDS = {
    "spaces": "what its spaces are",
    "brick_path": "the order of the brick path",
    "gate": "which brick space is the gate",
    "stone_path": "the order of the stone path",
    "start_circles": "where the start circles are",
    "platforms": "where the traps are",
    "tomb": "where the Wizard's Tomb is drawn",
}
_KIND_WORDS = {"brick": "a brick space", "stone": "a stone space", "circle": "a start circle",
               "platform": "a trap's platform", "tomb_side": "a space beside the Wizard's Tomb"}
# What each trap field says, as the editor asks it ("The Ladder is entered from brick space number").
_FIELD_WORDS = {"brick_entrance": "is entered from", "stone_exit": "leads onto", "front": "stands in front of",
                "space": "stands on", "tomb_side": "leads beside the Wizard's Tomb onto"}

_USE_WORDS = {"brick_entrance": "the way onto the {trap}", "stone_exit": "the way off the {trap}",
              "front": "the space in front of the {trap}", "space": "the {trap}'s platform",
              "tomb_side": "the space between the {trap} and the Wizard's Tomb"}



def _past_end(sid: Any, kind: str, ring: tuple[str, ...]) -> str:
    """A space id the path lacks, in the editor's numbers when it follows the editor's naming (b0, b1, ...)."""
    prefix = kind[0]
    if isinstance(sid, str) and sid[:1] == prefix and sid[1:].isdigit() and len(sid) < 6:
        number = int(sid[1:]) + 1
        if number > len(ring):
            return f" It is {kind} space {number}, past the end of the {kind} path, which has {len(ring)} spaces."
    return ""


def _parse_platforms(
    raw: Any,
    spaces: dict[str, tuple[str, float, float]],
    brick: tuple[str, ...],
    stone: tuple[str, ...],
    gate: str,
    bad: Any,
) -> dict[str, Platform]:
    if not isinstance(raw, Mapping):
        raise bad("'platforms'", "must be an object", "The board does not say where the traps are.")
    missing = [t for t in TRAPS if t not in raw]
    if missing:
        raise bad(f"platforms[{missing[0]!r}]", "is missing (the board needs ladder, mirror, grave1, grave2)",
                  f"The board has no {TRAP_NAMES[missing[0]]}: it needs the Ladder, the Mirror and two Graves.")
    unknown = sorted(set(raw) - set(TRAPS))
    if unknown:
        raise bad(f"platforms[{unknown[0]!r}]", "is not a trap (ladder, mirror, grave1, grave2)",
                  "The board has a trap the game does not know: its traps are the Ladder, the Mirror and two Graves.")

    def name_of(sid: str) -> str:
        for kind, ring in (("brick", brick), ("stone", stone)):
            if sid in ring:
                return f"{kind} space {ring.index(sid) + 1}"
        return "the gate" if sid == gate else _KIND_WORDS.get(spaces[sid][0], "a space") if sid in spaces else "a space"

    def field(trap: str, spec: Mapping[str, Any], key: str, kind: str, ring: tuple[str, ...] | None) -> str:
        sid = spec.get(key)
        entry = f"platforms[{trap!r}].{key}"
        the_trap = f"the {TRAP_NAMES[trap]}"
        # On the path a pawn walks: a space the path lacks leaves the trap with no way in (or out).
        way = ("There is no way onto " if key == "brick_entrance" else "There is no way off " if key == "stone_exit"
               else "There is no way to " if key == "front" else "")
        said = f"{cap(the_trap)} {_FIELD_WORDS[key]} "
        if not isinstance(sid, str) or sid not in spaces:
            if ring is not None:
                reason = f"{way}{the_trap}: it {_FIELD_WORDS[key]} a {kind} space the path does not have." \
                         + _past_end(sid, kind, ring)
            else:
                reason = f"{said}a space the board does not have."
            raise bad(entry, f"is {sid!r}, which is not a space id", reason)
        if spaces[sid][0] != kind:
            raise bad(entry, f"is {sid!r}, a {spaces[sid][0]} space; expected {kind}",
                      f"{said}{_KIND_WORDS[spaces[sid][0]]}; it must be {_KIND_WORDS[kind]}.")
        if ring is not None and sid not in ring:  # every space of the kind is on its path (checked above)
            raise bad(entry, f"is {sid!r}, which is not on the path",
                      f"{way}{the_trap}: it {_FIELD_WORDS[key]} a space that is not on the {kind} path.")
        return sid

    out: dict[str, Platform] = {}
    used: dict[str, str] = {gate: "the gate"}
    uses: dict[str, str] = {gate: "the gate"}  # the same, in words
    for trap in TRAPS:
        spec = raw[trap]
        the_trap = f"the {TRAP_NAMES[trap]}"
        if not isinstance(spec, Mapping):
            raise bad(f"platforms[{trap!r}]", "must be an object", f"{cap(the_trap)} is not written as a trap.")
        want = "ladder_mirror" if trap in LADDER_MIRROR else "grave"
        if spec.get("kind") != want:
            raise bad(f"platforms[{trap!r}].kind", f"is {spec.get('kind')!r}; expected {want!r}",
                      f"{cap(the_trap)} is written as the wrong kind of trap.")
        keys = ("space", "brick_entrance", "stone_exit") if want == "ladder_mirror" else ("space", "front", "tomb_side")
        extra = sorted(set(spec) - {"kind", *keys})
        if extra:
            raise bad(f"platforms[{trap!r}].{extra[0]}", f"is not a {want} platform field",
                      f"{cap(the_trap)} has parts a trap does not have.")
        space = field(trap, spec, "space", "platform", None)
        if want == "ladder_mirror":
            platform = Platform(
                trap, want, space,
                stone=field(trap, spec, "stone_exit", "stone", stone),
                brick=field(trap, spec, "brick_entrance", "brick", brick),
            )
            refs = {"space": space, "stone_exit": platform.stone, "brick_entrance": platform.brick or ""}
        else:
            platform = Platform(
                trap, want, space,
                stone=field(trap, spec, "front", "stone", stone),
                tomb_side=field(trap, spec, "tomb_side", "tomb_side", None),
            )
            refs = {"space": space, "front": platform.stone, "tomb_side": platform.tomb_side or ""}
        for key, sid in refs.items():
            here = _USE_WORDS[key].format(trap=TRAP_NAMES[trap])
            if sid in used:
                raise bad(f"platforms[{trap!r}].{key}", f"is {sid!r}, already used by {used[sid]}",
                          f"{cap(name_of(sid))} is both {uses[sid]} and {here}: two traps cannot use one space.")
            used[sid] = f"platforms[{trap!r}].{key}"
            uses[sid] = here
        out[trap] = platform
    for sid, (kind, _, _) in spaces.items():
        if kind in ("platform", "tomb_side") and sid not in used:
            raise bad(f"spaces[{sid!r}]", f"is a {kind} space no platform uses",
                      f"The board has {_KIND_WORDS[kind]} that no trap uses: no pawn could ever reach it.")
    return out
