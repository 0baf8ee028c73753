"""Every page and card of the game master passes the phone checks at 360 and 390 CSS px wide.

(``check_phone_page``: 44 px touch targets, no sideways scroll, no id or coordinate in the
text, no console error, no serious accessibility fault.) The referee's card with a player's
request and after an undo, the player's phone asking and seeing what goes back, and the
history's list of games and sensors; the replay page is checked in test_history_hands.py.
Also: the referee trusts a Superstition board on the page, and is told in words when the rules forbid it.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.protocol.security import join_code
from tests.web_panel.gm.test_browser import roll_and_slide, wait_state
from tests.web_panel.support.browser import check_phone_page, login, open_page, watch_console
from tests.web_panel.support.service_runner import RunningService

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_game_masters_cards_and_pages_pass_on_a_phone(service: RunningService, pages: Any) -> None:
    referee = pages(390, 844, mobile=True)
    ref_errors = watch_console(referee)
    login(referee, service.panel_url, service.table, service.token)
    wait_state(referee, "st.game_id")
    game_id = referee.evaluate("window.gkLive.state.game_id")
    phone = pages(390, 844, mobile=True)
    phone_errors = watch_console(phone)
    open_page(phone, service.panel_url + f"t/{service.table}/join")
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
    open_page(tables, service.panel_url)
    tables.wait_for_selector(".badge.paused")  # and the list of tables
    check_phone_page(tables, "the list of tables with a paused table", tables_errors)
    referee.click("#gm-pause")  # resume
    phone.wait_for_selector("#gm-paused", state="hidden")
    referee.wait_for_selector("#gm-paused", state="hidden")
    # The history's list of games and each sensor's record.
    history = pages(390, 844, mobile=True)
    errors = watch_console(history)
    open_page(history, service.panel_url + f"t/{service.table}/history")
    history.wait_for_selector("#games tbody tr a.replay")
    history.wait_for_function("document.querySelectorAll('#sensor-stats tbody tr').length > 0")
    check_phone_page(history, "the history's list of games and sensors", errors)


@pytest.mark.parametrize("service", ["superstition"], indirect=True)
def test_the_referee_trusts_a_superstition_board_on_the_page_and_is_told_why_not(
        service: RunningService, mosquitto: Any, pages: Any) -> None:
    from tests.support.mqtt import Commander, Subscriber

    state_topic = f"gravekeeper/{service.table}/state"
    page = pages()
    errors = watch_console(page)
    login(page, service.panel_url, service.table, service.token)
    cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", service.table, service.token)
    try:
        with Subscriber(mosquitto.host, mosquitto.port, (state_topic,)) as sub:
            # A long trap window: the referee has time to look before the trap is taken as sneaked by.
            game_id = cmd.ok("new_game", {"game": "superstition", "players": ["Ann", "Bo"], "seed": 3,
                                          "options": {"outcome_window_ms": 60000}})["data"]["game_id"]
            # The table played a Superstition game before this one: its retained state is not this game's.
            state = sub.wait_latest(state_topic, lambda s: s["game_id"] == game_id and not s["mismatch"]
                                    and s["legal"])
            for _ in range(300):
                if state["expects"] and state["expects"][0]["kind"] == "peg_pull":
                    break
                seq = state["seq"]
                cmd.ok("act", {"action": state["legal"][-1]})
                state = sub.wait_latest(state_topic, lambda s, seq=seq: s["seq"] > seq)
            trap = next(iter(state["expects"][0]["accepts"])).rsplit(".", 1)[0]
            name = {"ladder": "Ladder", "mirror": "Mirror", "grave1": "first Grave", "grave2": "second Grave"}
            other = next(t for t in name if f"trap.{t}" != trap)
            # Refused: a peg pulled on a trap nobody challenges; the page says why, in words.
            cmd.ok("sim", {"sensor": f"trap.{other}.peg_a", "value": "pulled"})
            page.wait_for_selector("#mismatch:not([hidden])")
            page.fill("#gm-reason", "the board is right")
            page.click("#gm-trust")
            page.wait_for_function("(document.getElementById('reply').textContent || '')"
                                   f".includes('nobody is challenging the {name[other]} trap')")
            # The refusal comes back as a 422, which the browser logs: that one is expected.
            check_phone_page(page, "the referee's page refusing to trust the board",
                             [e for e in errors if "status of 422" not in e])
            page.set_viewport_size({"width": 1280, "height": 900})
            cmd.ok("sim", {"sensor": f"trap.{other}.peg_a", "value": "in"})
            page.wait_for_selector("#mismatch", state="hidden")
            # Peg A read, but peg B is out: trusted on the page, with the reason in the log.
            cmd.ok("sim", {"sensor": f"{trap}.peg_a", "value": "pulled"})
            wait_state(page, "st.expects.length && st.expects[0].kind === 'trap_outcome'")
            cmd.ok("sim", {"sensor": f"{trap}.peg_a", "value": "in"})
            cmd.ok("sim", {"sensor": f"{trap}.peg_b", "value": "pulled"})
            wait_state(page, "st.mismatch && Object.keys(st.mismatch.sensors).length === 2")
            page.fill("#gm-reason", "peg A's switch misread")
            page.click("#gm-trust")
            wait_state(page, "!st.mismatch && st.expects.length && st.expects[0].kind === 'trap_outcome'")
            page.wait_for_function("[...document.querySelectorAll('#log li')].some(li => li.textContent.includes("
                                   "'Correction by the referee') && li.textContent.includes(\"peg A's switch "
                                   "misread\"))")
    finally:
        cmd.close()
