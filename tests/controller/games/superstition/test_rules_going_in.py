"""Superstition, "To Play the Game (Part I)": one test per rule, citing the rulebook."""

from __future__ import annotations

from typing import Any

from controller.games import Action
from controller.games.superstition import Superstition
from tests.controller.games.superstition.support import (
    act,
    begin,
    directions,
    events_of,
    kinds,
    new_game,
    put,
    rejected,
    throw,
)


# ----- rule 1: "The highest throw of the dice goes first. ... clockwise" -----------------
def test_rule1_highest_opening_throw_starts() -> None:
    game = new_game(3)
    for value in (2, 5, 3):
        act(game, "roll", value=value)
    assert game.phase == "roll" and game.current_player == 1


def test_rule1_tied_highest_throwers_throw_again_alone() -> None:
    game = new_game(3)
    for value in (5, 5, 2):
        events = act(game, "roll", value=value)
    assert events_of(events, "opening_tie")[0].data["players"] == [0, 1]
    assert game.phase == "opening" and game.current_player == 0
    act(game, "roll", value=3)
    rejected(game, Action("roll", 2, {"value": 6}), "not Cy")  # the third player is out of the tie
    act(game, "roll", value=4)
    assert game.phase == "roll" and game.current_player == 1


def test_rule1_turns_go_clockwise_in_seat_order() -> None:
    game = new_game(3)
    begin(game, first=1)
    for expected in (2, 0, 1):
        throw(game, 2)
        game.apply(game.legal_actions()[0])
        assert game.current_player == expected


# ----- rule 2: "in either direction, but only in one direction in any one turn" ----------
def test_rule2_direction_is_chosen_each_turn_from_the_start_circle() -> None:
    game = new_game()
    begin(game)
    throw(game, 3)
    assert directions(game) == {"cw", "ccw"}
    events = act(game, "move", direction="ccw")
    assert events_of(events, "moved")[0].data["path"] == ["b0", "b31", "b30"]
    throw(game, 3)
    act(game, "move", direction="cw")
    throw(game, 2)
    events = act(game, "move", direction="cw")  # the same pawn may turn round
    assert events_of(events, "moved")[0].data["path"] == ["b31", "b0"]


# ----- rule 2: "You must move your full dice count" ------------------------------------------
def test_rule2_the_full_count_is_moved() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    throw(game, 4)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "b6"
    put(game, 0, "s13", leg="in2")
    throw(game, 5)  # seat 1 now: its pawn is on its circle
    act(game, "move", direction="cw")
    assert game.pawns[1]["space"] == "b4"


# ----- rule 3: "blocked by another player ... go the opposite way" -------------------------
def test_rule3_blocked_one_way_means_the_other_way() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    put(game, 1, "b4")
    throw(game, 3)
    assert directions(game) == {"ccw"}
    rejected(game, Action("move", 0, {"direction": "cw"}),
             r"Bob \(blue\) on the fourth brick after the gate blocks the way clockwise")
    assert "end_turn" not in kinds(game)
    rejected(game, Action("end_turn", 0), "you can still move")


def test_rule3_landing_on_another_player_is_blocked_too() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b2")
    put(game, 1, "b4")
    throw(game, 2)
    assert directions(game) == {"ccw"}


# ----- rule 3: "blocked in both directions, your turn ends without your moving" ------------
def test_rule3_blocked_both_ways_ends_the_turn_without_moving() -> None:
    game = new_game(3)
    begin(game)
    put(game, 0, "b2")
    put(game, 1, "b4")
    put(game, 2, "b0")
    throw(game, 3)
    assert kinds(game) == {"end_turn"}
    events = act(game, "end_turn")
    assert events_of(events, "turn_passed") and game.pawns[0]["space"] == "b2"
    assert game.current_player == 1


def test_rule3_a_pawn_on_the_gate_blocks_everyone_still_at_the_start() -> None:
    game = new_game()
    begin(game)
    put(game, 1, "b0")
    throw(game, 6)
    assert kinds(game) == {"end_turn"}


# ----- rule 3: "You can't pass another player" -----------------------------------------------
def test_rule3_no_passing_even_with_a_long_throw() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b1")
    put(game, 1, "b2")
    throw(game, 6)
    opts = game.options_for(0)
    assert isinstance(opts["cw"], str) and "b2" in opts["cw"]
    act(game, "move", direction="ccw")
    assert game.pawns[0]["space"] == "b27"


# ----- rule 4: "You must stop on the Superstition platform. Exact count is not necessary." --
def test_rule4_stops_on_the_ladder_platform_without_exact_count() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b5")
    throw(game, 6)
    events = act(game, "move", direction="cw")
    assert events_of(events, "moved")[0].data["path"] == ["b6", "b7", "b8", "ladder"]
    assert game.pawns[0]["space"] == "ladder" and game.phase == "challenge"
    assert game.challenge == {"trap": "ladder", "peg": None}


