"""Terror: pawns that fall when the referee takes a tomb's position from the board (``adopt_board``).

Rulebook, "Grave News": "Anytime in the game, if you lose both of your pawns in the pits, you
are immediately out of the game." A tomb read from the board can drop pawns at any moment of a
turn, also the current player's last pawn or the pawn whose drawn Monster card waits for a target.
"""

from __future__ import annotations

import json

import pytest

from controller.games import Action, IllegalAction
from controller.games.terror import Terror, describe_event
from tests.controller.games.terror.support import (
    CRYPT,
    card_total,
    deck_with_kinds,
    give,
    make_monster,
    new_game,
    on_top,
    phase,
    pos,
    put,
    types_of,
)

# With every tomb in the middle these are the purple Danger spaces beside the Monster pit;
# sliding the Monster tomb to end A opens the pit under DANGER_A.
DANGER_A = [4, 4]
G_SPACE = [7, 3]


def _round_trips(game: Terror) -> None:
    data = json.loads(json.dumps(game.to_json()))
    assert Terror.from_json(data).to_json() == game.to_json()


def _listed_actions_apply(game: Terror) -> None:
    for action in game.legal_actions():
        copy = Terror.from_json(game.to_json())
        copy.apply(action)


def _draw_monster(game: Terror, seat: int) -> None:
    """Seat ``seat``'s girl steps onto a "G" space on its turn and draws a Monster card (phase choose)."""
    give(game, seat, 0, "anytime-breeze")
    on_top(game, "monster-werewolf")
    put(game, seat, 0, [8, 3])
    phase(game, seat, "roll")
    game.apply(Action("play_card", seat, {"card": "anytime-breeze", "target": [seat, 0], "to": G_SPACE}))
    assert game.s.phase == "choose" and game.s.pending is not None


def test_the_current_player_who_loses_both_pawns_to_a_board_reading_loses_the_turn() -> None:
    game = new_game(3)
    put(game, 0, 0, DANGER_A)
    put(game, 0, 1, DANGER_A)
    phase(game, 0, "roll")
    events = game.adopt_board({"tomb.monster": "end_a"})
    assert "player_out" in types_of(events)
    assert game.s.turn == 1 and game.s.phase == "roll"
    assert all(a.player != 0 for a in game.legal_actions())
    _round_trips(game)


def _drawer_falls_while_its_monster_card_waits(players: int) -> Terror:
    """Seat 0 draws a Monster card, then both its pawns fall to a tomb read from the board."""
    game = new_game(players)
    _draw_monster(game, 0)
    put(game, 0, 0, DANGER_A)
    put(game, 0, 1, DANGER_A)
    game.adopt_board({"tomb.monster": "end_a"})
    return game


def test_a_waiting_monster_card_is_discarded_when_its_drawer_is_out_of_the_game() -> None:
    game = _drawer_falls_while_its_monster_card_waits(3)
    assert game.s.pending is None and game.s.turn == 1 and game.s.phase == "roll"
    assert "monster-werewolf" in game.s.discard
    assert card_total(game) == 36
    _round_trips(game)


def test_a_waiting_monster_card_is_discarded_when_the_game_ends() -> None:
    game = _drawer_falls_while_its_monster_card_waits(2)
    assert game.is_over and game.winners == [1]
    assert "monster-werewolf" in game.s.discard and card_total(game) == 36
    _round_trips(game)


def test_the_fallen_drawer_is_no_longer_a_target_for_its_monster_card() -> None:
    game = new_game(2)
    _draw_monster(game, 0)
    put(game, 0, 0, DANGER_A)  # the drawer falls; seat 0's boy stays on the Gate
    game.adopt_board({"tomb.monster": "end_a"})
    assert game.s.phase == "choose"
    targets = [a.params["target"] for a in game.legal_actions() if a.kind == "place_monster"]
    assert targets == [[1, 0], [1, 1]]
    _listed_actions_apply(game)


def test_a_monster_card_no_pawn_in_play_can_take_is_discarded() -> None:
    game = new_game(2)
    _draw_monster(game, 0)
    make_monster(game, 1, 0, "monster-mummy")
    make_monster(game, 1, 1, "monster-swamp")
    put(game, 0, 0, DANGER_A)
    events = game.adopt_board({"tomb.monster": "end_a"})
    assert "monster_discarded" in types_of(events)
    assert game.s.pending is None and game.s.phase == "roll" and game.s.turn == 0
    assert "monster-werewolf" in game.s.discard and card_total(game) == 36
    assert any(a.kind == "roll" for a in game.legal_actions())
    _round_trips(game)


def test_a_reversed_monster_card_never_lands_on_a_fallen_pawn() -> None:
    game = new_game(2)
    _draw_monster(game, 0)
    give(game, 1, 0, "reversal-1")
    put(game, 0, 0, DANGER_A)
    game.adopt_board({"tomb.monster": "end_a"})
    game.apply(Action("place_monster", 0, {"target": [1, 0]}))
    assert game.s.pawns[0][0].out and game.s.pawns[0][0].monster is None
    assert game.s.pawns[1][0].monster is None
    assert {"monster-werewolf", "reversal-1"} <= set(game.s.discard) and card_total(game) == 36
    _round_trips(game)


