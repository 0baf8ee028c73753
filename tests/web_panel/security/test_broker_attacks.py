"""The panel in front of a running ``gravekeeper run --simulate``, attacked from the broker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.protocol.publication import open_publication
from controller.protocol.signing import signing_key
from tests.controller.cli.test_run import TOKEN, write_config
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber
from tests.support.run import RunProcess
from tests.web_panel.support.client import login
from web_panel import PanelSettings, create_app


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
        key = signing_key(TOKEN)
        rolled = [open_publication(key, table, "events", m.payload)[0] for m in
                  events.wait_for(lambda ms: any(b'"rolled"' in m.payload for m in ms))]
        assert sum(1 for e in rolled if e["type"] == "rolled") == 1
    finally:
        events.stop()
        attacker.disconnect()
        attacker.loop_stop()
        view.close()
        run.close()


def test_a_flood_of_forgeries_tells_the_pages_a_few_times_a_second(mosquitto: Broker, tmp_path: Path) -> None:
    """Each refused forgery was sent to every page of the table (a ``trust`` message) and logged:
    3,000 forged states made 3,000 messages per browser. Now the pages hear the count a few times
    a second, ending on the true total, and the table's own state still comes through."""
    import queue as queue_mod
    import time

    table = "atk-forgeflood"
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, tokens={table: TOKEN}),
                      "TESTING": True})
    view = app.extensions["gravekeeper"]
    forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="atk-forger")
    try:
        run.wait_line("online")
        view.hold(table)  # a page of the table is open: the panel takes its whole traffic
        assert view.wait_until(lambda: view.has_table(table) and view.state(table) is not None, 10)
        page = view.subscribe(table)
        forger.connect(mosquitto.host, mosquitto.port)
        forger.loop_start()
        forged = json.dumps({"seq": 99, "players": ["FORGED"]})
        start = time.monotonic()
        for _ in range(3000):
            forger.publish(f"gravekeeper/{table}/state", forged, qos=0)
        forger.publish(f"gravekeeper/{table}/state", forged, qos=1).wait_for_publish(10)
        assert view.wait_until(lambda: view.vouching.describe(table)["refused"].get("unsigned", 0) >= 3001, 30)
        elapsed = time.monotonic() - start
        told: list[dict[str, Any]] = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (told and told[-1]["refused"].get("unsigned") == 3001):
            try:
                item = page.get(timeout=0.5)
            except queue_mod.Empty:
                continue
            if item is not None and item.kind == "trust":
                told.append(item.data)
        assert told and told[-1]["refused"]["unsigned"] == 3001  # the last count arrives
        assert len(told) <= 2 + (elapsed + 5) * 4, (len(told), elapsed)  # a few a second, not one a forgery
        assert "FORGED" not in json.dumps(view.state(table))
        view.unsubscribe(page)
        view.release(table)
    finally:
        forger.disconnect()
        forger.loop_stop()
        view.close()
        run.close()


def test_a_forgery_nested_just_under_the_parsers_limit_does_not_break_a_tables_page(
        mosquitto: Broker) -> None:
    """A panel without a table's token shows what the broker holds. A state nested 950 levels deep
    passed the parser (in paho's thread) but not the encoder of the page's request, whose stack is
    deeper: ``/api/t/<t>`` failed for everyone until the forgery went. Such a message is ignored."""
    table = "atk-deep"
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port), "TESTING": True})
    view = app.extensions["gravekeeper"]
    forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="atk-deep-forger")
    try:
        forger.connect(mosquitto.host, mosquitto.port)
        forger.loop_start()
        forger.publish(f"gravekeeper/{table}/status", json.dumps({"state": "online", "table": table}),
                       qos=1, retain=True).wait_for_publish(5)
        assert view.wait_until(lambda: view.has_table(table), 10)
        view.hold(table)
        client = app.test_client()
        for depth in (950,):  # the page waits up to 3 s for a state it has not got: one depth
            bad = view.bad_messages
            state = b'{"seq":1,"table":"atk-deep","game":"terror","players":["A"],"view":' + \
                b"[" * depth + b"]" * depth + b"}"
            forger.publish(f"gravekeeper/{table}/state", state, qos=1, retain=True).wait_for_publish(5)
            # ignored (counted), or, before, taken as the table's state
            assert view.wait_until(lambda bad=bad: view.bad_messages > bad or view.state(table) is not None, 5), depth
            r = client.get(f"/api/t/{table}")
            assert r.status_code == 200 and (r.get_json().get("state") or {}).get("view") is None, depth
        assert client.get("/").status_code == 200
    finally:
        forger.publish(f"gravekeeper/{table}/state", b"", qos=1, retain=True).wait_for_publish(5)
        forger.publish(f"gravekeeper/{table}/status", b"", qos=1, retain=True).wait_for_publish(5)
        forger.disconnect()
        forger.loop_stop()
        view.close()


def test_nesting_is_measured_on_the_text_without_counting_brackets_in_strings() -> None:
    from controller.protocol.security import MAX_DEPTH, too_deep

    def nested(n: int) -> bytes:  # n levels in all, the outer object included
        return b'{"v":' + b"[" * (n - 1) + b"]" * (n - 1) + b"}"

    assert not too_deep(nested(MAX_DEPTH)) and too_deep(nested(MAX_DEPTH + 1))
    assert too_deep(b'{"v":' + b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH + b"}")
    brackets = json.dumps({"name": "[[[{{{" * 100, "quoted": '\\"[{' * 100, "list": [[1], {"a": []}]}).encode()
    assert not too_deep(brackets)
    assert not too_deep(b'{"a":[' + b"[]," * 10_000 + b"[]]}")  # wide, not deep
