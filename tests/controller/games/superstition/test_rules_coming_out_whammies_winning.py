"""Superstition, "Part II", "The Whammy" and "Winner of the Game": one test per rule."""

from __future__ import annotations

from controller.games import Action
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


# ----- Part II rule 1: "jump over the Wizard's Tomb and challenge the other Grave" -----------
def test_part2_rule1_jump_the_tomb_then_challenge_the_other_grave() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    assert game.phase == "roll"  # the pawn was placed after the turn began; start a fresh turn
    game.phase = "tomb"
    assert kinds(game) == {"jump"}
    events = act(game, "jump")
    assert events_of(events, "jumped_tomb")[0].data == {"player": 0, "from": "tomb.north", "to": "tomb.south"}
    assert game.phase == "challenge" and game.challenge == {"trap": "grave2", "peg": None}
    game.traps["grave2"]["live"] = "a"
    act(game, "pull_peg", trap="grave2", peg="b")
    # "If you sneak by, place your pawn on the stone path in front. Wait for your next turn."
    assert game.pawns[0] == {"space": "s12", "leg": "out1", "zapped": [], "target": None}
    assert game.current_player == 1


def test_part2_rule1_the_turn_at_the_tomb_starts_with_the_jump() -> None:
    game = new_game()
    begin(game)
    put(game, 1, "tomb.south", leg="tomb", target="grave1")
    throw(game, 2)
    act(game, "move", direction="cw")
    assert game.current_player == 1 and game.phase == "tomb"
    rejected(game, Action("roll", 1, {"value": 3}), "you cannot throw the dice now: jump the Wizard's Tomb")


# ----- Part II rule 2: "If you are zapped, you lose your turn ... Keep jumping back and forth" -
def test_part2_rule2_zapped_loses_the_turn_and_jumps_back_next_time_without_drawing() -> None:
    game = new_game()
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    game.phase = "tomb"
    act(game, "jump")
    game.traps["grave2"]["live"] = "b"
    events = act(game, "pull_peg", trap="grave2", peg="b")
    assert not events_of(events, "drew_tokens")
    assert game.pawns[0] == {"space": "tomb.south", "leg": "tomb", "zapped": [], "target": "grave1"}
    assert game.current_player == 1
    throw(game, 1)
    act(game, "move", direction="cw")
    assert game.phase == "tomb"
    act(game, "jump")
    assert game.pawns[0]["space"] == "tomb.north" and game.challenge == {"trap": "grave1", "peg": None}
    assert game.hands[0] == {"whammy": "the_raven", "charm": "hex_sign", "drawn": True}


# ----- Note after rule 11: "you may trade places" ----------------------------------------------
def test_no_trade_with_a_player_who_does_not_want_to_cross() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    put(game, 1, "tomb.south", leg="tomb", target="grave2")  # already beside its Grave
    game.phase = "tomb"
    assert kinds(game) == {"end_turn"}
    rejected(game, Action("jump", 0), "waits beside the second Grave")


# ----- Part II rules 3-4: the return trip -------------------------------------------------------
def test_part2_rule3_the_return_trip_stops_at_the_ladder_or_mirror_from_the_stone_side() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s12", leg="out1")
    throw(game, 6)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "ladder" and game.challenge == {"trap": "ladder", "peg": None}


def test_part2_rule3_the_graves_are_passed_on_the_way_out() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s2", leg="out1")
    throw(game, 4)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s6"


def test_part2_rule4_zapped_on_the_way_out_goes_back_to_the_stone_path_then_the_other() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s14", leg="out1")
    throw(game, 3)
    act(game, "move", direction="cw")
    game.traps["ladder"]["live"] = "a"
    act(game, "pull_peg", trap="ladder", peg="a")
    assert game.pawns[0] == {"space": "s0", "leg": "out1", "zapped": ["ladder"], "target": None}
    throw(game, 1)
    act(game, "move", direction="cw")
    throw(game, 6)
    assert directions(game) == {"cw", "ccw"}
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s6"
    throw(game, 1)
    act(game, "move", direction="cw")
    throw(game, 4)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "mirror"


