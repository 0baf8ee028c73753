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

from ..base import BadGameData
from ..datafile import read_json

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
        rows = [list(row) for row in zip(*rows[::-1])]
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
    """Validate a tiles document; :class:`BadGameData` names the bad entry."""
    if not isinstance(data, Mapping):
        raise BadGameData(f"{source}: the document must be a JSON object with 'size' and 'tiles'")
    size = data.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise BadGameData(f"{source}: 'size' must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    raw_tiles = data.get("tiles")
    if not isinstance(raw_tiles, list):
        raise BadGameData(f"{source}: 'tiles' must be a list")
    if len(raw_tiles) != TILE_COUNT:
        raise BadGameData(f"{source}: the game has {TILE_COUNT} tiles, the file lists {len(raw_tiles)}")
    tiles: list[TileDef] = []
    seen: set[str] = set()
    graves = 0
    for index, raw in enumerate(raw_tiles):
        where = f"{source}: tile {index + 1}"
        if not isinstance(raw, Mapping):
            raise BadGameData(f"{where}: must be an object with 'id' and 'grid'", at={"tile": index})
        tile_id = raw.get("id")
        if not isinstance(tile_id, str) or not tile_id.strip():
            raise BadGameData(f"{where}: 'id' must be a non-empty string", at={"tile": index})
        where = f"{where} ({tile_id!r})"
        if tile_id in seen:
            raise BadGameData(f"{where}: duplicate id", at={"tile": index})
        seen.add(tile_id)
        name = raw.get("name", tile_id)
        if not isinstance(name, str):
            raise BadGameData(f"{where}: 'name' must be a string", at={"tile": index})
        unknown = set(raw) - {"id", "name", "grid"}
        if unknown:
            raise BadGameData(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}", at={"tile": index})
        grid = raw.get("grid")
        if not isinstance(grid, list) or len(grid) != size:
            raise BadGameData(f"{where}: 'grid' must be a list of {size} rows", at={"tile": index})
        for r, row in enumerate(grid):
            if not isinstance(row, str) or len(row) != size:
                raise BadGameData(f"{where}: row {r + 1} must be a string of {size} squares, got {row!r}", at={"tile": index})
            bad = set(row) - FEATURES
            if bad:
                raise BadGameData(
                    f"{where}: row {r + 1} has unknown square(s) {''.join(sorted(bad))!r} (use J, G or .)",
                    at={"tile": index, "square": [r, min(row.index(ch) for ch in bad)]},
                )
        cells = "".join(grid)
        if cells.count(JACK) != 1:
            raise BadGameData(f"{where}: needs exactly one Jack-O-Lantern (J), found {cells.count(JACK)}", at={"tile": index})
        if cells.count(GRAVE) > 1:
            raise BadGameData(f"{where}: has {cells.count(GRAVE)} Gravestones (G); at most one", at={"tile": index})
        graves += cells.count(GRAVE)
        if not dog_start_squares(tuple(grid)):
            raise BadGameData(f"{where}: no square where a dog may start (away from J and G)", at={"tile": index})
        tiles.append(TileDef(tile_id, name, tuple(grid)))
    if graves > SPOOK_COUNT:
        raise BadGameData(f"{source}: {graves} Gravestones but only {SPOOK_COUNT} spook tokens")
    return tiles


def load_tiles(path: str | Path | None = None) -> list[TileDef]:
    """Load and validate a tiles file (the default set when ``path`` is None)."""
    file = Path(path) if path is not None else DEFAULT_TILES_PATH
    return parse_tiles(read_json(file, "tiles file"), source=f"tiles file {str(file)!r}")
