"""Graveyard Dogs property tests: conservation, secrets, replay, JSON, and
"an action is accepted exactly when it is listed as legal"."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games import Action, IllegalAction
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.independent_referee import Referee
from tests.controller.games.dogs.support import greedy, lab

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARTS = 4  # the long random-game runs, split so that no one test runs for minutes
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


def check_invariants(game: DogsGame, full: bool = True) -> None:
    s = game.st
    on_board = sum(len(v) for v in s.board_snacks.values())
    on_cards = sum(len(c) for c in s.card_snacks)
    on_spooks = sum(len(sp.snacks) for sp in s.spooks)
    assert len(s.tin) + on_board + on_cards + on_spooks + len(s.removed) == 16
    if not s.tin:  # once every tile is out: 16 = graveyard + dog cards + spooks + removed
        assert on_board + on_cards + on_spooks + len(s.removed) == 16
    colours = Counter(s.tin) + Counter(c for v in s.board_snacks.values() for c in v) + Counter(
        c for card in s.card_snacks for c in card) + Counter(c for sp in s.spooks for c
                                                             in sp.snacks) + Counter(s.removed)
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
    if full:
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


def brute_reach(squares: set[tuple[int, int]], start: tuple[int, int], steps: int,
                diagonal: bool) -> set[tuple[int, int]]:
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
            touching = sum((fx + dx, fy + dy) in squares for fx, fy in foot for dx, dy in ((1, 0), (-1, 0), (0, 1),
                                                                                           (0, -1)))
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


# ----- 200 complete games through the public API, every rule checked at every step ------------------
def _squares_of(view: dict[str, Any]) -> dict[tuple[int, int], str]:
    return {(sq["x"], sq["y"]): sq["feature"] for tile in view["tiles"] for sq in tile["squares"]}


def _dog_starts(view: dict[str, Any]) -> set[tuple[int, int]]:
    """Setup: "a space of the Tile Card that is not adjacent to the Jack-O-Lantern space, nor upon a
    Gravestone space. (Diagonals are not adjacent.)" -- the Jack-O-Lantern itself holds the snack."""
    tile = view["tiles"][-1]
    squares = {(sq["x"], sq["y"]): sq["feature"] for sq in tile["squares"]}
    jacks = [sq for sq, f in squares.items() if f == "jack_o_lantern"]
    near = {(x + dx, y + dy) for x, y in jacks for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    return {sq for sq, f in squares.items() if f == "plain" and sq not in near}


def _check_dogs_step(game: DogsGame, legal: list[Action], full: bool,
                     seen: dict[int, dict[tuple[int, int], str]]) -> None:
    st = game.st
    check_invariants(game, full)  # cubes, spooks and tiles conserved
    assert len(st.deck) + len(st.placed) + (st.drawn is not None) == 16
    # nobody acts out of turn: the mover, or the owner of a dog asked to flee or to attack
    task = st.tasks[0] if st.tasks else {}
    actor = task["seat"] if task.get("t") in ("escape", "bork_attack") else st.seat
    assert all(a.player == actor for a in legal), (actor, legal)
    # legal destinations, recomputed from the public view's squares
    step = game.step_name()
    if step not in ("setup_tile", "place_tile", "setup_dog", "move_dog", "move_spook"):
        return
    # Placed tiles never change: the squares are read from the view once per tile count.
    if len(st.placed) not in seen or step in ("setup_tile", "place_tile", "setup_dog"):
        view = game.public_view()
        seen[len(st.placed)] = _squares_of(view)
    squares = seen[len(st.placed)]
    if step in ("setup_tile", "place_tile") and squares:
        listed = {(a.params["x"], a.params["y"]) for a in legal}
        assert listed == brute_placements(set(squares), st.tiles[0].size, st.options.min_contact)
        assert {a.params["rotation"] for a in legal} == {0, 1, 2, 3}
    if step == "setup_dog":
        assert {(a.params["x"], a.params["y"]) for a in legal} == _dog_starts(view)
    if step == "move_dog":
        start = st.dogs[st.seat]
        assert st.dice is not None and start is not None
        listed = {(a.params["x"], a.params["y"]) for a in legal if a.kind == "move_dog"}
        assert listed == brute_reach(set(squares), start, st.dice[task["die"]], False)
    if step == "move_spook":
        spook = st.spooks[task["spook"]]
        assert st.dice is not None and spook.pos is not None
        listed = {(a.params["x"], a.params["y"]) for a in legal if a.kind == "move_spook"}
        assert listed == brute_reach(set(squares), spook.pos, st.dice[task["die"]], spook.kind == "bat")


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_200_complete_random_games_keep_every_invariant_at_every_step(part: int) -> None:
    # In parts, so that the workers share them and none runs for minutes on a loaded machine.
    for seed in range(part, 200, PARTS):
        players = 2 + seed % 3
        names = [f"P{i}" for i in range(players)]
        game = DogsGame.new(names, seed)
        rng = random.Random(seed)
        taken: list[Action] = []
        states: list[dict[str, Any]] = []
        seen: dict[int, dict[tuple[int, int], str]] = {}
        while not game.is_over:
            assert len(taken) < 8000, "a random game did not finish"
            legal = game.legal_actions()
            _check_dogs_step(game, legal, len(taken) % 10 == 0, seen)
            # no secret in any seat's view: other tile deck, tin and spook pool orders show nothing
            # (checked at every tile, where the deck matters, and every 25th step otherwise)
            if game.step_name() in ("setup_tile", "place_tile") or len(taken) % 25 == 0:
                twin = twin_with_other_secrets(game, seed + len(taken))
                for seat in range(players):
                    assert twin.player_view(seat) == game.player_view(seat)
                    assert game.player_view(seat)["private"] == {}
            plain = [a for a in legal if a.kind != "back"] or legal
            action = greedy(game, rng) if rng.random() < 0.6 else rng.choice(plain)
            other = (action.player + 1 + rng.randrange(players - 1)) % players
            before = states[-1] if states else game.to_json()
            try:
                game.apply(Action(action.kind, other, action.params))
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"seat {other} acted out of turn: {action}")
            if len(taken) % 5 == 0:
                assert game.to_json() == before
            game.apply(action)
            taken.append(action)
            states.append(game.to_json())
        _check_dogs_step(game, game.legal_actions(), True, seen)
        assert game.winners
        again = DogsGame.new(names, seed)
        for action, state in zip(taken, states, strict=False):
            again.apply(Action.from_json(json.loads(json.dumps(action.to_json()))))
            assert again.to_json() == state
        assert DogsGame.from_json(json.loads(json.dumps(states[-1]))).to_json() == states[-1]


