"""Every kind of illegal action is refused with a reason, and the state does not change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controller.games import Action, IllegalAction, MalformedAction
from controller.games.terror import Terror
from tests.controller.games.terror.support import (
    CRYPT,
    give,
    new_game,
    on_top,
    phase,
    put,
)


def in_move_phase() -> Terror:
    g = new_game(players=3)
    put(g, 0, 0, [2, 6])
    put(g, 1, 0, [3, 1])
    give(g, 0, 1, "switch-1")
    give(g, 1, 1, "anytime-breeze")
    give(g, 2, 0, "extra-turn-1")
    phase(g, 0, "move", 3, "wolf")
    return g


CASES: list[tuple[str, Callable[[], Terror], Any, type[IllegalAction], str]] = [
    # wrong player
    ("roll by the wrong seat", new_game, Action("roll", 1), IllegalAction, "it is Ann's turn, not Bo's"),
    ("a seat that does not exist", new_game, Action("roll", 7), IllegalAction, "there is no player 8 in this game"),
    ("no seat at all", new_game, Action("roll"), IllegalAction, "roll needs the seat that does it"),
    ("another seat's now-or-later card", in_move_phase, Action("play_card", 2, {"card": "extra-turn-1"}),
     IllegalAction, "own turn"),
    ("a card the seat does not hold", in_move_phase,
            Action("play_card", 0, {"card": "anytime-breeze", "target": [0, 0], "to": [2, 7]}), IllegalAction,
     "none of Ann's pawns holds Cold Breeze"),
    # wrong phase
    ("moving before rolling", new_game, Action("move_pawn", 0, {"pawn": 0, "to": [7, 0]}), IllegalAction,
     "roll the dice first"),
    ("ending the turn before rolling", new_game, Action("end_turn", 0), IllegalAction, "roll the dice first"),
    ("rolling twice", in_move_phase, Action("roll", 0), IllegalAction, "move a pawn or end the turn"),
    ("an outcome with no attempt", in_move_phase, Action("skull_outcome", 0, {"hit": True}), IllegalAction, "not now"),
    ("placing a monster nobody drew", in_move_phase, Action("place_monster", 0, {"target": [1, 0]}), IllegalAction,
     "not now"),
    ("a skull attempt off the crypt", in_move_phase, Action("attempt_skull", 0, {"pawn": 0}), IllegalAction,
     "Crypt platform"),
    # bad path
    ("a destination out of reach", in_move_phase, Action("move_pawn", 0, {"pawn": 0, "to": [8, 8]}), IllegalAction,
     "no legal move of exactly 3"),
    ("a cell off the board", in_move_phase, Action("move_pawn", 0, {"pawn": 0, "to": [12, 0]}), IllegalAction,
     "that space is not on the board"),
    ("a path across bushes", in_move_phase,
            Action("move_pawn", 0, {"pawn": 0, "to": [1, 4], "path": [[1, 6], [1, 5], [1, 4]]}), IllegalAction,
     "blocked by bushes"),
    ("a path that is too short", in_move_phase,
     Action("move_pawn", 0, {"pawn": 0, "to": [2, 8], "path": [[2, 7], [2, 8]]}), IllegalAction, "count is 3"),
    ("a diagonal path", in_move_phase,
            Action("move_pawn", 0, {"pawn": 0, "to": [3, 6], "path": [[1, 7], [2, 7], [3, 6]]}), IllegalAction,
     "not one orthogonal step"),
    ("a card move into a pit", in_move_phase,
            Action("play_card", 1, {"card": "anytime-breeze", "target": [0, 0], "to": [2, 5]}), IllegalAction,
     "no legal move of exactly 1"),
    ("moving a paralysed pawn by card", in_move_phase,
     Action("play_card", 1, {"card": "anytime-breeze", "target": [1, 0], "to": [2, 1]}), IllegalAction, "paralysed"),
    # unknown card
    ("an unknown card", in_move_phase, Action("play_card", 0, {"card": "joker"}), IllegalAction,
     "there is no such card in this game"),
    ("a card id that is not a string", in_move_phase, Action("play_card", 0, {"card": 7}), MalformedAction,
     "card must be a card id"),
    # malformed
    ("an unknown action", new_game, Action("dance", 0), MalformedAction, "unknown action 'dance'"),
    ("a missing parameter", in_move_phase, Action("move_pawn", 0, {"pawn": 0}), MalformedAction, "move_pawn needs to"),
    ("an extra parameter", new_game, Action("roll", 0, {"twice": True}), MalformedAction, "roll does not take twice"),
    ("a pawn that is not 0 or 1", in_move_phase, Action("move_pawn", 0, {"pawn": "girl", "to": [2, 7]}),
     MalformedAction, "pawn must be 0 or 1"),
    ("a cell that is not [row, col]", in_move_phase, Action("move_pawn", 0, {"pawn": 0, "to": "north"}), IllegalAction,
     "that space is not on the board"),
    ("a path that is not a list", in_move_phase, Action("move_pawn", 0, {"pawn": 0, "to": [2, 7], "path": "east"}),
     MalformedAction, "path must be a list"),
    ("a target that is not [seat, pawn]", in_move_phase, Action("play_card", 0, {"card": "switch-1", "target": 1}),
     MalformedAction, r"target must be \[seat, pawn\]"),
    ("a card given the wrong parameters", in_move_phase,
            Action("play_card", 0, {"card": "switch-1", "target": [1, 0], "to": [1, 1]}), MalformedAction,
     "Body Swap does not take a space to move to"),
    ("a card missing its target", in_move_phase, Action("play_card", 0, {"card": "switch-1"}), MalformedAction,
     "Body Swap needs a pawn to act on"),
    ("an unknown tomb", lambda: _tomb_phase(), Action("move_tomb", 0, {"tomb": "dragon", "to": "end_a"}),
     MalformedAction, "tomb must be one of"),
    ("an unknown tomb position", lambda: _tomb_phase(), Action("move_tomb", 0, {"tomb": "wolf", "to": "roof"}),
     MalformedAction, "to must be one of"),
    ("an outcome that is not a boolean", lambda: _skull_phase(), Action("skull_outcome", 0, {"hit": "yes"}),
     MalformedAction, "hit must be true or false"),
    ("not an Action at all", new_game, {"kind": "roll", "player": 0}, MalformedAction, "expected an Action"),
]


def _tomb_phase() -> Terror:
    g = new_game()
    phase(g, 0, "tomb", 2, "wolf")
    return g


def _skull_phase() -> Terror:
    g = new_game()
    put(g, 0, 0, CRYPT)
    give(g, 0, 0, "ring-1")
    phase(g, 0, "move", 2, "wolf")
    g.apply(Action("attempt_skull", 0, {"pawn": 0}))
    return g


@pytest.mark.parametrize("name, setup, action, error, reason", CASES, ids=[c[0] for c in CASES])
def test_refused_with_a_reason_and_nothing_changes(
    name: str, setup: Callable[[], Terror], action: Any, error: type[IllegalAction], reason: str
) -> None:
    game = setup()
    before = game.to_json()
    with pytest.raises(error, match=reason):
        game.apply(action)
    assert game.to_json() == before


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"kind": "roll", "player": 0', "not valid JSON"),
        ('{"kind": "roll", "player": "zero"}', "seat number"),
        ('{"kind": "roll", "player": 0, "params": [1]}', "params must be an object"),
        ('{"player": 0}', "no 'kind'"),
    ],
)
def test_malformed_json_never_reaches_the_game(raw: str, reason: str) -> None:
    game = new_game()
    before = game.to_json()
    with pytest.raises(MalformedAction, match=reason):
        game.apply(Action.from_json(raw))
    assert game.to_json() == before


def test_a_pending_monster_card_blocks_everything_else() -> None:
    g = new_game()
    put(g, 0, 0, [0, 1])
    on_top(g, "monster-blob")
    phase(g, 0, "move", 1, "wolf")
    g.apply(Action("move_pawn", 0, {"pawn": 0, "to": [0, 2]}))
    before = g.to_json()
    for action in (Action("end_turn", 0), Action("roll", 0), Action("place_monster", 1, {"target": [1, 0]})):
        with pytest.raises(IllegalAction):
            g.apply(action)
    assert g.to_json() == before


def test_a_bad_saved_state_names_the_problem() -> None:
    from controller.games import BadGameData

    good = new_game().to_json()
    for key, value, reason in [
        ("phase", "dancing", "unknown phase"),
        ("tombs", {"mummy": "up"}, "'tombs' must give"),
        ("draw", [], "not exactly the deck"),
        ("turn", 5, "not a seat"),
        ("rng", "zz", "'rng'"),
        ("board_digest", "0", "does not match the board"),
    ]:
        bad = dict(good)
        bad[key] = value
        with pytest.raises(BadGameData, match=reason):
            Terror.from_json(bad)


def test_more_refusals_leave_the_state_alone() -> None:
    g = in_move_phase()
    put(g, 2, 1, None)
    put(g, 0, 0, CRYPT)
    give(g, 0, 0, "ring-3")
    give(g, 0, 0, "ring-4")
    g.s.pawns[0][1].cards.append(g.s.pawns[0][0].cards.pop())  # ring-4 now under the boy
    before = g.to_json()
    for action, reason in [
        (Action("play_card", 0, {"card": "switch-1", "target": [0, 0]}), "switch places with an opponent's pawn"),
        (Action("play_card", 0, {"card": "switch-1", "target": [2, 1]}), "out of the game"),
        (Action("play_card", 0, {"card": "switch-1", "target": [5, 0]}), "there is no such pawn in this game"),
        (Action("attempt_skull", 0, {"pawn": 0, "ring": "ring-4"}), "this pawn holds no such Magic Ring"),
        (Action("move_pawn", 0, {"pawn": 1, "to": [0, 0], "path": [[7, 0], [6, 0], [6, 1], [9, 9]]}),
         "that space is not on the board"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            g.apply(action)
        assert g.to_json() == before
    g.apply(Action("attempt_skull", 0, {"pawn": 0, "ring": "ring-3"}))
    assert g.phase == "skull"


@pytest.mark.parametrize(
    "players, seed, options, reason",
    [
        (["A", "B"], "7", None, "seed must be a whole number"),
        (["A", "B"], 7, {"board": 42}, "option board must be a file path or an object"),
        (["A", "B"], 7, {"skull_window_ms": True}, "skull_window_ms must be a positive whole number"),
    ],
)
def test_bad_setup_is_refused(players: list[str], seed: Any, options: Any, reason: str) -> None:
    with pytest.raises(IllegalAction, match=reason):
        Terror.new(players, seed, options)


def test_a_fallen_or_paralysed_pawn_is_refused() -> None:
    g = new_game()
    put(g, 0, 0, None)
    put(g, 0, 1, [3, 1])  # Skeleton Hand
    give(g, 0, 1, "switch-2")
    phase(g, 0, "move", 2, "wolf")
    before = g.to_json()
    with pytest.raises(IllegalAction, match="girl pawn is out of the game"):
        g.apply(Action("move_pawn", 0, {"pawn": 0, "to": [6, 0]}))
    with pytest.raises(IllegalAction, match="cannot leave its space"):
        g.apply(Action("play_card", 0, {"card": "switch-2", "target": [1, 0]}))
    assert g.to_json() == before
    assert [a.kind for a in g.legal_actions()] == ["end_turn"]
