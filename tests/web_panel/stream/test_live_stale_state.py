"""A reopened stream can deliver a state queued before its snapshot: the page keeps the newer one.

The panel subscribes a stream before it reads the snapshot (web_panel/sse.py), so nothing is lost;
the price is that a state published just before the snapshot may arrive right after it. Of the
same game and with a lower seq, that copy is stale, not a table that started again: the page must
neither go back to it nor wipe its log. Another game with a lower seq is a restart (a new journal).
"""

from __future__ import annotations

import json
from typing import Any

from tests.web_panel.support.browser import open_page
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer


def _sse(*items: tuple[str, Any]) -> str:
    return "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in items) + "retry: 600000\n\n"


def _serve_stream(page: Any, table: str, body: str) -> None:
    page.route(f"**/t/{table}/stream", lambda route: route.fulfill(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}, body=body))


def _state(fake: FakeTable, game_id: str, seq: int) -> dict[str, Any]:
    return {"seq": seq, "table": fake.table, "game": "terror", "game_id": game_id, "players": ["Ann", "Bo"],
            "current_player": 0, "over": False, "winners": [], "view": {}, "legal": [], "expects": [],
            "waiting_for": f"state {seq}", "mismatch": None, "board": "sensors"}


def _event(fake: FakeTable, seq: int) -> dict[str, Any]:
    return {"seq": seq, "table": fake.table, "type": "turn_started", "time": 1.0e9, "data": {"seat": 0}}


def _open(pages: Any, served: PanelServer, fake: FakeTable, *items: tuple[str, Any]) -> Any:
    page = pages()
    _serve_stream(page, fake.table, _sse(*items))
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.snapshots >= 1")
    return page


def test_an_older_state_of_the_same_game_after_the_snapshot_is_kept_out(pages: Any, served: PanelServer,
                                                                         fake: FakeTable) -> None:
    snapshot = {"status": {"state": "online"}, "state": _state(fake, "g1", 6), "sensors": None, "health": None,
                "events": [_event(fake, 5), _event(fake, 6)]}
    page = _open(pages, served, fake, ("snapshot", snapshot), ("state", _state(fake, "g1", 5)),
                 ("state", _state(fake, "g1", 7)), ("event", _event(fake, 7)))
    page.wait_for_function("window.gkLive.state.seq === 7")  # the stream went on past the stale copy
    seen = page.evaluate("[window.gkLive.events.map(e => e.seq), window.gkLive.lastSeq]")
    assert seen == [[5, 6, 7], 7], seen  # the log was kept, not wiped as for a restart


def test_a_lower_seq_of_another_game_is_a_restart(pages: Any, served: PanelServer, fake: FakeTable) -> None:
    snapshot = {"status": {"state": "online"}, "state": _state(fake, "g1", 6), "sensors": None, "health": None,
                "events": [_event(fake, 5), _event(fake, 6)]}
    page = _open(pages, served, fake, ("snapshot", snapshot), ("state", _state(fake, "g2", 1)),
                 ("event", _event(fake, 1)))
    page.wait_for_function("window.gkLive.state.game_id === 'g2'")
    page.wait_for_function("window.gkLive.events.length === 1")
    assert page.evaluate("window.gkLive.events.map(e => e.seq)") == [1]
