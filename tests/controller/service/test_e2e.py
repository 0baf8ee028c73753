"""End to end: a sensor edge on the (simulated) board becomes an event at an outside subscriber."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.broker import BrokerChoice, EmbeddedBroker
from controller.service.service import Service
from tests.support.broker import Broker, make_broker
from tests.support.mqtt import Subscriber, wait_until
from tests.support.service import MakeService, service_config, topic


def test_a_sensor_edge_becomes_an_event_and_the_retained_state_follows(mosquitto: Broker,
                                                                        make_service: MakeService) -> None:
    t = "e2e-edge"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "events"), topic(t, "state"),
                                                     topic(t, "sensors"))) as sub:
        svc = make_service(t, **{"table.game": "terror"})
        sub.wait_latest(topic(t, "state"), lambda s: s["seq"] == 1)
        svc.hub.simulate("launcher", "launched")  # the ghost flies with no skull attempt
        event = sub.wait_events(topic(t, "events"), 2)[-1]
        assert event["seq"] == 2 and event["type"] == "mismatch" and event["table"] == t
        assert event["data"]["sensors"]["launcher"] == {"expected": "armed", "actual": "launched"}
        state = sub.wait_latest(topic(t, "state"), lambda s: s["seq"] == 2)
        assert state["mismatch"]["code"] == "foul_launch"
        sensors = sub.wait_latest(topic(t, "sensors"), lambda s: s["sensors"]["launcher"]["value"] == "launched")
        assert set(sensors["sensors"]["launcher"]) >= {"value", "changed", "seen", "source"}
        # The state is published after the event it includes, never before.
        order = [m.topic for m in sub.messages if m.topic != topic(t, "sensors")]
        assert order.index(topic(t, "events")) < len(order) - 1 - order[::-1].index(topic(t, "state"))


def test_the_service_works_through_the_embedded_broker(tmp_path: Path) -> None:
    embedded = EmbeddedBroker("127.0.0.1", 0)
    embedded.start()
    try:
        fake = Broker(port=embedded.port, conf=tmp_path / "none", log=tmp_path / "none.log")
        cfg = service_config(fake, tmp_path, "e2e-amqtt", **{"table.game": "superstition"})
        svc = Service(cfg, BrokerChoice("127.0.0.1", embedded.port, False))
        with Subscriber("127.0.0.1", embedded.port, (topic("e2e-amqtt", "#"),)) as sub:
            svc.start()
            try:
                assert svc.wait_online(5)
                svc.hub.simulate("trap.mirror.peg_b", "pulled")
                events = sub.wait_events(topic("e2e-amqtt", "events"), 2)
                assert [e["seq"] for e in events] == [1, 2] and events[1]["type"] == "mismatch"
                sub.wait_latest(topic("e2e-amqtt", "state"), lambda s: s["seq"] == 2 and s["mismatch"])
                sub.wait_latest(topic("e2e-amqtt", "status"), lambda s: s["state"] == "online")
            finally:
                svc.stop()
            sub.wait_latest(topic("e2e-amqtt", "status"), lambda s: s["state"] == "offline")
    finally:
        embedded.close()


def first_copies(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a subscriber keeps: QoS 1 is at-least-once, so an event whose acknowledgement was lost
    in the outage may come again. A repeat must be an exact copy of an event already seen."""
    kept: dict[int, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    for e in events:
        if e["seq"] in kept:
            assert e == kept[e["seq"]], f"seq {e['seq']} came twice with different content"
            assert e["seq"] <= order[-1]["seq"]
            continue
        kept[e["seq"]] = e
        order.append(e)
    return order


@pytest.mark.slow
def test_a_30_s_broker_outage_mid_game_loses_nothing(tmp_path: Path, make_service: MakeService) -> None:
    """A broker that keeps sessions (like Mosquitto on a Pi) and a subscriber with a durable session."""
    store = tmp_path / "store"
    store.mkdir()
    # Run as root, Mosquitto drops to its own user, which cannot write the test's private tmp dir.
    stay = "user root\n" if os.geteuid() == 0 else ""
    broker = make_broker(tmp_path, extra_conf=f"persistence true\npersistence_location {store}/\n{stay}")
    t = "e2e-outage"
    try:
        sub = Subscriber(broker.host, broker.port, (topic(t, "events"),), session="e2e-outage-sub").start()
        svc = make_service(t, broker=broker, **{"table.game": "terror"})
        svc.hub.simulate("launcher", "launched")
        sub.wait_events(topic(t, "events"), 2)
        broker.stop()
        wait_until(lambda: svc.link is not None and not svc.link.connected, 5, "the controller to see the outage")
        # Play goes on while the broker is away: the board changes, the referee decides.
        pause = threading.Event()
        for value in ("armed", "launched", "armed", "launched", "armed"):
            svc.hub.simulate("launcher", value)
            wait_until(lambda value=value: bool(svc.hub.snapshot()["launcher"].value == value), 5, "the sensor")
        wait_until(lambda: svc.journal.last_seq() == 7, 5, "the decisions")
        assert svc.call(lambda s: s.journal.published_seq()) <= 2  # never past what the broker took
        pause.wait(30)  # the outage itself: nothing to wait for but the clock
        broker.start()
        sub.wait_for(lambda m: any(x.topic == topic(t, "events") and x.json()["seq"] == 7 for x in m), 30)
        events = first_copies(sub.events(topic(t, "events")))
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6, 7]
        assert [e["type"] for e in events[1:]] == ["mismatch", "mismatch_cleared"] * 3
        with Subscriber(broker.host, broker.port, (topic(t, "state"),)) as late:
            late.wait_latest(topic(t, "state"), lambda s: s["seq"] == 7, timeout=10)
            state = late.latest_body(topic(t, "state"))
        assert state["mismatch"] is None and state == svc.call(lambda s: s.referee.state())
        wait_until(lambda: svc.journal.published_seq() == 7, 10, "the outbox cursor")
        sub.stop()
    finally:
        broker.stop()
