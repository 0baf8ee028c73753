"""What a page says when the panel's answer cannot be used (api.js): in plain words, never a raw status.

In Chromium against a fake table on the real broker. The panel's answer is replaced in the browser
(Playwright's routing) by what a broken proxy or a lost network gives: a page that is not JSON, or
no answer at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web_panel.support.browser import login, open_page
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

NOT_JSON = {"status": 502, "body": "Bad Gateway", "content_type": "text/plain"}
REPLY_SAYS = "(t) => document.getElementById('reply').textContent.includes(t)"


def test_a_command_without_an_answer_is_refused_in_plain_words(pages: Any, served: PanelServer, fake: FakeTable,
                                                               token: str) -> None:
    fake.state(legal=[{"kind": "roll", "player": 0, "params": {}}])
    page = pages(390, 844)
    login(page, served.url, fake.table, token)
    button = page.locator("#actions button.act").first
    button.wait_for()
    fake.handler = lambda name, cmd: {"ok": False, "error": "not your turn"}
    button.click()
    page.wait_for_function(REPLY_SAYS, arg="refused: not your turn")  # the table's own words, as before

    page.route("**/cmd/**", lambda route: route.fulfill(**NOT_JSON))
    button.click()
    page.wait_for_function(REPLY_SAYS, arg="refused: the panel answered 502")
    page.unroute("**/cmd/**")
    page.route("**/cmd/**", lambda route: route.abort())
    button.click()
    page.wait_for_function(REPLY_SAYS, arg="refused: the panel cannot be reached")
    assert page.get_attribute("#reply", "class") == "reply err"


def test_a_history_the_panel_cannot_give_says_why(pages: Any, served: PanelServer, fake: FakeTable,
                                                  token: str) -> None:
    page = pages(390, 844)
    login(page, served.url, fake.table, token)
    page.route(f"**/api/t/{fake.table}/history", lambda route: route.fulfill(**NOT_JSON))
    open_page(page, served.url + f"t/{fake.table}/history")
    page.wait_for_selector("#history-error:not([hidden])")
    assert page.text_content("#history-error") == "The history could not be read: the panel answered 502"
