"""What Superstition and Graveyard Dogs say someone did is in a player's words from the engine itself.

Anything may show an engine's ``describe`` to a person (the referee's reply, the history, the undo
card), so its text names squares by their tiles, spaces by their landmarks, traps and tiles by their
names: never an id or a coordinate, for legal actions and for refused ones whose params may be any
JSON. The words need no rewording afterwards: the engines' ``in_words`` leaves them as they are.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from controller.games import Action, Game, get_game
from controller.games.dogs.words import in_words as dogs_in_words
from controller.games.superstition.words import in_words as superstition_in_words
from tests.controller.games.test_refusal_words import RAW

# The params an action from outside may carry instead of the ones the game offered.
ODD: list[dict[str, Any]] = [
    {"space": "b999", "to": "s77", "trap": "grave9", "peg": "c", "direction": "up"},
    {"space": ["b1"], "to": {"x": 1}, "trap": 3, "peg": None, "direction": ["cw"]},
    {"x": 99, "y": -4, "rotation": 7, "die": "first", "action": "fly", "spook": 40, "dog": 9, "id": 9,
     "token": "cat"},
    {"x": "1", "y": None, "rotation": True, "die": True, "spook": "bat", "dog": "Ann"},
]
GAMES = [("superstition", {}), ("superstition", {"challenge": "sensors"}), ("dogs", {})]


def _said(game: Game, action: Action) -> str:
    text = game.describe(action)
    assert text and not RAW.search(text), f"{game.name}: {action.to_text()} is described as {text!r}"
    view = game.public_view()
    again = dogs_in_words(view, text) if game.name == "dogs" else superstition_in_words(view, text)
    assert again == text, f"{game.name}: {text!r} still needed rewording: {again!r}"
    return text


@pytest.mark.parametrize(("name", "options"), GAMES, ids=["superstition", "superstition-sensors", "dogs"])
def test_every_description_is_in_words_from_the_engine(name: str, options: dict[str, Any]) -> None:
    kinds: set[str] = set()
    for seed in range(3):
        rnd = random.Random(seed)
        game = get_game(name).new(["Ann", "Bo", "Cy"], seed, options)
        for _ in range(250):
            legal = game.legal_actions()
            if game.is_over or not legal:
                break
            for action in legal:
                _said(game, action)
                kinds.add(action.kind)
                for params in ODD:
                    _said(game, Action(action.kind, action.player, params))
            _said(game, Action("no_such_kind", 0, {"space": "b3", "x": 1, "y": 2}))
            game.apply(rnd.choice(legal))
    assert len(kinds) >= 8, kinds  # it saw most kinds of action


def test_a_placed_tile_and_a_dogs_square_are_named() -> None:
    game = get_game("dogs").new(["Ann", "Bo"], 5, {})
    first = next(a for a in game.legal_actions() if a.kind == "place_tile")
    said = _said(game, first)
    assert re.fullmatch(r"Ann places [A-Z][\w' -]+ in the middle of the table(, turned .+)?", said), said
    game.apply(first)
    dog = next(a for a in game.legal_actions() if a.kind == "place_dog")
    assert re.fullmatch(r"Ann puts their dog on the [a-z-]+ square of [A-Z][\w' -]+", _said(game, dog))
