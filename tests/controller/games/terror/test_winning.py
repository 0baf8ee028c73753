"""How to win: the skull attempt and its outcomes, Grave News and News from the Crypt."""

from __future__ import annotations

import pytest

from controller.games import Action, IllegalAction
from tests.controller.games.terror.support import (
    CRYPT,
    act,
    give,
    new_game,
    phase,
    put,
    slide,
    types_of,
)


def ready_at_crypt(players: int = 2):
    g = new_game(players=players)
    put(g, 0, 0, CRYPT)
    give(g, 0, 0, "ring-2")
    phase(g, 0, "move", 4, "wolf")
    return g


def test_the_skull_attempt_shows_the_ring_and_waits_for_the_launcher() -> None:
    # Rulebook, "Destroy the Headless Ghost!": "Once on the platform, show everyone your Magic Ring card ...
    # try to defeat the Headless Ghost by dropping the skull down the Crypt's chute."
    g = ready_at_crypt()
    assert Action("attempt_skull", 0, {"pawn": 0}) in g.legal_actions()
    assert all(a.kind != "attempt_skull" for a in g.public_actions())  # it would reveal a ring
    events = act(g, "attempt_skull", 0, pawn=0)
    assert events[0].type == "skull_attempt" and events[0].data["ring"] == "ring-2"
    assert g.phase == "skull"
    (exp,) = g.expects()
    assert exp.kind == "skull_outcome" and exp.player == 0 and exp.window_ms == 8000
    assert exp.accepts == {
        "launcher": {"launched": Action("skull_outcome", 0, {"hit": True})},
        "chute.left": {"blocked": Action("skull_outcome", 0, {"hit": False})},
    }
    assert exp.on_timeout == Action("skull_outcome", 0, {"hit": False})
    assert {a.kind for a in g.legal_actions()} == {"skull_outcome"}


def test_a_hit_wins() -> None:
    # Rulebook: "If the skull drops onto the Headless Ghost's Launcher and the Headless Ghost flies off, you win!"
    g = ready_at_crypt()
    act(g, "attempt_skull", 0, pawn=0)
    events = act(g, "skull_outcome", 0, hit=True)
    assert types_of(events) == ["skull_hit", "game_won"]
    assert g.is_over and g.winners == [0] and g.current_player is None
    assert g.expected_board()["launcher"] == "launched"
    assert g.legal_actions() == []
    with pytest.raises(IllegalAction, match="game is over"):
        act(g, "end_turn", 0)


def test_a_miss_keeps_the_ring_and_waits_for_the_next_turn() -> None:
    # Rulebook: "If the skull rolls out of the other Crypt window, try again on your next turn ...
    # You do not discard your Magic Ring card".
    g = ready_at_crypt()
    act(g, "attempt_skull", 0, pawn=0)
    assert types_of(act(g, "skull_outcome", 0, hit=False)) == ["skull_missed"]
    assert g.s.pawns[0][0].cards == ["ring-2"] and not g.is_over
    assert g.phase == "after_move"
    with pytest.raises(IllegalAction, match="already dropped the skull this turn"):
        act(g, "attempt_skull", 0, pawn=0)
    with pytest.raises(IllegalAction, match="already moved"):
        act(g, "move_pawn", 0, pawn=1, to=[6, 0])
    act(g, "end_turn", 0)
    act(g, "roll", 1)
    slide(g, 1)
    act(g, "end_turn", 1)
    act(g, "roll", 0)
    slide(g, 0)
    act(g, "attempt_skull", 0, pawn=0)
    assert g.phase == "skull"