def test_rule4_the_circle_on_the_platform_counts_as_one_space() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b23")
    throw(game, 2)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "mirror"


def test_rule4_landing_on_the_entrance_means_going_in_next_turn() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b7")
    throw(game, 1)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "b8"
    throw(game, 3)  # Bob
    act(game, "move", direction="cw")
    throw(game, 5)
    assert directions(game) == {"in"}  # any throw takes the pawn onto the platform
    act(game, "move", direction="in")
    assert game.pawns[0]["space"] == "ladder" and game.phase == "challenge"


def test_rule4_a_taken_platform_blocks_that_way() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b6")
    put(game, 1, "ladder", leg="in2")
    throw(game, 4)
    assert directions(game) == {"ccw"}
    assert "Ladder platform is taken" in str(game.options_for(0)["cw"])


# ----- rules 5-7: the challenge at the Ladder/Mirror ------------------------------------------
def _on_ladder(**options: Any) -> Superstition:
    game = new_game(**options)
    begin(game)
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.phase == "challenge"
    return game


def test_rule7_zapped_at_the_ladder_goes_back_to_the_start_circle_and_ends_the_turn() -> None:
    game = _on_ladder()
    game.traps["ladder"]["live"] = "a"
    events = act(game, "pull_peg", trap="ladder", peg="a")
    resolved = events_of(events, "challenge_resolved")[0].data
    assert resolved["zapped"] is True and resolved["to"] == "start.red"
    assert game.pawns[0] == {"space": "start.red", "leg": "in1", "zapped": [], "target": None}
    assert game.current_player == 1 and game.phase == "roll"


def test_rule6_sneaking_by_steps_off_and_throws_again_onto_the_stone_path() -> None:
    game = _on_ladder()
    game.traps["ladder"]["live"] = "a"
    events = act(game, "pull_peg", trap="ladder", peg="b")
    assert events_of(events, "challenge_resolved")[0].data["zapped"] is False
    assert events_of(events, "second_throw")
    assert game.current_player == 0 and game.phase == "roll"
    assert game.pawns[0]["leg"] == "in2"
    throw(game, 2)
    assert directions(game) == {"cw", "ccw"}
    events = act(game, "move", direction="cw")
    # Stepping off is free (default "step_off": "free"): s0, then two spaces.
    assert events_of(events, "moved")[0].data["path"] == ["s0", "s1", "s2"]
    assert game.current_player == 1


def test_rule6_step_off_counts_as_a_space_when_so_configured() -> None:
    game = _on_ladder(step_off="counts")
    game.traps["ladder"]["live"] = "a"
    act(game, "pull_peg", trap="ladder", peg="b")
    throw(game, 2)
    events = act(game, "move", direction="ccw")
    assert events_of(events, "moved")[0].data["path"] == ["s0", "s15"]


def test_rule6_a_pawn_that_cannot_step_off_waits_on_the_platform() -> None:
    game = _on_ladder()
    game.traps["ladder"]["live"] = "a"
    put(game, 1, "s0", leg="in2")
    act(game, "pull_peg", trap="ladder", peg="b")
    throw(game, 3)
    assert kinds(game) == {"end_turn"}
    act(game, "end_turn")
    assert game.pawns[0]["space"] == "ladder" and game.pawns[0]["leg"] == "in2"


def test_rule5_the_named_peg_must_belong_to_the_trap_being_challenged() -> None:
    game = _on_ladder()
    rejected(game, Action("pull_peg", 0, {"trap": "mirror", "peg": "a"}), "challenged is the Ladder")
    rejected(game, Action("pull_peg", 0, {"trap": "ladder", "peg": "c"}), "peg A and peg B only")


def test_resetting_redraws_the_live_peg_from_the_state_rng() -> None:
    """Note: Resetting the Superstition: "secretly reset it" after every challenge."""
    seen = []
    for seed in range(12):
        game = _on_ladder(seed=seed)
        rng_before = game.rng.state
        act(game, "pull_peg", trap="ladder", peg="a")
        assert game.rng.state != rng_before
        seen.append(game.traps["ladder"]["live"])
        twin = _on_ladder(seed=seed)
        act(twin, "pull_peg", trap="ladder", peg="a")
        assert twin.traps["ladder"]["live"] == game.traps["ladder"]["live"]
    assert set(seen) == {"a", "b"}


