"""Graveyard Dogs: the turn, the dice, the Dog Action and its special actions.
Quotes are from the rulebook (../shared/rules/graveyard-dogs.txt)."""

from __future__ import annotations

import pytest

from controller.games import Action, IllegalAction
from tests.controller.games.dogs.support import (
    act,
    board,
    bork_board,
    dog_turn,
    ends,
    give,
    kinds,
    put_spook,
    rig,
    roll_as,
    setup_done,
)


def manhattan_ends(start: tuple[int, int], steps: int, size: int = 12) -> set[tuple[int, int]]:
    """Independent check on the 12x12 lab board: a walk of exactly n orthogonal steps with
    revisits can end wherever the distance is at most n and has n's parity."""
    return {
        (x, y) for x in range(size) for y in range(size)
        if (d := abs(x - start[0]) + abs(y - start[1])) <= steps and (steps - d) % 2 == 0
    }


def test_turn_draws_a_tile_while_the_deck_lasts_then_rolls() -> None:
    """"If the Tile Card deck is not exhausted, the player draws a Tile Card and adds it to
    the Graveyard ... The player rolls both dice." """
    game = setup_done(2, seed=3)
    assert game.st.phase == "place_tile" and game.public_view()["drawn_tile"] is not None
    assert game.public_view()["deck_count"] == 16 - 3
    turns_with_tiles = 0
    while game.st.deck or game.st.drawn:
        assert game.st.phase == "place_tile"
        game.apply(game.legal_actions()[0])
        turns_with_tiles += 1
        assert game.st.phase == "roll" and not game.is_over
        while game.st.phase != "place_tile" and (game.st.deck or game.st.drawn):
            game.apply(next(a for a in game.legal_actions() if a.kind != "back"))
    assert turns_with_tiles == 14
    seat = game.st.seat
    while game.st.seat == seat:  # the rest of the turn of the 16th tile
        game.apply(next(a for a in game.legal_actions() if a.kind != "back"))
    assert not game.is_over
    assert game.st.phase == "roll" and game.public_view()["drawn_tile"] is None


def test_two_dice_one_for_each_action_in_any_order() -> None:
    """"The player rolls both dice. They use one to perform a Dog Action, and the other to
    perform a Spook Action, in any order." """
    game = board()
    game.st.dogs = [(1, 1), (6, 6)]
    roll_as(game, 2, 5)
    assert {(a.params["die"], a.params["action"]) for a in game.legal_actions()} == {
        (0, "dog"), (0, "spook"), (1, "dog"), (1, "spook")}
    act(game, "choose", die=0, action="spook")
    act(game, "pick_spook", spook=game.st.spooks[-1].id)
    assert ends(game, "move_spook") == manhattan_ends((0, 11), 2)
    act(game, "move_spook", x=0, y=9)
    assert {(a.params["die"], a.params["action"]) for a in game.legal_actions()} == {(1, "dog")}
    before = game.to_json()
    with pytest.raises(IllegalAction, match="already used"):
        act(game, "choose", die=0, action="dog")
    with pytest.raises(IllegalAction, match="no spook action is left"):
        act(game, "choose", die=1, action="spook")
    assert game.to_json() == before
    act(game, "choose", die=1, action="dog")
    assert ends(game, "move_dog") == manhattan_ends((1, 1), 5)
    act(game, "move_dog", x=6, y=1)
    assert game.st.seat == 1 and game.st.phase == "roll" and game.st.turn == 2


def test_back_undoes_a_choice_before_anything_moves() -> None:
    game = board()
    roll_as(game, 3, 4)
    act(game, "choose", die=1, action="spook")
    act(game, "pick_spook", spook=game.st.spooks[-1].id)
    act(game, "back")
    assert game.st.tasks == [{"t": "pick_spook", "die": 1}]
    act(game, "back")
    assert game.st.tasks == [] and game.st.dice_use == [None, None] and game.st.slots == ["dog", "spook"]


