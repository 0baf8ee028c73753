"""Choosing a broker: a configured one, one already answering on loopback, or our embedded amqtt."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.config import MqttConfig
from controller.mqtt.broker import (
    EmbeddedBroker,
    broker_configured,
    choose_broker,
    mqtt_answers,
)
from tests.support.broker import Broker, free_port
from tests.support.mqtt import Subscriber


def mqtt_config(**kw: Any) -> MqttConfig:
    base: dict[str, Any] = dict(url=None, host="127.0.0.1", port=1883, base_topic="gravekeeper", username=None,
                                password=None,
                tls=False, ca_file=None, client_id=None, keepalive=10)
    base.update(kw)
    return MqttConfig(**base)


@pytest.fixture
def not_mqtt() -> Iterator[int]:
    """A TCP listener that accepts and answers rubbish, like a web server on the port."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    yield srv.getsockname()[1]
    stop.set()
    th.join(2)
    srv.close()


def test_probe_tells_a_broker_from_a_closed_port_and_from_another_server(mosquitto: Broker, not_mqtt: int) -> None:
    assert mqtt_answers(mosquitto.host, mosquitto.port)
    assert not mqtt_answers("127.0.0.1", free_port())
    assert not mqtt_answers("127.0.0.1", not_mqtt)


def test_a_configured_broker_is_used_as_is_and_never_embedded() -> None:
    remote = mqtt_config(url="mqtts://pi.local:8883", host="pi.local", port=8883, tls=True)
    assert broker_configured(remote)
    choice = choose_broker(remote)
    assert (choice.host, choice.port, choice.tls, choice.embedded) == ("pi.local", 8883, True, None)
    assert choice.url == "mqtts://pi.local:8883"
    assert broker_configured(mqtt_config(host="10.0.0.5"))
    assert not broker_configured(mqtt_config(host="localhost"))


def test_a_broker_already_answering_on_loopback_is_used(mosquitto: Broker) -> None:
    choice = choose_broker(mqtt_config(port=mosquitto.port))
    assert choice.embedded is None and choice.port == mosquitto.port
    assert "broker at mqtt://127.0.0.1:" in choice.describe()


def _pubsub_roundtrip(port: int) -> None:
    """Paho 2 against the broker: QoS 1, retained messages, and a retained last will."""
    dying = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="dying")
    dying.will_set("t/status", json.dumps({"state": "offline"}), qos=1, retain=True)
    dying.connect("127.0.0.1", port)
    dying.loop_start()
    dying.publish("t/status", json.dumps({"state": "online"}), qos=1, retain=True).wait_for_publish(5)
    dying.publish("t/state", b"s1", qos=1, retain=True).wait_for_publish(5)
    with Subscriber("127.0.0.1", port, ("t/#",)) as live:
        live.wait_for(lambda m: {x.topic for x in m} >= {"t/status", "t/state"})
        assert all(m.retain for m in live.messages)
        for i in range(20):
            dying.publish("t/events", str(i).encode(), qos=1)
        live.wait_for(lambda m: sum(x.topic == "t/events" for x in m) == 20)
        assert [int(m.payload) for m in live.on("t/events")] == list(range(20))
        dying.loop_stop()
        sock: Any = dying.socket()
        sock.close()  # die without DISCONNECT: the will must fire
        live.wait_latest("t/status", lambda s: s["state"] == "offline", timeout=15)
    with Subscriber("127.0.0.1", port, ("t/#",)) as late:
        late.wait_for(lambda m: {x.topic for x in m} >= {"t/status", "t/state"})
        assert late.latest("t/status") == {"state": "offline"}
        assert {m.payload for m in late.on("t/state")} == {b"s1"}  # (amqtt may repeat a retained message)


def test_embedded_broker_serves_paho_2_with_retained_qos1_and_wills() -> None:
    broker = EmbeddedBroker("127.0.0.1", 0)
    broker.start()
    try:
        assert broker.running and mqtt_answers("127.0.0.1", broker.port)
        _pubsub_roundtrip(broker.port)
    finally:
        broker.close()
    assert not broker.running
    assert not mqtt_answers("127.0.0.1", broker.port)


def test_nothing_on_the_port_starts_the_embedded_broker_there() -> None:
    port = free_port()
    choice = choose_broker(mqtt_config(port=port))
    try:
        assert choice.embedded is not None and choice.port == port
        assert choice.describe().startswith("embedded broker at mqtt://127.0.0.1:")
        assert mqtt_answers("127.0.0.1", port)
    finally:
        choice.close()


def test_a_port_held_by_something_else_moves_the_embedded_broker_to_a_free_port(not_mqtt: int) -> None:
    choice = choose_broker(mqtt_config(port=not_mqtt))
    try:
        assert choice.embedded is not None and choice.port != not_mqtt
        assert mqtt_answers("127.0.0.1", choice.port)
    finally:
        choice.close()


def test_the_embedded_broker_listens_on_loopback_only() -> None:
    from controller.mqtt.broker import BrokerError

    with pytest.raises(BrokerError, match="loopback only"):
        EmbeddedBroker("0.0.0.0", 0)