# ----- rules 8-12: the Graves -------------------------------------------------------------------
def test_rule8_stops_on_a_grave_platform_without_exact_count() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s2", leg="in2")
    throw(game, 6)
    events = act(game, "move", direction="cw")
    assert events_of(events, "moved")[0].data["path"] == ["s3", "s4", "grave1"]
    assert game.challenge == {"trap": "grave1", "peg": None}


def test_rule8_the_ladder_and_mirror_are_passed_on_the_stone_path() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s6", leg="in2")
    throw(game, 4)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s10"


def test_rule10_zapped_at_a_grave_goes_in_front_of_it_then_to_the_other_grave() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s3", leg="in2")
    throw(game, 2)
    act(game, "move", direction="cw")
    game.traps["grave1"]["live"] = "b"
    act(game, "pull_peg", trap="grave1", peg="b")
    assert game.pawns[0] == {"space": "s4", "leg": "in2", "zapped": ["grave1"], "target": None}
    assert game.current_player == 1
    throw(game, 1)
    act(game, "move", direction="cw")
    throw(game, 6)
    assert directions(game) == {"cw", "ccw"}  # not forced back into the first Grave
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s10"
    throw(game, 1)
    act(game, "move", direction="cw")
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "grave2" and game.challenge == {"trap": "grave2", "peg": None}


def test_rule10_the_grave_that_zapped_you_is_passed_by() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s3", leg="in2", zapped=("grave1",))
    throw(game, 3)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s6"


def test_rule11_sneaking_by_a_grave_goes_beside_the_tomb_and_draws_secretly() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s3", leg="in2")
    throw(game, 4)
    act(game, "move", direction="cw")
    game.traps["grave1"]["live"] = "b"
    events = act(game, "pull_peg", trap="grave1", peg="a")
    assert game.pawns[0] == {"space": "tomb.north", "leg": "tomb", "zapped": [], "target": "grave2"}
    drew = events_of(events, "drew_tokens")[0]
    hand = game.hands[0]
    assert drew.private_to == 0
    assert drew.secret["whammy"] == hand["whammy"] and drew.secret["charm"] == hand["charm"]
    assert hand["whammy"] not in str(drew.public()) and hand["charm"] not in str(drew.public())
    assert len(game.pools["whammies"]) == 3 and len(game.pools["charms"]) == 3
    assert game.current_player == 1  # "Your turn ends."


def test_rule12_zapped_by_both_graves_keeps_trying_at_either() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s11", leg="in2", zapped=("grave1",))
    throw(game, 3)
    act(game, "move", direction="cw")
    game.traps["grave2"]["live"] = "a"
    act(game, "pull_peg", trap="grave2", peg="a")
    assert game.pawns[0]["space"] == "s12" and game.pawns[0]["zapped"] == ["grave1", "grave2"]
    throw(game, 2)
    act(game, "move", direction="cw")
    throw(game, 2)
    # Back in front of the second Grave: try it again, or walk to the first.
    assert directions(game) == {"in", "cw", "ccw"}
    act(game, "move", direction="in")
    assert game.challenge == {"trap": "grave2", "peg": None}


def test_a_move_event_lists_every_space_entered() -> None:
    game = new_game()
    begin(game)
    throw(game, 1)
    events = act(game, "move", direction="cw")
    moved = events_of(events, "moved")[0].data
    assert moved == {"player": 0, "from": "start.red", "to": "b0", "path": ["b0"], "direction": "cw", "roll": 1}


def test_rule11_with_real_tokens_the_player_enters_what_they_drew() -> None:
    game = new_game(tokens="table", challenge="sensors")
    begin(game)
    put(game, 0, "s3", leg="in2")
    throw(game, 4)
    act(game, "move", direction="cw")
    act(game, "pull_peg", trap="grave1", peg="a")
    events = act(game, "challenge_result", trap="grave1", zapped=False)
    assert not events_of(events, "drew_tokens")  # nothing is drawn for them
    events = act(game, "reset_trap", trap="grave1")
    assert events_of(events, "draw_due") and game.phase == "draw" and game.current_player == 0
    assert len(game.legal_actions()) == 16 and game.public_actions() == []
    rejected(game, Action("draw_tokens", 0, {"whammy": "black_cat", "charm": "wishbone"}),
             "that Whammy is not in the tomb")
    events = act(game, "draw_tokens", whammy="mummys_curse", charm="wishbone")
    drew = events_of(events, "drew_tokens")[0]
    assert drew.private_to == 0 and drew.secret["whammy"] == "mummys_curse" and "mummys_curse" not in str(drew.public())
    assert game.hands[0] == {"whammy": "mummys_curse", "charm": "wishbone", "drawn": True}
    assert "mummys_curse" not in game.pools["whammies"] and game.current_player == 1
