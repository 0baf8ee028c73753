"""MQTT 5 clients for the controller and the panel: the largest packet they accept, and a v3.1.1 fallback.

An MQTT 3.1.1 client has no way to tell the broker how big a message it is
ready for: paho reads a whole PUBLISH into memory before anyone can look at
it, so one 128 MiB message on a command topic costs the controller about
480 MB, ten times its memory budget. MQTT 5 lets a client announce a
Maximum Packet Size in its CONNECT; the broker then never sends it a bigger
packet (Mosquitto drops it for that client and logs "Dropping too large
outgoing PUBLISH"). So both clients connect with MQTT 5 and
:data:`MAX_PACKET_BYTES`.

A broker that speaks only MQTT 3.1.1 refuses an MQTT 5 CONNECT (an old
Mosquitto answers "unsupported protocol version"; amqtt, the embedded
broker, never answers at all). So before its first connection a client asks
the broker with a throwaway MQTT 5 CONNECT of its own (:func:`speaks_mqtt5`,
under another client id, so it never takes over the real session) and
speaks 3.1.1 to a broker that does not answer it in MQTT 5. A refusal later
on (the broker was replaced) falls back the same way
(:func:`fall_back_to_v311`), as paho itself falls back from 3.1.1 to 3.1.
Such a broker can only be protected by its own limit (``controller.mqtt.broker``
sets one for the embedded broker). A caller that knows the broker speaks
3.1.1 only (``gravekeeper run`` with its embedded broker) asks for 3.1.1 at
once. Over TLS the client does not ask first: it connects with MQTT 5.

With paho's ``CallbackAPIVersion.VERSION2`` the callbacks look the same for
both protocol versions (reason codes are ``ReasonCode`` objects, properties
are passed, possibly empty), so callers need no version checks except for
features only MQTT 5 has (``no_local`` subscriptions).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
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
        return mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    return mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True,
                       protocol=mqtt.MQTTv311)


def never_raising(handler: Callable[..., None], log: logging.Logger) -> Callable[..., None]:
    """``handler`` as paho is to call it: an exception out of a callback ends paho's network thread, and the
    link would go deaf and mute for good with nothing said. Here it is logged with its traceback, and the
    thread goes on with the next packet."""
    name = handler.__name__.strip("_")

    def run(*args: Any) -> None:
        try:
            handler(*args)
        except Exception:
            log.exception("MQTT: handling %s failed; the connection goes on", name)

    return run


def is_mqtt5(client: mqtt.Client) -> bool:
    return client.protocol == mqtt.MQTTv5


def connect_async(client: mqtt.Client, host: str, port: int, keepalive: int, *, tls: bool = False) -> None:
    """``client.connect_async`` with a clean start and, on MQTT 5, the Maximum Packet Size.

    Before its first connection the client asks whether the broker speaks MQTT 5 (not over TLS).
    """
    if is_mqtt5(client) and not tls:
        client.on_pre_connect = _ask_once(host, port)
    if is_mqtt5(client):
        # paho's Properties has no annotations (its module is untyped, though the package is typed).
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.MaximumPacketSize = MAX_PACKET_BYTES
        client.connect_async(host, port, keepalive=keepalive, clean_start=True, properties=props)
    else:
        client.connect_async(host, port, keepalive=keepalive)


PROBE_TIMEOUT_S = 1.0


def connack(host: str, port: int, version: int, client_id: bytes, timeout: float) -> bytes | None:
    """The first four bytes of the broker's answer to a bare CONNECT (``version`` 4: MQTT 3.1.1, 5: MQTT 5).

    None if nothing listens at ``host:port``; fewer than four bytes if the connection closed, was
    reset or stayed silent. A CONNACK that accepts (reason code 0) is followed by a DISCONNECT,
    so the broker sends no last will and logs no lost client. Built by hand: a probe must not wait
    for a client library's reconnects and timers.
    """
    properties = b"\x00" if version == 5 else b""  # MQTT 5 has a properties length, none here
    variable = b"\x00\x04MQTT" + bytes([version, 0x02]) + struct.pack("!H", 5) + properties  # clean, keepalive 5 s
    body = variable + struct.pack("!H", len(client_id)) + client_id
    packet = bytes([0x10, len(body)]) + body
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError:
        return None
    with sock:
        reply = b""
        try:
            sock.settimeout(timeout)
            sock.sendall(packet)
            while len(reply) < 4:
                chunk = sock.recv(4 - len(reply))
                if not chunk:
                    break
                reply += chunk
        except OSError:
            return reply  # silence (amqtt to an MQTT 5 CONNECT) or a reset
        if len(reply) == 4 and reply[0] == 0x20 and reply[3] == 0:
            with contextlib.suppress(OSError):
                sock.sendall(b"\xe0\x00")  # DISCONNECT
        return reply


def speaks_mqtt5(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool | None:
    """Whether the broker at ``host:port`` answers an MQTT 5 CONNECT in MQTT 5; None if nothing listens.

    Any MQTT 5 CONNACK counts, a refusal too ("not authorised": we sent no
    credentials). A 3.1.1 CONNACK ("unacceptable protocol version"), a closed
    connection or silence means no.
    """
    reply = connack(host, port, 5, f"gk-probe5-{os.getpid()}-{os.urandom(3).hex()}".encode(), timeout)
    if reply is None:
        return None
    # An MQTT 5 CONNACK has properties after the flags and reason code; a 3.1.1 one is two bytes long.
    return len(reply) == 4 and reply[0] == 0x20 and reply[1] >= 3


def _ask_once(host: str, port: int) -> Callable[[mqtt.Client, Any], None]:
    asked = False

    def on_pre_connect(client: mqtt.Client, userdata: Any) -> None:
        # paho's network thread, before each attempt; only the first answer counts.
        nonlocal asked
        if asked or not is_mqtt5(client):
            return
        verdict = speaks_mqtt5(host, port)
        if verdict is None:
            return  # nothing listens yet: ask again before the next attempt
        asked = True
        if not verdict:
            _downgrade(client)

    return on_pre_connect


def _downgrade(client: mqtt.Client) -> None:
    # paho keeps the protocol in a private field and switches it the same way to fall back
    # from 3.1.1 to 3.1; there is no public setter. Properties are sent only by MQTT 5 clients.
    client._protocol = mqtt.MQTTv311
    client._clean_session = True


def fall_back_to_v311(client: mqtt.Client, reason: Any) -> bool:
    """After a refused CONNECT: True (and the client switched to 3.1.1) if the broker has no MQTT 5.

    Paho retries by itself after its reconnect delay; the retry then speaks 3.1.1.
    """
    if not is_mqtt5(client) or getattr(reason, "value", None) != UNSUPPORTED_PROTOCOL:
        return False
    _downgrade(client)
    return True


def watch_options(client: mqtt.Client) -> SubscribeOptions | int:
    """Options to watch topics this client publishes itself: others' messages only, no retained copy.

    ``no_local`` (MQTT 5 only) keeps our own publications out; ``retainHandling=2``
    skips the retained copy at subscribe time (we publish our own right after).
    On 3.1.1 there is no such option: the caller must not watch.
    """
    return SubscribeOptions(qos=1, noLocal=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)


def state_options(client: mqtt.Client) -> SubscribeOptions | int:
    """Options for the table's first look at its retained state, which then stays on as its watch.

    The broker's retained copy comes at subscribe time (its retain flag set); afterwards, with
    ``no_local`` and the retain flag cleared on the way (no ``retainAsPublished``), any message is
    someone else's, live. On MQTT 5 the subscription is never left for a watch of its own: a broker
    may handle another client's PUBLISH between two packets of ours, so a forgery could fall between
    an UNSUBSCRIBE and the SUBSCRIBE after it, unseen. On 3.1.1 a plain one, left once read.
    """
    if is_mqtt5(client):
        return SubscribeOptions(qos=1, noLocal=True, retainHandling=SubscribeOptions.RETAIN_SEND_ON_SUBSCRIBE)
    return 1


def command_options(client: mqtt.Client) -> SubscribeOptions | int:
    """Options for the command topics: QoS 1, and on MQTT 5 the retain flag as it was published."""
    if is_mqtt5(client):
        return SubscribeOptions(qos=1, retainAsPublished=True)
    return 1


def junk_options(client: mqtt.Client) -> SubscribeOptions | int:
    """Options to watch topics this client never publishes retained: others' messages only, with
    the retained copy the broker holds at subscribe time and the retain flag as it was published,
    so a retained message there (always someone else's) can be told and deleted."""
    return SubscribeOptions(qos=1, noLocal=True, retainAsPublished=True,
                            retainHandling=SubscribeOptions.RETAIN_SEND_ON_SUBSCRIBE)
