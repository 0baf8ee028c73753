"""Superstition on a phone: placing the Whammy is a choice of its own, never a tap meant as a move.

At a game night a player holding a Whammy rolled, tapped a green destination, and the Whammy went onto
that space with no confirm bar: every free space was ringed green just like the two real destinations.
Played here by taps only, at 390 and 360 CSS px, against a fake table that publishes real engine states.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.games import Game, get_game
from tests.web_panel.phones.test_phone import join, publish, sent_action, tap
from tests.web_panel.support.browser import DRAWN_FOR_WIDTH, check_phone_page
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser




def holding_a_whammy_after_a_throw(seed: int, limit: int = 6000) -> Game:
    """A random game (Whammies kept in hand) until the player to move has thrown, may move, and holds one."""
    g = get_game("superstition").new(["Ann", "Bo"], seed)
    rnd = random.Random(seed)
    for _ in range(limit):
        if rolled_holding_a_whammy(g):
            return g
        la = [a for a in g.legal_actions() if a.kind != "place_whammy"]  # keep it in hand, as the player did
        cur = [a for a in la if a.player == g.current_player and a.kind not in ("end_turn", "back")] or la
        g.apply(rnd.choice(cur))
    raise AssertionError(f"no Superstition game with seed {seed} got there in {limit} actions")


def rolled_holding_a_whammy(g: Game) -> bool:
    """The player to move has thrown the dice, has somewhere to go, and holds a Whammy to place."""
    v = g.public_view()
    seat = g.current_player
    mine = [a for a in g.legal_actions() if a.player == seat]
    return (v["phase"] == "move" and any(a.kind == "move" for a in mine)
            and any(a.kind == "place_whammy" for a in mine))


@pytest.mark.parametrize("width", [390, 360])
def test_a_tap_on_a_destination_is_a_move_and_the_whammy_is_placed_only_when_chosen(
        width: int, phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = holding_a_whammy_after_a_throw(3)
    publish(fake, g)
    seat = g.current_player
    move = next(a for a in g.legal_actions() if a.kind == "move" and a.player == seat)
    player, errors = phone(width)
    join(player, served.url, fake.table, token, seat)
    fake.handler = lambda name, cmd: {"ok": True}

    # Before any choice: only the throw's destinations are green, and no space offers the Whammy.
    player.wait_for_selector("svg#board g.walk")
    assert player.locator("svg#board g.space.legal").count() == 0
    assert player.locator("#whammy-place").is_visible()

    # A tap on a destination proposes the move, with its confirm bar; nothing is sent, nothing is placed.
    tap(player, f'svg#board g.walk[data-walk~="{move.params["direction"]}"]')
    player.wait_for_selector("#confirm:not([hidden])")
    assert fake.commands == []
    proposed = player.get_attribute("#confirm-send", "data-action")
    assert proposed is not None and '"kind":"move"' in proposed.replace(" ", "")
    assert "Whammy" not in (player.text_content("#confirm-text") or "")
    player.locator("#confirm-cancel").tap()
    player.wait_for_selector("#confirm", state="hidden")

    # Placing is its own choice: then only where the Whammy may go is green, and the moves are not.
    player.locator("#whammy-place").tap()
    player.wait_for_selector("svg#board g.space.legal")
    assert player.locator("svg#board g.walk").count() == 0
    assert player.locator("#whammy-back").is_visible()
    check_phone_page(player, "superstition: choosing where the Whammy goes", errors,
                     shot_name="phone-superstition-whammy-choosing")
    player.set_viewport_size({"width": width, "height": 844})
    player.wait_for_function(DRAWN_FOR_WIDTH)  # the board redrawn for this width before the next tap

    # A tap on a space proposes the placement; it is sent only from the confirm bar.
    space = player.get_attribute("svg#board g.space.legal >> nth=0", "data-space")
    assert space
    tap(player, f'svg#board g.space.legal[data-space="{space}"]')
    player.wait_for_selector("#confirm:not([hidden])")
    player.wait_for_selector("svg#board g.whammy-preview")
    assert fake.commands == []
    words = player.text_content("#confirm-text") or ""
    assert words.startswith("Place the Whammy on") and words.endswith("?")
    assert player.text_content("#confirm-send") == "Place it here"
    player.locator("#confirm-send").tap()
    assert sent_action(fake) == {"kind": "place_whammy", "player": seat, "params": {"space": space}}


def test_going_back_from_placing_offers_the_moves_again(phone: Any, served: PanelServer, fake: FakeTable,
                                                        token: str) -> None:
    g = holding_a_whammy_after_a_throw(3)
    publish(fake, g)
    player, _ = phone()
    join(player, served.url, fake.table, token, g.current_player)
    player.locator("#whammy-place").tap()
    player.wait_for_selector("svg#board g.space.legal")
    player.locator("#whammy-back").tap()
    player.wait_for_selector("svg#board g.walk")
    assert player.locator("svg#board g.space.legal").count() == 0
    assert fake.commands == []
