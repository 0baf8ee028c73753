"""On the Terror board the Headless Ghost stands in the Crypt's space without covering its "CRYPT" label,
standing or knocked off, at 360 and 390 CSS px."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web_panel.phones.test_phone import GAMES, advance, publish
from tests.web_panel.support.browser import PHONE_WIDTHS, open_page
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

OVERLAP = """() => {
  const label = document.querySelector('svg#board g.cell[data-type="crypt"] text');
  const ghost = document.querySelector("svg#board g.ghost");
  if (!label || !ghost) return "missing: " + (label ? "" : "label ") + (ghost ? "" : "ghost");
  const a = label.getBoundingClientRect(), b = ghost.getBoundingClientRect();
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0.5 && h > 0.5
    ? `the ghost (${JSON.stringify(b)}) covers ${w.toFixed(1)}x${h.toFixed(1)} px of the label (${JSON.stringify(a)})`
    : "";
}"""


@pytest.mark.parametrize("ghost", ["standing", "destroyed"])
def test_the_ghost_leaves_the_crypt_label_readable(ghost: str, pages: Any, served: PanelServer,
                                                   fake: FakeTable) -> None:
    game, seed, want = GAMES["terror"]
    g = advance(game, seed, want)
    publish(fake, g)
    state = public_state(g, fake.table, 5)
    view = state["view"]
    fake.state(**{**state, "view": {**view, "skull": {**(view.get("skull") or {}), "ghost": ghost}}})
    page = pages(390, 844, mobile=True)
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_selector(f'svg#board g.ghost[data-ghost="{ghost}"]')
    for width in PHONE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 844})
        assert page.evaluate(OVERLAP) == "", f"{width}px"
