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
from web_panel.fanout import StreamGate
from web_panel.mqtt import MqttView

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
    # Full now, for everyone: the kept share is a share of the whole, not more.
    assert _open(referee, f"/t/{t}/effects/stream", "10.0.1.1", opened) == 503

    # A watcher's page that closes gives its place to another watcher, not to nobody.
    opened[0].close()
    assert gate.open_streams() == TOTAL - 1
    assert _open(app.test_client(), f"/t/{t}/stream", "10.0.0.99", opened) == 200
    # And a kept page that closes leaves the watchers' share full: it goes to the referee's cues.
    opened[-4].close()  # the referee's table page
    assert _open(app.test_client(), f"/t/{t}/stream", "10.0.0.98", opened) == 503
    assert _open(referee, f"/t/{t}/effects/stream", "10.0.1.1", opened) == 200


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
