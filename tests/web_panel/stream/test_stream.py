"""The SSE stream and the MQTT picture behind it."""

from __future__ import annotations

import json
import threading

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.protocol.security import join_code
from controller.protocol.signing import signed_reply, verify_command
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import G1, FakeTable
from tests.web_panel.support.sse_reader import SseReader
from web_panel import PanelSettings, create_app
from web_panel.fanout import Subscriber
from web_panel.mqtt import CommandTimeout, MqttView


def test_stream_sends_the_retained_picture_then_changes(client: FlaskClient, fake: FakeTable) -> None:
    fake.publish("sensors", {"time": 1.0, "sensors": {"tomb.wolf": {"value": "middle", "changed": 1.0,
                                                                    "seen": 1.0, "source": "sim"}}})
    fake.publish("health", {"time": 1.0, "links": {"mcu": "none", "broker": "connected"}, "counters": {},
                            "warnings": [], "selftest": None})
    view: MqttView = client.application.extensions["gravekeeper"]
    assert view.wait_until(lambda: (view.snapshot(fake.table) or {}).get("health") is not None, 5)
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    snap = reader.next("snapshot")[1]
    assert snap["state"]["game_id"] == "g1" and snap["status"]["state"] == "online"
    assert snap["sensors"]["sensors"]["tomb.wolf"]["value"] == "middle"
    assert snap["health"]["links"]["mcu"] == "none"
    ev = fake.event("dice_rolled", {"player": 0, "number": 3, "symbol": "wolf"})
    assert reader.next("event")[1] == {**ev, "context": G1}  # the panel adds the game it belongs to
    fake.state(seq=1, waiting_for="Slide the Wolf tomb one position.")
    assert reader.next("state")[1]["waiting_for"] == "Slide the Wolf tomb one position."
    fake.publish("status", {"state": "offline", "table": fake.table})
    assert reader.next("status")[1]["state"] == "offline"
    assert "retry: 1000" in reader.text()


def test_the_snapshot_carries_recent_events(client: FlaskClient, fake: FakeTable) -> None:
    first = fake.event("dice_rolled", {"player": 0})
    second = fake.event("tomb_moved", {"tomb": "wolf"})
    view: MqttView = client.application.extensions["gravekeeper"]
    assert view.wait_until(lambda: len(view.snapshot(fake.table)["events"]) == 2, 5)
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    assert reader.next("snapshot")[1]["events"] == [{**first, "context": G1}, {**second, "context": G1}]


def test_a_seq_gap_asks_the_table_to_republish(client: FlaskClient, fake: FakeTable, token: str) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    fake.event("a")  # seq 1
    fake.event("b", seq=5)  # 2..4 lost, as when Mosquitto drops a slow subscriber's queue
    (name, _cmd), = fake.wait_command(1)
    assert name == "resync" and verify_command(token, fake.table, name, fake.wire[0])
    assert view.wait_until(lambda: view.store._tables[fake.table].gaps == 1, 5)


def test_duplicates_are_dropped_and_the_log_is_bounded(mosquitto: Broker) -> None:
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, event_log_size=3),
                      "START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    for seq in (1, 2, 2, 3, 4):
        view.handle("gravekeeper/x/events", json.dumps({"seq": seq, "type": "e", "data": {}}).encode())
    assert [e["seq"] for e in view.snapshot("x")["events"]] == [2, 3, 4]


@pytest.mark.parametrize("topic,payload", [
    ("gravekeeper/x/state", b"not json"),
    ("gravekeeper/x/state", b"[1, 2]"),
    ("gravekeeper/x/private/zero", b'{"sealed": "abc"}'),
    ("gravekeeper/x/private/0", b'{"sealed": 5}'),
    ("gravekeeper/x/state", b"{" + b" " * (1 << 20) + b"}"),
    ("gravekeeper/x/state", '{"seq": 1}'.encode("utf-16-le")),  # JSON, but not UTF-8
    ("gravekeeper/x/state", '{"seq": 1}'.encode("utf-16")),
    ("gravekeeper/x/state", '{"seq": 1}'.encode("utf-8-sig")),
    ("gravekeeper/x/state", b"[" * 100_000),
])
def test_bad_messages_are_counted_and_ignored(topic: str, payload: bytes) -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    view.handle(topic, payload)
    assert view.bad_messages == 1
    assert view.state("x") is None and view.sealed_view("x", 0) is None


