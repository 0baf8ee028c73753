"""What a refusal says reaches a person (the reply on a player's page): it names things in words.

For each game, games are played at random, and at every step actions of every kind the game has
offered so far (to any seat, with any of the parameters seen), and the same for other seats and a
seat that is not there, are tried where they are illegal. Every reason given must be free of ids
and coordinates, and a refused action must leave the game as it was.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from controller.games import Action, Game, get_game
from controller.games.base import IllegalAction

DATA = Path(__file__).resolve().parents[3] / "controller" / "games"
CARD_IDS = [c["id"] for c in json.loads((DATA / "terror" / "data" / "cards.json").read_text())["cards"]]
TILE_IDS = [t["id"] for t in json.loads((DATA / "dogs" / "data" / "tiles.json").read_text())["tiles"]]
# What must not reach a person: space ids, coordinates (either bracket, or a row and a column), sensor and
# tomb-end ids, seats counted from 0, snake_case action kinds and phases, and the ids of the games' cards and tiles.
RAW = re.compile(
    r"\b[bs]\d+\b|\(-?\d+, ?-?\d+\)|\[-?\d+, ?-?\d+\]|\brows? \d|\bcolumns? \d|\b\d+(?:st|nd|rd|th) (?:row|column)\b|"
    r"\btomb\.\w|\bstart\.|\bseat \d|\b[a-z]+_[a-z_]+\b|"
    r"\b(?:trap|chute|launcher)\.\w|\bgrave\d\b|\b(?:arrow|danger)-[a-z]+\b|"
    + "|".join(re.escape(i) for i in CARD_IDS + TILE_IDS)
)
GAMES = [("terror", {}), ("superstition", {"challenge": "sensors"}), ("superstition", {}), ("dogs", {})]


def key(a: Action) -> str:
    return json.dumps(a.to_json(), sort_keys=True)


def variants(g: Game, a: Action, seen: list[Action]) -> list[Action]:
    """``a`` by every seat and by one that is not there, and ``a``'s seat with the params of others of its kind."""
    n = len(g.players)
    out = [Action(a.kind, s, dict(a.params)) for s in (*range(n), n + 1, -1)]
    out += [Action(b.kind, a.player, dict(b.params)) for b in seen if b.kind == a.kind]
    return out


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[f"{n}-{'sensors' if o else 'plain'}" for n, o in GAMES])
def test_every_refusal_is_in_words(name: str, options: dict[str, Any]) -> None:
    said: dict[str, str] = {}
    tried = 0
    for seed in range(3):
        rnd = random.Random(seed)
        g = get_game(name).new(["Ann", "Bo", "Cy"], seed, options)
        seen: dict[str, Action] = {}
        for _ in range(70):
            if g.is_over:
                break
            legal = g.legal_actions()
            for a in legal:
                seen.setdefault(key(a), a)
            allowed = {key(a) for a in legal}
            pool = list(seen.values())
            before = json.dumps(g.to_json(), sort_keys=True)
            for a in rnd.sample(pool, min(10, len(pool))):
                for v in variants(g, a, pool)[:8]:
                    if key(v) in allowed:
                        continue
                    try:
                        g.apply(v)
                    except IllegalAction as exc:
                        tried += 1
                        text = str(exc)
                        assert not RAW.search(text), f"{name}: {v.to_text()} was refused with {text!r}"
                        said.setdefault(re.sub(r"\d+", "N", text)[:60], text)
                    else:
                        raise AssertionError(f"{name}: {v.to_text()} was taken though not in the legal list")
            assert json.dumps(g.to_json(), sort_keys=True) == before, f"{name}: a refusal changed the game"
            g.apply(rnd.choice(legal))
    assert tried > 200 and len(said) > 10, (tried, sorted(said.values()))  # it did try many kinds of refusal
