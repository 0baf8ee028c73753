"""Places in a player's words, for what the controller itself says to people (undo guidance).

The same names as the panel's (``web_panel/static/words_places.js``): "the third
brick after the gate", "the top-left square of Lantern Walk". Read from a
game's public view only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_ORD = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
_ROWS = ("top", "middle", "bottom")
_COLS = ("left", "middle", "right")


def ordinal(n: int) -> str:
    if n < len(_ORD):
        return _ORD[n]
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0, "th")
    return f"{n}{suffix}"


def superstition_space(view: Mapping[str, Any], space: Any) -> str:
    board = view.get("board") or {}
    if not isinstance(space, str) or not board:
        return "a space"
    traps = view.get("traps") or {}

    def trap_name(t: str) -> str:
        return "the " + str((traps.get(t) or {}).get("name") or t.replace("_", " ").title())

    platforms = board.get("platforms") or {}
    if space in platforms:
        return trap_name(space)
    if space.startswith("start."):
        return f"the {space[6:]} start circle"
    if space.startswith("tomb."):
        return f"the {space[5:]} side of the Wizard's Tomb"
    brick_at: dict[str, str] = {board.get("gate"): "the gate"} if board.get("gate") else {}
    stone_at: dict[str, str] = {}
    for t, p in platforms.items():
        if p.get("brick_entrance"):
            brick_at[p["brick_entrance"]] = trap_name(t)
        for key in ("stone_exit", "front"):
            if p.get(key):
                stone_at[p[key]] = trap_name(t)
    brick, stone = board.get("brick_path") or [], board.get("stone_path") or []
    ring, what, marks = (brick, "brick", brick_at) if space in brick else (stone, "stone", stone_at)
    if space not in ring:
        return "a space"
    if space in marks:
        if what == "brick" and space == board.get("gate"):
            return "the brick at the gate"
        return f"the {what} {'at' if what == 'brick' else 'by'} {marks[space]}"
    i, n = ring.index(space), len(ring)
    for d in range(1, n):
        back, ahead = ring[(i - d) % n], ring[(i + d) % n]
        if back in marks:
            return f"the {ordinal(d)} {what} after {marks[back]}"
        if ahead in marks:
            return f"the {ordinal(d)} {what} before {marks[ahead]}"
    return f"a {what}"


def dogs_square(view: Mapping[str, Any], x: Any, y: Any) -> str:
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


_DOGS_SQUARE = re.compile(r"\((-?\d+), (-?\d+)\)")
_SUPER_SPACE = re.compile(r"\b(?:[bs]\d+|start\.[a-z]+|tomb\.[a-z]+)\b")


def in_words(game: str | None, view: Mapping[str, Any], text: str) -> str:
    """``text`` (an engine's description) with its squares or space ids named as players do."""
    if game == "dogs":
        return _DOGS_SQUARE.sub(lambda m: dogs_square(view, int(m.group(1)), int(m.group(2))), text)
    if game == "superstition":
        return _SUPER_SPACE.sub(lambda m: superstition_space(view, m.group(0)), text)
    return text
