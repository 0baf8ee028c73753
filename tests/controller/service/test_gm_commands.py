"""The game master's commands through a real Mosquitto: undo, corrections, pause, history; refusals."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from typing import Any, NamedTuple

import pytest

from controller.service.service import Service
from controller.store.journal import Journal
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic


class GmTable(NamedTuple):
    """A running table, a signed commander for it, and a subscriber that saw it from before it started."""

    svc: Service
    cmd: Commander
    sub: Subscriber


OpenTable = Callable[..., GmTable]


@pytest.fixture
def open_table(mosquitto: Broker, make_service: MakeService) -> Iterator[OpenTable]:
    """``open_table(name, game, options, watch=...)``: start a table; its clients close after the test.

    The subscriber listens to the table's topics (``watch`` to listen elsewhere) before the table
    starts, so it has every message the table sent."""
    with ExitStack() as stack:
        def open_(t: str, game: str, options: Mapping[str, Any] | None = None, *,
                  watch: str | None = None) -> GmTable:
            sub = stack.enter_context(Subscriber(mosquitto.host, mosquitto.port, (watch or topic(t, "#"),)))
            svc = make_service(t, **{"table.game": game, **(options or {})})
            cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
            stack.callback(cmd.close)
            return GmTable(svc, cmd, sub)

        yield open_


def state_of(svc: Service) -> dict[str, Any]:
    return svc.call(lambda s: s.referee.state())


def roll(cmd: Commander, sub: Subscriber, t: str) -> str:
    reply = cmd.call("act", {"action": {"kind": "roll", "player": 0, "params": {}}})
    assert reply["ok"], reply
    state = sub.wait_latest(topic(t, "state"), lambda s: s["expects"])
    return str(next(iter(state["expects"][0]["accepts"])).split(".")[1])


def test_undo_over_mqtt_asks_for_the_tomb_back_and_the_record_keeps_it(open_table: OpenTable) -> None:
    t = "gm-undo"
    svc, cmd, sub = open_table(t, "terror")
    tomb = roll(cmd, sub, t)
    cmd.ok("sim", {"sensor": f"tomb.{tomb}", "value": "end_a"})
    sub.wait_latest(topic(t, "state"), lambda s: s["gm"]["undo"]["steps"] == 1)
    unsigned = cmd.call("undo", {}, sign=False)
    assert unsigned["ok"] is False and unsigned["error"].startswith("not authorised")
    reply = cmd.call("undo", {"reason": "wrong tomb slid"})
    assert reply["ok"] is True, reply
    assert [e["type"] for e in reply["data"]["events"]] == ["undone", "mismatch"]
    state = sub.wait_latest(topic(t, "state"), lambda s: (s["mismatch"] or {}).get("code") == "undo")
    assert state["mismatch"]["guidance"] == f"Slide the {tomb.capitalize()} tomb back to the middle."
    assert state["gm"]["last_undo"]["put_back"] == [state["mismatch"]["guidance"]]
    cmd.ok("sim", {"sensor": f"tomb.{tomb}", "value": "middle"})
    sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
    again = cmd.call("undo", {})
    assert again["ok"] is False and "undo stops at" in again["error"]
    undone = next(e for e in sub.events(topic(t, "events")) if e["type"] == "undone")
    assert undone["data"]["by"] == "referee" and undone["data"]["reason"] == "wrong tomb slid"
    assert isinstance(undone["time"], float)
    svc.stop()
    with Journal(svc.config.journal.path, table=t, create=False) as journal:
        kinds = [entry["kind"] for entry in journal.inputs()]
    assert "gm" in kinds and "command" in kinds  # the undo is a new input: nothing was deleted
    verify(svc)


def verify(svc: Service) -> None:
    """``gravekeeper replay --verify`` decides the stopped service's journal again, to the same events."""
    import contextlib
    import io

    from controller.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", svc.config.journal.path, "--verify"]) == 0
    assert out.getvalue().startswith("verified:"), out.getvalue()


