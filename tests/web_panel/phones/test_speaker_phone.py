"""A phone at a table with a speaker speaks only what is for its player, unless its player asks for every move.

With the referee's "Table speaker" on and a phone's sound on, the table heard every line twice. The
table's cues say which player each event is about (``seat``, docs/effects.md); while a page is the
table speaker, the panel tells every page so, and a phone then plays the sound and speech of its own
player's events only. "Speak every move on this phone" (off by default) brings the rest back.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web_panel.pages.test_effects import HOOK
from tests.web_panel.phones.test_phone import advance, join, publish, superstition_move
from tests.web_panel.support.browser import PAGE_WAIT_MS, check_phone_page, login
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser


def cue(fake: FakeTable, seq: int, seat: int | None, line: str) -> None:
    """The table's cues of one event: a sound and a spoken line, about ``seat``'s player."""
    fake.publish("effects", {"table": fake.table, "seq": seq, "event": "turn_started", "seat": seat,
                             "rules": ["a line"], "cues": [{"kind": "sound", "value": "roll"},
                                                           {"kind": "say", "value": line}]}, retain=False)


def test_a_phone_at_a_table_with_a_speaker_speaks_only_its_players_lines(chromium: Any, served: PanelServer,
                                                                          fake: FakeTable, token: str) -> None:
    g = advance("superstition", 1, superstition_move)
    publish(fake, g)
    made: list[Any] = []
    errors: list[str] = []

    def new_page(width: int, mobile: bool) -> Any:
        ctx = chromium.new_context(viewport={"width": width, "height": 844}, bypass_csp=True, is_mobile=mobile,
                                   has_touch=mobile)
        ctx.add_init_script(HOOK)
        made.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    try:
        referee = new_page(1024, False)
        login(referee, served.url, fake.table, token)
        referee.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        if referee.inner_text("#fx-sound") != "Table speaker: on":
            referee.click("#fx-sound")
        assert referee.inner_text("#fx-sound") == "Table speaker: on"

        phone = new_page(390, True)
        join(phone, served.url, fake.table, token, 1)  # Bo's phone
        phone.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        phone.locator("#fx-sound").tap()
        assert phone.inner_text("#fx-sound") == "Sound on"
        phone.wait_for_function("document.body && document.body.dataset.tableSpeaker === 'yes'")
        assert phone.is_visible("#fx-every")
        assert phone.inner_text("#fx-every") == "Speak every move on this phone: off"
        assert "says only what is for you" in phone.inner_text("#fx-speaker-note")
        noises = phone.evaluate("window.__fx.noises")

        cue(fake, 6, 0, "Ann rolled a four.")  # about Ann: the table speaker says it, Bo's phone does not
        cue(fake, 7, 1, "Bo, your turn.")  # Bo's own news: his phone says it too
        cue(fake, 8, None, "The ghost rises.")  # about nobody in particular: the table speaker's
        referee.wait_for_function("window.__fx.said.includes('The ghost rises.')")
        phone.wait_for_function("document.body && document.body.dataset.effectsPlayed === '3'")
        assert referee.evaluate("window.__fx.said") == ["Ann rolled a four.", "Bo, your turn.", "The ghost rises."]
        assert phone.evaluate("window.__fx.said") == ["Bo, your turn."]
        assert phone.evaluate("window.__fx.noises") == noises + 3  # the three rattles of one roll: Bo's own event
        check_phone_page(phone, "a phone at a table with a speaker", shot_name="phone-table-speaker")

        # Bo wants every line on his phone after all: his choice, kept on this phone.
        phone.locator("#fx-every").tap()
        assert phone.inner_text("#fx-every") == "Speak every move on this phone: on"
        cue(fake, 9, 0, "Ann drew a card.")
        phone.wait_for_function("window.__fx.said.includes('Ann drew a card.')")
        phone.reload()
        phone.wait_for_function("document.body && document.body.dataset.tableSpeaker === 'yes'")
        assert phone.inner_text("#fx-every") == "Speak every move on this phone: on"
    finally:
        for ctx in made:
            ctx.close()
    assert errors == [], errors


def test_a_phone_at_a_table_without_a_speaker_speaks_every_line(chromium: Any, served: PanelServer,
                                                                 fake: FakeTable, token: str) -> None:
    """Nobody plays sound for the table: a phone whose player turned sound on says every line, as before,
    and offers no choice it does not need."""
    publish(fake, advance("superstition", 1, superstition_move))
    ctx = chromium.new_context(viewport={"width": 360, "height": 844}, bypass_csp=True, is_mobile=True,
                               has_touch=True)
    ctx.add_init_script(HOOK)
    try:
        phone = ctx.new_page()
        phone.set_default_timeout(PAGE_WAIT_MS)
        join(phone, served.url, fake.table, token, 1)
        phone.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        phone.locator("#fx-sound").tap()
        assert phone.is_hidden("#fx-every") and phone.is_hidden("#fx-speaker-note")
        cue(fake, 6, 0, "Ann rolled a four.")
        phone.wait_for_function("window.__fx.said.includes('Ann rolled a four.')")
        check_phone_page(phone, "a phone at a table without a speaker", shot_name="phone-no-table-speaker")
    finally:
        ctx.close()
