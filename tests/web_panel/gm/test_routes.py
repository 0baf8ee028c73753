"""The panel's game-master routes against a fake table: who may send what, and the history pages."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from controller.protocol.security import join_code
from tests.web_panel.support.client import csrf_of, login
from tests.web_panel.support.fake_table import FakeTable


def post(client: FlaskClient, table: str, name: str, body: dict[str, Any], csrf: str) -> Any:
    return client.post(f"/t/{table}/cmd/{name}", json=body, headers={"X-CSRF-Token": csrf})


def test_the_referee_sends_undo_pause_and_corrections_signed(client: FlaskClient, fake: FakeTable,
                                                             token: str) -> None:
    csrf = login(client, fake.table, token)
    assert post(client, fake.table, "undo", {"reason": "slipped"}, csrf).status_code == 200
    assert post(client, fake.table, "pause", {}, csrf).status_code == 200
    r = post(client, fake.table, "correct", {"op": "broken", "sensor": "tomb.wolf", "reason": "loose"}, csrf)
    assert r.status_code == 200, r.get_json()
    sent = fake.wait_command(3)
    assert [name for name, _ in sent] == ["undo", "pause", "correct"]
    assert sent[0][1]["reason"] == "slipped" and sent[2][1]["sensor"] == "tomb.wolf"


def test_malformed_corrections_are_refused_before_anything_is_sent(client: FlaskClient, fake: FakeTable,
                                                                   token: str) -> None:
    csrf = login(client, fake.table, token)
    for body, words in [({"op": "broken", "sensor": "tomb.wolf"}, "say why"),
                        ({"op": "declare", "reason": "x"}, "action"),
                        ({"op": "broken", "sensor": "tomb.nope", "reason": "x"}, "sensor"),
                        ({"op": "rewrite", "reason": "x"}, "op must be one of"),
                        ({"op": "trust_board", "reason": "x" * 201}, "at most 200")]:
        r = post(client, fake.table, "correct", body, csrf)
        assert r.status_code == 400 and words in r.get_json()["error"], (body, r.get_json())
    assert fake.commands == []


def test_a_player_may_only_ask_to_undo_their_own_move(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = csrf_of(client, fake.table)
    r = post(client, fake.table, "undo_request", {"seat": 0}, csrf)
    assert r.status_code == 403  # a spectator
    joined = client.post(f"/t/{fake.table}/join", data={"code": join_code(token, fake.table, "g1", 0), "csrf": csrf})
    assert joined.status_code == 303
    assert post(client, fake.table, "undo_request", {"seat": 1}, csrf).status_code == 403
    assert post(client, fake.table, "undo", {}, csrf).status_code == 403  # only the referee takes a move back
    assert post(client, fake.table, "undo_request", {"seat": 0}, csrf).status_code == 200
    [(name, cmd)] = fake.wait_command(1)
    assert name == "undo_request" and cmd["seat"] == 0


def test_history_routes_ask_the_table_and_refuse_clearly(client: FlaskClient, fake: FakeTable) -> None:
    answers = {
        "games": {"games": [{"game_id": "g1", "game": "terror", "title": "Terror", "players": ["Ann", "Bo"]}]},
        "export": {"name": "terror-g1.jsonl", "format": "jsonl", "content": '{"record": "game"}\n'},
    }

    def handler(name: str, cmd: dict[str, Any]) -> dict[str, Any]:
        if name != "history":
            return {"ok": False, "error": "unexpected"}
        if cmd.get("game_id") == "nope":
            return {"ok": False, "error": "history: no game 'nope' in this table's history"}
        return {"ok": True, "data": answers.get(cmd["op"], {})}

    fake.handler = handler
    assert client.get(f"/t/{fake.table}/history").status_code == 200  # open to spectators
    games = client.get(f"/api/t/{fake.table}/history")
    assert games.status_code == 200 and games.get_json()["games"][0]["game_id"] == "g1"
    export = client.get(f"/t/{fake.table}/history/g1/export.jsonl")
    assert export.status_code == 200 and export.get_data(as_text=True) == '{"record": "game"}\n'
    assert export.headers["Content-Disposition"] == 'attachment; filename="terror-g1.jsonl"'
    assert export.headers["Content-Type"] == "application/x-ndjson"
    answers["export"] = {"name": "terror-g1.txt", "format": "text", "content": "Ann rolled a 4.\n"}
    text = client.get(f"/t/{fake.table}/history/g1/export.text")
    assert text.headers["Content-Type"] == "text/plain; charset=utf-8"  # once, not "charset=utf-8; charset=utf-8"
    missing = client.get(f"/api/t/{fake.table}/history/nope")
    assert missing.status_code == 422 and "no game" in missing.get_json()["error"]
    assert client.get(f"/t/{fake.table}/history/g1/export.pdf").status_code == 404
    assert [cmd["op"] for name, cmd in fake.commands] == ["games", "export", "export", "steps"]


def test_history_requests_are_limited_to_a_few_at_once(client: FlaskClient, fake: FakeTable) -> None:
    from web_panel.views import history

    for _ in range(history.MAX_AT_ONCE):
        assert history._busy.acquire(blocking=False)
    try:
        busy = client.get(f"/api/t/{fake.table}/history")
        assert busy.status_code == 429 and "busy" in busy.get_json()["error"]
        assert fake.commands == []
    finally:
        for _ in range(history.MAX_AT_ONCE):
            history._busy.release()
    fake.handler = lambda name, cmd: {"ok": True, "data": {"games": []}}
    assert client.get(f"/api/t/{fake.table}/history").status_code == 200