@pytest.mark.parametrize("steps", [1, 2, 3, 6])
def test_dog_moves_the_exact_count_orthogonally_revisiting_allowed(steps: int) -> None:
    """"Move your Dog Token the exact amount of spaces shown on the selected die. You may not
    move diagonally. ... You may move over the same space more than once." """
    game = board()
    game.st.dogs = [(4, 5), (0, 0)]
    dog_turn(game, steps)
    reach = ends(game, "move_dog")
    assert reach == manhattan_ends((4, 5), steps)
    assert ((4, 5) in reach) == (steps % 2 == 0)  # back where it started, by revisiting
    assert (5, 6) not in reach or steps >= 2  # a diagonal neighbour needs two orthogonal steps
    with pytest.raises(IllegalAction, match=f"exactly {steps} orthogonal steps"):
        act(game, "move_dog", x=4 + steps + 1, y=5)


def test_dog_moves_through_dogs_and_spooks() -> None:
    """"You may move through other Dog and/or Spook Tokens." """
    game = board()
    game.st.dogs = [(0, 5), (1, 5)]
    put_spook(game, "skeleton", (2, 5))
    dog_turn(game, 3)
    assert (3, 5) in ends(game, "move_dog")


def test_ending_on_a_snack_collects_it() -> None:
    """"If you end your action on a space with a Snack Cube, collect it and place it on your Dog Card." """
    game = board()
    game.st.board_snacks[(3, 0)] = [game.st.removed.pop()]
    colour = game.st.board_snacks[(3, 0)][0]
    game.st.dogs = [(1, 0), (6, 6)]
    dog_turn(game, 2)
    events = act(game, "move_dog", x=3, y=0)
    assert (3, 0) not in game.st.board_snacks
    assert game.st.card_snacks[0] == [colour]
    assert "snack_collected" in [e.type for e in events]


def test_wrestle_higher_roll_takes_a_random_snack() -> None:
    """"Wrestle- Select one dog in the same space as you. You both roll one die. Whoever rolls
    highest takes one snack cube from the other player at random." """
    game = board()
    game.st.dogs = [(1, 1), (1, 3)]
    give(game, 1, "blue", "green")
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    assert kinds(game) == {"wrestle", "done"}
    rig(game, 5, 2, (2, 1))
    events = act(game, "wrestle", dog=1)
    assert game.st.card_snacks == [["green"], ["blue"]]
    assert game.st.rolls[-2:] == [{"seat": 0, "for": "wrestle", "value": 5}, {"seat": 1, "for": "wrestle", "value": 2}]
    assert events[0].data["winner"] == 0 and events[0].data["snack"] == "green"


def test_wrestle_ties_do_nothing_and_the_other_dog_can_win() -> None:
    """"Ties have no effect." """
    game = board()
    game.st.dogs = [(1, 1), (1, 3)]
    give(game, 1, "blue")
    give(game, 0, "red")
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    rig(game, 4, 4)
    act(game, "wrestle", dog=1)
    assert game.st.card_snacks == [["red"], ["blue"]]
    game = board()
    game.st.dogs = [(1, 1), (1, 3)]
    give(game, 1, "blue")
    give(game, 0, "red")
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    rig(game, 1, 6, (1, 0))
    act(game, "wrestle", dog=1)
    assert game.st.card_snacks == [[], ["blue", "red"]]


def test_no_wrestle_with_a_dog_without_snacks() -> None:
    """"If no other dogs in the space have any snack cubes, then you may not do a Wrestle." """
    game = board()
    game.st.dogs = [(1, 1), (1, 3)]
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    # nothing to do here: the step is skipped and the turn waits for the other die
    assert kinds(game) == {"choose"}