def test_corrections_over_mqtt_and_their_refusals(open_table: OpenTable) -> None:
    t = "gm-correct"
    svc, cmd, sub = open_table(t, "terror")
    tomb = roll(cmd, sub, t)
    move = {"kind": "move_tomb", "player": 0, "params": {"tomb": tomb, "to": "end_b"}}
    no_reason = cmd.call("correct", {"op": "declare", "action": move})
    assert no_reason["ok"] is False and "reason" in no_reason["error"]
    bad_op = cmd.call("correct", {"op": "rewrite", "reason": "x"})
    assert bad_op["ok"] is False and "'op' must be one of" in bad_op["error"]
    other = next(x for x in ("mummy", "monster", "wolf") if x != tomb)
    forbidden = cmd.call("correct", {"op": "declare", "reason": "x", "action": {
        "kind": "move_tomb", "player": 0, "params": {"tomb": other, "to": "end_b"}}})
    assert forbidden["ok"] is False and "cannot do that now" in forbidden["error"]
    unsigned = cmd.call("correct", {"op": "declare", "action": move, "reason": "x"}, sign=False)
    assert unsigned["ok"] is False and unsigned["error"].startswith("not authorised")
    assert state_of(svc)["gm"]["undo"]["steps"] == 0  # none of that changed anything
    ok = cmd.call("correct", {"op": "broken", "sensor": f"tomb.{tomb}", "reason": "loose magnet"})
    assert ok["ok"] is True, ok
    health = sub.wait_latest(topic(t, "health"), lambda h: h.get("out_of_service"))
    assert health["out_of_service"][0]["sensor"] == f"tomb.{tomb}"
    ok = cmd.call("correct", {"op": "declare", "action": move, "reason": "slid by hand"})
    assert ok["ok"] is True, ok
    sub.wait_for(lambda m: len([x for x in m if x.topic == topic(t, "events")
                                and x.json()["type"] == "corrected"]) >= 2)
    corrected = [e for e in sub.events(topic(t, "events")) if e["type"] == "corrected"]
    assert [c["data"]["op"] for c in corrected] == ["broken", "declare"]
    assert corrected[1]["data"]["reason"] == "slid by hand"
    svc.stop()
    verify(svc)  # the journal with a sensor marked broken and a declared move replays


def test_pause_and_resume_over_mqtt(open_table: OpenTable) -> None:
    t = "gm-pause"
    _, cmd, sub = open_table(t, "terror")
    cmd.ok("pause", {"reason": "tea"})
    sub.wait_latest(topic(t, "state"), lambda s: (s["gm"]["paused"] or {}).get("reason") == "tea")
    # The summary says so too: the club list shows it from there (it reads no table's state).
    sub.wait_latest(topic(t, "summary"), lambda s: s["paused"] is True)
    refused = cmd.call("act", {"action": {"kind": "roll", "player": 0, "params": {}}})
    assert refused["ok"] is False and "paused" in refused["error"]
    cmd.ok("resume", {})
    sub.wait_latest(topic(t, "state"), lambda s: s["gm"]["paused"] is None)
    sub.wait_latest(topic(t, "summary"), lambda s: s["paused"] is False)
    cmd.ok("act", {"action": {"kind": "roll", "player": 0, "params": {}}})


