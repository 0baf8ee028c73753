"""Every page calls the table by its name, at 360 and 390 CSS px: in the title, the heading, the club list,
the join and player pages, self-test and history; the id stays in URLs and data attributes only.
``check_phone_page`` fails a page that shows the table's id as text or in its title."""

from __future__ import annotations

from typing import Any

import pytest

from controller.protocol.names import default_name
from tests.web_panel.phones.test_phone import GAMES, advance, join, publish
from tests.web_panel.support.browser import PHONE_WIDTHS, check_phone_page, login, open_page
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

NAME = "The kitchen table 🦇"


def named(fake: FakeTable, name: str | None, game: str) -> None:
    fake.publish("status", {"state": "online", "table": fake.table, "game": game, "version": "test", "since": 0,
                            **({"name": name} if name is not None else {})})


def reads(page: Any, name: str, table: str, where: str) -> None:
    """``name`` in the page's title and text at both widths, the id in neither (check_phone_page does that too)."""
    for width in PHONE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 844})
        text = page.evaluate("document.body.innerText")
        assert name in text, f"{where} at {width}px does not name the table: {text[:300]!r}"
        assert name in page.title(), f"{where}: the title {page.title()!r} does not name the table"
    assert table in (page.evaluate("document.body.dataset.table || ''") +
                     page.evaluate("[...document.querySelectorAll('[data-table]')].map(e => e.dataset.table).join()"))


@pytest.mark.parametrize("name", [NAME, None], ids=["named", "unnamed"])
def test_every_page_calls_the_table_by_its_name(name: str | None, pages: Any, served: PanelServer, fake: FakeTable,
                                                token: str) -> None:
    game, seed, want = GAMES["terror"]
    g = advance(game, seed, want)
    publish(fake, g)
    named(fake, name, game)
    shown = name or default_name(fake.table)
    view = served.app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.table_name(fake.table) == shown, 5)
    url = served.url

    page = pages(390, 844, mobile=True)
    open_page(page, url)
    page.wait_for_selector(f'li[data-table="{fake.table}"] .club-name')
    assert page.text_content(f'li[data-table="{fake.table}"] .club-name') == shown
    check_phone_page(page, "the club list")

    open_page(page, url + f"t/{fake.table}")
    page.wait_for_selector("svg#board g")
    reads(page, shown, fake.table, "the table page")
    check_phone_page(page, "a spectator's table page")

    open_page(page, url + f"t/{fake.table}/join")
    assert page.text_content("h1") == f"Join {shown}"
    reads(page, shown, fake.table, "the join page")
    check_phone_page(page, "the join page")

    open_page(page, url + f"t/{fake.table}/selftest")
    page.wait_for_selector("#login-card")
    reads(page, shown, fake.table, "the self-test page")
    check_phone_page(page, "the self-test page")

    open_page(page, url + f"t/{fake.table}/history")
    page.wait_for_selector("#games-note")
    reads(page, shown, fake.table, "the history page")
    check_phone_page(page, "the history page", accessibility=False)  # the fake table keeps no journal

    player = pages(390, 844, mobile=True)
    join(player, url, fake.table, token, 0)
    assert player.text_content("#table-name") == shown
    reads(player, shown, fake.table, "the player page")
    check_phone_page(player, "the player's page")

    referee = pages(390, 844, mobile=True)
    login(referee, url, fake.table, token)
    referee.wait_for_selector("svg#board g")
    reads(referee, shown, fake.table, "the referee's table page")
    check_phone_page(referee, "the referee's table page")
