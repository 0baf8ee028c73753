"""Challenges resolved by the traps' sensors (``challenge: sensors``), and digital play."""

from __future__ import annotations

from typing import Any

import pytest

from controller.games import Action, Expectation
from controller.games.superstition import Superstition
from hardware.observation import ALL_SENSORS, sensor_values
from tests.controller.games.superstition.support import (
    act,
    begin,
    events_of,
    kinds,
    new_game,
    put,
    rejected,
    throw,
)


def _on_ladder(**options: Any) -> Superstition:
    game = new_game(challenge="sensors", **options)
    begin(game)
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    return game


REST = {f"trap.{t}.{p}": "in" for t in ("ladder", "mirror", "grave1", "grave2") for p in ("peg_a", "peg_b")}
REST.update({f"trap.{t}.sprung": "cocked" for t in ("ladder", "mirror", "grave1", "grave2")})


def test_sensor_mode_keeps_no_live_peg() -> None:
    game = new_game(challenge="sensors")
    assert all(t["live"] is None for t in game.traps.values())


def test_expected_board_names_only_real_sensors_and_values() -> None:
    game = _on_ladder()
    board = game.expected_board()
    assert board == REST
    for sensor, value in board.items():
        assert sensor in ALL_SENSORS and value in sensor_values(sensor)


def test_on_the_platform_the_engine_expects_a_peg_pull() -> None:
    game = _on_ladder()
    assert game.expects() == [
        Expectation(
            kind="peg_pull",
            player=0,
            prompt="Pull one peg of the Ladder.",
            accepts={
                "trap.ladder.peg_a": {"pulled": Action("pull_peg", 0, {"trap": "ladder", "peg": "a"})},
                "trap.ladder.peg_b": {"pulled": Action("pull_peg", 0, {"trap": "ladder", "peg": "b"})},
            },
        )
    ]


def test_after_the_pull_the_outcome_window_opens() -> None:
    game = _on_ladder()
    act(game, "pull_peg", trap="ladder", peg="b")
    assert game.phase == "outcome"
    assert game.expected_board()["trap.ladder.peg_b"] == "pulled"
    (expectation,) = game.expects()
    assert expectation.kind == "trap_outcome" and expectation.player == 0
    assert expectation.accepts == {
        "trap.ladder.sprung": {"sprung": Action("challenge_result", 0, {"trap": "ladder", "zapped": True})}
    }
    assert expectation.window_ms == 1500
    assert expectation.on_timeout == Action("challenge_result", 0, {"trap": "ladder", "zapped": False})


def test_outcome_window_is_configurable() -> None:
    game = _on_ladder(outcome_window_ms=2500)
    act(game, "pull_peg", trap="ladder", peg="a")
    assert game.expects()[0].window_ms == 2500


def test_sprung_trap_zaps_then_waits_for_the_reset() -> None:
    game = _on_ladder()
    act(game, "pull_peg", trap="ladder", peg="a")
    events = act(game, "challenge_result", trap="ladder", zapped=True)
    assert events_of(events, "challenge_resolved")[0].data["zapped"] is True
    assert game.pawns[0]["space"] == "start.red"  # the consequence is applied at once
    assert game.phase == "reset" and game.current_player == 0  # but play waits for the reset
    board = game.expected_board()
    assert board["trap.ladder.sprung"] == "sprung" and board["trap.ladder.peg_a"] == "pulled"
    (expectation,) = game.expects()
    assert expectation == Expectation(
        kind="trap_reset",
        player=0,
        prompt="Reset the Ladder in secret: both pegs in, the trap cocked.",
        requires={"trap.ladder.peg_a": "in", "trap.ladder.peg_b": "in", "trap.ladder.sprung": "cocked"},
        action=Action("reset_trap", 0, {"trap": "ladder"}),
    )
    assert kinds(game) == {"reset_trap"}
    rejected(game, Action("roll", 1, {"value": 3}), "Ann")
    act(game, "reset_trap", trap="ladder")
    assert game.expected_board() == REST
    assert game.current_player == 1 and game.phase == "roll" and game.expects() == []


def test_timeout_means_sneaked_by_and_the_second_throw_follows_the_reset() -> None:
    game = _on_ladder()
    act(game, "pull_peg", trap="ladder", peg="b")
    timeout = game.expects()[0].on_timeout
    assert timeout is not None
    game.apply(timeout)
    assert game.pawns[0]["leg"] == "in2" and game.phase == "reset"
    act(game, "reset_trap", trap="ladder")
    assert game.phase == "roll" and game.current_player == 0


def test_the_same_actions_are_accepted_typed_by_a_person() -> None:
    game = _on_ladder()
    game.apply(Action.from_text('pull_peg 0 {"trap": "ladder", "peg": "a"}'))
    game.apply(Action.from_text('challenge_result 0 {"trap": "ladder", "zapped": false}'))
    game.apply(Action.from_text('reset_trap 0 {"trap": "ladder"}'))
    assert game.phase == "roll" and game.pawns[0]["leg"] == "in2"


def test_wrong_trap_or_step_is_rejected_without_change() -> None:
    game = _on_ladder()
    rejected(game, Action("challenge_result", 0, {"trap": "ladder", "zapped": True}),
             "you cannot call the trap's outcome now")
    act(game, "pull_peg", trap="ladder", peg="a")
    rejected(game, Action("challenge_result", 0, {"trap": "mirror", "zapped": True}), "challenged is the Ladder")
    rejected(game, Action("reset_trap", 0, {"trap": "ladder"}), "you cannot reset that trap now")
    rejected(game, Action("challenge_result", 0, {"trap": "ladder", "zapped": "yes"}), "wrong type")


def test_grave_challenge_by_sensors_draws_the_tokens() -> None:
    game = new_game(challenge="sensors")
    begin(game)
    put(game, 0, "s3", leg="in2")
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.expects()[0].accepts.keys() == {"trap.grave1.peg_a", "trap.grave1.peg_b"}
    act(game, "pull_peg", trap="grave1", peg="a")
    events = act(game, "challenge_result", trap="grave1", zapped=False)
    assert events_of(events, "drew_tokens")[0].private_to == 0
    act(game, "reset_trap", trap="grave1")
    assert game.current_player == 1


def test_digital_mode_expects_nothing_from_the_board_and_refuses_sensor_steps() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.expects() == [] and game.expected_board() == REST
    assert kinds(game) == {"pull_peg"}
    rejected(game, Action("challenge_result", 0, {"trap": "ladder", "zapped": True}),
             "you cannot call the trap's outcome now")


@pytest.mark.parametrize("challenge", ["digital", "sensors"])
def test_expected_board_is_always_complete(challenge: str) -> None:
    game = new_game(challenge=challenge)
    assert set(game.expected_board()) == set(REST)
