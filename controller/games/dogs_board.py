"""Graveyard geometry: placed tiles as one board of squares.

Squares live on a global integer grid, ``(x, y)`` with ``y`` growing downwards.
Movement sets are computed on bitboards (a Python int with one bit a square, on
a padded frame) because legal-action enumeration must stay well under a
millisecond on a full graveyard: one shift-and-mask a step replaces a walk over
every square.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Square = tuple[int, int]

ORTHOGONAL: tuple[Square, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Graveyard:
    """The squares of the placed tiles, with bitboard helpers.

    ``features`` maps each square to ``J``, ``G`` or ``.``. The frame is padded
    by ``tile_size + 1`` on every side so that a tile placed next to the
    graveyard, and every one-square shift, stays inside one frame row.
    """

    def __init__(self, features: Mapping[Square, str], tile_size: int) -> None:
        self.features: dict[Square, str] = dict(features)
        self.tile_size = tile_size
        self.pad = tile_size + 1
        if self.features:
            xs = [x for x, _ in self.features]
            ys = [y for _, y in self.features]
            self.min_x, self.max_x, self.min_y, self.max_y = min(xs), max(xs), min(ys), max(ys)
        else:
            self.min_x = self.max_x = self.min_y = self.max_y = 0
        self.width = self.max_x - self.min_x + 1 + 2 * self.pad
        self.index: dict[Square, int] = {sq: self._bit_index(sq) for sq in self.features}
        self.square_at: dict[int, Square] = {i: sq for sq, i in self.index.items()}
        self.mask = 0
        for i in self.index.values():
            self.mask |= 1 << i
        self._neighbours: dict[Square, list[Square]] = {
            (x, y): [(x + dx, y + dy) for dx, dy in ORTHOGONAL if (x + dx, y + dy) in self.features]
            for x, y in self.features
        }

    # ----- bitboard basics ---------------------------------------------------
    def _bit_index(self, sq: Square) -> int:
        return (sq[1] - self.min_y + self.pad) * self.width + (sq[0] - self.min_x + self.pad)

    def _frame_square(self, index: int) -> Square:
        row, col = divmod(index, self.width)
        return (col - self.pad + self.min_x, row - self.pad + self.min_y)

    def bits(self, squares: Iterable[Square]) -> int:
        out = 0
        for sq in squares:
            out |= 1 << self.index[sq]
        return out

    def squares(self, bits: int) -> list[Square]:
        """The board squares in ``bits``, in bit order (row by row)."""
        out = []
        while bits:
            low = bits & -bits
            out.append(self.square_at[low.bit_length() - 1])
            bits ^= low
        return out

    def step(self, bits: int, diagonal: bool = False) -> int:
        """Every board square one step from a square in ``bits``."""
        w = self.width
        out = (bits << 1) | (bits >> 1) | (bits << w) | (bits >> w)
        if diagonal:
            out |= (bits << (w + 1)) | (bits << (w - 1)) | (bits >> (w + 1)) | (bits >> (w - 1))
        return out & self.mask

    # ----- movement ------------------------------------------------------------
    def exact_reach(self, start: Square, steps: int, diagonal: bool = False) -> int:
        """Squares where a walk of exactly ``steps`` steps can end.

        Revisiting is allowed and tokens never block, so this is the set of
        ends of all walks, computed layer by layer.
        """
        bits = 1 << self.index[start]
        for _ in range(steps):
            bits = self.step(bits, diagonal)
        return bits

    def within(self, start: Square, steps: int) -> int:
        """Squares at most ``steps`` orthogonal steps away through the graveyard."""
        bits = 1 << self.index[start]
        for _ in range(steps):
            bits |= self.step(bits)
        return bits

    def neighbours(self, sq: Square) -> list[Square]:
        """Orthogonally adjacent squares of the graveyard (diagonals are not adjacent)."""
        return self._neighbours.get(sq, [])

    # ----- tile placement --------------------------------------------------------
    def contacts(self, x: int, y: int) -> tuple[bool, int]:
        """For a tile whose top-left square is ``(x, y)``: (overlaps, edge contacts)."""
        k = self.tile_size
        footprint = [(x + dx, y + dy) for dy in range(k) for dx in range(k)]
        if any(sq in self.features for sq in footprint):
            return True, 0
        touching = sum(
            1 for sx, sy in footprint for dx, dy in ORTHOGONAL if (sx + dx, sy + dy) in self.features
        )
        return False, touching

    def placements(self, min_contact: int) -> list[Square]:
        """Top-left squares where a new tile fits: no overlap, and at least
        ``min_contact`` of its square edges meet the graveyard."""
        if not self.features:
            return [(0, 0)]
        k, w, board = self.tile_size, self.width, self.mask
        frontier = ((board << 1) | (board >> 1) | (board << w) | (board >> w)) & ~board
        block = 0
        candidates = 0
        overlapping = 0
        for dy in range(k):
            for dx in range(k):
                shift = dy * w + dx
                block |= 1 << shift
                candidates |= frontier >> shift
                overlapping |= board >> shift
        candidates &= ~overlapping
        out: list[Square] = []
        while candidates:
            low = candidates & -candidates
            origin = low.bit_length() - 1
            candidates ^= low
            tile = block << origin
            touching = (
                ((tile << 1) & board).bit_count()
                + ((tile >> 1) & board).bit_count()
                + ((tile << w) & board).bit_count()
                + ((tile >> w) & board).bit_count()
            )
            if touching >= min_contact:
                out.append(self._frame_square(origin))
        return out
