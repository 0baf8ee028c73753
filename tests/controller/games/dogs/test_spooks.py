"""Graveyard Dogs: Spook Actions, Concern, every Haunt, the end and scoring.
Quotes are from the rulebook (../shared/rules/graveyard-dogs.txt)."""

from __future__ import annotations

import pytest

from controller.games import Action, IllegalAction
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import (
    act,
    board,
    ends,
    give,
    kinds,
    put_spook,
    rig,
    roll_as,
    setup_done,
    spook_turn,
)


def test_spooks_move_the_exact_count_orthogonally_through_tokens() -> None:
    """"Move any Spook Token the exact amount of spaces shown on the selected die. You may not
    move it diagonally ... You may move it through other Spook and/or Dog Tokens." """
    game = board()
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(6, 5), (0, 0)]
    spook_turn(game, ghoul, 1)
    assert ends(game, "move_spook") == {(4, 5), (6, 5), (5, 4), (5, 6)}
    with pytest.raises(IllegalAction, match="1 orthogonal steps"):
        act(game, "move_spook", x=6, y=6)
    act(game, "back")
    act(game, "back")
    act(game, "choose", die=1, action="spook")
    game.st.dice = [1, 2]  # a second die of two: the dog on (6, 5) does not block
    act(game, "pick_spook", spook=ghoul.id)
    assert {(7, 5), (6, 6), (5, 5)} <= ends(game, "move_spook")


def test_bats_may_move_diagonally() -> None:
    """"You may not move it diagonally, excepting Bats, who may." """
    game = board()
    bat = put_spook(game, "bat", (5, 5))
    spook_turn(game, bat, 1)
    assert ends(game, "move_spook") == {(x, y) for x in (4, 5, 6) for y in (4, 5, 6)} - {(5, 5)}
    act(game, "move_spook", x=6, y=6)
    assert bat.pos == (6, 6)


def test_bat_walks_of_exact_length_can_come_home() -> None:
    game = board()
    bat = put_spook(game, "bat", (5, 5))
    spook_turn(game, bat, 3)
    reach = ends(game, "move_spook")
    assert (5, 5) in reach and (8, 8) in reach and (9, 5) not in reach


def test_spook_on_a_dog_concern_then_haunt() -> None:
    """"If the Spook Token ends its movement on a space with a Dog Token, the dog does a Concern.
    If any dogs remains in the space, then perform the Haunt" """
    game = board()
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(0, 0), (6, 5)]
    give(game, 1, "red")
    spook_turn(game, ghoul, 1)
    rig(game, 5, (1, 0))  # Concern fails, then the ghoul's pick
    events = act(game, "move_spook", x=6, y=5)
    assert [e.type for e in events] == ["spook_moved", "concern", "haunted"]
    assert game.st.card_snacks[1] == [] and game.st.removed[-1] == "red"
    assert game.st.rolls[-1] == {"seat": 1, "for": "concern", "value": 5}


def test_concern_six_flees_to_the_chosen_adjacent_empty_space() -> None:
    """"Concern- Roll one die. On the result of a 6, move your Dog Token to an adjacent empty
    space if one is available." """
    game = board()
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(0, 0), (6, 5)]
    give(game, 1, "red")
    game.st.board_snacks[(7, 5)] = [game.st.removed.pop()]  # not empty: a snack lies there
    spook_turn(game, ghoul, 1)
    rig(game, 6)
    act(game, "move_spook", x=6, y=5)
    assert {(a.kind, a.player, a.params["x"], a.params["y"]) for a in game.legal_actions()} == {
        ("escape", 1, 6, 4), ("escape", 1, 6, 6), ("escape", 1, 5, 5)}  # the ghoul left (5, 5)
    with pytest.raises(IllegalAction, match="not an empty square"):
        game.apply(Action("escape", 1, {"x": 7, "y": 5}))
    events = game.apply(Action("escape", 1, {"x": 6, "y": 6}))
    assert game.st.dogs[1] == (6, 6)
    assert [e.type for e in events] == ["dog_fled", "haunt_missed"]
    assert game.st.card_snacks[1] == ["red"]