def test_foreign_topics_are_ignored() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    view.handle("other/x/state", b'{"seq": 1}')
    view.handle("gravekeeper/bad id/state", b'{"seq": 1}')
    view.handle("gravekeeper/x/state/extra", b'{"seq": 1}')
    assert view.tables() == [] and view.bad_messages == 0


def test_a_cleared_table_leaves_the_list() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    view.handle("gravekeeper/x/status", b'{"state": "online"}')
    view.handle("gravekeeper/x/state", b'{"seq": 1, "game": "dogs"}')
    assert [t["game"] for t in view.tables()] == ["dogs"]
    view.handle("gravekeeper/x/state", b"")
    assert view.tables()[0]["game"] is None
    view.handle("gravekeeper/x/status", b"")
    assert view.tables() == []


def test_several_tables_share_one_broker(client: FlaskClient, fake: FakeTable, mosquitto: Broker, token: str) -> None:
    other = FakeTable(mosquitto.port, fake.table + "b", token)
    try:
        other.online(game="dogs")
        view: MqttView = client.application.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(other.table), 5)
        games = {t["table"]: t["game"] for t in client.get("/api/tables").get_json()["tables"]}
        assert games[fake.table] == "terror" and games[other.table] == "dogs"
    finally:
        other.clear()
        other.close()


def test_a_slow_client_is_resent_the_picture_not_blocked(app: Flask, client: FlaskClient,
                                                           fake: FakeTable) -> None:
    sub = Subscriber("x", maxsize=2)
    for i in range(3):
        sub.offer(("event", {"seq": i}))
    assert sub.overflowed.is_set() and sub.queue.qsize() == 2
    sub.close()  # a full queue has no room for the end marker; the closing flag still ends the stream
    assert sub.closing.is_set() and sub.queue.qsize() == 2
    view: MqttView = app.extensions["gravekeeper"]
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    reader.next("snapshot")
    (stream_sub,) = view.store.fanout._subscribers[fake.table]
    stream_sub.overflowed.set()
    fake.event("x")
    assert reader.next("snapshot")[1]["table"] == fake.table


def test_closing_the_view_ends_every_stream(app: Flask, client: FlaskClient, fake: FakeTable) -> None:
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    reader.next("snapshot")
    app.extensions["gravekeeper"].close()
    with pytest.raises(AssertionError, match="ended"):
        reader.next("event")
    assert app.extensions["gravekeeper"].subscriber_count() == 0


def test_a_command_waits_for_the_reply_with_its_own_id() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]

    def answer() -> None:
        assert view.wait_until(lambda: bool(view.commands.waiting()), 5)
        ((cmd_id, _),) = view.commands.waiting()
        view.handle("gravekeeper/x/reply/act", b'{"id": "someone-else", "ok": false, "error": "no"}')
        view.handle("gravekeeper/x/reply/act", signed_reply("tok", "x", "act", {"id": cmd_id, "ok": True, "data": 7}))

    helper = threading.Thread(target=answer)
    helper.start()
    reply = view.command("x", "act", {"action": {"kind": "roll"}}, "tok", timeout=5)
    helper.join()
    assert reply["ok"] is True and reply["data"] == 7
    assert view.commands.waiting() == [] and view.tables() == []
    with pytest.raises(CommandTimeout, match="did not answer 'act' within 0.1 s"):
        view.command("x", "act", {}, "tok", timeout=0.1)


