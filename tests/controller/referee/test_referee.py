"""The referee with the fake game: board moves, mismatches, windows, commands, views."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Action
from controller.referee.live import Referee
from controller.referee.replay import replay
from controller.store.journal import Journal, JournalError
from tests.controller.referee.test_fakegame import (
    REST,
    Clock,
    make_config,
    make_referee,
    obs,
    types,
)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ref(tmp_path: Path, clock: Clock) -> Referee:
    r = make_referee(tmp_path, clock)
    assert r.reconcile(REST).ok
    out = r.new_game("fakeboard", ["Ann", "Bo"], seed=3)
    assert out.ok, out.error
    return r


@pytest.fixture
def strict(tmp_path: Path, clock: Clock) -> Referee:
    """A one-player table whose mismatches are reported at once (a grace of 0 ms)."""
    r = make_referee(tmp_path, clock, settings={"referee.mismatch_grace_ms": 0})
    r.reconcile(REST)
    r.new_game("fakeboard", ["Ann"], seed=5)
    return r


def late_ms(ref: Referee) -> float:
    """How long past its end a window waits for edges that began before the end (see Referee)."""
    return ref.window_late_s * 1000


def roll(ref: Referee) -> str:
    assert ref.game is not None
    out = ref.act(Action("roll", ref.game.current_player))
    assert out.ok, out.error
    return str(ref.game.to_json()["rolled"])


def other_tomb(tomb: str) -> str:
    return next(t for t in ("mummy", "monster", "wolf") if t != tomb)


# ----- state shape --------------------------------------------------------------------
def test_state_has_exactly_the_documented_keys_and_no_secret(ref: Referee) -> None:
    state = ref.state()
    assert set(state) == {
        "seq", "table", "game", "game_id", "players", "seats_from", "current_player", "over", "winners", "view",
        "legal", "expects", "waiting_for", "mismatch", "board", "gm", "grace",
    }
    assert state["seq"] == ref.journal.last_seq() == 1
    assert state["game"] == "fakeboard" and state["players"] == ["Ann", "Bo"]
    assert state["board"] == "sensors" and state["mismatch"] is None
    assert state["waiting_for"] == "Ann to play: roll, attempt, challenge or pass."  # public kinds only, no "peek"
    text = json.dumps(state)
    assert "secrets" not in text and "seed" not in text and "rng" not in text
    assert {"kind": "peek", "player": 0, "params": {}} not in state["legal"]  # a secret-revealing kind


def test_private_views_hold_each_seats_secret_only(ref: Referee) -> None:
    assert ref.game is not None
    views = ref.private_views()
    assert set(views) == {0, 1}
    for seat, view in views.items():
        assert view["seat"] == seat and view["game_id"] == ref.game_id
        assert view["view"]["secret"] == ref.game.to_json()["secrets"][seat]
    assert {"kind": "peek", "player": 0, "params": {}} in views[0]["legal"]
    assert all(a["player"] == 1 for a in views[1]["legal"])


def test_secret_event_parts_never_reach_public_events(ref: Referee) -> None:
    out = ref.act(Action("peek", 0))
    assert out.ok and types(out.events) == ["peeked"]
    assert "secret" not in out.events[0] and "private_to" not in out.events[0]
    assert ref.journal.events_after(0)[-1] == out.events[0]


# ----- the rolled tomb ------------------------------------------------------------------
def test_rolled_tomb_moving_one_position_is_applied(ref: Referee) -> None:
    tomb = roll(ref)
    state = ref.state()
    assert state["waiting_for"] == f"Slide the {tomb} tomb one position."
    assert all(a["kind"] != "move_tomb" for a in state["legal"])  # the board moves tombs in sensors mode
    out = ref.observe(obs(f"tomb.{tomb}", "moving"))
    assert out.ok and out.events == []
    out = ref.observe(obs(f"tomb.{tomb}", "end_b"))
    assert types(out.events) == ["tomb_moved"]
    assert out.events[0]["data"] == {"tomb": tomb, "to": "end_b"}
    assert ref.game is not None and ref.game.current_player == 1
    assert [e["seq"] for e in ref.journal.events_after(0)] == [1, 2, 3]


def test_wrong_tomb_holds_play_until_put_back(ref: Referee, clock: Clock) -> None:
    tomb = roll(ref)
    wrong = other_tomb(tomb)
    out = ref.observe(obs(f"tomb.{wrong}", "end_a"))
    assert out.events == [] and ref.mismatch is None  # within the grace: sensors settle in any order
    clock.advance(299)
    assert ref.tick() is None
    clock.advance(1)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    mismatch = ref.state()["mismatch"]
    assert mismatch["code"] == "wrong_tomb"
    assert mismatch["guidance"] == (
        f"Put the {wrong.capitalize()} tomb back in the middle: only the {tomb.capitalize()} was rolled."
    )
    assert mismatch["sensors"] == {f"tomb.{wrong}": {"expected": "middle", "actual": "end_a"}}
    assert ref.state()["waiting_for"] == mismatch["guidance"] and ref.state()["legal"] == []
    refused = ref.act(Action("pass", 0))
    assert not refused.ok and "play holds" in str(refused.error) and "only the" in str(refused.error)
    # the rolled tomb is moved meanwhile: held, not taken, while the wrong one is out
    assert ref.observe(obs(f"tomb.{tomb}", "end_a")).events == []
    out = ref.observe(obs(f"tomb.{wrong}", "middle"))
    assert types(out.events) == ["mismatch_cleared", "tomb_moved"]
    assert ref.mismatch is None and ref.game is not None and ref.game.current_player == 1


def test_tomb_moved_with_no_roll_and_two_positions(strict: Referee) -> None:
    ref = strict
    out = ref.observe(obs("tomb.mummy", "end_b"))
    assert types(out.events) == ["mismatch"]  # grace 0: reported at once
    assert ref.mismatch is not None and ref.mismatch["code"] == "tomb_not_rolled"
    assert ref.mismatch["guidance"] == "Put the Mummy tomb back in the middle: a tomb moves only after a roll."
    assert types(ref.observe(obs("tomb.mummy", "middle")).events) == ["mismatch_cleared"]
    # move the rolled tomb to an end, then roll until that tomb comes up again
    tomb = roll(ref)
    ref.observe(obs(f"tomb.{tomb}", "end_a"))
    while (rolled := roll(ref)) != tomb:
        at = ref.core.sensors[f"tomb.{rolled}"]
        assert types(ref.observe(obs(f"tomb.{rolled}", "end_a" if at == "middle" else "middle")).events) == [
            "tomb_moved"
        ]
    out = ref.observe(obs(f"tomb.{tomb}", "end_b"))
    assert ref.mismatch is not None and ref.mismatch["code"] == "tomb_two_positions", ref.mismatch
    assert ref.mismatch["guidance"] == (
        f"Slide the {tomb.capitalize()} tomb back to end A, or one position only: to the middle."
    )
    out = ref.observe(obs(f"tomb.{tomb}", "middle"))
    assert types(out.events) == ["mismatch_cleared", "tomb_moved"]


def test_the_state_shows_what_is_left_of_a_moving_tombs_grace(ref: Referee, clock: Clock) -> None:
    """The panel counts it down (countdown.js), as it does the outcome windows."""
    assert ref.state()["grace"] is None
    tomb = roll(ref)
    ref.observe(obs(f"tomb.{tomb}", "moving"))
    assert ref.state()["grace"] == {"kind": "tomb_moving", "sensors": [f"tomb.{tomb}"], "window_ms": 2000,
                                    "left_ms": 2000}
    clock.advance(1500)
    assert ref.state()["grace"]["window_ms"] == ref.state()["grace"]["left_ms"] == 500
    assert isinstance(ref.state()["time"], float)  # how old it is, for a reader that gets it later
    ref.observe(obs(f"tomb.{tomb}", "end_a"))
    assert ref.state()["grace"] is None


def test_slider_between_positions_gets_the_tomb_grace(ref: Referee, clock: Clock) -> None:
    tomb = roll(ref)
    ref.observe(obs(f"tomb.{tomb}", "moving"))
    clock.advance(1999)
    assert ref.tick() is None and ref.mismatch is None
    clock.advance(1)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "tomb_moving"
    assert "Slide the" in ref.mismatch["guidance"]
    out = ref.observe(obs(f"tomb.{tomb}", "end_a"))
    assert types(out.events) == ["mismatch_cleared", "tomb_moved"]


# ----- skull and launcher ------------------------------------------------------------
def test_skull_hit_wins_and_window_times_out_as_a_miss(ref: Referee, clock: Clock) -> None:
    assert ref.act(Action("attempt", 0)).ok
    clock.advance(999 + late_ms(ref))
    assert ref.tick() is None
    clock.advance(1)
    late = ref.tick()
    assert late is not None and late.ok and types(late.events) == ["skull_result"]
    assert late.events[0]["data"] == {"seat": 0, "hit": False}
    assert ref.act(Action("attempt", 1)).ok
    out = ref.observe(obs("launcher", "launched"))
    assert types(out.events) == ["skull_result"] and out.events[0]["data"]["hit"] is True
    assert ref.state()["over"] and ref.state()["winners"] == [1]
    assert ref.state()["waiting_for"] == "The game is over: Bo won."
    assert not ref.act(Action("pass", 0)).ok


def test_skull_seen_in_the_left_window_is_a_miss(ref: Referee) -> None:
    ref.act(Action("attempt", 0))
    out = ref.observe(obs("chute.left", "blocked"))
    assert types(out.events) == ["skull_result"] and out.events[0]["data"]["hit"] is False
    assert ref.observe(obs("chute.left", "clear")).events == []  # the skull rolled on: no news


def test_ghost_launched_with_no_attempt_is_a_foul_until_rearmed(ref: Referee, clock: Clock) -> None:
    ref.observe(obs("launcher", "launched"))
    clock.advance(300)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "foul_launch"
    assert ref.mismatch["guidance"] == "Put the Headless Ghost back on its launcher."
    assert types(ref.observe(obs("launcher", "armed")).events) == ["mismatch_cleared"]


# ----- traps ------------------------------------------------------------------------------
def test_trap_challenge_zapped_then_reset_in_any_order(ref: Referee) -> None:
    assert ref.act(Action("challenge", 0)).ok
    assert types(ref.observe(obs("trap.ladder.peg_b", "pulled")).events) == ["peg_pulled"]
    out = ref.observe(obs("trap.ladder.sprung", "sprung"))
    assert types(out.events) == ["trap_result"] and out.events[0]["data"]["zapped"] is True
    # resetting in secret: pegs swapped and pushed in, in any order, nothing is a mismatch
    for sensor, value in [("trap.ladder.peg_a", "pulled"), ("trap.ladder.peg_b", "in"),
                          ("trap.ladder.peg_a", "in")]:
        assert ref.observe(obs(sensor, value)).events == []
    out = ref.observe(obs("trap.ladder.sprung", "cocked"))
    assert types(out.events) == ["trap_reset"]
    assert ref.game is not None and ref.game.current_player == 1


def test_trap_not_sprung_within_the_window_is_sneaked_by(ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    clock.advance(1000 + late_ms(ref))
    late = ref.tick()
    assert late is not None and late.events[0]["data"]["zapped"] is False
    out = ref.observe(obs("trap.ladder.peg_a", "in"))
    assert types(out.events) == ["trap_reset"]


def test_sprung_reported_before_the_peg_is_caught_up(ref: Referee) -> None:
    ref.act(Action("challenge", 0))
    assert ref.observe(obs("trap.ladder.sprung", "sprung")).events == []  # pending, not yet a mismatch
    out = ref.observe(obs("trap.ladder.peg_a", "pulled"))
    assert types(out.events) == ["peg_pulled", "trap_result"]
    assert out.events[1]["data"]["zapped"] is True and ref.mismatch is None


def test_both_pegs_pulled_is_a_foul(ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    ref.observe(obs("trap.ladder.peg_b", "pulled"))
    ref.observe(obs("trap.ladder.sprung", "sprung"))  # a foul is never explained away
    clock.advance(300)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "both_pegs"
    assert ref.mismatch["guidance"] == "Push peg B of the Ladder trap back in."
    clock.advance(5000)
    assert ref.tick() is None  # the window does not run out while play holds
    out = ref.observe(obs("trap.ladder.peg_b", "in"))
    assert types(out.events) == ["mismatch_cleared", "trap_result"]


def test_peg_pulled_with_no_challenge(ref: Referee, clock: Clock) -> None:
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "peg_pulled"
    assert ref.mismatch["guidance"] == "Push peg A of the Ladder trap back in."


# ----- commands --------------------------------------------------------------------------
def test_board_moves_are_refused_as_commands_in_sensors_mode(ref: Referee) -> None:
    tomb = roll(ref)
    seq = ref.journal.last_seq()
    out = ref.act(Action("move_tomb", 0, {"tomb": tomb, "to": "end_a"}))
    assert not out.ok and "the table's sensors report this move" in str(out.error) and "manual" in str(out.error)
    assert ref.journal.last_seq() == seq


def test_override_that_makes_the_game_agree_with_the_board_is_accepted(ref: Referee) -> None:
    ref.act(Action("attempt", 0))
    # both outcomes at once (read after a restart): ambiguous, so the referee asks
    out = ref.reconcile({**REST, "launcher": "launched", "chute.left": "blocked"})
    assert types(out.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "ambiguous"
    assert ref.mismatch["message"] == (
        "The board shows two outcomes at once: the left Crypt window (blocked) and "
        "the Headless Ghost's launcher (launched)."
    )
    refused = ref.act(Action("skull", 0, {"hit": False}))
    assert not refused.ok and "play holds" in str(refused.error)
    out = ref.act(Action("skull", 0, {"hit": True}))
    assert out.ok, out.error
    assert types(out.events) == ["skull_result", "mismatch_cleared"]


def test_illegal_and_repeated_commands_change_nothing(ref: Referee) -> None:
    assert ref.game is not None
    before, seq = ref.game.to_json(), ref.journal.last_seq()
    out = ref.act(Action("reset", 0))
    assert not out.ok and "not legal" in str(out.error)
    out = ref.act(Action("pass", 1))
    assert not out.ok
    assert ref.game.to_json() == before and ref.journal.last_seq() == seq
    assert ref.act(Action("pass", 0), command_id="c1").ok
    again = ref.act(Action("pass", 1), command_id="c1")
    assert not again.ok and "already used" in str(again.error)


def test_no_game_and_bad_new_game_are_refused(tmp_path: Path) -> None:
    ref = make_referee(tmp_path)
    out = ref.act(Action("roll", 0))
    assert not out.ok and "no game" in str(out.error)
    assert not ref.new_game("chess", ["A"]).ok
    assert "unknown game" in str(ref.new_game("chess", ["A"]).error)
    assert not ref.new_game("fakeboard", []).ok
    assert not ref.new_game("fakeboard", ["A"], seed=-1).ok
    assert ref.journal.last_seq() == 0
    assert ref.state()["waiting_for"] == "Start a new game."


def test_manual_mode_takes_board_moves_as_commands_and_ignores_sensors(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    ref.new_game("fakeboard", ["Ann"], seed=3)
    tomb = roll(ref)
    ignored = ref.observe(obs(f"tomb.{other_tomb(tomb)}", "end_a"))
    assert ignored.ok and ignored.events == [] and ref.mismatch is None
    assert {"kind": "move_tomb", "player": 0, "params": {"tomb": tomb, "to": "end_a"}} in ref.state()["legal"]
    out = ref.act(Action("move_tomb", 0, {"tomb": tomb, "to": "end_a"}))
    assert out.ok and types(out.events) == ["tomb_moved"]
    ref.act(Action("attempt", 0))
    assert ref.next_deadline() is None and ref.tick() is None  # no windows without sensors


def test_ensure_game_starts_the_configured_game_once(tmp_path: Path) -> None:
    settings = {"table.game": "terror", "table.players": ["Ann", "Bo"], "table.seed": 4}
    ref = make_referee(tmp_path, settings=settings)
    first = ref.ensure_game()
    assert first is not None and first.ok, first and first.error
    assert ref.ensure_game() is None and ref.state()["game"] == "terror"


# ----- journal, restart, reconcile --------------------------------------------------------
def _play_some(ref: Referee) -> str:
    """A tomb move, a trap challenge under way, and a tomb moved wrongly; returns that tomb."""
    tomb = roll(ref)
    ref.observe(obs(f"tomb.{tomb}", "end_a"))
    ref.act(Action("challenge", 1))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    wrong = other_tomb(tomb)
    ref.observe(obs(f"tomb.{wrong}", "end_b"))
    return wrong


def test_restart_restores_state_then_reconcile_reports_changes_while_down(
    tmp_path: Path, ref: Referee, clock: Clock
) -> None:
    wrong = _play_some(ref)
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None
    saved = (ref.game.to_json(), ref.journal.last_seq(), ref.state())  # type: ignore[union-attr]
    sensors = dict(ref.core.sensors)
    ref.journal.close()
    again = make_referee(tmp_path, clock)
    assert (again.game.to_json(), again.journal.last_seq(), again.state()) == saved  # type: ignore[union-attr]
    assert again.core.sensors == sensors
    # while it was down the trap sprang and the mummy went back: both are taken now
    now = {**sensors, "trap.ladder.sprung": "sprung", f"tomb.{wrong}": "middle"}
    out = again.reconcile(now)
    assert types(out.events) == ["mismatch_cleared", "trap_result"]


def test_reconcile_reports_a_board_changed_while_down(tmp_path: Path, ref: Referee) -> None:
    ref.journal.close()
    again = make_referee(tmp_path)
    out = again.reconcile({**REST, "tomb.wolf": "end_b"})
    assert types(out.events) == ["mismatch"] and again.mismatch is not None
    assert again.mismatch["code"] == "tomb_not_rolled"


def test_journal_failure_leaves_the_referee_as_the_journal_says(ref: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ref.game is not None
    before, seq = ref.game.to_json(), ref.journal.last_seq()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(ref.journal, "record_many", broken)
    out = ref.act(Action("roll", 0))
    assert not out.ok and "could not record" in str(out.error) and "disk full" in str(out.error)
    monkeypatch.undo()
    assert ref.game.to_json() == before and ref.journal.last_seq() == seq


def test_manual_restart_drops_a_sensed_mismatch(tmp_path: Path, ref: Referee, clock: Clock) -> None:
    ref.observe(obs("launcher", "launched"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None
    ref.journal.close()
    manual = make_referee(tmp_path, settings={"referee.board": "manual"})
    assert manual.mismatch is None
    assert types(manual.journal.events_after(0))[-1] == "mismatch_cleared"


def test_new_game_checks_the_board_at_setup(tmp_path: Path, clock: Clock) -> None:
    ref = make_referee(tmp_path, clock)
    ref.reconcile({**REST, "tomb.monster": "end_a"})
    out = ref.new_game("fakeboard", ["Ann"], seed=1)
    assert types(out.events) == ["game_started", "mismatch"]
    mismatch = ref.state()["mismatch"]
    assert mismatch["code"] == "setup" and mismatch["message"] == "The board is not set up for the game yet."
    assert mismatch["guidance"] == "Slide the Monster tomb to the middle."
    # more set-up work found meanwhile is worded the same way, all of it at once
    ref.observe(obs("launcher", "launched"))
    ref.observe(obs("trap.ladder.sprung", "sprung"))
    assert ref.state()["mismatch"]["guidance"] == (
        "Put the Headless Ghost on its launcher. Slide the Monster tomb to the middle. Cock the Ladder trap."
    )
    for sensor, value in [("launcher", "armed"), ("trap.ladder.sprung", "cocked")]:
        assert ref.observe(obs(sensor, value)).events[0]["type"] == "mismatch"
    assert types(ref.observe(obs("tomb.monster", "middle")).events) == ["mismatch_cleared"]
    # once the board has matched, a difference is a move again
    ref.observe(obs("tomb.monster", "end_a"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "tomb_not_rolled"


def test_timeout_is_journaled_so_replay_needs_no_clock(tmp_path: Path, ref: Referee, clock: Clock) -> None:
    ref.act(Action("attempt", 0))
    clock.advance(1000 + late_ms(ref))
    ref.tick()
    kinds = [i["kind"] for i in ref.journal.inputs()]
    assert kinds[-1] == "timeout"
    ref.journal.close()
    config = make_config(tmp_path)
    with Journal(config.journal.path, table="t1") as journal:
        again = Referee(journal, config, clock=Clock())
        assert again.game == ref.game


def test_a_part_with_no_sensor_reading_is_played_by_commands(tmp_path: Path, clock: Clock) -> None:
    ref = make_referee(tmp_path, clock)
    unwired = {k: v for k, v in REST.items() if k not in ("launcher", "chute.left")}
    ref.reconcile(unwired)  # this board has no launcher switch and no chute beam
    ref.new_game("fakeboard", ["Ann"], seed=3)
    ref.act(Action("attempt", 0))
    assert {"kind": "skull", "player": 0, "params": {"hit": True}} in ref.state()["legal"]
    clock.advance(60_000)
    assert ref.tick() is None and ref.next_deadline() is None  # no window: the outcome is typed in
    out = ref.act(Action("skull", 0, {"hit": True}))
    assert out.ok and ref.state()["over"]
    # the tombs are wired, so their moves stay the board's
    ref2 = make_referee(tmp_path / "second", clock)
    ref2.reconcile(unwired)
    ref2.new_game("fakeboard", ["Ann"], seed=3)
    tomb = roll(ref2)
    assert not ref2.act(Action("move_tomb", 0, {"tomb": tomb, "to": "end_a"})).ok


def test_next_deadline_says_when_to_tick(ref: Referee, clock: Clock) -> None:
    assert ref.next_deadline() is None
    ref.act(Action("attempt", 0))
    assert ref.next_deadline() == pytest.approx(1.0 + ref.window_late_s)
    clock.advance(400)
    assert ref.next_deadline() == pytest.approx(0.6 + ref.window_late_s)
    ref.observe(obs("tomb.wolf", "end_a"))  # unexplained: the grace is now the nearest deadline
    assert ref.next_deadline() == pytest.approx(0.3)


def test_a_new_game_command_id_is_accepted_once(tmp_path: Path) -> None:
    ref = make_referee(tmp_path)
    assert ref.new_game("fakeboard", ["Ann"], seed=1, command_id="n1").ok
    game_id = ref.game_id
    again = ref.new_game("fakeboard", ["Bo"], seed=2, command_id="n1")
    assert not again.ok and "already used" in str(again.error)
    assert ref.game_id == game_id and ref.journal.has_command("n1")


def test_readings_taken_at_start_settle_in_any_order(tmp_path: Path, ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.journal.close()
    again = make_referee(tmp_path, clock)
    # while the service was down the player pulled a peg and the trap sprang; the hub reports
    # every sensor at start, the trap before the peg
    assert again.observe(obs("trap.ladder.sprung", "sprung", initial=True)).events == []
    out = again.observe(obs("trap.ladder.peg_b", "pulled", initial=True))
    assert types(out.events) == ["peg_pulled", "trap_result"] and again.mismatch is None
    # a difference that stays is reported once its grace is over
    again.observe(obs("tomb.monster", "end_b", initial=True))
    clock.advance(300)
    late = again.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    assert again.mismatch is not None and again.mismatch["code"] == "tomb_not_rolled"


def test_a_bad_reconcile_is_refused_and_changes_nothing(ref: Referee) -> None:
    seq, inputs = ref.journal.last_seq(), sum(1 for _ in ref.journal.inputs())
    for bad in ({"tomb.wolf": "sideways"}, {"tomb.dragon": "middle"}, {"launcher": 3}):
        out = ref.reconcile(bad)
        assert not out.ok and ("cannot be" in str(out.error) or "unknown sensor" in str(out.error))
    assert ref.journal.last_seq() == seq and sum(1 for _ in ref.journal.inputs()) == inputs
    assert ref.reconcile({"tomb.wolf": {"value": "middle"}}).ok  # the hub's snapshot shape is taken too


def test_manual_mode_does_not_journal_sensor_readings(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    ref.new_game("fakeboard", ["Ann"], seed=1)
    inputs = sum(1 for _ in ref.journal.inputs())
    ref.observe(obs("tomb.wolf", "end_a"))
    assert ref.reconcile(REST).data == {"ignored": "referee.board is manual: sensors are not used"}
    assert sum(1 for _ in ref.journal.inputs()) == inputs


def test_a_tomb_reporting_two_positions_is_a_sensor_fault(ref: Referee, clock: Clock) -> None:
    ref.observe(obs("tomb.wolf", "fault"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "sensor_fault"
    assert ref.mismatch["guidance"] == "Check the Wolf tomb's position sensors."
    assert types(ref.observe(obs("tomb.wolf", "middle")).events) == ["mismatch_cleared"]


def test_a_mismatch_that_changes_is_reported_again_and_several_are_joined(ref: Referee, clock: Clock) -> None:
    ref.observe(obs("tomb.wolf", "end_a"))
    clock.advance(300)
    ref.tick()
    out = ref.observe(obs("launcher", "launched"))
    assert types(out.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "foul_launch"  # the foul is named first
    assert ref.mismatch["guidance"] == (
        "Put the Headless Ghost back on its launcher. "
        "Put the Wolf tomb back in the middle: a tomb moves only after a roll."
    )
    since = ref.mismatch["since"]
    assert ref.observe(obs("tomb.mummy", "moving")).events == []  # a tomb passing by while fixing is no news
    out = ref.observe(obs("launcher", "armed"))
    assert types(out.events) == ["mismatch"] and ref.mismatch["code"] == "tomb_not_rolled"
    assert ref.mismatch["since"] == since  # still the same hold


def test_restart_begins_at_the_latest_new_game(tmp_path: Path, ref: Referee, clock: Clock) -> None:
    ref.observe(obs("tomb.wolf", "end_a"))
    clock.advance(300)
    ref.tick()  # a mismatch that the next game inherits until the board is right
    ref.new_game("fakeboard", ["Cy", "Di"], seed=9)
    ref.observe(obs("tomb.mummy", "moving"))  # still setting up: the mummy is on its way
    saved = (ref.game.to_json(), ref.core.board_state(), ref.journal.last_seq())  # type: ignore[union-attr]
    ref.journal.close()
    with sqlite3.connect(tmp_path / "t1.journal") as db:  # spoil the first game's inputs
        db.execute("UPDATE inputs SET payload = '{}' WHERE id <= 2")
    again = make_referee(tmp_path, Clock())
    assert again.game is not None
    assert (again.game.to_json(), again.core.board_state(), again.journal.last_seq()) == saved
    assert again.mismatch is not None and again.mismatch["code"] == "setup"
    assert again.core.sensors["tomb.mummy"] == "moving" and again.core.sensors["launcher"] == "armed"
    out = again.observe(obs("tomb.wolf", "middle"))  # fixed; what is left is the moving mummy
    assert types(out.events) == ["mismatch"] and out.events[0]["data"]["sensors"] == {
        "tomb.mummy": {"expected": "middle", "actual": "moving"}
    }
    assert types(again.observe(obs("tomb.mummy", "middle")).events) == ["mismatch_cleared"]
    assert roll(again)
    # a full replay still reads everything, so it notices the spoiled inputs
    assert [s.divergence for s in replay(again.journal) if s.divergence]


def test_a_timer_that_cannot_be_recorded_is_retried_later_not_in_a_loop(
    ref: Referee, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref.act(Action("attempt", 0))
    clock.advance(1000 + late_ms(ref))

    def full(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ref.journal, "record_many", full)
    failed = ref.tick()
    assert failed is not None and not failed.ok and "disk is full" in str(failed.error)
    assert ref.tick() is None  # the service's "while tick()" loop ends
    assert ref.next_deadline() == pytest.approx(1.0)  # the retry, a second later; the window kept its start
    monkeypatch.undo()
    clock.advance(1000)
    done = ref.tick()
    assert done is not None and done.ok and types(done.events) == ["skull_result"]


def test_a_journal_that_replays_differently_is_flagged_not_fatal(tmp_path: Path, ref: Referee) -> None:
    assert ref.restore_divergence is None
    roll(ref)
    ref.journal.close()
    with sqlite3.connect(tmp_path / "t1.journal") as db:
        db.execute("UPDATE events SET data = '{\"seat\": 0, \"tomb\": \"elsewhere\"}' WHERE type = 'rolled'")
    again = make_referee(tmp_path)
    assert again.game is not None and again.game.to_json()["rolled"] in ("mummy", "monster", "wolf")
    assert again.restore_divergence is not None and "(command)" in again.restore_divergence


def test_a_journal_that_cannot_be_replayed_stops_the_start_with_a_clear_error(tmp_path: Path, ref: Referee) -> None:
    ref.journal.close()
    with sqlite3.connect(tmp_path / "t1.journal") as db:
        db.execute("UPDATE inputs SET payload = json_set(payload, '$.game', 'chess') WHERE kind = 'new_game'")
    with pytest.raises(JournalError, match=r"input 2 \(new_game\) cannot be replayed: unknown game 'chess'"):
        make_referee(tmp_path)


# ----- one commit per decision that causes another --------------------------------------
def test_a_grace_0_mismatch_is_journalled_with_its_observation_in_one_commit(
    strict: Referee, clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ref = strict
    commits: list[list[str]] = []
    record_many = ref.journal.record_many

    def counted(entries: Any, on_commit: Any = None) -> Any:
        commits.append([kind for kind, _, _ in entries])
        return record_many(entries, on_commit)

    monkeypatch.setattr(ref.journal, "record_many", counted)
    out = ref.observe(obs("tomb.mummy", "end_b"))
    assert types(out.events) == ["mismatch"] and [e["seq"] for e in out.events] == [ref.journal.last_seq()]
    assert commits == [["observation", "timeout"]]  # two inputs (replay decides them apart), one fsync
    assert ref.observe(obs("tomb.mummy", "middle")).ok
    assert commits[-1] == ["observation"]
    monkeypatch.undo()
    saved = (ref.game.to_json(), ref.core.board_state(), ref.journal.last_seq())  # type: ignore[union-attr]
    ref.journal.close()
    again = make_referee(tmp_path, clock, settings={"referee.mismatch_grace_ms": 0})
    assert (again.game.to_json(), again.core.board_state(), again.journal.last_seq()) == saved  # type: ignore[union-attr]
    assert again.restore_divergence is None


def test_a_failed_journal_write_drops_the_observation_and_its_timeout_together(
    strict: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = strict
    before = (ref.core.board_state(), ref.journal.last_seq(), sum(1 for _ in ref.journal.inputs()))

    def full(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ref.journal, "record_many", full)
    out = ref.observe(obs("tomb.mummy", "end_b"))
    assert not out.ok and "did not happen" in str(out.error) and "disk is full" in str(out.error)
    monkeypatch.undo()
    assert (ref.core.board_state(), ref.journal.last_seq(), sum(1 for _ in ref.journal.inputs())) == before
    assert ref.mismatch is None


def test_an_engine_failure_on_the_timeout_keeps_the_observation_and_retries_the_timer(
    strict: Referee, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = strict
    real_timeout = type(ref.core).timeout

    def broken(self: Any, payload: Any) -> Any:
        raise RuntimeError("a bug in the timeout")

    monkeypatch.setattr(type(ref.core), "timeout", broken)
    out = ref.observe(obs("tomb.mummy", "end_b"))
    assert out.ok and out.events == [] and ref.mismatch is None  # the observation alone
    kinds = [i["kind"] for i in ref.journal.inputs()]
    assert kinds[-1] == "observation" and ref.core.sensors["tomb.mummy"] == "end_b"
    assert ref.tick() is None  # not again at once: a second later
    monkeypatch.setattr(type(ref.core), "timeout", real_timeout)
    clock.advance(1000)
    late = ref.tick()
    assert late is not None and late.ok and types(late.events) == ["mismatch"]


# ----- a window's end is judged by when the edge happened -----------------------------------
def test_a_spring_that_began_before_the_window_ended_is_zapped_though_it_arrives_after(
    ref: Referee, clock: Clock
) -> None:
    from hardware.observation import Observation

    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    opened = clock()
    clock.advance(1000 + late_ms(ref) / 2)  # past the window's end, within the wait for late edges
    assert ref.tick() is None
    edge = opened + 0.990  # the trap sprang 10 ms before the end; its stability window made it late
    out = ref.observe(Observation("trap.ladder.sprung", "sprung", edge, edge + 0.02, "sim"))
    assert types(out.events) == ["trap_result"] and out.events[0]["data"]["zapped"] is True


def test_a_spring_that_began_after_the_window_ended_comes_after_its_timeout(
    ref: Referee, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hardware.observation import Observation

    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    opened = clock()
    clock.advance(1000 + late_ms(ref) / 2)
    commits: list[list[str]] = []
    record_many = ref.journal.record_many
    monkeypatch.setattr(ref.journal, "record_many",
                        lambda entries, on_commit=None: commits.append([k for k, _, _ in entries])
                        or record_many(entries, on_commit))
    edge = opened + 1.010  # 10 ms too late, though the window's timeout has not run yet
    out = ref.observe(Observation("trap.ladder.sprung", "sprung", edge, edge + 0.02, "sim"))
    assert types(out.events)[0] == "trap_result" and out.events[0]["data"]["zapped"] is False
    assert commits == [["timeout", "observation"]]  # the window's end first, in the same commit
    assert ref.tick() is None  # it does not run out twice


def test_a_failed_window_timeout_keeps_the_windows_start(ref: Referee, clock: Clock,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ref.act(Action("attempt", 0))
    clock.advance(1000 + late_ms(ref))
    real_timeout = type(ref.core).timeout

    def broken(self: Any, payload: Any) -> Any:
        raise RuntimeError("a bug in the timeout")

    monkeypatch.setattr(type(ref.core), "timeout", broken)
    with pytest.raises(RuntimeError):
        ref.tick()  # the engine fails; the referee goes back to the journal
    monkeypatch.setattr(type(ref.core), "timeout", real_timeout)
    # the window still ends where it did, a second after the attempt (not a second from now)
    assert ref.next_deadline() == pytest.approx(0.0)
    done = ref.tick()
    assert done is not None and types(done.events) == ["skull_result"]


# ----- a reading within its grace does not stop a window ------------------------------------
def test_a_slider_nudged_during_a_trap_window_does_not_lengthen_the_window(ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))  # the 1 s window opens
    clock.advance(900)
    assert ref.observe(obs("tomb.wolf", "moving")).events == []  # a sleeve brushed the Wolf tomb: in its grace
    clock.advance(100)
    assert ref.observe(obs("tomb.wolf", "middle")).events == []  # back where it was
    clock.advance(late_ms(ref))
    late = ref.tick()  # the window ended at 1 s, as if nothing had been brushed
    assert late is not None and types(late.events) == ["trap_result"], late
    assert late.events[0]["data"]["zapped"] is False
    clock.advance(800)
    out = ref.observe(obs("trap.ladder.sprung", "sprung"))  # 1.8 s after the pull: too late to zap
    assert "trap_result" not in types(out.events)


def test_a_window_that_ends_while_a_slider_is_in_its_grace_is_decided_and_the_grace_goes_on(
    ref: Referee, clock: Clock
) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    clock.advance(500)
    ref.observe(obs("tomb.wolf", "moving"))
    clock.advance(500 + late_ms(ref))
    late = ref.tick()
    assert late is not None and types(late.events) == ["trap_result"]
    assert late.events[0]["data"]["zapped"] is False and ref.mismatch is None  # play did not hold
    clock.advance(2000 - 500 - late_ms(ref) - 1)
    assert ref.tick() is None and ref.mismatch is None  # the slider's grace runs from when it moved
    clock.advance(1)
    moving = ref.tick()
    assert moving is not None and ref.mismatch is not None and ref.mismatch["code"] == "tomb_moving"


def test_a_reading_the_journal_refused_asks_for_a_reconcile(ref: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    tomb = roll(ref)
    seq = ref.journal.last_seq()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ref.journal, "record_many", broken)
    out = ref.observe(obs(f"tomb.{tomb}", "end_a"))  # the rolled tomb slid while the disk was full
    assert not out.ok and "could not record" in str(out.error)
    assert ref.journal.last_seq() == seq and ref.needs_reconcile  # nothing happened, but the board moved
    assert not ref.reconcile({**REST, f"tomb.{tomb}": "end_a"}).ok  # still full: still wanted
    assert ref.needs_reconcile
    monkeypatch.undo()
    done = ref.reconcile({**REST, f"tomb.{tomb}": "end_a"})  # the disk is back: the slide is taken
    assert done.ok and "tomb_moved" in types(done.events) and not ref.needs_reconcile


def test_a_foul_within_its_grace_is_not_swallowed_by_a_window_running_out(ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    clock.advance(900)
    assert ref.observe(obs("trap.ladder.peg_b", "pulled")).events == []  # both pegs: a foul, in its grace
    clock.advance(100 + late_ms(ref))
    assert ref.next_deadline() == pytest.approx(0.3 - 0.1 - ref.window_late_s)  # the grace, not the window
    assert ref.tick() is None  # the ended window waits: deciding now would hide the foul
    clock.advance(300 - 100 - late_ms(ref))
    foul = ref.tick()
    assert foul is not None and types(foul.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "both_pegs"


def test_an_ended_window_runs_out_as_soon_as_a_stray_reading_goes_away(ref: Referee, clock: Clock) -> None:
    ref.act(Action("challenge", 0))
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    clock.advance(900)
    ref.observe(obs("launcher", "launched"))  # the ghost knocked over: in its grace
    clock.advance(200)
    out = ref.observe(obs("launcher", "armed"))  # put back 1.1 s after the pull
    assert types(out.events) == ["trap_result"] and out.events[0]["data"]["zapped"] is False
    assert ref.mismatch is None


def test_a_new_game_whose_options_the_engine_refuses_is_an_answer_not_an_exception(ref: Referee,
                                                                                   tmp_path: Path) -> None:
    game_id, seq = ref.game_id, ref.journal.last_seq()
    out = ref.new_game("terror", ["Ann", "Bo"], options={"board": str(tmp_path / "no-such-board.txt")})
    assert not out.ok and "no-such-board.txt" in str(out.error)
    assert ref.game_id == game_id and ref.journal.last_seq() == seq  # the game in progress goes on


def test_a_trap_re_cocked_too_early_is_told_how_to_get_back() -> None:
    from controller.referee.guidance import problem_for

    problem = problem_for("trap.ladder.sprung", "sprung", "cocked", {}, [])
    assert problem.what == "The Ladder trap was re-cocked too early."
    assert problem.fix == "Set the Ladder trap off again: it stays sprung until the game asks for it to be reset."
