"""Graveyard Dogs: illegal and malformed input is refused with a reason, and
changes nothing; bad saved states are refused naming the problem."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import Action, BadGameData, IllegalAction, MalformedAction
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import (
    act,
    clear_tokens,
    lab,
    roll_as,
    setup_done,
)


def refused(game: DogsGame, action: Action, message: str, error: type[Exception] = IllegalAction) -> None:
    before = json.dumps(game.to_json(), sort_keys=True)
    rng = game.st.rng.state
    with pytest.raises(error, match=message):
        game.apply(action)
    assert json.dumps(game.to_json(), sort_keys=True) == before
    assert game.st.rng.state == rng


def test_wrong_player_is_refused() -> None:
    game = setup_done(3, seed=2)
    refused(game, Action("place_tile", 1, {"x": 3, "y": 0, "rotation": 0}), "it is P0 who acts now, not P1")
    refused(game, Action("place_tile", None, {"x": 3, "y": 0, "rotation": 0}), "it is P0 who acts now, not that player")


def test_wrong_phase_is_refused() -> None:
    game = setup_done(2, seed=2)
    refused(game, Action("roll", 0), "you cannot roll the dice now: the game waits for the drawn tile to be placed")
    refused(game, Action("move_dog", 0, {"x": 0, "y": 0}), "you cannot move your dog now")
    game.apply(game.legal_actions()[0])
    refused(game, Action("place_tile", 0, {"x": 9, "y": 9, "rotation": 0}), "you cannot place a tile now")
    refused(game, Action("choose", 0, {"die": 0, "action": "dog"}), "waits for the dice to be rolled")
    refused(game, Action("done", 0), "you cannot stop here now")
    refused(game, Action("escape", 0, {"x": 1, "y": 1}), "you cannot flee now")


@pytest.mark.parametrize(
    "action, message",
    [
        (Action("place_tile", 0, {"x": 3, "y": 0}), "missing param 'rotation'"),
        (Action("place_tile", 0, {"x": "3", "y": 0, "rotation": 0}), "'x' must be an integer"),
        (Action("place_tile", 0, {"x": True, "y": 0, "rotation": 0}), "'x' must be an integer"),
        (Action("place_tile", 0, {"x": 3, "y": 0, "rotation": 0, "flip": 1}), "unexpected param"),
        (Action("place_tile", 0, {"x": 3, "y": 0, "rotation": 4}), "rotation must be 0-3"),
        (Action("place_tile", 0, {"x": 3.5, "y": 0, "rotation": 0}), "must be an integer"),
        (Action("teleport", 0), "unknown action 'teleport'"),
    ],
)
def test_malformed_or_impossible_params_are_refused(action: Action, message: str) -> None:
    refused(setup_done(2, seed=2), action, message)


def test_malformed_params_are_malformed_actions() -> None:
    game = setup_done(2, seed=2)
    refused(game, Action("place_tile", 0, {"x": "a", "y": 0, "rotation": 0}), "integer", MalformedAction)
    game.apply(game.legal_actions()[0])
    refused(game, Action("roll", 0, {"twice": True}), "unexpected param", MalformedAction)
    roll_as(game, 3, 4)
    refused(game, Action("choose", 0, {"die": 2, "action": "dog"}), "'die' must be 0 or 1", MalformedAction)
    refused(game, Action("choose", 0, {"die": True, "action": "dog"}), "'die' must be 0 or 1", MalformedAction)
    refused(game, Action("choose", 0, {"die": 1.0, "action": "dog"}), "'die' must be 0 or 1", MalformedAction)
    refused(game, Action("choose", 0, {"die": [0], "action": ["dog"]}), "'action' must be", MalformedAction)
    refused(game, Action("choose", 0, {"die": 0, "action": "cat"}), "'action' must be", MalformedAction)
    refused(game, Action("choose", 0, {"die": 0, "action": "dog", "x": 1}), "unexpected", MalformedAction)


@pytest.mark.parametrize("raw",
        ['{"kind": "roll", "player": 0', '["roll"]', '{"player": 0}', '{"kind": "roll", "player": "zero"}'])
def test_malformed_json_never_reaches_the_game(raw: str) -> None:
    with pytest.raises(MalformedAction):
        Action.from_json(raw)


def test_bad_targets_in_the_dog_and_spook_steps() -> None:
    game = lab(2)
    clear_tokens(game)
    game.st.dogs = [(1, 1), (5, 5)]
    roll_as(game, 2, 3)
    act(game, "choose", die=0, action="dog")
    refused(game, Action("move_dog", 0, {"x": 50, "y": 50}), "exactly 2 orthogonal steps")
    refused(game, Action("move_dog", 0, {"x": 2, "y": 1}), "exactly 2 orthogonal steps")
    act(game, "back")
    act(game, "choose", die=1, action="spook")
    refused(game, Action("pick_spook", 0, {"spook": 99}), "that spook is not in the graveyard")
    held = next(s for s in game.st.spooks if s.holder is not None)
    refused(game, Action("pick_spook", 0, {"spook": held.id}), "the [a-z ]+ is not in the graveyard")
    refused(game, Action("wrestle", 0, {"dog": 1}), "you cannot wrestle now")


def test_over_means_over() -> None:
    game = lab(2)
    clear_tokens(game)
    game.st.dogs = [(11, 9), (0, 0)]
    roll_as(game, 2, 2)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=11, y=11)
    assert game.is_over
    refused(game, Action("choose", 0, {"die": 1, "action": "spook"}), "the game is over")
    assert game.legal_actions() == []


def test_apply_needs_an_action() -> None:
    game = setup_done()
    with pytest.raises(MalformedAction, match="expected an Action"):
        game.apply({"kind": "roll", "player": 0})  # type: ignore[arg-type]


def test_player_view_needs_a_real_seat() -> None:
    game = setup_done()
    for seat in (-1, 2, "0", True):
        with pytest.raises(IllegalAction, match="no seat"):
            game.player_view(seat)  # type: ignore[arg-type]


def saved() -> dict[str, Any]:
    game = lab(2)
    return json.loads(json.dumps(game.to_json()))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(game="terror"), "for game 'terror'"),
        (lambda d: d.pop("phase"), "lacks 'phase'"),
        (lambda d: d.update(phase="nap"), "unknown phase 'nap'"),
        (lambda d: d.update(phase="act", dice=[2, 3], tasks=[{"t": "escape", "seat": 1, "options": [[1]]}]),
         "bad choices"),
        (lambda d: d.update(phase="act", dice=[2, 3], tasks=[{"t": "bat_target", "spook": 0, "options": [7]}]),
         "bad choices"),
        (lambda d: d.update(phase="act", dice=[2, 3], tasks=[{"t": "bork_attack", "seat": 1, "spooks": []}]),
         "bad choices"),
        (lambda d: d.update(rng=12), "rng state"),
        (lambda d: d["card_snacks"][0].append("red"), "snack cubes are not 4 of each colour"),
        (lambda d: d["removed"].append("pink"), "snack cubes"),
        (lambda d: d["spooks"][0].update(kind="vampire"), "spook tokens are not two of each kind"),
        (lambda d: d["spooks"][0].update(holder=0), "either on a square or on a dog card"),
        (lambda d: d.update(dogs=[[0, 0], [99, 99]]), "dog 1 is off the graveyard"),
        (lambda d: d["spooks"][1].update(pos=[-5, 0]), "spook 1 is off the graveyard"),
        (lambda d: d["placed"].pop(), "not exactly the tile set"),
        (lambda d: d["placed"][0].update(rotation=7), "rotation outside 0-3"),
        (lambda d: d.update(colours=["red", "red"]), "bad dog colours"),
        (lambda d: d.update(seat=5), "seat 5 out of range"),
        (lambda d: d.update(setup_left=1), "1 seats left to set up does not fit phase 'roll'"),
        (lambda d: d.update(setup_left=-1), "-1 seats left"),
        (lambda d: d.update(dice=[7, 1]), "bad dice"),
        (lambda d: d.update(tasks=[{"t": "dance"}]), "unknown pending step"),
        (lambda d: d.update(tasks=[{"t": "move_dog"}]), "needs exactly \\['die'\\]"),
        (lambda d: d.update(tasks=[{"t": "move_dog", "die": 0}]), "names die 0 but the dice are None"),
        (lambda d: d.update(tasks=[{"t": "haunt", "spook": 40}]), "unknown spook 40"),
        (lambda d: d.update(tasks=[{"t": "concern", "seat": 9, "spook": 0}]), "unknown seat 9"),
        (lambda d: d.update(phase="act"), "no dice are rolled"),
        (lambda d: d.update(phase="place_tile"), "a tile is drawn only to be placed"),
        (lambda d: d.update(drawn=""), "not exactly the tile set"),
        (lambda d: d["tasks"].append({"t": {"nested": 1}}), "unknown pending step"),
        (lambda d: d.update(dogs=[[0, 0], None]), "every dog must be on the graveyard"),
        (lambda d: d["options"].update(attack_target=9), "'attack_target'"),
        (lambda d: d["tiles"][0].update(grid=["...", "...", "..."]), "exactly one Jack"),
        (lambda d: d.update(turn="one"), "expected an integer"),
        (lambda d: d.update(gargoyled=[False]), "'gargoyled' has 1 entries"),
    ],
)
def test_bad_saved_states_are_refused(mutate, message: str) -> None:
    data = saved()
    mutate(data)
    with pytest.raises(BadGameData, match=message):
        DogsGame.from_json(data)


def test_saved_state_must_be_an_object() -> None:
    with pytest.raises(BadGameData, match="JSON object"):
        DogsGame.from_json(["dogs"])  # type: ignore[arg-type]
