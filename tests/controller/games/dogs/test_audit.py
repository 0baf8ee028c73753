"""Graveyard Dogs: the rulebook audit's rows (snack cubes are always collected, a skeleton
short of room picks its victims at random, a full skeleton says it did not haunt).
Quotes are from ../shared/rules/graveyard-dogs.txt."""

from __future__ import annotations

import pytest

from controller.games import IllegalAction
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import (
    act,
    board,
    dog_turn,
    give,
    kinds,
    put_spook,
    rig,
    spook_turn,
)

# "If you end the action on a space with another Dog Token you may perform a Wrestle. If you end
# your action on a space with a Spook Token you may perform an Attack. If you end your action on a
# space with a Snack Cube, collect it and place it on your Dog Card."


def snack_at(game: DogsGame, sq: tuple[int, int]) -> str:
    colour = game.st.removed.pop()
    game.st.board_snacks[sq] = [colour]
    return colour


def test_ending_on_a_cube_and_a_spook_collects_the_cube_and_may_still_attack() -> None:
    game = board()
    colour = snack_at(game, (3, 0))
    ghoul = put_spook(game, "ghoul", (3, 0))
    game.st.dogs = [(1, 0), (6, 6)]
    dog_turn(game, 2)
    events = act(game, "move_dog", x=3, y=0)
    assert [e.type for e in events][:2] == ["dog_moved", "snack_collected"]
    assert game.st.card_snacks[0] == [colour] and (3, 0) not in game.st.board_snacks
    assert kinds(game) == {"attack", "done"}  # no "collect" choice: it already happened
    rig(game, 6)
    act(game, "attack", spook=ghoul.id)
    assert ghoul.holder == 0 and game.st.card_snacks[0] == [colour]


def test_ending_on_a_cube_and_a_dog_collects_the_cube_and_may_still_wrestle() -> None:
    game = board()
    colour = snack_at(game, (3, 0))
    game.st.dogs = [(1, 0), (3, 0)]
    give(game, 1, "blue")
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    assert game.st.card_snacks[0] == [colour]
    assert kinds(game) == {"wrestle", "done"}


def test_a_dog_and_a_spook_on_the_square_allow_both_the_wrestle_and_the_attack() -> None:
    game = board()
    ghoul = put_spook(game, "ghoul", (3, 0))
    game.st.dogs = [(1, 0), (3, 0)]
    give(game, 1, "blue")
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    assert kinds(game) == {"wrestle", "attack", "done"}
    rig(game, 3, 3)  # a tied wrestle
    act(game, "wrestle", dog=1)
    assert kinds(game) == {"attack", "done"}
    rig(game, 6)
    act(game, "attack", spook=ghoul.id)
    assert ghoul.holder == 0 and game.st.tasks == []


def test_ending_on_a_lone_cube_collects_it_and_offers_no_bork() -> None:
    # A square with a cube is not "an empty space", so "you may perform a Bork" does not apply.
    game = board()
    colour = snack_at(game, (3, 0))
    put_spook(game, "ghoul", (4, 0))  # in Bork range
    game.st.dogs = [(1, 0), (6, 6)]
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    assert game.st.card_snacks[0] == [colour]
    assert "bork" not in kinds(game) and game.st.phase == "act" and not game.st.tasks


# "Skeletons- HAUNT: Remove one Snack Cube at random from all dogs in this space and place it on
# this Spook Token. A Skeleton may carry up to three Snack Cubes."
def test_a_skeleton_short_of_room_draws_its_victims_at_random() -> None:
    game = board()
    skeleton = put_spook(game, "skeleton", (5, 5), snacks=["yellow", "yellow"])
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red")
    give(game, 1, "blue")
    spook_turn(game, skeleton, 1)
    # two Concern rolls that do not flee, then the random pick of one dog of the two: seat 1
    rig(game, 1, 1, (2, 1), (1, 0))
    events = act(game, "move_spook", x=6, y=5)
    assert skeleton.snacks == ["yellow", "yellow", "blue"]
    assert game.st.card_snacks == [["red"], []]
    haunted = next(e for e in events if e.type == "haunted")
    assert haunted.data["taken"] == {"1": "blue"}


