"""Seats told apart by more than colour (issue 29, item 5), on the boards of all three games.

Every seat's pieces carry the player's initial (two letters where two players share one), so a player
who cannot tell two colours apart reads whose piece it is; the legend says which mark is whose.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.games import Game, get_game
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

# Ann and Abe share an initial: their marks are told apart by a second letter.
PLAYERS = ["Ann", "Abe", "Bo", "Cy"]
MARKS = ["An", "Ab", "B", "C"]
PIECES = {"terror": "g.pawn", "superstition": "g.pawn", "dogs": "g.dog"}


def dogs_placed() -> Game:
    """A Graveyard dogs game played at random until every seat's dog is on the board."""
    g = get_game("dogs").new(PLAYERS, 1)
    rnd = random.Random(1)
    for _ in range(200):
        if len(g.public_view()["dogs"]) == len(PLAYERS):
            return g
        la = g.legal_actions()
        g.apply(rnd.choice([a for a in la if a.player == g.current_player] or la))
    raise AssertionError("the dogs were not all placed in 200 moves")


GAMES = {
    "terror": lambda: get_game("terror").new(PLAYERS, 3),
    "superstition": lambda: get_game("superstition").new(PLAYERS, 1),
    "dogs": dogs_placed,
}

MARKS_DRAWN = """(sel) => [...document.querySelectorAll("svg#board " + sel)].map(g => {
  const t = g.querySelector("text.seat-mark");
  return {seat: Number(g.dataset.seat), mark: t ? t.textContent : null,
          shown: t ? t.getBoundingClientRect().width > 0 && getComputedStyle(t).display !== "none" : false};
})"""


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("width", [360, 390])
def test_each_seat_carries_its_mark(name: str, width: int, pages: Any, served: PanelServer, fake: FakeTable) -> None:
    g = GAMES[name]()
    fake.publish("status", {"state": "online", "table": fake.table, "game": name, "version": "test", "since": 0})
    fake.state(**public_state(g, fake.table, 5))
    page = pages(width, 800, mobile=True)
    page.goto(served.url + f"t/{fake.table}")
    page.wait_for_function(f"document.querySelectorAll('svg#board {PIECES[name]}').length >= 4")
    drawn = page.evaluate(MARKS_DRAWN, PIECES[name])
    wrong = [d for d in drawn if d["mark"] != MARKS[d["seat"]] or not d["shown"]]
    assert not wrong, f"{name} at {width}px: pieces without their seat's mark: {wrong}"
    assert {d["seat"] for d in drawn} == {0, 1, 2, 3}
    # The legend says whose mark is whose, in words.
    page.locator("#board-legend summary").click()
    legend = page.text_content("#board-legend-items") or ""
    for player, mark in zip(PLAYERS, MARKS, strict=True):
        assert f"{mark}: {player}" in legend, (name, legend)
