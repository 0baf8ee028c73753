"""Copies of the panel's own command, published by someone who saw it go by, answered before it.

Anyone on the broker sees a command's id as it passes. Published again (the same bytes, or
just ``{"id": ...}``, on its topic or on another command's), the copy is refused by the table
with a signed answer, often before the command itself is answered (the command waits for the
journal). The panel took the first signed answer with its id: a roll the table made showed as
"replayed command id", and the player rolled again.
"""

from __future__ import annotations

import json
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.protocol.signing import verify_reply
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, listening_client
from tests.support.service import BASE, TOKEN, MakeService, topic
from web_panel.mqtt import MqttView


def copier(broker: Broker, table: str, how: str) -> mqtt.Client:
    """A client that publishes a copy of every command it sees, at once."""
    copied: set[str] = set()

    def copy(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        cmd_id = json.loads(msg.payload)["id"]
        if cmd_id in copied:
            return  # its own copy, come back
        copied.add(cmd_id)
        if how == "exact":
            client.publish(msg.topic, msg.payload, qos=0)
        elif how == "unsigned":
            client.publish(msg.topic, json.dumps({"id": cmd_id}), qos=0)
        else:  # another command's topic
            client.publish(topic(table, "cmd", "dance"), json.dumps({"id": cmd_id}), qos=0)

    return listening_client(broker.host, broker.port, f"copier-{how}", [topic(table, "cmd", "+")], copy)


@pytest.mark.parametrize("how", ["exact", "unsigned", "other topic"])
def test_a_copy_of_the_panels_command_does_not_answer_it(mosquitto: Broker, make_service: MakeService,
                                                         bare_view: MqttView, how: str) -> None:
    t = f"copy-{how.replace(' ', '-')}"
    svc = make_service(t, **{"referee.board": "manual", "table.game": "terror"})
    bare_view.hold(t)
    replies = Subscriber(mosquitto.host, mosquitto.port, (topic(t, "reply", "+"),)).start()
    attacker = copier(mosquitto, t, how)
    try:
        resync = bare_view.command(t, "resync", {}, TOKEN)
        assert resync["ok"] is True, resync
        before = svc.journal.last_seq()
        rolled = bare_view.act(t, {"kind": "roll", "player": 0, "params": {}}, TOKEN)
        assert rolled["ok"] is True, rolled  # the table's answer to the roll, not to its copy
        assert svc.journal.last_seq() > before
        # The copies were answered, signed, and marked as a copy's: a script still reads why.
        copies = replies.wait_for(lambda ms: sum(1 for m in ms if b'"copy":true' in m.payload) >= 2)
        marked = [m.json() for m in copies if b'"copy":true' in m.payload]
        assert all(verify_reply(TOKEN, t, m.topic.rsplit("/", 1)[1], m.payload)
                   for m in copies if b'"copy":true' in m.payload)
        assert all(r["ok"] is False for r in marked)
        if how == "exact":
            assert all("replayed command id" in r["error"] for r in marked)
    finally:
        attacker.disconnect()
        attacker.loop_stop()
        replies.stop()


def test_a_refusal_of_a_fresh_id_is_not_marked(mosquitto: Broker, make_service: MakeService) -> None:
    """Only an id a command already took makes a copy: a wrong token's own refusal is not one."""
    t = "copy-fresh"
    make_service(t, **{"referee.board": "manual"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        wrong = cmd.call("resync", {}, token="not-the-token")
        assert wrong["ok"] is False and wrong["error"].startswith("not authorised") and "copy" not in wrong
    finally:
        cmd.close()
