"""Graveyard Dogs: readings of the rulebook the engine pins down (docs/rules/dogs.md,
interpretations 3, 11, 14 and 18). The rulebook does not settle these; the tests keep the
documented reading from changing by accident. Quotes are from
../shared/rules/graveyard-dogs.txt."""

from __future__ import annotations

from controller.games import Action
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import act, board, bork_board, give, kinds, rig, roll_as


def test_a_dog_may_start_next_to_the_jack_o_lantern_of_another_tile() -> None:
    """"place their Dog Token on a space of the Tile Card that is not adjacent to the
    Jack-O-Lantern space": the Jack-O-Lantern of that Tile Card, not one across its edge."""
    game = DogsGame.new(["A", "B"], 0)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    game.apply(Action("place_tile", 1, {"x": -1, "y": -3, "rotation": 0}))
    assert game.geo.features[(1, 0)] == "J" and game.st.placed[-1].y == -3  # on the first tile
    assert Action("place_dog", 1, {"x": 1, "y": -1}) in game.legal_actions()
    game.apply(Action("place_dog", 1, {"x": 1, "y": -1}))
    assert game.st.dogs[1] == (1, -1)


def test_a_dog_borked_onto_a_cube_leaves_it_until_a_dog_action_ends_there() -> None:
    """"If you end your action on a space with a Snack Cube, collect it": the Dog Action's end,
    not a Bork's."""
    game, _, _ = bork_board()
    st = game.st
    st.board_snacks[(2, 5)] = [st.removed.pop()]
    rig(game, 6)
    events = act(game, "bork", token="dog", id=1, x=2, y=5)
    assert [e.type for e in events] == ["borked", "bork_penalty"]
    assert st.dogs[1] == (2, 5) and st.board_snacks[(2, 5)] and st.card_snacks[1] == []


def test_two_gargoyle_haunts_before_a_turn_cost_one_dog_action() -> None:
    """"All Dogs in this space may not perform a Dog Action their next turn": their next turn
    only, however many Gargoyles haunt them before it."""
    game = board()
    first, second = [s for s in game.st.spooks if s.kind == "gargoyle"]
    for spook, square in ((first, (5, 5)), (second, (7, 5))):
        assert spook.pos is None
        spook.pos, spook.holder = square, None
    game.st.dogs = [(0, 0), (6, 5)]
    roll_as(game, 1, 1)
    for die, gargoyle in ((0, first), (1, second)):
        game.st.slots = ["spook", "spook"]  # both dice for spooks this once
        act(game, "choose", die=die, action="spook")
        act(game, "pick_spook", spook=gargoyle.id)
        rig(game, 1)  # the Concern roll: the dog stays
        act(game, "move_spook", x=6, y=5)
    assert game.st.seat == 1 and game.st.gargoyled == [False, True]
    roll_as(game, 2, 3)
    assert game.st.slots == ["spook", "spook"]
    for die in (0, 1):
        act(game, "choose", die=die, action="spook")
        act(game, "pick_spook", spook=game.st.spooks_on_board()[0].id)
        game.apply(next(a for a in game.legal_actions() if a.kind == "move_spook"))
        while game.step_name() in ("escape", "bat_target"):
            game.apply(game.legal_actions()[0])
    game.st.seat, game.st.phase = 1, "roll"
    roll_as(game, 4, 5)
    assert sorted(game.st.slots) == ["dog", "spook"]


def test_an_end_in_the_middle_of_a_bork_skips_the_bork_roll() -> None:
    """"The game ends immediately once ... there are no more Spooks in the Graveyard": a borked
    dog that captures the last spook ends it before the borker's Bork roll."""
    game, ghoul, _ = bork_board()
    st = game.st
    for spook in st.spooks_on_board():
        if spook.id != ghoul:
            spook.pos, spook.holder = None, 0
    give(game, 0, "red")
    st.dogs[1] = (3, 3)
    rig(game, 6)  # the borked dog's Attack
    act(game, "bork", token="dog", id=1, x=4, y=3)
    assert kinds(game) == {"attack", "decline"}
    events = game.apply(Action("attack", 1, {"spook": ghoul}))
    assert [e.type for e in events] == ["attacked", "game_over"]
    assert game.is_over and st.card_snacks[0] == ["red"] and not any(r["for"] == "bork" for r in st.rolls)
