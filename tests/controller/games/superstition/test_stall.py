"""Superstition: no position blocks a pawn for good (with two dice, under the house rule ``whammy_stop``).

The Whammy, rule 3: "If in leaving you land by exact count on a Whammy, you may pick it up
and, in the same turn, place it on any other path space"; rule 4: "if you are blocked in both
directions, your turn ends without your moving". A pawn whose only way out passes a Whammy it
has no Charm for must be able to land on that Whammy some day, or the game can never end.
"""

from __future__ import annotations

import random

from controller.games import Action
from controller.games.superstition import Superstition
from tests.controller.games.superstition.support import (
    act,
    begin,
    directions,
    events_of,
    give,
    kinds,
    new_game,
    on_board,
    put,
    rejected,
    throw,
)


def _ladder_stall(**options: object) -> Superstition:
    """Ann waits on the Ladder on her way out; the Raven, which her Hex Sign cannot pass,
    stands on the first brick space after it (b8); Bob and Cy, zapped by the Mirror, must go
    to the Ladder, which Ann's pawn blocks (rule 3, Part II rule 4)."""
    game = new_game(3, **options)
    begin(game)
    give(game, 0, None, "hex_sign")
    give(game, 1, "witching_hour", "rabbits_foot")
    give(game, 2, "mummys_curse", "four_leaf_clover")
    on_board(game, "b8", "the_raven")
    put(game, 0, "ladder", leg="out2")
    put(game, 1, "s2", leg="out1", zapped=("mirror",))
    put(game, 2, "s14", leg="out1", zapped=("mirror",))
    return game


def _play_on(game: Superstition, seed: int, limit: int = 5000) -> None:
    """Random play from here; the game must end."""
    rnd = random.Random(seed)
    for _ in range(limit):
        if game.is_over:
            return
        legal = game.legal_actions()
        assert legal, game.phase
        plain = [a for a in legal if a.kind != "place_whammy"]
        game.apply(rnd.choice(plain or legal))
    raise AssertionError(f"no winner after {limit} actions: {game.pawns}, Whammies {game.whammies}")


def test_the_ladder_stall_position_blocks_the_others() -> None:
    game = _ladder_stall()
    game.turn = 1  # Bob, zapped by the Mirror, heads for the Ladder (Part II rule 4)
    throw(game, 3)
    assert "Ladder platform is taken" in str(game.options_for(1)["ccw"])


def test_one_die_passing_the_whammy_beyond_the_platform_still_needs_the_charm() -> None:
    game = _ladder_stall()  # default options: one die, step_off "free"
    throw(game, 3)
    assert kinds(game) == {"end_turn"}  # The Whammy, rule 1: passing needs the matching Charm


def test_one_die_a_throw_of_1_lands_on_the_whammy_beyond_the_platform() -> None:
    game = _ladder_stall()  # default options: one die, step_off "free"
    throw(game, 1)
    # On the way out the step off the platform is the first space of the throw ("The circle
    # on the platform counts as one space"), so a 1 lands on the Whammy there exactly.
    assert directions(game) == {"cw", "ccw"}
    events = act(game, "move", direction="cw")
    assert events_of(events, "moved")[0].data["path"] == ["b8"]
    assert events_of(events, "landed_on_whammy")[0].data == {"player": 0, "space": "b8"}
    act(game, "relocate_whammy", to="b20")
    assert game.whammies == {"b20": "the_raven"} and game.current_player == 1
    _play_on(game, seed=1)


def test_two_dice_the_whammy_next_to_the_platform_can_be_stopped_on() -> None:
    # No throw of two dice is 1: the pawn may stop on a Whammy on the very next space.
    game = _ladder_stall(dice=2, whammy_stop=True)
    throw(game, 7)
    assert directions(game) == {"cw", "ccw"}
    events = act(game, "move", direction="ccw")
    moved = events_of(events, "moved")[0].data
    assert moved["path"] == ["b8"] and moved["short"] is True
    assert game.phase == "relocate"
    act(game, "leave_whammy")
    assert game.pawns[0]["space"] == "b8" and game.current_player == 1
    _play_on(game, seed=2)