def test_history_lists_replays_and_exports_with_no_secret(open_table: OpenTable) -> None:
    t = "gm-history"
    # A spectator on all of this table's topics (other tests' tables on the same broker may show their own
    # played cards, which are no secret of this one).
    svc, cmd, spy = open_table(t, "terror", {"referee.board": "manual", "simulate": False},
                               watch=f"{BASE}/{t}/#")
    rnd = random.Random(3)
    drawn = False
    for _ in range(300):  # until a card is drawn and held: a secret the history must keep
        state = state_of(svc)
        if state["over"] or not state["legal"]:
            break
        action = rnd.choice(state["legal"])
        cmd.ok("act", {"action": action})
        held = svc.call(lambda s: [c["id"] for seat in range(2)
                                   for p in s.referee.game.player_view(seat)["you"]["pawns"]
                                   for c in p["cards"]])
        if held:
            drawn = True
            break
    assert drawn, "no card was drawn in 300 moves"
    games = cmd.call("history", {"op": "games"})
    assert games["ok"] is True, games
    [game] = games["data"]["games"]
    assert game["players"] == ["Player 1", "Player 2"] and game["in_progress"] is True
    assert game["moves"] > 0 and game["mismatches"] == 0
    steps = cmd.call("history", {"op": "steps", "game_id": game["game_id"]})["data"]["steps"]
    assert steps[0]["kind"] == "new_game" and len(steps) > 3
    last = len(steps) - 1
    board = cmd.call("history", {"op": "board", "game_id": game["game_id"], "step": last})["data"]
    assert board["view"] == state_of(svc)["view"] and board["hands"] is None
    first = cmd.call("history", {"op": "board", "game_id": game["game_id"], "step": 0})["data"]
    assert first["view"]["tombs"] == {"mummy": "middle", "monster": "middle", "wolf": "middle"}
    jsonl = cmd.call("history", {"op": "export", "game_id": game["game_id"], "format": "jsonl"})["data"]
    lines = [json.loads(x) for x in jsonl["content"].splitlines()]
    assert lines[0]["record"] == "game" and len(lines) == len(steps) + 1
    text = cmd.call("history", {"op": "export", "game_id": game["game_id"], "format": "text"})["data"]
    assert text["content"].startswith("Terror in the Graveyard: Player 1, Player 2")
    sensors = cmd.call("history", {"op": "sensors"})
    assert sensors["ok"] is True and sensors["data"]["sensors"] == []  # a manual board senses nothing
    bad = cmd.call("history", {"op": "board", "game_id": game["game_id"], "step": 10_000})
    assert bad["ok"] is False and "steps 0 to" in bad["error"]
    unknown = cmd.call("history", {"op": "steps", "game_id": "nope"})
    assert unknown["ok"] is False and "no game" in unknown["error"]
    held = svc.call(lambda s: [c["id"] for seat in range(2)
                               for p in s.referee.game.player_view(seat)["you"]["pawns"]
                               for c in p["cards"]])
    seen = "\n".join(m.payload.decode("utf-8", "replace") for m in spy.messages
                     if "/private/" not in m.topic and "/cmd/" not in m.topic)
    assert '"secret"' not in seen
    for card in held:
        assert f'"{card}"' not in seen, f"the held card {card} crossed the broker in clear"


def drive_to_challenge(svc: Service, cmd: Commander) -> dict[str, Any]:
    """Play the last legal move until the game waits for a peg to be pulled (as the referee tests do)."""
    for _ in range(300):
        state = state_of(svc)
        if state["expects"] and state["expects"][0]["kind"] == "peg_pull":
            return state
        assert state["legal"], state["waiting_for"]
        cmd.ok("act", {"action": state["legal"][-1]})
    raise AssertionError("no challenge within 300 moves")


def test_pause_holds_a_running_trap_window_and_resume_lets_it_run_out(open_table: OpenTable) -> None:
    t = "gm-window"
    svc, cmd, sub = open_table(t, "superstition", {"referee.trap_window_ms": 600})
    state = drive_to_challenge(svc, cmd)
    trap = next(iter(state["expects"][0]["accepts"])).rsplit(".", 1)[0]
    cmd.ok("sim", {"sensor": f"{trap}.peg_a", "value": "pulled"})
    sub.wait_latest(topic(t, "state"), lambda s: s["expects"] and s["expects"][0]["kind"] == "trap_outcome")
    cmd.ok("pause", {"reason": "a knock at the door"})
    paused = sub.wait_latest(topic(t, "state"), lambda s: s["gm"]["paused"] is not None)
    seq = paused["seq"]
    # Three windows' time: a running window would have run out ("sneaked by") long before.
    _sleepless_wait(sub, 1.8)
    held = state_of(svc)
    assert held["expects"][0]["kind"] == "trap_outcome" and held["seq"] == seq
    cmd.ok("resume", {})
    done = sub.wait_latest(topic(t, "state"), lambda s: not s["expects"]
                           or s["expects"][0]["kind"] != "trap_outcome", timeout=5)
    assert done["gm"]["paused"] is None
    types = [e["type"] for e in sub.events(topic(t, "events"))]
    assert types.index("paused") < types.index("resumed") < types.index("challenge_resolved")


