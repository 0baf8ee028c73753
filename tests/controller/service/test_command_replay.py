"""Captured commands replayed from the broker: later, after a restart, at another table, on another topic.

Anyone on the broker sees every command go by. What is signed (docs/topics.md)
names the table, the command and the time it was signed, and an id once taken
is spent for good in the journal, so none of these captures does anything.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.protocol.security import COMMAND_WINDOW_S
from controller.protocol.signing import sign, signed_command, signed_status, signing_key
from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until
from tests.support.service import BASE, TOKEN, MakeService, topic

ROLL_ANN = {"kind": "roll", "player": 0, "params": {}}
ROLL_BO = {"kind": "roll", "player": 1, "params": {}}


@pytest.fixture
def shm() -> Iterator[Path]:
    # Thousands of commands, each written down before it runs: on tmpfs the fsyncs are free.
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as tmp:
        yield Path(tmp)


def _replies(cmd: Commander, name: str, cid: str) -> list[dict[str, Any]]:
    return [r for r in cmd.replies(name) if r.get("id") == cid]


def _replay(cmd: Commander, name: str, raw: bytes) -> dict[str, Any]:
    """Publish captured bytes again; the reply it gets (the newest with that id)."""
    cid = json.loads(raw)["id"]
    before = len(_replies(cmd, name, cid))
    cmd.send_raw(name, raw)
    wait_until(lambda: len(_replies(cmd, name, cid)) > before, 10, f"the reply to the replayed {name}")
    return _replies(cmd, name, cid)[-1]


def _inputs(svc: Service) -> int:
    return sum(1 for _ in svc.journal.inputs())


def test_replayed_commands_are_refused_after_thousands_of_others_and_after_a_restart(
        mosquitto: Broker, make_service: MakeService, shm: Path) -> None:
    t = "rp-replay"
    overrides = {"journal.path": str(shm / "j.sqlite"), "table.game": "terror", "referee.board": "manual"}
    svc = make_service(t, **overrides)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        captured: dict[str, tuple[str, bytes]] = {}

        def take(label: str, name: str, body: dict[str, Any], ok: bool) -> None:
            reply = cmd.call(name, body)
            assert reply["ok"] is ok, (label, reply)
            captured[label] = (name, cmd.last_raw)

        # Bo rolls during Ann's turn: refused. Sealed, as a player's page sends it.
        take("refused act", "act", cmd.sealed_act(1, ROLL_BO), False)
        take("accepted act", "act", cmd.sealed_act(0, ROLL_ANN), True)
        take("new_game", "new_game", {"game": "terror", "players": ["Ann", "Bo"], "seed": 5}, True)
        take("sim", "sim", {"sensor": "launcher", "value": "launched"}, True)
        take("selftest", "selftest", {}, True)

        def all_refused(when: str) -> None:
            inputs = _inputs(svc)
            for label, (name, raw) in captured.items():
                reply = _replay(cmd, name, raw)
                assert reply["ok"] is False and "replayed command id" in reply.get("error", ""), (when, label, reply)
            assert _inputs(svc) == inputs, when  # nothing reached the referee

        # More than the 4,096 ids a memory of recent commands would keep: signed, valid, refused by the worker.
        last = ""
        info = None
        for _ in range(4100):
            last = cmd.new_id()
            body = signed_command(TOKEN, t, "sim", {"id": last, "sensor": "launcher", "value": "nope"})
            info = cmd.client.publish(topic(t, "cmd", "sim"), body, qos=1)
        assert info is not None
        info.wait_for_publish(30)
        wait_until(lambda: bool(_replies(cmd, "sim", last)), 120, "the 4,100th command's reply")
        assert sum(1 for r in cmd.replies("sim") if "cannot be 'nope'" in r.get("error", "")) == 4100
        all_refused("after 4,100 other commands")

        svc.stop()
        svc = make_service(t, **overrides)
        all_refused("after a restart")
    finally:
        cmd.close()


def test_a_command_signed_outside_the_time_window_is_refused_and_spent(mosquitto: Broker,
                                                                         make_service: MakeService) -> None:
    t = "rp-window"
    overrides = {"referee.board": "manual"}
    svc = make_service(t, **overrides)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        inputs = _inputs(svc)
        stale: list[bytes] = []
        for off, word in ((-COMMAND_WINDOW_S - 30, "behind"), (COMMAND_WINDOW_S + 30, "ahead of")):
            cid = cmd.new_id()
            stale.append(signed_command(TOKEN, t, "act", {"id": cid, "action": ROLL_ANN}, now=time.time() + off))
            cmd.send_raw("act", stale[-1])
            reply = cmd.reply("act", cid)
            assert reply["ok"] is False and f"s {word} this table's clock" in reply["error"], reply
        # Signed, so spent as well, even across a restart: a clock set right later must not revive them.
        svc.stop()
        svc = make_service(t, **overrides)
        for raw in stale:
            assert "replayed command id" in _replay(cmd, "act", raw)["error"]
        # Signed without a time at all: refused by name.
        body = {"id": cmd.new_id(), "action": ROLL_ANN}
        cmd.send_raw("act", sign(signing_key(TOKEN), "command", t, "act", json.dumps(body).encode()))
        assert "missing or bad 'ts'" in cmd.reply("act", body["id"])["error"]
        assert _inputs(svc) == inputs
        cmd.ok("act", {"action": ROLL_ANN})  # the positive control: signed now
    finally:
        cmd.close()


def test_a_command_captured_at_one_table_is_refused_at_another_with_the_same_token(
        mosquitto: Broker, make_service: MakeService) -> None:
    a, b = "rp-table-a", "rp-table-b"
    make_service(a, **{"table.game": "terror"})
    svc_b = make_service(b, **{"table.game": "terror"})
    game_b = svc_b.call(lambda s: s.referee.game_id)
    inputs_b = _inputs(svc_b)
    at_a = Commander(mosquitto.host, mosquitto.port, BASE, a, TOKEN)
    at_b = Commander(mosquitto.host, mosquitto.port, BASE, b, TOKEN)
    try:
        with Subscriber(mosquitto.host, mosquitto.port, (topic(a, "cmd", "#"),)) as spy:
            assert at_a.call("new_game", {"game": "superstition", "players": ["Ann", "Bo"]})["ok"] is True
            assert at_a.call("sim", {"sensor": "launcher", "value": "launched"})["ok"] is True
            assert at_a.call("selftest", {})["ok"] is True
            assert at_a.call("resync", {})["ok"] is True
            spy.wait_for(lambda m: len(m) >= 4)
        captured = {m.topic.rsplit("/", 1)[1]: m.payload for m in spy.messages}
        for name, raw in captured.items():
            reply = _replay(at_b, name, raw)
            assert reply["ok"] is False and "bad signature" in reply["error"], (name, reply)
        # The same table, another command: a resync's signed body {} is no selftest's.
        reply = _replay(at_a, "selftest", captured["resync"])
        assert reply["ok"] is False and "bad signature" in reply["error"], reply
        assert svc_b.call(lambda s: s.referee.game_id) == game_b and _inputs(svc_b) == inputs_b
    finally:
        at_a.close()
        at_b.close()


def test_payloads_that_are_not_utf8_are_refused_by_name(mosquitto: Broker, make_service: MakeService) -> None:
    t = "rp-utf8"
    svc = make_service(t, **{"referee.board": "manual"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        inputs = _inputs(svc)
        text = signed_command(TOKEN, t, "act", {"id": cmd.new_id(), "action": ROLL_ANN}).decode()
        body = json.loads(text)
        # A valid signed command, only not in UTF-8: UTF-16 with and without a BOM, UTF-8 with a BOM.
        for raw, says in ((text.encode("utf-16-le"), "not UTF-8 text"), (text.encode("utf-16"), "not UTF-8 text"),
                          (text.encode("utf-8-sig"), "byte order mark")):
            before = len(cmd.replies("act"))  # counted before sending: a quick reply must not be counted in it
            cmd.send_raw("act", raw)
            cmd.sub.wait_for(lambda m, before=before: len(cmd.replies("act")) > before)
            reply = cmd.replies("act")[-1]
            assert reply["ok"] is False and says in reply["error"] and "codec" not in reply["error"], reply
        cmd.send_raw("act", b'{"id": "x", "ok": "\xff"}')
        cmd.sub.wait_for(lambda m: any("byte 0xff" in r.get("error", "") for r in cmd.replies("act")))
        assert _inputs(svc) == inputs
        cmd.send_raw("act", text.encode())
        assert cmd.reply("act", body["id"])["ok"] is True  # the same command in UTF-8 is taken
    finally:
        cmd.close()


# ----- the status topic ------------------------------------------------------------------------
def test_a_forged_newer_run_status_is_ignored_and_counted_and_a_real_one_still_wins(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "rp-status"
    svc = make_service(t, **{"mqtt.client_id": "gk-first"})
    assert svc.link is not None
    publisher = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        claim = {"state": "online", "table": t, "instance": "ffffffffffffffff", "since": time.time() + 10}
        genuine = signed_status(TOKEN, t, claim)
        forged = [
            json.dumps(claim).encode(),  # no signature at all
            signed_status("not-the-token", t, claim),  # signed with another token
            signed_status(TOKEN, "rp-other", claim),  # a real claim of another table
            genuine.replace(b'"since":', b'"since":1'),  # altered after signing
        ]
        for body in forged:
            publisher.client.publish(topic(t, "status"), body, qos=1).wait_for_publish(5)
        publisher.client.publish(topic(t, "status"), b"\xff not even json", qos=1).wait_for_publish(5)
        wait_until(lambda: svc.link is not None and svc.link.counters()["status_refused"] >= 5, 10,
                   "the forged statuses to be counted")
        assert svc.failure is None and svc.link.connected
        # Health shows the count: a resync publishes it at once.
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "health"),)) as sub:
            assert publisher.call("resync", {})["ok"] is True
            health = sub.wait_latest(topic(t, "health"), lambda h: h["counters"].get("status_refused", 0) >= 5)
        assert health["counters"]["status_refused"] == 5
        # The positive control: a real second controller of the table, with its token, still wins.
        newer = make_service(t, **{"mqtt.client_id": "gk-second", "journal.path": svc.config.journal.path + "-2"})
        wait_until(lambda: svc.failure is not None, 10, "the older controller saw the newer one's status")
        assert "another controller" in (svc.failure or "") and newer.failure is None
    finally:
        publisher.close()


def test_game_master_commands_replayed_in_the_run_after_a_restart_or_at_another_table_are_refused(
        mosquitto: Broker, make_service: MakeService, shm: Path) -> None:
    """Pause, resume, a player's undo request, the referee's answer, undo and a correction: each is
    spent once signed, and names its table, so a recording of it does nothing anywhere."""
    t, other = "rp-gm", "rp-gm-other"
    overrides = {"journal.path": str(shm / "gm.sqlite"), "table.game": "terror", "referee.board": "manual"}
    svc = make_service(t, **overrides)
    svc_other = make_service(other, **{"table.game": "terror", "referee.board": "manual"})
    inputs_other = _inputs(svc_other)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    at_other = Commander(mosquitto.host, mosquitto.port, BASE, other, TOKEN)
    try:
        captured: dict[str, tuple[str, bytes]] = {}
        for name, body in (("pause", {"reason": "a break"}), ("resume", {}),
                           ("act", {"action": ROLL_ANN}),
                           ("undo_request", {"seat": 0}),
                           ("undo_answer", {"seat": 0, "approve": False, "reason": "no"}),
                           ("undo", {"reason": "a slip"}),
                           ("correct", {"op": "trust_board", "reason": "the board is right"})):
            cmd.call(name, body)  # accepted or refused by the game, its id is spent either way
            captured[name] = (name, cmd.last_raw)

        def all_refused(when: str) -> None:
            inputs = _inputs(svc)
            for label, (name, raw) in captured.items():
                reply = _replay(cmd, name, raw)
                assert reply["ok"] is False and "replayed command id" in reply.get("error", ""), (when, label, reply)
            assert _inputs(svc) == inputs, when

        all_refused("in the same run")
        for name, raw in captured.values():
            reply = _replay(at_other, name, raw)
            assert reply["ok"] is False and "bad signature" in reply["error"], (name, reply)
        assert _inputs(svc_other) == inputs_other
        svc.stop()
        svc = make_service(t, **overrides)
        all_refused("after a restart")
    finally:
        cmd.close()
        at_other.close()