def test_the_stall_position_goes_on_to_a_winner_for_any_seed() -> None:
    # Two dice need the house rule: by the rulebook alone the pawn beside the Raven may wait for good.
    for options in ({"dice": 1}, {"dice": 2, "whammy_stop": True}):
        for seed in range(10):
            _play_on(_ladder_stall(**options), seed)


def test_a_pawn_waiting_beside_the_tomb_is_placed_on_a_whammy_in_front_not_blocked() -> None:
    # Part II rule 1: "If you sneak by, place your pawn on the stone path in front." Ann sneaked
    # by the second Grave while s12 was taken and waits beside the tomb; a Whammy now stands on
    # s12. Placed there at once she would stand on it; the late placement is the same.
    game = new_game()
    begin(game)
    give(game, 0, None, "hex_sign")
    on_board(game, "s12", "the_raven")
    put(game, 0, "tomb.south", leg="out1")
    throw(game, 2)
    assert directions(game) == {"cw", "ccw"}
    events = act(game, "move", direction="cw")
    assert events_of(events, "moved")[0].data["path"] == ["s12", "s13", "s14"]
    assert game.whammies == {"s12": "the_raven"}


def _whammy_pawn_pawn_whammy(ann_charm: str) -> Superstition:
    """s4 Whammy, Ann on s5, Bob on s6, s7 Whammy: with two dice neither could ever move."""
    game = new_game(dice=2, whammy_stop=True)
    begin(game)
    give(game, 0, None, ann_charm)
    give(game, 1, None, "four_leaf_clover")
    on_board(game, "s4", "witching_hour")
    on_board(game, "s7", "the_raven")
    put(game, 0, "s5", leg="out1")
    put(game, 1, "s6", leg="out1")
    return game


def test_two_dice_whammy_pawn_pawn_whammy_is_not_a_dead_end() -> None:
    game = _whammy_pawn_pawn_whammy("rabbits_foot")  # no power over Witching Hour
    throw(game, 5)
    assert kinds(game) == {"move"} and directions(game) == {"ccw"}
    act(game, "move", direction="ccw")
    assert game.pawns[0]["space"] == "s4" and game.phase == "relocate"
    act(game, "relocate_whammy", to="b20")
    # Bob, between Ann and the Raven on s7, may stop on the Raven in turn.
    throw(game, 4)
    assert directions(game) == {"cw"}
    act(game, "move", direction="cw")
    assert game.pawns[1]["space"] == "s7" and game.phase == "relocate"


def test_two_dice_the_public_list_does_not_tell_who_holds_the_charm() -> None:
    holder = _whammy_pawn_pawn_whammy("hex_sign")  # Hex Sign passes Witching Hour
    other = _whammy_pawn_pawn_whammy("rabbits_foot")
    for game in (holder, other):
        throw(game, 5)
    assert directions(holder, "charm_move") == {"ccw"} and directions(holder) == {"ccw"}
    assert holder.public_actions() == other.public_actions()
    # With the Charm the whole throw may be moved past the Whammy ...
    events = act(holder, "charm_move", direction="ccw")
    assert events_of(events, "moved")[0].data["path"] == ["s4", "s3", "s2", "s1", "s0"]
    # ... or the pawn may stop on it like anyone else.
    act(other, "move", direction="ccw")
    assert other.pawns[0]["space"] == "s4"


def test_the_short_stop_is_a_plain_move_not_a_charm_move() -> None:
    game = _whammy_pawn_pawn_whammy("rabbits_foot")
    throw(game, 5)
    before = game.to_json()
    try:
        game.apply(Action("charm_move", 0, {"direction": "ccw"}))
    except ValueError as exc:
        # The Whammy is there: what the pawn lacks is the Charm for it.
        assert str(exc).endswith("you hold no Charm that passes the Whammy that way; you may stop on it instead")
    else:
        raise AssertionError("a charm_move without the Charm was accepted")
    assert game.to_json() == before


