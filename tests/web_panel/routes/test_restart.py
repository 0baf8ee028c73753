"""Killed and started again mid-game: the referee and both players carry on, no new login or join code.

``gravekeeper run --simulate`` (controller and panel child) on a real Mosquitto,
with no token in its config: the table makes one and keeps it beside the
journal. A referee and two players, each in their own browser context at
phone size, are in a game when the process is killed with SIGKILL (the panel
child goes with it) and started again on the same port. Then:

* the printed token is the same, and so are the join codes;
* the referee's page still has its controls and its codes, without logging in;
* each player's page comes back live on its own, is never told to join
  again, and the player whose turn it is plays from it.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.support.broker import Broker
from tests.web_panel.support.browser import open_page, wait_ready
from tests.web_panel.support.service_runner import RunningService, start_service

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def contexts(pages: Any) -> Any:
    """Phone-sized pages, each in its own context, with time for a restarted service to answer."""
    return lambda: pages(PHONE["width"], PHONE["height"], timeout=15000)


def kill_9(service: RunningService) -> None:
    service.proc.send_signal(signal.SIGKILL)
    service.proc.wait(10)


def codes_on(page: Any) -> list[str]:
    page.wait_for_function("document.querySelectorAll('#codes li code').length === 2")
    return [c.strip() for c in page.locator("#codes li code").all_inner_texts()]


def seq(page: Any) -> int:
    return int(page.evaluate("window.gkLive.state.seq"))


def play_one(referee: Any, players: list[Any]) -> None:
    """The seat whose turn it is makes its first move from its own phone; the referee sees it land.

    Superstition's first actions (rolls, then a direction round the path) are buttons on the phone.
    """
    seat = int(referee.evaluate("window.gkLive.state.current_player"))
    before = seq(referee)
    phone = players[seat]
    phone.wait_for_selector("#actions button.act:not([disabled])")
    phone.locator("#actions button.act").first.click()
    referee.wait_for_function("(n) => window.gkLive.state.seq > n", arg=before)


def test_controller_and_panel_killed_and_restarted_mid_game(mosquitto: Broker, tmp_path: Path,
                                                             table_id: str, contexts: Any) -> None:
    service = start_service(mosquitto, tmp_path, table_id, None, game="superstition")
    port = int(service.panel_url.rstrip("/").rsplit(":", 1)[1])
    try:
        referee = contexts()
        open_page(referee, f"{service.panel_url}t/{table_id}")
        referee.fill("#login-token", service.token)
        referee.click("#login-submit")
        referee.wait_for_selector("#controls")
        referee.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        codes = codes_on(referee)

        players = []
        for code in codes:
            phone = contexts()
            open_page(phone, f"{service.panel_url}t/{table_id}/join")
            phone.fill("#join-code", code)
            phone.click("#join-form button[type=submit]")
            phone.wait_for_url(f"**/t/{table_id}/me")
            wait_ready(phone)
            phone.wait_for_function("document.getElementById('live-state').textContent === 'live'")
            players.append(phone)
        play_one(referee, players)
        opened = [p.evaluate("window.gkLive.opened") for p in [referee, *players]]

        kill_9(service)
        assert (tmp_path / f"{table_id}.token").stat().st_mode & 0o777 == 0o600
        first_token = service.token
        service = start_service(mosquitto, tmp_path, table_id, None, game="superstition", port=port)
        assert service.token == first_token  # kept beside the journal, not made afresh
        assert f":{port}/" in service.panel_url

        # Every page reconnects by itself: no reload, no login, no join code.
        for page, before in zip([referee, *players], opened, strict=False):
            page.wait_for_function("(n) => window.gkLive.opened > n && "
                                   "document.getElementById('live-state').textContent === 'live'", arg=before)
        for phone in players:
            assert phone.locator("#left").is_hidden(), phone.locator("#left").inner_text()
        assert referee.locator("#controls").is_visible()

        # The token was kept, so the codes are the same: the referee's page fetches them again.
        answer = referee.evaluate(
            "async () => (await fetch(document.body.dataset.codes, {credentials: 'same-origin'})).json()")
        assert [c["code"] for c in answer["codes"]] == codes

        play_one(referee, players)
        play_one(referee, players)

        # A reload is a new page load: still logged in, still seated.
        referee.reload()
        wait_ready(referee)
        referee.wait_for_selector("#controls")
        for phone in players:
            phone.reload()
            wait_ready(phone)
            phone.wait_for_function("document.getElementById('live-state').textContent === 'live'")
            assert phone.url.endswith(f"/t/{table_id}/me")
            assert phone.locator("#left").is_hidden()
    finally:
        service.stop()