def test_concern_with_one_empty_space_moves_there_and_with_none_stays() -> None:
    game = board()
    ghoul = put_spook(game, "ghoul", (1, 1))
    game.st.dogs = [(0, 1), (0, 0)]  # seat 1 sits in the corner: neighbours (1, 0) and (0, 1)
    spook_turn(game, ghoul, 2)
    rig(game, 6)
    act(game, "move_spook", x=0, y=0)  # (0, 1) holds seat 0's dog, so only (1, 0) is empty
    assert game.st.dogs[1] == (1, 0)
    game = board()
    ghoul = put_spook(game, "ghoul", (1, 1))
    skeleton = put_spook(game, "skeleton", (1, 0))
    game.st.dogs = [(0, 1), (0, 0)]
    give(game, 1, "red")
    spook_turn(game, ghoul, 2)
    rig(game, 6, (1, 0))
    act(game, "move_spook", x=0, y=0)
    assert game.st.dogs[1] == (0, 0) and game.st.card_snacks[1] == []
    assert skeleton.pos == (1, 0)


def test_concern_escape_option() -> None:
    game = board(concern_escape=5)
    ghoul = put_spook(game, "ghoul", (1, 1))
    game.st.dogs = [(0, 1), (0, 0)]
    spook_turn(game, ghoul, 2)
    rig(game, 5)
    act(game, "move_spook", x=0, y=0)
    assert game.st.dogs[1] == (1, 0)


def test_every_dog_in_the_space_does_a_concern() -> None:
    game = board()
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red")
    give(game, 1, "blue")
    spook_turn(game, ghoul, 1)
    rig(game, 2, 3, (1, 0), (1, 0))
    act(game, "move_spook", x=6, y=5)
    assert [r["seat"] for r in game.st.rolls if r["for"] == "concern"] == [0, 1]
    assert game.st.card_snacks == [[], []]


def test_skeleton_takes_one_snack_from_each_dog_up_to_three() -> None:
    """"Skeletons- HAUNT: Remove one Snack Cube at random from all dogs in this space and place
    it on this Spook Token. A Skeleton may carry up to three Snack Cubes." """
    game = board()
    skeleton = put_spook(game, "skeleton", (5, 5), snacks=["yellow"])
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red", "green")
    give(game, 1, "blue")
    spook_turn(game, skeleton, 1)
    rig(game, 1, 1, (2, 0), (1, 0))
    act(game, "move_spook", x=6, y=5)
    assert skeleton.snacks == ["yellow", "red", "blue"]
    assert game.st.card_snacks == [["green"], []]


def test_full_skeleton_may_not_haunt() -> None:
    """"If a Skeleton is already carrying three snack cubes, they may not Haunt." """
    game = board()
    skeleton = put_spook(game, "skeleton", (5, 5), snacks=["yellow", "yellow", "green"])
    game.st.dogs = [(0, 0), (6, 5)]
    give(game, 1, "blue")
    spook_turn(game, skeleton, 1)
    rig(game, 1)
    act(game, "move_spook", x=6, y=5)
    assert game.st.card_snacks[1] == ["blue"] and len(skeleton.snacks) == 3


def test_skeleton_one_option_takes_a_single_cube_from_all_dogs_together() -> None:
    game = board(skeleton_haunt="one")
    skeleton = put_spook(game, "skeleton", (5, 5))
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red")
    give(game, 1, "blue", "green")
    spook_turn(game, skeleton, 1)
    rig(game, 1, 1, (3, 2))
    act(game, "move_spook", x=6, y=5)
    assert skeleton.snacks == ["green"] and game.st.card_snacks == [["red"], ["blue"]]


