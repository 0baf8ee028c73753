"""A panel subscribes to what it shows: every table's list topics, and a table's traffic only while watched.

Real Mosquitto, two stand-in tables, and the panel's own MQTT client counted
message by message (what the broker sent it, not what it kept).
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView

LINGER = 1.0
LIST_KINDS = {"status", "summary"}


class Counted:
    """Counts every message the panel's MQTT client receives, by table and kind."""

    def __init__(self, view: MqttView) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        inner = view._client.on_message

        def on_message(client: Any, userdata: Any, msg: Any) -> None:
            parts = msg.topic.split("/")
            if len(parts) >= 3:
                with self.lock:
                    self.counts[(parts[1], "/".join(parts[2:]))] += 1
            inner(client, userdata, msg)

        view._client.on_message = on_message

    def kinds(self, table: str) -> set[str]:
        with self.lock:
            return {kind for (t, kind), n in self.counts.items() if t == table and n}

    def reset(self) -> None:
        with self.lock:
            self.counts.clear()


@pytest.fixture
def two(mosquitto: Broker) -> Iterator[tuple[Flask, MqttView, Counted, list[FakeTable]]]:
    token = "tok-" + uuid.uuid4().hex[:8]
    tables = [FakeTable(mosquitto.port, f"w{uuid.uuid4().hex[:6]}-{i}", token) for i in (1, 2)]
    for t in tables:
        t.online()
        t.state()
        t.publish("sensors", {"time": 1.0, "sensors": {}})
        t.publish("health", {"time": 1.0, "warnings": []})
        t.private(0, {"hand": []})
        t.publish("summary", {"title": "Terror in the Graveyard", "turn": "Ann", "n": 0})
    settings = PanelSettings(broker_port=mosquitto.port, token=token, listen_port=0, table_linger=LINGER)
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True, "START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    counted = Counted(view)  # before the first connection: every message is counted
    view.start(wait=5)
    assert view.wait_until(lambda: all(view.has_table(t.table) for t in tables), 5)
    yield app, view, counted, tables
    view.close()
    for t in tables:
        t.clear()
        t.close()


def play(tables: list[FakeTable], view: MqttView, n: int) -> None:
    """Each table moves (an event, a new state, sensors, health, effects), then updates its summary.

    The summary comes last from the same client, so once the panel has it, any of the table's
    messages before it that the panel was subscribed to have arrived too.
    """
    for t in tables:
        t.event("rolled")
        t.state(seq=t.seq)
        t.publish("sensors", {"time": float(n), "sensors": {}})
        t.publish("health", {"time": float(n), "warnings": []})
        t.publish("effects", {"cues": [{"kind": "sound", "value": "roll"}]}, retain=False)
        t.publish("summary", {"title": "Terror in the Graveyard", "turn": "Bo", "n": n, "players": "Ann, Bo",
                              "paused": t is tables[-1]})
    assert view.wait_until(lambda: all((view.store._tables[t.table].glance or {}).get("n") == n for t in tables), 5)


def test_a_panel_with_no_page_open_receives_only_the_tables_list_topics(
        two: tuple[Flask, MqttView, Counted, list[FakeTable]]) -> None:
    app, view, counted, tables = two
    play(tables, view, 1)
    for t in tables:
        assert counted.kinds(t.table) == LIST_KINDS, counted.counts
        assert view.state(t.table) is None and not view.snapshot(t.table)["events"]
    # The list itself is whole from the summaries: the title and whose turn, online.
    lines = {line["table"]: line for line in app.test_client().get("/api/tables").get_json()["tables"]}
    for t in tables:
        assert lines[t.table]["online"] and lines[t.table]["turn"] == "Bo"
        assert lines[t.table]["title"] == "Terror in the Graveyard"
        assert lines[t.table]["players"] == ["Ann", "Bo"]
    assert [lines[t.table]["paused"] for t in tables] == [False, True]  # the game master paused the second
    assert view.watched() == []


def test_opening_a_table_costs_that_tables_traffic_only_and_closing_it_stops_it(
        two: tuple[Flask, MqttView, Counted, list[FakeTable]]) -> None:
    app, view, counted, tables = two
    one, other = tables
    client = app.test_client()
    stream = client.get(f"/t/{one.table}/stream", buffered=False)
    chunks = (c.decode() if isinstance(c, bytes) else c for c in stream.response)
    try:
        assert next(chunks).startswith("retry:")  # the stream now holds the table
        snapshot = next(chunks)
        # The first answer is complete: the retained topics came on subscribing, before it was sent.
        assert snapshot.startswith("event: snapshot") and '"game_id":"g1"' in snapshot
        assert '"sensors":{"time":1.0' in snapshot and '"health":{"time":1.0' in snapshot
        assert view.watched() == [one.table]

        counted.reset()
        play(tables, view, 2)
        assert {"events", "state", "sensors", "health", "effects"} <= counted.kinds(one.table)
        assert counted.kinds(other.table) == {"summary"}, counted.counts  # its list line, nothing else
        assert [e["type"] for e in view.snapshot(one.table)["events"]] == ["rolled"]
        # The API answers for the open table from the live picture; for the other, it subscribes now.
        assert client.get(f"/api/t/{one.table}").get_json()["state"]["seq"] == one.seq
        assert client.get(f"/api/t/{other.table}").get_json()["state"]["seq"] == other.seq
    finally:
        stream.close()  # the page goes away: its stream lets go of the table

    # After the linger, neither table's traffic reaches the panel; their lines stay on the list.
    assert view.wait_until(lambda: view.watched() == [], 5 * LINGER + 5)
    counted.reset()
    play(tables, view, 3)
    for t in tables:
        assert counted.kinds(t.table) == {"summary"}, counted.counts
        assert view.state(t.table) is None
    lines = {line["table"]: line for line in client.get("/api/tables").get_json()["tables"]}
    assert set(lines) >= {one.table, other.table} and lines[one.table]["online"]


