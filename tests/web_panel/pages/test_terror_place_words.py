"""The panel names a Terror space with the engine's words: every space, every tomb configuration.

The words have one source, ``place_words`` in ``controller/games/terror/words.py``: the panel adds them to
every Terror state it hands a page (``view.places``, ``web_panel.terror_places``) and the page's
``terrorCell`` looks them up. Run in Chromium on the state the engine makes for each of the default
board's configurations, as the panel passes it on, the page says the engine's words for every space,
and never a row or a column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.games.terror import Terror
from controller.games.terror.board import ALL_CONFIGS
from controller.games.terror.words import place_words
from tests.web_panel.support.browser import RAW_ID
from web_panel.terror_places import with_places

pytestmark = [pytest.mark.browser]
STATIC = Path(__file__).resolve().parents[3] / "web_panel" / "static"


def test_the_panel_names_every_space_as_the_engine_does(pages: Any) -> None:
    page = pages()
    page.set_content("<!doctype html><title>words</title>")
    for script in ("words.js", "words_places.js"):
        page.add_script_tag(path=str(STATIC / script))
    game = Terror.new(["Ann", "Bo"], 1)
    board = game.board
    for cfg in range(ALL_CONFIGS):
        game.s.tombs = board.config_tombs(cfg)
        view = with_places({"game": "terror", "view": game.public_view()})["view"]
        cells = [board.rc(i) for i in range(board.rows * board.cols)]
        said = page.evaluate("([view, cells]) => cells.map(rc => window.GKWords.terrorCell({ view }, rc))",
                             [view, cells])
        for rc, words in zip(cells, said, strict=True):
            index = board.cell(rc) if board.static[rc[0] * board.cols + rc[1]] is not None else None
            expected = "a space not on the board" if index is None else place_words(board, cfg, index)
            assert words == expected, (cfg, rc, words)
            assert not RAW_ID.search(words), words


def test_a_state_without_the_words_says_a_space(pages: Any) -> None:
    """A state whose board the panel could not read has no words: "a space", never a coordinate."""
    page = pages()
    page.set_content("<!doctype html><title>words</title>")
    for script in ("words.js", "words_places.js"):
        page.add_script_tag(path=str(STATIC / script))
    view = {k: v for k, v in Terror.new(["Ann", "Bo"], 1).public_view().items() if k != "places"}
    assert page.evaluate("(view) => window.GKWords.terrorCell({ view }, [2, 4])", view) == "a space"