def test_a_saved_state_with_a_fallen_player_still_to_play_is_refused() -> None:
    """Such a state cannot happen any more (the turn passes on at once): a file that holds one was edited
    or written by the engine before that fix, and is refused in words rather than played stuck."""
    from controller.games import BadGameData

    game = new_game(3)
    data = game.to_json()
    data["pawns"][game.s.turn] = [{"pos": None, "monster": None, "cards": []}] * 2
    data["discard"] = data["discard"] + [c for p in game.s.pawns[game.s.turn] for c in p.cards]
    with pytest.raises(BadGameData, match="both of that player's pawns are out of the game"):
        Terror.from_json(data)
    data["phase"] = "over"  # a finished game may end with anyone's pawns gone
    data["attempt"] = data["pending"] = None
    Terror.from_json(data)


# ----- a skull drop by a pawn that falls while the skull is in the chute -------------------------------
# Rulebook, "A Tomb Pit": a fallen pawn "is immediately out of the game"; "How to Win": the pawn on the
# Crypt platform with a Magic Ring destroys the Headless Ghost. A pawn out of play wins nothing.

def _attempt_then_swapped_onto_danger(players: int = 2) -> Terror:
    """Seat 0's girl drops the skull; meanwhile seat 1 plays a Play Anytime! Body Swap (a deck may have
    one) that puts her on a Danger space, and the referee reads the tomb that opens the pit under her."""
    game = new_game(players, cards=deck_with_kinds(**{"switch-1": "anytime"}))
    put(game, 0, 0, CRYPT)
    give(game, 0, 0, "ring-1")
    put(game, 1, 0, DANGER_A)
    give(game, 1, 0, "switch-1")
    phase(game, 0, "move", 4, "wolf")
    game.apply(Action("attempt_skull", 0, {"pawn": 0}))
    assert game.s.phase == "skull"
    game.apply(Action("play_card", 1, {"card": "switch-1", "target": [0, 0]}))
    assert pos(game, 0, 0) == DANGER_A and game.s.phase == "skull"
    return game


def test_a_skull_drop_does_not_count_when_its_pawn_falls_before_the_outcome() -> None:
    game = _attempt_then_swapped_onto_danger()
    events = game.adopt_board({"tomb.monster": "end_a"})
    assert types_of(events)[-2:] == ["pawn_fell", "skull_void"]
    assert describe_event(game, events[-1]) == (
        "Ann's girl pawn fell into a pit before the skull landed, so the drop does not count.")
    assert game.s.attempt is None and game.s.phase == "after_move" and game.s.attempted
    assert game.expects() == []
    with pytest.raises(IllegalAction, match="not now"):
        game.apply(Action("skull_outcome", 0, {"hit": True}))
    assert not game.is_over and game.s.ghost == "standing"
    assert {a.kind for a in game.legal_actions() if a.player == 0} == {"end_turn"}
    game.apply(Action("end_turn", 0, {}))
    assert game.s.turn == 1 and game.s.phase == "roll"
    _round_trips(game)


def test_a_skull_drop_by_a_players_last_pawn_that_falls_passes_the_turn() -> None:
    game = _attempt_then_swapped_onto_danger(3)
    put(game, 0, 1, None)  # the boy fell earlier
    events = game.adopt_board({"tomb.monster": "end_a"})
    kinds = types_of(events)
    assert kinds.index("skull_void") < kinds.index("turn_ended") and "player_out" in kinds
    assert game.s.attempt is None and game.s.turn == 1 and game.s.phase == "roll"
    assert not game.is_over and all(a.player != 0 for a in game.legal_actions())
    _round_trips(game)


def test_a_saved_skull_drop_whose_pawn_had_fallen_still_loads_and_its_hit_does_not_count() -> None:
    """A state saved before such drops were voided holds the attempt of a fallen pawn: it loads, and the
    outcome, when it comes, voids the drop instead of handing that player the game."""
    game = _attempt_then_swapped_onto_danger()
    data = game.to_json()
    held = data["pawns"][0][0]["cards"]
    data["pawns"][0][0] = {"pos": None, "monster": None, "cards": []}
    data["discard"] = data["discard"] + held
    loaded = Terror.from_json(data)
    events = loaded.apply(Action("skull_outcome", 0, {"hit": True}))
    assert types_of(events) == ["skull_void"]
    assert not loaded.is_over and loaded.winners == [] and loaded.s.phase == "after_move"


def test_the_rolled_tomb_is_not_taken_from_the_board_while_a_monster_card_drawn_before_its_slide_waits() -> None:
    """The tomb step is still to come (the drawn card goes back to it), so the rolled tomb's move is declared,
    one position, as in the tomb step itself; the other tombs may still be taken from the board."""
    game = new_game(2)
    give(game, 0, 0, "anytime-breeze")
    on_top(game, "monster-werewolf")
    put(game, 0, 0, [8, 3])
    phase(game, 0, "tomb", 3, "wolf")
    game.apply(Action("play_card", 0, {"card": "anytime-breeze", "target": [0, 0], "to": G_SPACE}))
    assert game.s.phase == "choose" and game.s.pending is not None and game.s.pending["resume"] == "tomb"
    before = game.to_json()
    with pytest.raises(IllegalAction, match="the Wolf tomb was rolled: declare its one-position move instead, "
                                            "once the drawn Monster card is placed"):
        game.adopt_board({"tomb.wolf": "end_a"})
    assert game.to_json() == before
    assert types_of(game.adopt_board({"tomb.monster": "end_a"})) == ["tomb_moved"]
    game.apply(Action("place_monster", 0, {"target": [1, 0]}))
    assert game.s.phase == "tomb" and game.s.tombs["wolf"] == "middle"