# ----- the rulebook's invariants, watched through the public API only ----------------------------
REFEREE_OPTIONS: list[dict[str, Any]] = [
    {},
    {"first_player": 1},
    {"carried_snacks_in_graveyard": True},
    {"first_player": 1, "colours": "random"},
]


def _referee_game(seed: int, options: dict[str, Any]) -> int:
    """One whole game, its moves random or greedy, with the independent referee after every move."""
    players = 2 + seed % 3
    game = DogsGame.new([f"P{i}" for i in range(players)], seed, options)
    ref = Referee(game, options.get("first_player", 0))
    rng = random.Random(seed)
    steps = 0
    while not game.is_over:
        assert steps < 20_000, "a random game did not finish"
        legal = game.legal_actions()
        ref.check_legal(legal)
        plain = [a for a in legal if a.kind != "back"] or legal
        action = greedy(game, rng) if rng.random() < 0.5 else rng.choice(plain)
        ref.check(action, game.apply(action))
        steps += 1
    ref.check_legal(game.legal_actions())
    return steps


@pytest.mark.parametrize("options", REFEREE_OPTIONS, ids=["default", "second_first", "carried", "random_colours"])
def test_random_games_keep_the_rulebook_after_every_move(options: dict[str, Any]) -> None:
    """Tiles placed and counted, turn order from the spookiest player, one Dog and one Spook Action a
    turn (two Spook Actions after a Gargoyle), exact moves, what an end square offers, the Attack,
    Wrestle and Bork rolls, the running scores, the end at once and only after the sixteenth tile,
    and the winners: checked from the views and events alone, over many seeds."""
    for seed in range(15):
        assert _referee_game(seed * 7 + len(options), options) > 16