def _sleepless_wait(sub: Subscriber, seconds: float) -> None:
    """Wait ``seconds`` on the subscriber's condition (nothing should arrive): no bare sleep."""
    try:
        sub.wait_for(lambda msgs: any(m.topic.endswith("/events") and m.json().get("type") == "challenge_resolved"
                                      for m in msgs), timeout=seconds)
    except AssertionError:
        return  # nothing was resolved while paused, as it must be
    raise AssertionError("the trap's window ran out while the game was paused")


def test_end_a_window_and_trust_the_board_over_mqtt(open_table: OpenTable) -> None:
    t = "gm-window-end"
    svc, cmd, sub = open_table(t, "superstition", {"referee.trap_window_ms": 60000})
    state = drive_to_challenge(svc, cmd)
    trap = next(iter(state["expects"][0]["accepts"])).rsplit(".", 1)[0]
    cmd.ok("sim", {"sensor": f"{trap}.peg_b", "value": "pulled"})
    outcome = sub.wait_latest(topic(t, "state"), lambda s: s["expects"]
                              and s["expects"][0]["kind"] == "trap_outcome")["expects"][0]
    zapped = next(iter(next(iter(outcome["accepts"].values())).values()))
    reply = cmd.call("correct", {"op": "end_window", "action": zapped,
                                 "reason": "it sprang; the switch under it is bent"})
    assert reply["ok"] is True, reply
    assert [e["type"] for e in reply["data"]["events"]][0] == "corrected"
    refused = cmd.call("correct", {"op": "trust_board", "reason": "x"})
    assert refused["ok"] is False and "nothing to take from it" in refused["error"]
    t = "gm-trust"
    _, cmd, sub = open_table(t, "terror")
    cmd.ok("sim", {"sensor": "tomb.mummy", "value": "end_b"})
    sub.wait_latest(topic(t, "state"), lambda s: (s["mismatch"] or {}).get("code") == "tomb_not_rolled")
    reply = cmd.call("correct", {"op": "trust_board", "reason": "our board starts that way"})
    assert reply["ok"] is True, reply
    state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
    assert state["view"]["tombs"]["mummy"] == "end_b"


def test_a_history_answer_too_big_for_the_broker_is_refused_with_the_way_to_read_it(
        open_table: OpenTable, monkeypatch: Any) -> None:
    from controller.service import gm_commands

    t = "gm-big"
    _, cmd, _ = open_table(t, "terror")
    cmd.ok("history", {"op": "games"})
    monkeypatch.setattr(gm_commands, "MAX_HISTORY_REPLY_BYTES", 64)
    reply = cmd.call("history", {"op": "games"})
    assert reply["ok"] is False and "too big to send" in reply["error"] and "gravekeeper replay" in reply["error"]


