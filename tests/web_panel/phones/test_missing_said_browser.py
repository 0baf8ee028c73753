"""What a player cannot do, said on their phone (issue "Game night, second pass", item 7), at 390 and 360 px.

- Terror: a pawn on the Crypt platform without a Magic Ring got no skull-drop button and no reason.
- Under --simulate a phone said "Slide the Wolf tomb…" and never that the referee does it on the virtual board.
- A winner still saw "Ask the referee to take back my last move".
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.games.terror import Terror
from tests.web_panel.phones.test_phone import join, publish
from tests.web_panel.support.browser import check_phone_page
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

WIDTHS = [390, 360]




def _terror(seat_turn: int, phase_name: str, number: int | None = None, symbol: str | None = None) -> Terror:
    from controller.games import get_game
    g = get_game("terror").new(["Ann", "Bo"], 1)
    assert isinstance(g, Terror)
    g.s.turn, g.s.phase, g.s.number, g.s.symbol = seat_turn, phase_name, number, symbol
    return g


@pytest.mark.parametrize("width", WIDTHS)
def test_a_pawn_on_the_crypt_without_a_ring_is_told_why(width: int, phone: Any, served: PanelServer,
                                                         fake: FakeTable, token: str) -> None:
    g = _terror(0, "move", 3, "wolf")
    g.s.pawns[0][0].pos = g.board.crypt
    publish(fake, g)
    page, errors = phone(width)
    join(page, served.url, fake.table, token, 0)
    page.wait_for_selector("#actions .why-not")
    said = page.text_content("#actions .why-not") or ""
    assert said.startswith("Your girl is on the Crypt platform: you need a Magic Ring")
    check_phone_page(page, "a pawn on the Crypt without a ring", errors, accessibility=False)


@pytest.mark.parametrize("width", WIDTHS)
def test_under_simulate_a_phone_says_the_referee_moves_the_virtual_board(width: int, phone: Any,
                                                                          served: PanelServer, fake: FakeTable,
                                                                          token: str) -> None:
    g = _terror(0, "tomb", 3, "wolf")
    assert g.expects(), "the tomb step waits for the board"
    publish(fake, g, simulate=True)
    page, _ = phone(width)
    join(page, served.url, fake.table, token, 0)
    page.wait_for_selector("#your-turn:not([hidden]) .your-turn-what")
    what = page.text_content("#your-turn .your-turn-what") or ""
    assert "Wolf" in what and what.endswith("The referee does it on the virtual board.")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_winner_is_not_offered_to_take_back_a_move(width: int, phone: Any, served: PanelServer,
                                                     fake: FakeTable, token: str) -> None:
    g = _terror(0, "over")
    g.s.winners = [0]
    state = public_state(g, fake.table, 9)
    state["gm"] = {"undo": {"steps": 1, "last": "Ann's girl moves to the Crypt", "last_seat": 0,
                            "moves": ["Ann's girl moves to the Crypt"], "stops_at": "the start of the game"},
                   "paused": False, "undo_request": None}
    fake.state(**state)
    for seat in (0, 1):
        fake.private(seat, {"seq": 9, "seat": seat, "game_id": "g1", "view": g.player_view(seat), "legal": []})
    page, _ = phone(width)
    join(page, served.url, fake.table, token, 0)
    page.wait_for_selector("#gm-player-info:has-text('The game is over.')")
    assert page.locator("#gm-ask").is_hidden()
