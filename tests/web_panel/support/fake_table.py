"""A stand-in controller on a real broker: it publishes a table's topics and answers commands.

It speaks the contract of ``docs/topics.md`` (signed commands, replies by id,
sealed private views, sealed acts and their sealed replies) so the panel can be
tested before, and independently of, the real controller service.

``commands`` holds what crossed the broker; ``action_of`` opens a sealed act.
A handler sees a sealed act opened (with ``action``), and its reply is sealed
back for the seat as the controller does.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.protocol.publication import Publisher
from controller.protocol.security import seal, seal_reply, unseal_command
from controller.protocol.signing import signed_reply, signed_status, verify_command
from web_panel.trust import SIGNED_KINDS

Handler = Callable[[str, dict[str, Any]], dict[str, Any]]
# The game the panel files a fake table's events under: its default state's (``MqttView`` adds it).
G1: dict[str, Any] = {"game_id": "g1", "game": "terror", "title": None, "players": ["Ann", "Bo"]}


class FakeTable:
    def __init__(self, port: int, table: str, token: str, base: str = "gravekeeper") -> None:
        self.table, self.token, self.base = table, token, base
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self.wire: list[bytes] = []  # each command's bytes as they crossed the broker: what is signed
        self.command_seen = threading.Condition()
        self.handler: Handler = lambda name, cmd: {"ok": True}
        self.seq = 0
        self.silent = False  # True: swallow commands without replying (a hung controller)
        self.reply_token: str | None = None  # seals act replies under another token (a broken table)
        self.clear_ok: bool | None = None  # overrides the clear 'ok' of a sealed reply (a forger on the broker)
        self.forged_first: dict[str, Any] | None = None  # published, unsigned, ahead of each genuine reply
        self._connected = threading.Event()
        # Signs state, events, sensors, health and private views as the controller does.
        self.signer = Publisher(token, table, uuid.uuid4().hex[:16], time.time())
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"fake-{table}-{uuid.uuid4().hex[:6]}")
        self._status_token = token
        # The table's status and last will are signed, as the controller's are (controller.protocol.signing).
        self._client.will_set(self.topic("status"),
                              signed_status(token, table, {"state": "offline", "table": table, "since": 0}), 1, True)
        self._client.on_connect = self._on_connect
        self._client.on_message = self._on_message
        self._client.connect("127.0.0.1", port)
        self._client.loop_start()
        if not self._connected.wait(5):
            raise RuntimeError("fake table could not connect to the broker")

    def topic(self, kind: str) -> str:
        return f"{self.base}/{self.table}/{kind}"

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe(self.topic("cmd/+"), 1)
        self._connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        name = msg.topic.rsplit("/", 1)[1]
        cmd = json.loads(msg.payload)
        with self.command_seen:
            self.commands.append((name, cmd))
            self.wire.append(bytes(msg.payload))
            self.command_seen.notify_all()
        if self.forged_first is not None:  # someone else on the broker answers first
            forged = {"id": cmd.get("id"), **self.forged_first}
            client.publish(self.topic(f"reply/{name}"), json.dumps(forged), 1)
        if self.silent:
            return
        if not verify_command(self.token, self.table, name, bytes(msg.payload)):
            reply = {"id": cmd.get("id"), "ok": False, "error": "not authorised: bad signature"}
        elif name == "act" and "sealed" in cmd:
            answer = self.handler(name, {"id": cmd["id"], "action": self.action_of(cmd)})
            inner = {"ok": answer.get("ok", False), **answer}
            clear_ok = answer.get("ok", False) if self.clear_ok is None else self.clear_ok
            reply = {"id": cmd["id"], "ok": clear_ok,
                     "sealed": seal_reply(self.reply_token or self.token, self.table, cmd["seat"], cmd["id"], inner)}
        else:
            reply = {"id": cmd.get("id"), **self.handler(name, cmd)}
        client.publish(self.topic(f"reply/{name}"), signed_reply(self.token, self.table, name, reply), 1)

    def action_of(self, cmd: dict[str, Any]) -> Any:
        """The action of an act as the table reads it: opened when sealed."""
        if "sealed" in cmd:
            return unseal_command(self.token, self.table, cmd["seat"], cmd["id"], cmd["sealed"])
        return cmd["action"]

    def wait_command(self, count: int, timeout: float = 5.0) -> list[tuple[str, dict[str, Any]]]:
        with self.command_seen:
            if not self.command_seen.wait_for(lambda: len(self.commands) >= count, timeout):
                raise AssertionError(f"expected {count} command(s), got {self.commands}")
            return list(self.commands)

    def publish(self, kind: str, payload: dict[str, Any] | None, retain: bool = True) -> None:
        if kind == "status" and payload is not None:
            self._client.publish(self.topic(kind), signed_status(self._status_token, self.table, payload), 1,
                                 retain).wait_for_publish(5)
            return
        body = b"" if payload is None else json.dumps(payload).encode()
        if body and kind.split("/")[0] in SIGNED_KINDS:
            body = self.signer.sign(kind, body)
        self._client.publish(self.topic(kind), body, 1, retain).wait_for_publish(5)

    def publish_raw(self, kind: str, body: bytes, retain: bool = True) -> None:
        """Publish ``body`` as it is: what anyone else on the broker can do in the table's name."""
        self._client.publish(self.topic(kind), body, 1, retain).wait_for_publish(5)

    def online(self, game: str | None = "terror") -> None:
        self.publish("status", {"state": "online", "table": self.table, "game": game, "version": "test", "since": 0})

    def state(self, **fields: Any) -> dict[str, Any]:
        state = {
            "seq": self.seq, "table": self.table, "game": "terror", "game_id": "g1", "players": ["Ann", "Bo"],
            "current_player": 0, "over": False, "winners": [], "view": {}, "legal": [], "expects": [],
            "waiting_for": "Roll the dice.", "mismatch": None, "board": "sensors",
        }
        state.update(fields)
        self.publish("state", state)
        return state

    def event(self, type_: str, data: dict[str, Any] | None = None, seq: int | None = None) -> dict[str, Any]:
        self.seq = self.seq + 1 if seq is None else seq
        ev = {"seq": self.seq, "table": self.table, "type": type_, "time": 1.0e9, "data": data or {}}
        self.publish("events", ev, retain=False)
        return ev

    def private(self, seat: int, view: Any, token: str | None = None) -> None:
        self.publish(f"private/{seat}", {"seq": self.seq, "seat": seat,
                                         "sealed": seal(token or self.token, self.table, seat, view)})

    def clear(self) -> None:
        """Delete every retained topic, as a table that goes away for good."""
        for kind in ("status", "state", "sensors", "health", "summary", "private/0", "private/1"):
            self.publish(kind, None)

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
