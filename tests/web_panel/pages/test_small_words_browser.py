"""The small words a game night tripped over (issue "Game night, second pass", item 11), read in Chromium.

"lost 1 card(s)", "collected red snack(s)", "undo stops at the game has just started", "--host" broken
between its dashes, "GPIO pins: online" and a sensor read from "gpio" on a virtual board, an export headed
"charset=utf-8; charset=utf-8", and a Home Assistant device called "Game table <id>".
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.referee.undo import UndoLog
from tests.web_panel.support.browser import login
from tests.web_panel.support.engine_state import play, public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser


def _log_text(page: Any) -> str:
    return str(page.text_content("#log") or "")


@pytest.mark.parametrize("width", [390, 360])
def test_counts_are_said_in_the_singular_and_the_plural(width: int, chromium: Any, served: PanelServer,
                                                          fake: FakeTable, token: str) -> None:
    g = play("terror", ["Ann", "Bo"], 3)
    fake.state(**public_state(g, fake.table, 0))
    ctx = chromium.new_context(viewport={"width": width, "height": 844}, bypass_csp=True)
    try:
        page = ctx.new_page()
        page.goto(served.url + f"t/{fake.table}")
        page.wait_for_selector("svg#board")
        fake.event("pawn_fell", {"seat": 0, "pawn": 0, "label": "girl", "cell": [4, 4], "discarded": 1}, seq=1)
        fake.event("pawn_fell", {"seat": 1, "pawn": 1, "label": "boy", "cell": [4, 4], "discarded": 2}, seq=2)
        page.wait_for_function("document.getElementById('log').textContent.includes('lost 2 cards.')")
        text = _log_text(page)
        assert "Ann's girl fell into a pit and lost 1 card." in text
        assert "(s)" not in text
        dogs = play("dogs", ["Ann", "Bo"], 3)
        fake.state(**public_state(dogs, fake.table, 3, game_id="g2"))
        fake.event("snack_collected", {"seat": 0, "x": 0, "y": 0, "snacks": ["red"]}, seq=4)
        fake.event("snack_collected", {"seat": 1, "x": 0, "y": 0, "snacks": ["red", "blue", "green"]}, seq=5)
        page.wait_for_function("document.getElementById('log').textContent.includes('green snacks.')")
        text = _log_text(page)
        assert "collected red snack." in text and "collected red, blue and green snacks." in text
        assert "(s)" not in text
    finally:
        ctx.close()


def test_the_referee_page_says_host_whole_and_a_virtual_board_as_such(chromium: Any, served: PanelServer,
                                                                        fake: FakeTable, token: str) -> None:
    g = play("terror", ["Ann", "Bo"], 3)
    fake.publish("status", {"state": "online", "table": fake.table, "game": "terror", "version": "test",
                            "since": 0, "simulate": True})
    fake.state(**public_state(g, fake.table, 0))
    fake.publish("health", {"links": {"gpio": {"state": "online", "backend": "MockFactory", "simulated": True}},
                            "warnings": []})
    fake.publish("sensors", {"sensors": {"tomb.wolf": {"value": "middle", "source": "gpio", "changed": 0, "seen": 0}}})
    ctx = chromium.new_context(viewport={"width": 360, "height": 844}, bypass_csp=True)
    try:
        page = ctx.new_page()
        login(page, served.url, fake.table, token)
        page.wait_for_function("document.getElementById('links').textContent.includes('virtual board')")
        links = str(page.text_content("#links"))
        assert "GPIO" not in links
        page.wait_for_selector("#sensors td.source", state="attached")
        sources = page.eval_on_selector_all("#sensors td.source", "tds => tds.map(t => t.textContent)")
        assert sources and all(s == "virtual board" for s in sources), sources
        host = page.locator("#join-local code")
        if host.count():  # shown when the panel listens on this machine only, as the test's does
            assert host.text_content() == "--host 0.0.0.0"
            assert host.evaluate("c => getComputedStyle(c).whiteSpace") == "nowrap"
            box = host.bounding_box()
            assert box is not None and box["height"] < 30  # one line: never "-" then "-host"
    finally:
        ctx.close()


def test_undo_at_the_start_says_so_in_a_sentence() -> None:
    g = play("terror", ["Ann", "Bo"], 3)
    log = UndoLog(g, (["Ann", "Bo"], 3, None))
    assert f"undo stops at {log.stops_at(g)}" == "undo stops at the start of the game"
