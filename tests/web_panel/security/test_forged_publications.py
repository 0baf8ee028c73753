"""Forged and replayed publications never reach a page of a panel that holds the table's token.

Anyone on the broker can publish on a table's ``state``, ``events``, ``health``
(retained too). The table signs what it publishes (``controller.protocol.publication``);
the panel shows only what verifies and is newer than what it holds, and counts
the rest. A panel without the token says it cannot vouch for the table.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from flask.testing import FlaskClient

from controller.protocol.publication import Publisher, open_publication
from controller.protocol.signing import signing_key
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.service_runner import RunningService, start_service
from tests.web_panel.support.sse_reader import SseReader
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView

FORGED_STATE = {"seq": 99, "game": "terror", "game_id": "g1", "players": ["FORGED"], "over": True,
                "winners": [0], "view": {}, "legal": [], "expects": [], "waiting_for": "FORGED won",
                "mismatch": None, "board": "sensors"}


def until_marker(reader: SseReader, marker: str, timeout: float = 5.0) -> list[tuple[str, Any]]:
    """Every stream item up to the genuine event whose type is ``marker``."""
    items = []
    while True:
        kind, data = reader.next(timeout=timeout)
        items.append((kind, data))
        if kind == "event" and data.get("type") == marker:
            return items


def test_forged_and_replayed_state_events_and_health_never_reach_the_api_or_the_stream(
        client: FlaskClient, fake: FakeTable, token: str) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    old_state = fake.signer.sign("state", json.dumps({**FORGED_STATE, "seq": 0, "players": ["FORGED-OLD"]}).encode())
    truth = fake.state(seq=1)  # newer than old_state, which the table really signed
    fake.publish("health", {"time": 1.0, "warnings": []})
    genuine_sensors = fake.signer.sign("sensors", b'{"time": 2.0, "sensors": {}, "warnings": ["FORGED"]}')
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("seq") == 1, 5)
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    kind, snap = reader.next("snapshot")
    assert snap["trust"]["vouched"] is True and snap["trust"]["refused"] == {}

    forged_event = {"seq": 1, "table": fake.table, "type": "FORGED", "time": 1.0, "data": {}}
    someone_else = Publisher("not-the-token", fake.table, "run-x", 1e12)
    # All on one connection, so the broker delivers them in this order, before the marker.
    fake.publish_raw("state", json.dumps(FORGED_STATE).encode())                          # unsigned
    fake.publish_raw("state", someone_else.sign("state", json.dumps(FORGED_STATE).encode()))  # another key
    fake.publish_raw("state", old_state)                                                  # an old one replayed
    fake.publish_raw("health", genuine_sensors)                                           # moved to another topic
    fake.publish_raw("health", json.dumps({"time": 9e9, "warnings": ["FORGED"]}).encode())
    fake.publish_raw("events", json.dumps(forged_event).encode(), retain=False)
    fake.publish_raw("events", someone_else.sign("events", json.dumps(forged_event).encode()), retain=False)
    fake.publish_raw("state", b"")                                                        # a deletion
    fake.event("marker", seq=1)

    items = until_marker(reader, "marker")
    assert "FORGED" not in json.dumps([data for kind, data in items if kind != "trust"])
    refused = view.vouching.describe(fake.table)["refused"]
    assert refused == {"unsigned": 4, "forged": 2, "stale": 1, "misplaced": 1}
    # Pages learn it live: told at most TRUST_EVERY_S apart, and the last count always comes.
    told = [d for k, d in items if k == "trust"]
    while not told or told[-1]["refused"] != refused:
        told.append(reader.next("trust")[1])

    api = client.get(f"/api/t/{fake.table}").get_json()
    assert "FORGED" not in json.dumps({k: v for k, v in api.items() if k != "trust"})
    assert api["state"] == truth and api["health"] == {"time": 1.0, "warnings": []}
    assert [e["type"] for e in api["events"]] == ["marker"]
    assert api["trust"]["vouched"] is True
    assert "refused 8 messages that were not the table's" in api["trust"]["text"]
    assert "FORGED" not in client.get(f"/t/{fake.table}").get_data(as_text=True)


def test_a_panel_without_the_token_says_it_cannot_vouch_for_the_table(mosquitto: Broker, fake: FakeTable) -> None:
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port), "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        web = app.test_client()
        api = web.get(f"/api/t/{fake.table}").get_json()  # the panel subscribes to the table now, and waits
        assert api["state"]["game_id"] == "g1"
        assert api["trust"]["vouched"] is False
        assert "cannot vouch" in api["trust"]["text"]
        assert "pub" not in api["state"] and "auth" not in api["state"]
        page = web.get(f"/t/{fake.table}").get_data(as_text=True)
        assert 'id="trust" class="trust unvouched"' in page and "cannot vouch" in page
    finally:
        view.close()


# ----- against the real controller ---------------------------------------------------------------------
@pytest.fixture
def service(mosquitto: Broker, tmp_path: Path, token: str, table_id: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, token)
    yield svc
    svc.stop()


def api(service: RunningService) -> dict[str, Any]:
    with urllib.request.urlopen(f"{service.panel_url}api/t/{service.table}", timeout=5) as r:
        return json.loads(r.read())


def outsider(broker: Broker) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="outsider")
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


def test_the_controller_puts_its_retained_state_back_and_a_resync_restores_the_truth(
        service: RunningService, mosquitto: Broker, token: str) -> None:
    table = service.table
    blind_app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port), "TESTING": True})
    blind: MqttView = blind_app.extensions["gravekeeper"]  # a panel without the token
    seen_by_blind: list[Any] = []
    got_forgery = threading.Event()
    sub = blind.subscribe(table)
    blind.hold(table)  # as the table's stream does: the panel subscribes to the table's traffic

    def watch() -> None:
        while True:
            item = sub.get(30)
            if item is None:
                return
            seen_by_blind.append(item.data)
            if item.kind == "state" and "FORGED" in json.dumps(item.data):
                got_forgery.set()

    threading.Thread(target=watch, daemon=True).start()
    forger = outsider(mosquitto)
    try:
        assert blind.wait_until(lambda: (blind.state(table) or {}).get("players") == ["Ann", "Bo"], 10)
        truth = blind.state(table)
        before = api(service)
        assert before["state"]["players"] == ["Ann", "Bo"] and before["trust"]["vouched"] is True

        forger.publish(f"gravekeeper/{table}/state", json.dumps(FORGED_STATE), qos=1, retain=True).wait_for_publish(5)
        # The blind panel cannot tell: it shows the forgery, then the table's own state comes back.
        assert got_forgery.wait(5)
        assert blind.wait_until(lambda: (blind.state(table) or {}).get("players") == ["Ann", "Bo"], 5)

        # The broker holds the table's state again (a new panel sees the truth), signed by the table.
        with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/state",)) as late:
            msg = late.wait_for(lambda m: len(m) >= 1)[0]
            data, _ = open_publication(signing_key(token), table, "state", msg.payload)
            assert data["players"] == ["Ann", "Bo"] and data["game_id"] == truth["game_id"]

        # The panel that holds the token never showed it, and says what it refused; health counts it.
        after = api(service)
        assert after["state"]["players"] == ["Ann", "Bo"]
        assert after["trust"]["refused"].get("unsigned", 0) >= 1
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, token)
        try:
            cmd.ok("resync", {})
        finally:
            cmd.close()

        def counted() -> bool:
            counters = (api(service).get("health") or {}).get("counters") or {}
            return counters.get("foreign_publications", 0) >= 1 and counters.get("retained_restored", 0) >= 1

        assert blind.wait_until(counted, 10)  # health is republished on resync

        # A resync after the forgery restores the truth at every panel too.
        forger.publish(f"gravekeeper/{table}/state", json.dumps(FORGED_STATE), qos=1, retain=False).wait_for_publish(5)
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, token)
        try:
            cmd.ok("resync", {})
        finally:
            cmd.close()
        assert blind.wait_until(lambda: (blind.state(table) or {}).get("players") == ["Ann", "Bo"], 5)
        assert "FORGED" not in json.dumps(api(service))
    finally:
        forger.disconnect()
        forger.loop_stop()
        blind.close()


def test_an_old_private_view_replayed_is_not_taken(client: FlaskClient, fake: FakeTable, token: str) -> None:
    """A hand the player held earlier, published again, never replaces the one they hold now."""
    from controller.protocol.security import seal

    view: MqttView = client.application.extensions["gravekeeper"]
    old = fake.signer.sign("private/0", json.dumps(
        {"seq": 0, "seat": 0, "sealed": seal(token, fake.table, 0, {"game_id": "g1", "hand": ["old card"]})}).encode())
    fake.private(0, {"game_id": "g1", "hand": ["new card"]})
    assert view.wait_until(lambda: view.sealed_view(fake.table, 0) is not None, 5)
    current = view.sealed_view(fake.table, 0)
    fake.publish_raw("private/0", old)
    fake.event("marker", seq=1)
    assert view.wait_until(lambda: any(e["type"] == "marker" for e in view.snapshot(fake.table)["events"]), 5)
    assert view.sealed_view(fake.table, 0) == current
    assert view.vouching.describe(fake.table)["refused"] == {"stale": 1}


def test_a_forged_or_older_status_never_takes_the_tables_place(client: FlaskClient, fake: FakeTable) -> None:
    """A forged "offline" would make the panel refuse the table's commands; an unsigned deletion would
    drop it from the list. Neither reaches the panel, nor does an older run's genuine status."""
    from controller.protocol.signing import signed_status

    view: MqttView = client.application.extensions["gravekeeper"]
    fake.publish("status", {"state": "online", "table": fake.table, "game": "terror", "since": 100.0})
    assert view.wait_until(lambda: ((view.snapshot(fake.table) or {}).get("status") or {}).get("since") == 100.0, 5)
    old_run = signed_status(fake._status_token, fake.table, {"state": "offline", "table": fake.table, "since": 50.0})
    other_token = signed_status("not-the-token", fake.table, {"state": "offline", "table": fake.table, "since": 200.0})
    for body in (json.dumps({"state": "offline", "table": fake.table, "since": 300.0}).encode(),
                 other_token, old_run, b""):
        fake.publish_raw("status", body)
    fake.state(seq=2)  # a marker after the forgeries
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("seq") == 2, 5)
    assert ((view.snapshot(fake.table) or {}).get("status") or {}).get("state") == "online"
    refused = view.vouching.describe(fake.table)["refused"]
    assert refused.get("unsigned", 0) >= 2 and refused.get("forged", 0) >= 1 and refused.get("stale", 0) >= 1
    assert any(t["table"] == fake.table and t["online"] for t in view.tables())


