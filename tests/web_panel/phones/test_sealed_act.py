"""The panel's moves against a real controller: a refused secret move leaves no trace on ``#``.

A player's page (and the referee's, acting for a seat) sends ``act`` through
the panel, which seals it for the seat; the table's reply comes back sealed
and the panel opens it, so the sender still reads why a move was refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.protocol.security import join_code
from controller.service.service import Service
from tests.controller.service.test_service import (
    _held_secrets,
    _play_random,
    _refused_secret_act,
)
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic
from tests.web_panel.support.client import csrf_of, login
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView


@pytest.fixture
def panel(mosquitto: Broker) -> Iterator[Flask]:
    settings = PanelSettings(broker_port=mosquitto.port, base_topic=BASE, token=TOKEN, listen_port=0,
                             command_timeout=5.0)
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    yield app
    app.extensions["gravekeeper"].close()


def _secret_situation(svc: Service, game: str) -> tuple[int, dict[str, Any], str, set[str]]:
    """Play until a seat holds a secret and has a secret move about it that the table must refuse."""
    for round_ in range(40):
        _play_random(svc, 10, seed=round_)
        found = _refused_secret_act(svc, game)
        held = _held_secrets(svc, game)
        if found is not None and held:
            return (*found, held)
    raise AssertionError("the game never dealt a secret: the test would prove nothing")


@pytest.mark.parametrize(("game", "who"), [("terror", "player"), ("superstition", "referee")])
def test_a_refused_secret_move_from_the_panel_leaves_no_trace_on_hash(
        mosquitto: Broker, make_service: MakeService, panel: Flask, game: str, who: str) -> None:
    t = f"pn-sealed-{game}"
    with Subscriber(mosquitto.host, mosquitto.port, ("#",)) as spy:
        svc = make_service(t, simulate=False, **{"referee.board": "manual", "table.game": game, "table.seed": 11})
        seat, action, named, held = _secret_situation(svc, game)
        last = svc.journal.last_seq()
        view: MqttView = panel.extensions["gravekeeper"]
        view.hold(t)  # the table's page is open: the panel follows its state
        assert view.wait_until(lambda: (view.state(t) or {}).get("seq") == last, 5)
        client: FlaskClient = panel.test_client()
        if who == "player":
            csrf = csrf_of(client, t)
            code = join_code(TOKEN, t, view.state(t)["game_id"], seat)
            assert client.post(f"/t/{t}/join", data={"code": code, "csrf": csrf}).status_code == 303
        else:
            csrf = login(client, t, TOKEN)
        r = client.post(f"/t/{t}/cmd/act", json={"action": action}, headers={"X-CSRF-Token": csrf})
        # The sender is told why, in the page's own answer...
        assert r.status_code == 422, r.get_json()
        reason = r.get_json()["error"]
        assert reason and not reason.startswith("the table's reply could not be opened")
        assert svc.journal.last_seq() == last
        # ...and a spectator on '#' saw the command and its reply go by, sealed, and nothing else of it.
        spy.wait_for(lambda m: any(x.topic == topic(t, "reply", "act") for x in m))
        public = [m for m in spy.messages if m.topic.startswith(f"{BASE}/{t}/") and "/private/" not in m.topic]
        assert {topic(t, "cmd", "act"), topic(t, "reply", "act")} <= {m.topic for m in public}
        text = "\n".join(m.payload.decode() for m in public)
        for secret in (*held, named, action["kind"], reason):
            assert secret not in text, f"{secret!r} crossed the broker in clear"
