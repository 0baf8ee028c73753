"""An event newer than the page's state is shown at once, from its own words; the state then redraws the page.

The table publishes each event before the state that includes it. A page shows what such an event
says (its line in the log, the board's "does not match" notice) without waiting for the state
(web_panel/static/live.js, docs/panel.md "An event is shown before its state"). The streams here
are served by the browser itself (a fixed body), so the state that follows is held back for sure.
"""

from __future__ import annotations

import json
from typing import Any

from tests.web_panel.support.browser import open_page
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

FOUL = {"code": "launcher", "message": "The Headless Ghost launcher was fired, and nobody rolled for it.",
        "guidance": "Put the launcher back to armed.", "sensors": ["launcher"]}


def _sse(*items: tuple[str, Any]) -> str:
    return "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in items) + "retry: 600000\n\n"


def _state(fake: FakeTable, seq: int, mismatch: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"seq": seq, "table": fake.table, "game": "terror", "game_id": "g1", "players": ["Ann", "Bo"],
            "current_player": 0, "over": False, "winners": [], "view": {}, "legal": [], "expects": [],
            "waiting_for": f"state {seq}", "mismatch": mismatch, "board": "sensors"}


def _event(fake: FakeTable, seq: int, type_: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "table": fake.table, "type": type_, "time": 1.0e9, "data": data,
            "context": {"game_id": "g1", "game": "terror", "players": ["Ann", "Bo"]}}


def _open(pages: Any, served: PanelServer, fake: FakeTable, state: dict[str, Any], *items: tuple[str, Any]) -> Any:
    page = pages()
    snapshot = {"status": {"state": "online"}, "state": state, "sensors": None, "health": None, "events": []}
    body = _sse(("snapshot", snapshot), *items)
    page.route(f"**/t/{fake.table}/stream", lambda route: route.fulfill(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}, body=body))
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.snapshots >= 1")
    return page


def test_a_foul_is_shown_from_its_event_before_the_state_comes(pages: Any, served: PanelServer,
                                                               fake: FakeTable) -> None:
    page = _open(pages, served, fake, _state(fake, 6), ("event", _event(fake, 7, "mismatch", FOUL)))
    page.wait_for_function("!document.getElementById('mismatch').hidden")
    shown = page.evaluate("""[document.getElementById('mismatch-message').textContent,
        document.getElementById('mismatch-guidance').textContent, window.gkLive.state.seq,
        document.querySelector('#log li').textContent]""")
    assert shown[:3] == [FOUL["message"], FOUL["guidance"], 6], shown  # the state it holds is still the older one
    assert FOUL["message"] in shown[3], shown  # the event's line heads the log


def test_through_the_panel_the_event_shows_first_and_any_redraw_before_its_state_keeps_it(
        pages: Any, served: PanelServer, fake: FakeTable) -> None:
    page = pages()
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.snapshots >= 1 && window.gkLive.state")
    held = page.evaluate("window.gkLive.state.seq")
    fake.event("mismatch", FOUL, seq=held + 1)  # the table's event, signed, through the broker and the panel
    page.wait_for_function("!document.getElementById('mismatch').hidden")
    assert page.evaluate("window.gkLive.state.seq") == held
    # Anything that draws the whole page before the state comes (another message, a resize) keeps the notice.
    renders = page.evaluate("window.gkLive.renders")
    page.evaluate("window.gkLive.onchange('resize')")
    page.wait_for_function(f"window.gkLive.renders > {renders}")
    assert not page.evaluate("document.getElementById('mismatch').hidden")
    fake.state(seq=held + 1, mismatch={**FOUL, "since": 1.0e9}, waiting_for="Put the launcher back to armed.")
    page.wait_for_function("document.getElementById('waiting-for').textContent === 'Put the launcher back to armed.'")
    cleared = {"code": "launcher", "message": "The board matches the game again."}
    fake.event("mismatch_cleared", cleared, seq=held + 2)
    page.wait_for_function("document.getElementById('mismatch').hidden")
    lines = page.evaluate("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
    assert "matches the game again" in lines[0] and FOUL["message"] in lines[1], lines
    assert page.evaluate("window.gkLive.state.seq") == held + 1  # shown before its state came


def test_an_event_the_state_already_holds_changes_no_notice(pages: Any, served: PanelServer,
                                                            fake: FakeTable) -> None:
    turn = _event(fake, 7, "turn_started", {"seat": 1})
    page = _open(pages, served, fake, _state(fake, 6), ("event", _event(fake, 6, "mismatch", FOUL)),
                 ("event", turn))
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1 && window.gkLive.lastSeq === 7")
    assert page.evaluate("document.getElementById('mismatch').hidden")
