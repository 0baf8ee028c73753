"""The Crypt's two windows have one name everywhere: the rulebook's "Crypt window".

The referee's guidance, the self-test's prompts and findings (``hardware.words``) and the panel's sensor
strip and virtual board (``words_places.js``) all call ``chute.left`` "the left Crypt window"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.referee.guidance import label
from hardware.words import capital, part

pytestmark = [pytest.mark.browser]
STATIC = Path(__file__).resolve().parents[3] / "web_panel" / "static"


@pytest.mark.parametrize("side", ["left", "right"])
def test_every_page_and_message_calls_a_crypt_window_the_same(pages: Any, side: str) -> None:
    sensor = f"chute.{side}"
    assert part(sensor) == label(sensor) == f"the {side} Crypt window"
    page = pages()
    page.set_content("<!doctype html><title>words</title>")
    for script in ("words.js", "words_places.js"):
        page.add_script_tag(path=str(STATIC / script))
    shown = page.evaluate("(id) => window.GKWords.sensorName(id)", sensor)
    assert shown == capital(part(sensor).removeprefix("the ")), shown
