"""Graveyard geometry: placed tiles as one board of squares.

Squares live on a global integer grid, ``(x, y)`` with ``y`` growing downwards.
Movement sets are computed on bitboards (a Python int with one bit a square, on
a padded frame) because legal-action enumeration must stay well under a
millisecond on a full graveyard: one shift-and-mask a step replaces a walk over
every square.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping

Square = tuple[int, int]

ORTHOGONAL: tuple[Square, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def footprint(x: int, y: int, size: int) -> list[Square]:
    """The squares of a ``size`` x ``size`` tile whose top-left square is ``(x, y)``."""
    return [(x + dx, y + dy) for dy in range(size) for dx in range(size)]


def edge_contacts(squares: Iterable[Square], graveyard: Container[Square]) -> int:
    """How many square edges of ``squares`` meet the graveyard (the placing rule's "lined up")."""
    return sum(1 for x, y in squares for dx, dy in ORTHOGONAL if (x + dx, y + dy) in graveyard)


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
        self.width = w = self.max_x - self.min_x + 1 + 2 * self.pad
        self.ox, self.oy = self.pad - self.min_x, self.pad - self.min_y
        rows = self.max_y - self.min_y + 1 + 2 * self.pad
        bitmap = bytearray((rows * w + 7) // 8)
        for x, y in self.features:
            i = (y + self.oy) * w + x + self.ox
            bitmap[i >> 3] |= 1 << (i & 7)
        self.mask = int.from_bytes(bitmap, "little")
        self._placements: dict[int, list[Square]] = {}

    # ----- bitboard basics ---------------------------------------------------
    def bit_index(self, sq: Square) -> int:
        """The bit of a square of the graveyard (KeyError for any other square)."""
        if sq not in self.features:
            raise KeyError(sq)
        return (sq[1] + self.oy) * self.width + sq[0] + self.ox

    def _frame_square(self, index: int) -> Square:
        row, col = divmod(index, self.width)
        return (col - self.ox, row - self.oy)

    def contains(self, bits: int, sq: Square) -> bool:
        return sq in self.features and bool((bits >> self.bit_index(sq)) & 1)

    def bits(self, squares: Iterable[Square]) -> int:
        out = 0
        for sq in squares:
            out |= 1 << self.bit_index(sq)
        return out

    def squares(self, bits: int) -> list[Square]:
        """The board squares in ``bits``, in bit order (row by row)."""
        out = []
        w, ox, oy = self.width, self.ox, self.oy
        while bits:
            low = bits & -bits
            row, col = divmod(low.bit_length() - 1, w)
            out.append((col - ox, row - oy))
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
        bits = 1 << self.bit_index(start)
        for _ in range(steps):
            bits = self.step(bits, diagonal)
        return bits

    def within(self, start: Square, steps: int) -> int:
        """Squares at most ``steps`` orthogonal steps away through the graveyard."""
        bits = 1 << self.bit_index(start)
        for _ in range(steps):
            bits |= self.step(bits)
        return bits

    def neighbours(self, sq: Square) -> list[Square]:
        """Orthogonally adjacent squares of the graveyard (diagonals are not adjacent)."""
        x, y = sq
        return [(x + dx, y + dy) for dx, dy in ORTHOGONAL if (x + dx, y + dy) in self.features]

    # ----- tile placement --------------------------------------------------------
    def contacts(self, x: int, y: int) -> tuple[bool, int]:
        """For a tile whose top-left square is ``(x, y)``: (overlaps, edge contacts)."""
        squares = footprint(x, y, self.tile_size)
        if any(sq in self.features for sq in squares):
            return True, 0
        return False, edge_contacts(squares, self.features)

    def placements(self, min_contact: int) -> list[Square]:
        """Top-left squares where a new tile fits: no overlap, and at least
        ``min_contact`` of its square edges meet the graveyard. Cached: the
        graveyard does not change until a tile is added, which builds a new one."""
        cached = self._placements.get(min_contact)
        if cached is None:
            cached = self._placements[min_contact] = self._find_placements(min_contact)
        return cached

    def _find_placements(self, min_contact: int) -> list[Square]:
        if not self.features:
            return [(0, 0)]
        k, w, board = self.tile_size, self.width, self.mask
        frontier = ((board << 1) | (board >> 1) | (board << w) | (board >> w)) & ~board
        candidates = 0
        overlapping = 0
        for dy in range(k):
            for dx in range(k):
                shift = dy * w + dx
                candidates |= frontier >> shift
                overlapping |= board >> shift
        candidates &= ~overlapping
        # The squares just outside the tile's edges, relative to the square
        # diagonally above-left of its top-left corner. With no overlap, every
        # one of them that is in the graveyard is one square that lines up.
        ring = 0
        for i in range(k):
            for dx, dy in ((i + 1, 0), (i + 1, k + 1), (0, i + 1), (k + 1, i + 1)):
                ring |= 1 << (dy * w + dx)
        out: list[Square] = []
        while candidates:
            low = candidates & -candidates
            origin = low.bit_length() - 1
            candidates ^= low
            if ((ring << (origin - w - 1)) & board).bit_count() >= min_contact:
                out.append(self._frame_square(origin))
        return out
