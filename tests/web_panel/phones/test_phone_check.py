"""``check_phone_page`` itself: it must catch what scrolls sideways on a phone, folds included.

The document's own scrollWidth does not see a wide table inside a scrolling box, nor one in a
closed fold; the check opens the folds and measures every element against the screen's sides.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web_panel.support.browser import check_phone_page

pytestmark = pytest.mark.browser

# data-ready: the ready signal the panel's pages set (ready.js); this page has nothing to load.
PAGE = """<!doctype html><html lang="en" data-ready="1"><head>
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>t</title></head><body><main><h1>Table</h1>{body}</main></body></html>"""
FOLDED_WIDE = """<details><summary style="display:block;min-height:48px">Other sensors</summary>
<div style="overflow-x:auto"><table><tr><td style="white-space:nowrap">The second Grave's sprung switch reads
cocked, changed 3 minutes ago, from the simulated board of the table</td></tr></table></div></details>"""


@pytest.fixture
def page(chromium: Any) -> Any:
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    yield ctx.new_page()
    ctx.close()


def test_a_wide_table_in_a_closed_fold_is_caught(page: Any) -> None:
    page.set_content(PAGE.format(body=FOLDED_WIDE))
    with pytest.raises(AssertionError, match="wider than the screen"):
        check_phone_page(page, "a wide fold", accessibility=False)
    assert page.evaluate("document.querySelector('details').open") is False  # the fold is put back


def test_a_page_that_fits_passes(page: Any) -> None:
    page.set_content(PAGE.format(body="<details><summary style='display:block;min-height:48px'>Other</summary>"
                                       "<p>Short words.</p></details>"))
    check_phone_page(page, "a narrow page", accessibility=False)


@pytest.mark.parametrize("shown", ["<p>playing as Ann at table <b>t98a2cdf2cd</b></p>",
                                   "<p>t98a2cdf2cd</p>", "<p>Join t98a2cdf2cd.</p>"])
def test_a_table_id_shown_as_text_is_caught(page: Any, shown: str) -> None:
    page.set_content(PAGE.format(body=shown).replace("<body>", '<body data-table="t98a2cdf2cd">'))
    with pytest.raises(AssertionError, match="the table id 't98a2cdf2cd' in the text"):
        check_phone_page(page, "a table id", accessibility=False)


def test_a_table_id_in_the_title_is_caught(page: Any) -> None:
    page.set_content(PAGE.format(body="<p>Table 98A2</p>").replace("<title>t</title>", "<title>t98a2cdf2cd</title>")
                     .replace("<body>", '<body data-table="t98a2cdf2cd">'))
    with pytest.raises(AssertionError, match="the table id 't98a2cdf2cd' in the title"):
        check_phone_page(page, "a table id", accessibility=False)


def test_a_table_id_in_an_address_or_an_attribute_passes(page: Any) -> None:
    page.set_content(PAGE.format(body='<ul><li data-table="t98a2cdf2cd"><a href="/t/t98a2cdf2cd" '
                                      'style="display:block;min-height:48px">Table 98A2</a></li></ul>'
                                      "<p>Or open http://pi.local:8080/t/t98a2cdf2cd/join on a phone.</p>"))
    check_phone_page(page, "a table by its name", accessibility=False)
