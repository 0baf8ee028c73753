"""The panel in front of a running ``gravekeeper run --simulate``, attacked from the broker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.publication import open_publication, publication_key
from tests.conftest import Broker
from tests.controller.mqtt_testkit import Subscriber
from tests.controller.run_testkit import RunProcess
from tests.controller.test_run import TOKEN, write_config
from web_panel import PanelSettings, create_app

from .conftest import login


def test_an_unsigned_not_authorised_sent_first_does_not_pass_for_the_tables_answer(
        mosquitto: Broker, tmp_path: Path) -> None:
    """Anyone who sees a command's id on the broker can answer "not authorised" before the table
    does. The panel took that one refusal unsigned, so a roll the table made was shown as refused
    (and a player would roll again). The table's signed answer must win."""
    table = "atk-reply"
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="atk-replier")

    def answer_first(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        name = msg.topic.rsplit("/", 1)[1]
        cmd_id = json.loads(msg.payload).get("id")
        client.publish(f"gravekeeper/{table}/reply/{name}",
                       json.dumps({"id": cmd_id, "ok": False, "error": "not authorised: bad signature"}), qos=1)

    attacker.on_message = answer_first
    attacker.on_connect = lambda c, *a: c.subscribe(f"gravekeeper/{table}/cmd/+", qos=1)
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, tokens={table: TOKEN}),
                      "TESTING": True})
    view = app.extensions["gravekeeper"]
    events = Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/events",)).start()
    try:
        run.wait_line("online")
        attacker.connect(mosquitto.host, mosquitto.port)
        attacker.loop_start()
        assert view.wait_until(lambda: view.has_table(table) and view.connected.is_set(), 10)
        client = app.test_client()
        csrf = login(client, table, TOKEN)
        r = client.post(f"/t/{table}/cmd/act", json={"action": {"kind": "roll", "player": 0}},
                        headers={"X-CSRF-Token": csrf})
        reply = r.get_json()
        assert r.status_code == 200 and reply["ok"] is True, reply
        key = publication_key(TOKEN)
        rolled = [open_publication(key, table, "events", m.payload)[0] for m in
                  events.wait_for(lambda ms: any(b'"rolled"' in m.payload for m in ms))]
        assert sum(1 for e in rolled if e["type"] == "rolled") == 1
    finally:
        events.stop()
        attacker.disconnect()
        attacker.loop_stop()
        view.close()
        run.close()