def test_the_panel_reconnects_after_a_broker_outage(fresh_mosquitto: Broker, token: str, table_id: str) -> None:
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=fresh_mosquitto.port, token=token),
                      "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    table = FakeTable(fresh_mosquitto.port, table_id, token)
    try:
        assert view.connected.wait(5)
        table.online()
        assert view.wait_until(lambda: view.has_table(table_id), 5)
        view.hold(table_id)  # its page is open: the panel subscribes to its traffic again after the outage
        fresh_mosquitto.stop()
        assert view.wait_until(lambda: not view.connected.is_set(), 10)
        assert app.test_client().get("/api/tables").get_json()["broker"] == "disconnected"
        fresh_mosquitto.start()
        assert view.wait_until(lambda: view.connected.is_set(), 15)
        table.close()
        table = FakeTable(fresh_mosquitto.port, table_id, token)  # the controller comes back too
        table.state(seq=9, waiting_for="Back after the outage.")
        assert view.wait_until(lambda: (view.state(table_id) or {}).get("seq") == 9, 5)
    finally:
        table.close()
        view.close()


def test_a_table_that_starts_its_numbering_again_is_followed() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    view.handle("gravekeeper/x/state", b'{"seq": 40}')
    view.handle("gravekeeper/x/events", b'{"seq": 41, "type": "old"}')
    view.handle("gravekeeper/x/state", b'{"seq": 0}')  # a fresh journal
    view.handle("gravekeeper/x/events", b'{"seq": 1, "type": "new"}')
    assert [e["type"] for e in view.snapshot("x")["events"]] == ["new"]
    assert view.store._tables["x"].gaps == 0


def test_the_panel_works_with_the_embedded_broker_of_a_fresh_machine(token: str, table_id: str) -> None:
    from controller.mqtt.broker import EmbeddedBroker
    from tests.support.broker import free_port

    port = free_port()
    broker = EmbeddedBroker("127.0.0.1", port)
    broker.start()
    try:
        table = FakeTable(port, table_id, token)
        app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=port, token=token), "TESTING": True})
        view: MqttView = app.extensions["gravekeeper"]
        try:
            table.online()
            table.state()
            table.private(0, {"hand": ["x"]})
            assert view.wait_until(lambda: view.has_table(table_id), 5)
            view.hold(table_id)  # a page of the table is open: its retained topics come on subscribing
            assert view.wait_until(lambda: view.sealed_view(table_id, 0) is not None
                                   and (view.state(table_id) or {}).get("game_id") == "g1", 5)
            assert view.command(table_id, "resync", {}, token, timeout=5)["ok"] is True
            table.event("e")
            assert view.wait_until(lambda: len(view.snapshot(table_id)["events"]) == 1, 5)
        finally:
            view.close()
            table.close()
    finally:
        broker.close()


def test_a_deleted_private_view_is_forgotten() -> None:
    from controller.protocol.security import seal

    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    view.handle("gravekeeper/x/state", b'{"seq": 1}')
    view.handle("gravekeeper/x/private/2", json.dumps({"seq": 1, "seat": 2, "sealed": seal("t", "x", 2, {})}).encode())
    assert view.sealed_view("x", 2) is not None
    view.handle("gravekeeper/x/private/2", b"")
    assert view.sealed_view("x", 2) is None


def test_a_stream_that_is_never_read_leaves_no_subscriber(app: Flask, client: FlaskClient, fake: FakeTable,
                                                          token: str) -> None:
    """A HEAD request (a link checker, a monitor) gets headers only: its stream body is never run.

    A subscription made before the body runs would never be undone: its queue would fill and stay,
    and every change of the table would still be offered to it, for as long as the panel runs.
    """
    view: MqttView = app.extensions["gravekeeper"]
    for _ in range(3):
        r = client.head(f"/t/{fake.table}/stream")
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        r.close()
    code = join_code(token, fake.table, "g1", 0)
    csrf = client.get(f"/t/{fake.table}/join").get_data(as_text=True).split('name="csrf" value="')[1].split('"')[0]
    assert client.post(f"/t/{fake.table}/join", data={"code": code, "csrf": csrf}).status_code == 303
    r = client.head(f"/t/{fake.table}/me/stream")
    assert r.status_code == 200
    r.close()
    assert view.subscriber_count() == 0
    # A stream that is read still gets everything from its first byte on.
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    assert reader.next("snapshot")[1]["table"] == fake.table
    assert view.subscriber_count() == 1
    ev = fake.event("dice_rolled", {"player": 0})
    assert reader.next("event")[1] == {**ev, "context": G1}
