"""The words of an owner's new files: refused for a new game in words, still replayed from a journal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import BadGameData, get_game
from controller.games.dogs import DEFAULT_TILES_PATH
from controller.games.superstition import DEFAULT_BOARD_PATH as SUPERSTITION_BOARD
from controller.games.terror import DEFAULT_CARDS
from tests.controller.games.board_cases import RAW


def _tiles(**edit: Any) -> dict[str, Any]:
    doc = json.loads(DEFAULT_TILES_PATH.read_text(encoding="utf-8"))
    doc["tiles"][1].update(edit)
    return doc


@pytest.mark.parametrize(("game", "option", "doc", "reason"), [
    ("dogs", "tiles", _tiles(name="Moon" * 40), "Tile 2 has a name that is too long: 160 characters, at most 60."),
    ("dogs", "tiles", _tiles(name="Pumpkin  patch"), "Tile 2, “Pumpkin  patch”, has the same name as tile 1"),
    ("dogs", "tiles", _tiles(name=""), "Tile 2 has no name"),
    ("terror", "cards", {**json.loads(DEFAULT_CARDS.read_text(encoding="utf-8")), "name": 3},
     "The file's name must be written as text."),
    ("superstition", "board", {**json.loads(SUPERSTITION_BOARD.read_text(encoding="utf-8")), "notes": "n" * 2001},
     "The file's notes are too long: 2001 characters, at most 2000."),
])
def test_a_new_game_refuses_bad_words_but_a_journal_replays_them(game: str, option: str, doc: Any,
                                                                 reason: str) -> None:
    cls = get_game(game)
    with pytest.raises(BadGameData) as caught:
        cls.check_new_options({option: doc})
    assert reason in (caught.value.reason or ""), caught.value.reason
    assert not RAW.search(caught.value.reason or "")
    cls.new(["Ann", "Bo"], 7, {option: doc})  # a game a journal holds still starts again as it was played


def test_the_default_files_pass() -> None:
    for game, option, path in (("dogs", "tiles", DEFAULT_TILES_PATH), ("terror", "cards", DEFAULT_CARDS),
                               ("superstition", "board", SUPERSTITION_BOARD)):
        get_game(game).check_new_options({option: json.loads(path.read_text(encoding="utf-8"))})
