"""Retained states built from the real rules engines, for a fake table to publish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.games import Action, Game, get_game


def play(game: str, players: Sequence[str], seed: int, actions: Sequence[Action] = ()) -> Game:
    g = get_game(game).new(list(players), seed)
    for a in actions:
        g.apply(a)
    return g


def public_state(g: Game, table: str, seq: int, game_id: str = "g1", board: str = "manual") -> dict[str, Any]:
    """The shape ``docs/topics.md`` gives the retained state."""
    exp = [] if g.is_over else g.expects()
    seat = g.current_player
    return {
        "seq": seq, "table": table, "game": g.name, "game_id": game_id, "players": list(g.players),
        "current_player": seat, "over": g.is_over, "winners": list(g.winners), "view": g.public_view(),
        "legal": [a.to_json() for a in g.public_actions()], "expects": [e.to_json() for e in exp],
        "waiting_for": exp[0].prompt if exp else (f"{g.players[seat]} to play." if seat is not None else "Over."),
        "mismatch": None, "board": board,
    }

