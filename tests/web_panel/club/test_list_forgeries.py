"""A forged retained state of a table the panel cannot vouch for must not break the club's list.

Anyone may publish a retained ``state`` for any table id, and a panel that does not hold that
table's token (a spectators' panel, or one given another table's token) shows what the broker
holds. The club list (``/``, ``/api/tables`` and its stream) words every table from its state:
a ``game`` that was a list, ``players`` that were a number or ``gm`` that was not an object
raised there, and ``/`` and ``/api/tables`` answered 500 to everyone while the forgery stayed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from flask import Flask

from tests.support.broker import Broker
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView

GOOD_STATE: dict[str, Any] = {
    "seq": 3, "table": "evil-1", "game": "terror", "game_id": "g1", "players": ["Ann", "Bo"], "current_player": 0,
    "over": False, "winners": [], "view": {}, "legal": [], "expects": [], "waiting_for": "Roll the dice.",
    "mismatch": None, "board": "sensors",
    "gm": {"paused": None, "undo": {"steps": 0}, "undo_request": None, "out_of_service": [], "last_undo": None},
}
WRONG = [None, 7, -1.5, True, "x", [1, "a", None], {"a": [1]}]


@pytest.fixture
def app(mosquitto: Broker) -> Iterator[Flask]:
    # No token: every table is shown as the broker holds it (the page says it cannot vouch).
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, listen_port=0)})
    yield app
    app.extensions["gravekeeper"].close()


GOOD_STATUS: dict[str, Any] = {"state": "online", "table": "evil-1", "game": "terror", "version": "v", "since": 0,
                                "instance": "i", "host": "h"}
GOOD_SUMMARY: dict[str, Any] = {"seq": 1, "game": "terror", "title": "Terror", "players": "Ann, Bo", "turn": "Ann",
                                 "waiting_for": "Roll.", "over": False, "winners": [], "mismatch": False,
                                 "mismatch_text": None, "paused": False}
CASES = [("state", f) for f in ["game", "players", "gm", "mismatch", "current_player", "over", "waiting_for"]] \
    + [("status", f) for f in ["game", "state"]] + [("summary", f) for f in ["game", "title", "players", "turn",
                                                                            "mismatch", "paused", "over"]]


@pytest.fixture
def forger(mosquitto: Broker) -> Iterator[mqtt.Client]:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="forger")
    client.connect(mosquitto.host, mosquitto.port)
    client.loop_start()
    yield client
    client.disconnect()
    client.loop_stop()


def publish(client: mqtt.Client, table: str, kind: str, payload: bytes) -> None:
    client.publish(f"gravekeeper/{table}/{kind}", payload, qos=1, retain=True).wait_for_publish(5)


@pytest.mark.parametrize(("kind", "field"), CASES)
def test_a_forgery_of_the_wrong_types_does_not_break_the_club_list(
        forger: mqtt.Client, app: Flask, kind: str, field: str) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    client = app.test_client()
    good = {"state": GOOD_STATE, "status": GOOD_STATUS, "summary": GOOD_SUMMARY}[kind]
    tables = [f"evil-{kind}-{field.replace('_', '')}-{n}" for n in range(len(WRONG))]
    try:
        for table, wrong in zip(tables, WRONG, strict=False):
            if kind != "status":
                publish(forger, table, "status", json.dumps({**GOOD_STATUS, "table": table}).encode())
            publish(forger, table, kind, json.dumps({**good, "table": table, field: wrong}).encode())
            if kind == "state":
                assert view.wait_until(lambda table=table: view.has_table(table), 5)
                view.hold(table)  # someone has the table's page open: the panel takes its state
        if kind == "state":
            assert view.wait_until(lambda: all(view.state(t) is not None for t in tables), 5)
        elif kind == "summary":
            assert view.wait_until(lambda: all(view.snapshot(t) is not None and view.store._tables[t].glance is not None
                                               for t in tables), 5)
        else:
            assert view.wait_until(lambda: all(view.has_table(t) for t in tables), 5)
        listed = client.get("/api/tables")
        assert listed.status_code == 200, listed.text[:300]
        lines = {line["table"]: line for line in listed.get_json()["tables"]}
        for table in tables:
            line = lines[table]
            assert line["game"] is None or isinstance(line["game"], str), line
            assert line["title"] is None or isinstance(line["title"], str), line
            assert isinstance(line["players"], list) and all(isinstance(p, str) for p in line["players"]), line
            assert isinstance(line["paused"], bool) and isinstance(line["over"], bool), line
        page = client.get("/")
        assert page.status_code == 200, page.text[-300:]
        assert all(t.encode() in page.data for t in tables)
    finally:
        for table in tables:
            for k in ("state", "status", "summary"):
                publish(forger, table, k, b"")
