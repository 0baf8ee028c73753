"""Graveyard Dogs property tests: conservation, secrets, replay, JSON, and
"an action is accepted exactly when it is listed as legal"."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games import Action, IllegalAction
from controller.games.dogs import DogsGame

from .test_dogs_kit import greedy, lab

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = ["place_tile", "place_dog", "roll", "choose", "back", "move_dog", "pick_spook", "move_spook", "collect",
         "wrestle", "attack", "bork", "done", "decline", "escape", "bat_target", "shuffle"]

options_strategy = st.fixed_dictionaries({}, optional={
    "skeleton_haunt": st.sampled_from(["each", "one"]),
    "bork_own_dog": st.booleans(),
    "bork_to": st.sampled_from(["token", "borker"]),
    "concern_escape": st.integers(4, 6),
    "carried_snacks_in_graveyard": st.booleans(),
    "first_player": st.just(1),
})


def check_invariants(game: DogsGame) -> None:
    s = game.st
    on_board = sum(len(v) for v in s.board_snacks.values())
    on_cards = sum(len(c) for c in s.card_snacks)
    on_spooks = sum(len(sp.snacks) for sp in s.spooks)
    assert len(s.tin) + on_board + on_cards + on_spooks + len(s.removed) == 16
    if not s.tin:  # once every tile is out: 16 = graveyard + dog cards + spooks + removed
        assert on_board + on_cards + on_spooks + len(s.removed) == 16
    colours = Counter(s.tin) + Counter(c for v in s.board_snacks.values() for c in v) + Counter(
        c for card in s.card_snacks for c in card) + Counter(c for sp in s.spooks for c in sp.snacks) + Counter(s.removed)
    assert colours == Counter({"red": 4, "blue": 4, "green": 4, "yellow": 4})
    kinds = Counter(s.pool) + Counter(sp.kind for sp in s.spooks)
    assert kinds == Counter({"skeleton": 2, "gargoyle": 2, "ghoul": 2, "bat": 2})
    assert len(s.pool) + len(s.spooks_on_board()) + sum(1 for sp in s.spooks if sp.holder is not None) == 8
    assert all(sp.snacks == [] for sp in s.spooks if sp.holder is not None)
    assert all(len(sp.snacks) <= (3 if sp.kind == "skeleton" else 1) or sp.kind not in ("skeleton", "bat")
               for sp in s.spooks)
    assert all(not sp.snacks for sp in s.spooks if sp.kind in ("gargoyle", "ghoul"))
    squares = game.geo.features
    assert all(pos is None or pos in squares for pos in s.dogs)
    assert all(sp.pos is None or sp.pos in squares for sp in s.spooks)
    s.check()


def play(game: DogsGame, choices: list[int]) -> list[Action]:
    done: list[Action] = []
    for choice in choices:
        if game.is_over:
            break
        legal = game.legal_actions()
        assert legal, f"no legal action in step {game.step_name()}"
        action = legal[choice % len(legal)]
        deck_before = set(game.st.deck)
        events = game.apply(action)
        done.append(action)
        check_invariants(game)
        secret_ids = set(game.st.deck) & deck_before
        text = json.dumps([e.public() for e in events])
        assert not any(f'"{tile}"' in text for tile in secret_ids)
    return done


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=options_strategy,
       choices=st.lists(st.integers(0, 10_000), min_size=20, max_size=220))
def test_replay_and_json_round_trip_are_exact(seed: int, players: int, options: dict, choices: list[int]) -> None:
    names = [f"P{i}" for i in range(players)]
    game = DogsGame.new(names, seed, options)
    actions = play(game, choices)
    again = DogsGame.replay(names, seed, actions, options)
    assert again == game and again.to_json() == game.to_json()
    wire = json.loads(json.dumps(game.to_json()))
    restored = DogsGame.from_json(wire)
    assert restored.to_json() == game.to_json()
    assert restored.legal_actions() == game.legal_actions()
    texts = [Action.from_text(a.to_text()) for a in actions]
    assert DogsGame.replay(names, seed, texts, options) == game


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=options_strategy,
       choices=st.lists(st.integers(0, 10_000), min_size=1, max_size=160))
def test_late_game_conservation_and_legal_listing(seed: int, players: int, options: dict, choices: list[int]) -> None:
    """From a full graveyard, where spooks and dogs meet often."""
    game = lab(players, seed, **options)
    play(game, choices)
    # every listed action is the same value a caller would build, and is accepted
    for action in game.legal_actions():
        rebuilt = Action.from_json(json.loads(json.dumps(action.to_json())))
        assert rebuilt == action and hash(rebuilt) == hash(action) and rebuilt.to_text() == action.to_text()
        assert game.describe(action)


def twin_with_other_secrets(game: DogsGame, seed: int) -> DogsGame:
    twin = DogsGame.from_json(game.to_json())
    shuffler = random.Random(seed)
    shuffler.shuffle(twin.st.deck)
    shuffler.shuffle(twin.st.tin)
    shuffler.shuffle(twin.st.pool)
    return twin


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4),
       choices=st.lists(st.integers(0, 10_000), min_size=0, max_size=120), other=st.integers(0, 1000))
def test_public_views_hold_no_secret(seed: int, players: int, choices: list[int], other: int) -> None:
    game = DogsGame.new([f"P{i}" for i in range(players)], seed)
    play(game, choices)
    twin = twin_with_other_secrets(game, other)
    assert twin.public_view() == game.public_view()
    for seat in range(players):
        assert twin.player_view(seat) == game.player_view(seat)
        assert game.player_view(seat)["private"] == {}
    text = json.dumps(game.public_view())
    for tile in game.st.deck:
        assert f'"{tile}"' not in text
    assert [a.to_json() for a in twin.public_actions()] == [a.to_json() for a in game.public_actions()]


params_strategy = st.dictionaries(
    st.sampled_from(["x", "y", "rotation", "die", "action", "spook", "dog", "token", "id", "extra"]),
    st.one_of(st.integers(-3, 14), st.sampled_from(["dog", "spook", "bat", "", 0.0, 1.0, 2.5]), st.none(),
              st.booleans(), st.lists(st.integers(0, 3), max_size=2)),
    max_size=4,
)


@SETTINGS
@given(seed=st.integers(0, 2**32), start=st.sampled_from(["new", "lab"]),
       choices=st.lists(st.integers(0, 10_000), min_size=0, max_size=120),
       tries=st.lists(st.tuples(st.sampled_from(KINDS), st.integers(-1, 4), params_strategy), min_size=1, max_size=8))
def test_an_action_is_accepted_exactly_when_listed(seed: int, start: str, choices: list[int],
                                                   tries: list[tuple[str, int, dict[str, Any]]]) -> None:
    game = DogsGame.new(["A", "B", "C"], seed) if start == "new" else lab(3, seed)
    play(game, choices)
    for kind, player, params in tries:
        if game.is_over:
            break
        action = Action(kind, player, params)
        legal = game.legal_actions()
        if action in legal:
            game.apply(action)
            check_invariants(game)
            continue
        before = game.to_json()
        try:
            game.apply(action)
        except IllegalAction as exc:
            assert str(exc)
        else:
            raise AssertionError(f"unlisted action {action} was accepted in step {game.step_name()}")
        assert game.to_json() == before


def test_random_games_finish_with_a_winner() -> None:
    """Whole games from the first tile to the score, with a player who grabs what is near."""
    finished = 0
    for seed in range(4):
        game = DogsGame.new(["A", "B", "C"], seed)
        rng = random.Random(seed)
        for _ in range(6000):
            if game.is_over:
                break
            game.apply(greedy(game, rng))
        check_invariants(game)
        if game.is_over:
            finished += 1
            view = game.public_view()
            assert view["scores"] is not None and game.winners
            assert max(view["scores"]) == view["scores"][game.winners[0]]
    assert finished == 4


def brute_reach(squares: set[tuple[int, int]], start: tuple[int, int], steps: int, diagonal: bool) -> set[tuple[int, int]]:
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)] + ([(1, 1), (1, -1), (-1, 1), (-1, -1)] if diagonal else [])
    here = {start}
    for _ in range(steps):
        here = {(x + dx, y + dy) for x, y in here for dx, dy in moves if (x + dx, y + dy) in squares}
    return here


def brute_placements(squares: set[tuple[int, int]], size: int, min_contact: int) -> set[tuple[int, int]]:
    xs, ys = [x for x, _ in squares], [y for _, y in squares]
    out = set()
    for x in range(min(xs) - size - 1, max(xs) + 2):
        for y in range(min(ys) - size - 1, max(ys) + 2):
            foot = {(x + dx, y + dy) for dx in range(size) for dy in range(size)}
            if foot & squares:
                continue
            touching = sum((fx + dx, fy + dy) in squares for fx, fy in foot for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if touching >= min_contact:
                out.add((x, y))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), choices=st.lists(st.integers(0, 10_000), min_size=0, max_size=90),
       min_contact=st.integers(1, 3), steps=st.integers(1, 6), diagonal=st.booleans(), pick=st.integers(0, 10_000))
def test_bitboard_geometry_matches_brute_force(seed: int, choices: list[int], min_contact: int, steps: int,
                                               diagonal: bool, pick: int) -> None:
    game = DogsGame.new(["A", "B", "C", "D"], seed, {"min_contact": min_contact})
    play(game, choices)
    geo = game.geo
    squares = set(geo.features)
    if not squares:
        return
    assert set(geo.placements(min_contact)) == brute_placements(squares, 3, min_contact)
    start = sorted(squares)[pick % len(squares)]
    assert set(geo.squares(geo.exact_reach(start, steps, diagonal))) == brute_reach(squares, start, steps, diagonal)
    near = set(geo.squares(geo.within(start, 3)))
    assert near == set().union(*(brute_reach(squares, start, n, False) for n in range(4)))


def test_whole_games_on_owner_tiles_of_other_sizes(tmp_path: Path) -> None:
    """Nothing assumes 3x3 tiles: a 4x4 set with Gravestones, and a 2x2 set without."""
    big: dict[str, Any] = {"size": 4, "tiles": [
        {"id": f"B{i}", "grid": ["J...", "....", ".." + ("G" if i % 2 else ".") + ".", "...."]} for i in range(16)]}
    small: dict[str, Any] = {"size": 2, "tiles": [{"id": f"S{i}", "grid": ["J.", ".."]} for i in range(16)]}
    for name, doc in (("big", big), ("small", small)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        game = DogsGame.new(["A", "B", "C"], 5, {"tiles": str(path)})
        rng = random.Random(5)
        for _ in range(5000):
            if game.is_over:
                break
            game.apply(greedy(game, rng))
            check_invariants(game)
        assert game.is_over and len(game.st.placed) == 16
        assert len(game.geo.features) == 16 * doc["size"] ** 2
        assert DogsGame.from_json(json.loads(json.dumps(game.to_json()))) == game