def test_trust_the_board_for_superstitions_traps_over_mqtt_and_its_refusals(
        open_table: OpenTable, capsys: Any) -> None:
    from controller.cli import main

    t = "gm-trust-traps"
    svc, cmd, sub = open_table(t, "superstition", {"referee.trap_window_ms": 60000})
    state = drive_to_challenge(svc, cmd)
    trap = next(iter(state["expects"][0]["accepts"])).rsplit(".", 1)[0]
    name = trap.split(".")[1]
    other = next(x for x in ("ladder", "mirror", "grave1", "grave2") if x != name)
    # Refused: a peg pulled on a trap nobody challenges.
    cmd.ok("sim", {"sensor": f"trap.{other}.peg_a", "value": "pulled"})
    sub.wait_latest(topic(t, "state"), lambda s: f"trap.{other}.peg_a" in ((s["mismatch"] or {}).get("sensors") or {}))
    refused = cmd.call("correct", {"op": "trust_board", "reason": "trust it"})
    assert refused["ok"] is False and "nobody is challenging the" in refused["error"], refused
    cmd.ok("sim", {"sensor": f"trap.{other}.peg_a", "value": "in"})
    sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
    # Peg A was read; the board shows peg B out: trusted, with who, why and when.
    cmd.ok("sim", {"sensor": f"{trap}.peg_a", "value": "pulled"})
    sub.wait_latest(topic(t, "state"), lambda s: s["expects"] and s["expects"][0]["kind"] == "trap_outcome")
    cmd.ok("sim", {"sensor": f"{trap}.peg_a", "value": "in"})
    cmd.ok("sim", {"sensor": f"{trap}.peg_b", "value": "pulled"})
    sub.wait_latest(topic(t, "state"), lambda s: set((s["mismatch"] or {}).get("sensors") or {})
                    == {f"{trap}.peg_a", f"{trap}.peg_b"})
    no_reason = cmd.call("correct", {"op": "trust_board"})
    assert no_reason["ok"] is False and "reason" in no_reason["error"]
    unsigned = cmd.call("correct", {"op": "trust_board", "reason": "x"}, sign=False)
    assert unsigned["ok"] is False and unsigned["error"].startswith("not authorised")
    reply = cmd.call("correct", {"op": "trust_board", "reason": "peg A's switch misread"})
    assert reply["ok"] is True, reply
    assert [e["type"] for e in reply["data"]["events"]][:2] == ["corrected", "peg_pulled"]
    state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
    assert state["expects"][0]["kind"] == "trap_outcome"
    corrected = next(e for e in sub.events(topic(t, "events")) if e["type"] == "corrected")
    assert corrected["data"]["op"] == "trust_board" and corrected["data"]["by"] == "referee"
    assert corrected["data"]["reason"] == "peg A's switch misread" and isinstance(corrected["time"], float)
    cmd.ok("sim", {"sensor": f"{trap}.sprung", "value": "sprung"})
    sub.wait_for(lambda m: any(x.topic == topic(t, "events") and x.json()["type"] == "challenge_resolved"
                               for x in m))
    resolved = next(e for e in sub.events(topic(t, "events")) if e["type"] == "challenge_resolved")
    assert resolved["data"]["peg"] == "b"
    svc.stop()
    assert main(["replay", svc.config.journal.path, "--verify"]) == 0
    assert capsys.readouterr().out.startswith("verified:")


def test_trust_the_board_is_refused_for_the_dogs_game_over_mqtt(open_table: OpenTable) -> None:
    t = "gm-trust-dogs"
    svc, cmd, _ = open_table(t, "dogs")
    seq = state_of(svc)["seq"]
    refused = cmd.call("correct", {"op": "trust_board", "reason": "trust it"})
    assert refused["ok"] is False and "no piece of Graveyard Dogs is read by a sensor" in refused["error"]
    assert state_of(svc)["seq"] == seq


