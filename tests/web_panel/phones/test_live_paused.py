"""A page whose live updates the panel refused for room says why, in words, and goes live again by itself.

An EventSource refused with an HTTP error (the panel's live pages all taken, or the device's) is closed for
good and cannot read the answer. The table page and the phone's page then said "reconnecting…" and nothing
more; the club list and the table's cues never tried again at all, until the page was reloaded.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.games import get_game
from tests.web_panel.support.browser import check_phone_page, open_page
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import STREAMS_PER_CLIENT, PanelServer
from web_panel.stream_gate import StreamGate

pytestmark = pytest.mark.browser

LIVE = "document.getElementById('live-state').textContent === 'live'"


def test_a_page_refused_for_room_says_why_and_goes_live_again_by_itself(phone: Any, served: PanelServer,
                                                                         fake: FakeTable) -> None:
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    fake.publish("status", {"state": "online", "table": fake.table, "game": g.name, "version": "test", "since": 0})
    fake.state(**public_state(g, fake.table, 5))
    # A panel that keeps two live pages: the first watcher's table page takes both (its stream and its cues').
    served.app.extensions["gravekeeper_streams"] = StreamGate(STREAMS_PER_CLIENT, 2)
    first, _ = phone(390)
    open_page(first, f"{served.url}t/{fake.table}")
    first.wait_for_function(LIVE)
    first.wait_for_function("document.body.dataset.effectsOpen === 'yes'")
    watcher, errors = phone(360)
    open_page(watcher, f"{served.url}t/{fake.table}")
    watcher.wait_for_selector("#live-why", state="visible")
    said = watcher.text_content("#live-why")
    assert said.startswith("Live updates are paused. The panel already keeps 2 live pages open, all it can."), said
    assert "goes live again by itself" in said and fake.table not in said, said
    assert watcher.text_content("#live-state") == "paused"
    # Not a blank page meanwhile: the table as it is now, fetched (its turn, in words).
    watcher.wait_for_function("document.getElementById('turn').textContent === 'Ann'")
    club, club_errors = phone(390)
    open_page(club, served.url)
    club.wait_for_selector("#live-why", state="visible")
    assert club.text_content("#broker-state") == "live updates paused"
    assert "already keeps 2 live pages open" in club.text_content("#live-why")
    refused = [e for e in errors + club_errors if "status of 503" in e]
    check_phone_page(watcher, "a table page whose live updates were refused for room",
                     [e for e in errors if e not in refused], shot_name="live-paused")
    check_phone_page(club, "the club list refused for room", [e for e in club_errors if e not in refused])
    # Room again (a panel whose watchers left): each page goes live by itself, its words gone, its cues too.
    served.app.extensions["gravekeeper_streams"] = StreamGate(STREAMS_PER_CLIENT, 16)
    watcher.wait_for_function(LIVE, timeout=10000)
    watcher.wait_for_selector("#live-why", state="hidden")
    watcher.wait_for_function("document.body.dataset.effectsOpen === 'yes'", timeout=10000)
    club.wait_for_function("document.getElementById('broker-state').textContent === 'in touch with the tables'",
                           timeout=10000)
    club.wait_for_selector("#live-why", state="hidden")
    assert club.locator(f'#tables li[data-table="{fake.table}"]').count() == 1


def test_the_panel_says_why_a_devices_live_page_would_be_refused(app: Any, client: FlaskClient,
                                                                 fake: FakeTable) -> None:
    """What the page asks: nothing when there is room, the device's own limit (429) in words when it is full."""
    gate = app.extensions["gravekeeper_streams"] = StreamGate(1, 16)
    phone = {"REMOTE_ADDR": "192.0.2.7"}
    assert client.get(f"/api/live?table={fake.table}", environ_base=phone).get_json() == {"open": True}
    assert client.get("/api/live", environ_base=phone).get_json() == {"open": True}
    gate.enter("192.0.2.7")
    said = client.get(f"/api/live?table={fake.table}", environ_base=phone).get_json()
    assert said == {"open": False, "status": 429,
                    "why": "this device already has 1 live page open, the most the panel keeps for one device"}
    assert client.get("/api/live", environ_base={"REMOTE_ADDR": "192.0.2.8"}).get_json() == {"open": True}
    assert client.get("/api/live?table=nope", environ_base=phone).status_code == 404