def test_part2_sneaking_by_on_the_way_out_steps_onto_the_brick_path_and_throws_again() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s15", leg="out1")
    throw(game, 2)
    act(game, "move", direction="cw")
    game.traps["ladder"]["live"] = "a"
    events = act(game, "pull_peg", trap="ladder", peg="b")
    assert events_of(events, "second_throw") and game.pawns[0]["leg"] == "out2"
    throw(game, 3)
    events = act(game, "move", direction="ccw")
    # On the return trip the step off the platform is the first space of the throw
    # (rule 4: "The circle on the platform counts as one space").
    assert events_of(events, "moved")[0].data["path"] == ["b8", "b7", "b6"]


# ----- The Whammy, rule 1: "At any time during your turn, you may place your Whammy" ---------
def test_whammy_rule1_placed_at_any_time_during_your_turn() -> None:
    for stage in ("roll", "move", "challenge"):
        game = new_game()
        begin(game)
        give(game, 0, "the_raven", "hex_sign")
        put(game, 0, "b7")
        if stage != "roll":
            throw(game, 1 if stage == "move" else 3)
        if stage == "challenge":
            act(game, "move", direction="cw")
        assert game.phase == stage
        events = act(game, "place_whammy", space="s5")
        assert events_of(events, "whammy_placed")[0].data == {
            "player": 0, "space": "s5", "whammy": "the_raven", "name": "The Raven"}
        assert game.whammies == {"s5": "the_raven"} and game.hands[0]["whammy"] is None
        assert game.phase == stage  # placing does not use up the turn


def test_whammy_rule1_not_during_another_players_turn_nor_twice() -> None:
    game = new_game()
    begin(game)
    give(game, 1, "the_raven", "hex_sign")
    rejected(game, Action("place_whammy", 1, {"space": "s5"}), "Ann")
    give(game, 0, "witching_hour", "wishbone")
    act(game, "place_whammy", space="s5")
    rejected(game, Action("place_whammy", 0, {"space": "s6"}), "you hold no Whammy")


def test_whammy_rule1_only_on_an_empty_path_space() -> None:
    game = new_game()
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    put(game, 1, "b3")
    on_board(game, "s1", "witching_hour")
    rejected(game, Action("place_whammy", 0, {"space": "b3"}), "has a pawn")
    rejected(game, Action("place_whammy", 0, {"space": "s1"}), "already has a Whammy")
    for space in ("ladder", "tomb.north", "start.blue", "nowhere"):
        rejected(game, Action("place_whammy", 0, {"space": space}),
                 "a Whammy goes on a space of the brick or stone path")


def test_whammy_rule1_placement_is_a_secret_action_kind() -> None:
    game = new_game()
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    assert any(a.kind == "place_whammy" for a in game.legal_actions())
    assert not any(a.kind == "place_whammy" for a in game.public_actions())


def test_whammy_rule1_players_going_in_pass_whammies() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    on_board(game, "b3", "the_raven")
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "b5"


def test_whammy_rule1_a_whammy_blocks_players_leaving() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    on_board(game, "b3", "the_raven")
    throw(game, 3)
    assert directions(game) == {"ccw"}
    assert "The Raven on b3 blocks the way clockwise" in str(game.options_for(0)["cw"])


# ----- The Whammy, rule 2: the matching Charm passes it, "Count one space as you go" ---------
def test_whammy_rule2_the_matching_charm_passes_counting_one_space() -> None:
    game = new_game()
    begin(game)
    give(game, 0, None, "wishbone")
    put(game, 0, "b2", leg="out2")
    on_board(game, "b3", "the_raven")
    throw(game, 3)
    assert directions(game, "charm_move") == {"cw"} and directions(game) == {"ccw"}
    rejected(game, Action("move", 0, {"direction": "cw"}), "pass it with your Charm")
    events = act(game, "charm_move", direction="cw")
    moved = events_of(events, "moved")[0].data
    assert moved["path"] == ["b3", "b4", "b5"] and moved["charm"] == "wishbone"


def test_whammy_rule2_a_charm_has_no_power_over_another_whammy() -> None:
    game = new_game()
    begin(game)
    give(game, 0, None, "hex_sign")
    put(game, 0, "b2", leg="out2")
    on_board(game, "b3", "the_raven")
    throw(game, 3)
    assert directions(game, "charm_move") == set()
    rejected(game, Action("charm_move", 0, {"direction": "cw"}), "The Raven on the third brick after the gate blocks")