def test_with_only_the_stop_on_a_whammy_left_end_turn_is_refused_naming_that_stop() -> None:
    # Two dice, leaving: Bob blocks the way counter-clockwise, the Raven clockwise. The stop on the
    # Raven is the only move; the refusal of end_turn names it, not a full count nobody can move.
    game = new_game(dice=2, whammy_stop=True)
    begin(game)
    put(game, 0, "b5", leg="out2")
    put(game, 1, "b3")
    on_board(game, "b6", "the_raven")
    throw(game, 4)
    assert [(a.kind, a.params) for a in game.legal_actions()] == [("move", {"direction": "cw"})]
    rejected(game, Action("end_turn", 0),
             r"^you cannot end your turn: you can still stop on the Whammy on the next space clockwise "
             r"\(two dice never throw 1\)$")


def test_with_a_full_move_and_a_stop_on_a_whammy_end_turn_names_both() -> None:
    game = new_game(dice=2, whammy_stop=True)
    begin(game)
    put(game, 0, "b5", leg="out2")
    on_board(game, "b6", "the_raven")
    throw(game, 4)
    assert directions(game) == {"cw", "ccw"}
    rejected(game, Action("end_turn", 0),
             r"you can still move counter-clockwise or stop on the Whammy on the next space clockwise")


# ----- the rulebook without the house rule: no partial moves, even with two dice ---------------------------
def test_two_dice_by_the_rulebook_a_whammy_beside_the_pawn_blocks_that_way() -> None:
    # The Whammy, rule 4: "you must move in the other direction for your full dice count. No partial moves
    # are allowed." Without the house rule the stop on the Raven beside Ann is not a move.
    game = new_game(dice=2)
    begin(game)
    put(game, 0, "b5", leg="out2")
    on_board(game, "b6", "the_raven")
    throw(game, 4)
    assert directions(game) == {"ccw"}
    rejected(game, Action("move", 0, {"direction": "cw"}), "Whammy")
    act(game, "move", direction="ccw")
    assert game.pawns[0]["space"] == "b1"  # the full count, the other way


def test_two_dice_by_the_rulebook_blocked_both_ways_the_turn_ends_without_moving() -> None:
    # "As before, if you are blocked in both directions, your turn ends without your moving."
    game = new_game(dice=2)
    begin(game)
    put(game, 0, "b5", leg="out2")
    put(game, 1, "b3")
    on_board(game, "b6", "the_raven")
    throw(game, 4)
    assert [(a.kind, a.player) for a in game.legal_actions() if a.kind != "place_whammy"] == [("end_turn", 0)]
    act(game, "end_turn")
    assert game.pawns[0]["space"] == "b5" and game.current_player == 1


def test_the_house_rule_is_off_unless_the_table_turns_it_on() -> None:
    assert new_game(dice=2).options["whammy_stop"] is False
    with_rule = new_game(dice=2, whammy_stop=True)
    assert with_rule.options["whammy_stop"] is True
    try:
        new_game(dice=2, whammy_stop="yes")
    except ValueError as exc:
        assert "whammy_stop" in str(exc)
    else:
        raise AssertionError("a whammy_stop that is not true or false was accepted")


def test_the_charm_holders_own_view_shows_the_walk_its_charm_opens_and_nobody_elses_does() -> None:
    # By the rulebook (no house rule): the Charm's walk is the only way counter-clockwise.
    game = _whammy_pawn_pawn_whammy("hex_sign")  # Hex Sign passes Witching Hour on s4
    game.options["whammy_stop"] = False
    throw(game, 5)
    assert directions(game, "charm_move") == {"ccw"}
    mine = game.player_view(0)
    walk = {"to": "s0", "path": ["s4", "s3", "s2", "s1", "s0"], "charm": True}
    assert mine["walks"]["ccw"] == walk and mine["charm_walks"] == {"ccw": walk}
    assert "ccw" not in game.public_view()["walks"]
    assert "ccw" not in game.player_view(1)["walks"] and "charm_walks" not in game.player_view(1)


def test_under_the_house_rule_a_way_with_both_keeps_the_stop_in_walks_and_the_charm_in_charm_walks() -> None:
    game = _whammy_pawn_pawn_whammy("hex_sign")
    throw(game, 5)
    mine = game.player_view(0)
    assert mine["walks"]["ccw"] == {"to": "s4", "path": ["s4"], "charm": False}  # the stop, as everyone sees it
    assert mine["charm_walks"]["ccw"]["to"] == "s0"
