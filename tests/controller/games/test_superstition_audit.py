"""Superstition: the rulebook audit's rows (passing Whammies, trading places, the
tomb's neighbours), each test quoting the rulebook line it checks."""

from __future__ import annotations

import pytest

from controller.games import Action

from .test_superstition_helpers import (
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


# ----- The Whammy, rule 1: "When leaving the Graveyard, players can pass Whammies by using the
# following Charms"; rule 2: "you may move by the Whammy if it blocks your path" --------------
@pytest.mark.parametrize("step_off", ["free", "counts"])
def test_stepping_off_a_platform_past_a_whammy_needs_its_charm(step_off: str) -> None:
    game = new_game(step_off=step_off)
    begin(game)
    put(game, 0, "ladder", leg="out2")
    on_board(game, "b8", "the_raven")  # the first brick space after the Ladder
    throw(game, 3)
    assert directions(game) == set()
    assert kinds(game) == {"end_turn"}
    rejected(game, Action("move", 0, {"direction": "cw"}), "The Raven on the brick at the Ladder blocks the way clockwise")


def test_stepping_off_past_a_whammy_with_its_charm_is_a_charm_move() -> None:
    game = new_game()
    begin(game)
    give(game, 0, None, "wishbone")  # Wishbone passes The Raven
    put(game, 0, "ladder", leg="out2")
    on_board(game, "b8", "the_raven")
    throw(game, 3)
    assert directions(game, "charm_move") == {"cw", "ccw"}
    events = act(game, "charm_move", direction="cw")
    # Leaving, the step off the platform is the first space of the throw (rule 4: "The
    # circle on the platform counts as one space"), whatever step_off says for Part I.
    assert events_of(events, "moved")[0].data["path"] == ["b8", "b9", "b10"]


def test_stepping_off_with_another_charm_does_not_pass() -> None:
    game = new_game()
    begin(game)
    give(game, 0, None, "hex_sign")  # "Your Charm has no power over any other Whammy."
    put(game, 0, "mirror", leg="out2")
    on_board(game, "b24", "the_raven")
    throw(game, 2)
    assert directions(game) == set() and directions(game, "charm_move") == set()


@pytest.mark.parametrize("step_off", ["free", "counts"])
def test_stepping_off_may_still_land_on_a_whammy_by_exact_count(step_off: str) -> None:
    # "If in leaving you land by exact count on a Whammy, you may pick it up": on the return
    # trip the step off the platform counts, so a throw of 1 ends on the first brick space.
    game = new_game(step_off=step_off)
    begin(game)
    put(game, 0, "ladder", leg="out2")
    on_board(game, "b8", "the_raven")
    throw(game, 1)
    assert directions(game) == {"cw", "ccw"}
    act(game, "move", direction="cw")
    assert game.phase == "relocate"


# ----- Note after rule 11: "both of you wanting to go to the opposite side, you may trade places"
def _both_at_the_tomb() -> object:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    put(game, 1, "tomb.south", leg="tomb", target="grave1")
    game.phase = "tomb"
    return game


def test_trading_places_is_offered_not_forced() -> None:
    game = _both_at_the_tomb()
    assert kinds(game) == {"trade_places", "end_turn"}
    rejected(game, Action("jump", 0), "trade places with them")


def test_declining_the_trade_ends_the_turn_and_nobody_moves() -> None:
    game = _both_at_the_tomb()
    events = act(game, "end_turn")
    assert not events_of(events, "traded_places")
    assert game.pawns[0]["space"] == "tomb.north" and game.pawns[1]["space"] == "tomb.south"
    # Bob may now choose for himself.
    assert game.current_player == 1 and kinds(game) == {"trade_places", "end_turn"}


def test_trading_places_when_chosen() -> None:
    game = _both_at_the_tomb()
    events = act(game, "trade_places")
    assert events_of(events, "traded_places")[0].data == {"players": [0, 1], "spaces": ["tomb.north", "tomb.south"]}
    assert game.pawns[0]["space"] == "tomb.south" and game.pawns[1]["space"] == "tomb.north"
    assert game.challenge == {"trap": "grave2", "peg": None}
    game.traps["grave2"]["live"] = "b"
    act(game, "pull_peg", trap="grave2", peg="b")  # zapped: Ann stays, Bob's turn
    # Bob's jump was the trade: his turn starts at the challenge of the first Grave.
    assert game.current_player == 1 and game.phase == "challenge"
    assert game.challenge == {"trap": "grave1", "peg": None}


def test_no_trade_offered_without_a_pawn_wanting_to_cross() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    game.phase = "tomb"
    assert kinds(game) == {"jump"}
    rejected(game, Action("trade_places", 0), "nobody on the other side")


# ----- Rule 11: "If you sneak by (no action happens), place your pawn on the space between the
# Grave Superstition and the Wizard's Tomb." No rule closes a Grave while that space is taken.
def test_a_grave_stays_open_while_the_space_beside_it_is_taken() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s3", leg="in2")
    put(game, 1, "tomb.north", leg="tomb", target="grave2")
    throw(game, 2)
    assert directions(game) == {"cw", "ccw"}
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "grave1" and game.challenge == {"trap": "grave1", "peg": None}


def test_sneaking_by_with_the_tomb_side_taken_waits_on_the_platform_then_jumps() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "s4", leg="in2")
    put(game, 1, "tomb.north", leg="tomb", target="grave2")  # on his way across
    throw(game, 3)
    act(game, "move", direction="in")
    game.traps["grave1"]["live"] = "a"
    events = act(game, "pull_peg", trap="grave1", peg="b")
    assert events_of(events, "drew_tokens")  # the draw is not delayed
    assert game.pawns[0] == {"space": "grave1", "leg": "tomb", "zapped": [], "target": "grave2"}
    # Bob jumps across and sneaks by; then Ann jumps from the Grave platform to the other side.
    assert game.current_player == 1 and kinds(game) == {"jump"}
    act(game, "jump")
    game.traps["grave2"]["live"] = "a"
    act(game, "pull_peg", trap="grave2", peg="b")
    assert game.pawns[1]["space"] == "s12"
    assert game.current_player == 0 and game.phase == "tomb" and kinds(game) - {"place_whammy"} == {"jump"}
    events = act(game, "jump")
    assert events_of(events, "jumped_tomb")[0].data == {"player": 0, "from": "grave1", "to": "tomb.south"}


