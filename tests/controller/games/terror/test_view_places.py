"""Every space of a public view's board in the engine's words (``view_places``): the panel's one source."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games.terror import DEFAULT_BOARD, Terror, load_board, view_places
from controller.games.terror.board import ALL_CONFIGS
from controller.games.terror.words import place_words


def test_a_views_board_is_worded_as_the_engine_words_it_for_every_placing_of_the_tombs() -> None:
    game = Terror.new(["Ann", "Bo", "Cy"], 7)
    board = game.board
    for cfg in range(ALL_CONFIGS):
        game.s.tombs = board.config_tombs(cfg)
        places = view_places(game.public_view())
        assert places is not None and len(places) == board.rows and all(len(r) == board.cols for r in places)
        for index, kind in enumerate(board.types(cfg)):
            r, c = board.rc(index)
            assert places[r][c] == (None if kind is None else place_words(board, cfg, index)), (cfg, r, c)


def test_an_owners_board_is_worded_from_its_own_view() -> None:
    """A board of the owner's own (here the default with two more rows): the words are that board's."""
    data = json.loads(DEFAULT_BOARD.read_text())
    data["layout"] = data["layout"] + ["." * len(data["layout"][0])] * 2
    game = Terror.new(["Ann", "Bo"], 3, {"board": data})
    board = game.board
    assert board.rows == load_board().rows + 2
    places = view_places(game.public_view())
    assert places is not None and len(places) == board.rows
    for index, kind in enumerate(board.types(game.cfg)):
        r, c = board.rc(index)
        assert places[r][c] == (None if kind is None else place_words(board, game.cfg, index))


def test_a_caller_cannot_change_the_next_answer() -> None:
    view = Terror.new(["Ann", "Bo"], 1).public_view()
    first = view_places(view)
    assert first is not None
    first[0][0] = "changed"
    assert (view_places(view) or [[None]])[0][0] != "changed"


@pytest.mark.parametrize("breaks", [
    lambda v: v.pop("board"),
    lambda v: v.update(tombs={"wolf": "end_a"}),
    lambda v: v.update(tombs={"mummy": "up", "monster": "middle", "wolf": "end_a"}),
    lambda v: v["board"].update(rows=10_000, cols=10_000),
    lambda v: v["board"].update(rows=True),
    lambda v: v["board"].update(cells=[["grass"]]),
    lambda v: v["board"].update(gate=[99, 99]),
    lambda v: v["board"].update(exit="the exit"),
    lambda v: v["board"]["platforms"].pop("wolf"),
    lambda v: v["board"]["platforms"]["wolf"].update(track={"end_a": [0]}),
    lambda v: v["board"].update(platforms=[]),
])
def test_a_view_that_is_no_board_gives_no_words(breaks: Any) -> None:
    view = Terror.new(["Ann", "Bo"], 1).public_view()
    breaks(view)
    assert view_places(view) is None
    assert view_places(None) is None and view_places({"board": {}, "tombs": []}) is None
