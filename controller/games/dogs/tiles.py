"""Graveyard Dogs tile cards: loading, validation and rotation.

A tile is a square grid of squares. ``J`` marks the Jack-O-Lantern (a snack
cube is put there when the tile is placed), ``G`` a Gravestone (a spook token
is put there) and ``.`` a plain square. Rows run top to bottom, columns left to
right; ``y`` grows downwards, so the coordinates suit SVG directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..datafile import read_json
from ..errors import BadGameData

DEFAULT_TILES_PATH = Path(__file__).with_name("data") / "tiles.json"

TILE_COUNT = 16
SPOOK_COUNT = 8
JACK = "J"
GRAVE = "G"
PLAIN = "."
FEATURES = frozenset({JACK, GRAVE, PLAIN})
MIN_SIZE, MAX_SIZE = 2, 6

Square = tuple[int, int]


@dataclass(frozen=True)
class TileDef:
    """One tile card as printed (rotation 0)."""

    id: str
    name: str
    grid: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.grid)

    def rotated(self, rotation: int) -> tuple[str, ...]:
        """The grid turned ``rotation`` quarter turns clockwise."""
        return _rotate(self.grid, rotation % 4)

    def features(self, rotation: int) -> tuple[tuple[int, int, str], ...]:
        """``(dx, dy, feature)`` for every square of the rotated tile."""
        return _features(self.grid, rotation % 4)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "grid": list(self.grid)}


@lru_cache(maxsize=512)
def _rotate(grid: tuple[str, ...], rotation: int) -> tuple[str, ...]:
    rows = [list(row) for row in grid]
    for _ in range(rotation):
        rows = [list(row) for row in zip(*rows[::-1], strict=True)]  # square: the loader checks every row
    return tuple("".join(row) for row in rows)


@lru_cache(maxsize=512)
def _features(grid: tuple[str, ...], rotation: int) -> tuple[tuple[int, int, str], ...]:
    # Cached: the graveyard is rebuilt from its tiles after every placement.
    return tuple((dx, dy, ch) for dy, row in enumerate(_rotate(grid, rotation)) for dx, ch in enumerate(row))


def dog_start_squares(grid: tuple[str, ...]) -> list[Square]:
    """Squares of a tile where a dog may start: not a Gravestone, not the
    Jack-O-Lantern, and not orthogonally next to it (diagonals are not adjacent)."""
    jacks = {(x, y) for y, row in enumerate(grid) for x, ch in enumerate(row) if ch == JACK}
    near = {(x + dx, y + dy) for x, y in jacks for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    return [
        (x, y)
        for y, row in enumerate(grid)
        for x, ch in enumerate(row)
        if ch == PLAIN and (x, y) not in near
    ]


def parse_tiles(data: Any, source: str = "tiles") -> list[TileDef]:
    """Validate a tiles document; :class:`BadGameData` names the bad entry (and says it in plain words)."""

    def bad(message: str, reason: str, at: dict[str, Any] | None = None) -> BadGameData:
        return BadGameData(message, at=at, reason=reason)

    if not isinstance(data, Mapping):
        raise bad(f"{source}: the document must be a JSON object with 'size' and 'tiles'",
                  "This file is not a set of tiles.")
    size = data.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise bad(f"{source}: 'size' must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}",
                  f"The tiles must say how many squares a side they have, from {MIN_SIZE} to {MAX_SIZE}.")
    raw_tiles = data.get("tiles")
    if not isinstance(raw_tiles, list):
        raise bad(f"{source}: 'tiles' must be a list", "The file lists no tiles.")
    if len(raw_tiles) != TILE_COUNT:
        raise bad(f"{source}: the game has {TILE_COUNT} tiles, the file lists {len(raw_tiles)}",
                  f"The game has {TILE_COUNT} tiles; the file lists {len(raw_tiles)}.")
    tiles: list[TileDef] = []
    seen: set[str] = set()
    graves = 0
    for index, raw in enumerate(raw_tiles):
        where = f"{source}: tile {index + 1}"
        tile = {"tile": index}
        words = f"Tile {index + 1}"
        if not isinstance(raw, Mapping):
            raise bad(f"{where}: must be an object with 'id' and 'grid'", f"{words} is not written as a tile.", tile)
        tile_id = raw.get("id")
        if not isinstance(tile_id, str) or not tile_id.strip():
            raise bad(f"{where}: 'id' must be a non-empty string",
                      f"{words} has no name for the machine to know it by.", tile)
        where = f"{where} ({tile_id!r})"
        name = raw.get("name", tile_id)
        if isinstance(name, str) and name.strip():
            words = f"{words}, \u201c{name.strip()}\u201d,"
        if tile_id in seen:
            raise bad(f"{where}: duplicate id", f"{words} has the same machine name as an earlier tile.", tile)
        seen.add(tile_id)
        if not isinstance(name, str):
            raise bad(f"{where}: 'name' must be a string", f"{words} has a name that is not text.", tile)
        unknown = set(raw) - {"id", "name", "grid"}
        if unknown:
            raise bad(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}",
                      f"{words} has parts a tile does not have.", tile)
        grid = raw.get("grid")
        if not isinstance(grid, list) or len(grid) != size:
            raise bad(f"{where}: 'grid' must be a list of {size} rows",
                      f"{words} must have {size} rows of squares.", tile)
        for r, row in enumerate(grid):
            if not isinstance(row, str) or len(row) != size:
                raise bad(f"{where}: row {r + 1} must be a string of {size} squares, got {row!r}",
                          f"Row {r + 1} of {words[:1].lower() + words[1:]} must have {size} squares.", tile)
            unknown_squares = set(row) - FEATURES
            if unknown_squares:
                raise bad(
                    f"{where}: row {r + 1} has unknown square(s) {''.join(sorted(unknown_squares))!r} (use J, G or .)",
                    f"{words} has a square that is not plain, a Jack-O-Lantern or a Gravestone.",
                    {"tile": index, "square": [r, min(row.index(ch) for ch in unknown_squares)]},
                )
        cells = "".join(grid)
        if cells.count(JACK) != 1:
            raise bad(f"{where}: needs exactly one Jack-O-Lantern (J), found {cells.count(JACK)}",
                      f"{words} needs exactly one Jack-O-Lantern; it has {cells.count(JACK)}.", tile)
        if cells.count(GRAVE) > 1:
            raise bad(f"{where}: has {cells.count(GRAVE)} Gravestones (G); at most one",
                      f"{words} has {cells.count(GRAVE)} Gravestones; a tile has at most one.", tile)
        graves += cells.count(GRAVE)
        if not dog_start_squares(tuple(grid)):
            raise bad(f"{where}: no square where a dog may start (away from J and G)",
                      f"{words} has no square where a dog may start: every square is the Jack-O-Lantern, "
                      "a Gravestone or next to the Jack-O-Lantern.", tile)
        tiles.append(TileDef(tile_id, name, tuple(grid)))
    if graves > SPOOK_COUNT:
        raise bad(f"{source}: {graves} Gravestones but only {SPOOK_COUNT} spook tokens",
                  f"The tiles have {graves} Gravestones, but the game has only {SPOOK_COUNT} spook tokens to put "
                  "on them: take one away first.")
    return tiles


def load_tiles(path: str | Path | None = None) -> list[TileDef]:
    """Load and validate a tiles file (the default set when ``path`` is None)."""
    file = Path(path) if path is not None else DEFAULT_TILES_PATH
    return parse_tiles(read_json(file, "tiles file"), source=f"tiles file {str(file)!r}")
