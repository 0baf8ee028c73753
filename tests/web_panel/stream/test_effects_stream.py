"""The effects stream: cues only, from the table alone; a forged cue never plays."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.sse_reader import SseReader
from web_panel.mqtt import MqttView

CUES = {"table": "x", "seq": 3, "event": "rolled", "rules": ["the roll"],
        "cues": [{"kind": "sound", "value": "roll"}, {"kind": "animate", "value": "dice"}]}


def test_the_stream_carries_signed_cues_and_never_forged_ones(client: FlaskClient, fake: FakeTable) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.state(fake.table) is not None, 5)
    reader = SseReader(client.get(f"/t/{fake.table}/effects/stream", buffered=False))
    # someone on the broker, not the table: unsigned cues (a scare at the wrong moment)
    fake.publish_raw("effects", json.dumps({**CUES, "cues": [{"kind": "say", "value": "FORGED"}]}).encode(),
                     retain=False)
    fake.publish("effects", CUES, retain=False)  # the table's own, signed
    fake.publish("events", {"seq": 2, "table": fake.table, "type": "rolled", "time": 1.0, "data": {}}, retain=False)
    # the effects stream has no snapshot and carries no events (those are on the table's own stream):
    # the first item is the table's signed cue, the forged one before it was refused
    kind, data = reader.next(timeout=5)
    assert kind == "effects" and data["cues"] == CUES["cues"]
    assert "FORGED" not in reader.text()
    assert view.vouching.describe(fake.table)["refused"]


def test_the_table_stream_does_not_carry_cues(client: FlaskClient, fake: FakeTable) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.state(fake.table) is not None, 5)
    reader = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    assert reader.next(timeout=5)[0] == "snapshot"
    fake.publish("effects", CUES, retain=False)
    fake.publish("events", {"seq": 2, "table": fake.table, "type": "rolled", "time": 1.0, "data": {}}, retain=False)
    while True:
        kind, data = reader.next(timeout=5)
        assert kind != "effects"
        if kind == "event":
            break


def test_the_pages_learn_when_a_table_speaker_comes_and_goes(client: FlaskClient, fake: FakeTable) -> None:
    """A page whose "Table speaker" is on says so for as long as its stream is open; every page of the table
    is told, so a player's phone can leave the table's lines to it (docs/effects.md, "In the panel")."""
    view: MqttView = client.application.extensions["gravekeeper"]
    before = view.subscriber_count()
    phone = SseReader(client.get(f"/t/{fake.table}/effects/stream", buffered=False))
    assert view.wait_until(lambda: view.subscriber_count() > before, 5)  # the phone's stream listens
    speaker = client.get(f"/t/{fake.table}/effects/stream?speaker=1", buffered=False)
    chunks = iter(speaker.response)
    next(chunks)  # the speaker's stream has begun
    assert phone.next("speaker") == ("speaker", {"on": True})
    later = SseReader(client.get(f"/t/{fake.table}/effects/stream", buffered=False))
    assert later.next("speaker") == ("speaker", {"on": True})  # a page opened now is told first thing
    speaker.close()  # the tablet's page is closed, or its speaker switched off
    assert phone.next("speaker") == ("speaker", {"on": False})
    assert later.next("speaker") == ("speaker", {"on": False})
