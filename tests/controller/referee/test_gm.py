"""The game master on a referee with a sensed board: undo and the board, corrections, pause, replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.games.base import Action
from controller.referee.live import Referee
from controller.referee.live_gm import game_master
from tests.controller.referee.test_fakegame import Clock, make_referee, obs, types
from tests.controller.referee.test_games import (
    TERROR_REST,
    seed_rolling,
)


@pytest.fixture
def terror(tmp_path: Path) -> tuple[Referee, Clock]:
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    assert ref.reconcile(TERROR_REST).ok
    assert ref.new_game("terror", ["Ann", "Bo"], seed=seed_rolling("wolf")).ok
    return ref, clock




def gm(ref: Referee, op: str, **fields: Any) -> Any:
    return game_master(ref, op, fields)


def left_ms(ref: Referee) -> int | None:
    """What the state says is left of the open window (None: no window is being timed)."""
    return ref.state()["expects"][0].get("left_ms")


def challenged(ref: Referee) -> str:
    return next(iter(ref.state()["expects"][0]["accepts"])).rsplit(".", 1)[0]


def verify_replay(ref: Referee, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The journal replays to every recorded event, and a restart gives the identical state."""
    saved = ref.state()
    ref.journal.close()
    assert main(["replay", str(tmp_path / "t1.journal"), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("verified:")
    again = make_referee(tmp_path, Clock())
    assert again.state() == saved
    again.journal.close()


# ----- undo -----------------------------------------------------------------------------------
def test_undo_a_board_move_asks_for_the_piece_back_then_takes_it_again(
        terror: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = terror
    assert ref.act(Action("roll", 0)).ok
    assert ref.observe(obs("tomb.wolf", "end_a")).ok
    assert ref.game is not None and ref.game.expected_board()["tomb.wolf"] == "end_a"
    assert ref.state()["gm"]["undo"]["steps"] == 1
    out = gm(ref, "undo", reason="slid by mistake")
    assert out.ok, out.error
    assert types(out.events) == ["undone", "mismatch"]
    undone = out.events[0]["data"]
    assert undone["by"] == "referee" and undone["reason"] == "slid by mistake"
    assert undone["put_back"] == ["Slide the Wolf tomb back to the middle."]
    state = ref.state()
    assert state["mismatch"]["code"] == "undo"
    assert state["mismatch"]["guidance"] == "Slide the Wolf tomb back to the middle."
    assert state["legal"] == []  # play holds until the board is back
    # The tomb on its way back is not news; back in the middle, the mismatch clears and nothing is taken.
    assert ref.observe(obs("tomb.wolf", "moving")).events == []
    assert types(ref.observe(obs("tomb.wolf", "middle")).events) == ["mismatch_cleared"]
    assert ref.game.expected_board()["tomb.wolf"] == "middle"
    assert ref.state()["waiting_for"].startswith("Slide the Wolf tomb one position")
    # Redo on the board: the same move, the same game.
    assert ref.observe(obs("tomb.wolf", "end_b")).events
    assert ref.game.expected_board()["tomb.wolf"] == "end_b"
    verify_replay(ref, tmp_path, capsys)


def test_undo_stops_at_the_dice(terror: tuple[Referee, Clock]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    out = gm(ref, "undo")
    assert not out.ok and "undo stops at" in str(out.error) and "rolled dice" in str(out.error)
    assert ref.state()["gm"]["undo"]["stops_at"].startswith("Ann")


def test_player_request_approved_and_declined(terror: tuple[Referee, Clock]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    ref.observe(obs("tomb.wolf", "end_a"))
    out = gm(ref, "undo_request", seat=0)
    assert out.ok and types(out.events) == ["undo_requested"]
    assert ref.state()["gm"]["undo_request"]["player"] == "Ann"
    out = gm(ref, "undo_decline", reason="the tomb stays")
    assert out.ok and types(out.events) == ["undo_declined"] and ref.state()["gm"]["undo_request"] is None
    assert gm(ref, "undo_request", seat=0).ok
    out = gm(ref, "undo", request=0)
    assert out.ok and out.events[0]["data"]["requested_by"] == "Ann"


# ----- corrections -------------------------------------------------------------------------------
def test_every_correction_needs_a_reason(terror: tuple[Referee, Clock]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    seq = ref.journal.last_seq()
    for op, fields in [("declare", {"action": Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"}).to_json()}),
                       ("trust_board", {}), ("broken", {"sensor": "tomb.wolf"}),
                       ("end_window", {"action": {"kind": "skull_outcome", "player": 0, "params": {"hit": True}}})]:
        for reason in (None, "   "):
            out = gm(ref, op, reason=reason, **fields)
            assert not out.ok and "reason" in str(out.error), (op, out)
    assert ref.journal.last_seq() == seq  # nothing recorded


def test_declare_what_the_board_did_when_a_sensor_missed_it(
        terror: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    wrong = gm(ref, "declare", action=Action("move_tomb", 0, {"tomb": "mummy", "to": "end_a"}).to_json(),
               reason="reed switch")
    assert not wrong.ok and "the board cannot do that now" in str(wrong.error)
    out = gm(ref, "declare", action=Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"}).to_json(),
             reason="the Wolf reed switch missed it")
    assert out.ok, out.error
    assert types(out.events)[:2] == ["corrected", "tomb_moved"]
    corrected = out.events[0]["data"]
    assert corrected["op"] == "declare" and corrected["reason"] == "the Wolf reed switch missed it"
    assert corrected["by"] == "referee" and corrected["sensors"] == ["tomb.wolf"]
    assert ref.mismatch is None and ref.game is not None and ref.game.expected_board()["tomb.wolf"] == "end_a"
    verify_replay(ref, tmp_path, capsys)


def test_trust_the_board_where_the_rules_allow(terror: tuple[Referee, Clock]) -> None:
    ref, clock = terror
    ref.observe(obs("tomb.mummy", "end_b"))  # moved with no roll
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "tomb_not_rolled"
    out = gm(ref, "trust_board", reason="we set it up that way")
    assert out.ok, out.error
    assert "corrected" in types(out.events) and "mismatch_cleared" in types(out.events)
    assert ref.game is not None and ref.game.expected_board()["tomb.mummy"] == "end_b"
    assert ref.state()["gm"]["undo"]["steps"] == 0  # the board's position cannot be replayed as a move


def test_trust_the_board_refused_where_the_rules_forbid(terror: tuple[Referee, Clock]) -> None:
    ref, clock = terror
    ref.act(Action("roll", 0))
    ref.observe(obs("tomb.wolf", "moving"))
    ref.reconcile({**TERROR_REST, "tomb.wolf": "end_a", "launcher": "launched"})
    assert ref.mismatch is not None
    seq = ref.journal.last_seq()
    out = gm(ref, "trust_board", reason="trust it")
    assert not out.ok and "the rules do not allow the board as it stands" in str(out.error)
    assert ref.journal.last_seq() == seq
    assert ref.reconcile({**TERROR_REST, "tomb.wolf": "middle"}).ok
    assert ref.mismatch is None
    out = gm(ref, "trust_board", reason="nothing to trust")
    assert not out.ok and "nothing to take from it" in str(out.error)


def test_a_sensor_marked_broken_is_entered_by_hand_for_the_rest_of_the_game(
        terror: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    refused = ref.act(Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"}))
    assert not refused.ok and "the table's sensors report this move" in str(refused.error)
    out = gm(ref, "broken", sensor="tomb.wolf", reason="its switch is loose")
    assert out.ok and out.events[0]["data"]["sensor"] == "tomb.wolf"
    assert ref.state()["gm"]["out_of_service"][0]["label"] == "the Wolf tomb"
    assert {"kind": "move_tomb", "player": 0, "params": {"tomb": "wolf", "to": "end_a"}} in ref.state()["legal"]
    assert ref.observe(obs("tomb.wolf", "end_b")).events == []  # its readings no longer count
    assert ref.act(Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"})).ok
    assert ref.mismatch is None
    again = gm(ref, "broken", sensor="tomb.wolf", reason="twice")
    assert not again.ok and "already out of service" in str(again.error)
    unknown = gm(ref, "broken", sensor="tomb.nope", reason="x")
    assert not unknown.ok and unknown.error == "there is no such sensor on this board"  # in words, never its id
    verify_replay(ref, tmp_path, capsys)


def test_end_a_window_with_the_outcome_the_referee_saw(
        superstition: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = superstition
    trap = challenged(ref)
    name = trap.split(".")[1]
    early = gm(ref, "end_window", action={"kind": "challenge_result", "player": 0,
                                          "params": {"trap": name, "zapped": True}}, reason="x")
    assert not early.ok and "no waiting window is open" in str(early.error)
    assert ref.observe(obs(f"{trap}.peg_a", "pulled")).ok
    assert ref.state()["expects"][0]["kind"] == "trap_outcome"
    seat = ref.state()["expects"][0]["player"]
    wrong = gm(ref, "end_window", action={"kind": "roll", "player": seat, "params": {}}, reason="x")
    assert not wrong.ok and "not an outcome of the open window" in str(wrong.error)
    out = gm(ref, "end_window", action={"kind": "challenge_result", "player": seat,
                                        "params": {"trap": name, "zapped": True}},
             reason="the trap sprang, its sensor did not see it")
    assert out.ok, out.error
    assert types(out.events)[0] == "corrected" and "challenge_resolved" in types(out.events)
    assert ref.state()["expects"][0]["kind"] == "trap_reset"
    verify_replay(ref, tmp_path, capsys)


# ----- pause -----------------------------------------------------------------------------------
def test_pause_stops_a_running_window_and_resume_goes_on_from_there(
        superstition: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, clock = superstition
    trap = challenged(ref)
    ref.observe(obs(f"{trap}.peg_b", "pulled"))
    window = 1.5 + ref.window_late_s
    assert left_ms(ref) == 1500 and isinstance(ref.state()["time"], float)
    clock.advance(1000)  # a second of the window gone
    assert left_ms(ref) == 500  # what a page opened now counts down from, not the whole window
    out = gm(ref, "pause", reason="phone call")
    assert out.ok and types(out.events) == ["paused"]
    clock.advance(5000)
    assert left_ms(ref) == 500  # it stands still while paused
    assert ref.state()["gm"]["paused"]["reason"] == "phone call"
    assert ref.state()["waiting_for"].startswith("The game is paused")
    assert ref.next_deadline() is None
    clock.advance(60_000)  # a long pause: the window does not run out
    assert ref.tick() is None
    refused = ref.act(Action("end_turn", 0))
    assert not refused.ok and "paused" in str(refused.error)
    assert ref.state()["legal"] == []
    assert not gm(ref, "pause").ok  # already paused
    out = gm(ref, "resume")
    assert out.ok and types(out.events) == ["resumed"] and "paused_s" in out.events[0]["data"]
    left = ref.next_deadline()
    assert left is not None and abs(left - (window - 1.0)) < 1e-6  # what it had left, not the whole window
    assert left_ms(ref) == 500  # the resume's state: the same time left, running again
    clock.advance(200)
    assert left_ms(ref) == 300
    clock.advance((window - 1.0) * 1000 - 201)
    assert ref.tick() is None
    clock.advance(2)
    late = ref.tick()
    assert late is not None and any(e["data"].get("zapped") is False for e in late.events)
    assert not gm(ref, "resume").ok  # not paused
    verify_replay(ref, tmp_path, capsys)


def test_a_board_move_while_paused_is_judged_at_resume(terror: tuple[Referee, Clock]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    assert gm(ref, "pause").ok
    assert ref.observe(obs("tomb.wolf", "end_a")).events == []
    assert ref.game is not None and ref.game.expected_board()["tomb.wolf"] == "middle"
    out = gm(ref, "resume")
    assert out.ok and "tomb_moved" in types(out.events)


def test_a_restart_while_paused_stays_paused_and_the_window_starts_afresh_at_resume(
        superstition: tuple[Referee, Clock], tmp_path: Path) -> None:
    ref, clock = superstition
    trap = challenged(ref)
    ref.observe(obs(f"{trap}.peg_a", "pulled"))
    clock.advance(1000)
    assert gm(ref, "pause", reason="power cut coming").ok
    ref.journal.close()
    again = make_referee(tmp_path, clock, settings={"referee.trap_window_ms": 1500})
    assert again.state()["gm"]["paused"]["reason"] == "power cut coming"
    assert again.next_deadline() is None
    assert left_ms(again) == 1500  # the window starts afresh at the resume, and the state says so
    clock.advance(30_000)
    assert again.tick() is None
    assert gm(again, "resume").ok
    left = again.next_deadline()
    assert left is not None and abs(left - (1.5 + again.window_late_s)) < 1e-6  # the whole window again
    again.journal.close()


def test_home_assistant_knows_every_event_the_game_master_emits() -> None:
    import re

    import controller.referee.gm as gm_core
    from controller.mqtt.homeassistant import COMMON_EVENTS

    source = Path(gm_core.__file__).read_text()
    emitted = set(re.findall(r'_event\("([a-z_]+)"', source)) | {"corrected"}
    assert emitted >= {"undone", "undo_requested", "undo_declined", "paused", "resumed", "mismatch"}
    assert emitted <= set(COMMON_EVENTS), sorted(emitted - set(COMMON_EVENTS))


def test_pause_holds_a_tomb_between_positions_and_resume_gives_it_the_grace_it_had_left(tmp_path: Path) -> None:
    """The tomb window: a slider on its way has a grace period; a pause stops it where it stood."""
    clock = Clock()
    ref = make_referee(tmp_path, clock, settings={"referee.tomb_grace_ms": 1000})
    assert ref.reconcile(TERROR_REST).ok
    assert ref.new_game("terror", ["Ann", "Bo"], seed=seed_rolling("wolf")).ok
    assert ref.act(Action("roll", 0)).ok
    assert ref.observe(obs("tomb.wolf", "moving")).events == []  # on its way: no mismatch yet
    left = ref.next_deadline()
    assert left is not None and abs(left - 1.0) < 1e-6
    clock.advance(400)
    assert gm(ref, "pause", reason="the cat is on the board").ok
    assert ref.next_deadline() is None
    clock.advance(120_000)
    assert ref.tick() is None and ref.mismatch is None  # stood still: not a mismatch
    assert ref.state()["grace"] is None  # no countdown runs on the pages while paused
    assert gm(ref, "resume").ok
    left = ref.next_deadline()
    assert left is not None and abs(left - 0.6) < 1e-6  # the 600 ms it had left, not the whole grace
    assert ref.state()["grace"]["window_ms"] == 600  # and the pages count down from there
    clock.advance(599)
    assert ref.tick() is None
    clock.advance(2)
    late = ref.tick()
    assert late is not None and ref.mismatch is not None and ref.mismatch["code"] == "tomb_moving"


def drive_to_skull_window(ref: Referee) -> None:
    """Play Terror (tomb slides on the board, the rest as commands) until the skull's window is open."""
    import random

    from tests.web_panel.pages.test_e2e_games import terror_policy

    for seed in range(40):
        assert ref.new_game("terror", ["Ann", "Bo"], seed=seed).ok
        rnd = random.Random(seed)
        for _ in range(600):
            state = ref.state()
            if state["over"] or state["mismatch"]:
                break
            if state["expects"] and state["expects"][0]["kind"] == "skull_outcome":
                return
            assert ref.game is not None
            action = terror_policy(ref.game, rnd)
            if action.kind == "move_tomb":
                out = ref.observe(obs(f"tomb.{action.params['tomb']}", action.params["to"]))
            else:
                out = ref.act(action)
            assert out.ok, (action, out.error)
    raise AssertionError("no skull attempt in 40 games")


def test_pause_holds_the_skull_window_and_resume_lets_it_run_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    ref = make_referee(tmp_path, clock, settings={"referee.skull_window_ms": 1500})
    assert ref.reconcile(TERROR_REST).ok
    drive_to_skull_window(ref)
    window = 1.5 + ref.window_late_s
    left = ref.next_deadline()
    assert left is not None and abs(left - window) < 1e-6
    clock.advance(500)
    assert gm(ref, "pause", reason="the skull rolled under the sofa").ok
    assert ref.next_deadline() is None
    clock.advance(90_000)
    assert ref.tick() is None
    assert ref.state()["expects"][0]["kind"] == "skull_outcome"  # still waiting: no miss while paused
    assert gm(ref, "resume").ok
    left = ref.next_deadline()
    assert left is not None and abs(left - (window - 0.5)) < 1e-6
    clock.advance((window - 0.5) * 1000 - 1)
    assert ref.tick() is None
    clock.advance(2)
    missed = ref.tick()
    assert missed is not None and "skull_missed" in [e["type"] for e in missed.events]
    verify_replay(ref, tmp_path, capsys)
