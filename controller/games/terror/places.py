"""Every space of a Terror board in a player's words, from what a public view says of the board.

A page names a space the way the engine does (``place_words``: "the card space
next to the Exit"), and the panel holds only what the table published: the
view's ``board`` (as the tombs stand) and ``tombs``. :func:`view_places` reads
those back into a board and words each space with the engine's own
``place_words``, so the words have one source and the panel never works them
out a second way. A view that is not a board this can read gives ``None``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .board import POSITIONS, TOMBS, Board, Platform
from .words import place_words

__all__ = ["view_places"]

MAX_CELLS = 64 * 64  # far past any board printed or drawn; a forged view costs the panel no more than that

Grid = list[list[str | None]]


def view_places(view: Any) -> Grid | None:
    """Every space of ``view``'s board in words, by row and column (``None`` off the board), as the
    view's tombs stand; ``None`` when the view holds no Terror board this can read."""
    if not isinstance(view, Mapping) or not isinstance(view.get("board"), Mapping) \
            or not isinstance(view.get("tombs"), Mapping):
        return None
    try:
        key = json.dumps([view["board"], view["tombs"]], sort_keys=True)
    except (TypeError, ValueError):
        return None
    grid = _places(key)
    return None if grid is None else [list(row) for row in grid]


@lru_cache(maxsize=256)  # a board and a placing of its tombs: a game moves among 27
def _places(key: str) -> tuple[tuple[str | None, ...], ...] | None:
    described, tombs = json.loads(key)
    try:
        board = _board(described, tombs)
        if board is None:
            return None
        cfg = board.config_index(tombs)
        types = board.types(cfg)
        return tuple(tuple(None if types[i] is None else place_words(board, cfg, i)
                           for i in range(r * board.cols, (r + 1) * board.cols)) for r in range(board.rows))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None  # not a board the engine could have described


def _board(d: dict[str, Any], tombs: dict[str, Any]) -> Board | None:
    """The board a view describes, good for the one placing of the tombs it shows."""
    rows, cols, cells = d["rows"], d["cols"], d["cells"]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (rows, cols)) \
            or rows * cols > MAX_CELLS or set(tombs) != set(TOMBS) or not set(tombs.values()) <= set(POSITIONS):
        return None
    if not isinstance(cells, list) or len(cells) != rows \
            or not all(isinstance(row, list) and len(row) == cols for row in cells):
        return None
    kinds = [kind if isinstance(kind, str) else None for row in cells for kind in row]

    def at(rc: Any) -> int:
        r, c = rc
        if not (isinstance(r, int) and isinstance(c, int) and 0 <= r < rows and 0 <= c < cols):
            raise ValueError(f"no cell {rc!r}")
        return int(r * cols + c)

    platforms: dict[str, Platform] = {}
    static: list[str | None] = list(kinds)
    for tomb in TOMBS:
        p = d["platforms"][tomb]
        spaces = [at(rc) for rc in p["cells"]]
        for i in spaces:
            if kinds[i] is not None:
                static[i] = "platform"
        kind_now = {i: kinds[i] for i in spaces}
        platforms[tomb] = Platform(
            number=p["number"], colour=str(p["colour"]), tomb=tomb,
            track={pos: at(rc) for pos, rc in p["track"].items()},
            # Only this placing is known: every position shows what the view shows now.
            spaces={i: dict.fromkeys(POSITIONS, kind) for i, kind in kind_now.items() if kind is not None})
    return Board(name=str(d.get("name", "")), rows=rows, cols=cols, static=static, platforms=platforms,
                 gate=at(d["gate"]), crypt=at(d["crypt"]), entrance=at(d["entrance"]), exit=at(d["exit"]),
                 digest="view")
