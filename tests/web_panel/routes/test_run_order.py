"""A table's runs are ordered by its journal, not by the wall clock.

A Pi without a real-time clock may start a run with its clock hours behind the
run before (that one ran with a clock set wrong, then put right): a panel that
watched both must take the new run for the newest, show it online and pass its
commands on. A status of the older run published again (a capture replayed) is
still refused as stale. The older run is a real ``gravekeeper run`` whose clock
is set two hours ahead; the newer one and the panel keep the real clock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from tests.controller.cli.test_run import TOKEN, write_config
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber
from tests.support.run import ROOT
from tests.web_panel.support.client import login
from web_panel.app import create_app
from web_panel.mqtt import MqttView
from web_panel.settings import PanelSettings

AHEAD_S = 2 * 3600
# The controller with its wall clock moved (time.time only: timers and MQTT keep the monotonic clock).
_SHIFTED = ("import runpy, sys, time\n"
            "_real, _shift = time.time, float(sys.argv.pop(1))\n"
            "time.time = lambda: _real() + _shift\n"
            "sys.argv[0] = 'gravekeeper'\n"
            "runpy.run_module('controller', run_name='__main__', alter_sys=True)\n")


def start_run(cfg: Path, broker: Broker, shift_s: float) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _SHIFTED, str(shift_s), "run", "--config", str(cfg),
                             "--simulate", "--broker", broker.url], cwd=ROOT, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def stop_run(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
    assert proc.stderr is not None
    proc.stderr.close()


def status_of(view: MqttView, table: str) -> dict[str, Any]:
    return (view.snapshot(table) or {}).get("status") or {}


def test_a_run_whose_clock_is_behind_the_run_before_is_online_and_takes_commands(
    mosquitto: Broker, tmp_path: Path
) -> None:
    table = "ro-clock"
    cfg = write_config(tmp_path, table, game="dogs")
    settings = PanelSettings(broker_port=mosquitto.port, token=TOKEN, listen_port=0, command_timeout=5.0)
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    client = app.test_client()
    status_topic = f"gravekeeper/{table}/status"
    with Subscriber(mosquitto.host, mosquitto.port, (status_topic,)) as sub:
        first = start_run(cfg, mosquitto, AHEAD_S)
        try:
            assert view.wait_until(lambda: view.has_table(table), 15), "the panel never saw the table"
            view.hold(table)
            assert view.wait_until(lambda: status_of(view, table).get("state") == "online", 15)
        finally:
            stop_run(first)
        assert view.wait_until(lambda: status_of(view, table).get("state") == "offline", 15)
        older = [m.payload for m in sub.on(status_topic) if m.payload]
        assert older and all(json.loads(p)["since"] > 0 for p in older)

        second = start_run(cfg, mosquitto, 0)
        try:
            online = view.wait_until(lambda: status_of(view, table).get("state") == "online", 15)
            assert online, f"the newer run is not shown online: {status_of(view, table)}, " \
                           f"{view.vouching.describe(table)}"
            csrf = login(client, table, TOKEN)
            r = client.post(f"/t/{table}/cmd/resync", json={}, headers={"X-CSRF-Token": csrf})
            assert r.status_code == 200 and r.get_json()["ok"] is True, (r.status_code, r.get_data(as_text=True))

            # The older run's genuine, signed "offline" published again: refused, the table stays online.
            refused = view.vouching.describe(table)["refused"].get("stale", 0)
            replayer = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="ro-replayer")
            replayer.connect(mosquitto.host, mosquitto.port)
            replayer.loop_start()
            try:
                offline = next(p for p in reversed(older) if json.loads(p)["state"] == "offline")
                replayer.publish(status_topic, offline, qos=1).wait_for_publish(5)
            finally:
                replayer.disconnect()
                replayer.loop_stop()
            assert view.wait_until(lambda: view.vouching.describe(table)["refused"].get("stale", 0) > refused, 10)
            assert status_of(view, table).get("state") == "online"
        finally:
            stop_run(second)
            view.release(table)
            view.close()
