"""Superstition: odd input from outside (new-game options, saved states, actions
to describe) is refused with a ValueError naming the problem, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import Action, BadGameData, IllegalAction, get_game
from controller.games.superstition import Superstition
from tests.controller.games.superstition.support import (
    begin,
    give,
    new_game,
    put,
    throw,
)


@pytest.mark.parametrize("colour", [{"a": 1}, ["red"], 3, None])
def test_a_colour_that_is_not_a_name_is_refused(colour: Any) -> None:
    # Setup: "Place your pawn on the matching color circle": a colour names a start circle.
    with pytest.raises(IllegalAction, match="option 'colours'"):
        get_game("superstition").new(["Ann", "Bob"], 1, {"colours": ["red", colour]})


def _saved() -> dict[str, Any]:
    game = new_game(3)
    begin(game)
    throw(game, 3)
    return json.loads(json.dumps(game.to_json()))


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["pawns"][0].__setitem__("space", ["b0"]),
        lambda d: d["pawns"][0].__setitem__("leg", ["in1"]),
        lambda d: d["pawns"][0].__setitem__("zapped", [["ladder"]]),
        lambda d: d["hands"][0].__setitem__("whammy", 1),
        lambda d: d["hands"][0].__setitem__("charm", 1),
        lambda d: d["pools"]["whammies"].__setitem__(0, None),
        lambda d: d["pools"].__setitem__("charms", [1, 2, 3, 4]),
        lambda d: d.__setitem__("whammies", {"b12": None}),
        lambda d: d["traps"]["ladder"].__setitem__("live", ["a"]),
        lambda d: d.__setitem__("phase", ["move"]),
    ],
)
def test_a_mistyped_saved_state_is_bad_game_data_not_a_crash(edit: Any) -> None:
    data = _saved()
    edit(data)
    with pytest.raises(BadGameData, match="Superstition state"):
        Superstition.from_json(data)


@pytest.mark.parametrize(
    "action",
    [
        Action("move", 0, {"direction": ["cw"]}),
        Action("charm_move", 0, {"direction": {"d": "cw"}}),
        Action("pull_peg", 0, {"trap": ["ladder"], "peg": "a"}),
        Action("challenge_result", 0, {"trap": {"t": 1}, "zapped": True}),
        Action("reset_trap", 0, {"trap": [1]}),
    ],
)
def test_describing_a_malformed_action_does_not_crash(action: Action) -> None:
    game = new_game(2)
    text = game.describe(action)
    assert isinstance(text, str) and text
    with pytest.raises(IllegalAction):
        game.apply(action)


def _saved_at_the_tomb() -> dict[str, Any]:
    game = new_game(2)
    begin(game)
    put(game, 1, "tomb.north", leg="tomb", target="grave2")
    give(game, 1, "the_raven", "wishbone")
    throw(game, 1)
    return json.loads(json.dumps(game.to_json()))


@pytest.mark.parametrize(
    "edit, message",
    [
        # A pawn going in to a Grave moves on the stone path (rule 8), not the brick path.
        (lambda d: d["pawns"][0].update(leg="in2"), r"pawns\[0\].space is 'start.red', where no pawn on leg 'in2'"),
        (lambda d: d["pawns"][0].update(space="s3"), r"pawns\[0\].space is 's3', where no pawn on leg 'in1'"),
        # Part II: a pawn beside the tomb jumps it; it does not throw and walk.
        (lambda d: d.update(turn=1), r"pawns\[1\].leg is 'tomb', but a pawn there does not throw"),
        (lambda d: d.update(phase="tomb"), r"only a pawn at the tomb has phase 'tomb'"),
        (lambda d: d.update(phase="challenge", challenge={"trap": "mirror", "peg": None}),
         r"not at the mirror being challenged"),
    ],
)
def test_a_saved_state_that_play_cannot_reach_is_named(edit: Any, message: str) -> None:
    data = _saved_at_the_tomb()
    edit(data)
    with pytest.raises(BadGameData, match=message):
        Superstition.from_json(data)


def test_the_saved_state_at_the_tomb_loads_and_plays() -> None:
    data = _saved_at_the_tomb()
    game = Superstition.from_json(data)
    assert game.legal_actions()
