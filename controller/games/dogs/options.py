"""Graveyard Dogs table options: the house rules players may disagree on."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import IllegalAction

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")


@dataclass(frozen=True)
class DogsOptions:
    """Normalised options; every field is documented in docs/rules/dogs.md."""

    tiles: str | dict[str, Any] | None = None
    first_player: int = 0
    colours: str | tuple[str, ...] = "seat"
    min_contact: int = 2
    attack_target: int = 5
    bork_range: int = 3
    bork_penalty_max: int = 3
    bork_own_dog: bool = False
    bork_to: str = "token"
    concern_escape: int = 6
    skeleton_haunt: str = "each"
    carried_snacks_in_graveyard: bool = False

    def to_json(self) -> dict[str, Any]:
        # Field by field: dataclasses.asdict() recurses through every value and cost more
        # than the rest of the state's to_json(). Only a tiles document needs a deep copy.
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if isinstance(self.tiles, dict):
            out["tiles"] = copy.deepcopy(self.tiles)
        if isinstance(self.colours, tuple):
            out["colours"] = list(self.colours)
        return out


def _int(name: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise IllegalAction(f"option {name!r} must be an integer from {low} to {high}, got {value!r}")
    return value


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise IllegalAction(f"option {name!r} must be true or false, got {value!r}")
    return value


def parse_options(raw: Mapping[str, Any] | None, seats: int) -> DogsOptions:
    """Check every option; :class:`IllegalAction` names the bad key."""
    raw = dict(raw or {})
    known = set(DogsOptions.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise IllegalAction(
            f"unknown option(s) {', '.join(sorted(map(str, unknown)))} (known: {', '.join(sorted(known))})"
        )
    tiles = raw.get("tiles")
    if isinstance(tiles, Mapping):
        tiles = dict(tiles)  # the tiles document itself, checked when the game loads it
    elif tiles is not None and (not isinstance(tiles, str) or not tiles):
        raise IllegalAction(f"option 'tiles' must be a file path or a tiles document, got {tiles!r}")
    colours: Any = raw.get("colours", "seat")
    if isinstance(colours, list):
        # Names are checked first: a list or object among them would break set().
        named = all(isinstance(c, str) for c in colours)
        if not named or len(colours) != seats or len(set(colours)) != seats or not set(colours) <= set(COLOURS):
            raise IllegalAction(
                f"option 'colours' must list {seats} different colours from {', '.join(COLOURS)}, got {colours!r}"
            )
        colours = tuple(colours)
    elif colours not in ("seat", "random"):
        raise IllegalAction(f"option 'colours' must be 'seat', 'random' or a list of colours, got {colours!r}")
    bork_to = raw.get("bork_to", "token")
    if bork_to not in ("token", "borker"):
        raise IllegalAction(f"option 'bork_to' must be 'token' or 'borker', got {bork_to!r}")
    skeleton = raw.get("skeleton_haunt", "each")
    if skeleton not in ("each", "one"):
        raise IllegalAction(f"option 'skeleton_haunt' must be 'each' or 'one', got {skeleton!r}")
    return DogsOptions(
        tiles=tiles,
        first_player=_int("first_player", raw.get("first_player", 0), 0, seats - 1),
        colours=colours,
        min_contact=_int("min_contact", raw.get("min_contact", 2), 1, 6),
        attack_target=_int("attack_target", raw.get("attack_target", 5), 1, 6),
        bork_range=_int("bork_range", raw.get("bork_range", 3), 1, 6),
        bork_penalty_max=_int("bork_penalty_max", raw.get("bork_penalty_max", 3), 0, 6),
        bork_own_dog=_bool("bork_own_dog", raw.get("bork_own_dog", False)),
        bork_to=bork_to,
        concern_escape=_int("concern_escape", raw.get("concern_escape", 6), 1, 7),
        skeleton_haunt=skeleton,
        carried_snacks_in_graveyard=_bool(
            "carried_snacks_in_graveyard", raw.get("carried_snacks_in_graveyard", False)
        ),
    )
