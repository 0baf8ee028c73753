"""Driving the panel's pages in Chromium."""

from __future__ import annotations

import time
from typing import Any

from .conftest import ARTIFACTS

CLICK_ACTION = """(a) => {
  const same = (x, y) => JSON.stringify(x) === JSON.stringify(y) ||
    (x && y && typeof x === "object" && typeof y === "object" && !Array.isArray(x) &&
     Object.keys(x).length === Object.keys(y).length && Object.keys(x).every(k => same(x[k], y[k])));
  const b = [...document.querySelectorAll("button.act")].find(b => same(JSON.parse(b.dataset.action), a));
  if (!b) return false;
  b.click();
  return true;
}"""


def click_action(page: Any, action: dict[str, Any]) -> bool:
    """Click the page's button for ``action`` (params compared as JSON, key order aside)."""
    return bool(page.evaluate(CLICK_ACTION, action))


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def login(page: Any, base_url: str, table: str, token: str) -> None:
    # A panel that has just printed its address may not have had the table's retained topics yet
    # (its page is then a 404): wait until the panel knows the table, as a person would reload.
    deadline = time.monotonic() + 15
    while page.request.get(f"{base_url}api/t/{table}").status == 404 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    page.goto(f"{base_url}t/{table}")
    page.fill("#login-token", token)
    page.click("#login-submit")
    page.wait_for_selector("#controls")
