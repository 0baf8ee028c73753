"""In Chromium: a forged game published on the broker never shows on the table page of a panel with the token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tests.support.broker import Broker
from tests.web_panel.security.test_forged_publications import FORGED_STATE
from tests.web_panel.support.browser import PAGE_WAIT_MS, open_page, shot
from tests.web_panel.support.service_runner import RunningService, start_service

pytestmark = pytest.mark.browser


@pytest.fixture
def service(mosquitto: Broker, tmp_path: Path, token: str, table_id: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, token)
    yield svc
    svc.stop()


def test_the_table_page_never_shows_a_forged_state_event_or_health(chromium: Any, service: RunningService,
                                                                    mosquitto: Broker) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Every text the page ever draws, so a forgery shown for a moment and replaced is caught too.
    page.add_init_script("""
      window.gkTexts = [];
      new MutationObserver(() => window.gkTexts.push(document.body.innerText))
        .observe(document, {subtree: true, childList: true, characterData: true});
    """)
    forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="page-forger")
    forger.connect(mosquitto.host, mosquitto.port)
    forger.loop_start()
    try:
        open_page(page, f"{service.panel_url}t/{service.table}")
        page.wait_for_function("() => window.gkLive && window.gkLive.state && window.gkLive.state.players")
        assert "Signed by the table" in page.inner_text("#trust")
        base = f"gravekeeper/{service.table}"
        forged_event = {"seq": 2, "table": service.table, "type": "game_over", "time": 1.0,
                        "data": {"text": "FORGED won"}}
        for topic, body, retain in ((f"{base}/state", FORGED_STATE, True),
                                    (f"{base}/events", forged_event, False),
                                    (f"{base}/health", {"time": 9e9, "warnings": ["FORGED: unplug the board"]},
                                     True)):
            forger.publish(topic, json.dumps(body), qos=1, retain=retain).wait_for_publish(5)
        # The panel said so on the page: all three arrived and were refused.
        page.wait_for_function("() => /refused 3 messages/.test(document.getElementById('trust').textContent)")
        shot(page, "forged-publications-refused")
        texts = page.evaluate("window.gkTexts.concat([document.body.innerText])")
        assert not any("FORGED" in t for t in texts)
        assert "FORGED" not in json.dumps(page.evaluate("[gkLive.state, gkLive.events, gkLive.health]"))
        assert page.evaluate("gkLive.state.players") == ["Ann", "Bo"]
        assert "trust refused" in page.get_attribute("#trust", "class")
        assert errors == []
    finally:
        forger.disconnect()
        forger.loop_stop()
        context.close()
