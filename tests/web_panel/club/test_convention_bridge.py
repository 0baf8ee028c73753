"""A convention: tables on a hall's Mosquitto, bridged to a central one, and the panel at the centre.

Two real Mosquitto processes, the hall's configured with the bridge file of
``deploy/mosquitto/hall-bridge.conf``; the link between them goes through a
proxy the test cuts for 20 s while the tables play on. The panel's view at the
centre must then catch up with every event, in order, none twice.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.club import flip_launcher, start_table
from tests.support.cut_proxy import CutProxy
from tests.support.mqtt import Subscriber
from tests.support.service import TOKEN
from web_panel import PanelSettings
from web_panel.mqtt import MqttView

BASE = "gravekeeper"
CUT_SECONDS = 20.0
NOTIFY = "gravekeeper-halls/hall-a/bridge"




def seqs(view: MqttView, table: str) -> list[int]:
    snap = view.snapshot(table) or {"events": []}
    return [e["seq"] for e in snap["events"]]


def test_the_central_panel_catches_up_after_the_bridge_is_cut_for_20_s(
        convention: tuple[Broker, Broker, CutProxy], tmp_path: Path) -> None:
    central, hall, proxy = convention
    tables = [f"a{uuid.uuid4().hex[:4]}{i}" for i in range(3)]
    notices = Subscriber(central.host, central.port, (NOTIFY,)).start()
    notices.wait_for(lambda ms: bool(ms) and ms[-1].payload == b"1", timeout=30)  # the bridge is up
    view = MqttView(PanelSettings(broker_port=central.port, tokens={t: TOKEN for t in tables}, listen_port=0))
    view.start(wait=5)
    for t in tables:
        view.hold(t)  # each table's page is open at the centre: the panel follows its events
    services: list[Service] = []
    local = Subscriber(hall.host, hall.port, tuple(f"{BASE}/{t}/events" for t in tables)).start()
    try:
        for t in tables:
            services.append(start_table(hall, tmp_path, t, **{"mqtt.base_topic": BASE}))
        for svc in services:
            assert svc.wait_online(10)
        assert view.wait_until(lambda: all((view.state(t) or {}).get("game") == "terror" for t in tables), 15), \
            "the central panel never saw the hall's tables"
        first = {t: (view.state(t) or {})["seq"] for t in tables}
        played = 0

        def play_round() -> None:
            nonlocal played
            played += 1
            for svc in services:
                flip_launcher(svc, launched=played % 2 == 1)
            local.wait_for(lambda ms: all(sum(1 for m in ms if m.topic == f"{BASE}/{t}/events") >= played
                                          for t in tables))

        play_round()
        assert view.wait_until(lambda: all(seqs(view, t)[-1:] == [first[t] + 1] for t in tables), 10)

        proxy.cut()
        notices.wait_for(lambda ms: ms[-1].payload == b"0", timeout=10)  # the centre knows the hall is gone
        cut_at = time.monotonic()
        pace = threading.Event()  # never set: paces the players at a human speed through the cut
        during = played
        while time.monotonic() - cut_at < CUT_SECONDS:
            play_round()
            pace.wait(1.5)
        during = played - during
        assert during >= 10
        # Nothing of the cut reached the centre: the link really was down.
        assert all(seqs(view, t)[-1] == first[t] + 1 for t in tables)

        proxy.heal()
        # Mosquitto's bridge retries with a backoff that was seen to reach 16 s despite restart_timeout 2
        notices.wait_for(lambda ms: ms[-1].payload == b"1", timeout=45)
        assert view.wait_until(lambda: all(seqs(view, t)[-1:] == [first[t] + played] for t in tables), 20), \
            {t: seqs(view, t) for t in tables}
        for t in tables:
            got = [s for s in seqs(view, t) if s > first[t]]
            assert got == list(range(first[t] + 1, first[t] + played + 1)), f"{t}: {got}"  # none lost, none twice
            assert view.store._tables[t].gaps == 0
        assert proxy.connections >= 2  # the bridge came back over a new connection
    finally:
        for svc in services:
            svc.stop()
        local.stop()
        view.close()
        notices.stop()
