"""Another table's signed answer, passed off as the answer to this table's command.

One control token may serve several tables (``gravekeeper panel --token``). Anyone who sees a
command go by on one table can publish the same bytes on another table's command topic: that
table refuses it ("not authorised": signed for another table) and signs its refusal with the
shared token. The panel matched replies by id alone, on any table's reply topic, and the reply
signature named no table: that refusal answered the command, and a move the first table made
showed as refused on the player's phone (who then played it again).
"""

from __future__ import annotations

import threading
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.protocol.signing import verify_reply
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber, listening_client
from tests.support.service import TOKEN, MakeService, topic
from web_panel.mqtt import MqttView


def cross_copier(broker: Broker, here: str, there: str, relay: bool) -> mqtt.Client:
    """Copies every command of table ``here`` to table ``there``; with ``relay``, also publishes
    every reply of ``there`` on ``here``'s reply topic of the same name."""
    seen: set[bytes] = set()

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.payload in seen:
            return
        seen.add(msg.payload)
        parts = msg.topic.split("/")
        if parts[2] == "cmd":
            client.publish(topic(there, "cmd", parts[3]), msg.payload, qos=0)
        elif relay:
            client.publish(topic(here, "reply", parts[3]), msg.payload, qos=0)

    return listening_client(broker.host, broker.port, f"cross-{here}",
                            [topic(here, "cmd", "+"), topic(there, "reply", "+")], on_message)


@pytest.mark.parametrize("relay", [False, True], ids=["on-its-own-topic", "relayed-here"])
def test_another_tables_answer_does_not_answer_this_tables_command(
        mosquitto: Broker, make_service: MakeService, bare_view: MqttView, relay: bool) -> None:
    here, there = f"xt-here-{int(relay)}", f"xt-there-{int(relay)}"
    svc = make_service(here, **{"referee.board": "manual", "table.game": "terror"})
    make_service(there, **{"referee.board": "manual", "table.game": "terror"})
    bare_view.hold(here)
    if not relay:
        bare_view.hold(there)  # a club's panel watches every table; relayed, it need not
    replies = Subscriber(mosquitto.host, mosquitto.port,
                         (topic(there, "reply", "+"), topic(here, "reply", "+"))).start()
    attacker = cross_copier(mosquitto, here, there, relay)
    gate = threading.Event()
    # The table is busy for a moment (a slow journal write, say): its answer comes after the
    # other table's refusal, as it often does anyway, since a refusal waits for no journal.
    busy = threading.Thread(target=lambda: svc.call(lambda s: gate.wait(10)), daemon=True)
    answer: list[dict[str, Any]] = []
    try:
        busy.start()
        before = svc.journal.last_seq()
        actor = threading.Thread(target=lambda: answer.append(
            bare_view.act(here, {"kind": "roll", "player": 0, "params": {}}, TOKEN)), daemon=True)
        actor.start()
        where = here if relay else there
        replies.wait_for(lambda ms: any(m.topic == topic(where, "reply", "act") for m in ms))
        actor.join(1.0)  # the panel's chance to take the refusal for its answer (it did, before)
        gate.set()
        actor.join(10)
        assert answer and answer[0]["ok"] is True, answer  # the table's own answer, not the other's refusal
        assert svc.journal.last_seq() > before
        # The other table did refuse the copy, signed for itself and its reply topic, not for this table.
        (refusal,) = [m for m in replies.messages if m.topic == topic(there, "reply", "act")]
        body = refusal.json()
        assert body["ok"] is False and body["error"].startswith("not authorised")
        assert verify_reply(TOKEN, there, "act", refusal.payload)
        assert not verify_reply(TOKEN, here, "act", refusal.payload)
    finally:
        gate.set()
        attacker.disconnect()
        attacker.loop_stop()
        replies.stop()
