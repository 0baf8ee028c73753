"""The largest message the controller takes: MQTT 5's Maximum Packet Size, and the embedded broker's limit.

Anyone on the broker may publish a message of any size on ``cmd/act``. Without
a limit paho reads it whole: 128 MiB cost the controller about 480 MB. The
controller tells the broker the largest packet it takes, so the broker never
sends it a bigger one.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import psutil

from controller.mqtt.broker import EmbeddedBroker
from controller.protocol import mqtt5
from tests.controller.cli.test_run import TOKEN, write_config
from tests.support.broker import Broker, free_port
from tests.support.mqtt import Commander, Subscriber
from tests.support.run import RunProcess

RSS_LIMIT = 50 * 1024 * 1024


def _remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def publish_huge(host: str, port: int, topic: str, size: int) -> bool:
    """A QoS 0 PUBLISH of ``size`` bytes, streamed in chunks so this test does not hold it in memory.

    False if the broker closed the connection before it had it all (a broker with a limit does).
    """
    client_id = b"huge-publisher"
    connect_body = b"\x00\x04MQTT\x04\x02\x00\x3c" + struct.pack("!H", len(client_id)) + client_id
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(b"\x10" + _remaining_length(len(connect_body)) + connect_body)
        assert sock.recv(4)[:2] == b"\x20\x02", "the broker did not accept the publisher"
        name = topic.encode()
        header = struct.pack("!H", len(name)) + name
        sock.sendall(b"\x30" + _remaining_length(len(header) + size) + header)
        chunk = b"{" + b" " * (1 << 20)
        sent = 0
        try:
            while sent < size:
                part = chunk[: min(len(chunk), size - sent)]
                sock.sendall(part)
                sent += len(part)
            sock.sendall(b"\xe0\x00")
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True


def test_a_128_mib_command_never_reaches_the_controller(mosquitto: Broker, tmp_path: Path) -> None:
    table = "pk-big"
    cfg = write_config(tmp_path, table, board="manual")
    run = RunProcess("--config", str(cfg), "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        proc = psutil.Process(run.proc.pid)
        peak = proc.memory_info().rss
        done = threading.Event()
        sent: list[bool] = []
        sender = threading.Thread(
            target=lambda: (sent.append(publish_huge(mosquitto.host, mosquitto.port,
                                                     f"gravekeeper/{table}/cmd/act", 128 << 20)),
                            done.set()), daemon=True)
        sender.start()
        # Sampled while the broker takes it in and for a while after: it must never come our way.
        deadline = time.monotonic() + 60
        while not done.is_set() and time.monotonic() < deadline:
            peak = max(peak, proc.memory_info().rss)
            done.wait(0.05)
        assert done.is_set() and sent == [True], "the 128 MiB publish did not go through the broker in time"
        settle = time.monotonic() + 2
        while time.monotonic() < settle:
            peak = max(peak, proc.memory_info().rss)
            time.sleep(0.05)  # sampling a process's memory: there is no event to wait on
        assert peak < RSS_LIMIT, f"the controller's RSS reached {peak / 2**20:.1f} MiB"
        assert run.proc.poll() is None, "the controller stopped"
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
        try:
            cmd.ok("resync", {})  # and it keeps working
        finally:
            cmd.close()
        assert proc.memory_info().rss < RSS_LIMIT
        assert run.terminate() == 0
    finally:
        run.close()


def test_the_broker_is_told_the_largest_packet(mosquitto: Broker) -> None:
    """Mosquitto drops, for our client only, a message over the size we announced; smaller ones still come."""
    got: list[int] = []
    subscribed = threading.Event()
    arrived = threading.Condition()
    client = mqtt5.new_client("pk-limit-probe")
    client.on_connect = lambda c, u, f, r, p: c.subscribe("pk/limit/#", qos=1)
    client.on_subscribe = lambda *a: subscribed.set()

    def on_message(c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        with arrived:
            got.append(len(msg.payload))
            arrived.notify_all()

    client.on_message = on_message
    mqtt5.connect_async(client, mosquitto.host, mosquitto.port, 10)
    client.loop_start()
    try:
        assert subscribed.wait(5)
        assert mqtt5.is_mqtt5(client)
        with Subscriber(mosquitto.host, mosquitto.port, ("pk/limit/#",)) as other:
            pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            pub.connect(mosquitto.host, mosquitto.port)
            pub.loop_start()
            try:
                pub.publish("pk/limit/big", b"x" * (mqtt5.MAX_PACKET_BYTES + 1), qos=1).wait_for_publish(10)
                pub.publish("pk/limit/small", b"y" * 10, qos=1).wait_for_publish(5)
            finally:
                pub.disconnect()
                pub.loop_stop()
            other.wait_for(lambda m: len(m) >= 2, 10)  # a 3.1.1 client without a limit gets both
            with arrived:
                assert arrived.wait_for(lambda: 10 in got, 5)
            assert got == [10]
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_embedded_broker_closes_a_client_that_sends_a_packet_over_the_limit() -> None:
    port = free_port()
    broker = EmbeddedBroker("127.0.0.1", port)
    broker.start()
    try:
        with Subscriber("127.0.0.1", port, ("pk/emb/#",)) as sub:
            publish_huge("127.0.0.1", port, "pk/emb/big", mqtt5.MAX_PACKET_BYTES + 1)
            pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            pub.connect("127.0.0.1", port)
            pub.loop_start()
            try:
                pub.publish("pk/emb/small", b"ok", qos=1).wait_for_publish(5)
            finally:
                pub.disconnect()
                pub.loop_stop()
            sub.wait_for(lambda m: any(x.topic == "pk/emb/small" for x in m), 5)
            assert [m.topic for m in sub.messages] == ["pk/emb/small"]
    finally:
        broker.close()


def test_a_client_falls_back_to_mqtt_311_on_a_broker_without_mqtt_5() -> None:
    """amqtt never answers an MQTT 5 CONNECT: the client asks first and speaks 3.1.1 to it."""
    port = free_port()
    broker = EmbeddedBroker("127.0.0.1", port)
    broker.start()
    try:
        assert mqtt5.speaks_mqtt5("127.0.0.1", port) is False
        connected = threading.Event()
        client = mqtt5.new_client("pk-fallback")
        client.on_connect = lambda c, u, f, r, p: connected.set() if not r.is_failure else None
        mqtt5.connect_async(client, "127.0.0.1", port, 10)
        client.loop_start()
        try:
            assert connected.wait(5)
            assert not mqtt5.is_mqtt5(client)
        finally:
            client.disconnect()
            client.loop_stop()
    finally:
        broker.close()
    assert mqtt5.speaks_mqtt5("127.0.0.1", free_port()) is None  # nothing listens: ask again later


def test_the_mosquitto_limit_in_the_deploy_guide_works(tmp_path: Path) -> None:
    """The line docs/deploy.md gives for Mosquitto is valid, and refuses a packet over it."""
    import re

    from tests.support.broker import make_broker

    guide = (Path(__file__).resolve().parents[3] / "docs" / "deploy.md").read_text()
    line = re.search(r"^max_packet_size (\d+)$", guide, re.MULTILINE)
    assert line is not None, "docs/deploy.md no longer gives a max_packet_size line"
    limit = int(line.group(1))
    assert limit >= mqtt5.MAX_PACKET_BYTES  # what the controller itself may publish still passes
    broker = make_broker(tmp_path, extra_conf=line.group(0) + "\n")
    try:
        with Subscriber(broker.host, broker.port, ("pk/doc/#",)) as sub:
            publish_huge(broker.host, broker.port, "pk/doc/big", limit + 1)
            pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            pub.connect(broker.host, broker.port)
            pub.loop_start()
            try:
                pub.publish("pk/doc/small", b"x" * (mqtt5.MAX_PAYLOAD_BYTES - 100), qos=1).wait_for_publish(5)
            finally:
                pub.disconnect()
                pub.loop_stop()
            sub.wait_for(lambda m: any(x.topic == "pk/doc/small" for x in m), 5)
            assert [m.topic for m in sub.messages] == ["pk/doc/small"]
    finally:
        broker.stop()
