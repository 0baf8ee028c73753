"""Floods of junk on a table's command topics: what each message costs the controller to refuse.

Anyone on an open broker can publish on ``cmd/<name>``. Each message is refused, but the refusing
runs in the controller's network thread, and a command of the table's own panel waits behind it.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import controller.mqtt_commands as mqtt_commands
from tests.conftest import Broker
from tests.controller.mqtt_testkit import Commander, wait_until
from tests.controller.service_testkit import BASE, TOKEN, MakeService, make_service, topic

__all__ = ["make_service"]  # the fixture, imported for pytest


def test_a_flood_of_oversized_commands_is_not_read_past_the_answers_it_gets(
        mosquitto: Broker, make_service: MakeService, monkeypatch: pytest.MonkeyPatch) -> None:
    """An oversized command was parsed whole to find its id for the reply, unanswered or not: 300
    commands of 250 KiB held the controller's network thread for seconds, and a command of the
    table's own panel waited behind them (2.7 s in one run; 0.1 s now). Beyond the answers the
    rate allows (20 a second, a burst of 40), an oversized command is now refused unread."""
    peeks: list[int] = []
    real = mqtt_commands._id_of

    def counting(raw: bytes) -> Any:
        peeks.append(len(raw))
        return real(raw)

    monkeypatch.setattr(mqtt_commands, "_id_of", counting)
    t = "wh-oversized"
    svc = make_service(t, **{"referee.board": "manual"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    junk = b'{"id":"junk","p":[' + b"0," * 20_000 + b"0]}"  # 40 KiB: over the limit, its id readable
    assert len(junk) > mqtt_commands.MAX_COMMAND_BYTES
    try:
        start = time.monotonic()
        info = None
        for _ in range(400):
            info = cmd.client.publish(topic(t, "cmd", "act"), junk, qos=1)
        assert info is not None
        info.wait_for_publish(30)
        assert cmd.call("resync", {}, timeout=30)["ok"] is True
        elapsed = time.monotonic() - start
        wait_until(lambda: svc.link.counters()["refusals_unanswered"] + len(peeks) >= 400, 30,
                   "every oversized command refused")
        assert len(peeks) <= 40 + 20 * (elapsed + 1), (len(peeks), elapsed)
        assert svc.link.counters()["refusals_unanswered"] >= 400 - len(peeks)
        assert all(r["id"] == "junk" for r in cmd.replies("act"))  # the answered ones are still correlated
    finally:
        cmd.close()


def test_an_unknown_command_with_a_huge_name_is_not_echoed_whole(mosquitto: Broker,
                                                                 make_service: MakeService) -> None:
    """A topic level may be 64 KiB long. The refusal repeated the whole name in its error, on top of
    its reply topic: each junk command came back to every panel twice its size."""
    t = "fl-name"
    make_service(t, **{"referee.board": "manual"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    name = "x" * 60_000
    try:
        reply = cmd.call(name, {})
        assert reply["ok"] is False and reply["error"].startswith("unknown command 'xxxx")
        assert len(reply["error"]) < 400, len(reply["error"])
        short = cmd.call("dance", {})
        assert "unknown command 'dance'" in short["error"]
    finally:
        cmd.close()


def test_a_nesting_just_under_the_parsers_limit_is_refused_like_any_other(
        mosquitto: Broker, make_service: MakeService) -> None:
    """Checking the signature encodes the command one level deeper than it was read, further down
    the stack: a nesting a few levels under the JSON parser's limit passed the parser and raised
    there, so the controller answered "internal error", at no rate limit, and logged a traceback
    for each one. Now it is "nested too deeply", and a flood of them is answered like any other."""
    t = "fl-nested"
    svc = make_service(t, **{"referee.board": "manual"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        info = None
        sent = 0
        for _ in range(4):
            for depth in range(900, 1000):  # the window moves with the stack: try every depth around it
                raw = b'{"id":"deep","ts":1,"auth":"' + b"0" * 64 + b'","a":' + b"[" * depth + b"]" * depth + b"}"
                info = cmd.client.publish(topic(t, "cmd", "act"), raw, qos=1)
                sent += 1
        assert info is not None
        info.wait_for_publish(30)
        assert cmd.call("resync", {}, timeout=30)["ok"] is True
        # (too deep for the parser: no id could be read, so answered with id null)
        wait_until(lambda: svc.link.counters()["refusals_unanswered"] + len(cmd.replies("act")) >= sent, 30,
                   "every one refused")
        errors = {r["error"] for r in cmd.replies("act")}
        assert not any("internal error" in e for e in errors), errors
        assert svc.link.counters()["refusals_unanswered"] > 0  # the flood met the answering rate
    finally:
        cmd.close()
