"""The public view carries every space's words as the tombs stand (``places``): the panel's one source."""

from __future__ import annotations

from controller.games.terror import Terror
from controller.games.terror.board import ALL_CONFIGS
from controller.games.terror.words import place_grid, place_words


def test_the_view_names_every_space_of_the_board_as_the_tombs_stand() -> None:
    game = Terror.new(["Ann", "Bo", "Cy"], 7)
    board = game.board
    for cfg in range(ALL_CONFIGS):
        game.s.tombs = board.config_tombs(cfg)
        places = game.public_view()["places"]
        assert len(places) == board.rows and all(len(row) == board.cols for row in places)
        types = board.types(cfg)
        for index, kind in enumerate(types):
            r, c = board.rc(index)
            assert places[r][c] == (None if kind is None else place_words(board, cfg, index)), (cfg, r, c)


def test_a_view_cannot_change_the_next_views_words() -> None:
    game = Terror.new(["Ann", "Bo"], 1)
    first = game.public_view()["places"]
    first[0][0] = "changed by a caller"
    assert game.public_view()["places"][0][0] != "changed by a caller"
    assert place_grid(game.board, game.cfg) == game.public_view()["places"]
