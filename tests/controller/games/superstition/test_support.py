"""The shared set-up itself: ``begin`` hands the first turn to the seat asked for."""

from __future__ import annotations

from tests.controller.games.superstition.support import begin, new_game


def test_helpers_begin_gives_the_chosen_seat_the_first_turn() -> None:
    game = new_game(3)
    begin(game, first=2)
    assert game.current_player == 2