def test_whammy_rule2_using_the_charm_is_optional_so_end_turn_stays_open() -> None:
    game = new_game()
    begin(game)
    give(game, 0, None, "wishbone")
    put(game, 0, "b2", leg="out2")
    on_board(game, "b3", "the_raven")
    put(game, 1, "b1")
    throw(game, 3)
    assert kinds(game) == {"charm_move", "end_turn"}
    # Without the charm the public list looks the same as for a player holding none.
    assert {a.kind for a in game.public_actions()} == {"end_turn"}


# ----- The Whammy, rule 3: landing on one by exact count -------------------------------------
def test_whammy_rule3_landing_exactly_lets_you_move_it() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    on_board(game, "b4", "mummys_curse")
    throw(game, 2)
    events = act(game, "move", direction="cw")
    assert events_of(events, "landed_on_whammy") and game.phase == "relocate"
    assert game.current_player == 0
    rejected(game, Action("relocate_whammy", 0, {"to": "start.red"}),
             "a Whammy goes on a space of the brick or stone path")
    events = act(game, "relocate_whammy", to="s9")
    assert game.whammies == {"s9": "mummys_curse"}
    assert events_of(events, "whammy_moved")[0].data["from"] == "b4"
    assert game.current_player == 1


def test_whammy_rule3_you_may_also_leave_it() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    on_board(game, "b4", "mummys_curse")
    throw(game, 2)
    act(game, "move", direction="cw")
    act(game, "leave_whammy")
    assert game.whammies == {"b4": "mummys_curse"} and game.current_player == 1


def test_whammy_rule3_only_when_leaving() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    on_board(game, "b4", "mummys_curse")
    throw(game, 2)
    act(game, "move", direction="cw")
    assert game.phase == "roll" and game.current_player == 1


# ----- The Whammy, rule 4: blocked both ways means no move ---------------------------------------
def test_whammy_rule4_blocked_both_ways_by_whammies_means_no_move() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    on_board(game, "b3", "the_raven")
    on_board(game, "b1", "friday_13th")
    throw(game, 4)
    assert kinds(game) == {"end_turn"}
    act(game, "end_turn")
    assert game.pawns[0]["space"] == "b2"


# ----- Winner of the Game: "land by exact count on his matching color circle" --------------------
def test_winner_lands_by_exact_count_on_their_own_circle() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    throw(game, 3)
    events = act(game, "move", direction="ccw")
    assert events_of(events, "moved")[0].data["path"] == ["b1", "b0", "start.red"]
    assert events_of(events, "won")[0].data == {"player": 0}
    assert game.is_over and game.winners == [0] and game.current_player is None
    assert game.legal_actions() == []
    rejected(game, Action("roll", 1, {"value": 3}), "game is over")


def test_winner_overshooting_the_gate_walks_on_along_the_brick_path() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    throw(game, 4)
    act(game, "move", direction="ccw")
    assert game.pawns[0]["space"] == "b30" and not game.is_over


def test_winner_a_whammy_on_the_gate_guards_the_way_home() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2", leg="out2")
    on_board(game, "b0", "the_raven")
    throw(game, 3)
    assert directions(game) == {"cw"}


def test_going_in_a_pawn_never_enters_its_circle_again() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    throw(game, 3)
    act(game, "move", direction="ccw")
    assert game.pawns[0]["space"] == "b31" and not game.is_over


def test_whammy_in_front_of_a_platform_keeps_a_leaving_pawn_off_it() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s14", leg="out1")
    on_board(game, "s0", "the_raven")
    throw(game, 4)
    assert "The Raven on s0 blocks the way clockwise" in str(game.options_for(0)["cw"])


def test_no_whammy_while_a_trap_is_watched_or_reset() -> None:
    game = new_game(challenge="sensors")
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    act(game, "pull_peg", trap="ladder", peg="a")
    rejected(game, Action("place_whammy", 0, {"space": "s5"}),
             "you cannot place a Whammy there now: waiting for the trap's outcome")
    act(game, "challenge_result", trap="ladder", zapped=True)
    rejected(game, Action("place_whammy", 0, {"space": "s5"}),
             "you cannot place a Whammy there now: waiting for the trap to be reset")
