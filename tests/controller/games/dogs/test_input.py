"""Graveyard Dogs: odd input from outside (new-game options, saved states) is
refused with a ValueError naming the problem, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import Action, BadGameData, IllegalAction
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import lab, rig, setup_done


@pytest.mark.parametrize("colour", [{"a": 1}, ["blue"], 3, None])
def test_a_colour_that_is_not_a_name_is_refused(colour: Any) -> None:
    # Setup: "Each player takes a Dog Card ... and the Dog Token matching their card's portrait's color."
    with pytest.raises(IllegalAction, match="option 'colours'"):
        DogsGame.new(["P0", "P1"], 1, {"colours": ["red", colour]})


def _saved() -> dict[str, Any]:
    return json.loads(json.dumps(setup_done(2, seed=3).to_json()))


@pytest.mark.parametrize(
    "x, y, message",
    [
        (10**20, 0, "lines up with the graveyard along 0 squares"),
        (10**9, 0, "lines up with the graveyard along 0 squares"),
        (0, 0, "overlaps the tiles placed before it"),
    ],
)
def test_a_saved_tile_must_line_up_with_the_graveyard(x: int, y: int, message: str) -> None:
    """SETUP: "making sure that at least two squares on their Tile Cards line up with the
    already placed Tile Cards so as to form a continuous game board". A saved state whose
    tile lies apart (or on top of another) is refused before the board is built from it."""
    data = _saved()
    data["placed"][1].update(x=x, y=y)
    with pytest.raises(BadGameData, match=message):
        DogsGame.from_json(data)


def test_the_first_saved_tile_is_in_the_middle() -> None:
    data = _saved()
    for placement in data["placed"]:
        placement["x"] += 30
    with pytest.raises(BadGameData, match=r"the first tile is at \(30, 0\)"):
        DogsGame.from_json(data)


def _waiting_to_escape() -> DogsGame:
    game = lab(2)
    st = game.st
    st.phase, st.dice, st.dice_use, st.slots = "act", [1, 1], ["dog", None], ["spook"]
    st.tasks = [{"t": "escape", "seat": 1, "options": [[1, 0], [0, 1]]}]
    return game


def test_editing_a_saved_state_or_a_view_does_not_reach_into_the_game() -> None:
    """Concern: "move your Dog Token to an adjacent empty space". The squares offered are the
    game's own; a caller editing what it was handed must not add one."""
    game = _waiting_to_escape()
    game.to_json()["tasks"][0]["options"].append([5, 5])
    game.public_view()["pending"]["options"].append([6, 6])
    data = game.to_json()
    loaded = DogsGame.from_json(data)
    data["tasks"][0]["options"].append([7, 7])
    for g in (game, loaded):
        assert g.st.tasks[0]["options"] == [[1, 0], [0, 1]]
        with pytest.raises(IllegalAction, match="not an empty square next to your dog"):
            g.apply(Action("escape", 1, {"x": 5, "y": 5}))


def _choosing_the_dog_move() -> dict[str, Any]:
    game = lab(2)
    game.st.rng.state = 7
    game.apply(Action("roll", 0))
    game.apply(Action("choose", 0, {"die": 0, "action": "dog"}))
    assert game.step_name() == "move_dog"
    return json.loads(json.dumps(game.to_json()))


def test_a_saved_pending_move_must_use_a_die_chosen_for_it() -> None:
    """GAMEPLAY: "They use one to perform a Dog Action, and the other to perform a Spook
    Action". A saved Dog Action on a die nobody chose for it is refused, not played."""
    data = _choosing_the_dog_move()
    data["dice_use"] = [None, None]
    with pytest.raises(BadGameData, match="uses die 0 but that die is for None"):
        DogsGame.from_json(data)


def test_a_saved_spook_move_must_move_a_spook_in_the_graveyard() -> None:
    """SPOOK ACTION: "Move any Spook Token" on the board; one on a dog card cannot move."""
    data = _choosing_the_dog_move()
    data["dice_use"] = ["spook", None]
    data["slots"] = ["dog"]
    data["tasks"] = [{"t": "move_spook", "die": 0, "spook": 0}]
    data["spooks"][0].update(pos=None, holder=1)
    with pytest.raises(BadGameData, match="moves spook 0, which is not in the graveyard"):
        DogsGame.from_json(data)


def test_a_saved_min_contact_longer_than_a_tile_edge_is_refused() -> None:
    """A new game refuses it ("a tile edge has only 2 squares"); a saved state with it used to
    load, leaving the seat that must place the next tile with nothing legal to do."""
    tiles = {"size": 2, "tiles": [{"id": f"S{i}", "name": f"Small {i}", "grid": ["J.", ".."]} for i in range(16)]}
    game = DogsGame.new(["P0", "P1"], 1, {"tiles": tiles})
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    data = json.loads(json.dumps(game.to_json()))
    assert DogsGame.from_json(data).legal_actions()  # as saved, the next tile has somewhere to go
    data["options"]["min_contact"] = 3
    with pytest.raises(BadGameData, match="option 'min_contact' is 3 but a tile edge has only 2 squares"):
        DogsGame.from_json(data)


def test_a_saved_game_past_its_end_is_refused() -> None:
    """"The game ends immediately once all the Snack Cubes have been removed from the Graveyard OR
    there are no more Spooks in the Graveyard": a saved game with every tile out and no spook left
    cannot still be going on (it used to load and accept a roll before it ended)."""
    game = lab(2)
    for spook in game.st.spooks:
        spook.pos, spook.holder = None, 0
    with pytest.raises(BadGameData, match="should have ended"):
        DogsGame.from_json(json.loads(json.dumps(game.to_json())))
    game = lab(2)
    game.st.board_snacks = {}
    game.st.removed = [c for c in ("red", "blue", "green", "yellow") for _ in range(4)]
    with pytest.raises(BadGameData, match="should have ended"):
        DogsGame.from_json(json.loads(json.dumps(game.to_json())))



def test_a_saved_game_over_before_its_end_is_refused() -> None:
    """"The game may not end until all 16 Tile Cards have been placed": a game marked over with
    spooks and cubes still in the graveyard, or with tiles still to place, is not one play can reach."""
    game = lab(2)
    game.st.phase = "over"
    with pytest.raises(BadGameData, match="over before its end"):
        DogsGame.from_json(json.loads(json.dumps(game.to_json())))
    game = setup_done(2, seed=3)
    for spook in game.st.spooks:
        spook.pos, spook.holder = None, 0
    assert game.st.drawn is not None
    game.st.deck.insert(0, game.st.drawn)
    game.st.phase, game.st.drawn = "over", None
    with pytest.raises(BadGameData, match="over before its end"):
        DogsGame.from_json(json.loads(json.dumps(game.to_json())))


def test_a_game_that_ended_in_play_saves_and_loads() -> None:
    """Capturing the last spook ends the game; the finished game loads as it was, winners and all."""
    game = lab(2)
    for spook in game.st.spooks[1:]:
        spook.pos, spook.holder = None, 1
    game.st.spooks[0].pos = (1, 0)
    rig(game, 1, 1, 6)
    game.apply(Action("roll", 0))
    game.apply(Action("choose", 0, {"die": 0, "action": "dog"}))
    game.apply(Action("move_dog", 0, {"x": 1, "y": 0}))
    game.apply(Action("attack", 0, {"spook": 0}))
    assert game.is_over
    data = json.loads(json.dumps(game.to_json()))
    again = DogsGame.from_json(data)
    assert again.to_json() == data and again.is_over and again.winners == game.winners
