"""``check_phone_page`` itself: it must catch what scrolls sideways on a phone, folds included.

The document's own scrollWidth does not see a wide table inside a scrolling box, nor one in a
closed fold; the check opens the folds and measures every element against the screen's sides.
"""

from __future__ import annotations

from typing import Any

import pytest

from .browser_helpers import check_phone_page

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
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
