"""The referee with the real engines: a mismatch and its recovery for each game with hardware."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.games import get_game
from controller.games.base import Action
from controller.protocol.security import game_seed
from controller.referee.live import Referee
from hardware.observation import ALL_SENSORS
from tests.controller.referee.test_fakegame import Clock, make_referee, obs, types

TERROR_REST = {"tomb.mummy": "middle", "tomb.monster": "middle", "tomb.wolf": "middle", "launcher": "armed"}
TRAPS_REST = {s: ("cocked" if s.endswith("sprung") else "in") for s in ALL_SENSORS if s.startswith("trap.")}


def seed_rolling(tomb: str) -> int:
    """A seed whose first Terror roll shows ``tomb`` (found, not hard-coded, so dice changes don't matter).

    The referee mixes a chosen seed with the table token ("tok" in make_referee), see security.game_seed.
    """
    terror = get_game("terror")
    for seed in range(500):
        game = terror.new(["Ann", "Bo"], game_seed("tok", seed))
        game.apply(Action("roll", 0))
        if game.expects()[0].sensors() == {f"tomb.{tomb}"}:
            return seed
    raise AssertionError(f"no seed in 0..499 rolls the {tomb}")


def drive_to(ref: Referee, kind: str, limit: int = 300) -> None:
    """Take the last commandable legal action until the engine expects ``kind`` from the board."""
    for _ in range(limit):
        state = ref.state()
        if any(e["kind"] == kind for e in state["expects"]):
            return
        assert state["legal"], f"stuck before {kind}: {state['waiting_for']}"
        out = ref.act(Action.from_json(state["legal"][-1]))
        assert out.ok, out.error
    raise AssertionError(f"no {kind} expectation within {limit} actions")


# ----- Terror in the Graveyard --------------------------------------------------------------
@pytest.fixture
def terror(tmp_path: Path) -> tuple[Referee, Clock]:
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    assert ref.reconcile(TERROR_REST).ok
    out = ref.new_game("terror", ["Ann", "Bo"], seed=seed_rolling("wolf"))
    assert out.ok and types(out.events) == ["game_started"], out.error
    return ref, clock


def test_terror_wrong_tomb_mismatch_and_recovery(terror: tuple[Referee, Clock]) -> None:
    ref, clock = terror
    assert ref.act(Action("roll", 0)).ok
    assert ref.state()["waiting_for"].startswith("Slide the Wolf tomb one position")
    ref.observe(obs("tomb.mummy", "end_a"))
    clock.advance(300)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    state = ref.state()
    assert state["mismatch"]["guidance"] == "Put the Mummy tomb back in the middle: only the Wolf was rolled."
    assert state["mismatch"]["message"] == "The Mummy tomb moved, but the Wolf was rolled."
    assert state["waiting_for"] == state["mismatch"]["guidance"] and state["legal"] == []
    out = ref.observe(obs("tomb.mummy", "middle"))
    assert types(out.events) == ["mismatch_cleared"] and ref.mismatch is None
    out = ref.observe(obs("tomb.wolf", "end_b"))
    assert out.ok and out.events, "the rolled tomb's move is applied"
    assert ref.game is not None and ref.game.expected_board()["tomb.wolf"] == "end_b"
    assert ref.mismatch is None


def test_terror_move_tomb_is_the_boards_in_sensors_mode(terror: tuple[Referee, Clock]) -> None:
    ref, _ = terror
    ref.act(Action("roll", 0))
    out = ref.act(Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"}))
    assert not out.ok and "the table's sensors report this move" in str(out.error)


def test_terror_ghost_launched_without_attempt_is_a_foul(terror: tuple[Referee, Clock]) -> None:
    ref, clock = terror
    ref.observe(obs("launcher", "launched"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "foul_launch"
    refused = ref.act(Action("roll", 0))
    assert not refused.ok and "launched with no skull attempt" in str(refused.error)
    assert types(ref.observe(obs("launcher", "armed")).events) == ["mismatch_cleared"]
    assert ref.act(Action("roll", 0)).ok


def test_terror_manual_mode_plays_tomb_moves_as_commands(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    ref.new_game("terror", ["Ann", "Bo"], seed=seed_rolling("monster"))
    ref.act(Action("roll", 0))
    assert ref.observe(obs("tomb.mummy", "end_a")).events == []
    out = ref.act(Action("move_tomb", 0, {"tomb": "monster", "to": "end_a"}))
    assert out.ok, out.error
    assert ref.game is not None and ref.game.expected_board()["tomb.monster"] == "end_a"


def test_terror_restart_is_identical_and_replay_verifies(
    tmp_path: Path, terror: tuple[Referee, Clock], capsys: pytest.CaptureFixture[str]
) -> None:
    ref, clock = terror
    ref.act(Action("roll", 0))
    ref.observe(obs("tomb.wolf", "end_a"))
    drive_steps = 0
    while ref.state()["legal"] and drive_steps < 5:
        ref.act(Action.from_json(ref.state()["legal"][0]))
        drive_steps += 1
    assert ref.game is not None
    saved: dict[str, Any] = {"game": ref.game.to_json(), "seq": ref.journal.last_seq(), "state": ref.state()}
    ref.journal.close()
    again = make_referee(tmp_path, Clock())
    assert again.game is not None and again.game.to_json() == saved["game"]
    assert again.journal.last_seq() == saved["seq"] and again.state() == saved["state"]
    again.journal.close()
    assert main(["replay", str(tmp_path / "t1.journal"), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("verified:")


# ----- Superstition ----------------------------------------------------------------------
@pytest.fixture
def superstition(tmp_path: Path) -> tuple[Referee, Clock]:
    clock = Clock()
    ref = make_referee(tmp_path, clock, settings={"referee.trap_window_ms": 1500})
    assert ref.reconcile(TRAPS_REST).ok
    out = ref.new_game("superstition", ["Ann", "Bo"], seed=1)
    assert out.ok, out.error
    drive_to(ref, "peg_pull")
    return ref, clock


def _challenged(ref: Referee) -> str:
    sensors: dict[str, Any] = ref.state()["expects"][0]["accepts"]
    return next(iter(sensors)).rsplit(".", 1)[0]  # "trap.<name>"


def test_superstition_zapped_then_reset(superstition: tuple[Referee, Clock]) -> None:
    ref, _ = superstition
    trap = _challenged(ref)
    out = ref.observe(obs(f"{trap}.peg_a", "pulled"))
    assert out.ok and out.events and ref.state()["expects"][0]["kind"] == "trap_outcome"
    out = ref.observe(obs(f"{trap}.sprung", "sprung"))
    assert any(e["data"].get("zapped") is True for e in out.events), out.events
    assert ref.state()["expects"][0]["kind"] == "trap_reset"
    assert ref.observe(obs(f"{trap}.peg_a", "in")).events == []
    out = ref.observe(obs(f"{trap}.sprung", "cocked"))
    assert out.events and ref.mismatch is None
    assert all(e["kind"] != "trap_reset" for e in ref.state()["expects"])


def test_superstition_no_spring_within_the_window_is_sneaked_by(superstition: tuple[Referee, Clock]) -> None:
    ref, clock = superstition
    trap = _challenged(ref)
    ref.observe(obs(f"{trap}.peg_b", "pulled"))
    clock.advance(1499 + ref.window_late_s * 1000)  # the window's end, plus the wait for late edges
    assert ref.tick() is None
    clock.advance(1)
    late = ref.tick()
    assert late is not None and any(e["data"].get("zapped") is False for e in late.events), late
    assert ref.state()["expects"][0]["kind"] == "trap_reset"


def test_superstition_both_pegs_is_a_foul_until_put_back(superstition: tuple[Referee, Clock]) -> None:
    ref, clock = superstition
    trap = _challenged(ref)
    ref.observe(obs(f"{trap}.peg_a", "pulled"))
    ref.observe(obs(f"{trap}.peg_b", "pulled"))
    clock.advance(300)
    late = ref.tick()
    assert late is not None and types(late.events) == ["mismatch"]
    assert ref.mismatch is not None and ref.mismatch["code"] == "both_pegs"
    assert "Both pegs of the" in ref.mismatch["message"] and "that is a foul" in ref.mismatch["message"]
    assert ref.mismatch["guidance"].startswith("Push peg B of the")
    assert types(ref.observe(obs(f"{trap}.peg_b", "in")).events) == ["mismatch_cleared"]


def test_superstition_peg_pulled_at_the_wrong_trap(superstition: tuple[Referee, Clock]) -> None:
    ref, clock = superstition
    trap = _challenged(ref)
    other = next(f"trap.{t}" for t in ("ladder", "mirror", "grave1", "grave2") if f"trap.{t}" != trap)
    ref.observe(obs(f"{other}.peg_a", "pulled"))
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None and ref.mismatch["code"] == "wrong_trap"
    assert types(ref.observe(obs(f"{other}.peg_a", "in")).events) == ["mismatch_cleared"]


def test_superstition_manual_mode_keeps_the_live_peg_secret(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    ref.new_game("superstition", ["Ann", "Bo"], seed=1)
    assert ref.game is not None and ref.game.to_json()["options"]["challenge"] == "digital"
    assert ref.state()["expects"] == []


# ----- graveyard dogs: no hardware ---------------------------------------------------------
def test_dogs_plays_through_the_referee_with_sensors_ignored(tmp_path: Path) -> None:
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    ref.reconcile({"tomb.wolf": "end_a", "launcher": "launched"})  # the dogs board has no sensed parts
    out = ref.new_game("dogs", ["Ann", "Bo"], seed=4)
    assert out.ok and types(out.events) == ["game_started"]
    for _ in range(6):
        legal = ref.state()["legal"]
        assert ref.act(Action.from_json(legal[0])).ok
    assert ref.mismatch is None and ref.state()["expects"] == []


# ----- the skull attempt, with Terror set up at the Crypt by the engine's own fixtures -------------
@pytest.fixture
def at_crypt(terror: tuple[Referee, Clock]) -> tuple[Referee, Clock]:
    """The table's game, arranged so that Ann's pawn holds a ring on the Crypt platform.

    Reaching the Crypt by play takes dozens of turns; the engine's test helpers
    arrange it directly. Only the live referee is used from here on (the journal
    does not know about the arrangement, so no restart is tried).
    """
    from tests.controller.games.terror.support import CRYPT, give, phase, put

    ref, clock = terror
    game = ref.game
    assert game is not None
    put(game, 0, 0, CRYPT)  # type: ignore[arg-type]
    give(game, 0, 0, "ring-2")  # type: ignore[arg-type]
    phase(game, 0, "move", 4, "wolf")  # type: ignore[arg-type]
    return ref, clock


def test_terror_skull_attempt_hit_by_the_launcher(at_crypt: tuple[Referee, Clock]) -> None:
    ref, _ = at_crypt
    assert all(a["kind"] != "attempt_skull" for a in ref.state()["legal"])  # it would show the ring
    assert {"kind": "attempt_skull", "player": 0, "params": {"pawn": 0}} in ref.private_views()[0]["legal"]
    out = ref.act(Action("attempt_skull", 0, {"pawn": 0}))
    assert out.ok, out.error
    assert ref.state()["waiting_for"] == "Drop the skull down the Crypt's chute."
    refused = ref.act(Action("skull_outcome", 0, {"hit": True}))
    assert not refused.ok and "the table's sensors report this move" in str(refused.error)  # the launcher says it
    out = ref.observe(obs("launcher", "launched"))
    assert types(out.events) == ["skull_hit", "game_won"]
    assert ref.state()["over"] and ref.state()["winners"] == [0]
    assert ref.observe(obs("launcher", "armed")).events == []  # after the game, the board is put away


def test_terror_skull_window_runs_out_as_a_miss(at_crypt: tuple[Referee, Clock]) -> None:
    ref, clock = at_crypt
    ref.act(Action("attempt_skull", 0, {"pawn": 0}))
    # referee.skull_window_ms, handed to the engine, then the wait for edges from before its end
    assert ref.next_deadline() == pytest.approx(8.0 + ref.window_late_s)
    clock.advance(7999 + ref.window_late_s * 1000)
    assert ref.tick() is None
    clock.advance(1)
    late = ref.tick()
    assert late is not None and types(late.events) == ["skull_missed"]
    assert not ref.state()["over"]


def test_terror_skull_seen_in_the_left_window(at_crypt: tuple[Referee, Clock]) -> None:
    ref, _ = at_crypt
    ref.act(Action("attempt_skull", 0, {"pawn": 0}))
    out = ref.observe(obs("chute.left", "blocked"))
    assert types(out.events) == ["skull_missed"]


# ----- nothing secret in the public state -------------------------------------------------------
def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
@pytest.mark.parametrize("board", ["sensors", "manual"])
def test_public_state_holds_no_secret_while_playing(tmp_path: Path, game: str, board: str) -> None:
    ref = make_referee(tmp_path, settings={"referee.board": board})
    ref.reconcile({**TERROR_REST, **TRAPS_REST})
    seed = "7913420771523401337"  # long enough that its digits cannot turn up in the state by chance
    ref.new_game(game, ["Ann", "Bo"], seed=int(seed))
    secret_keys = {"seed", "rng", "live", "draw", "secret", "hands", "hand"}
    for _ in range(25):
        state = ref.state()
        assert not _keys(state) & secret_keys, f"{game}: {_keys(state) & secret_keys} in the public state"
        assert seed not in json.dumps(state) and seed not in json.dumps(ref.journal.events_after(0))
        if not state["legal"]:
            break
        ref.act(Action.from_json(state["legal"][-1]))
    # every private view is the player's own: it differs between seats when there is anything hidden
    views = ref.private_views()
    assert set(views) == {0, 1} and all(v["seat"] == s for s, v in views.items())


def test_superstition_with_unwired_traps_is_played_by_commands(tmp_path: Path) -> None:
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    ref.reconcile({})  # sensors mode, but no trap has ever reported
    ref.new_game("superstition", ["Ann", "Bo"], seed=1)
    drive_to(ref, "peg_pull")
    legal = ref.state()["legal"]
    assert legal and all(a["kind"] == "pull_peg" for a in legal)
    assert ref.act(Action.from_json(legal[0])).ok
    clock.advance(60_000)
    assert ref.tick() is None  # no window runs for a trap nobody can see
    results = [a for a in ref.state()["legal"] if a["kind"] == "challenge_result"]
    assert len(results) == 2
    out = ref.act(Action.from_json(next(a for a in results if a["params"]["zapped"])))
    assert out.ok and any(e["data"].get("zapped") is True for e in out.events)


def test_a_seed_seen_on_the_broker_does_not_reveal_hidden_draws(tmp_path: Path) -> None:
    """A spectator who saw ``seed`` in a clear-text new_game command cannot rebuild the hidden state."""
    ref = make_referee(tmp_path, Clock())
    assert ref.new_game("superstition", ["Ann", "Bo"], seed=777).ok
    assert ref.game is not None
    guessed = get_game("superstition").new(["Ann", "Bo"], 777, ref.game.to_json().get("options"))
    assert guessed.to_json()["rng"] != ref.game.to_json()["rng"]
    # ...while the same chosen seed on the same table still gives the same game.
    ref2 = make_referee(tmp_path / "again", Clock())
    assert ref2.new_game("superstition", ["Ann", "Bo"], seed=777).ok
    assert ref2.game is not None and ref2.game.to_json() == ref.game.to_json()


# ----- the waiting line: what a player does, in words -------------------------------------------------
@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_every_action_kind_a_game_offers_has_words_for_the_waiting_line(game: str) -> None:
    import random

    cls = get_game(game)
    for seed in range(15):
        g = cls.new(["Ann", "Bo", "Cy"], seed)
        rnd = random.Random(seed)
        for _ in range(300):
            if g.is_over:
                break
            legal = g.legal_actions()
            missing = {a.kind for a in legal} - set(cls.ACTION_WORDS)
            assert not missing, f"{game}: no words for {sorted(missing)}"
            g.apply(rnd.choice(legal))
    assert all("_" not in words for words in cls.ACTION_WORDS.values())


def test_the_waiting_line_says_what_a_player_does_not_the_action_s_name(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, Clock())
    assert ref.new_game("dogs", ["Ann", "Bo"], seed=4).ok
    for _ in range(8):
        waiting = ref.state()["waiting_for"]
        assert "_" not in waiting and not waiting.endswith(": choose."), waiting
        if "to play:" in waiting:
            assert any(words in waiting for words in get_game("dogs").ACTION_WORDS.values()), waiting
        assert ref.act(Action.from_json(ref.state()["legal"][0])).ok


# ----- a check added to a board's loader later: new games only ---------------------------------------
def test_a_new_game_on_a_too_short_board_is_refused_but_a_journal_s_game_on_one_still_replays(tmp_path: Path) -> None:
    from unittest import mock

    from controller.games.superstition import Superstition
    from tests.controller.games.superstition.test_reach import _editor_board

    short = _editor_board(5, 16, 1, [2, 1, 4, 9, 5, 13])  # a brick path of five spaces
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    out = ref.new_game("superstition", ["Ann", "Bo"], seed=1, options={"board": short})
    assert not out.ok and "needs at least 9 spaces" in str(out.error)
    assert out.data and "brick_path" in out.data["detail"]
    # A game started on it before the check (as if by an earlier version), then the table starts again.
    with mock.patch.object(Superstition, "check_new_options"):
        assert ref.new_game("superstition", ["Ann", "Bo"], seed=1, options={"board": short}).ok
    game_id = ref.game_id
    ref.journal.close()
    again = make_referee(tmp_path, clock)
    assert again.game_id == game_id and again.game is not None and len(again.game.to_json()["board"]["brick_path"]) == 5