def test_an_old_tables_messages_are_refused_as_signed_by_an_older_version(client: FlaskClient, fake: FakeTable,
                                                                           token: str) -> None:
    """A table still on version 1 of the signing scheme signed its status and state without the
    header and the "v2." of version 2: the panel refuses them, counts them as "old" and says in
    words that the table and the panel must be updated together."""
    import hashlib
    import hmac

    view: MqttView = client.application.extensions["gravekeeper"]
    fake.state(seq=1)
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("seq") == 1, 5)
    status = {"state": "offline", "table": fake.table, "since": 1e12}
    mac = hmac.new(token.encode(), json.dumps(["gravekeeper-status", fake.table, status], sort_keys=True,
                                              separators=(",", ":")).encode(), hashlib.sha256).hexdigest()
    fake.publish_raw("status", json.dumps({**status, "auth": mac}).encode())
    signed_part = json.dumps({"pub": {"table": fake.table, "topic": "state", "run": "old", "since": 1e12, "n": 1},
                              **FORGED_STATE}, separators=(",", ":")).encode()[:-1]
    key = hmac.new(token.encode(), b"gravekeeper/publication-key", hashlib.sha256).digest()
    old_mac = hmac.new(key, signed_part, hashlib.sha256).hexdigest().encode()
    fake.publish_raw("state", signed_part + b',"auth":"' + old_mac + b'"}')
    fake.state(seq=2)  # a marker after the old messages
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("seq") == 2, 5)
    assert view.vouching.describe(fake.table)["refused"] == {"old": 2}
    assert "older version of the table" in view.vouching.describe(fake.table)["text"]
    assert "FORGED" not in json.dumps(view.state(fake.table))
