"""The internals of amqtt and paho-mqtt that the product patches or reaches into, as it expects them.

pyproject.toml bounds both from above, to the releases these were read in; a newer
release must pass this file before the bound moves. A change of shape here would not
fail loudly in the product: the packet limit would stop limiting (a 128 MiB PUBLISH
taken whole by the embedded broker), or the fall-back to MQTT 3.1.1 would keep
sending MQTT 5 to a broker that refuses it.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from importlib.metadata import version
from typing import Any

import paho.mqtt.client as mqtt
from amqtt.broker import Broker
from amqtt.mqtt.packet import MQTTFixedHeader
from amqtt.mqtt.protocol.handler import ProtocolHandler
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.mqtt.broker import limit_packet_size
from controller.protocol.mqtt5 import MAX_PACKET_BYTES, fall_back_to_v311


class _Reader:
    """What amqtt's decoder reads from: ``await read(n)``."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    async def read(self, n: int = -1) -> bytes:
        out, self._data = self._data[:n], self._data[n:]
        return out


def test_amqtt_fixed_header_decoder_is_the_async_classmethod_the_packet_limit_wraps() -> None:
    # controller/mqtt/broker.py, limit_packet_size: wraps from_stream.__func__ as a classmethod.
    raw = MQTTFixedHeader.__dict__["from_stream"]
    assert isinstance(raw, classmethod), "amqtt's MQTTFixedHeader.from_stream is no longer a classmethod"
    # Wrapped (as the embedded broker does, with its own limit, so no later test sees another);
    # amqtt's own decoder is then the wrapper's `original`, the one whose shape matters here.
    limit_packet_size(MAX_PACKET_BYTES)
    wrapped = MQTTFixedHeader.__dict__["from_stream"].__func__
    amqtts = inspect.getclosurevars(wrapped).nonlocals["original"]
    assert inspect.iscoroutinefunction(amqtts)
    assert list(inspect.signature(amqtts).parameters) == ["cls", "reader"]
    assert "remaining_length" in MQTTFixedHeader.__slots__
    assert MQTTFixedHeader(3, 0, 7).remaining_length == 7  # PUBLISH, no flags, 7 bytes


def test_amqtt_decoder_knows_the_length_before_the_body_is_read() -> None:
    # A PUBLISH of 200 bytes: the length (two bytes, 0xC8 0x01) is known from the header alone,
    # through the wrapped decoder the embedded broker runs.
    limit_packet_size(MAX_PACKET_BYTES)
    assert MAX_PACKET_BYTES > 200
    got: list[Any] = []
    # A thread of its own: an earlier test may have left this thread's event loop running.
    reader = threading.Thread(target=lambda: got.append(asyncio.run(
        MQTTFixedHeader.from_stream(_Reader(b"\x30\xc8\x01" + b"x" * 200)))))
    reader.start()
    reader.join(10)
    assert got, "amqtt's decoder did not return within 10 s"
    header = got[0]
    assert (header.packet_type, header.remaining_length) == (3, 200)


def test_amqtt_reads_every_packet_through_that_decoder_first() -> None:
    # The limit must act before the body is read: the reader loop asks the fixed header first,
    # by the class attribute the wrapper replaces.
    source = inspect.getsource(ProtocolHandler._reader_loop)
    assert "MQTTFixedHeader.from_stream(self.reader)" in source
    assert source.index("MQTTFixedHeader.from_stream") < source.index("cls.from_stream(self.reader")


def test_amqtt_broker_takes_a_config_and_a_loop_and_starts_and_stops_as_coroutines() -> None:
    params = inspect.signature(Broker.__init__).parameters
    assert "config" in params and "loop" in params
    assert inspect.iscoroutinefunction(Broker.start) and inspect.iscoroutinefunction(Broker.shutdown)
    from amqtt.plugins.authentication import AnonymousAuthPlugin  # named in the embedded broker's config

    assert AnonymousAuthPlugin


def test_paho_keeps_the_protocol_and_clean_session_in_the_fields_the_fall_back_sets() -> None:
    # controller/protocol/mqtt5.py, _downgrade: no public setter; CONNECT reads these two fields.
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    assert client._protocol == mqtt.MQTTv5  # noqa: SLF001 - the point of this test
    # A 3.1.1 client keeps its clean session there (an MQTT 5 one has none: the fall-back sets it).
    assert mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)._clean_session is True  # noqa: SLF001
    connect = inspect.getsource(mqtt.Client._send_connect)
    assert "self._protocol" in connect and "self._clean_session" in connect, \
        "paho's CONNECT no longer reads Client._protocol and Client._clean_session"
    assert isinstance(mqtt.Client.on_pre_connect, property) and mqtt.Client.on_pre_connect.fset is not None
    assert isinstance(mqtt.Client.on_socket_open, property)
    assert callable(client.socket)


def test_the_fall_back_switches_a_refused_mqtt5_client_to_311_with_a_clean_session() -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)

    class Refused:
        value = 0x84  # MQTT 5 "unsupported protocol version"

    assert fall_back_to_v311(client, Refused()) is True
    assert (client._protocol, client._clean_session) == (mqtt.MQTTv311, True)  # noqa: SLF001


def test_paho_subscribe_options_have_the_mqtt5_fields_the_link_uses() -> None:
    params = inspect.signature(SubscribeOptions.__init__).parameters
    assert {"qos", "noLocal", "retainAsPublished", "retainHandling"} <= set(params)
    assert SubscribeOptions.RETAIN_DO_NOT_SEND == 2 and SubscribeOptions.RETAIN_SEND_ON_SUBSCRIBE == 0


def test_the_installed_releases_are_within_the_bounds_read() -> None:
    # The bounds in pyproject.toml: a release outside them was never checked against this file.
    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in v.split(".")[:2])

    assert (0, 11) <= parts(version("amqtt")) < (0, 13)
    assert (2, 0) <= parts(version("paho-mqtt")) < (2, 3)
