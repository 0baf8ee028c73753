"""The panel plays a table's cues: Web Audio, speech and vibration recorded by a page hook, in Chromium.

A real ``gravekeeper run --simulate`` with its panel and a real Mosquitto. The
hook, added before the page's scripts run, wraps what effects.js asks of the
browser (oscillators started, lines spoken, vibrations), so the test sees what
a person would hear and feel.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.protocol.security import join_code
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.web_panel.support.browser import PAGE_WAIT_MS, login, open_page, shot, wait_ready
from tests.web_panel.support.service_runner import RunningService, start_service

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOOK = """
window.__fx = {tones: 0, noises: 0, said: [], vibrated: []};
(function () {
  const AC = window.AudioContext;
  if (AC) {
    const osc = AC.prototype.createOscillator;
    AC.prototype.createOscillator = function () {
      const o = osc.call(this);
      const start = o.start.bind(o);
      o.start = function (t) { window.__fx.tones += 1; return start(t); };
      return o;
    };
    const buf = AC.prototype.createBufferSource;
    AC.prototype.createBufferSource = function () { window.__fx.noises += 1; return buf.call(this); };
  }
  if (window.speechSynthesis) {
    window.speechSynthesis.speak = function (u) { window.__fx.said.push(u.text); };
  }
  navigator.vibrate = function (p) { window.__fx.vibrated.push(p); return true; };
})();
"""


@pytest.fixture
def service(mosquitto: Broker, tmp_path: Path) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, "fx-table", "tok-fx", game="terror")
    yield svc
    svc.stop()


def test_the_table_speaker_plays_cues_and_a_phone_vibrates_on_its_turn(
        service: RunningService, chromium: Any, mosquitto: Broker) -> None:
    errors: list[str] = []
    made = []

    def new_page(width: int, height: int) -> Any:
        ctx = chromium.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        ctx.add_init_script(HOOK)
        made.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    try:
        referee = new_page(1024, 768)
        login(referee, service.panel_url, service.table, service.token)
        referee.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        game_id = referee.evaluate("window.gkLive.state.game_id")
        referee.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        assert referee.inner_text("#fx-sound") == "Table speaker: off"
        referee.click("#fx-sound")
        assert referee.inner_text("#fx-sound") == "Table speaker: on"
        box = referee.locator("#fx-sound").bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44

        phone = new_page(390, 844)
        open_page(phone, service.panel_url + f"t/{service.table}/join")
        phone.fill("#join-code", join_code(service.token, service.table, game_id, 1))
        phone.click("button[type=submit]")
        phone.wait_for_selector("#hand")
        phone.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        assert phone.inner_text("#fx-sound") == "Sound off"  # a phone stays quiet unless its player wants sound

        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", service.table, service.token)
        sub = Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{service.table}/state",)).start()
        try:
            # A mismatch: the alarm sounds and the referee's speaker says what is wrong, in words.
            cmd.call("sim", {"sensor": "launcher", "value": "launched"})
            referee.wait_for_function("window.__fx.said.some(t => t.startsWith('Check the board.'))")
            cmd.call("sim", {"sensor": "launcher", "value": "armed"})
            sub.wait_latest(f"gravekeeper/{service.table}/state", lambda s: s["mismatch"] is None)
            # Ann's turn: roll, slide the tomb the die names, end the turn; then it is Bo's.
            reply, opened = cmd.call_sealed(0, {"kind": "roll", "player": 0})
            assert reply["ok"] is True, opened
            state = sub.wait_latest(f"gravekeeper/{service.table}/state",
                                    lambda s: any(e["kind"] == "tomb_move" for e in s["expects"]))
            sensor, values = next(iter(state["expects"][0]["accepts"].items()))
            cmd.call("sim", {"sensor": sensor, "value": next(iter(values))})
            state = sub.wait_latest(f"gravekeeper/{service.table}/state",
                                    lambda s: any(a["kind"] == "end_turn" for a in s["legal"]))
            reply, opened = cmd.call_sealed(0, {"kind": "end_turn", "player": 0})
            assert reply["ok"] is True, opened
        finally:
            sub.stop()
            cmd.close()
        phone.wait_for_function("window.__fx.vibrated.length > 0")
        assert phone.evaluate("window.__fx.vibrated") == [[120, 80, 120]]
        assert phone.evaluate("window.__fx.said") == [] and phone.evaluate("window.__fx.tones") == 0
        referee.wait_for_function("window.__fx.said.includes('Bo, your turn.')")
        fx = referee.evaluate("window.__fx")
        assert fx["tones"] > 0 and fx["noises"] > 0  # the alarm, the slide, the dice: made in the page
        assert fx["vibrated"] == []  # the referee's page is not a player's phone
        assert not any(ch.isdigit() for line in fx["said"] for ch in line.split(".")[0])  # words, no ids
        shot(referee, "effects-referee")
        shot(phone, "effects-phone-390")
        # the device keeps its choice
        referee.reload()
        wait_ready(referee)
        referee.wait_for_selector("#fx-sound")
        assert referee.inner_text("#fx-sound") == "Table speaker: on"
    finally:
        for ctx in made:
            ctx.close()
    assert errors == [], errors


def test_the_last_seconds_of_a_window_tick_on_the_table_speaker(
        service: RunningService, chromium: Any) -> None:
    """countdown.js shows an outcome window; the effects player ticks its last three seconds."""
    ctx = chromium.new_context(viewport={"width": 1024, "height": 768}, bypass_csp=True)
    ctx.add_init_script(HOOK)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        login(page, service.panel_url, service.table, service.token)
        page.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        page.click("#fx-sound")
        # an outcome window of 3.5 s, as the state says while the skull falls (the rest of the state as it is)
        page.evaluate("""() => { const st = window.gkLive.state;
            window.gkLive.state = Object.assign({}, st, {mismatch: null,
              expects: [{kind: "skull_outcome", prompt: "", player: 0, accepts: {}, requires: {},
                         action: null, window_ms: 3500, on_timeout: null}]}); }""")
        page.wait_for_function("!document.getElementById('countdown').hidden")
        before = page.evaluate("window.__fx.tones")
        page.wait_for_function("document.body && document.body.dataset.effectsTicks === '3'", timeout=8000)
        assert page.evaluate("window.__fx.tones") - before >= 3
        page.wait_for_function("parseFloat(document.getElementById('countdown').dataset.left) === 0")
    finally:
        ctx.close()
    assert errors == [], errors


def test_a_tomb_caught_between_positions_counts_down_its_grace(service: RunningService, chromium: Any) -> None:
    """The state's ``grace`` (a tomb on its way) shows as a countdown in words, like an outcome window."""
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        login(page, service.panel_url, service.table, service.token)
        page.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        page.evaluate("""() => { const st = window.gkLive.state;
            window.gkLive.state = Object.assign({}, st, {mismatch: null, expects: [],
              grace: {kind: "tomb_moving", sensors: ["tomb.wolf"], window_ms: 1500}}); }""")
        page.wait_for_function("document.getElementById('countdown').textContent.startsWith("
                               "'Time to finish sliding the tomb')")
        page.wait_for_function("parseFloat(document.getElementById('countdown').dataset.left) === 0")
        page.evaluate("() => { window.gkLive.state = Object.assign({}, window.gkLive.state, {grace: null}); }")
        page.wait_for_function("document.getElementById('countdown').hidden")
    finally:
        ctx.close()
    assert errors == [], errors
