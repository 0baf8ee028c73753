"""The live pages kept for the people at a table: watchers, however many devices, cannot take them.

The attack itself (1,100 streams from 138 devices against the served panel) is in test_exhaustion.py;
these hold who counts as having a place, through the app as the test client serves it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from controller.protocol.security import join_code
from tests.support.broker import Broker
from tests.web_panel.support.client import csrf_of, login
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView
from web_panel.stream_gate import StreamGate, StreamRefused, Ticket

TOTAL, KEPT = 6, 3


def _gated(app: Flask) -> StreamGate:
    gate = StreamGate(per_client=8, total=TOTAL, kept=KEPT)
    app.extensions["gravekeeper_streams"] = gate
    return gate


def _open(client: FlaskClient, path: str, device: str, opened: list[TestResponse]) -> int:
    r = client.get(path, environ_base={"REMOTE_ADDR": device}, buffered=False)
    opened.append(r)
    return r.status_code


@pytest.fixture
def opened() -> Iterator[list[TestResponse]]:
    made: list[TestResponse] = []
    yield made
    for r in made:
        r.close()


def test_watchers_fill_their_share_and_the_referee_and_a_player_still_get_theirs(
        app: Flask, fake: FakeTable, token: str, opened: list[TestResponse]) -> None:
    gate = _gated(app)
    t = fake.table
    watchers = [app.test_client() for _ in range(TOTAL)]
    statuses = [_open(w, f"/t/{t}/stream", f"10.0.0.{i + 1}", opened) for i, w in enumerate(watchers)]
    assert statuses == [200] * (TOTAL - KEPT) + [503] * KEPT, statuses
    refused = opened[-1].get_data(as_text=True)
    assert "live pages open for people watching" in refused and "referees and the players" in refused, refused

    referee = app.test_client()
    login(referee, t, token)
    player = app.test_client()
    csrf = csrf_of(player, t)
    assert player.post(f"/t/{t}/join", data={"code": join_code(token, t, "g1", 1), "csrf": csrf}).status_code == 303
    assert _open(referee, f"/t/{t}/stream", "10.0.1.1", opened) == 200
    assert _open(player, f"/t/{t}/me/stream", "10.0.1.2", opened) == 200
    assert _open(player, f"/t/{t}/effects/stream", "10.0.1.2", opened) == 200
    assert gate.open_streams() == TOTAL
    # Full now. The referee's cues still open: the oldest watcher's page gives its place up, and ends.
    assert _open(referee, f"/t/{t}/effects/stream", "10.0.1.1", opened) == 200
    assert gate.given_up == 1 and gate.open_streams() == TOTAL
    assert "event: snapshot" in opened[0].get_data(as_text=True)  # it ends (the page will ask again)
    opened[0].close()
    assert gate.open_streams() == TOTAL  # its place was counted out when it was given up, not twice
    assert _open(app.test_client(), f"/t/{t}/stream", "10.0.0.1", opened) == 503  # its retry: full

    # A watcher's page that closes gives its place to another watcher, not to nobody.
    opened[1].close()
    assert gate.open_streams() == TOTAL - 1
    assert _open(app.test_client(), f"/t/{t}/stream", "10.0.0.99", opened) == 200


def test_when_every_live_page_is_taken_a_watchers_page_makes_room_never_a_players() -> None:
    gate = StreamGate(per_client=2, total=4, kept=1)
    ended: list[str] = []

    def enter(name: str, client: str, placed: bool) -> Ticket:
        return gate.enter(client, placed, lambda: ended.append(name))

    a1, _a2, _b1 = enter("a1", "10.0.0.1", False), enter("a2", "10.0.0.1", False), enter("b1", "10.0.0.2", False)
    enter("p1", "10.0.1.1", True)
    with pytest.raises(StreamRefused) as refused:
        enter("c1", "10.0.0.3", False)  # a watcher does not make room for a watcher
    assert refused.value.status == 503 and ended == []
    # Each person with a place who comes to a full panel puts out a watcher's page: of the device holding
    # the most (an attacker's eight before a phone's one), the oldest of its own.
    enter("p2", "10.0.1.2", True)
    assert ended == ["a1"] and gate.open_streams() == 4 and gate.open_streams("10.0.0.1") == 1
    gate.leave(a1)  # the given-up stream ends: already counted out
    assert gate.open_streams() == 4
    enter("p3", "10.0.1.3", True)
    enter("p4", "10.0.1.4", True)
    assert ended == ["a1", "a2", "b1"] and gate.given_up == 3
    with pytest.raises(StreamRefused) as refused:  # every page now a person's with a place: none is put out
        enter("p5", "10.0.1.5", True)
    assert refused.value.status == 503 and "all it can" in str(refused.value)
    assert ended == ["a1", "a2", "b1"]
    # The device's own limit holds for people with a place too, and puts out nobody.
    small = StreamGate(per_client=1, total=2, kept=0)
    small.enter("10.0.0.1", False, lambda: ended.append("w"))
    small.enter("10.0.1.1", True)
    with pytest.raises(StreamRefused) as refused:
        small.enter("10.0.1.1", True)
    assert refused.value.status == 429 and ended == ["a1", "a2", "b1"]


def test_a_player_of_the_game_before_and_a_wrong_login_watch_like_anyone(
        app: Flask, fake: FakeTable, token: str, opened: list[TestResponse]) -> None:
    _gated(app)
    t = fake.table
    for i in range(TOTAL - KEPT):
        assert _open(app.test_client(), f"/t/{t}/stream", f"10.0.0.{i + 1}", opened) == 200
    wrong = app.test_client()
    csrf = csrf_of(wrong, t)
    assert wrong.post(f"/t/{t}/login", data={"token": "not-the-token", "csrf": csrf}).status_code != 303
    assert _open(wrong, f"/t/{t}/stream", "10.0.2.1", opened) == 503
    # A seat of a game that is over holds no place: the new game's players are someone else.
    player = app.test_client()
    csrf = csrf_of(player, t)
    assert player.post(f"/t/{t}/join", data={"code": join_code(token, t, "g1", 0), "csrf": csrf}).status_code == 303
    fake.state(game_id="g2")
    view: MqttView = app.extensions["gravekeeper"]
    assert view.wait_until(lambda: (view.state(t) or {}).get("game_id") == "g2", 5)
    assert _open(player, f"/t/{t}/stream", "10.0.2.2", opened) == 503


def test_a_token_the_panel_cannot_check_earns_no_kept_place(mosquitto: Broker, fake: FakeTable,
                                                            opened: list[TestResponse]) -> None:
    # A panel without the table's token keeps what is typed and lets the table refuse it: anyone can type one.
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, listen_port=0), "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        _gated(app)
        t = fake.table
        for i in range(TOTAL - KEPT):
            assert _open(app.test_client(), f"/t/{t}/stream", f"10.0.0.{i + 1}", opened) == 200
        typed = app.test_client()
        login(typed, t, "anything at all")
        assert _open(typed, f"/t/{t}/stream", "10.0.3.1", opened) == 503
    finally:
        for r in opened:
            r.close()
        opened.clear()
        view.close()


def test_a_live_page_sent_to_the_request_workers_is_refused_there_even_with_room(
        app: Flask, fake: FakeTable, opened: list[TestResponse]) -> None:
    """The dispatcher sends a live page it expects refused to the few request workers (web_panel/workers.py).
    If a place opened meanwhile, it is still refused: a live page must never hold one of those workers."""
    import threading

    from web_panel.workers import Workers

    gate = _gated(app)
    answers: list[int] = []
    done = threading.Event()

    class Task:
        def service(self) -> None:
            answers.append(_open(app.test_client(), f"/t/{fake.table}/stream", "10.0.0.1", opened))
            done.set()

        def cancel(self) -> None:
            pass

    workers = Workers(0, 1, lambda request: False)
    try:
        workers.requests.add_task(Task())
        assert done.wait(10)
    finally:
        workers.shutdown(timeout=5)
    assert answers == [503]
    assert "try again in a moment" in opened[-1].get_data(as_text=True)
    assert gate.open_streams() == 0  # nothing was counted for it
    assert _open(app.test_client(), f"/t/{fake.table}/stream", "10.0.0.1", opened) == 200  # the page's retry