def test_gargoyle_victims_take_two_spook_actions_next_turn() -> None:
    """"Gargoyles- HAUNT: All Dogs in this space may not perform a Dog Action their next turn.
    Rather, they perform two Spook Actions." """
    game = board()
    gargoyle = put_spook(game, "gargoyle", (5, 5))
    game.st.dogs = [(0, 0), (6, 5)]
    spook_turn(game, gargoyle, 1)
    rig(game, 1)
    act(game, "move_spook", x=6, y=5)
    assert game.public_view()["cards"][1]["two_spook_actions_next"] is True
    act(game, "choose", die=1, action="dog")
    act(game, "move_dog", x=1, y=0)
    assert game.st.seat == 1
    roll_as(game, 3, 4)
    assert {a.params["action"] for a in game.legal_actions()} == {"spook"}
    before = game.to_json()
    with pytest.raises(IllegalAction, match="no dog action"):
        game.apply(Action("choose", 1, {"die": 0, "action": "dog"}))
    assert game.to_json() == before
    for die in (0, 1):
        game.apply(Action("choose", 1, {"die": die, "action": "spook"}))
        game.apply(Action("pick_spook", 1, {"spook": game.st.spooks[-1].id}))
        game.apply(next(a for a in game.legal_actions() if a.kind == "move_spook"))
    assert game.st.seat == 0
    roll_as(game, 1, 1)
    act(game, "choose", die=0, action="spook")
    act(game, "back")
    game.st.seat = 1  # seat 1's following turn is back to normal
    game.st.phase = "roll"
    roll_as(game, 2, 2)
    assert {a.params["action"] for a in game.legal_actions()} == {"dog", "spook"}


def test_gargoyle_haunting_your_own_dog_counts_from_your_next_turn() -> None:
    game = board()
    gargoyle = put_spook(game, "gargoyle", (5, 5))
    game.st.dogs = [(6, 5), (0, 0)]
    spook_turn(game, gargoyle, 1)
    rig(game, 1)
    act(game, "move_spook", x=6, y=5)
    assert kinds(game) == {"choose"} and game.st.slots == ["dog"]  # this turn's Dog Action stays
    assert game.st.gargoyled == [True, False]


def test_ghoul_removes_a_snack_from_every_dog_from_the_game() -> None:
    """"Ghouls- HAUNT: Remove a Snack Cube at random from the game from all dogs in this space." """
    game = board()
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red", "green")
    give(game, 1, "blue")
    removed = len(game.st.removed)
    spook_turn(game, ghoul, 1)
    rig(game, 1, 1, (2, 1), (1, 0))
    act(game, "move_spook", x=6, y=5)
    assert game.st.card_snacks == [["red"], []]
    assert game.st.removed[removed:] == ["green", "blue"]
    assert ghoul.snacks == []


def test_bat_carries_one_snack_and_swaps_it() -> None:
    """"Bats- HAUNT: Remove a Snack Cube at random from any dog in this space and place it on this
    Spook Token. Bats may only carry one Snack Cube at a time. If a Bat already has a Snack Cube,
    switch it out for a random one from the Haunted Dog." """
    game = board()
    bat = put_spook(game, "bat", (5, 5))
    game.st.dogs = [(0, 0), (6, 5)]
    give(game, 1, "red", "blue")
    spook_turn(game, bat, 1)
    rig(game, 1, (2, 1))
    act(game, "move_spook", x=6, y=5)
    assert bat.snacks == ["blue"] and game.st.card_snacks[1] == ["red"]
    game.st.seat, game.st.phase, game.st.tasks, game.st.dice_use = 0, "roll", [], [None, None]
    spook_turn(game, bat, 2)
    rig(game, 1, (1, 0))
    act(game, "move_spook", x=6, y=5)
    assert bat.snacks == ["red"] and game.st.card_snacks[1] == ["blue"]


def test_bat_with_two_victims_the_mover_chooses() -> None:
    game = board()
    bat = put_spook(game, "bat", (5, 5))
    game.st.dogs = [(6, 5), (6, 5)]
    give(game, 0, "red")
    give(game, 1, "blue")
    spook_turn(game, bat, 1)
    rig(game, 1, 1, (1, 0))
    act(game, "move_spook", x=6, y=5)
    assert {(a.kind, a.player, a.params["dog"]) for a in game.legal_actions()} == {
        ("bat_target", 0, 0), ("bat_target", 0, 1)}
    with pytest.raises(IllegalAction, match="the bat can rob only a dog on its square with snack cubes$"):
        act(game, "bat_target", dog=3)
    act(game, "bat_target", dog=1)
    assert bat.snacks == ["blue"] and game.st.card_snacks == [["red"], []]


