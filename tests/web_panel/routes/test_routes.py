"""Every route through the Flask test client, against a fake table on a real Mosquitto.

Refusals must be 4xx with a reason, and must send nothing to the table.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

import web_panel
from controller.protocol.names import default_name
from controller.protocol.security import join_code
from controller.protocol.signing import verify_command, verify_reply
from tests.support.broker import Broker
from tests.web_panel.support.client import csrf_of, login
from tests.web_panel.support.fake_table import FakeTable
from web_panel.mqtt import MqttView


def test_index_lists_the_table_with_status_and_game(client: FlaskClient, fake: FakeTable) -> None:
    html = client.get("/").get_data(as_text=True)
    assert f'data-table="{fake.table}"' in html
    api = client.get("/api/tables").get_json()
    mine = [t for t in api["tables"] if t["table"] == fake.table]
    assert mine == [{"table": fake.table, "name": default_name(fake.table), "room": None, "online": True,
                     "game": "terror",
                     "title": "Terror in the Graveyard",  # from the game's id when the table sends no summary
                     "players": ["Ann", "Bo"], "turn": "Ann", "waiting_for": "Roll the dice.",
                     "over": False, "mismatch": False, "mismatch_text": None,
                     "paused": False, "answering": True}]
    assert "Terror in the Graveyard" in html and ">terror<" not in html  # people read the title, not the id
    assert f">{default_name(fake.table)}<" in html and f">{fake.table}<" not in html  # and the table's name
    assert api["broker"] == "connected"


def test_a_stray_health_report_is_not_a_table(client: FlaskClient, fake: FakeTable, app: Flask) -> None:
    """``gravekeeper selftest`` may publish health for a table no controller runs: no phantom row."""
    view: MqttView = app.extensions["gravekeeper"]
    stray = fake.topic("health").replace(f"/{fake.table}/", f"/{fake.table}-stray/")
    fake._client.publish(stray, b'{"time": 1, "selftest": null}', qos=1, retain=True).wait_for_publish(5)
    try:
        # The panel subscribes to the health of the tables it shows only (web_panel/interest.py): it
        # does not even receive it. The table's next status, sent after it, comes after it if it did.
        fake.publish("status", {"state": "online", "table": fake.table, "mark": "after the stray"})
        assert view.wait_until(lambda: (view.snapshot(fake.table) or {}).get("status", {}).get("mark"), 5)
        assert f"{fake.table}-stray" not in [t["table"] for t in view.tables()]
        assert not view.has_table(f"{fake.table}-stray")
        assert client.get(f"/t/{fake.table}-stray").status_code == 404
        assert any(t["table"] == fake.table for t in view.tables())
    finally:
        fake._client.publish(stray, b"", qos=1, retain=True).wait_for_publish(5)


def test_index_shows_a_table_going_offline(client: FlaskClient, fake: FakeTable, app: Flask) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    fake.publish("status", {"state": "offline", "table": fake.table})
    assert view.wait_until(lambda: not view.tables() or not [t for t in view.tables()
                                                             if t["table"] == fake.table][0]["online"], 5)
    html = client.get("/").get_data(as_text=True)
    row = html[html.index(f'data-table="{fake.table}"'):]
    assert "offline" in row[:600]


def test_table_page_is_read_only_without_a_token(client: FlaskClient, fake: FakeTable) -> None:
    html = client.get(f"/t/{fake.table}").get_data(as_text=True)
    assert 'data-can-control="no"' in html
    assert 'id="login-form"' in html and 'id="controls"' not in html
    assert 'id="codes"' not in html


@pytest.mark.parametrize("path", ["/t/{missing}", "/api/t/{missing}", "/t/{missing}/stream", "/t/bad%20id",
                                  "/t/{missing}/join", "/api/t/{missing}/codes"])
def test_unknown_tables_are_404_with_a_reason(client: FlaskClient, fake: FakeTable, path: str) -> None:
    r = client.get(path.format(missing="nosuchtable"))
    assert r.status_code == 404
    text = r.get_data(as_text=True)
    assert "nosuchtable" in text or "not a valid table id" in text


def test_snapshot_json_has_the_retained_state(client: FlaskClient, fake: FakeTable) -> None:
    snap = client.get(f"/api/t/{fake.table}").get_json()
    assert snap["state"]["game_id"] == "g1" and snap["status"]["state"] == "online"
    assert snap["table"] == fake.table


def test_login_needs_csrf_and_the_right_token(client: FlaskClient, fake: FakeTable, token: str) -> None:
    t = fake.table
    r = client.post(f"/t/{t}/login", data={"token": token})  # no session, no CSRF
    assert r.status_code == 403 and "CSRF" in r.get_data(as_text=True)
    csrf = csrf_of(client, t)
    r = client.post(f"/t/{t}/login", data={"token": token, "csrf": "forged"})
    assert r.status_code == 403 and "CSRF" in r.get_data(as_text=True)
    r = client.post(f"/t/{t}/login", data={"token": "wrong", "csrf": csrf})
    assert r.status_code == 403 and "not the control token" in r.get_data(as_text=True)
    r = client.post(f"/t/{t}/login", data={"token": "", "csrf": csrf})
    assert r.status_code == 400
    assert client.get(f"/api/t/{t}/codes").status_code == 403  # still read-only after every refusal
    r = client.post(f"/t/{t}/login", data={"token": token, "csrf": csrf})
    assert r.status_code == 303 and "token" not in r.headers["Location"]
    html = client.get(f"/t/{t}").get_data(as_text=True)
    assert 'data-can-control="yes"' in html and token not in html


def test_wrong_control_tokens_are_rate_limited(app: Flask, client: FlaskClient, fake: FakeTable, token: str) -> None:
    """Like join codes: a control token typed wrong again and again is someone guessing it."""
    csrf = csrf_of(client, fake.table)
    for i in range(8):
        r = client.post(f"/t/{fake.table}/login", data={"token": f"guess-{i}", "csrf": csrf})
        assert r.status_code == 403 and "not the control token" in r.get_data(as_text=True)
    r = client.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf})
    assert r.status_code == 429 and "wait a minute" in r.get_data(as_text=True)
    assert client.get(f"/api/t/{fake.table}/codes").status_code == 403  # still read-only
    r = client.post(f"/t/{fake.table}/selftest/login", data={"token": token, "csrf": csrf})
    assert r.status_code == 429
    # A new cookie for every guess does not reset the count: the table keeps its own.
    for i in range(22):
        fresh = app.test_client()
        r = fresh.post(f"/t/{fake.table}/login", data={"token": f"more-{i}", "csrf": csrf_of(fresh, fake.table)})
        assert r.status_code == 403
    fresh = app.test_client()
    r = fresh.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf_of(fresh, fake.table)})
    assert r.status_code == 429
    assert fresh.get(f"/api/t/{fake.table}/codes").status_code == 403


def test_token_never_reaches_the_browser(client: FlaskClient, fake: FakeTable, token: str) -> None:
    login(client, fake.table, token)
    for path in (f"/t/{fake.table}", "/", f"/api/t/{fake.table}", f"/api/t/{fake.table}/codes"):
        r = client.get(path)
        assert token not in r.get_data(as_text=True)
        assert all(token not in v for _, v in r.headers.items())
    cookie = client.get_cookie("gk_session")
    assert cookie is not None and token not in cookie.value


def test_join_codes_for_token_holders(client: FlaskClient, fake: FakeTable, token: str) -> None:
    login(client, fake.table, token)
    codes = client.get(f"/api/t/{fake.table}/codes").get_json()
    assert codes["game_id"] == "g1"
    assert codes["codes"] == [
        {"seat": 0, "player": "Ann", "code": join_code(token, fake.table, "g1", 0)},
        {"seat": 1, "player": "Bo", "code": join_code(token, fake.table, "g1", 1)},
    ]


def test_logout_makes_the_page_read_only_again(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    assert client.post(f"/t/{fake.table}/logout", data={}).status_code == 403  # CSRF still needed
    assert client.get(f"/api/t/{fake.table}/codes").status_code == 200
    assert client.post(f"/t/{fake.table}/logout", data={"csrf": csrf}).status_code == 303
    assert client.get(f"/api/t/{fake.table}/codes").status_code == 403


def _cmd(client: FlaskClient, table: str, name: str, body: object, csrf: str | None) -> tuple[int, dict]:
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    r = client.post(f"/t/{table}/cmd/{name}", json=body, headers=headers)
    return r.status_code, r.get_json()


def test_a_command_is_signed_sent_and_its_reply_shown(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    fake.handler = lambda name, cmd: {"ok": True, "data": {"events": [{"type": "rolled"}]}}
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 200 and reply["ok"] is True and reply["data"] == {"events": [{"type": "rolled"}]}
    (name, cmd), = fake.wait_command(1)
    assert name == "act" and verify_command(token, fake.table, name, fake.wire[0])
    # The act crossed the broker sealed for seat 0: the seat and ciphertext, never the action.
    assert "action" not in cmd and cmd["seat"] == 0 and "roll" not in cmd["sealed"]
    assert fake.action_of(cmd) == {"kind": "roll", "player": 0, "params": {}}
    assert reply["id"] == cmd["id"]


def test_new_game_from_a_form_is_normalised(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    r = client.post(f"/t/{fake.table}/cmd/new_game",
                    data={"game": "superstition", "players": "Ann, Bo ,Cy", "seed": "7", "csrf": csrf})
    assert r.status_code == 200, r.get_json()
    (name, cmd), = fake.wait_command(1)
    assert (name, cmd["game"], cmd["players"], cmd["seed"]) == ("new_game", "superstition", ["Ann", "Bo", "Cy"], 7)


def test_a_rejected_command_shows_its_reason(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    fake.handler = lambda name, cmd: {"ok": False, "error": "it is Bo's turn, not Ann's"}
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 422 and reply == {"ok": False, "id": fake.commands[0][1]["id"],
                                       "error": "it is Bo's turn, not Ann's"}


def test_a_refused_act_crosses_the_broker_sealed_and_its_reason_is_shown_to_the_sender(
        mosquitto: Broker, client: FlaskClient, fake: FakeTable, token: str) -> None:
    from tests.support.mqtt import Subscriber

    csrf = login(client, fake.table, token)
    fake.handler = lambda name, cmd: {"ok": False, "error": "ring-3 can only be played on your turn"}
    play = {"kind": "play_card", "player": 1, "params": {"card": "ring-3"}}
    with Subscriber(mosquitto.host, mosquitto.port, ("#",)) as spy:
        status, reply = _cmd(client, fake.table, "act", {"action": play}, csrf)
        assert status == 422 and reply["error"] == "ring-3 can only be played on your turn"
        spy.wait_for(lambda m: any(x.topic == fake.topic("reply/act") for x in m))
    on_wire = [m for m in spy.messages if m.topic in (fake.topic("cmd/act"), fake.topic("reply/act"))]
    assert len(on_wire) == 2
    for m in on_wire:
        assert b"ring-3" not in m.payload and b"play_card" not in m.payload and b"your turn" not in m.payload
    assert set(on_wire[1].json()) == {"id", "ok", "sealed", "auth"}
    assert verify_reply(token, fake.table, "act", on_wire[1].payload)
    assert fake.action_of(fake.commands[0][1]) == play


def test_an_act_reply_that_does_not_open_is_a_refusal_with_a_reason(client: FlaskClient, fake: FakeTable,
                                                                    token: str) -> None:
    csrf = login(client, fake.table, token)
    fake.reply_token = "not-the-panel-token"
    fake.handler = lambda name, cmd: {"ok": True, "data": {"events": []}}
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 422 and reply["error"].startswith("the table's reply could not be opened")
    # The verdict inside the seal is the one that counts: a clear 'ok' flipped on the way is ignored.
    fake.reply_token, fake.clear_ok = None, True
    fake.handler = lambda name, cmd: {"ok": False, "error": "not now"}
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 422 and reply["error"] == "not now"


def test_a_reply_the_table_did_not_sign_is_ignored(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    view: MqttView = client.application.extensions["gravekeeper"]
    view.settings = dataclasses.replace(view.settings, command_timeout=2.0)
    # Someone on the broker answers first, in the table's name: unsigned, then signed with a guess.
    fake.handler = lambda name, cmd: {"ok": True, "data": {"events": [{"type": "rolled"}]}}
    fake.forged_first = {"ok": False, "error": "the table is closed for the night"}
    status, reply = _cmd(client, fake.table, "resync", {}, csrf)
    assert status == 200 and reply["ok"] is True and "auth" not in reply
    fake.forged_first = {"ok": False, "error": "forged", "auth": "0" * 64}
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 200 and reply["ok"] is True and reply["data"] == {"events": [{"type": "rolled"}]}
    # Only a forger answers: the panel waits for the table, and says it did not answer.
    fake.silent = True
    status, reply = _cmd(client, fake.table, "resync", {}, csrf)
    assert status == 504 and "did not answer" in reply["error"]


def test_a_table_that_does_not_answer_gives_504(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    fake.silent = True
    view: MqttView = client.application.extensions["gravekeeper"]
    view.settings = dataclasses.replace(view.settings, command_timeout=0.5)
    status, reply = _cmd(client, fake.table, "resync", {}, csrf)
    assert status == 504 and "did not answer" in reply["error"]


def test_an_offline_table_gets_no_command(client: FlaskClient, fake: FakeTable, token: str, app: Flask) -> None:
    csrf = login(client, fake.table, token)
    view: MqttView = app.extensions["gravekeeper"]
    fake.publish("status", {"state": "offline", "table": fake.table})
    assert view.wait_until(lambda: (view.snapshot(fake.table) or {}).get("status", {}).get("state") == "offline", 5)
    status, reply = _cmd(client, fake.table, "resync", {}, csrf)
    assert status == 503 and "offline" in reply["error"]
    assert fake.commands == []


BAD_COMMANDS = [
    ("act", {"action": {"player": 0}}, 400, "kind"),
    ("act", {}, 400, "action is missing"),
    ("act", {"action": {"kind": "roll", "player": "zero"}}, 400, "seat number"),
    ("act", {"action": {"kind": "roll"}, "extra": 1}, 400, "extra"),
    ("act", {"action": {"kind": "roll", "player": 10 ** 40}}, 400, "seat from 0"),
    ("act", {"action": {"kind": "roll", "player": -1}}, 400, "seat"),
    ("new_game", {"game": "terror", "players": ["Ann\u0000", "Bo"]}, 400, "control character"),
    ("new_game", {"game": "terror", "players": ["Ann", "B\no"]}, 400, "control character"),
    ("new_game", {"game": "chess", "players": ["A"]}, 400, "chess"),
    ("new_game", {"game": "terror", "players": []}, 400, "players"),
    ("new_game", {"game": "terror", "players": ["A", "A"]}, 400, "same name"),
    ("new_game", {"game": "terror", "players": ["A"], "seed": "x"}, 400, "seed"),
    ("new_game", {"game": "terror", "players": ["A"], "seed": True}, 400, "seed"),
    ("sim", {"sensor": "tomb.dragon", "value": "middle"}, 400, "tomb.dragon"),
    ("sim", {"sensor": "tomb.wolf", "value": "sideways"}, 400, "sideways"),
    ("selftest", {"guided": "yes"}, 400, "guided"),
    ("selftest", {"skip": [{"step": 1}]}, 400, "skip"),
    ("selftest", {"skip": ["trap.ladder", 3]}, 400, "skip"),
    ("resync", [], 400, "JSON object"),
    ("launch_rockets", {}, 404, "unknown command"),
]


@pytest.mark.parametrize(("name", "body", "status", "words"), BAD_COMMANDS)
def test_malformed_commands_are_refused_and_nothing_is_sent(
        client: FlaskClient, fake: FakeTable, token: str, name: str, body: object, status: int, words: str) -> None:
    csrf = login(client, fake.table, token)
    got, reply = _cmd(client, fake.table, name, body, csrf)
    assert got == status and words in reply["error"] and reply["ok"] is False
    assert client.post(f"/t/{fake.table}/cmd/resync", data=b"{}", content_type="application/json",
                       headers={"X-CSRF-Token": csrf}).status_code == 200
    # Only the control command after the refusal reached the table.
    assert [n for n, _ in fake.wait_command(1)] == ["resync"]


def test_bad_json_and_oversized_commands(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = login(client, fake.table, token)
    r = client.post(f"/t/{fake.table}/cmd/act", data=b"{nope", content_type="application/json",
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 400 and "not valid JSON" in r.get_json()["error"]
    big = {"game": "terror", "players": ["A"], "options": {"x": "y" * 20000}}
    r = client.post(f"/t/{fake.table}/cmd/new_game", json=big, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 413 and "at most" in r.get_json()["error"]
    assert fake.commands == []


@pytest.mark.parametrize("seed", ["--5", "5-", "\u00b2", "\u0663", " 7 8 "])
def test_a_seed_that_only_looks_like_a_number_is_refused(client: FlaskClient, fake: FakeTable, token: str,
                                                         seed: str) -> None:
    """Text that passes a digit check but is no integer (a doubled minus, a superscript) must not crash."""
    csrf = login(client, fake.table, token)
    got, reply = _cmd(client, fake.table, "new_game", {"game": "terror", "players": ["A"], "seed": seed}, csrf)
    assert got == 400 and "seed" in reply["error"] and reply["ok"] is False
    r = client.post(f"/t/{fake.table}/cmd/new_game", headers={"X-CSRF-Token": csrf},
                    data={"game": "terror", "players": "A", "seed": seed})
    assert r.status_code == 400 and "seed" in r.get_json()["error"]
    assert fake.commands == []


@pytest.mark.parametrize("body", ["[" * 5000 + "]" * 5000,
                                  '{"game": "terror", "players": ["A"], "options": ' + "[" * 3000 + "]" * 3000 + "}"])
def test_deeply_nested_json_is_a_400_not_a_crash(client: FlaskClient, fake: FakeTable, token: str, body: str) -> None:
    csrf = login(client, fake.table, token)
    r = client.post(f"/t/{fake.table}/cmd/new_game", data=body.encode(), content_type="application/json",
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 400 and "nested" in r.get_json()["error"]
    assert fake.commands == []


def test_commands_need_the_token_and_csrf(client: FlaskClient, fake: FakeTable, token: str) -> None:
    csrf = csrf_of(client, fake.table)
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, csrf)
    assert status == 403 and "read-only" in reply["error"]
    login(client, fake.table, token)
    status, reply = _cmd(client, fake.table, "act", {"action": {"kind": "roll", "player": 0}}, None)
    assert status == 403 and "CSRF" in reply["error"]
    assert fake.commands == []


def test_a_wrong_token_typed_into_a_panel_without_one_is_refused_by_the_table(
        mosquitto: Broker, fake: FakeTable) -> None:
    from web_panel import PanelSettings, create_app

    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port), "TESTING": True})
    view = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: view.has_table(fake.table) and view.connected.is_set(), 5)
        client = app.test_client()
        csrf = login(client, fake.table, "a-guess")  # the panel cannot check it, the table can
        status, reply = _cmd(client, fake.table, "resync", {}, csrf)
        assert status == 403 and reply["error"].startswith("not authorised")
        assert client.post(f"/t/{fake.table}/join", data={"code": "ABCDEF", "csrf": csrf}).status_code == 409
    finally:
        view.close()


def test_pages_carry_security_headers(client: FlaskClient, fake: FakeTable) -> None:
    r = client.get(f"/t/{fake.table}")
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["Cache-Control"] == "no-store"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "<script>" not in r.get_data(as_text=True)  # no inline script for the CSP to allow


def test_an_html_refusal_is_a_page_with_the_reason(client: FlaskClient, fake: FakeTable) -> None:
    r = client.get("/t/nosuchtable", headers={"Accept": "text/html"})
    assert r.status_code == 404 and r.mimetype == "text/html"
    assert "no table &#39;nosuchtable&#39; on the broker" in r.get_data(as_text=True)
    r = client.get("/t/nosuchtable", headers={"Accept": "application/json"})
    assert r.get_json() == {"ok": False, "error": "no table 'nosuchtable' on the broker (is its controller running?)"}


def test_a_table_without_a_game_has_no_codes_and_cannot_be_joined(client: FlaskClient, fake: FakeTable,
                                                                   token: str, app: Flask) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    fake.state(game=None, game_id=None, players=[])
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("game_id", "x") is None, 5)
    csrf = login(client, fake.table, token)
    assert client.get(f"/api/t/{fake.table}/codes").get_json() == {"game_id": None, "codes": []}
    r = client.post(f"/t/{fake.table}/join", data={"code": "ABCDEF", "csrf": csrf})
    assert r.status_code == 409 and "no game to join" in r.get_data(as_text=True)


def test_markup_in_names_is_escaped(client: FlaskClient, fake: FakeTable, app: Flask) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    fake.state(players=["<script>alert(1)</script>", "Bo"])
    assert view.wait_until(lambda: "<script>alert(1)</script>" in (view.state(fake.table) or {}).get("players", []), 5)
    html = client.get("/").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_the_join_page_and_static_files(client: FlaskClient, fake: FakeTable) -> None:
    page = client.get(f"/t/{fake.table}/join")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'name="csrf"' in html and f'action="/t/{fake.table}/join"' in html
    static = Path(web_panel.__file__).parent / "static"
    names = sorted(f.name for f in static.iterdir() if f.is_file())
    assert {"panel.css", "api.js", "live.js", "table.js", "player.js", "countdown.js"} <= set(names)
    for name in names:
        assert client.get(f"/static/{name}").status_code == 200, name
    assert client.get("/static/nope.js").status_code == 404


def test_the_panel_checks_the_same_commands_the_controller_answers() -> None:
    from controller.service.commands import COMMANDS as ANSWERED
    from web_panel.commands import COMMANDS as CHECKED

    assert CHECKED == ANSWERED  # two lists (the panel child keeps its imports light): they must not drift


def test_a_flood_of_new_sessions_does_not_log_a_referee_or_player_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cookie-less poller makes a session per request; when the store is full, the sessions
    that hold nothing go first, not a referee watching the live page (its stream does not touch
    the session) or a seated player."""
    from web_panel import auth

    monkeypatch.setattr(auth, "MAX_SESSIONS", 50)
    sessions = auth.SessionStore()
    referee = sessions.create()
    referee.tokens["t1"] = "secret"
    player = sessions.create()
    player.seats["t1"] = auth.Seat(game_id="g1", seat=0)
    for _ in range(200):
        sessions.create()
    assert sessions.get(referee.sid) is referee and sessions.get(player.sid) is player
    assert len(sessions) <= 50
