"""Trust the board as it stands, for every game with sensed parts: what the rules allow, and what they refuse.

Terror's tombs are in test_gm.py; here Superstition's traps (their pegs
and springs), a Superstition game whose traps the engine decides, and the
dogs' game, which senses nothing. Each accepted correction is journalled with
who, when and why, and ``gravekeeper replay --verify`` decides it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Action
from controller.referee.live import Referee
from controller.referee.live_gm import game_master
from tests.controller.referee.test_fakegame import Clock, make_referee, obs, types
from tests.controller.referee.test_games import TRAPS_REST
from tests.controller.referee.test_gm import challenged, verify_replay


def trust(ref: Referee, reason: str | None = "the board is right") -> Any:
    return game_master(ref, "trust_board", {"reason": reason}, by="referee")


def expire(ref: Referee, clock: Clock) -> None:
    """Let a reading's grace run out, so it stands as a mismatch."""
    clock.advance(5000)
    while ref.tick() is not None:
        pass


def refused_unchanged(ref: Referee, message: str) -> None:
    """``trust_board`` is refused with ``message`` and nothing is journalled or changed."""
    seq, game = ref.journal.last_seq(), ref.state()
    out = trust(ref)
    assert not out.ok and message in str(out.error), out.error
    assert ref.journal.last_seq() == seq and ref.state() == game