def test_spook_action_without_spooks_is_skipped() -> None:
    game = setup_done(2, seed=5)
    for s in game.st.spooks:
        s.pos, s.holder = None, 0
    game.apply(game.legal_actions()[0])
    roll_as(game, 2, 3)
    events = act(game, "choose", die=1, action="spook")
    assert [e.type for e in events] == ["die_chosen", "spook_action_skipped"]
    assert game.st.dice_use == [None, "spook"] and not game.is_over


def test_no_end_before_all_sixteen_tiles_are_placed() -> None:
    """"The game may not end until all 16 Tile Cards have been placed into the Graveyard." """
    game = setup_done(2, seed=5)
    for s in game.st.spooks:
        s.pos, s.holder = None, 0
    game.st.removed.extend(c for cubes in game.st.board_snacks.values() for c in cubes)
    game.st.board_snacks = {}
    game.apply(game.legal_actions()[0])
    assert not game.is_over and game.st.phase == "roll"


def test_the_last_tile_can_end_the_game_at_once() -> None:
    """"The game ends immediately once ... there are no more Spooks in the Graveyard." """
    game = board()
    last = game.st.placed.pop()
    game.st.drawn, game.st.phase = last.tile, "place_tile"
    for s in game.st.spooks:
        if s.pos is not None:
            s.pos, s.holder = None, 1
    game.apply(Action("place_tile", 0, {"x": last.x, "y": last.y, "rotation": 0}))
    assert game.is_over and game.current_player is None and game.legal_actions() == []


def test_collecting_the_last_snack_ends_the_game_immediately() -> None:
    """"The game ends immediately once all the Snack Cubes have been removed from the Graveyard" """
    game = board()
    game.st.dogs = [(11, 9), (0, 0)]
    roll_as(game, 2, 4)
    act(game, "choose", die=0, action="dog")
    events = act(game, "move_dog", x=11, y=11)
    assert game.is_over and events[-1].type == "game_over"
    assert game.st.dice_use == ["dog", None]  # the unused die no longer matters
    with pytest.raises(IllegalAction, match="the game is over"):
        act(game, "choose", die=1, action="spook")


def test_carried_snacks_option_keeps_the_game_going() -> None:
    game = board(carried_snacks_in_graveyard=True)
    put_spook(game, "bat", (3, 3), snacks=["red"])
    game.st.dogs = [(11, 9), (0, 0)]
    roll_as(game, 2, 4)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=11, y=11)
    assert not game.is_over
    default = board()
    put_spook(default, "bat", (3, 3), snacks=["red"])
    default.st.dogs = [(11, 9), (0, 0)]
    roll_as(default, 2, 4)
    act(default, "choose", die=0, action="dog")
    act(default, "move_dog", x=11, y=11)
    assert default.is_over


def test_capturing_the_last_spook_ends_the_game() -> None:
    """"... OR there are no more Spooks in the Graveyard." """
    game = board()
    game.st.dogs = [(0, 9), (5, 5)]
    last = game.st.spooks_on_board()
    assert [s.pos for s in last] == [(0, 11)]
    roll_as(game, 2, 4)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=0, y=11)
    assert kinds(game) == {"attack", "done"}
    rig(game, 6)
    act(game, "attack", spook=last[0].id)
    assert game.is_over and game.st.board_snacks  # a snack is still out, but no spook is