def test_every_game_master_command_is_refused_without_a_token_a_reason_or_the_rules_leave(
        open_table: OpenTable) -> None:
    """No token, no reason, or what the rules forbid: each refused with why, and nothing journalled."""
    t = "gm-refusals"
    svc, cmd, sub = open_table(t, "terror")
    tomb = roll(cmd, sub, t)
    other = next(x for x in ("mummy", "monster", "wolf") if x != tomb)
    move = {"kind": "move_tomb", "player": 0, "params": {"tomb": tomb, "to": "end_a"}}
    window = {"kind": "skull_outcome", "player": 0, "params": {"hit": True}}
    seq = state_of(svc)["seq"]
    corrections = {"declare": {"action": move}, "end_window": {"action": window}, "trust_board": {},
                   "broken": {"sensor": f"tomb.{tomb}"}}
    for op, fields in corrections.items():
        unsigned = cmd.call("correct", {"op": op, "reason": "x", **fields}, sign=False)
        assert unsigned["ok"] is False and unsigned["error"].startswith("not authorised"), (op, unsigned)
        for reason in ({}, {"reason": "  "}):
            no_reason = cmd.call("correct", {"op": op, **reason, **fields})
            assert no_reason["ok"] is False and "say why" in no_reason["error"], (op, no_reason)
    for name, body in (("undo", {}), ("pause", {"reason": "x"}), ("resume", {}),
                       ("undo_answer", {"seat": 0, "approve": True})):
        unsigned = cmd.call(name, body, sign=False)
        assert unsigned["ok"] is False and unsigned["error"].startswith("not authorised"), (name, unsigned)
    forbidden = {
        ("correct", "declare"): ({"action": {**move, "params": {"tomb": other, "to": "end_a"}}},
                                 "the board cannot do that now"),
        ("correct", "end_window"): ({"action": window}, "no waiting window is open"),
        ("correct", "trust_board"): ({}, "nothing to take from it"),
        ("correct", "broken"): ({"sensor": "tomb.nowhere"}, "there is no such sensor on this board"),
        ("undo", None): ({}, "undo stops at"),
        ("resume", None): ({}, "not paused"),
        ("undo_answer", None): ({"seat": 0, "approve": False}, "no player has asked"),
    }
    for (name, op), (fields, why) in forbidden.items():
        body = {**({"op": op, "reason": "the referee says so"} if op else {}), **fields}
        reply = cmd.call(name, body)
        assert reply["ok"] is False and why in reply["error"], (name, op, reply)
    # A sensor that is not there is answered in words; its id comes back in the data, for the script.
    nowhere = cmd.call("correct", {"op": "broken", "reason": "x", "sensor": "tomb.nowhere"})
    assert "tomb.nowhere" not in nowhere["error"] and nowhere["data"] == {"op": "broken", "sensor": "tomb.nowhere"}
    assert state_of(svc)["seq"] == seq and state_of(svc)["gm"]["out_of_service"] == []
    svc.stop()
    with Journal(svc.config.journal.path, table=t, create=False) as journal:
        assert [e for e in journal.inputs() if e["kind"] == "gm"] == []  # nothing refused was journalled


def test_a_new_game_sets_the_virtual_board_up_with_no_mismatch(open_table: OpenTable) -> None:
    # A game night: after a game, the next one on the virtual board started with a mismatch, because the
    # simulated board kept the last game's positions. It is set up for the game it starts, as players do.
    t = "gm-setup"
    svc, cmd, sub = open_table(t, "terror", {"referee.mismatch_grace_ms": 3000})
    tomb = roll(cmd, sub, t)
    cmd.ok("sim", {"sensor": f"tomb.{tomb}", "value": "end_a"})
    sub.wait_latest(topic(t, "sensors"), lambda s: s["sensors"][f"tomb.{tomb}"]["value"] == "end_a")
    reply = cmd.call("new_game", {"game": "terror", "players": ["Ann", "Bo"]})
    assert reply["ok"], reply
    assert "mismatch" not in [e["type"] for e in reply["data"]["events"]]
    sub.wait_latest(topic(t, "sensors"), lambda s: s["sensors"][f"tomb.{tomb}"]["value"] == "middle")
    # The board matches the new game: the referee holds nothing pending, and said no mismatch.
    settled = threading.Event()
    for _ in range(100):  # up to 5 s: the worker decides the observation the sensors topic already shows
        if not svc.call(lambda s: s.referee.core.pending):
            settled.set()
            break
        settled.wait(0.05)
    assert settled.is_set(), "the referee still waits on the board"
    state = state_of(svc)
    assert state["mismatch"] is None and not svc.call(lambda s: s.referee.core.pending)
    started = next(e["seq"] for e in sub.events(topic(t, "events")) if e["type"] == "game_started"
                   and e["seq"] > 1)
    assert not [e for e in sub.events(topic(t, "events")) if e["seq"] > started and e["type"] == "mismatch"]
    verify(svc)
