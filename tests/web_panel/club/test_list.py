"""The club list: each table's line (game, turn, what it waits for, a mismatch, online), its stream."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.sse_reader import SseReader
from web_panel.mqtt import MqttView, room_of

GLANCE = {"seq": 0, "game": "terror", "title": "Terror in the Graveyard", "players": "Ann, Bo", "turn": "Bo",
          "waiting_for": "Move a pawn.", "over": False, "winners": "nobody yet", "mismatch": False,
          "mismatch_text": "The board matches the game."}


def test_a_tables_room_is_the_part_of_its_id_before_the_last_dash() -> None:
    assert room_of("bar-3") == "bar"
    assert room_of("hall-b-12") == "hall-b"
    assert room_of("t1") is None
    assert room_of("-3") is None and room_of("bar-") is None


def test_the_list_stream_sends_every_table_then_one_line_per_change(client: FlaskClient, fake: FakeTable) -> None:
    reader = SseReader(client.get("/api/tables/stream", buffered=False))
    first = reader.next("tables")[1]
    assert first["broker"] == "connected"
    mine = [t for t in first["tables"] if t["table"] == fake.table]
    assert mine and mine[0]["online"] is True and mine[0]["turn"] == "Ann"
    fake.publish("summary", GLANCE)
    line = reader.next("table")[1]
    while line["table"] != fake.table or line["title"] is None:
        line = reader.next("table")[1]
    assert (line["title"], line["turn"]) == ("Terror in the Graveyard", "Bo")
    fake.state(mismatch={"code": "foul_launch", "message": "The ghost flew without a launch.", "guidance": "x"})
    line = reader.next("table")[1]
    while line["table"] != fake.table or not line["mismatch"]:
        line = reader.next("table")[1]
    assert line["mismatch_text"] == "The ghost flew without a launch."
    # The list carries lines, not a table's traffic: an event of the table is not on it.
    fake.event("roll", {"player": 0})
    fake.publish("status", {"state": "offline", "table": fake.table})
    kinds = []
    while True:
        kind, data = reader.next()
        kinds.append(kind)
        if kind == "table" and data["table"] == fake.table and not data["online"]:
            break
    assert "event" not in kinds


def test_a_summary_signed_with_another_token_is_refused(app: Flask, fake: FakeTable) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    fake.publish_raw("summary", b'{"title": "forged", "turn": "Mallory"}')
    assert view.wait_until(lambda: view.vouching.describe(fake.table)["refused"], 5)
    assert [t["turn"] for t in view.tables() if t["table"] == fake.table] == ["Ann"]
