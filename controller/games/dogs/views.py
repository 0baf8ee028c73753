"""The public view of a Graveyard Dogs game: everything a panel needs to draw it.

It deliberately leaves out the three secrets: the order (and so the contents) of
the tile deck, the snack tin and the face-down spook pool. Only their sizes are
shown.
"""

from __future__ import annotations

import copy
from typing import Any

from .board import Graveyard
from .rules import winners
from .state import DogsState
from .tiles import GRAVE, JACK

FEATURE_NAMES = {JACK: "jack_o_lantern", GRAVE: "gravestone", ".": "plain"}


def public_view(st: DogsState, geo: Graveyard, decider: int | None, step: str) -> dict[str, Any]:
    tiles = []
    for p in st.placed:
        tile = st.tile(p.tile)
        grid = tile.rotated(p.rotation)
        tiles.append({
            "id": tile.id,
            "name": tile.name,
            "x": p.x,
            "y": p.y,
            "rotation": p.rotation,
            "size": tile.size,
            "grid": list(grid),
            "squares": [
                {"x": p.x + dx, "y": p.y + dy, "feature": FEATURE_NAMES[ch]}
                for dy, row in enumerate(grid) for dx, ch in enumerate(row)
            ],
        })
    drawn = None
    if st.drawn is not None:
        tile = st.tile(st.drawn)
        drawn = {"id": tile.id, "name": tile.name, "grid": list(tile.grid)}
    over = st.phase == "over"
    won = winners(st)
    pending = None
    if st.tasks:
        # Copied: the panel may edit its view, and the choices are the game's own lists.
        pending = {"step": step, "seat": decider,
                   **{k: copy.deepcopy(v) for k, v in st.tasks[0].items() if k != "t"}}
    return {
        "game": "dogs",
        "title": "Graveyard Dogs",
        "players": list(st.players),
        "phase": st.phase,
        "step": step,
        "turn": st.turn,
        "current_player": None if over else st.seat,
        "acting_player": decider,
        "tile_size": st.tiles[0].size,
        "bounds": (
            {"min_x": geo.min_x, "min_y": geo.min_y, "max_x": geo.max_x, "max_y": geo.max_y}
            if geo.features else None
        ),
        "tiles": tiles,
        "tiles_placed": len(st.placed),
        "tiles_total": len(st.tiles),
        "drawn_tile": drawn,
        "deck_count": len(st.deck),
        "tin_count": len(st.tin),
        "face_down_spooks": len(st.pool),
        "snacks": [
            {"x": x, "y": y, "colour": colour}
            for (x, y), cubes in sorted(st.board_snacks.items()) for colour in cubes
        ],
        "dogs": [
            {"seat": seat, "colour": st.colours[seat], "x": pos[0], "y": pos[1]}
            for seat, pos in enumerate(st.dogs) if pos is not None
        ],
        "spooks": [
            {"id": s.id, "kind": s.kind, "face_up": True, "x": s.pos[0], "y": s.pos[1], "snacks": list(s.snacks)}
            for s in st.spooks if s.pos is not None
        ],
        "cards": [
            {
                "seat": seat,
                "name": st.players[seat],
                "colour": st.colours[seat],
                "snacks": list(st.card_snacks[seat]),
                "spooks": [{"id": s.id, "kind": s.kind} for s in st.spooks if s.holder == seat],
                "score": st.score(seat),
                "two_spook_actions_next": st.gargoyled[seat],
            }
            for seat in range(len(st.players))
        ],
        "removed_snacks": list(st.removed),
        "dice": list(st.dice) if st.dice is not None else None,
        "dice_use": list(st.dice_use),
        "actions_left": list(st.slots),
        "rolls": [dict(r) for r in st.rolls],
        "pending": pending,
        "options": st.options.to_json(),
        "over": over,
        "scores": [st.score(seat) for seat in range(len(st.players))] if over else None,
        "winners": won,
        "friends": len(won) > 1,
    }
