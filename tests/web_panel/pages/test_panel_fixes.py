"""What was broken on the panel, in Chromium against a fake table on the real broker: recoverable
errors, double sends, a player's page after a new game, the event log across games, the new-game
form, one sensor picture, forgetting an offline table, and the join page's QR code."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from controller.games import GAME_NAMES, get_game
from controller.protocol.security import join_code
from tests.support.broker import Broker
from tests.web_panel.support.browser import login, open_page, shot, wait_ready
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}  # most pages here are a phone's; pages() alone opens a desktop-sized one


# ----- recoverable errors -------------------------------------------------------------------
def test_a_wrong_join_code_shows_the_form_again_with_the_reason(pages: Any, served: PanelServer,
                                                                 fake: FakeTable, token: str) -> None:
    page = pages(**PHONE)
    open_page(page, served.url + f"t/{fake.table}/join")
    page.fill("#join-code", "WRONG1")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#join-error")
    assert "does not match a seat of the current game" in page.text_content("#join-error")
    # The form is there again, and works: the right code now seats the player.
    page.fill("#join-code", join_code(token, fake.table, "g1", 1))
    page.click("#join-form button[type=submit]")
    page.wait_for_url(f"**/t/{fake.table}/me")
    wait_ready(page)


def test_a_wrong_token_shows_the_login_form_again_with_the_reason(pages: Any, served: PanelServer,
                                                                   fake: FakeTable, token: str) -> None:
    for path, done in ((f"t/{fake.table}", "#controls"), (f"t/{fake.table}/selftest", "#st-controls")):
        page = pages(**PHONE)
        open_page(page, served.url + path)
        page.fill("#login-token", "not-it")
        page.click("#login-submit")
        page.wait_for_selector("#login-error")
        assert "not the control token" in page.text_content("#login-error")
        page.fill("#login-token", token)
        page.click("#login-submit")
        page.wait_for_selector(done)


# ----- no double sends ---------------------------------------------------------------------
def test_a_double_tap_sends_once_and_the_button_waits_for_the_reply(pages: Any, served: PanelServer,
                                                                   fake: FakeTable, token: str) -> None:
    release = threading.Event()

    def slow(name: str, cmd: dict[str, Any]) -> dict[str, Any]:
        release.wait(5)  # the table takes its time to answer
        return {"ok": True}

    roll = {"kind": "roll", "player": 0, "params": {}}
    fake.state(legal=[roll])
    page = pages(**PHONE)
    login(page, served.url, fake.table, token)
    button = page.locator("#actions button.act").first
    button.wait_for()
    fake.handler = slow
    page.evaluate("() => { const b = document.querySelector('#actions button.act'); b.click(); b.click(); b.click(); }")
    fake.wait_command(1)
    assert button.is_disabled()  # in flight
    # A tap on the board (no button to disable) is one send too, while the first is in flight.
    page.evaluate("(a) => { window.GKLive.sendCommand(document.body.dataset.cmd, document.body.dataset.csrf,"
                  " 'act', {action: a}); }", roll)
    release.set()
    page.wait_for_function("document.getElementById('reply').classList.contains('ok')")
    assert button.is_enabled()
    # A marker sent now arrives after any earlier send (one panel, one MQTT client, in order): so when it is
    # the second command the table saw, the taps before it were one send.
    page.evaluate("() => window.GKLive.sendCommand(document.body.dataset.cmd, document.body.dataset.csrf, 'resync', "
                  "{})")
    commands = fake.wait_command(2)
    assert [name for name, _ in commands] == ["act", "resync"], commands


# ----- a player's page after a new game ------------------------------------------------------
def test_a_players_page_after_a_new_game_resets_and_offers_the_new_game(
        pages: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    roll = {"kind": "roll", "player": 1, "params": {}}
    fake.private(1, {"game_id": "g1", "view": {"you": {"pawns": [{"label": "girl", "cards": [
        {"id": "c1", "title": "Magic Ring"}]}]}}, "legal": [roll]})
    page = pages(**PHONE)
    open_page(page, served.url + f"t/{fake.table}/join")
    page.fill("#join-code", join_code(token, fake.table, "g1", 1))
    page.click("#join-form button[type=submit]")
    page.wait_for_url(f"**/t/{fake.table}/me")
    wait_ready(page)
    page.wait_for_selector("#actions button.act")
    assert "Magic Ring" in page.text_content("#hand") and "Bo" in page.text_content("header")
    fake.handler = lambda name, cmd: {"ok": False, "error": "not your turn"}
    page.click("#actions button.act")
    page.wait_for_function("document.getElementById('reply').classList.contains('err')")

    fake.state(seq=5, game="dogs", game_id="g2", players=["Cy", "Di"])
    page.wait_for_selector("#left:not([hidden])")
    link = page.locator("#join-new")
    assert link.text_content() == "Join the new game" and link.get_attribute("href").endswith(f"/t/{fake.table}/join")
    # no old hand: cleared with the same new state (on a busy machine perhaps a frame after the banner)
    page.wait_for_function("() => !document.body.textContent.includes('Magic Ring')", timeout=5000)
    assert page.locator("#actions button").count() == 0
    assert page.text_content("#reply") == ""  # no note from the old game
    assert "playing as" not in page.text_content("header") and "not seated" in page.text_content("header")
    assert page.locator("header form").is_hidden()  # no Leave: there is no seat to leave
    assert page.text_content("#left").startswith("A new game started")
    shot(page, "player-after-new-game-390")
    link.click()
    page.wait_for_url(f"**/t/{fake.table}/join")
    wait_ready(page)
    page.fill("#join-code", join_code(token, fake.table, "g2", 0))
    page.click("#join-form button[type=submit]")
    page.wait_for_url(f"**/t/{fake.table}/me")
    wait_ready(page)
    assert "Cy" in page.text_content("header")


# ----- the event log across games --------------------------------------------------------------
def test_a_new_game_starts_a_fresh_log_and_earlier_games_stay_readable(
        pages: Any, served: PanelServer, fake: FakeTable) -> None:
    fake.state(seq=997)  # a table far into its journal: events follow on without a gap
    page = pages()
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.lastSeq === 997")
    fake.event("dice_rolled", {"player": 1}, seq=998)
    fake.event("game_started", {"game": "dogs", "title": "Graveyard dogs", "game_id": "g2",
                                "players": ["Cy", "Di", "Ed"]}, seq=999)
    fake.event("turn_ended", {"player": 2}, seq=1000)
    fake.state(seq=1000, game="dogs", game_id="g2", players=["Cy", "Di", "Ed"])
    page.wait_for_function("document.getElementById('log').textContent.includes('1000')")
    log = page.text_content("#log")
    assert "Ed" in log and "1000" in log and "999" in log  # numbers as text, never cut off
    assert "998" not in log  # the earlier game's event is not in this game's log
    earlier = page.locator("#log-earlier")
    assert earlier.is_visible()
    earlier.locator("summary").click()
    text = earlier.text_content()
    # Worded with its own game's names: seat 1 was Bo then (Di in the game now).
    assert "998" in text and "Bo: Dice rolled" in text and "Di: Dice rolled" not in text
    first = page.locator("#log li .n").first.bounding_box()
    box = page.locator("#log").bounding_box()
    assert first is not None and box is not None and first["x"] >= box["x"]  # the number is inside the log


# ----- the new-game form ------------------------------------------------------------------------
def test_the_new_game_form_starts_from_the_last_game(pages: Any, served: PanelServer, fake: FakeTable,
                                                     token: str) -> None:
    fake.state(game="superstition", players=["Ann", "Bo", "Cy"])
    page = pages()
    login(page, served.url, fake.table, token)
    page.click("#new-game-box summary")
    # The form's script enables Start once it has set the form up (on a loaded machine it may still be
    # loading when the page shows): a game chosen before that would not switch the house rules.
    page.wait_for_selector("#ng-start:not([disabled])")
    titles = page.locator("#ng-game option").all_text_contents()
    assert titles == [get_game(name).title for name in GAME_NAMES]  # titles, never ids
    assert page.input_value("#ng-game") == "superstition" and page.input_value("#ng-players") == "Ann, Bo, Cy"
    visible = [fs for fs in page.locator("fieldset.house-rules").all() if fs.is_visible()]
    assert len(visible) == 1 and visible[0].get_attribute("data-game") == "superstition"
    assert "throw one die, or two" in visible[0].text_content()  # each rule has its line of help
    page.select_option("#ng-game", "dogs")
    visible = [fs for fs in page.locator("fieldset.house-rules").all() if fs.is_visible()]
    assert [fs.get_attribute("data-game") for fs in visible] == ["dogs"]
    page.fill("#ng-dogs-attack_target", "4")
    page.check("#ng-dogs-bork_own_dog")
    shot(page, "new-game-form")
    page.click("#ng-start")
    (name, cmd), = fake.wait_command(1)
    assert name == "new_game" and cmd["game"] == "dogs" and cmd["players"] == ["Ann", "Bo", "Cy"]
    assert cmd["options"] == {"attack_target": 4, "bork_own_dog": True}  # only what was changed


# ----- one sensor picture ----------------------------------------------------------------------
def test_the_table_and_self_test_pages_show_the_same_sensors(pages: Any, served: PanelServer,
                                                             fake: FakeTable, token: str) -> None:
    now = time.time()
    fake.publish("sensors", {"time": now, "monotonic": 5000.0, "sensors": {
        # At rest for over an hour: online, so not stale.
        "tomb.wolf": {"value": "middle", "changed": 1000.0, "seen": 1000.0, "source": "sim", "online": True},
        # Ages in minutes: the two pages are read a moment apart, and "13 s" against "14 s" is that moment.
        "launcher": {"value": "armed", "changed": 4400.0, "seen": 4400.0, "source": "mcu", "online": False}}})
    fake.publish("health", {"time": now, "links": {}, "counters": {}, "warnings": [], "selftest": None,
                            "monitor": {"findings": [], "sensors": {
                                "tomb.wolf": {"last_change": None, "last_seen": now, "edges": 4, "bounces": 1},
                                "launcher": {"last_change": None, "last_seen": None, "edges": 0, "bounces": 0}}}})
    table = pages()
    login(table, served.url, fake.table, token)
    selftest = pages()
    open_page(selftest, served.url + f"t/{fake.table}/selftest")  # a spectator: the read-only view
    for page, rows in ((table, "#sensors"), (selftest, "#st-sensors")):
        page.wait_for_selector(f'{rows} tr[data-sensor="launcher"]')
    read = ("(sel) => Object.fromEntries([...document.querySelectorAll(sel + ' tr')].map(tr => [tr.dataset.sensor,"
            " [tr.querySelector('td.value').textContent, tr.querySelector('td.changed').textContent,"
            " tr.className === 'stale']]))")
    on_table, on_selftest = table.evaluate(read, "#sensors"), selftest.evaluate(read, "#st-sensors")
    assert on_table == on_selftest
    assert on_table["tomb.wolf"][0] == "in the middle" and on_table["tomb.wolf"][2] is False  # at rest is not stale
    assert on_table["launcher"][2] is True and "(offline)" in on_table["launcher"][0]
    assert on_table["launcher"][1] == "changed 10 min ago"
    assert "4 edges" in selftest.text_content('#st-sensors tr[data-sensor="tomb.wolf"]')


# ----- forgetting an offline table ----------------------------------------------------------------
def test_an_offline_table_can_be_forgotten(pages: Any, served: PanelServer, fake: FakeTable, mosquitto: Broker,
                                           token: str) -> None:
    other = FakeTable(mosquitto.port, fake.table + "-gone", token)
    try:
        other.state()
        other.publish("status", {"state": "offline", "table": other.table})
        page = pages(**PHONE)
        open_page(page, served.url)
        row = page.locator(f'[data-table="{other.table}"]')
        row.wait_for()
        assert page.locator(f'[data-table="{fake.table}"] form.forget').count() == 0  # online: no
        row.locator("form.forget button").click()
        page.wait_for_url(served.url)
        wait_ready(page)
        view = served.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: not view.has_table(other.table), 5)
        page.wait_for_function("(t) => !document.querySelector(`[data-table='${t}']`)", arg=other.table)
        assert page.locator(f'[data-table="{fake.table}"]').count() == 1
    finally:
        other.clear()
        other.close()


# ----- the join page's QR code on the referee's page ---------------------------------------------------
def test_the_referee_sees_the_join_pages_qr_code(pages: Any, served: PanelServer, fake: FakeTable,
                                                 token: str) -> None:
    page = pages(**PHONE)
    open_page(page, served.url + f"t/{fake.table}")
    assert page.locator("#join-qr").count() == 0  # spectators: no
    login(page, served.url, fake.table, token)
    qr = page.locator("#join-qr svg")
    assert qr.count() == 1 and qr.bounding_box()["width"] >= 120
    assert page.locator("#join-url").text_content().endswith(f"/t/{fake.table}/join")
    # This test panel listens on 127.0.0.1 only: the page says phones cannot open it.
    assert "phones cannot open it" in page.text_content("#join-local")
    shot(page, "referee-join-qr-390")


def test_on_every_interface_the_code_carries_an_address_phones_can_open(
        settings: PanelSettings, fake: FakeTable, token: str) -> None:
    """The referee on the panel's own machine (127.0.0.1): the code must not say 127.0.0.1."""
    from web_panel import create_app
    from web_panel.reach import ipv4_addresses

    lan = [a for a in ipv4_addresses() if not a.startswith("127.")]
    assert lan, "this machine shows no network interface but loopback"
    app = create_app({"PANEL_SETTINGS": PanelSettings(**{**settings.__dict__, "listen_host": "0.0.0.0"}),
                      "TESTING": True})
    try:
        view = app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        def page_at(base: str) -> str:
            client = app.test_client()
            html = client.get(f"/t/{fake.table}", base_url=base).get_data(as_text=True)
            csrf = html.split('data-csrf="', 1)[1].split('"', 1)[0]
            r = client.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf}, base_url=base)
            assert r.status_code == 303
            return client.get(f"/t/{fake.table}", base_url=base).get_data(as_text=True)

        html = page_at("http://127.0.0.1:8080")
        assert f"http://{lan[0]}:8080/t/{fake.table}/join" in html and 'id="join-local"' not in html
        html = page_at("http://gk.local:8080")
        assert f"http://gk.local:8080/t/{fake.table}/join" in html  # the name the referee's browser used
    finally:
        app.extensions["gravekeeper"].close()
