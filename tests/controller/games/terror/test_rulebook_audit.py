"""Defects found by reading the rulebook line by line against the engine.

Each test names the rulebook section (and quotes the line) that the engine
used to contradict, or the input that used to slip past the checks.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from controller.games import Action, BadGameData, IllegalAction, MalformedAction
from controller.games.terror import Terror
from tests.controller.games.terror.support import (
    CRYPT,
    act,
    deck_with_kinds,
    default_cards,
    give,
    new_game,
    on_top,
    phase,
    pos,
    put,
    types_of,
)


# ----- the Crypt jump never stretches the count ----------------------------------------------------
def test_full_count_a_typed_path_may_not_run_past_the_die_to_reach_the_crypt() -> None:
    # Rulebook, "Basic Pawn Movement": "Always move the full count of the number die roll." and
    # "How to Win": "You do not have to move the full count ... to jump from the gameboard's Exit
    # space onto the Crypt platform" -- fewer steps than the die, never more.
    g = new_game()
    put(g, 0, 0, [0, 5])
    phase(g, 0, "move", 1, "wolf")
    before = g.to_json()
    with pytest.raises(IllegalAction, match="count is 1"):
        act(g, "move_pawn", 0, pawn=0, to=CRYPT, path=[[0, 6], [0, 7], CRYPT])
    assert g.to_json() == before
    assert Action("move_pawn", 0, {"pawn": 0, "to": CRYPT}) not in g.legal_actions()


def test_full_count_a_card_move_may_not_run_past_its_count_to_reach_the_crypt() -> None:
    # Rulebook, "Basic Pawn Movement": "Always move the full count"; a card moves its own count.
    g = new_game()
    put(g, 1, 0, [0, 5])
    give(g, 0, 0, "anytime-breeze")  # one space
    phase(g, 1, "move", 4, "wolf")
    before = g.to_json()
    with pytest.raises(IllegalAction, match="count is 1"):
        act(g, "play_card", 0, card="anytime-breeze", target=[1, 0], to=CRYPT, path=[[0, 6], [0, 7], CRYPT])
    assert g.to_json() == before


def test_exit_jump_with_steps_left_over_still_works_along_a_typed_path() -> None:
    # Rulebook, "How to Win": the jump from the Exit needs no full count.
    g = new_game()
    put(g, 0, 0, [0, 6])
    phase(g, 0, "move", 5, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=CRYPT, path=[[0, 7], CRYPT])
    assert pos(g, 0, 0) == CRYPT


# ----- "G" reached by an opponent's card on your own turn ---------------------------------------
def test_g_space_an_opponents_card_moving_your_pawn_onto_g_on_your_turn_draws() -> None:
    # Rulebook, "Gameboard Spaces": "Do the following if your pawn ... is moved there by your card or
    # an opponent's card", and "G" Space: "You can draw a card only on your turn if you move here by
    # die roll count or by card direction."
    g = new_game()
    put(g, 0, 0, [0, 1])
    give(g, 1, 0, "anytime-breeze")
    on_top(g, "ring-3")
    phase(g, 0, "move", 3, "wolf")
    events = act(g, "play_card", 1, card="anytime-breeze", target=[0, 0], to=[0, 2])
    assert types_of(events) == ["card_played", "pawn_moved", "card_drawn"]
    drawn = events[-1]
    assert drawn.private_to == 0 and drawn.secret["card"]["id"] == "ring-3"
    assert g.s.pawns[0][0].cards == ["ring-3"]


def test_g_space_a_monster_drawn_that_way_is_placed_by_the_current_player() -> None:
    # Rulebook, "Monster Cards": "place the Monster card faceup on any opponent's Pawn card; or faceup
    # on the Pawn card of the pawn you just moved."
    g = new_game()
    put(g, 0, 0, [0, 1])
    give(g, 1, 0, "anytime-breeze")
    on_top(g, "monster-bat")
    phase(g, 0, "tomb", 3, "wolf")
    act(g, "play_card", 1, card="anytime-breeze", target=[0, 0], to=[0, 2])
    assert g.phase == "choose"
    assert {a.player for a in g.legal_actions()} == {0}
    act(g, "place_monster", 0, target=[1, 1])
    assert g.phase == "tomb" and g.s.pawns[1][1].monster == "monster-bat"


def test_g_space_your_own_anytime_card_on_someone_elses_turn_draws_nothing() -> None:
    # Rulebook, "G" Space: "You can draw a card only on your turn".
    g = new_game()
    put(g, 1, 0, [0, 1])
    give(g, 1, 0, "anytime-breeze")
    phase(g, 0, "move", 3, "wolf")
    draw = list(g.s.draw)
    events = act(g, "play_card", 1, card="anytime-breeze", target=[1, 0], to=[0, 2])
    assert "card_drawn" not in types_of(events) and g.s.draw == draw


def test_g_space_an_anytime_swap_draws_for_the_current_players_pawn_only() -> None:
    # A deck may make Body Swap a Play Anytime! card; the pawn that belongs to the player whose
    # turn it is draws, the other does not (rulebook, "G" Space: "only on your turn").
    g = new_game(cards=deck_with_kinds(**{"switch-1": "anytime"}))
    put(g, 0, 0, [0, 0])
    put(g, 1, 0, [0, 2])  # a "G"
    give(g, 1, 0, "switch-1")
    on_top(g, "ring-5")
    phase(g, 0, "move", 3, "wolf")
    events = act(g, "play_card", 1, card="switch-1", target=[0, 0])
    assert types_of(events)[-1] == "card_drawn" and events[-1].private_to == 0
    assert g.s.pawns[0][0].cards == ["ring-5"] and g.s.pawns[1][0].cards == []


def test_g_space_your_own_swap_on_your_turn_draws_for_your_pawn_only() -> None:
    # Rulebook, "G" Space: "only on your turn ... by card direction"; the opponent's pawn, swapped
    # onto a "G" on someone else's turn, draws nothing.
    g = new_game()
    put(g, 0, 1, [0, 6])  # a "G"
    put(g, 1, 0, [0, 2])  # a "G"
    give(g, 0, 1, "switch-2")
    on_top(g, "monster-blob")
    phase(g, 0, "roll")
    events = act(g, "play_card", 0, card="switch-2", target=[1, 0])
    assert types_of(events) == ["card_played", "pawns_switched", "card_drawn"]
    assert events[-1].data["seat"] == 0 and events[-1].data["pawn"] == 1
    assert g.phase == "choose" and g.s.pending is not None and g.s.pending["seat"] == 0
    act(g, "place_monster", 0, target=[1, 0])
    assert g.phase == "roll" and g.s.pawns[1][0].monster == "monster-blob"


# ----- Body Swap says what it does -------------------------------------------------------------
def test_body_swap_text_names_an_opponents_pawn() -> None:
    # Rulebook, "Beware!": "an opponent could ... switch places with your pawn"; the engine swaps
    # only with an opponent's pawn, so the card read aloud must not promise "any other pawn".
    g = new_game()
    texts = [c.text for c in g.deck.cards.values() if c.effect == "switch"]
    assert texts and all("opponent's pawn" in t and "any other pawn" not in t for t in texts)
    put(g, 0, 0, [0, 0])
    put(g, 0, 1, [0, 1])
    give(g, 0, 0, "switch-1")
    phase(g, 0, "move", 2, "wolf")
    with pytest.raises(IllegalAction, match="opponent's pawn"):
        act(g, "play_card", 0, card="switch-1", target=[0, 1])


# ----- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.0, 1.0])
def test_a_pawn_number_must_be_a_whole_number(value: float) -> None:
    g = new_game()
    put(g, 0, 0, [2, 6])
    phase(g, 0, "move", 1, "wolf")
    before = g.to_json()
    with pytest.raises(MalformedAction, match="pawn must be 0 or 1"):
        g.apply(Action("move_pawn", 0, {"pawn": value, "to": [2, 7]}))
    assert g.to_json() == before


def _state(**changes: Any) -> dict[str, Any]:
    data = new_game().to_json()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({"phase": "move"}, "'number'.*'move'"),
        ({"phase": "tomb", "number": 3}, "'symbol'.*'tomb'"),
        ({"phase": "skull", "number": 3, "symbol": "wolf", "attempt": {"seat": 9, "pawn": 0}}, "'attempt'"),
        ({"phase": "skull", "number": 3, "symbol": "wolf", "attempt": {"seat": 1, "pawn": 0}}, "'attempt'"),
        ({"extra_turns": -2}, "'extra_turns'"),
        ({"turns_taken": -1}, "'turns_taken'"),
        ({"log": [1, 2]}, "'log'"),
        ({"winners": [1]}, "'winners'"),
    ],
)
def test_a_bad_saved_state_is_refused_by_name(changes: dict[str, Any], reason: str) -> None:
    # A journal or a hand-edited file may be wrong: it must fail at load with the field named,
    # not later with an AssertionError or TypeError in the middle of play.
    with pytest.raises(BadGameData, match=reason):
        Terror.from_json(_state(**changes))


def test_a_saved_pending_card_that_is_not_an_id_is_refused() -> None:
    g = new_game()
    put(g, 0, 0, [0, 1])
    on_top(g, "monster-blob")
    phase(g, 0, "move", 1, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[0, 2])
    data = g.to_json()
    assert Terror.from_json(data).to_json() == data
    for bad in (["monster-blob"], {"seat": 0}):
        broken = copy.deepcopy(data)
        broken["pending"]["card"] = bad
        with pytest.raises(BadGameData, match="'pending'"):
            Terror.from_json(broken)
    broken = copy.deepcopy(data)
    broken["pending"]["seat"] = 1
    with pytest.raises(BadGameData, match="'pending'"):
        Terror.from_json(broken)


def test_a_saved_state_in_the_middle_of_a_turn_still_loads() -> None:
    # The stricter checks must accept every state that play can reach.
    g = new_game()
    put(g, 0, 0, CRYPT)
    give(g, 0, 0, "ring-1")
    phase(g, 0, "move", 2, "wolf")
    act(g, "attempt_skull", 0, pawn=0)
    data = g.to_json()
    assert Terror.from_json(data).to_json() == data
    act(g, "skull_outcome", 0, hit=False)
    data = g.to_json()
    assert Terror.from_json(data).to_json() == data


@pytest.mark.parametrize(
    "options, reason",
    [
        ({"skull_window_ms": "soon"}, "skull_window_ms must be a positive whole number"),
        ({"skull_window_ms": [1]}, "skull_window_ms must be a positive whole number"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_a_saved_state_with_bad_options_is_refused_at_load(options: dict[str, Any], reason: str) -> None:
    # Terror.new refuses these options; a saved state must not smuggle them in and fail later in expects().
    data = new_game().to_json()
    data["options"] = options
    with pytest.raises(BadGameData, match=reason):
        Terror.from_json(data)


@pytest.mark.parametrize("seat", [True, False, 1.0, -1, 2])
def test_a_player_view_needs_a_real_seat(seat: Any) -> None:
    # True would otherwise show seat 1's secret cards.
    with pytest.raises(ValueError, match="no seat"):
        new_game().player_view(seat)


# ----- data files: a hand-edit mistake names the entry instead of crashing ---------------------
def test_a_board_space_type_that_is_not_a_string_is_named() -> None:
    from controller.games.terror.board import DEFAULT_BOARD, load_board

    board = json.loads(DEFAULT_BOARD.read_text(encoding="utf-8"))
    board["platforms"][0]["spaces"][3]["middle"] = ["g"]
    with pytest.raises(BadGameData, match=r"board platforms\[0\] spaces\[3\]\.middle: \['g'\] is not a space type"):
        load_board(board)


@pytest.mark.parametrize("key, value, reason", [("effect", ["monster"], "effect"), ("kind", ["now"], "must be now")])
def test_a_card_effect_or_kind_that_is_not_a_string_is_named(key: str, value: Any, reason: str) -> None:
    from controller.games.terror.cards import load_deck

    deck = default_cards()
    deck["cards"][0][key] = value
    with pytest.raises(BadGameData, match=rf"cards cards\[0\] \(monster-werewolf\): .*{reason}"):
        load_deck(deck)
