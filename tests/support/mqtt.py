"""Helpers for the controller's MQTT tests: an outside subscriber and signed commands."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from controller.protocol.security import seal_command, unseal_reply
from controller.protocol.signing import signed_command

_ids = itertools.count(1)


@dataclass
class Message:
    topic: str
    payload: bytes
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)

    def body(self) -> Any:
        """The payload's own fields: without the table's signature (``pub``, ``auth``)."""
        return {k: v for k, v in self.json().items() if k not in ("pub", "auth")}


@dataclass
class Subscriber:
    """An outside MQTT client that records every message it receives, in order.

    ``session`` gives it a fixed client id and a persistent session, so a broker
    with persistence keeps its QoS 1 messages while it is away.
    """

    host: str
    port: int
    topics: tuple[str, ...]
    session: str | None = None
    messages: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._cond = threading.Condition()
        self._subscribed = threading.Event()
        client_id = self.session or f"test-sub-{uuid.uuid4().hex[:8]}"
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                                  clean_session=self.session is None)
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.on_message = self._on_message

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        for topic in self.topics:
            client.subscribe(topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._cond:
            self.messages.append(Message(msg.topic, bytes(msg.payload), bool(msg.retain)))
            self._cond.notify_all()

    def start(self, timeout: float = 5.0) -> Subscriber:
        self.client.connect(self.host, self.port, keepalive=10)
        self.client.loop_start()
        assert self._subscribed.wait(timeout), "subscriber was not subscribed in time"
        return self

    def stop(self) -> None:
        self.client.disconnect()  # first: it wakes the network loop, so loop_stop returns at once
        self.client.loop_stop()

    def __enter__(self) -> Subscriber:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for(self, predicate: Callable[[list[Message]], bool], timeout: float = 10.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out; got {[(m.topic, m.payload[:200]) for m in self.messages]}")
                self._cond.wait(left)
            return list(self.messages)

    def wait_quiet(self, quiet: float, timeout: float = 10.0) -> list[Message]:
        """Wait until no message has arrived for ``quiet`` seconds (a flood's answers have settled)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                count = len(self.messages)
                self._cond.wait(min(quiet, max(0.0, deadline - time.monotonic())))
                if len(self.messages) == count:
                    return list(self.messages)
                if time.monotonic() >= deadline:
                    raise AssertionError(f"messages kept coming for {timeout} s: {len(self.messages)}")

    def on(self, topic: str) -> list[Message]:
        with self._cond:
            return [m for m in self.messages if m.topic == topic]

    def events(self, topic: str) -> list[dict[str, Any]]:
        return [m.json() for m in self.on(topic)]

    def latest(self, topic: str) -> Any:
        msgs = [m for m in self.on(topic) if m.payload]
        return msgs[-1].json() if msgs else None

    def latest_bytes(self, topic: str) -> bytes:
        """The newest message on ``topic`` as it crossed the broker: what its signature covers."""
        return [m for m in self.on(topic) if m.payload][-1].payload

    def latest_body(self, topic: str) -> Any:
        msgs = [m for m in self.on(topic) if m.payload]
        return msgs[-1].body() if msgs else None

    def wait_latest(self, topic: str, predicate: Callable[[Any], bool], timeout: float = 10.0) -> Any:
        def ok(msgs: list[Message]) -> bool:
            last = [m for m in msgs if m.topic == topic and m.payload]
            return bool(last) and predicate(last[-1].json())

        self.wait_for(ok, timeout)
        return self.latest(topic)

    def wait_events(self, topic: str, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        self.wait_for(lambda msgs: sum(1 for m in msgs if m.topic == topic) >= count, timeout)
        return self.events(topic)


class Commander:
    """Sends signed commands and waits for their replies."""

    def __init__(self, host: str, port: int, base: str, table: str, token: str) -> None:
        self.base, self.table, self.token = base, table, token
        self.sub = Subscriber(host, port, (f"{base}/{table}/reply/#",)).start()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-cmd-{uuid.uuid4().hex[:8]}")
        self.client.connect(host, port)
        self.client.loop_start()

    def close(self) -> None:
        self.sub.stop()
        self.client.disconnect()
        self.client.loop_stop()

    def new_id(self) -> str:
        return f"c{next(_ids)}-{uuid.uuid4().hex[:6]}"

    def send_raw(self, name: str, payload: bytes) -> None:
        self.client.publish(f"{self.base}/{self.table}/cmd/{name}", payload, qos=1).wait_for_publish(5)

    def send(self, name: str, body: dict[str, Any], *, token: str | None = None, sign: bool = True) -> str:
        body = dict(body)
        body.setdefault("id", self.new_id())
        signed = signed_command(token or self.token, self.table, name, body) if sign else None
        self.last_raw = signed if signed is not None else json.dumps(body).encode()
        self.send_raw(name, self.last_raw)
        return str(body["id"])

    def reply(self, name: str, command_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        topic = f"{self.base}/{self.table}/reply/{name}"

        def found(msgs: list[Message]) -> bool:
            return any(m.topic == topic and m.json().get("id") == command_id for m in msgs)

        self.sub.wait_for(found, timeout)
        return next(m.json() for m in self.sub.on(topic) if m.json().get("id") == command_id)

    def reply_bytes(self, name: str, command_id: Any) -> bytes:
        """The reply to ``command_id`` (already received) as it crossed the broker: what its signature covers."""
        topic = f"{self.base}/{self.table}/reply/{name}"
        return next(m.payload for m in self.sub.on(topic) if m.json().get("id") == command_id)

    def call(self, name: str, body: dict[str, Any], timeout: float = 10.0, **kw: Any) -> dict[str, Any]:
        return self.reply(name, self.send(name, body, **kw), timeout)

    def ok(self, name: str, body: dict[str, Any], timeout: float = 10.0, **kw: Any) -> dict[str, Any]:
        """:meth:`call`, which must be taken: a refusal fails the test with the table's own words."""
        reply = self.call(name, body, timeout, **kw)
        assert reply["ok"] is True, f"{name} {body} was refused: {reply.get('error')!r}"
        return reply

    def sealed_act(self, seat: int, action: Any, *, command_id: str | None = None, seal_id: str | None = None,
                   seal_token: str | None = None, seal_seat: int | None = None) -> dict[str, Any]:
        """The body of a sealed ``act`` for ``seat``; the ``seal_*`` arguments forge a wrong one."""
        cid = command_id or self.new_id()
        sealed = seal_command(seal_token or self.token, self.table, seat if seal_seat is None else seal_seat,
                              seal_id or cid, action)
        return {"id": cid, "seat": seat, "sealed": sealed}

    def call_sealed(self, seat: int, action: Any, timeout: float = 10.0) -> tuple[dict[str, Any], dict[str, Any]]:
        """Send ``action`` sealed for ``seat``; the reply as it crossed the broker, and its sealed part opened."""
        reply = self.call("act", self.sealed_act(seat, action), timeout)
        return reply, self.open_reply(seat, reply)

    def open_reply(self, seat: int, reply: dict[str, Any]) -> dict[str, Any]:
        opened = unseal_reply(self.token, self.table, seat, str(reply["id"]), reply["sealed"])
        assert isinstance(opened, dict)
        return opened

    def replies(self, name: str) -> list[dict[str, Any]]:
        return self.sub.events(f"{self.base}/{self.table}/reply/{name}")


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll a state that has no event to wait on (a journal cursor, a link flag) up to a deadline."""
    deadline = time.monotonic() + timeout
    stop = threading.Event()
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        stop.wait(0.01)


def listening_client(host: str, port: int, client_id: str, topics: list[str],
                     on_message: Callable[[mqtt.Client, Any, mqtt.MQTTMessage], None]) -> mqtt.Client:
    """A client of someone else on the broker (an attacker, a copier), subscribed to ``topics`` at QoS 1
    before it is returned; ``on_message`` runs on its network thread. Stop it with disconnect()."""
    ready = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    client.on_message = on_message
    client.on_connect = lambda c, *a: c.subscribe([(t, 1) for t in topics])
    client.on_subscribe = lambda *a: ready.set()
    client.connect(host, port)
    client.loop_start()
    assert ready.wait(5), f"{client_id} was not subscribed in time"
    return client
