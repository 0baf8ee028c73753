"""The referee's page at a game night (issue 29, item 3): what needs the referee stays in sight.

A board that does not match the game, a player's request to take a move back and the table's reply to
the button just pressed show in one strip that stays on screen wherever the page is scrolled; on a laptop
(1280x800) and a tablet (1024x768) the board, the turn, the actions and the virtual board fit one screen,
so a turn is played without scrolling. Phones (360, 390) keep their checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.games import get_game
from tests.web_panel.support.browser import check_phone_page, login, shot, watch_console
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.night_tables import on_screen, publish, terror
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bo", "Cy"]
MISMATCH = {"code": "tomb", "message": "The Wolf tomb is at end A on the board, but the game has it in the middle.",
            "guidance": "Slide the Wolf tomb back to the middle."}
GM: dict[str, Any] = {"paused": None, "out_of_service": [], "last_undo": None,
      "undo": {"steps": 1, "last": "Cy moves the boy pawn", "last_seat": 2, "stops_at": "the start"},
      "undo_request": {"seat": 2, "player": "Cy", "move": "Cy moves the boy pawn"}}
# What a turn needs on the referee's page: the board, whose turn it is and the dice, the buttons of the
# moves, the virtual board's hardware. A screen: a 1024x768 tablet held sideways, a 1280x800 laptop.
TURN_PARTS = ("#board", "#turn-card", "#actions", "#sim")
SCREENS = ((1280, 800), (1024, 768))
SCROLLS = {
    "at the top": "window.scrollTo(0, 0)",
    "at the virtual board": "document.getElementById('sim').scrollIntoView({block: 'center'})",
    "at the foot of the page": "window.scrollTo(0, document.documentElement.scrollHeight)",
}


def referee(pages: Any, served: PanelServer, fake: FakeTable, token: str, width: int, height: int) -> Any:
    page = pages(width, height)
    login(page, served.url, fake.table, token)
    page.wait_for_selector("#sim:not([hidden]) #sim-controls button")
    page.wait_for_selector("svg#board g.pawn")
    page.wait_for_function("document.getElementById('board').dataset.drawnWidth > 0")
    return page


@pytest.mark.parametrize("game", ["terror", "superstition"])
@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_a_turn_fits_one_screen(width: int, height: int, game: str, pages: Any, served: PanelServer,
                                fake: FakeTable, token: str) -> None:
    publish(fake, terror(PLAYERS) if game == "terror" else get_game(game).new(PLAYERS, 1))
    page = referee(pages, served, fake, token, width, height)
    page.evaluate("window.scrollTo(0, 0)")
    below = []
    for part in TURN_PARTS:
        box = page.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect();"
                            " return {top: r.top, bottom: r.bottom, right: r.right}; }", part)
        if box["bottom"] > height + 1 or box["right"] > width + 1:
            below.append(f"{part} ends at {round(box['bottom'])} px down, {round(box['right'])} px across")
    assert not below, f"at {width}x{height}, a turn needs scrolling: " + "; ".join(below)
    # Side by side: the virtual board is beside the board, not under it.
    board = page.locator("#board").bounding_box()
    sim = page.locator("#sim").bounding_box()
    assert board and sim and sim["x"] >= board["x"] + board["width"] - 1, (board, sim)


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_mismatch_request_and_reply_stay_in_sight(width: int, height: int, pages: Any, served: PanelServer,
                                                  fake: FakeTable, token: str) -> None:
    g = terror(PLAYERS)
    publish(fake, g)
    page = referee(pages, served, fake, token, width, height)
    publish(fake, g, seq=6, mismatch=MISMATCH, gm=GM)
    page.wait_for_selector("#mismatch:not([hidden])")
    page.wait_for_selector("#gm-request:not([hidden])")
    lost = []
    for where, scroll in SCROLLS.items():
        page.evaluate(scroll)
        for part in ("#mismatch", "#gm-request-text", "#gm-approve", "#gm-decline"):
            seen = on_screen(page, part)
            if not seen["ok"]:
                lost.append(f"{where}: {seen['why']} {seen.get('box')}")
    assert not lost, f"at {width}x{height}:\n" + "\n".join(lost)
    for target in ("#gm-approve", "#gm-decline"):
        box = page.locator(target).bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, (target, box)
    # A correction without its reason is refused on the page: the words come where the button was pressed.
    page.locator("#gm-trust").scroll_into_view_if_needed()
    page.click("#gm-trust")
    page.wait_for_function("document.getElementById('reply').textContent.includes('Say why')")
    seen = on_screen(page, "#reply")
    assert seen["ok"], f"at {width}x{height}, the reply to the button just pressed is out of sight: {seen}"
    shot(page, f"referee-strip-{width}")


def test_the_strip_on_a_phone(pages: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = terror(PLAYERS)
    publish(fake, g)
    page = pages(390, 844, mobile=True)
    errors = watch_console(page)
    login(page, served.url, fake.table, token)
    page.wait_for_selector("svg#board g.pawn")
    publish(fake, g, seq=6, mismatch=MISMATCH, gm=GM)
    page.wait_for_selector("#gm-request:not([hidden])")
    check_phone_page(page, "the referee's page with a mismatch and a request", errors, shot_name="phone-referee-strip")
    for width in (360, 390):
        page.set_viewport_size({"width": width, "height": 844})
        for where, scroll in SCROLLS.items():
            page.evaluate(scroll)
            for part in ("#mismatch", "#gm-approve", "#gm-decline"):
                seen = on_screen(page, part)
                assert seen["ok"], f"{width}px, {where}: {seen}"