def test_scoring_three_a_spook_two_own_colour_one_other() -> None:
    """"Three points for any Spook Tokens on their Dog Card, two points for any Snack Cubes of
    their color on their Dog Card, and one point for any other Snack Cube" """
    game = board()
    give(game, 0, "red", "red", "blue")  # seat 0 is red: 2 + 2 + 1, plus the spooks clear_tokens parked
    give(game, 1, "blue", "yellow")      # seat 1 is blue: 2 + 1
    held = sum(1 for s in game.st.spooks if s.holder == 0)
    game.st.dogs = [(11, 9), (0, 0)]
    roll_as(game, 2, 4)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=11, y=11)
    view = game.public_view()
    snack_points = sum(2 if c == "red" else 1 for c in game.st.card_snacks[0])
    assert view["scores"] == [snack_points + 3 * held, 3]
    assert view["winners"] == [0] == game.winners and view["friends"] is False


def test_tied_players_become_friends() -> None:
    """"If there is a tie, the tied players become friends." """
    game = board()
    parked = [s for s in game.st.spooks if s.holder == 0]
    for n, spook in enumerate(parked):
        spook.holder = n % 2
    if len(parked) % 2:
        parked[-1].pos, parked[-1].holder = (10, 0), None
    colour = game.st.board_snacks[(11, 11)][0]
    give(game, 1, "blue" if colour == "red" else "yellow")  # the same points as seat 0's last cube
    game.st.dogs = [(11, 9), (0, 0)]
    roll_as(game, 2, 4)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=11, y=11)
    assert game.is_over
    scores = game.public_view()["scores"]
    assert scores[0] == scores[1] > 0
    assert game.winners == [0, 1] and game.public_view()["friends"] is True


def test_two_concerned_dogs_choose_in_seat_order_and_a_save_resumes_exactly() -> None:
    game = board(3)
    ghoul = put_spook(game, "ghoul", (5, 5))
    game.st.dogs = [(0, 0), (6, 5), (6, 5)]
    give(game, 1, "red")
    give(game, 2, "blue")
    spook_turn(game, ghoul, 1)
    rig(game, 6, 6)
    act(game, "move_spook", x=6, y=5)
    assert {a.player for a in game.legal_actions()} == {1}
    saved = DogsGame.from_json(game.to_json())
    for g in (game, saved):
        g.apply(Action("escape", 1, {"x": 7, "y": 5}))
        assert {a.player for a in g.legal_actions()} == {2}
        assert (7, 5) not in {(a.params["x"], a.params["y"]) for a in g.legal_actions()}  # seat 1 is there now
        g.apply(Action("escape", 2, {"x": 6, "y": 4}))
    assert saved.to_json() == game.to_json()
    assert game.st.dogs == [(0, 0), (7, 5), (6, 4)] and game.st.card_snacks[1:] == [["red"], ["blue"]]
    assert game.st.slots == ["dog"] and game.st.seat == 0


def test_bork_a_bat_onto_a_dog_robs_it_at_once() -> None:
    game = board()
    game.st.dogs = [(1, 1), (1, 5)]
    bat = put_spook(game, "bat", (2, 5))
    give(game, 1, "blue")
    roll_as(game, 2, 3)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=1, y=3)
    act(game, "bork", token="spook", id=bat.id, x=1, y=5)
    assert bat.snacks == ["blue"]  # one dog with snacks: no choice to make
    assert game.st.rolls[-1]["for"] == "bork"


def test_bat_choice_inside_a_bork_comes_before_the_bork_roll() -> None:
    game = board(3)
    game.st.dogs = [(1, 1), (1, 5), (1, 5)]
    bat = put_spook(game, "bat", (2, 5))
    give(game, 1, "blue")
    give(game, 2, "green")
    roll_as(game, 2, 3)
    act(game, "choose", die=0, action="dog")
    act(game, "move_dog", x=1, y=3)
    rolls = len(game.st.rolls)
    act(game, "bork", token="spook", id=bat.id, x=1, y=5)
    assert kinds(game) == {"bat_target"} and len(game.st.rolls) == rolls  # no Bork roll yet
    rig(game, (1, 0), 2, (1, 0))
    act(game, "bat_target", dog=2)
    assert bat.snacks == ["green"] and game.st.card_snacks[2] == []
    assert game.st.rolls[-1] == {"seat": 0, "for": "bork", "value": 2}