# ----- Part II rule 1: "If you sneak by, place your pawn on the stone path in front. Wait for
# your next turn." No rule refuses the jump while that space is taken.
def test_the_jump_is_allowed_while_someone_stands_in_front_of_the_grave() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.north", leg="tomb", target="grave2")
    put(game, 1, "s12", leg="in2", zapped=("grave2",))
    game.phase = "tomb"
    assert kinds(game) == {"jump"}
    act(game, "jump")
    game.traps["grave2"]["live"] = "a"
    act(game, "pull_peg", trap="grave2", peg="b")
    # Sneaked by; the space in front is taken, so Ann waits beside the tomb, on her way out.
    assert game.pawns[0] == {"space": "tomb.south", "leg": "out1", "zapped": [], "target": None}
    assert game.current_player == 1
    throw(game, 2)
    act(game, "move", direction="cw")  # Bob walks on towards the first Grave: s13, s14
    # Ann steps in front without counting it, then moves her throw (Bob blocks clockwise).
    throw(game, 2)
    assert directions(game) == {"ccw"}
    events = act(game, "move", direction="ccw")
    assert events_of(events, "moved")[0].data["path"] == ["s12", "s11", "s10"]


def test_waiting_beside_the_tomb_blocked_in_front_ends_the_turn() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "tomb.south", leg="out1")
    put(game, 1, "s12", leg="in2", zapped=("grave2",))
    throw(game, 4)
    assert kinds(game) == {"end_turn"}
