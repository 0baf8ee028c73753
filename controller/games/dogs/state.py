"""Graveyard Dogs game state, its JSON form, and the checks a saved state must pass."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import BadGameData, IllegalAction
from ..rng import Rng
from .board import edge_contacts, footprint
from .options import COLOURS, DogsOptions, parse_options
from .tiles import SPOOK_COUNT, TileDef, parse_tiles

Square = tuple[int, int]

SPOOK_KINDS: tuple[str, ...] = ("skeleton", "gargoyle", "ghoul", "bat")
SNACKS_PER_COLOUR = 4
SNACK_TOTAL = SNACKS_PER_COLOUR * len(COLOURS)
SKELETON_LOAD = 3
PHASES = ("setup_tile", "setup_dog", "place_tile", "roll", "act", "over")
# each pending step's fields (see rules: decisions wait for a player, the rest roll dice)
TASK_FIELDS: dict[str, frozenset[str]] = {
    "move_dog": frozenset({"die"}),
    "pick_spook": frozenset({"die"}),
    "move_spook": frozenset({"die", "spook"}),
    "special": frozenset(),
    "special_more": frozenset({"may"}),
    "escape": frozenset({"seat", "options"}),
    "bat_target": frozenset({"spook", "options"}),
    "bork_attack": frozenset({"seat", "spooks"}),
    "concern": frozenset({"seat", "spook"}),
    "haunt": frozenset({"spook"}),
    "bork_penalty": frozenset(),
}


@dataclass
class Placement:
    tile: str
    x: int
    y: int
    rotation: int

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "x": self.x, "y": self.y, "rotation": self.rotation}


@dataclass
class Spook:
    """A spook token once it is face up: on a square, or on a dog card (``holder``)."""

    id: int
    kind: str
    pos: Square | None
    snacks: list[str] = field(default_factory=list)
    holder: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "pos": list(self.pos) if self.pos is not None else None,
            "snacks": list(self.snacks),
            "holder": self.holder,
        }


@dataclass
class DogsState:
    players: list[str]
    colours: list[str]
    options: DogsOptions
    tiles: list[TileDef]
    rng: Rng
    deck: list[str]
    tin: list[str]
    pool: list[str]
    placed: list[Placement] = field(default_factory=list)
    drawn: str | None = None
    board_snacks: dict[Square, list[str]] = field(default_factory=dict)
    dogs: list[Square | None] = field(default_factory=list)
    spooks: list[Spook] = field(default_factory=list)
    card_snacks: list[list[str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    phase: str = "setup_tile"
    seat: int = 0
    setup_left: int = 0
    turn: int = 0
    dice: list[int] | None = None
    dice_use: list[str | None] = field(default_factory=lambda: [None, None])
    slots: list[str] = field(default_factory=list)
    gargoyled: list[bool] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    rolls: list[dict[str, Any]] = field(default_factory=list)

    # ----- queries ---------------------------------------------------------------
    def tile(self, tile_id: str) -> TileDef:
        for t in self.tiles:
            if t.id == tile_id:
                return t
        raise KeyError(tile_id)

    def spooks_on_board(self) -> list[Spook]:
        return [s for s in self.spooks if s.pos is not None]

    def dogs_at(self, sq: Square) -> list[int]:
        return [seat for seat, pos in enumerate(self.dogs) if pos == sq]

    def spooks_at(self, sq: Square) -> list[Spook]:
        return [s for s in self.spooks if s.pos == sq]

    def snack_total(self) -> int:
        return (
            len(self.tin)
            + sum(len(v) for v in self.board_snacks.values())
            + sum(len(c) for c in self.card_snacks)
            + sum(len(s.snacks) for s in self.spooks)
            + len(self.removed)
        )

    def score(self, seat: int) -> int:
        own = self.colours[seat]
        snacks = sum(2 if c == own else 1 for c in self.card_snacks[seat])
        return snacks + 3 * sum(1 for s in self.spooks if s.holder == seat)

    # ----- JSON -------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "colours": list(self.colours),
            "options": self.options.to_json(),
            "tiles": [t.to_json() for t in self.tiles],
            "rng": self.rng.to_json(),
            "deck": list(self.deck),
            "tin": list(self.tin),
            "pool": list(self.pool),
            "placed": [p.to_json() for p in self.placed],
            "drawn": self.drawn,
            "board_snacks": [
                {"x": x, "y": y, "snacks": list(v)} for (x, y), v in sorted(self.board_snacks.items()) if v
            ],
            "dogs": [list(p) if p is not None else None for p in self.dogs],
            "spooks": [s.to_json() for s in self.spooks],
            "card_snacks": [list(c) for c in self.card_snacks],
            "removed": list(self.removed),
            "phase": self.phase,
            "seat": self.seat,
            "setup_left": self.setup_left,
            "turn": self.turn,
            "dice": list(self.dice) if self.dice is not None else None,
            "dice_use": list(self.dice_use),
            "slots": list(self.slots),
            "gargoyled": list(self.gargoyled),
            # Deep copies: a pending step holds lists of choices, and whoever is
            # handed the JSON must not be able to edit the game's choices through it.
            "tasks": copy.deepcopy(self.tasks),
            "rolls": copy.deepcopy(self.rolls),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DogsState:
        """Rebuild and check a saved state; :class:`BadGameData` names what is wrong."""
        if not isinstance(data, Mapping):
            raise BadGameData("saved dogs state must be a JSON object")
        try:
            state = cls._build(data)
            state.check()
        except BadGameData:
            raise
        except KeyError as exc:
            raise BadGameData(f"saved dogs state lacks {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError, IndexError) as exc:
            raise BadGameData(f"saved dogs state is malformed: {exc}") from None
        return state

    @classmethod
    def _build(cls, d: Mapping[str, Any]) -> DogsState:
        players = [str(p) for p in d["players"]]
        raw_options = dict(d["options"])
        try:
            options = parse_options(raw_options, len(players))
        except IllegalAction as exc:
            raise BadGameData(f"saved dogs state: {exc}") from None
        size = len(d["tiles"][0]["grid"]) if d["tiles"] else 0
        tiles = parse_tiles({"size": size, "tiles": d["tiles"]}, source="saved dogs state")

        def square(v: Any) -> Square | None:
            if v is None:
                return None
            x, y = v
            return (_int(x), _int(y))

        board_snacks: dict[Square, list[str]] = {}
        for entry in d["board_snacks"]:
            board_snacks[(_int(entry["x"]), _int(entry["y"]))] = [str(c) for c in entry["snacks"]]
        return cls(
            players=players,
            colours=[str(c) for c in d["colours"]],
            options=options,
            tiles=tiles,
            rng=Rng.from_json(d["rng"]),
            deck=[str(t) for t in d["deck"]],
            tin=[str(c) for c in d["tin"]],
            pool=[str(k) for k in d["pool"]],
            placed=[Placement(str(p["tile"]), _int(p["x"]), _int(p["y"]), _int(p["rotation"])) for p in d["placed"]],
            drawn=None if d["drawn"] is None else str(d["drawn"]),
            board_snacks=board_snacks,
            dogs=[square(p) for p in d["dogs"]],
            spooks=[
                Spook(_int(s["id"]), str(s["kind"]), square(s["pos"]), [str(c) for c in s["snacks"]],
                      None if s["holder"] is None else _int(s["holder"]))
                for s in d["spooks"]
            ],
            card_snacks=[[str(c) for c in card] for card in d["card_snacks"]],
            removed=[str(c) for c in d["removed"]],
            phase=str(d["phase"]),
            seat=_int(d["seat"]),
            setup_left=_int(d["setup_left"]),
            turn=_int(d["turn"]),
            dice=None if d["dice"] is None else [_int(v) for v in d["dice"]],
            dice_use=[None if u is None else str(u) for u in d["dice_use"]],
            slots=[str(s) for s in d["slots"]],
            gargoyled=[bool(g) for g in d["gargoyled"]],
            tasks=[dict(copy.deepcopy(t)) for t in d["tasks"]],
            rolls=[dict(copy.deepcopy(r)) for r in d["rolls"]],
        )

    def check(self) -> None:
        """Invariants every reachable state keeps; :class:`BadGameData` if one fails."""
        n = len(self.players)

        def bad(msg: str) -> BadGameData:
            return BadGameData(f"saved dogs state: {msg}")

        if not 2 <= n <= len(COLOURS):
            raise bad(f"{n} players; the game takes 2 to {len(COLOURS)}")
        for name, seq in (("colours", self.colours), ("dogs", self.dogs), ("card_snacks", self.card_snacks),
                          ("gargoyled", self.gargoyled)):
            if len(seq) != n:
                raise bad(f"'{name}' has {len(seq)} entries for {n} players")
        if len(set(self.colours)) != n or not set(self.colours) <= set(COLOURS):
            raise bad(f"bad dog colours {self.colours!r}")
        if self.phase not in PHASES:
            raise bad(f"unknown phase {self.phase!r}")
        if not 0 <= self.seat < n:
            raise bad(f"seat {self.seat} out of range")
        if not 0 <= self.setup_left <= n or (self.setup_left > 0) != (self.phase in ("setup_tile", "setup_dog")):
            raise bad(f"{self.setup_left} seats left to set up does not fit phase {self.phase!r}")
        size = self.tiles[0].size
        if self.options.min_contact > size:
            # No tile could ever be placed: the seat to place one would have nothing to do.
            raise bad(f"option 'min_contact' is {self.options.min_contact} but a tile edge has only {size} squares")
        ids = {t.id for t in self.tiles}
        used = list(self.deck) + [p.tile for p in self.placed] + ([self.drawn] if self.drawn is not None else [])
        if sorted(used) != sorted(ids):
            raise bad("deck, drawn tile and placed tiles are not exactly the tile set")
        if any(p.rotation not in (0, 1, 2, 3) for p in self.placed):
            raise bad("a placed tile has a rotation outside 0-3")
        self._check_layout(bad)
        snacks = Counter(self.tin)
        for v in self.board_snacks.values():
            snacks.update(v)
        for card in self.card_snacks:
            snacks.update(card)
        for s in self.spooks:
            snacks.update(s.snacks)
        snacks.update(self.removed)
        if snacks != Counter({c: SNACKS_PER_COLOUR for c in COLOURS}):
            raise bad(f"snack cubes are not {SNACKS_PER_COLOUR} of each colour: {dict(snacks)}")
        kinds = Counter(self.pool) + Counter(s.kind for s in self.spooks)
        if kinds != Counter({k: SPOOK_COUNT // len(SPOOK_KINDS) for k in SPOOK_KINDS}):
            raise bad(f"spook tokens are not two of each kind: {dict(kinds)}")
        if sorted(s.id for s in self.spooks) != list(range(len(self.spooks))):
            raise bad("spook ids must be 0..n-1 in placing order")
        for s in self.spooks:
            if (s.pos is None) == (s.holder is None):
                raise bad(f"spook {s.id} must be either on a square or on a dog card")
            if s.holder is not None and not 0 <= s.holder < n:
                raise bad(f"spook {s.id} is held by unknown seat {s.holder}")
        if self.dice is not None and (len(self.dice) != 2 or any(not 1 <= v <= 6 for v in self.dice)):
            raise bad(f"bad dice {self.dice!r}")
        if len(self.dice_use) != 2 or any(u not in (None, "dog", "spook") for u in self.dice_use):
            raise bad(f"bad dice use {self.dice_use!r}")
        for t in self.tasks:
            kind = t.get("t")
            if not isinstance(kind, str) or kind not in TASK_FIELDS:
                raise bad(f"unknown pending step {t!r}")
            if set(t) != {"t", *TASK_FIELDS[kind]}:
                raise bad(f"pending step {kind!r} needs exactly {sorted(TASK_FIELDS[kind])}, got {t!r}")
            if "die" in t and (t["die"] not in (0, 1) or self.dice is None):
                raise bad(f"pending step {kind!r} names die {t['die']!r} but the dice are {self.dice!r}")
            if "die" in t and self.dice_use[t["die"]] != ("dog" if kind == "move_dog" else "spook"):
                # The die was committed to this action by a choice; taking it back undoes that choice.
                raise bad(
                    f"pending step {kind!r} uses die {t['die']} but that die is for {self.dice_use[t['die']]!r}"
                )
            if "spook" in t and not (isinstance(t["spook"], int) and 0 <= t["spook"] < len(self.spooks)):
                raise bad(f"pending step {kind!r} names unknown spook {t['spook']!r}")
            if "seat" in t and not (isinstance(t["seat"], int) and 0 <= t["seat"] < n):
                raise bad(f"pending step {kind!r} names unknown seat {t['seat']!r}")
            if kind == "special_more" and t["may"] not in ("wrestle", "attack"):
                raise bad(f"pending step 'special_more' offers {t['may']!r}; only 'wrestle' or 'attack'")
            if kind == "move_spook" and self.spooks[t["spook"]].pos is None:
                raise bad(f"pending step 'move_spook' moves spook {t['spook']}, which is not in the graveyard")
            if not _task_lists_ok(t, n, len(self.spooks)):
                raise bad(f"pending step {kind!r} has bad choices {t!r}")
        if self.phase == "act" and self.dice is None:
            raise bad("the turn is in its actions but no dice are rolled")
        if (self.phase in ("setup_tile", "place_tile")) != (self.drawn is not None):
            raise bad(f"phase {self.phase!r} with drawn tile {self.drawn!r}: a tile is drawn only to be placed")
        if self.phase not in ("setup_tile", "setup_dog") and None in self.dogs:
            raise bad("every dog must be on the graveyard after setup")

    def _check_layout(self, bad: Callable[[str], BadGameData]) -> None:
        """Each placed tile obeys the placing rule against the ones before it.

        Checked square by square, before any bitboard is built: a tile far away
        in a tampered file would otherwise make the board frame (and its memory)
        as wide as the gap.
        """
        size = self.tiles[0].size
        squares: set[tuple[int, int]] = set()
        for index, p in enumerate(self.placed):
            tile_squares = footprint(p.x, p.y, size)
            if index == 0:
                if (p.x, p.y) != (0, 0):
                    raise bad(f"the first tile is at ({p.x}, {p.y}), not in the middle at (0, 0)")
            else:
                if any(sq in squares for sq in tile_squares):
                    raise bad(f"placed tile {index + 1} ({p.tile}) overlaps the tiles placed before it")
                touching = edge_contacts(tile_squares, squares)
                if touching < self.options.min_contact:
                    raise bad(
                        f"placed tile {index + 1} ({p.tile}) lines up with the graveyard along {touching} "
                        f"squares, fewer than {self.options.min_contact}"
                    )
            squares.update(tile_squares)


def _task_lists_ok(task: Mapping[str, Any], seats: int, spooks: int) -> bool:
    def ints(values: Any, limit: int) -> bool:
        return isinstance(values, list) and bool(values) and all(
            type(v) is int and 0 <= v < limit for v in values)

    if task["t"] == "escape":
        return isinstance(task["options"], list) and bool(task["options"]) and all(
            isinstance(o, list) and len(o) == 2 and all(type(v) is int for v in o) for o in task["options"])
    if task["t"] == "bat_target":
        return ints(task["options"], seats)
    if task["t"] == "bork_attack":
        return ints(task["spooks"], spooks)
    return True


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadGameData(f"saved dogs state: expected an integer, got {value!r}")
    return value
