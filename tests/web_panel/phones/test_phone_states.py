"""The phone pages in the states ``test_phone.test_every_page_on_a_phone`` does not reach.

That sweep opens each page once, mid-game, as the player whose turn it is. A person at the table also
holds a phone while waiting for their turn, after the game is over, before their own view has come,
and after typing a wrong code: each is checked here at 360 and 390 CSS px with the same helper
(``support.browser.check_phone_page``: 44x44 targets, no sideways scroll, no id or coordinate, no
console error, no serious axe-core violation).
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.protocol.security import join_code
from tests.web_panel.phones.test_phone import GAMES, advance, join, publish
from tests.web_panel.support.browser import check_phone_page, open_page
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

THE_GAMES = ("terror", "superstition", "dogs")


@pytest.mark.parametrize("name", THE_GAMES)
def test_a_seated_player_waiting_for_their_turn(name: str, phone: Any, served: PanelServer, fake: FakeTable,
                                                token: str) -> None:
    game, seed, want = GAMES[name]
    g = advance(game, seed, want)
    publish(fake, g)
    player, errors = phone()
    waiting = 1 - g.current_player
    join(player, served.url, fake.table, token, waiting)
    player.wait_for_selector("svg#board g")
    check_phone_page(player, f"{name}: the page of the player who waits for their turn", errors,
                     shot_name=f"phone-{name}-waiting")


@pytest.mark.parametrize("name", THE_GAMES)
def test_a_finished_game(name: str, phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = advance(name, 0, lambda g: g.is_over, limit=20000)
    publish(fake, g)
    spectator, s_errors = phone()
    open_page(spectator, served.url + f"t/{fake.table}")
    spectator.wait_for_selector("#over:not([hidden])")
    # The line that says what the table waits for reads as a sentence once the game is over too.
    assert "Waiting for" not in spectator.inner_text(".waiting"), spectator.inner_text(".waiting")
    check_phone_page(spectator, f"{name}: a spectator's page of a finished game", s_errors,
                     shot_name=f"phone-{name}-over-spectator")
    for seat in (0, 1):
        player, errors = phone()
        join(player, served.url, fake.table, token, seat)
        player.wait_for_selector("#over:not([hidden])")
        assert player.is_hidden("#your-turn")
        assert player.text_content("#actions") == "The game is over."
        check_phone_page(player, f"{name}: the page of seat {seat + 1} after the game", errors,
                         shot_name=f"phone-{name}-over-player-{seat + 1}")


def test_a_player_whose_own_view_has_not_come_yet(phone: Any, served: PanelServer, fake: FakeTable,
                                                  token: str) -> None:
    game, seed, want = GAMES["superstition"]
    g = advance(game, seed, want)
    fake.publish("status", {"state": "online", "table": fake.table, "game": g.name, "version": "test", "since": 0})
    fake.state(**public_state(g, fake.table, 5))  # no private view published
    player, errors = phone()
    open_page(player, served.url + f"t/{fake.table}/join")
    player.fill("#join-code", join_code(token, fake.table, "g1", 0))
    player.click("button[type=submit]")
    player.wait_for_selector("#hand:has-text('not arrived')")
    check_phone_page(player, "a player's page before their own view came", errors)


def test_the_join_form_after_a_wrong_code(phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    publish(fake, advance(*GAMES["dogs"]))
    page, errors = phone()
    open_page(page, served.url + f"t/{fake.table}/join")
    page.fill("#join-code", "ZZZZZZ")
    page.click("button[type=submit]")
    page.wait_for_selector("#join-error")
    # The refusal is a 403 the browser logs as a failed load: that is the page working, not a script error.
    check_phone_page(page, "the join form after a wrong code", [e for e in errors if "403" not in e],
                     shot_name="phone-join-wrong-code")
