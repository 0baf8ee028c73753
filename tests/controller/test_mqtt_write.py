"""``controller.mqtt_write``: the publisher writes its own packets, and paho's thread never trips on it.

Against a real Mosquitto: what is published inside ``writing_here`` leaves from the
publishing thread; two publishing threads and paho's own, on a small send buffer that
makes partial writes common, never reorder or mix their bytes; and what the publisher
cannot write at once (paho's thread is writing, no connection) is written by paho's thread.
"""

from __future__ import annotations

import socket
import threading
import uuid

import paho.mqtt.client as mqtt

from controller.mqtt_write import CallerWriteClient
from tests.conftest import Broker
from tests.controller.mqtt_testkit import Subscriber, wait_until


def _client(broker: Broker, *, sndbuf: int | None = None) -> CallerWriteClient:
    client = CallerWriteClient(mqtt.CallbackAPIVersion.VERSION2, client_id=f"cw-{uuid.uuid4().hex[:8]}",
                               protocol=mqtt.MQTTv5)
    connected = threading.Event()

    def on_connect(c: mqtt.Client, *_: object) -> None:
        if sndbuf is not None:
            c.socket().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        connected.set()

    client.on_connect = on_connect
    client.connect(broker.host, broker.port)
    client.loop_start()
    assert connected.wait(5), "the client did not connect"
    return client


def _close(client: mqtt.Client) -> None:
    client.disconnect()
    client.loop_stop()


def test_what_is_published_inside_leaves_from_the_publishing_thread(mosquitto: Broker) -> None:
    client = _client(mosquitto)
    writers: list[str] = []
    send = client._sock_send

    def noted(buf: bytes | bytearray) -> int:
        writers.append(threading.current_thread().name)
        return int(send(buf))

    client._sock_send = noted  # type: ignore[method-assign]
    try:
        with Subscriber(mosquitto.host, mosquitto.port, ("cw/one",)) as sub:
            threading.current_thread().name = "the-publisher"
            for n in range(5):
                writers.clear()
                with client.writing_here():
                    info = client.publish("cw/one", f"m{n}".encode(), qos=1)
                assert writers == ["the-publisher"]  # no wake-up of paho's thread, no write there
                info.wait_for_publish(5)
            got = sub.wait_for(lambda m: len(m) >= 5)
        assert [m.payload for m in got] == [f"m{n}".encode() for n in range(5)]
        assert client.caller_writes == 5 and client.caller_wakes == 0
    finally:
        threading.current_thread().name = "MainThread"
        _close(client)


def test_two_publishers_and_paho_on_a_small_send_buffer_never_mix_their_bytes(mosquitto: Broker) -> None:
    client = _client(mosquitto, sndbuf=8192)
    per_thread = 300
    payload = b"x" * 3000  # partial writes on an 8 KB buffer: the rest must go out next, whole
    topics = ("cw/a", "cw/b", "cw/paho")
    try:
        with Subscriber(mosquitto.host, mosquitto.port, topics) as sub:
            def publish(topic: str, here: bool) -> None:
                for n in range(per_thread):
                    body = f"{n:05d}".encode() + payload
                    if here:
                        with client.writing_here():
                            client.publish(topic, body, qos=1)
                    else:
                        client.publish(topic, body, qos=1)  # paho's thread writes these

            threads = [threading.Thread(target=publish, args=(t, t != "cw/paho")) for t in topics]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            got = sub.wait_for(lambda m: len(m) >= per_thread * len(topics), timeout=60)
        for topic in topics:
            bodies = [m.payload for m in got if m.topic == topic]
            assert [int(b[:5]) for b in bodies] == list(range(per_thread)), topic
            assert all(b[5:] == payload for b in bodies), topic
        assert client.caller_writes + client.caller_wakes == 2 * per_thread
    finally:
        _close(client)


def test_when_paho_is_writing_the_publisher_wakes_it_and_the_message_still_goes(mosquitto: Broker) -> None:
    client = _client(mosquitto)
    try:
        with Subscriber(mosquitto.host, mosquitto.port, ("cw/held",)) as sub:
            held, release = threading.Event(), threading.Event()

            def hold() -> None:  # as paho's thread in the middle of its own write
                with client._write_lock:
                    held.set()
                    assert release.wait(10)

            holder = threading.Thread(target=hold)
            holder.start()
            assert held.wait(5)
            with client.writing_here():
                client.publish("cw/held", b"late", qos=1)  # may not wait for the lock: left to paho
            assert client.caller_wakes == 1 and client.caller_writes == 0
            release.set()
            holder.join(5)
            got = sub.wait_for(lambda m: len(m) >= 1)
        assert [m.payload for m in got] == [b"late"]
    finally:
        _close(client)


def test_published_while_disconnected_it_goes_out_after_the_reconnect(mosquitto: Broker) -> None:
    client = _client(mosquitto)
    client.reconnect_delay_set(1, 1)
    connects = []
    client.on_connect = lambda *a: connects.append(1)
    try:
        with Subscriber(mosquitto.host, mosquitto.port, ("cw/later",)) as sub:
            sock = client.socket()
            assert sock is not None
            sock.shutdown(socket.SHUT_RDWR)  # the connection drops under the client
            wait_until(lambda: not client.is_connected(), 5, "the client to notice the drop")
            with client.writing_here():
                client.publish("cw/later", b"kept", qos=1)  # paho keeps it, and sends it once connected
            assert client.caller_wakes >= 1
            wait_until(lambda: bool(connects), 10, "the client to reconnect")
            got = sub.wait_for(lambda m: len(m) >= 1)
        assert [m.payload for m in got] == [b"kept"]
    finally:
        _close(client)


def test_over_tls_the_publisher_never_writes() -> None:
    client = CallerWriteClient(mqtt.CallbackAPIVersion.VERSION2, client_id="cw-tls")
    client._ssl = True  # what tls_set() sets; an SSL object must not be written from two threads
    assert not client.can_write_here()
    assert client.write_now() is False
