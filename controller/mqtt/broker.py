"""Finding the MQTT broker, or starting one of our own.

``gravekeeper run`` must work on a fresh machine with nothing but ``pip
install``, yet a Pi often already runs Mosquitto. So, when no broker is
configured (no ``mqtt.url`` and ``mqtt.host`` on loopback), we first ask
whatever listens on the configured loopback port whether it speaks MQTT (a
real CONNECT/CONNACK exchange, not just an open port). If it does we use it;
otherwise we start an embedded broker (amqtt, pure Python) on loopback only, in
its own thread with its own asyncio loop, so it never shares a loop or a lock
with the controller.

The embedded broker is for one controller and its panel on one machine. It
listens on 127.0.0.1, allows anonymous clients, and closes the connection of
a client that sends a packet over ``MAX_PACKET_BYTES`` (amqtt has no such
setting, so :func:`limit_packet_size` adds one) before it reads the packet; clubs with several tables
or remote panels should run Mosquitto and point ``mqtt.url`` at it (see
``docs/deploy.md``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.protocol.broker_url import BrokerUrl
from controller.protocol.mqtt5 import MAX_PACKET_BYTES, connack
from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1", "ip6-localhost"})


class BrokerError(GravekeeperError, RuntimeError):
    """The embedded broker could not be started."""


class PacketTooLarge(GravekeeperError):
    """A client sent amqtt a packet over the limit: its reader ends and the connection closes.

    Not an amqtt ``MQTTError``: amqtt discards the packet on those and reads on, from the middle of it.
    """


_limit_lock = threading.Lock()
_packet_limit: int | None = None


def limit_packet_size(max_bytes: int) -> None:
    """Make amqtt refuse packets over ``max_bytes`` when it has read their length, not after the body.

    amqtt reads every packet whole, whatever its size, before any plugin sees it: a
    128 MiB PUBLISH costs the broker's process (ours) 128 MiB and more. Its fixed-header
    decoder is the one place that knows the length first; wrapped once per process.
    """
    from amqtt.mqtt.packet import MQTTFixedHeader  # type: ignore[import-untyped]  # amqtt ships no types

    global _packet_limit
    with _limit_lock:
        first = _packet_limit is None
        _packet_limit = max_bytes
        if not first:
            return
        original = MQTTFixedHeader.from_stream.__func__

        async def from_stream(cls: Any, reader: Any) -> Any:
            header = await original(cls, reader)
            limit = _packet_limit
            if header is not None and limit is not None and header.remaining_length > limit:
                raise PacketTooLarge(f"a packet of {header.remaining_length} bytes is over the "
                                     f"embedded broker's limit of {limit} bytes")
            return header

        MQTTFixedHeader.from_stream = classmethod(from_stream)


class _MqttSettings(Protocol):
    @property
    def url(self) -> str | None: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def tls(self) -> bool: ...


def mqtt_answers(host: str, port: int, timeout: float = 0.5) -> bool:
    """True if an MQTT broker answers a CONNECT at ``host:port`` (any CONNACK counts).

    A refused CONNACK (e.g. "not authorised") still means a broker is there:
    the user wants that broker, and the link will report the refusal clearly.
    """
    reply = connack(host, port, 4, f"gk-probe-{os.getpid()}".encode(), timeout)
    return reply is not None and len(reply) == 4 and reply[0] == 0x20 and reply[1] == 0x02


def _port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class EmbeddedBroker:
    """amqtt on loopback, in a daemon thread running its own asyncio loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in LOOPBACK_NAMES:
            raise BrokerError(f"the embedded broker listens on loopback only, not {host!r}")
        self.host = "127.0.0.1" if host in ("localhost", "127.0.0.1") else host
        self.port = port or _free_port(self.host)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Any = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout: float = 5.0) -> None:
        # amqtt logs every connection at INFO; the controller's own log says what matters.
        logging.getLogger("amqtt").setLevel(logging.WARNING)
        logging.getLogger("transitions").setLevel(logging.WARNING)
        self._thread = threading.Thread(target=self._run, name="gk-broker", daemon=True)
        self._thread.start()
        if not self._started.wait(timeout):
            raise BrokerError(f"embedded broker did not start within {timeout:g} s")
        if self._error is not None:
            raise BrokerError(f"embedded broker on {self.host}:{self.port}: {self._error}") from self._error

    def _run(self) -> None:
        try:
            from amqtt.broker import Broker  # type: ignore[import-untyped]  # amqtt ships no types
        except ImportError as exc:  # pragma: no cover - amqtt is a declared dependency
            self._error = exc
            self._started.set()
            return
        limit_packet_size(MAX_PACKET_BYTES)
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            # Only anonymous auth: no $SYS publisher waking up every few seconds, no packet logger.
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        try:
            self._broker = Broker(config, loop=loop)
            loop.run_until_complete(self._broker.start())
        except BaseException as exc:  # noqa: BLE001 - reported to start() in the caller's thread
            self._error = exc
            self._started.set()
            loop.close()
            return
        self._started.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self._error is None

    def close(self, timeout: float = 5.0) -> None:
        loop, broker, thread = self._loop, self._broker, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        if broker is not None:
            try:
                asyncio.run_coroutine_threadsafe(broker.shutdown(), loop).result(timeout)
            except Exception as exc:  # noqa: BLE001 - shutting down anyway
                log.warning("embedded broker did not shut down cleanly: %s", exc)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)


@dataclass
class BrokerChoice:
    """Where the controller connects, and the embedded broker if we started one."""

    host: str
    port: int
    tls: bool
    embedded: EmbeddedBroker | None = field(default=None)

    @property
    def url(self) -> str:
        return str(BrokerUrl(self.host, self.port, self.tls))

    def describe(self) -> str:
        kind = "embedded broker" if self.embedded else "broker"
        return f"{kind} at {self.url}"

    def close(self) -> None:
        if self.embedded is not None:
            self.embedded.close()


def broker_configured(mqtt: _MqttSettings) -> bool:
    """A broker is configured when there is a URL or a host that is not loopback."""
    return bool(mqtt.url) or mqtt.host not in LOOPBACK_NAMES


def choose_broker(mqtt: _MqttSettings, *, probe_timeout: float = 0.5) -> BrokerChoice:
    """The configured broker; else one answering on loopback; else a new embedded one."""
    if broker_configured(mqtt) or mqtt.tls:
        # The config has already resolved a URL into host, port and TLS.
        return BrokerChoice(mqtt.host, mqtt.port, mqtt.tls)
    host = "127.0.0.1" if mqtt.host == "localhost" else mqtt.host
    if mqtt_answers(host, mqtt.port, probe_timeout):
        log.info("using the MQTT broker already answering at %s:%d", host, mqtt.port)
        return BrokerChoice(host, mqtt.port, False)
    # Something that is not MQTT may hold the port; then any free port will do.
    port = mqtt.port if _port_free(host, mqtt.port) else 0
    embedded = EmbeddedBroker(host, port)
    embedded.start()
    log.info("started an embedded MQTT broker at %s:%d", embedded.host, embedded.port)
    return BrokerChoice(embedded.host, embedded.port, False, embedded)