def test_the_extra_turn_card_after_a_miss() -> None:
    # Rulebook: "try again on your next turn -- unless you have a Play Now or Later! card which lets you
    # take another full turn now! If you do, be sure to roll the dice and move a tomb and a pawn again."
    g = ready_at_crypt()
    give(g, 0, 1, "extra-turn-2")
    act(g, "attempt_skull", 0, pawn=0)
    act(g, "skull_outcome", 0, hit=False)
    act(g, "play_card", 0, card="extra-turn-2")
    act(g, "end_turn", 0)
    assert g.current_player == 0 and g.phase == "roll"
    with pytest.raises(IllegalAction, match="roll the dice first"):
        act(g, "attempt_skull", 0, pawn=0)
    act(g, "roll", 0)
    slide(g, 0)
    act(g, "attempt_skull", 0, pawn=0)
    act(g, "skull_outcome", 0, hit=True)
    assert g.winners == [0]


def test_jump_onto_the_crypt_and_attempt_in_the_same_turn() -> None:
    g = new_game()
    put(g, 0, 1, [2, 7])
    give(g, 0, 1, "ring-5")
    phase(g, 0, "move", 6, "wolf")
    act(g, "move_pawn", 0, pawn=1, to=CRYPT)
    assert g.phase == "after_move"
    act(g, "attempt_skull", 0, pawn=1)
    assert g.phase == "skull"


def test_after_moving_one_pawn_the_other_cannot_attempt() -> None:
    # The skull attempt takes the place of this turn's pawn move.
    g = ready_at_crypt()
    g.s.number = 3
    act(g, "move_pawn", 0, pawn=1, to=[6, 1])
    with pytest.raises(IllegalAction, match="moved your other pawn"):
        act(g, "attempt_skull", 0, pawn=0)


def test_the_outcome_window_is_an_option() -> None:
    g = new_game(skull_window_ms=3000)
    put(g, 0, 0, CRYPT)
    give(g, 0, 0, "ring-1")
    phase(g, 0, "move", 4, "wolf")
    act(g, "attempt_skull", 0, pawn=0)
    assert g.expects()[0].window_ms == 3000
    with pytest.raises(IllegalAction, match="skull_window_ms"):
        new_game(skull_window_ms=-1)


# ----- Grave News and News from the Crypt ------------------------------------------------------
def test_grave_news_a_player_who_loses_both_pawns_is_out() -> None:
    # Rulebook, "Grave News": "if you lose both of your pawns in the pits, you are immediately out of the game."
    g = new_game(players=3)
    put(g, 1, 0, [6, 2])
    put(g, 1, 1, [6, 2])
    phase(g, 0, "tomb", 2, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_a")
    assert types_of(events).count("pawn_fell") == 2 and "player_out" in types_of(events)
    assert not g.is_over
    act(g, "end_turn", 0)
    assert g.current_player == 2  # seat 1 is skipped
    assert g.public_view()["players"][1]["out"]


def test_news_from_the_crypt_the_last_player_wins() -> None:
    # Rulebook, "News from the Crypt": "If all other players are out of the game ... you automatically win".
    g = new_game(players=2)
    put(g, 1, 0, [6, 2])
    put(g, 1, 1, [6, 2])
    phase(g, 0, "tomb", 2, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_a")
    assert types_of(events)[-1] == "game_won" and events[-1].data == {"seats": [0], "reason": "last_player"}
    assert g.is_over and g.winners == [0]
    assert g.expected_board()["launcher"] == "armed"


def test_your_own_tomb_move_can_knock_you_out_and_the_turn_passes() -> None:
    g = new_game(players=3)
    put(g, 0, 0, [6, 2])
    put(g, 0, 1, None)
    phase(g, 0, "tomb", 2, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_a")
    assert "player_out" in types_of(events) and types_of(events)[-1] == "turn_started"
    assert g.current_player == 1 and g.phase == "roll"


def test_everyone_falling_at_once_ends_the_game_with_no_winner() -> None:
    g = new_game(players=2)
    for seat in (0, 1):
        put(g, seat, 0, [6, 2])
        put(g, seat, 1, None)
    phase(g, 0, "tomb", 2, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_a")
    assert types_of(events)[-1] == "game_over"
    assert g.is_over and g.winners == []
