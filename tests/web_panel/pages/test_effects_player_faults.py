"""The page's effects player when the device's sound or voice fails: reported once, in words, and recovered.

effects.js is loaded in Chromium on a small page served by the test (no table is needed: the cues are
handed to ``window.GKEffects.play`` as the stream would). A hook added before the page's scripts
breaks what a real device breaks: an AudioContext that cannot start, a voice that errors or never
finishes, a language the device has no voice for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web_panel.support.browser import RAW_ID, open_page

pytestmark = [pytest.mark.browser]
STATIC = Path(__file__).resolve().parents[3] / "web_panel" / "static"
ORIGIN = "http://fx.test"
PAGE = """<!doctype html><html lang="en"><head><title>fx</title></head>
<body data-effects="/fx/stream" data-page="table"><main><div id="board">board</div></main>
<script src="/static/effects.js"></script><script src="/static/ready.js" defer></script></body></html>"""

# Sound on (as if the table speaker had been switched on earlier), and a record of what the page asks for.
HOOK = """
localStorage.setItem("gk-effects", JSON.stringify(Object.assign({sound: true}, window.__prefs || {})));
window.__fx = {contexts: 0, tones: 0, said: [], langs: [], cancelled: 0};
(function () {
  const AC = window.AudioContext;
  const failFirst = %(fail_audio)s;
  window.AudioContext = function () {
    window.__fx.contexts += 1;
    if (window.__fx.contexts <= failFirst) throw new Error("The AudioContext was not allowed to start.");
    return new AC();
  };
  window.AudioContext.prototype = AC.prototype;
  const osc = AC.prototype.createOscillator;
  AC.prototype.createOscillator = function () { window.__fx.tones += 1; return osc.call(this); };
  const synth = window.speechSynthesis;
  const voices = %(voices)s;
  synth.getVoices = function () { return voices.map(l => ({lang: l, name: l})); };
  Object.defineProperty(synth, "speaking", {get: () => %(stuck)s});
  synth.cancel = function () { window.__fx.cancelled += 1; };
  synth.speak = function (u) {
    window.__fx.said.push(u.text); window.__fx.langs.push(u.lang);
    if (%(voice_fails)s && u.onerror) setTimeout(() => u.onerror({error: "synthesis-failed"}), 0);
  };
})();
"""


def _open(pages: Any, prefs: str = "{}", fail_audio: int = 0, voices: str = "[]", stuck: str = "false",
          voice_fails: str = "false") -> Any:
    page = pages(360, 740)

    def serve(route: Any) -> None:
        path = route.request.url[len(ORIGIN):]
        if path.startswith("/static/"):
            route.fulfill(path=str(STATIC / path[len("/static/"):]))
        elif path == "/fx/stream":
            route.fulfill(status=204, body="")
        else:
            route.fulfill(status=200, content_type="text/html", body=PAGE)

    page.route(ORIGIN + "/**", serve)
    page.add_init_script(f"window.__prefs = {prefs};" + HOOK % {
        "fail_audio": fail_audio, "voices": voices, "stuck": stuck, "voice_fails": voice_fails})
    open_page(page, ORIGIN + "/table")
    page.wait_for_selector("#fx-controls")
    return page


CUES = {"cues": [{"kind": "sound", "value": "turn"}, {"kind": "say", "value": "Ann rolls."},
                 {"kind": "animate", "value": "dice"}]}


def _notes(page: Any) -> list[str]:
    return page.eval_on_selector_all(".fx-note", "els => els.filter(e => !e.hidden).map(e => e.textContent)")


def test_sound_that_cannot_start_is_reported_once_and_the_other_cues_still_play(pages: Any) -> None:
    page = _open(pages, fail_audio=1)
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    # The sound failed, but the line was spoken, the board moved and the cue counted as played.
    assert page.evaluate("window.__fx.said") == ["Ann rolls."]
    assert page.evaluate("document.getElementById('board').classList.contains('fx-dice')")
    assert page.evaluate("document.body.dataset.effectsPlayed") == "1"
    notes = _notes(page)
    assert len(notes) == 1 and "sound" in notes[0].lower() and not RAW_ID.search(notes[0]), notes
    # The next cue tries again with a fresh audio context: the device recovered, and the note goes.
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    assert page.evaluate("window.__fx.contexts") == 2 and page.evaluate("window.__fx.tones") > 0
    assert _notes(page) == []


def test_sound_failing_every_time_is_reported_once_not_per_cue(pages: Any) -> None:
    page = _open(pages, fail_audio=99)
    for _ in range(5):
        page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    assert len(_notes(page)) == 1
    assert page.evaluate("document.body.dataset.effectsFaults") == "1"
    assert page.evaluate("window.__fx.said") == ["Ann rolls."] * 5


def test_a_voice_that_errors_is_reported_once_in_words(pages: Any) -> None:
    page = _open(pages, voice_fails="true")
    for _ in range(3):
        page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    page.wait_for_function("document.querySelectorAll('.fx-note:not([hidden])').length === 1")
    notes = _notes(page)
    assert "voice" in notes[0].lower() and not RAW_ID.search(notes[0]), notes
    assert page.evaluate("document.body.dataset.effectsFaults") == "1"


def test_a_stuck_voice_is_restarted_and_reported(pages: Any) -> None:
    page = _open(pages, stuck="true")
    page.clock.install()
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    page.clock.fast_forward(60_000)  # the device still says it is speaking the first line a minute later
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    assert page.evaluate("window.__fx.cancelled") == 1
    assert page.evaluate("window.__fx.said") == ["Ann rolls.", "Ann rolls."]  # the new line is spoken
    notes = _notes(page)
    assert len(notes) == 1 and "voice" in notes[0].lower(), notes


def test_a_voice_language_this_device_lacks_falls_back_and_says_so(pages: Any) -> None:
    page = _open(pages, prefs='{"lang": "de-DE"}', voices='["en-US", "fr-FR"]')
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)
    assert page.evaluate("window.__fx.langs") == ["en"]  # not German with no German voice: silence or gibberish
    assert page.input_value("#fx-lang") == "en"
    notes = _notes(page)
    assert len(notes) == 1 and "German" in notes[0] and not RAW_ID.search(notes[0]), notes
    box = page.locator("#fx-lang").bounding_box()
    assert box is not None and box["height"] >= 44
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [360, 390])
@pytest.mark.parametrize("who", ["table", "player"])
def test_the_controls_and_a_note_fit_a_phone(pages: Any, width: int, who: str) -> None:
    page = pages(width, 740)
    html = PAGE.replace('data-page="table"', f'data-page="{who}" data-seat="0"')
    page.route(ORIGIN + "/**", lambda route: route.fulfill(path=str(STATIC / route.request.url.split("/static/")[1]))
               if "/static/" in route.request.url else route.fulfill(status=204, body="")
               if route.request.url.endswith("/fx/stream") else route.fulfill(status=200, content_type="text/html",
                                                                               body=html))
    page.add_init_script("window.__prefs = {lang: 'de-DE'};" + HOOK % {
        "fail_audio": 99, "voices": '["en-US"]', "stuck": "false", "voice_fails": "false"})
    open_page(page, ORIGIN + "/" + who)
    page.wait_for_selector("#fx-controls")
    page.evaluate("cues => window.GKEffects.play(cues)", CUES)  # two notes: the sound and the voice's language
    assert len(_notes(page)) == 2
    small = page.evaluate("""() => [...document.querySelectorAll('#fx-controls button, #fx-controls select, '
                                                     + '#fx-controls input')]
        .map(e => e.getBoundingClientRect()).filter(r => r.width < 44 || r.height < 44).length""")
    assert small == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
