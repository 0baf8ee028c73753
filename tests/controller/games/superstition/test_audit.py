"""Superstition: the rulebook audit's rows (passing Whammies, trading places, the
tomb's neighbours), each test quoting the rulebook line it checks."""

from __future__ import annotations

import pytest

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
    rejected(game, Action("move", 0, {"direction": "cw"}),
             "The Raven on the brick at the Ladder blocks the way clockwise")


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


# ----- Rules the other files check only in passing, each against the rulebook's words ------------
def test_setup_every_pawn_starts_on_its_own_colour_circle_outside_the_gate() -> None:
    """To Play the Game: "All players now choose a pawn. Place your pawn on the matching color circle
    outside the Graveyard gate." Nobody holds a Whammy or a Charm yet (rule 11 draws them)."""
    game = new_game(4, colours=["green", "red", "yellow", "blue"])
    view = game.public_view()
    circles = view["board"]["start_circles"]
    for seat, colour in enumerate(["green", "red", "yellow", "blue"]):
        player = view["players"][seat]
        assert player["colour"] == colour and player["space"] == circles[colour] and player["part"] == 1
        assert game.player_view(seat)["you"]["whammy"] is None and game.player_view(seat)["you"]["charm"] is None
    assert view["whammies"] == []


def test_rule5_once_a_peg_is_touched_it_is_the_one_taken() -> None:
    """Rule 5, IMPORTANT: "Once you touch a peg, you must take that one." With the sensors, the other
    peg (or the same one again) is refused while the trap's outcome is awaited."""
    game = new_game(challenge="sensors")
    begin(game)
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    act(game, "pull_peg", trap="ladder", peg="a")
    for peg in "ab":
        rejected(game, Action("pull_peg", 0, {"trap": "ladder", "peg": peg}), "waiting for the trap's outcome")
    assert game.public_view()["challenge"] == {"trap": "ladder", "peg": "a"}


def test_rule5_digital_the_first_peg_named_settles_the_challenge() -> None:
    game = new_game()
    begin(game)
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    game.traps["ladder"]["live"] = "b"
    act(game, "pull_peg", trap="ladder", peg="a")  # sneaked by: the second throw is due
    assert kinds(game) == {"roll"}
    rejected(game, Action("pull_peg", 0, {"trap": "ladder", "peg": "b"}), "you cannot pull that peg now")


def test_part2_rule4_zapped_by_both_on_the_way_out_keeps_trying_at_either() -> None:
    """Part II rule 4: "If you get zapped by both, keep trying at either one until you sneak by."
    Put back in front of the Mirror by the Mirror after the Ladder zapped it too, the pawn may try the
    Mirror again or walk on towards the Ladder."""
    game = new_game()
    begin(game)
    put(game, 0, "s7", leg="out1", zapped=("ladder",))
    throw(game, 2)
    act(game, "move", direction="cw")
    assert game.phase == "challenge" and game.challenge == {"trap": "mirror", "peg": None}
    game.traps["mirror"]["live"] = "a"
    act(game, "pull_peg", trap="mirror", peg="a")
    assert game.pawns[0] == {"space": "s8", "leg": "out1", "zapped": ["ladder", "mirror"], "target": None}
    throw(game, 1)  # Bob, on his start circle
    act(game, "move", direction="cw")
    throw(game, 5)
    assert directions(game) == {"in", "cw", "ccw"}
    # A long throw towards the Ladder now stops on it: the Ladder may be tried again too.
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "s13"
    throw(game, 1)
    act(game, "move", direction="cw")
    throw(game, 6)
    act(game, "move", direction="cw")
    assert game.pawns[0]["space"] == "ladder" and game.challenge == {"trap": "ladder", "peg": None}


def test_winner_the_first_home_ends_the_game_and_nobody_plays_on() -> None:
    """Winner of the Game: "The first player to successfully escape the Graveyard and land by exact
    count on his matching color circle is THE WINNER!" Nothing is played after that."""
    game = new_game(3)
    begin(game)
    give(game, 1, "the_raven", "wishbone")
    put(game, 0, "b2", leg="out2")
    throw(game, 3)
    events = act(game, "move", direction="ccw")
    assert events_of(events, "won")[0].data == {"player": 0}
    assert game.is_over and game.winners == [0] and game.current_player is None
    assert game.legal_actions() == []
    for seat in range(3):
        for action in (Action("roll", seat, {"value": 3}), Action("place_whammy", seat, {"space": "b5"})):
            rejected(game, action, "the game is over")
