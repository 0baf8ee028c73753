"""A broker that hangs (stopped, not gone) or a network cut closes no connection: only the keepalive tells.

The panel's keepalive was 30 s: through a 20 s hang the pages said "broker: connected" and "online", and
every tap waited its five seconds in vain. Now the panel notices within 20 s (``KEEPALIVE_S``), and the
referee's page and the phones say it in words, and come back by themselves.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import Any

import pytest

from controller.games import get_game
from tests.support.broker import Broker
from tests.web_panel.phones.test_phone import join, publish
from tests.web_panel.support.browser import check_phone_page, login
from tests.web_panel.support.fake_table import FakeTable
from web_panel.mqtt._client import KEEPALIVE_S
from web_panel.server import PanelServer, start_panel
from web_panel.settings import PanelSettings

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BANNER = "document.getElementById('not-answering-title').textContent"
BADGE = "document.getElementById('status-badge').textContent"


@pytest.fixture
def table_on_its_own_broker(fresh_mosquitto: Broker, token: str) -> Iterator[tuple[Broker, FakeTable, PanelServer]]:
    fake = FakeTable(fresh_mosquitto.port, "hang-table", token)
    panel = start_panel(PanelSettings(broker_port=fresh_mosquitto.port, token=token, listen_port=0,
                                      command_timeout=3.0))
    try:
        yield fresh_mosquitto, fake, panel
    finally:
        if fresh_mosquitto.proc is not None:
            fresh_mosquitto.proc.send_signal(signal.SIGCONT)
        panel.close()
        fake.clear()
        fake.close()


def test_a_broker_that_hangs_is_told_on_every_page_and_they_come_back_by_themselves(
        phone: Any, table_on_its_own_broker: tuple[Broker, FakeTable, PanelServer], token: str) -> None:
    broker, fake, panel = table_on_its_own_broker
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    publish(fake, g)
    view = panel.app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.has_table(fake.table), 5)
    referee, referee_errors = phone(360)
    login(referee, panel.url, fake.table, token)
    player, errors = phone(390)
    join(player, panel.url, fake.table, token, g.current_player)
    referee.wait_for_function(f"{BADGE} === 'online'")
    club, club_errors = phone(390)
    club.goto(panel.url)
    club_badge = f"document.querySelector('#tables li[data-table=\"{fake.table}\"] .badge').textContent"
    club.wait_for_function(f"{club_badge} === 'online'")
    assert broker.proc is not None
    broker.proc.send_signal(signal.SIGSTOP)
    for page in (referee, player):
        page.wait_for_function(f"{BANNER} === 'The panel has lost touch with the table'",
                               timeout=(2 * KEEPALIVE_S + 10) * 1000)
        assert "message broker is out of reach" in page.text_content("#not-answering-message")
    assert referee.text_content("#status-badge") == "out of reach"
    club.wait_for_function(f"{club_badge} === 'out of reach'")  # the club list's line, as it last was
    assert club.text_content("#broker-state") == "lost touch with the tables"
    player.locator('button.act[data-kind="roll"]').tap()
    player.wait_for_function("document.getElementById('reply').textContent.includes('lost touch')")
    check_phone_page(referee, "the referee's page while the broker hangs", referee_errors)
    check_phone_page(player, "a phone while the broker hangs", [e for e in errors if "status of 503" not in e])
    check_phone_page(club, "the club list while the broker hangs", club_errors)
    broker.proc.send_signal(signal.SIGCONT)
    for page in (referee, player):
        page.wait_for_selector("#not-answering", state="hidden", timeout=20000)
    referee.wait_for_function(f"{BADGE} === 'online'", timeout=20000)
    club.wait_for_function(f"{club_badge} === 'online'", timeout=20000)
