"""The Terror in the Graveyard board: a grid of spaces over three sliding platforms.

The board file (``data/board.json``, or an owner's own) has a ``layout``
of equal-length strings, one character a cell, and three ``platforms``. Each
platform belongs to one tomb and one colour; it lists the three cells of its
tomb ``track`` (``end_a``, ``middle``, ``end_b``) and, for every cell that
shows through a hole in the board, the space type seen at each tomb position.
The track cell under the tomb is the pit, so it shows ``"pit"`` there.

Layout characters::

    .  grass          #  bushes (block every pawn)     (blank)  not part of the board
    g  "G" space      p  Magic Potion                  E  Entrance    X  Exit
    S  Gate platform (start)        C  Crypt platform   1 2 3  a cell of platform 1, 2, 3

Platform cell types: ``grass``, ``g``, ``potion``, ``hand`` (Skeleton Hand),
``arrow-<colour>``, ``danger-<colour>`` and ``pit``.

Movement is orthogonal, over spaces only (never bushes, pits, the Gate
platform or outside the grid), never onto a cell already visited this move,
and the Crypt platform is entered only from the Exit, which ends the move at
once (the rulebook's "jump" that needs no full count). Adjacency is computed
once per tomb configuration, and reachable destinations are cached per
(configuration, start, count), so enumeration is cheap after the first call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datafile import read_bytes
from ..errors import BadGameData
from ..words import cap
from .words import COLOURS, POSITION_WORDS, kind_noun, kind_words, place_words

TOMBS: tuple[str, ...] = ("mummy", "monster", "wolf")
POSITIONS: tuple[str, ...] = ("end_a", "middle", "end_b")
PLAIN_TYPES: tuple[str, ...] = ("grass", "g", "potion", "hand")
ALL_CONFIGS = 27  # 3 tombs x 3 positions

DEFAULT_BOARD = Path(__file__).with_name("data") / "board.json"

_LAYOUT_TYPES: dict[str, str] = {
    ".": "grass",
    "#": "bush",
    "g": "g",
    "p": "potion",
    "E": "entrance",
    "X": "exit",
    "S": "gate",
    "C": "crypt",
}
# Types a pawn may stand on and walk across.
_WALKABLE = frozenset({"grass", "g", "potion", "hand", "entrance", "exit", "crypt"})
_BLOCKING = frozenset({"bush", "pit", "gate"})
_MAX_CACHE = 200_000


def is_walkable(space: str | None) -> bool:
    return space is not None and (space in _WALKABLE or space.startswith(("arrow-", "danger-")))


@dataclass(frozen=True)
class Platform:
    number: int
    colour: str
    tomb: str
    track: Mapping[str, int]  # position -> cell index
    spaces: Mapping[int, Mapping[str, str]]  # cell index -> position -> type


@dataclass
class Board:
    """A validated board. Cells are indexed ``row * cols + col``."""

    name: str
    rows: int
    cols: int
    static: list[str | None]  # per cell: fixed type, "platform", or None (off the board)
    platforms: dict[str, Platform]  # by tomb
    gate: int
    crypt: int
    entrance: int
    exit: int
    digest: str
    _types: dict[int, tuple[str | None, ...]] = field(default_factory=dict, repr=False)
    _adjacency: dict[int, tuple[tuple[int, ...], ...]] = field(default_factory=dict, repr=False)
    _dest_cache: dict[tuple[int, int, int], dict[int, tuple[int, ...]]] = field(default_factory=dict, repr=False)

    # ----- coordinates -----------------------------------------------------
    def cell(self, rc: Any) -> int:
        """Cell index of ``[row, col]``; ``ValueError`` naming the bad value."""
        if (
            not isinstance(rc, (list, tuple))
            or len(rc) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in rc)
        ):
            raise ValueError(f"a board cell is [row, col], got {rc!r}")
        r: int
        c: int
        r, c = rc
        if not (0 <= r < self.rows and 0 <= c < self.cols) or self.static[r * self.cols + c] is None:
            raise ValueError(f"cell {[r, c]} is not on the board")
        return r * self.cols + c

    def rc(self, index: int) -> list[int]:
        r, c = divmod(index, self.cols)
        return [r, c]

    # ----- tomb configurations ------------------------------------------------
    @staticmethod
    def config_index(tombs: Mapping[str, str]) -> int:
        return sum(POSITIONS.index(tombs[t]) * 3**k for k, t in enumerate(TOMBS))

    @staticmethod
    def config_tombs(index: int) -> dict[str, str]:
        return {t: POSITIONS[(index // 3**k) % 3] for k, t in enumerate(TOMBS)}

    def types(self, cfg: int) -> tuple[str | None, ...]:
        """Every cell's current type for tomb configuration ``cfg``."""
        found = self._types.get(cfg)
        if found is None:
            tombs = self.config_tombs(cfg)
            cells = list(self.static)
            for tomb, platform in self.platforms.items():
                for index, by_pos in platform.spaces.items():
                    cells[index] = by_pos[tombs[tomb]]
            found = self._types[cfg] = tuple(cells)
        return found

    def adjacency(self, cfg: int) -> tuple[tuple[int, ...], ...]:
        """Per cell, the cells one orthogonal step away that a pawn may enter."""
        found = self._adjacency.get(cfg)
        if found is None:
            types = self.types(cfg)
            adj: list[tuple[int, ...]] = []
            for index, here in enumerate(types):
                if here is None or here in ("bush", "pit"):
                    adj.append(())
                    continue
                r, c = divmod(index, self.cols)
                out = []
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < self.rows and 0 <= cc < self.cols:
                        n = rr * self.cols + cc
                        if not is_walkable(types[n]):
                            continue
                        if n == self.crypt and index != self.exit:
                            continue
                        out.append(n)
                adj.append(tuple(out))
            found = self._adjacency[cfg] = tuple(adj)
        return found

    def danger_cell(self, cfg: int, colour: str, near: int | None = None) -> int:
        """Where an Arrow of ``colour`` sends a pawn: its platform's Danger space.

        With the tomb in the middle both ends can become the pit, so two Danger
        spaces of the colour show; the Arrow then sends the pawn to the one
        nearest the Arrow (``near``; grid distance, then the first listed on
        the platform). At least one shows in every position (validated at load).
        """
        types = self.types(cfg)
        found: list[int] = []
        for platform in self.platforms.values():
            if platform.colour == colour:
                found = [index for index in platform.spaces if types[index] == f"danger-{colour}"]
        if not found:
            raise AssertionError(f"no {colour} Danger space in configuration {cfg}")  # validated at load
        if near is None or len(found) == 1:
            return found[0]
        r, c = divmod(near, self.cols)
        return min(found, key=lambda i: abs(i // self.cols - r) + abs(i % self.cols - c))

    # ----- movement -------------------------------------------------------------
    def destinations(self, cfg: int, start: int, steps: int) -> dict[int, tuple[int, ...]]:
        """Every cell reachable by a legal walk of ``steps``, with one such walk each.

        The result is shared and cached: callers must not mutate it.
        """
        key = (cfg, start, steps)
        found = self._dest_cache.get(key)
        if found is not None:
            return found
        adj = self.adjacency(cfg)
        crypt = self.crypt
        found = {}
        path: list[int] = []

        def walk(node: int, visited: int, left: int) -> None:
            for nxt in adj[node]:
                if visited >> nxt & 1:
                    continue
                if left == 1 or nxt == crypt:
                    if nxt not in found:
                        found[nxt] = (*path, nxt)
                    continue
                if left == 2:
                    # The last two steps inline: a third fewer calls for the same walks.
                    seen = visited | (1 << nxt)
                    for last in adj[nxt]:
                        if not seen >> last & 1 and last not in found:
                            found[last] = (*path, nxt, last)
                    continue
                path.append(nxt)
                walk(nxt, visited | (1 << nxt), left - 1)
                path.pop()

        if steps > 0:
            walk(start, 1 << start, steps)
        if len(self._dest_cache) >= _MAX_CACHE:
            self._dest_cache.clear()
        self._dest_cache[key] = found
        return found

    def check_path(self, cfg: int, start: int, steps: int, path: Sequence[int]) -> str | None:
        """Why ``path`` is not a legal walk of ``steps`` from ``start`` (``None`` if it is)."""
        if len(path) > steps:
            # The Crypt jump lets a move stop short of the count, never run past it.
            return f"the path has {len(path)} step(s); the count is {steps}"
        adj = self.adjacency(cfg)

        def where(i: int) -> str:
            return place_words(self, cfg, i)

        seen = {start}
        here = start
        for i, nxt in enumerate(path):
            if nxt in seen:
                return f"step {i + 1} doubles back onto {where(nxt)}"
            if nxt not in adj[here]:
                what = self.types(cfg)[nxt]
                if what in _BLOCKING:
                    reason = "a pit" if what == "pit" else "bushes" if what == "bush" else "the Gate platform"
                    return f"step {i + 1} to {where(nxt)} is blocked by {reason}"
                if nxt == self.crypt:
                    return "the Crypt platform can only be entered from the Exit"
                return f"step {i + 1} from {where(here)} to {where(nxt)} is not one orthogonal step"
            seen.add(nxt)
            here = nxt
            if nxt == self.crypt and i + 1 != len(path):
                return "the move must end on the Crypt platform"
        if len(path) != steps and not (path and path[-1] == self.crypt):
            return f"the path has {len(path)} step(s); the count is {steps}"
        return None

    # ----- for the views ------------------------------------------------------
    def describe(self, cfg: int) -> dict[str, Any]:
        types = self.types(cfg)
        return {
            "name": self.name,
            "rows": self.rows,
            "cols": self.cols,
            "cells": [list(types[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows)],
            "gate": self.rc(self.gate),
            "crypt": self.rc(self.crypt),
            "entrance": self.rc(self.entrance),
            "exit": self.rc(self.exit),
            "platforms": {
                t: {
                    "number": p.number,
                    "colour": p.colour,
                    "track": {pos: self.rc(i) for pos, i in p.track.items()},
                    "cells": [self.rc(i) for i in sorted(p.spaces)],
                }
                for t, p in self.platforms.items()
            },
        }


# ----- loading and validation ----------------------------------------------------
_BOARD_CACHE: dict[str, Board] = {}


def load_board(source: str | Path | Mapping[str, Any] | None = None) -> Board:
    """Load and validate a board: the default, a file path, or an already-parsed object."""
    if source is None:
        source = DEFAULT_BOARD
    if isinstance(source, Mapping):
        data: Any = source
        where = "board"
        try:
            raw = json.dumps(source, sort_keys=True).encode()
        except (TypeError, ValueError) as exc:
            raise BadGameData(f"board: not plain JSON ({exc})", reason="This board is not plain JSON.") from None
    elif isinstance(source, (str, Path)):
        path = Path(source)
        where = str(path)
        raw = read_bytes(path, "board file")
        try:
            data = json.loads(raw)
        except RecursionError:
            raise BadGameData(f"board file {where}: not valid JSON (it is nested too deeply)") from None
        except ValueError as exc:
            raise BadGameData(f"board file {where}: not valid JSON ({exc})") from None
    else:
        raise BadGameData(f"board must be a file path or an object, got {type(source).__name__}",
                          reason="This file is not a Terror board.")
    digest = hashlib.sha256(raw).hexdigest()[:16]
    cached = _BOARD_CACHE.get(digest)
    if cached is None:
        cached = _BOARD_CACHE[digest] = _validate(data, where, digest)
    return cached


def _fail(where: str, msg: str, cell: list[int] | None = None, tombs: Mapping[str, str] | None = None,
          *, reason: str) -> BadGameData:
    """The error, with the ``[row, col]`` it is about when there is one (the editor shows it there).

    ``tombs`` (tomb -> position) says where the tombs must stand to see the problem: a platform
    space is wrong at one position of its tomb only. ``reason`` is the problem in plain words
    (no entry names or coordinates: the editor outlines the cell).
    """
    at: dict[str, Any] | None = {"cell": cell} if cell is not None else None
    if at is not None and tombs:
        at["tombs"] = dict(tombs)
    return BadGameData(f"{where}: {msg}", at=at, reason=reason)


# Plain words for the editor: a tomb's places as its reasons say them.
_PLACE_WORDS = {"end_a": "one end", "middle": "the middle", "end_b": "the other end"}


def _tomb_words(tomb: Any) -> str:
    return f"the {tomb.title()} tomb" if tomb in TOMBS else "its tomb"


def _validate(data: Any, where: str, digest: str) -> Board:
    if not isinstance(data, Mapping):
        raise _fail(where, "the board must be a JSON object", reason="This file is not a Terror board.")
    unknown = set(data) - {"name", "layout", "platforms", "notes"}
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(sorted(unknown))}",
                    reason="The file has parts a Terror board does not have.")
    layout = data.get("layout")
    if not isinstance(layout, list) or not layout or not all(isinstance(r, str) for r in layout):
        raise _fail(where, "layout must be a non-empty list of strings",
                    reason="The board's rows of spaces are missing.")
    cols = len(layout[0])
    rows = len(layout)
    static: list[str | None] = []
    marks: dict[str, list[int]] = {"1": [], "2": [], "3": []}
    for r, line in enumerate(layout):
        if len(line) != cols:
            raise _fail(where, f"layout[{r}] has {len(line)} characters; layout[0] has {cols}",
                        reason="The board's rows are not all as long as the first.")
        for c, ch in enumerate(line):
            if ch == " ":
                static.append(None)
            elif ch in marks:
                marks[ch].append(r * cols + c)
                static.append("platform")
            elif ch in _LAYOUT_TYPES:
                static.append(_LAYOUT_TYPES[ch])
            else:
                raise _fail(where, f"layout[{r}][{c}]: unknown character {ch!r}", [r, c],
                            reason="This space is marked with a sign the board does not know.")
    specials: dict[str, int] = {}
    for kind in ("gate", "crypt", "entrance", "exit"):
        cells = [i for i, t in enumerate(static) if t == kind]
        if len(cells) != 1:
            raise _fail(where, f"layout must have exactly one {kind} cell, found {len(cells)}",
                        [cells[1] // cols, cells[1] % cols] if len(cells) > 1 else None,
                        reason=f"The board needs exactly one {kind_noun(kind)}; it has {len(cells)}.")
        specials[kind] = cells[0]

    def rc(i: int) -> list[int]:
        return [i // cols, i % cols]

    def neighbours(i: int) -> list[int]:
        r, c = divmod(i, cols)
        return [
            rr * cols + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < rows and 0 <= cc < cols
        ]

    if specials["entrance"] not in neighbours(specials["gate"]):
        raise _fail(where, f"the Gate platform {rc(specials['gate'])} must be next to the Entrance",
                    rc(specials["gate"]), reason="The Gate platform must be next to the Entrance.")
    crypt_next = [n for n in neighbours(specials["crypt"]) if static[n] not in (None, "bush")]
    if crypt_next != [specials["exit"]]:
        raise _fail(where, f"the Crypt platform {rc(specials['crypt'])} must touch the Exit and no other space",
                    rc(specials["crypt"]), reason="The Crypt platform must touch the Exit and no other space.")

    platforms_raw = data.get("platforms")
    if not isinstance(platforms_raw, list) or len(platforms_raw) != 3:
        raise _fail(where, "platforms must be a list of three platforms",
                    reason="The board needs its three sliding platforms.")
    platforms: dict[str, Platform] = {}
    colours_seen: set[str] = set()
    for n, p in enumerate(platforms_raw):
        platforms_where = f"{where} platforms[{n}]"
        platform = _validate_platform(p, platforms_where, n + 1, static, marks, rows, cols, neighbours)
        if platform.tomb in platforms:
            raise _fail(platforms_where, f"tomb {platform.tomb!r} has two platforms",
                        reason=f"{cap(_tomb_words(platform.tomb))} has two platforms.")
        if platform.colour in colours_seen:
            raise _fail(platforms_where, f"colour {platform.colour!r} is used by two platforms",
                        reason=f"Two platforms are {platform.colour}; each platform has its own colour.")
        colours_seen.add(platform.colour)
        platforms[platform.tomb] = platform
    name = data.get("name", "board")
    if not isinstance(name, str):
        raise _fail(where, "name must be a string", reason="The board's name must be text.")
    board = Board(
        name=name,
        rows=rows,
        cols=cols,
        static=static,
        platforms=platforms,
        gate=specials["gate"],
        crypt=specials["crypt"],
        entrance=specials["entrance"],
        exit=specials["exit"],
        digest=digest,
    )
    _validate_configs(board, where)
    return board


def _validate_platform(
    p: Any,
    where: str,
    number: int,
    static: list[str | None],
    marks: dict[str, list[int]],
    rows: int,
    cols: int,
    neighbours: Any,
) -> Platform:
    if not isinstance(p, Mapping):
        raise _fail(where, "a platform must be an object", reason=f"Platform {number} is not written as a platform.")
    unknown = set(p) - {"number", "colour", "tomb", "track", "spaces"}
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(sorted(unknown))}",
                    reason=f"Platform {number} has parts a platform does not have.")
    if p.get("number") != number:
        raise _fail(where, f"number must be {number} (platforms are listed in order)",
                    reason="The platforms must be numbered 1, 2 and 3, in that order.")
    colour, tomb = p.get("colour"), p.get("tomb")
    if colour not in COLOURS:
        raise _fail(where, f"colour {colour!r} is not one of {', '.join(COLOURS)}",
                    reason=f"Platform {number} must be red, purple or gold.")
    if tomb not in TOMBS:
        raise _fail(where, f"tomb {tomb!r} is not one of {', '.join(TOMBS)}",
                    reason=f"Platform {number} must carry the Mummy, the Monster or the Wolf tomb.")
    owner = f"the {colour} platform ({_tomb_words(tomb)})"

    def cell(value: Any, at: str) -> int:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or not (0 <= value[0] < rows and 0 <= value[1] < cols)
        ):
            raise _fail(at, f"{value!r} is not a [row, col] inside the grid",
                        reason=f"A space listed for {owner} is not on the board.")
        index: int = value[0] * cols + value[1]
        if index not in marks[str(number)]:
            raise _fail(at, f"cell {value} is not marked {number} in the layout", list(value),
                        reason=f"This space is listed for {owner} but is not part of that platform on the board.")
        return index

    track_raw = p.get("track")
    if not isinstance(track_raw, Mapping) or set(track_raw) != set(POSITIONS):
        raise _fail(where, f"track must map exactly {', '.join(POSITIONS)} to cells",
                    reason=f"{cap(owner)} must say where its tomb stands at one end, the middle "
                    "and the other end.")
    track = {pos: cell(track_raw[pos], f"{where} track.{pos}") for pos in POSITIONS}
    if track["middle"] not in neighbours(track["end_a"]) or track["middle"] not in neighbours(track["end_b"]):
        raise _fail(where + " track", "the middle position must be next to both ends", track_raw["middle"],
                    reason=f"The middle place of {_tomb_words(tomb)} must be next to both of its ends.")
    spaces_raw = p.get("spaces")
    if not isinstance(spaces_raw, list) or not spaces_raw:
        raise _fail(where, "spaces must be a non-empty list", reason=f"{cap(owner)} lists no spaces.")
    spaces: dict[int, dict[str, str]] = {}
    allowed = {*PLAIN_TYPES, "pit", *(f"arrow-{c}" for c in COLOURS), f"danger-{colour}"}
    for k, s in enumerate(spaces_raw):
        at = f"{where} spaces[{k}]"
        if not isinstance(s, Mapping) or set(s) != {"cell", *POSITIONS}:
            raise _fail(at, f"a space is an object with exactly: cell, {', '.join(POSITIONS)}",
                        reason=f"A space of {owner} does not say what it shows at each place of the tomb.")
        index = cell(s["cell"], at + ".cell")
        if index in spaces:
            raise _fail(at, f"cell {s['cell']} is listed twice", s["cell"],
                        reason=f"This space of {owner} is listed twice.")
        by_pos: dict[str, str] = {}
        for pos in POSITIONS:
            value = s[pos]
            # The type check comes first: a list would make the set lookup raise TypeError.
            if not isinstance(value, str) or value not in allowed:
                raise _fail(f"{at}.{pos}", f"{value!r} is not a space type here (one of {', '.join(sorted(allowed))})",
                            s["cell"], {tomb: pos},
                            reason=f"With {_tomb_words(tomb)} at {_PLACE_WORDS[pos]}, this space shows "
                            f"{kind_words(value)}, which a space of {owner} cannot be"
                            + (f" (its Danger spaces are {colour})." if isinstance(value, str)
                               and value.startswith("danger-") else "."))
            is_pit_here = index == track[pos]
            if (value == "pit") != is_pit_here:
                raise _fail(
                    f"{at}.{pos}",
                    "the tomb's own cell must show 'pit'" if is_pit_here else "only the cell under the tomb is a pit",
                    s["cell"], {tomb: pos},
                    reason=(f"With {_tomb_words(tomb)} at {_PLACE_WORDS[pos]}, this space is under it, so it "
                            "must be the pit." if is_pit_here else
                            f"With {_tomb_words(tomb)} at {_PLACE_WORDS[pos]}, this space is not under it: "
                            "only the space under the tomb is a pit."),
                )
            by_pos[pos] = value
        if all(by_pos[pos] == "hand" for pos in POSITIONS):
            raise _fail(at, "a Skeleton Hand that never changes would paralyse a pawn for ever", s["cell"],
                        reason=f"This space is a Skeleton Hand wherever {_tomb_words(tomb)} stands: "
                        "it would hold a pawn for ever.")
        spaces[index] = by_pos
    missing = sorted(set(marks[str(number)]) - set(spaces))
    if missing:
        first = [missing[0] // cols, missing[0] % cols]
        raise _fail(where, f"layout cell {first} is marked {number} but has no space entry", first,
                    reason=f"This space of {owner} does not say what it shows.")
    for pos, index in track.items():
        if index not in spaces:
            raise _fail(f"{where} track.{pos}", "the track cell needs a space entry", [index // cols, index % cols],
                        reason=f"The place of {_tomb_words(tomb)} at {_PLACE_WORDS[pos]} does not say what it shows.")
    # Rulebook, "Danger Space": only a pawn on a Danger space "may fall into the nearby tomb
    # pit". So every cell that becomes the pit with one slide of the tomb must show Danger
    # before the slide, and a Danger space must sit next to the pit.
    for pos in POSITIONS:
        for nxt in _SLIDES[pos]:
            index = track[nxt]
            if spaces[index][pos] != f"danger-{colour}":
                raise _fail(
                    where,
                    f"cell {[index // cols, index % cols]} shows {spaces[index][pos]!r} with the tomb at {pos}, "
                    f"but becomes the pit when the tomb slides to {nxt}: it must be a {colour} Danger space "
                    f"('danger-{colour}'), the only space a pawn can fall from",
                    [index // cols, index % cols], {tomb: pos},
                    reason=f"With {_tomb_words(tomb)} at {_PLACE_WORDS[pos]}, this space shows "
                    f"{kind_words(spaces[index][pos])}, but it becomes the pit when the tomb slides to "
                    f"{_PLACE_WORDS[nxt]}: it must be a {colour} Danger space, the only space a pawn can fall from.",
                )
        dangers = [i for i, by_pos in spaces.items() if by_pos[pos] == f"danger-{colour}"]
        for index in dangers:
            if track[pos] not in neighbours(index):
                raise _fail(
                    where,
                    f"with the tomb at {pos}, the {colour} Danger space {[index // cols, index % cols]} "
                    "must sit next to the pit",
                    [index // cols, index % cols], {tomb: pos},
                    reason=f"With {_tomb_words(tomb)} at {_PLACE_WORDS[pos]}, this {colour} Danger space is not "
                    "next to the pit: a pawn can fall only into a pit beside it.",
                )
    return Platform(number=number, colour=colour, tomb=tomb, track=track, spaces=spaces)


# Tomb position -> the positions one slide away (rulebook, "2. Move a Tomb").
_SLIDES: dict[str, tuple[str, ...]] = {"end_a": ("middle",), "middle": ("end_a", "end_b"), "end_b": ("middle",)}


def _validate_configs(board: Board, where: str) -> None:
    """Every configuration must leave a way from the Gate to the Crypt (ignoring hands)."""
    for cfg in range(ALL_CONFIGS):
        adj = board.adjacency(cfg)
        seen = {board.gate}
        todo = [board.gate]
        while todo:
            here = todo.pop()
            for n in adj[here]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        if board.crypt not in seen:
            tombs = board.config_tombs(cfg)
            words = ", ".join(f"the {t.title()} tomb at {POSITION_WORDS[tombs[t]]}" for t in TOMBS)
            plain = ", ".join(f"{_tomb_words(t)} at {_PLACE_WORDS[tombs[t]]}" for t in TOMBS)
            raise _fail(where, f"with {words}, no path leads from the Gate to the Crypt",
                        board.rc(_cut(board, cfg, seen)), tombs,
                        reason=f"With {plain}, no path leads from the Gate to the Crypt.")


def _cut(board: Board, cfg: int, from_gate: set[int]) -> int:
    """Where the way from the Gate to the Crypt is cut: a blocked cell touching both sides, else the Exit.

    The side of the Crypt is every space that reaches the Exit without the Gate's side; a bush or pit
    with a neighbour on each side is what the owner most likely just painted.
    """
    types = board.types(cfg)
    adj = board.adjacency(cfg)
    crypt_side = {board.exit}
    todo = [board.exit]
    while todo:
        here = todo.pop()
        for n in adj[here]:
            if n not in crypt_side and n not in from_gate:
                crypt_side.add(n)
                todo.append(n)
    for index, kind in enumerate(types):
        if kind not in _BLOCKING:
            continue
        r, c = divmod(index, board.cols)
        near = {rr * board.cols + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= rr < board.rows and 0 <= cc < board.cols}
        if near & from_gate and near & crypt_side:
            return index
    return board.exit