def test_a_reload_within_the_linger_subscribes_nothing_again(
        two: tuple[Flask, MqttView, Counted, list[FakeTable]]) -> None:
    app, view, counted, tables = two
    one = tables[0]
    client = app.test_client()
    assert client.get(f"/api/t/{one.table}").get_json()["state"]["game_id"] == "g1"
    assert view.watched() == [one.table]  # the request is over; the table lingers
    retained = counted.counts[(one.table, "state")]
    assert retained == 1  # the retained state, sent once on subscribing
    for _ in range(3):  # reloads: the page and its stream again, within the linger
        stream = client.get(f"/t/{one.table}/stream", buffered=False)
        chunks = (c.decode() if isinstance(c, bytes) else c for c in stream.response)
        next(chunks)
        assert '"game_id":"g1"' in next(chunks)
        stream.close()
    # A new subscription would have had the broker send the retained state again.
    play(tables[1:], view, 1)  # a round trip through the broker, after anything the reloads caused
    assert counted.counts[(one.table, "state")] == retained


def test_a_table_dropped_and_watched_again_gets_its_retained_picture_back(
        two: tuple[Flask, MqttView, Counted, list[FakeTable]]) -> None:
    """The same signed messages come again on a new subscription: taken again, not refused as replays."""
    app, view, counted, tables = two
    one = tables[0]
    client = app.test_client()
    assert client.get(f"/api/t/{one.table}").get_json()["state"]["game_id"] == "g1"
    assert view.wait_until(lambda: view.watched() == [], 5 * LINGER + 5)
    assert view.state(one.table) is None and view.sealed_view(one.table, 0) is None
    api = client.get(f"/api/t/{one.table}").get_json()
    assert api["state"]["game_id"] == "g1" and api["sensors"]["time"] == 1.0
    assert view.sealed_view(one.table, 0) is not None
    assert not view.vouching.describe(one.table)["refused"]


def test_commands_hold_the_table_for_their_reply(two: tuple[Flask, MqttView, Counted, list[FakeTable]]) -> None:
    app, view, counted, tables = two
    one = tables[0]
    reply = view.command(one.table, "resync", {}, one.token, timeout=5)
    assert reply["ok"] is True
    assert view.watched() == [one.table]  # lingering after its reply came
    assert view.wait_until(lambda: view.watched() == [], 5 * LINGER + 5)


def test_interest_counts_holders_and_lets_go_only_after_the_linger() -> None:
    from web_panel.interest import Interest

    taken: list[str] = []
    dropped = threading.Event()
    interest = Interest(0.3, lambda t, ready: (taken.append(t), ready.set()), lambda t: dropped.set())
    try:
        assert interest.hold("bar-1").is_set() and interest.hold("bar-1").is_set()
        assert taken == ["bar-1"]  # one subscription, however many hold it
        interest.release("bar-1")
        assert not dropped.wait(0.6) and interest.holders("bar-1") == 1  # one holder left: kept
        interest.release("bar-1")
        interest.hold("bar-1")  # back within the linger (a reload): nothing taken again, nothing dropped
        assert taken == ["bar-1"] and not dropped.wait(0.6)
        interest.release("bar-1")
        interest.release("bar-1")  # one release too many is ignored, not counted below zero
        assert dropped.wait(5) and interest.tables() == []
        interest.hold("bar-1")
        assert taken == ["bar-1", "bar-1"]  # after the drop, a new holder subscribes again
    finally:
        interest.close()


def test_a_table_held_again_while_it_is_being_dropped_ends_subscribed() -> None:
    """A hold that comes as the linger ends waits for the drop, then subscribes: never the reverse."""
    from web_panel.interest import Interest

    log: list[str] = []
    dropping, go_on = threading.Event(), threading.Event()

    def drop(table: str) -> None:
        dropping.set()
        assert go_on.wait(5)  # the drop is slow (the broker, say): a new hold comes meanwhile
        log.append("drop")

    interest = Interest(0, lambda t, ready: (log.append("take"), ready.set()), drop)
    try:
        interest.hold("bar-1")
        releasing = threading.Thread(target=interest.release, args=("bar-1",))
        releasing.start()
        assert dropping.wait(5)
        holding = threading.Thread(target=interest.hold, args=("bar-1",))
        holding.start()
        holding.join(0.3)
        assert holding.is_alive() and log == ["take"]  # it waits for the drop to finish
        go_on.set()
        releasing.join(5)
        holding.join(5)
        assert log == ["take", "drop", "take"] and interest.tables() == ["bar-1"]
    finally:
        go_on.set()
        interest.close()
