"""The club list's order on the server is the page's (index.js sorts with the browser's collator).

The server sends the list with the page; the page's script then draws it again from its stream. Were
the two orders different, rows would move under a person's finger as the script takes over.
"""

from __future__ import annotations

from typing import Any

import pytest

from web_panel.views.tables import natural

pytestmark = pytest.mark.browser

# index.js's collator, with its options.
PAGE_SORT = ("xs => xs.slice().sort(new Intl.Collator(undefined, {numeric: true, sensitivity: 'base'}).compare)")

WORDS = [
    # table ids: letters, digits, "_" and "-"
    "hall-7", "hall-49", "hall-40", "Hall-4", "hall_3", "hall-10", "bar-2", "bar2", "bar_2", "bar-02", "bar",
    "a1b", "a_b", "a-b", "ab", "x0", "x9", "x10", "x100", "x099", "T1-2", "t1-10", "t10-1",
    # names and rooms, as people write them
    "Bar 2", "Bar 10", "Bar", "Bar.2", "Ann's table", "Anns table", "the (big) table", "Crypt #3",
    "Crypt 3", "crypt", "Élan", "elan", "Zoë", "zoe", "Zora", "Tisch 2 + 3", "Tisch 2+3", "Tisch @ 2",
]


def test_the_servers_order_is_the_browsers(pages: Any) -> None:
    page = pages()
    page.goto("about:blank")
    in_browser = page.evaluate(PAGE_SORT, WORDS)
    assert sorted(WORDS, key=natural) == in_browser
    # and from another starting order too (the sort is stable: ties keep it, in both)
    backwards = WORDS[::-1]
    assert sorted(backwards, key=natural) == page.evaluate(PAGE_SORT, backwards)
