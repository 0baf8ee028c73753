"""The private parts of amqtt and paho-mqtt that the product changes keep the shape it expects.

``pyproject.toml`` bounds both from above, and these tests name the part that moved when a new
release changes it, before it fails at a table. What the product leans on:

* ``controller.mqtt.broker.limit_packet_size`` wraps amqtt's ``MQTTFixedHeader.from_stream``
  (a classmethod coroutine ``(cls, reader)`` whose header has ``remaining_length``), which
  amqtt's protocol handler calls to read every packet's fixed header;
* ``controller.protocol.mqtt5._downgrade`` sets paho's private ``Client._protocol`` and
  ``Client._clean_session``, which paho's CONNECT reads.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import paho.mqtt.client as mqtt

from controller.protocol.mqtt5 import fall_back_to_v311


class _Reader:
    """What amqtt's decoder reads from: ``await read(n)``."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    async def read(self, n: int = -1) -> bytes:
        out, self._data = self._data[:n], self._data[n:]
        return out


def test_amqtt_reads_the_fixed_header_through_a_classmethod_coroutine_that_knows_the_length() -> None:
    from amqtt.mqtt.packet import MQTTFixedHeader
    from amqtt.mqtt.protocol import handler

    raw = MQTTFixedHeader.__dict__["from_stream"]
    assert isinstance(raw, classmethod), "amqtt's MQTTFixedHeader.from_stream is no longer a classmethod"
    assert inspect.iscoroutinefunction(raw.__func__)
    assert list(inspect.signature(raw.__func__).parameters) == ["cls", "reader"]
    assert "MQTTFixedHeader.from_stream(" in inspect.getsource(handler), \
        "amqtt's protocol handler no longer reads headers through MQTTFixedHeader.from_stream"
    # A PUBLISH of 200 bytes: the length (two bytes, 0xC8 0x01) is known before the body is read.
    got: list[Any] = []
    # A thread of its own: an earlier test may have left this thread's event loop running.
    reader = threading.Thread(target=lambda: got.append(asyncio.run(
        MQTTFixedHeader.from_stream(_Reader(b"\x30\xc8\x01" + b"x" * 200)))))
    reader.start()
    reader.join(10)
    header = got[0]
    assert (header.packet_type, header.remaining_length) == (3, 200)


def test_paho_reads_the_protocol_and_clean_session_fields_the_fallback_sets() -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    assert client._protocol == mqtt.MQTTv5  # (an MQTT 5 client has no _clean_session: the fallback adds it)
    connect = inspect.getsource(mqtt.Client._send_connect)
    assert "self._protocol" in connect and "self._clean_session" in connect, \
        "paho's CONNECT no longer reads Client._protocol and Client._clean_session"

    class Refused:
        value = 0x84  # MQTT 5 "unsupported protocol version"

    assert fall_back_to_v311(client, Refused()) is True
    assert (client._protocol, client._clean_session) == (mqtt.MQTTv311, True)