@pytest.mark.parametrize("roll, captured", [(5, True), (6, True), (4, False), (1, False)])
def test_attack_captures_on_five_or_more_with_the_spooks_snacks(roll: int, captured: bool) -> None:
    """"Attack- Roll one die. On the result of at least 5, remove the Spook Token from the
    Graveyard and place it on your Dog Card. If the Spook was carrying any Snack Cubes, place
    them on your Dog Card as well." """
    game = board()
    spook = put_spook(game, "skeleton", (2, 2), snacks=["yellow", "blue"])
    game.st.dogs = [(2, 0), (6, 6)]
    dog_turn(game, 2)
    act(game, "move_dog", x=2, y=2)
    assert kinds(game) == {"attack", "done"}
    rig(game, roll)
    act(game, "attack", spook=spook.id)
    if captured:
        assert spook.pos is None and spook.holder == 0
        assert game.st.card_snacks[0] == ["yellow", "blue"] and spook.snacks == []
        assert {"id": spook.id, "kind": "skeleton"} in game.public_view()["cards"][0]["spooks"]
    else:
        assert spook.pos == (2, 2) and spook.snacks == ["yellow", "blue"]


def test_attack_target_option() -> None:
    game = board(attack_target=6)
    spook = put_spook(game, "ghoul", (2, 2))
    game.st.dogs = [(2, 0), (6, 6)]
    dog_turn(game, 2)
    act(game, "move_dog", x=2, y=2)
    rig(game, 5)
    act(game, "attack", spook=spook.id)
    assert spook.pos == (2, 2)


def test_bork_moves_a_token_within_three_spaces_to_an_adjacent_space() -> None:
    """"If you end your action in an empty space you may perform a Bork." "Bork- Move any Spook
    or Dog token within three spaces to an adjacent space." """
    game, ghoul, bat = bork_board()
    borks = {(a.params["token"], a.params["id"], a.params["x"], a.params["y"])
             for a in game.legal_actions() if a.kind == "bork"}
    assert {("dog", 1, 1, 4), ("dog", 1, 1, 6), ("dog", 1, 0, 5), ("dog", 1, 2, 5)} <= borks
    assert {("spook", ghoul, 4, 2), ("spook", ghoul, 3, 3), ("spook", ghoul, 5, 3), ("spook", ghoul, 4, 4)} <= borks
    assert not any(t == "spook" and i == bat for t, i, _, _ in borks)  # four spaces away
    assert not any(t == "dog" and i == 0 for t, i, _, _ in borks)  # your own dog is not borked
    assert "done" in kinds(game)
    before = game.to_json()
    with pytest.raises(IllegalAction, match="within 3 squares"):
        act(game, "bork", token="spook", id=bat, x=5, y=4)
    with pytest.raises(IllegalAction, match="within 3 squares"):
        act(game, "bork", token="dog", id=1, x=3, y=5)
    assert game.to_json() == before


def test_bork_to_borker_option_pulls_the_token_next_to_the_dog() -> None:
    game, ghoul, _ = bork_board(bork_to="borker")
    borks = {(a.params["token"], a.params["id"], a.params["x"], a.params["y"])
             for a in game.legal_actions() if a.kind == "bork"}
    beside = {(0, 3), (2, 3), (1, 2), (1, 4)}
    assert {(x, y) for t, i, x, y in borks if t == "spook" and i == ghoul} == beside
    assert {(x, y) for t, i, x, y in borks if t == "dog" and i == 1} == beside
    with pytest.raises(IllegalAction, match="within 3 squares"):
        act(game, "bork", token="spook", id=ghoul, x=4, y=2)


def test_bork_own_dog_option() -> None:
    game, _, _ = bork_board(bork_own_dog=True)
    assert any(a.kind == "bork" and a.params["token"] == "dog" and a.params["id"] == 0 for a in game.legal_actions())


def test_no_bork_from_a_square_that_is_not_empty() -> None:
    """"Special Note: ... they are considered empty spaces when there are no Tokens or Cubes upon them." """
    game = board()
    game.st.dogs = [(1, 1), (1, 3)]
    put_spook(game, "ghoul", (1, 5))
    give(game, 1, "red")
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    assert "bork" not in kinds(game)
    with pytest.raises(IllegalAction, match="only from an empty square"):
        act(game, "bork", token="spook", id=game.st.spooks_at((1, 5))[0].id, x=1, y=4)


