"""The panel names a Terror space with the engine's words: every space, every tomb configuration.

The panel words a space itself (its move buttons, a refusal's square), from the public view; the engine
words its refusals in ``controller/games/terror/words.py``. Both must say the same, and never a row or
a column: the page's ``terrorCell`` is run in Chromium on the default board and compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.games.terror.board import ALL_CONFIGS, load_board
from controller.games.terror.words import place_words
from tests.web_panel.support.browser import RAW_ID

pytestmark = [pytest.mark.browser]
STATIC = Path(__file__).resolve().parents[3] / "web_panel" / "static"


def test_the_panel_names_every_space_as_the_engine_does(pages: Any) -> None:
    page = pages()
    page.set_content("<!doctype html><title>words</title>")
    for script in ("words.js", "words_places.js"):
        page.add_script_tag(path=str(STATIC / script))
    board = load_board()
    for cfg in range(ALL_CONFIGS):
        view = {"board": board.describe(cfg), "tombs": board.config_tombs(cfg)}
        cells = [board.rc(i) for i, kind in enumerate(board.types(cfg)) if kind is not None]
        said = page.evaluate("([view, cells]) => cells.map(rc => window.GKWords.terrorCell({ view }, rc))",
                             [view, cells])
        for rc, words in zip(cells, said, strict=False):
            assert words == place_words(board, cfg, board.cell(rc)), (cfg, rc, words)
            assert not RAW_ID.search(words), words
