"""Superstition's places in a player's words: "the third brick after the gate", "the Ladder".

The same names as the panel's (``web_panel/static/words_places.js``, ``superSpace``), read from
a public view (or the part of one with the board and the traps' names). The engine words its
``describe`` with :func:`space_words` directly (its text needs no rewording) and its refusals
with :func:`in_words`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..words import ordinal_word as ordinal

# A space id inside an engine's sentence: a path space (b7, s12), a start circle, a side of the tomb,
# or a trap's platform. Only ids the board has are named (see ``in_words``).
_SPACE_ID = re.compile(r"(?<![\w.])(?:[bs]\d+|start\.[a-z]+|tomb\.[a-z]+|ladder|mirror|grave\d)(?![\w.])")
DIRECTION_WORDS = {"cw": "clockwise", "ccw": "counter-clockwise", "in": "onto the platform"}


def space_words(view: Mapping[str, Any], space: Any) -> str:
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
    gate = board.get("gate")
    brick_at: dict[str, str] = {gate: "the gate"} if isinstance(gate, str) and gate else {}
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


def in_words(view: Mapping[str, Any], text: str) -> str:
    """``text`` with every space id of the board named as players do ("b7" -> "the seventh brick ...")."""
    spaces = set((view.get("board") or {}).get("spaces") or ())
    return _SPACE_ID.sub(lambda m: space_words(view, m.group(0)) if m.group(0) in spaces else m.group(0), text)