def test_bork_a_spook_onto_a_dog_haunts_it_at_once() -> None:
    """"If a Spook lands on a Dog, perform their Haunt." (No Concern roll first.)"""
    game, ghoul, _ = bork_board()
    give(game, 1, "green")
    game.st.dogs[1] = (4, 4)
    rig(game, (1, 0), 4)  # the ghoul's pick, then the Bork roll
    events = act(game, "bork", token="spook", id=ghoul, x=4, y=4)
    assert [e.type for e in events] == ["borked", "haunted", "bork_penalty"]
    assert game.st.card_snacks[1] == [] and game.st.removed[-1] == "green"


def test_bork_a_dog_onto_a_bare_square_needs_no_decision() -> None:
    game, ghoul, _ = bork_board()
    game.st.dogs[1] = (3, 2)
    act(game, "bork", token="dog", id=1, x=4, y=2)
    assert game.st.dogs[1] == (4, 2)
    assert kinds(game) == {"choose"}  # no spook there: nothing to decide, and the Bork roll happened
    assert game.st.rolls[-1]["for"] == "bork"


def test_borked_dog_landing_on_a_spook_decides_to_attack() -> None:
    """"If a Dog lands on a Spook, they may choose to attack." """
    game, ghoul, _ = bork_board()
    game.st.dogs[1] = (3, 3)
    rig(game, 6, 5)  # the borked dog's Attack, then seat 0's Bork roll
    act(game, "bork", token="dog", id=1, x=4, y=3)
    assert {(a.kind, a.player) for a in game.legal_actions()} == {("attack", 1), ("decline", 1)}
    before = game.to_json()
    with pytest.raises(IllegalAction, match="it is P1 who acts now, not P0"):
        game.apply(Action("attack", 0, {"spook": ghoul}))
    assert game.to_json() == before
    game.apply(Action("attack", 1, {"spook": ghoul}))
    assert game.st.spooks[ghoul].holder == 1
    assert game.st.rolls[-1] == {"seat": 0, "for": "bork", "value": 5}


def test_borked_dog_may_decline() -> None:
    game, ghoul, _ = bork_board()
    game.st.dogs[1] = (3, 3)
    rig(game, 6)
    act(game, "bork", token="dog", id=1, x=4, y=3)
    game.apply(Action("decline", 1))
    assert game.st.spooks[ghoul].pos == (4, 3)
    assert game.st.rolls[-1]["for"] == "bork"


@pytest.mark.parametrize("roll, lost", [(1, True), (3, True), (4, False), (6, False)])
def test_bork_roll_of_three_or_lower_loses_a_random_snack(roll: int, lost: bool) -> None:
    """"After, roll one die. On the result of three or lower, randomly select one of the Snack
    Cubes on your Dog Card and remove it from the game." """
    game, ghoul, _ = bork_board()
    give(game, 0, "red", "blue")
    rig(game, roll, (2, 1))
    act(game, "bork", token="spook", id=ghoul, x=4, y=2)
    assert game.st.card_snacks[0] == (["red"] if lost else ["red", "blue"])
    assert (game.st.removed[-1] == "blue") == lost


def test_bork_without_snacks_is_allowed() -> None:
    """"If you have no Snack Cubes, you may still Bork." """
    game, ghoul, _ = bork_board()
    rig(game, 1)
    act(game, "bork", token="spook", id=ghoul, x=4, y=2)
    assert game.st.spooks[ghoul].pos == (4, 2) and game.st.card_snacks[0] == []


def test_bork_penalty_option() -> None:
    game, ghoul, _ = bork_board(bork_penalty_max=0)
    give(game, 0, "red")
    rig(game, 1)
    act(game, "bork", token="spook", id=ghoul, x=4, y=2)
    assert game.st.card_snacks[0] == ["red"]