def test_a_skeleton_short_of_room_can_pick_either_dog() -> None:
    picked = set()
    for k in (0, 1):
        game = board()
        skeleton = put_spook(game, "skeleton", (5, 5), snacks=["yellow", "yellow"])
        game.st.dogs = [(6, 5), (6, 5)]
        give(game, 0, "red")
        give(game, 1, "blue")
        spook_turn(game, skeleton, 1)
        rig(game, 1, 1, (2, k), (1, 0))
        act(game, "move_spook", x=6, y=5)
        picked.add(skeleton.snacks[-1])
    assert picked == {"red", "blue"}


# "If a Skeleton is already carrying three snack cubes, they may not Haunt."
def test_a_full_skeleton_reports_that_it_did_not_haunt() -> None:
    game = board()
    skeleton = put_spook(game, "skeleton", (5, 5), snacks=["yellow", "yellow", "green"])
    game.st.dogs = [(0, 0), (6, 5)]
    give(game, 1, "blue")
    spook_turn(game, skeleton, 1)
    rig(game, 1)
    events = act(game, "move_spook", x=6, y=5)
    types = [e.type for e in events]
    assert "haunted" not in types
    refused = next(e for e in events if e.type == "haunt_refused")
    assert refused.data["spook"] == skeleton.id and "three" in refused.data["reason"]
    assert game.st.card_snacks[1] == ["blue"]


# "Wrestle- Select one dog in the same space as you. ... If no other dogs in the space have any
# snack cubes, then you may not do a Wrestle." The cubes decide whether a Wrestle may happen, not
# which dog is picked.
def test_with_a_dog_with_cubes_there_a_dog_without_cubes_may_be_wrestled_too() -> None:
    game = board(players=3)
    game.st.dogs = [(1, 0), (3, 0), (3, 0)]
    give(game, 1, "blue")
    give(game, 0, "red")
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    wrestles = {a.params["dog"] for a in game.legal_actions() if a.kind == "wrestle"}
    assert wrestles == {1, 2}
    rig(game, 2, 5, (1, 0))  # seat 2 rolls higher and takes the mover's only cube
    events = act(game, "wrestle", dog=2)
    assert events[0].data["winner"] == 2 and events[0].data["snack"] == "red"
    assert game.st.card_snacks == [[], ["blue"], ["red"]]


def test_no_wrestle_when_no_other_dog_on_the_square_has_cubes() -> None:
    game = board(players=3)
    game.st.dogs = [(1, 0), (3, 0), (3, 0)]
    give(game, 0, "red")
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    assert kinds(game) == {"choose"}  # nothing to do on the square: the step is skipped
    game = board(players=3)
    game.st.dogs = [(1, 0), (3, 0), (3, 0)]
    give(game, 1, "blue")
    dog_turn(game, 2)
    act(game, "move_dog", x=3, y=0)
    with pytest.raises(IllegalAction, match="only when a dog there has snack cubes"):
        act(game, "wrestle", dog=0)


@pytest.mark.parametrize("bare, dog, spook_from, filled", [
    ((3, 0), (4, 0), (4, 2), [(5, 0)]),  # a Jack-O-Lantern whose cube is gone
    ((5, 2), (5, 1), (5, 3), [(5, 0), (6, 1)]),  # a Gravestone whose spook has left
])
def test_a_concerned_dog_may_flee_to_a_bare_jack_o_lantern_or_gravestone(
        bare: tuple[int, int], dog: tuple[int, int], spook_from: tuple[int, int],
        filled: list[tuple[int, int]]) -> None:
    """"Special Note: While Gravestones and Jack-O-Lanterns have Spooks and Snacks placed on them when
    they first appear, they are considered empty spaces when there are no Tokens or Cubes upon them."
    Concern: "move your Dog Token to an adjacent empty space if one is available." Squares with a cube
    or a dog are not empty, so the bare one is the only way out."""
    game = board()
    assert game.geo.features[bare] in ("J", "G")
    game.st.dogs = [(4, 1), dog]  # seat 0's dog fills one neighbour
    for sq in filled:
        snack_at(game, sq)
    ghoul = put_spook(game, "ghoul", spook_from)
    spook_turn(game, ghoul, 2)
    rig(game, 6)
    events = act(game, "move_spook", x=dog[0], y=dog[1])
    concern = next(e for e in events if e.type == "concern")
    assert concern.data["fled"] and game.st.dogs[1] == bare
    assert "haunted" not in [e.type for e in events]  # no dog stayed to be haunted
