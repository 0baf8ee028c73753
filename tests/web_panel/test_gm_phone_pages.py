"""Every page and card of the game master passes the phone checks at 360 and 390 CSS px wide.

(``check_phone_page``: 44 px touch targets, no sideways scroll, no id or coordinate in the
text, no console error, no serious accessibility fault.) The referee's card with a player's
request and after an undo, the player's phone asking and seeing what goes back, and the
history's list of games and sensors; the replay page is checked in test_gm_history_hands.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.security import join_code

from .browser_helpers import check_phone_page, login, watch_console
from .service_runner import RunningService
from .test_gm_browser import pages, roll_and_slide, service, wait_state

__all__ = ["pages", "service"]
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_game_masters_cards_and_pages_pass_on_a_phone(service: RunningService, pages: Any) -> None:
    referee = pages(390, 844, mobile=True)
    ref_errors = watch_console(referee)
    login(referee, service.panel_url, service.table, service.token)
    wait_state(referee, "st.game_id")
    game_id = referee.evaluate("window.gkLive.state.game_id")
    phone = pages(390, 844, mobile=True)
    phone_errors = watch_console(phone)
    phone.goto(service.panel_url + f"t/{service.table}/join")
    phone.fill("#join-code", join_code(service.token, service.table, game_id, 0))
    phone.click("button[type=submit]")
    phone.wait_for_selector("#hand")
    tomb = roll_and_slide(referee)
    check_phone_page(referee, "the referee's page with a move that may be taken back", ref_errors)
    phone.wait_for_selector("#gm-ask:not([hidden])")
    check_phone_page(phone, "a player's phone offering to ask for an undo", phone_errors)
    phone.click("#gm-ask")
    phone.wait_for_function("(document.getElementById('gm-player-info') || {}).textContent"
                            ".includes('waiting for the referee')")
    check_phone_page(phone, "a player's phone waiting for the referee's answer", phone_errors)
    referee.wait_for_selector("#gm-request:not([hidden])")
    check_phone_page(referee, "the referee's page with a player's undo request", ref_errors)
    referee.click("#gm-approve")
    wait_state(referee, "st.mismatch && st.mismatch.code === 'undo'")
    referee.wait_for_selector("#gm-put-back:not([hidden])")
    check_phone_page(referee, "the referee's page saying what to put back", ref_errors)
    phone.wait_for_selector("#mismatch:not([hidden])")
    check_phone_page(phone, "a player's phone after the undo", phone_errors)
    # Paused: the banner on both pages.
    referee.fill("#gm-reason", "a phone call")
    referee.click(f"#sim-{tomb}-middle")
    wait_state(referee, "!st.mismatch")
    referee.click("#gm-pause")
    referee.wait_for_selector("#gm-paused:not([hidden])")
    check_phone_page(referee, "the referee's page, paused", ref_errors)
    phone.wait_for_selector("#gm-paused:not([hidden])")  # every page says so: the player's phone too
    assert "a phone call" in (phone.text_content("#gm-paused") or "")
    check_phone_page(phone, "a player's phone, paused", phone_errors)
    tables = pages(390, 844, mobile=True)
    tables_errors = watch_console(tables)
    tables.goto(service.panel_url)
    tables.wait_for_selector(".badge.paused")  # and the list of tables
    check_phone_page(tables, "the list of tables with a paused table", tables_errors)
    referee.click("#gm-pause")  # resume
    phone.wait_for_selector("#gm-paused", state="hidden")
    referee.wait_for_selector("#gm-paused", state="hidden")
    # The history's list of games and each sensor's record.
    history = pages(390, 844, mobile=True)
    errors = watch_console(history)
    history.goto(service.panel_url + f"t/{service.table}/history")
    history.wait_for_selector("#games tbody tr a.replay")
    history.wait_for_function("document.querySelectorAll('#sensor-stats tbody tr').length > 0")
    check_phone_page(history, "the history's list of games and sensors", errors)
