"""Undo on the real engines: up to each kind of door, never past it; the random state never moves.

Played on a pure referee core (manual board), so every step is a command. Each
test plays a seeded game with random legal moves until the door it is about,
then checks that the referee can take back the moves after the door and not
the door itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from controller.games import get_game
from controller.games.base import Action, Game
from controller.games.terror import place_at
from controller.referee.core import RefereeCore
from controller.referee.errors import Refused
from controller.referee.undo import door_reason

NOW = 1000.0


def new_core(game: str, seed: int, options: dict[str, Any] | None = None) -> RefereeCore:
    core = RefereeCore()
    core.decide("new_game", {"game": game, "players": ["Ann", "Bo"], "seed": seed, "options": options or {},
                             "game_id": f"g{seed}", "time": NOW, "board": "manual"})
    return core


def play(core: RefereeCore, action: Action) -> list[dict[str, Any]]:
    return core.decide("command", {"action": action.to_json(), "time": NOW, "board": "manual"})


def undo(core: RefereeCore) -> list[dict[str, Any]]:
    return core.decide("gm", {"op": "undo", "by": "referee", "reason": None, "time": NOW, "board": "manual"})


def is_door(game: Game, action: Action) -> bool:
    """Whether ``action`` would close the door, tried on a copy (the oracle the tests steer by)."""
    trial = type(game).from_json(game.to_json())
    before = trial.rng_state()
    events = trial.apply(action)
    return door_reason(trial, action, events, before) is not None


def play_until(core: RefereeCore, door: Callable[[Action, list[dict[str, Any]]], bool], rnd: random.Random,
               limit: int = 4000) -> Action:
    """Random legal moves until one satisfies ``door`` (given the action and its events); returns it."""
    for _ in range(limit):
        game = core.game
        assert game is not None
        if game.is_over:
            break
        action = rnd.choice(game.legal_actions())
        events = play(core, action)
        if door(action, events):
            return action
    raise AssertionError("the door never came up in this game")


def undoable_next(core: RefereeCore) -> Action | None:
    game = core.game
    assert game is not None
    return next((a for a in game.legal_actions() if not is_door(game, a)), None)


def check_door(core: RefereeCore, why: str) -> None:
    """After a door: a move after it can be undone, then undo stops with the door's reason."""
    game = core.game
    assert game is not None
    assert core.gm.undo.depth == 0 and why in str(core.gm.undo.stops_at(game))
    step = undoable_next(core)
    if step is not None:
        before = game.to_json()
        play(core, step)
        assert core.gm.undo.depth == 1
        events = undo(core)
        assert [e["type"] for e in events] == ["undone"]
        assert core.game is not None and core.game.to_json() == before
    with pytest.raises(Refused, match="no move to take back: undo stops at"):
        undo(core)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# ----- every game: the chain of undos, the random state, redo -----------------------------------------
