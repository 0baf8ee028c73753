"""Graveyard Dogs' squares in a player's words: "the top-left square of Lantern Walk".

The same names as the panel's (``web_panel/static/words_places.js``, ``dogsSquare``), read from
a public view (or the part of one with the tiles). The engine words its ``describe`` with
:func:`square_words` directly (its text needs no rewording) and its refusals with :func:`in_words`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_ROWS = ("top", "middle", "bottom")
_COLS = ("left", "middle", "right")
_SQUARE = re.compile(r"\((-?\d+), (-?\d+)\)")


def square_words(view: Mapping[str, Any], x: Any, y: Any) -> str:
    size = view.get("tile_size") or 3
    if not isinstance(x, int) or not isinstance(y, int):
        return "its square"
    for tile in view.get("tiles") or []:
        tx, ty = tile.get("x"), tile.get("y")
        if isinstance(tx, int) and isinstance(ty, int) and tx <= x < tx + size and ty <= y < ty + size:
            name = tile.get("name") or "a tile"
            if size != 3:
                return f"a square of {name}"
            row, col = _ROWS[y - ty], _COLS[x - tx]
            where = "centre" if row == col == "middle" else f"{row}-{col}"
            return f"the {where} square of {name}"
    return "a square off the tiles"


def in_words(view: Mapping[str, Any], text: str) -> str:
    """``text`` with every ``(x, y)`` square named as players do."""
    return _SQUARE.sub(lambda m: square_words(view, int(m.group(1)), int(m.group(2))), text)
