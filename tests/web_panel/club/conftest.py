"""Fixtures of the club pages' tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web_panel.support.browser import PAGE_WAIT_MS


@pytest.fixture(params=[(360, 740), (390, 844), (1920, 1080)], ids=["phone360", "phone390", "projector"])
def page(chromium: Any, request: Any) -> Iterator[Any]:
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == [], f"the page's scripts failed: {errors}"