# ----- accepted ------------------------------------------------------------------------------
def test_the_peg_the_board_shows_is_the_one_pulled(
        superstition: tuple[Referee, Clock], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, clock = superstition
    trap = challenged(ref)
    name = trap.split(".")[1]
    assert ref.observe(obs(f"{trap}.peg_a", "pulled")).ok
    assert ref.state()["expects"][0]["kind"] == "trap_outcome"
    # The peg A reading was a misread: the board shows peg B out and peg A in.
    ref.observe(obs(f"{trap}.peg_a", "in"))
    ref.observe(obs(f"{trap}.peg_b", "pulled"))
    expire(ref, clock)
    assert ref.mismatch is not None and set(ref.mismatch["sensors"]) == {f"{trap}.peg_a", f"{trap}.peg_b"}
    clock.advance(10)
    out = game_master(ref, "trust_board", {"reason": "peg A's switch misread"}, by="referee")
    assert out.ok, out.error
    assert types(out.events) == ["corrected", "peg_pulled", "mismatch_cleared"]
    corrected = out.events[0]["data"]
    assert corrected["op"] == "trust_board" and corrected["by"] == "referee"
    assert corrected["reason"] == "peg A's switch misread" and isinstance(out.events[0]["time"], float)
    assert corrected["sensors"] == [f"{trap}.peg_a", f"{trap}.peg_b"]
    assert out.events[1]["data"] == {"player": ref.state()["expects"][0]["player"], "trap": name, "peg": "b"}
    assert ref.game is not None and ref.game.expected_board()[f"{trap}.peg_b"] == "pulled"
    assert ref.state()["expects"][0]["kind"] == "trap_outcome"  # still watched: the outcome is the trap's
    sprang = ref.observe(obs(f"{trap}.sprung", "sprung"))
    resolved = next(e for e in sprang.events if e["type"] == "challenge_resolved")
    assert resolved["data"]["peg"] == "b" and resolved["data"]["zapped"] is True
    gm_inputs = [e for e in ref.journal.inputs() if e["kind"] == "gm"]
    assert gm_inputs[-1]["payload"]["op"] == "trust_board" and gm_inputs[-1]["payload"]["by"] == "referee"
    verify_replay(ref, tmp_path, capsys)


def test_a_pulled_peg_and_a_sprung_trap_are_taken_together(superstition: tuple[Referee, Clock]) -> None:
    """The engine alone: a trap waiting for a peg, shown with peg B out and sprung, was challenged and zapped.

    (On a live board the referee catches such readings up by itself; the engine still takes them whole.)
    """
    ref, _ = superstition
    trap = challenged(ref)
    assert ref.game is not None
    game = type(ref.game).from_json(ref.game.to_json())
    events = game.adopt_board({f"{trap}.peg_b": "pulled", f"{trap}.sprung": "sprung"})
    assert [e.type for e in events][:2] == ["peg_pulled", "challenge_resolved"]
    assert events[1].data["peg"] == "b" and events[1].data["zapped"] is True
    assert game.expects()[0].kind == "trap_reset"
    assert game.expected_board()[f"{trap}.sprung"] == "sprung"


def test_the_board_correcting_the_pulled_peg_is_the_same_as_pulling_that_peg(
        superstition: tuple[Referee, Clock]) -> None:
    """The engine's one pull_peg path: the game, and the event, are those of peg B pulled in the first place."""
    ref, _ = superstition
    trap = challenged(ref)
    name = trap.split(".")[1]
    assert ref.game is not None
    seat = ref.game.turn
    misread = type(ref.game).from_json(ref.game.to_json())
    misread.apply(Action("pull_peg", seat, {"trap": name, "peg": "a"}))
    events = misread.adopt_board({f"{trap}.peg_a": "in", f"{trap}.peg_b": "pulled"})
    right = type(ref.game).from_json(ref.game.to_json())
    pulled = right.apply(Action("pull_peg", seat, {"trap": name, "peg": "b"}))
    assert [(e.type, e.data) for e in events] == [(e.type, e.data) for e in pulled]
    assert misread.to_json() == right.to_json()


def test_the_adopted_game_is_the_same_when_rebuilt_by_an_undo(superstition: tuple[Referee, Clock]) -> None:
    """An undo rebuilds the game by replaying it from the start: the board's adopted position included."""
    ref, clock = superstition
    trap = challenged(ref)
    ref.observe(obs(f"{trap}.peg_a", "pulled"))
    ref.reconcile({**TRAPS_REST, f"{trap}.peg_b": "pulled"})
    expire(ref, clock)
    assert trust(ref).ok
    assert "challenge_resolved" in types(ref.observe(obs(f"{trap}.sprung", "sprung")).events)
    assert ref.game is not None
    before = ref.game.to_json()
    for part, value in (("peg_b", "in"), ("sprung", "cocked")):  # the trap is reset: a step after the door
        ref.observe(obs(f"{trap}.{part}", value))
    assert ref.state()["gm"]["undo"]["steps"] >= 1
    undone = game_master(ref, "undo", {"reason": "the reset was too early"})
    assert undone.ok, undone.error
    assert ref.game.to_json() == before


# ----- refused ------------------------------------------------------------------------------
def test_a_peg_pulled_on_a_trap_nobody_challenges_is_refused(superstition: tuple[Referee, Clock]) -> None:
    ref, clock = superstition
    other = next(t for t in ("ladder", "mirror", "grave1", "grave2") if f"trap.{t}" != challenged(ref))
    ref.observe(obs(f"trap.{other}.peg_a", "pulled"))
    expire(ref, clock)
    assert ref.mismatch is not None
    refused_unchanged(ref, "nobody is challenging the")
    assert "rules 5 and 6" in str(trust(ref).error)


def test_both_pegs_out_is_refused(superstition: tuple[Referee, Clock]) -> None:
    ref, clock = superstition
    trap = challenged(ref)
    ref.observe(obs(f"{trap}.peg_a", "pulled"))
    ref.observe(obs(f"{trap}.peg_b", "pulled"))
    expire(ref, clock)
    assert ref.mismatch is not None and ref.mismatch["code"] == "both_pegs"
    refused_unchanged(ref, "a challenge pulls one peg only")


def refused_after_challenge(superstition: tuple[Referee, Clock], read: Any, message: str) -> None:
    """A challenged trap reads as ``read`` says; once that stands as a mismatch, trusting the board is refused."""
    ref, clock = superstition
    read(ref, challenged(ref))
    expire(ref, clock)
    assert ref.mismatch is not None
    refused_unchanged(ref, message)


def test_both_pegs_pulled_at_once_is_two_outcomes(superstition: tuple[Referee, Clock]) -> None:
    refused_after_challenge(superstition, lambda ref, trap: ref.reconcile(
        {**TRAPS_REST, f"{trap}.peg_a": "pulled", f"{trap}.peg_b": "pulled"}), "two outcomes at once")


def test_a_trap_gone_off_with_no_peg_out_is_refused(superstition: tuple[Referee, Clock]) -> None:
    refused_after_challenge(superstition, lambda ref, trap: ref.observe(obs(f"{trap}.sprung", "sprung")),
                            "declare which peg was pulled")


def test_a_peg_pushed_back_while_the_trap_is_watched_is_refused(superstition: tuple[Referee, Clock]) -> None:
    def pulled_and_pushed_back(ref: Referee, trap: str) -> None:
        ref.observe(obs(f"{trap}.peg_b", "pulled"))
        ref.observe(obs(f"{trap}.peg_b", "in"))

    refused_after_challenge(superstition, pulled_and_pushed_back, "ending the waiting window")


def test_a_digital_game_takes_nothing_from_the_traps(tmp_path: Path) -> None:
    clock = Clock()
    ref = make_referee(tmp_path, clock, settings={"referee.board": "sensors"})
    assert ref.reconcile(TRAPS_REST).ok
    assert ref.new_game("superstition", ["Ann", "Bo"], seed=1, options={"challenge": "digital"}).ok
    ref.observe(obs("trap.ladder.peg_a", "pulled"))
    expire(ref, clock)
    assert ref.mismatch is not None
    refused_unchanged(ref, "decides its traps itself")


def test_the_dogs_game_senses_nothing_to_trust(tmp_path: Path) -> None:
    ref = make_referee(tmp_path, Clock())
    assert ref.new_game("dogs", ["Ann", "Bo"], seed=1).ok
    refused_unchanged(ref, "no piece of Graveyard Dogs is read by a sensor")


# ----- the engine alone -----------------------------------------------------------------------
def test_the_engine_refuses_sensors_that_are_not_traps_in_words() -> None:
    from controller.games import get_game
    from controller.games.base import IllegalAction

    game = get_game("superstition").new(["Ann", "Bo"], 1, {"challenge": "sensors"})
    for sensor, words in (("tomb.wolf", "a tomb"), ("launcher", "the Headless Ghost's launcher")):
        with pytest.raises(IllegalAction, match=f"not {words}$"):
            game.adopt_board({sensor: "end_a" if sensor.startswith("tomb") else "launched"})
    with pytest.raises(IllegalAction, match="peg A of the Ladder trap cannot show"):
        game.adopt_board({"trap.ladder.peg_a": "sprung"})
    before = game.to_json()
    assert game.adopt_board({"trap.ladder.peg_a": "in"}) == []  # at rest, as the rules want it
    assert game.to_json() == before
    assert Action("roll", 0)  # the game is untouched and still playable


def test_terror_refuses_a_tomb_between_positions_or_a_sensor_that_is_no_tomb_in_words() -> None:
    from controller.games import get_game
    from controller.games.base import IllegalAction

    game = get_game("terror").new(["Ann", "Bo"], 1)
    for readings, words in (({"tomb.wolf": "moving"}, "the Wolf tomb is between positions: slide it fully"),
                            ({"tomb.mummy": "fault"}, "the Mummy tomb reports two positions at once"),
                            ({"launcher": "launched"}, "not the Headless Ghost's launcher"),
                            ({"chute.left": "blocked"}, "not a Crypt window")):
        before = game.to_json()
        with pytest.raises(IllegalAction, match=words):
            game.adopt_board(readings)
        assert game.to_json() == before
