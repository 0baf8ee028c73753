"""Commands held back on the broker and published later, after the sender gave up and sent them again.

Anyone on an open broker can connect with the controller's client id: the broker pushes the
controller off until it reconnects (a second or so), and the intruder, subscribed to ``cmd/+``,
receives the commands the table missed meanwhile. The panel then times out, the person sends the
command again, and the intruder publishes the one it kept: its id was never used and its ``ts`` is
fresh, so before ``in_game`` the table ran it too (a second new game over the one just started).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.protocol.signing import signed_command
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until
from tests.support.service import BASE, TOKEN, MakeService, topic
from web_panel import PanelSettings
from web_panel.mqtt import CommandTimeout, MqttView


class Thief:
    """A client that takes the controller's client id and keeps the commands it receives."""

    def __init__(self, broker: Broker, table: str) -> None:
        self.kept: list[tuple[str, bytes]] = []
        self.got = threading.Event()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"gravekeeper-{table}",
                                  protocol=mqtt.MQTTv5)
        self.client.on_connect = lambda c, *a: c.subscribe(topic(table, "cmd", "+"), qos=1)
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.on_message = self._keep
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        assert self._subscribed.wait(5), "the thief was not subscribed in time"

    def _keep(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.kept.append((msg.topic, bytes(msg.payload)))
        self.got.set()

    def leave(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def panel(mosquitto: Broker) -> Iterator[MqttView]:
    view = MqttView(PanelSettings(broker_port=mosquitto.port, base_topic=BASE, tokens={}, command_timeout=2.0))
    view.start(wait=5)
    yield view
    view.close()


def test_a_new_game_held_back_and_published_after_the_retry_does_not_replace_it(
        mosquitto: Broker, make_service: MakeService, panel: MqttView) -> None:
    t = "wh-newgame"
    svc = make_service(t, **{"referee.board": "manual", "table.game": "terror"})
    panel.hold(t)
    assert panel.wait_until(lambda: (panel.state(t) or {}).get("game_id") == svc.referee.game_id, 5)
    thief = Thief(mosquitto, t)
    try:
        wait_until(lambda: not svc.link.connected, 5, "the controller pushed off by its own client id")
        with pytest.raises(CommandTimeout):
            panel.command(t, "new_game", {"game": "terror", "players": ["Ann", "Bo"]}, TOKEN, timeout=1.0)
        assert thief.got.wait(5)
    finally:
        thief.leave()
    wait_until(lambda: svc.link.connected, 10, "the controller back on the broker")
    retry = panel.command(t, "new_game", {"game": "terror", "players": ["Ann", "Cy"]}, TOKEN, timeout=10)
    assert retry["ok"] is True, retry
    game = retry["data"]["game_id"]
    assert panel.wait_until(lambda: (panel.state(t) or {}).get("game_id") == game, 5)

    name, raw = next(k for k in thief.kept if k[0].endswith("/cmd/new_game"))
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        cmd.send_raw("new_game", raw)
        reply = cmd.reply("new_game", json.loads(raw)["id"])
    finally:
        cmd.close()
    assert reply["ok"] is False and "no longer on the table" in reply["error"], reply
    assert svc.referee.game_id == game and svc.referee.game.players == ["Ann", "Cy"]


def test_a_command_names_the_game_it_was_made_in(mosquitto: Broker, make_service: MakeService) -> None:
    t = "wh-ingame"
    svc = make_service(t, **{"referee.board": "manual", "table.game": "terror"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        first = svc.referee.game_id
        roll = {"action": {"kind": "roll", "player": 0, "params": {}}, "in_game": first}
        early_id = cmd.new_id()
        early = signed_command(TOKEN, t, "act", {"id": early_id, **roll})  # made now, held back
        started = cmd.call("new_game", {"game": "terror", "players": ["Ann", "Bo"], "in_game": first})
        assert started["ok"] is True, started
        second = started["data"]["game_id"]
        inputs = sum(1 for _ in svc.journal.inputs())
        cmd.send_raw("act", early)
        late = cmd.reply("act", early_id)
        assert late["ok"] is False and "no longer on the table" in late["error"], late
        assert "first" not in late["error"] and first not in late["error"]  # words, not ids
        assert sum(1 for _ in svc.journal.inputs()) == inputs  # nothing reached the referee
        # ... and its id is spent: published again, it is a replay
        cmd.send_raw("act", early)
        wait_until(lambda: sum(1 for r in cmd.replies("act") if r.get("id") == early_id) == 2, 10)
        assert "replayed command id" in cmd.replies("act")[-1]["error"]
        sealed = cmd.sealed_act(0, {"kind": "roll", "player": 0, "params": {}})
        cmd.ok("act", {**sealed, "in_game": second})  # its own game: taken
        bad = cmd.call("resync", {"in_game": 7})
        assert bad["ok"] is False and "'in_game' must be" in bad["error"]
    finally:
        cmd.close()


def test_the_panel_names_the_game_in_the_commands_that_change_it(
        mosquitto: Broker, make_service: MakeService, panel: MqttView) -> None:
    t = "wh-panel"
    svc = make_service(t, **{"referee.board": "manual", "table.game": "terror"})
    panel.hold(t)
    assert panel.wait_until(lambda: (panel.state(t) or {}).get("game_id") == svc.referee.game_id, 5)
    spy = Subscriber(mosquitto.host, mosquitto.port, (topic(t, "cmd", "+"),)).start()
    try:
        game = svc.referee.game_id
        assert panel.act(t, {"kind": "roll", "player": 0, "params": {}}, TOKEN)["ok"] is True
        assert panel.command(t, "resync", {}, TOKEN)["ok"] is True
        spy.wait_for(lambda msgs: len(msgs) >= 2, 5)
        by = {m.topic.rsplit("/", 1)[1]: m.json() for m in spy.messages}
        assert by["act"]["in_game"] == game
        assert "in_game" not in by["resync"]  # reading, not changing: not bound
    finally:
        spy.stop()



def test_an_undo_held_back_and_published_after_the_retry_does_not_take_back_one_more_step(
        mosquitto: Broker, make_service: MakeService, panel: MqttView) -> None:
    """An undo takes back the last step, whichever it is: the one held back, published after the
    game master's retry, took back the step before as well. The panel's undo names the point of
    the game it was made at (``at_seq``), so it runs there or not at all."""
    t = "wh-undo"
    svc = make_service(t, **{"table.game": "terror"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        cmd.ok("act", {"action": {"kind": "roll", "player": 0, "params": {}}})
        expects = svc.call(lambda s: s.referee.state())["expects"]
        tomb = next(iter(expects[0]["accepts"])).split(".")[1]
        cmd.ok("sim", {"sensor": f"tomb.{tomb}", "value": "end_a"})
        wait_until(lambda: svc.call(lambda s: s.referee.state())["gm"]["undo"]["steps"] == 1, 5, "the slide")
        move = next(a for a in svc.call(lambda s: s.referee.state())["legal"] if a["kind"] == "move_pawn")
        cmd.ok("act", {"action": move})
        state = svc.call(lambda s: s.referee.state())
        assert state["gm"]["undo"]["steps"] == 2
        panel.hold(t)
        assert panel.wait_until(lambda: (panel.state(t) or {}).get("seq") == state["seq"], 5)

        thief = Thief(mosquitto, t)
        try:
            wait_until(lambda: not svc.link.connected, 5, "the controller pushed off by its own client id")
            with pytest.raises(CommandTimeout):
                panel.command(t, "undo", {"reason": "wrong pawn"}, TOKEN, timeout=1.0)
            assert thief.got.wait(5)
        finally:
            thief.leave()
        wait_until(lambda: svc.link.connected, 10, "the controller back on the broker")
        retry = panel.command(t, "undo", {"reason": "wrong pawn"}, TOKEN, timeout=10)
        assert retry["ok"] is True, retry
        assert svc.call(lambda s: s.referee.state())["gm"]["undo"]["steps"] == 1  # the pawn's move

        _, raw = next(k for k in thief.kept if k[0].endswith("/cmd/undo"))
        cmd.send_raw("undo", raw)
        late = cmd.reply("undo", json.loads(raw)["id"])
        assert late["ok"] is False and "the game went on since this command was made" in late["error"], late
        assert svc.call(lambda s: s.referee.state())["gm"]["undo"]["steps"] == 1  # the slide stays
        refused = cmd.call("undo", {"at_seq": -1})
        assert refused["ok"] is False and "'at_seq' must be" in refused["error"]
    finally:
        cmd.close()
