"""The Mosquitto fixture really brokers messages (paho 2, VERSION2 callbacks)."""

from __future__ import annotations

import threading

import paho.mqtt.client as mqtt


def test_fixture_broker_delivers_a_message(mosquitto) -> None:
    got = threading.Event()
    received: list[bytes] = []
    subscribed = threading.Event()

    def on_message(client, userdata, msg) -> None:
        received.append(msg.payload)
        got.set()

    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sub.on_message = on_message
    sub.on_subscribe = lambda *a: subscribed.set()
    sub.connect(mosquitto.host, mosquitto.port)
    sub.subscribe("fixture/test", qos=1)
    sub.loop_start()
    assert subscribed.wait(5)
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    pub.connect(mosquitto.host, mosquitto.port)
    pub.loop_start()
    pub.publish("fixture/test", b"hello", qos=1).wait_for_publish(5)
    assert got.wait(5)
    assert received == [b"hello"]
    for c in (sub, pub):
        c.loop_stop()
        c.disconnect()
