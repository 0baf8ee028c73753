"""MQTT 5 clients for the controller and the panel: the largest packet they accept, and a v3.1.1 fallback.

An MQTT 3.1.1 client has no way to tell the broker how big a message it is
ready for: paho reads a whole PUBLISH into memory before anyone can look at
it, so one 128 MiB message on a command topic costs the controller about
480 MB, ten times its memory budget. MQTT 5 lets a client announce a
Maximum Packet Size in its CONNECT; the broker then never sends it a bigger
packet (Mosquitto drops it for that client and logs "Dropping too large
outgoing PUBLISH"). So both clients connect with MQTT 5 and
:data:`MAX_PACKET_BYTES`.

A broker that speaks only MQTT 3.1.1 (the embedded amqtt broker, an old
Mosquitto) refuses an MQTT 5 CONNECT with "unsupported protocol version".
:func:`fall_back_to_v311` then switches the client to 3.1.1 for its next
attempt, as paho itself falls back from 3.1.1 to 3.1; such a broker can
only be protected by its own limit (``controller.broker`` sets one for the
embedded broker). A caller that knows the broker is v3.1.1 only (the
embedded one) asks for v3.1.1 at once and skips the failed first attempt.

With paho's ``CallbackAPIVersion.VERSION2`` the callbacks look the same for
both protocol versions (reason codes are ``ReasonCode`` objects, properties
are passed, possibly empty), so callers need no version checks except for
features only MQTT 5 has (``no_local`` subscriptions).
"""

from __future__ import annotations

from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

MAX_PAYLOAD_BYTES = 1 << 20
"""The largest payload either side takes: a state or a health report is a few tens of KiB."""

MAX_PACKET_BYTES = MAX_PAYLOAD_BYTES + (64 << 10)
"""Maximum Packet Size announced to the broker: the payload plus room for the topic and properties."""

UNSUPPORTED_PROTOCOL = 132  # CONNACK reason "Unsupported protocol version" (MQTT 5, 3.2.2.2)


def new_client(client_id: str, *, mqtt5: bool = True) -> mqtt.Client:
    """A paho 2 client (callback API version 2) speaking MQTT 5, or 3.1.1 when ``mqtt5`` is False.

    Both start every connection with a clean session (MQTT 5: clean start and no
    session expiry), as the 3.1.1 clients always did.
    """
    if mqtt5:
        return mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    return mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True,
                       protocol=mqtt.MQTTv311)


def is_mqtt5(client: mqtt.Client) -> bool:
    return client.protocol == mqtt.MQTTv5


def connect_async(client: mqtt.Client, host: str, port: int, keepalive: int) -> None:
    """``client.connect_async`` with a clean start and, on MQTT 5, the Maximum Packet Size."""
    if is_mqtt5(client):
        props = Properties(PacketTypes.CONNECT)
        props.MaximumPacketSize = MAX_PACKET_BYTES
        client.connect_async(host, port, keepalive=keepalive, clean_start=True, properties=props)
    else:
        client.connect_async(host, port, keepalive=keepalive)


def fall_back_to_v311(client: mqtt.Client, reason: Any) -> bool:
    """After a refused CONNECT: True (and the client switched to 3.1.1) if the broker has no MQTT 5.

    Paho retries by itself after its reconnect delay; the retry then speaks 3.1.1.
    """
    if not is_mqtt5(client) or getattr(reason, "value", None) != UNSUPPORTED_PROTOCOL:
        return False
    # paho keeps the protocol in a private field and switches it the same way to fall back
    # from 3.1.1 to 3.1; there is no public setter. Properties are sent only by MQTT 5 clients.
    client._protocol = mqtt.MQTTv311  # noqa: SLF001
    client._clean_session = True  # noqa: SLF001 - unset for an MQTT 5 client; 3.1.1 reads it
    return True


def watch_options(client: mqtt.Client) -> SubscribeOptions | int:
    """Options to watch topics this client publishes itself: others' messages only, no retained copy.

    ``no_local`` (MQTT 5 only) keeps our own publications out; ``retainHandling=2``
    skips the retained copy at subscribe time (we publish our own right after).
    On 3.1.1 there is no such option: the caller must not watch.
    """
    return SubscribeOptions(qos=1, noLocal=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)
