"""Private views: joining with a code, the player's own page, and that nobody else gets it."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from controller.protocol.security import join_code
from tests.web_panel.support.client import csrf_of
from tests.web_panel.support.fake_table import G1, FakeTable
from tests.web_panel.support.sse_reader import SseReader
from web_panel.mqtt import MqttView

SECRET = {"hand": ["Magic Ring", "Monster Reversal"], "legal": [{"kind": "play_card", "player": 1,
                                                                  "params": {"card": "ring-3"}}]}


def _join(client: FlaskClient, table: str, code: str) -> int:
    csrf = csrf_of(client, table)
    return client.post(f"/t/{table}/join", data={"code": code, "csrf": csrf}).status_code


def _with_private(app: Flask, fake: FakeTable, seat: int, view: object) -> None:
    fake.private(seat, view)
    mv: MqttView = app.extensions["gravekeeper"]
    assert mv.wait_until(lambda: mv.sealed_view(fake.table, seat) is not None, 5)


def test_a_player_joins_and_sees_only_their_own_hand(app: Flask, client: FlaskClient, fake: FakeTable,
                                                      token: str) -> None:
    _with_private(app, fake, 1, SECRET)
    _with_private(app, fake, 0, {"hand": ["Skeleton Key"]})
    code = join_code(token, fake.table, "g1", 1)
    assert _join(client, fake.table, code.lower()[:3] + "-" + code.lower()[3:]) == 303  # as typed by people
    me = client.get(f"/api/t/{fake.table}/me").get_json()
    assert me == {"seat": 1, "available": True, "seq": 0, "view": SECRET}
    page = client.get(f"/t/{fake.table}/me")
    assert page.status_code == 200 and 'data-seat="1"' in page.get_data(as_text=True)
    assert "Skeleton Key" not in client.get(f"/api/t/{fake.table}/me").get_data(as_text=True)


def test_private_json_is_never_kept_by_a_cache(app: Flask, client: FlaskClient, fake: FakeTable, token: str) -> None:
    """A hand or a join code left in a shared browser's cache, or a proxy's, is one another person can read."""
    _with_private(app, fake, 0, SECRET)
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 0)) == 303
    me = client.get(f"/api/t/{fake.table}/me")
    assert "Magic Ring" in me.get_data(as_text=True) and me.headers.get("Cache-Control") == "no-store"
    referee = app.test_client()
    csrf = csrf_of(referee, fake.table)
    assert referee.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf}).status_code == 303
    codes = referee.get(f"/api/t/{fake.table}/codes")
    assert codes.status_code == 200 and codes.headers.get("Cache-Control") == "no-store"


def test_spectators_never_receive_a_private_view(app: Flask, client: FlaskClient, fake: FakeTable) -> None:
    _with_private(app, fake, 1, SECRET)
    for path in (f"/t/{fake.table}", f"/api/t/{fake.table}", "/", "/api/tables"):
        assert "Magic Ring" not in client.get(path).get_data(as_text=True)
    for path in (f"/t/{fake.table}/me", f"/api/t/{fake.table}/me", f"/t/{fake.table}/me/stream"):
        r = client.get(path)
        assert r.status_code == 403 and "join" in r.get_data(as_text=True)
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    reader.next("snapshot")
    fake.private(1, {"hand": ["Magic Ring", "Crystal Skull"]})
    marker = fake.event("card_drawn", {"player": 1})
    assert reader.next("event")[1] == {**marker, "context": G1}  # the panel adds the game it belongs to
    assert "Magic Ring" not in reader.text() and "sealed" not in reader.text()


def test_wrong_codes_are_refused_then_rate_limited(app: Flask, client: FlaskClient, fake: FakeTable,
                                                   token: str) -> None:
    csrf = csrf_of(client, fake.table)
    r = client.post(f"/t/{fake.table}/join", data={"code": "", "csrf": csrf})
    assert r.status_code == 400
    for _ in range(8):
        r = client.post(f"/t/{fake.table}/join", data={"code": "AAAAAA", "csrf": csrf})
        assert r.status_code == 403 and "does not match" in r.get_data(as_text=True)
    good = join_code(token, fake.table, "g1", 0)
    r = client.post(f"/t/{fake.table}/join", data={"code": good, "csrf": csrf})
    assert r.status_code == 429  # even the right code waits out the lockout
    assert client.get(f"/api/t/{fake.table}/me").status_code == 403
    assert client.post(f"/t/{fake.table}/join", data={"code": good}).status_code == 403  # no CSRF


def test_a_code_with_letters_outside_ascii_is_a_wrong_code_not_a_crash(client: FlaskClient, fake: FakeTable) -> None:
    """People type on phones: accented letters and other scripts' digits are just wrong codes."""
    for typed in ("ÉÉÉÉÉÉ", "AB\u0663CDE", "ßßßßßß"):
        r = client.post(f"/t/{fake.table}/join", data={"code": typed, "csrf": csrf_of(client, fake.table)})
        assert r.status_code == 403 and "does not match" in r.get_data(as_text=True)
    assert client.get(f"/api/t/{fake.table}/me").status_code == 403