@pytest.mark.parametrize("name,options", [
    ("terror", {}), ("superstition", {}), ("superstition", {"dice_source": "table"}), ("dogs", {}),
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_undo_walks_back_exactly_to_the_last_door(name: str, options: dict[str, Any], seed: int) -> None:
    rnd = random.Random(seed)
    core = new_core(name, seed, options)
    history: list[tuple[dict[str, Any], Action, bool]] = []  # state before, action, door?
    for _ in range(120):
        game = core.game
        assert game is not None
        if game.is_over:
            break
        action = rnd.choice(game.legal_actions())
        door = is_door(game, action)
        history.append((game.to_json(), action, door))
        play(core, action)
    since_door = 0
    for _, _, door in reversed(history):
        if door:
            break
        since_door += 1
    assert core.gm.undo.depth == since_door
    for before, action, _ in reversed(history[len(history) - core.gm.undo.depth:]):
        game = core.game
        assert game is not None
        rng, after = game.rng_state(), game.to_json()
        assert types(undo(core)) == ["undone"]
        restored = core.game
        assert restored is not None
        assert restored.to_json() == before  # exactly the game before that move
        assert restored.rng_state() == rng  # an undo never changes what the dice give next
        redo = type(restored).from_json(before)
        redo.apply(action)
        assert redo.to_json() == after  # undo then redo gives the same state
    with pytest.raises(Refused, match="undo stops at"):
        undo(core)


# ----- Terror: dice, a card drawn, a secret move ------------------------------------------------
def test_terror_dice_close_the_door() -> None:
    core = new_core("terror", 5)
    play(core, Action("roll", 0))
    check_door(core, "rolled dice")


def test_terror_a_card_drawn_closes_the_door() -> None:
    core = new_core("terror", 11)
    play_until(core, lambda a, ev: "card_drawn" in types(ev), random.Random(11))
    assert "hidden information came out" in str(core.gm.undo.stops_at(core.game))
    check_door(core, "hidden information came out")


def test_terror_a_secret_move_closes_the_door() -> None:
    core = new_core("terror", 12)
    secret = type(core.game).SECRET_ACTION_KINDS
    play_until(core, lambda a, ev: a.kind in secret, random.Random(12))
    check_door(core, "a secret move was played")
    assert "a secret move:" in str(core.gm.undo.stops_at(core.game))  # the door names no card


def test_terror_tomb_slide_and_pawn_move_can_be_undone() -> None:
    core = new_core("terror", 5)
    play(core, Action("roll", 0))
    game = core.game
    assert game is not None
    symbol = game.to_json()["symbol"]
    play(core, Action("move_tomb", 0, {"tomb": symbol, "to": "end_a"}))
    events = undo(core)
    assert events[0]["data"]["put_back"] == [f"Slide the {symbol.capitalize()} tomb back to the middle."]
    assert core.game is not None and core.game.to_json()["phase"] == "tomb"


# ----- Superstition: engine dice, the digital trap, Whammy and Charm --------------------------------
def test_superstition_engine_dice_close_the_door_table_dice_do_not() -> None:
    core = new_core("superstition", 3)
    play(core, Action("roll", 0))
    check_door(core, "rolled dice")
    table = new_core("superstition", 3, {"dice_source": "table"})
    play(table, Action("roll", 0, {"value": 4}))
    assert table.gm.undo.depth == 1  # dice thrown at the table are no secret and no re-roll
    assert types(undo(table)) == ["undone"]


def test_superstition_a_digital_trap_decided_closes_the_door() -> None:
    core = new_core("superstition", 4)
    play_until(core, lambda a, ev: a.kind == "pull_peg", random.Random(4))
    check_door(core, "live peg was decided")


def test_superstition_whammy_and_charm_drawn_close_the_door() -> None:
    core = new_core("superstition", 6)
    play_until(core, lambda a, ev: "drew_tokens" in types(ev), random.Random(6), limit=8000)
    check_door(core, "")  # the same step also decided a digital trap: either reason closes it
    table = new_core("superstition", 6, {"tokens": "table"})  # drawn from the real tomb, typed in
    play_until(table, lambda a, ev: a.kind == "draw_tokens", random.Random(6), limit=8000)
    check_door(table, "a secret move was played")


def test_superstition_a_whammy_placed_can_be_taken_back_until_the_next_throw() -> None:
    # A tap meant as a move once placed the Whammy for good; the table must be able to take it back.
    core = new_core("superstition", 9)

    def can_place(action: Action, events: list[dict[str, Any]]) -> bool:
        return core.game is not None and any(a.kind == "place_whammy" for a in core.game.legal_actions())

    play_until(core, can_place, random.Random(9), limit=8000)  # a Whammy drawn from the Wizard's Tomb
    game = core.game
    assert game is not None
    place = next(a for a in game.legal_actions() if a.kind == "place_whammy")
    before, depth = game.to_json(), core.gm.undo.depth
    events = play(core, place)
    assert "whammy_placed" in types(events)
    assert core.gm.undo.depth == depth + 1  # no door: nothing secret comes out of taking it back
    undone = undo(core)
    assert types(undone) == ["undone"]
    assert core.game is not None and core.game.to_json() == before  # the Whammy is back in its holder's hand
    assert undone[0]["data"]["put_back"] == [f"Take the Whammy off {place_words_of(core, place)}."]
    # Placed again, then the dice are thrown: the throw closes the door behind the placement.
    play(core, place)
    roll = play_until(core, lambda a, ev: a.kind == "roll", random.Random(10))  # the next throw: a door
    assert roll is not None and core.game is not None
    while core.gm.undo.depth:
        undo(core)
    with pytest.raises(Refused, match="undo stops at"):
        undo(core)
    assert place.params["space"] in core.game.whammies  # the placement stays on the board


def place_words_of(core: RefereeCore, place: Action) -> str:
    from controller.referee.place_words import superstition_space
    game = core.game
    assert game is not None
    return superstition_space(game.public_view(), place.params["space"])


# ----- Graveyard dogs: a tile drawn, a spook turned, dice -------------------------------------------
def test_dogs_a_tile_drawn_closes_the_door() -> None:
    core = new_core("dogs", 7)
    play_until(core, lambda a, ev: "tile_drawn" in types(ev), random.Random(7))
    check_door(core, "")


def test_dogs_a_spook_turned_closes_the_door() -> None:
    core = new_core("dogs", 8)
    play_until(core, lambda a, ev: "spook_placed" in types(ev), random.Random(8))
    check_door(core, "")


def test_dogs_dice_close_the_door() -> None:
    core = new_core("dogs", 9)
    play_until(core, lambda a, ev: a.kind == "roll", random.Random(9))
    check_door(core, "rolled dice")


def test_each_game_names_its_hidden_information_doors() -> None:
    # Events that only reveal (no dice): the list each engine keeps must hold them.
    assert {"card_drawn"} <= get_game("terror").DOOR_EVENTS
    assert {"challenge_resolved", "drew_tokens"} <= get_game("superstition").DOOR_EVENTS
    assert {"tile_drawn", "spook_placed"} <= get_game("dogs").DOOR_EVENTS


def test_undo_request_is_only_for_the_players_own_last_move() -> None:
    core = new_core("terror", 5)
    play(core, Action("roll", 0))
    symbol = core.game.to_json()["symbol"]  # type: ignore[union-attr]
    play(core, Action("move_tomb", 0, {"tomb": symbol, "to": "end_a"}))
    gm = {"time": NOW, "board": "manual", "by": "a player", "reason": None}
    with pytest.raises(Refused, match="not yours"):
        core.decide("gm", {**gm, "op": "undo_request", "seat": 1})
    assert types(core.decide("gm", {**gm, "op": "undo_request", "seat": 0})) == ["undo_requested"]
    with pytest.raises(Refused, match="no undo request"):
        core.decide("gm", {**gm, "op": "undo", "request": 1})
    events = core.decide("gm", {**gm, "op": "undo", "by": "referee", "request": 0})
    assert types(events) == ["undone"] and events[0]["data"]["requested_by"] == "Ann"
    assert core.gm.request is None


def test_undo_says_where_to_put_back_the_pieces_no_sensor_sees() -> None:
    core = new_core("terror", 5)
    play(core, Action("roll", 0))
    symbol = core.game.to_json()["symbol"]  # type: ignore[union-attr]
    play(core, Action("move_tomb", 0, {"tomb": symbol, "to": "end_a"}))
    game = core.game
    assert game is not None
    start = game.public_view()["players"][0]["pawns"][0]["pos"]
    move = next(a for a in game.legal_actions() if a.kind == "move_pawn" and a.params["pawn"] == 0)
    assert not is_door(game, move)  # seed 5's first pawn move draws no card
    play(core, move)
    [event] = undo(core)
    where = place_at(game, start)  # the game as it stood before the move, as the undo restores it
    assert "row" not in where and "column" not in where and where != "its place"
    assert event["data"]["put_back"] == [f"Move Ann's girl pawn back to {where}."]
    assert core.gm.last_undo is not None and core.gm.last_undo["put_back"] == event["data"]["put_back"]


# ----- an undo and its redo change nothing that comes after ----------------------------------------------
@pytest.mark.parametrize("name", ["terror", "superstition", "dogs"])
@pytest.mark.parametrize("seed", [1, 2])
def test_undo_then_redo_leaves_every_later_roll_and_draw_as_it_was(name: str, seed: int) -> None:
    """Two referees play the same moves; one takes back every move it may and plays it again.

    Their games stay equal move for move, and so do the events of every later roll, draw and
    shuffle: an undo never changes what the random numbers give next, and redo gives the same state.
    """
    rnd = random.Random(seed)
    straight, undoing = new_core(name, seed), new_core(name, seed)
    taken_back = doors_after = 0
    for _ in range(150):
        game = straight.game
        assert game is not None and undoing.game is not None
        if game.is_over:
            break
        action = rnd.choice(game.legal_actions())
        door = is_door(game, action)
        expected = play(straight, action)
        assert play(undoing, action) == expected
        if undoing.gm.undo.depth:  # the move may be taken back: take it back, then make it again
            assert types(undo(undoing)) == ["undone"]
            assert play(undoing, action) == expected
            taken_back += 1
        elif door and taken_back:
            doors_after += 1  # a roll, draw or shuffle after moves that were taken back and made again
        assert undoing.game.to_json() == straight.game.to_json()
        assert undoing.game.rng_state() == straight.game.rng_state()
    assert taken_back >= 3 and doors_after >= 1, (taken_back, doors_after)
