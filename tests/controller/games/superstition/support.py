"""Shared set-up for the Superstition tests: scripted throws and placed pawns.

Games here use ``dice_source: table`` so every throw is chosen by the test, and
pawns are put on their spaces directly so each rule can be tested on its own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import Action, IllegalAction, get_game
from controller.games.superstition import Superstition

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def new_game(n: int = 2, seed: int = 1, **options: Any) -> Superstition:
    options.setdefault("dice_source", "table")
    game = get_game("superstition").new(NAMES[:n], seed, options)
    assert isinstance(game, Superstition)
    return game


def begin(game: Superstition, first: int = 0) -> None:
    """Play the opening so that ``first`` throws highest and starts."""
    for seat in range(len(game.players)):
        value = 6 if seat == first else 1
        act(game, "roll", value=value * game.options["dice"] if value == 6 else game.options["dice"])
    assert game.phase == "roll" and game.turn == first


def act(game: Superstition, kind: str, seat: int | None = None, **params: Any) -> list[Any]:
    player = game.current_player if seat is None else seat
    return game.apply(Action(kind, player, params))


def throw(game: Superstition, value: int) -> None:
    act(game, "roll", value=value)
    assert game.phase == "move"


def put(game: Superstition, seat: int, space: str, leg: str = "in1", zapped: tuple[str, ...] = (),
        target: str | None = None) -> None:
    game.pawns[seat] = {"space": space, "leg": leg, "zapped": list(zapped), "target": target}


def give(game: Superstition, seat: int, whammy: str | None, charm: str | None) -> None:
    """Hand a seat tokens as if drawn at the tomb (taken out of the pools)."""
    if whammy is not None:
        game.pools["whammies"].remove(whammy)
    if charm is not None:
        game.pools["charms"].remove(charm)
    game.hands[seat] = {"whammy": whammy, "charm": charm, "drawn": True}


def on_board(game: Superstition, space: str, whammy: str) -> None:
    game.pools["whammies"].remove(whammy)
    game.whammies[space] = whammy


def kinds(game: Superstition) -> set[str]:
    return {a.kind for a in game.legal_actions()}


def directions(game: Superstition, kind: str = "move") -> set[str]:
    return {a.params["direction"] for a in game.legal_actions() if a.kind == kind}


def rejected(game: Superstition, action: Action, match: str) -> None:
    """The action is refused with a reason matching ``match``, and nothing changes."""
    before = json.dumps(game.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert json.dumps(game.to_json(), sort_keys=True) == before


def events_of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]
