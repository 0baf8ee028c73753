"""Chromium and a phone on it: fixtures for every test that opens the panel's pages.

Registered for the whole suite (``pytest_plugins`` in ``tests/conftest.py``), so tests outside
``tests/web_panel`` (the whole chain on the emulated Pico) open their pages the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web_panel.support.browser import ARTIFACTS, PAGE_WAIT_MS, watch_console

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (scripts/test.sh does)")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def phone(chromium: Any) -> Iterator[Callable[..., tuple[Any, list[str]]]]:
    """``phone(width=390)``: a page on a phone of that width (from the start: a resize redraws the board a
    moment later, under a finger), and the list its console errors go to."""
    made: list[Any] = []

    def new(width: int = 390) -> tuple[Any, list[str]]:
        ctx = chromium.new_context(viewport={"width": width, "height": 844}, bypass_csp=True, has_touch=True,
                                   is_mobile=True, device_scale_factor=2)
        made.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        return page, watch_console(page)

    yield new
    for ctx in made:
        ctx.close()
