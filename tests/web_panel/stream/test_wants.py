"""Each change is handed only to the streams that send it: a stream's thread is not woken for one it drops.

On a table with nine pages open, each move is some eight changes (event, state, four sealed views, cue,
sensors), and every woken stream thread waits its turn for the GIL before the next can write
(``fanout.Wants``).
"""

from __future__ import annotations

import queue
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.protocol.security import join_code
from tests.web_panel.support.client import csrf_of
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.sse_reader import SseReader
from web_panel.fanout import Fanout, Item, Subscriber
from web_panel.mqtt import MqttView


def test_a_subscriber_is_never_handed_what_it_does_not_want() -> None:
    fanout = Fanout()
    cues = fanout.subscribe("t", lambda item: item.kind == "effects")
    everything = fanout.subscribe("t")
    for kind in ("event", "state", "effects", "private_changed"):
        fanout.broadcast("t", (kind, {}))
    assert [cues.get(0).kind] == ["effects"]  # type: ignore[union-attr]
    with pytest.raises(queue.Empty):  # nothing else was ever queued
        cues.get(0)
    assert [everything.get(0).kind for _ in range(4)] == ["event", "state", "effects", "private_changed"]  # type: ignore[union-attr]
    fanout.close()  # the end of the stream still reaches a subscriber that wants nothing of the kind
    assert cues.get(0) is None


def _capture(view: MqttView, monkeypatch: pytest.MonkeyPatch) -> list[Subscriber]:
    made: list[Subscriber] = []
    real = view.subscribe

    def subscribe(table: str, wants: Any = None) -> Subscriber:
        sub = real(table, wants)
        made.append(sub)
        return sub

    monkeypatch.setattr(view, "subscribe", subscribe)
    return made


def _takes(sub: Subscriber, kind: str, data: Any) -> bool:
    return sub.wants is None or sub.wants(Item(kind, data))


def test_each_page_stream_takes_only_what_it_sends(app: Flask, client: FlaskClient, fake: FakeTable, token: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    view: MqttView = app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.state(fake.table) is not None, 5)
    made = _capture(view, monkeypatch)

    public = SseReader(client.get(f"/t/{fake.table}/stream", buffered=False))
    assert public.next(timeout=5)[0] == "snapshot"
    cues = client.get(f"/t/{fake.table}/effects/stream", buffered=False)
    next(iter(cues.response))  # its body has begun: subscribed
    fake.private(1, {"hand": ["Magic Ring"]})
    assert view.wait_until(lambda: view.sealed_view(fake.table, 1) is not None, 5)
    csrf = csrf_of(client, fake.table)
    code = join_code(token, fake.table, "g1", 1)
    assert client.post(f"/t/{fake.table}/join", data={"code": code, "csrf": csrf}).status_code == 303
    player = SseReader(client.get(f"/t/{fake.table}/me/stream", buffered=False))
    assert player.next(timeout=5)[0] == "snapshot"
    assert player.next("private", timeout=5)[1]["view"] == {"hand": ["Magic Ring"]}
    assert len(made) == 3
    on_public, on_cues, on_player = made

    every = [("event", {"seq": 2}), ("state", {"seq": 2}), ("sensors", {}), ("health", {}), ("status", {}),
             ("trust", {}), ("link", {"broker": "connected"}), ("snapshot", {}), ("speaker", {"on": True}),
             ("effects", {"cues": []}), ("private_changed", {"seat": 0}), ("private_changed", {"seat": 1}),
             ("seats_changed", {})]
    assert [k for k, d in every if _takes(on_public, k, d)] == [
        "event", "state", "sensors", "health", "status", "trust", "link", "snapshot", "speaker"]
    assert [k for k, d in every if _takes(on_cues, k, d)] == ["link", "speaker", "effects"]
    # A player's page shows neither the table's sensors nor its health, nor plays cues from this stream.
    assert [(k, d) for k, d in every if _takes(on_player, k, d)] == [
        (k, d) for k, d in every if k not in ("effects", "sensors", "health") and d != {"seat": 0}]

    # And what each sends is as before: the player's own sealed view, not seat 0's; the table's cue on
    # the effects stream only.
    fake.private(0, {"hand": ["Other Secret"]})
    fake.private(1, {"hand": ["Crystal Skull"]})
    assert player.next("private", timeout=5)[1]["view"] == {"hand": ["Crystal Skull"]}
    assert "Other Secret" not in player.text()