def test_a_code_of_another_game_or_table_does_not_work(client: FlaskClient, fake: FakeTable, token: str) -> None:
    assert _join(client, fake.table, join_code(token, fake.table, "g0", 0)) == 403
    assert _join(client, fake.table, join_code(token, "other", "g1", 0)) == 403
    assert _join(client, fake.table, join_code("other-token", fake.table, "g1", 0)) == 403


def test_a_new_game_ends_the_seat(app: Flask, client: FlaskClient, fake: FakeTable, token: str) -> None:
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 0)) == 303
    assert client.get(f"/api/t/{fake.table}/me").status_code == 200
    fake.state(game_id="g2")
    mv: MqttView = app.extensions["gravekeeper"]
    assert mv.wait_until(lambda: (mv.state(fake.table) or {}).get("game_id") == "g2", 5)
    assert client.get(f"/api/t/{fake.table}/me").status_code == 403


def test_leave(client: FlaskClient, fake: FakeTable, token: str) -> None:
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 0)) == 303
    csrf = csrf_of(client, fake.table)
    assert client.post(f"/t/{fake.table}/leave", data={}).status_code == 403
    assert client.post(f"/t/{fake.table}/leave", data={"csrf": csrf}).status_code == 303
    assert client.get(f"/api/t/{fake.table}/me").status_code == 403


def test_a_player_acts_only_for_their_own_seat(client: FlaskClient, fake: FakeTable, token: str) -> None:
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 1)) == 303
    csrf = csrf_of(client, fake.table)
    h = {"X-CSRF-Token": csrf}
    r = client.post(f"/t/{fake.table}/cmd/act", json={"action": {"kind": "play_card", "player": 0}}, headers=h)
    error = r.get_json()["error"]
    assert r.status_code == 403 and error == "you play as Bo; you cannot move for Ann"  # names, never seat numbers
    r = client.post(f"/t/{fake.table}/cmd/new_game", json={"game": "dogs", "players": ["A", "B"]}, headers=h)
    assert r.status_code == 403
    assert fake.commands == []
    r = client.post(f"/t/{fake.table}/cmd/act", json={"action": {"kind": "play_card", "player": 1,
                                                                 "params": {"card": "ring-3"}}}, headers=h)
    assert r.status_code == 200
    (name, cmd), = fake.wait_command(1)
    assert "action" not in cmd and cmd["seat"] == 1 and "ring-3" not in cmd["sealed"]
    assert fake.action_of(cmd)["player"] == 1


def test_the_player_stream_carries_their_private_view(app: Flask, client: FlaskClient, fake: FakeTable,
                                                      token: str) -> None:
    _with_private(app, fake, 1, SECRET)
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 1)) == 303
    reader = SseReader(client.get(f"/t/{fake.table}/me/stream", buffered=False))
    assert reader.next("snapshot")[1]["state"]["game_id"] == "g1"
    assert reader.next("private")[1]["view"] == SECRET
    fake.private(0, {"hand": ["Other Secret"]})
    fake.private(1, {"hand": ["Crystal Skull"]})
    assert reader.next("private")[1]["view"] == {"hand": ["Crystal Skull"]}
    assert "Other Secret" not in reader.text()
    fake.state(game_id="g2")
    assert reader.next("left", timeout=5)[1]["reason"]


def test_a_private_view_sealed_with_another_token_is_not_shown(app: Flask, client: FlaskClient,
                                                              fake: FakeTable, token: str) -> None:
    _with_private(app, fake, 0, {"hand": ["x"]})
    fake.private(0, {"hand": ["forged"]}, token="someone-else")
    mv: MqttView = app.extensions["gravekeeper"]
    assert _join(client, fake.table, join_code(token, fake.table, "g1", 0)) == 303
    assert mv.wait_until(lambda: client.get(f"/api/t/{fake.table}/me").get_json()["available"] is False, 5)
    me = client.get(f"/api/t/{fake.table}/me").get_json()
    assert "cannot open" in me["reason"] and "forged" not in str(me)


def test_fresh_sessions_do_not_reset_the_table_wide_limit(app: Flask, fake: FakeTable, token: str) -> None:
    from web_panel.auth import TABLE_JOIN_FAILURES_ALLOWED

    statuses = []
    for _ in range(TABLE_JOIN_FAILURES_ALLOWED // 2 + 1):
        client = app.test_client()  # a new cookie jar: a new session each time
        csrf = csrf_of(client, fake.table)
        for _ in range(2):
            statuses.append(client.post(f"/t/{fake.table}/join", data={"code": "AAAAAA", "csrf": csrf}).status_code)
    assert statuses[:TABLE_JOIN_FAILURES_ALLOWED] == [403] * TABLE_JOIN_FAILURES_ALLOWED
    assert statuses[TABLE_JOIN_FAILURES_ALLOWED:] == [429] * (len(statuses) - TABLE_JOIN_FAILURES_ALLOWED)
