"""Superstition property tests: random games keep every invariant the issue lists."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games import Action, IllegalAction, get_game
from controller.games.superstition import Superstition
from controller.games.superstition.board import Board
from controller.games.superstition.state import check_state
from hardware.observation import sensor_values

G = get_game("superstition")
NAMES = ["Ann", "Bob", "Cy", "Dee"]
OPTION_SETS = [
    {},
    {"challenge": "sensors"},
    {"step_off": "counts"},
    {"dice": 2, "challenge": "sensors"},
    {"dice_source": "table", "tokens": "table"},
]
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(
    st.integers(2, 4),
    st.integers(0, 2**32),
    st.sampled_from(range(len(OPTION_SETS))),
    st.lists(st.integers(0, 10**6), min_size=20, max_size=200),
)


def _adjacent(board: Board) -> set[frozenset[str]]:
    pairs: set[frozenset[str]] = set()
    for ring in (board.brick, board.stone):
        pairs |= {frozenset((ring[i], ring[(i + 1) % len(ring)])) for i in range(len(ring))}
    pairs |= {frozenset((board.gate, c)) for c in board.circles.values()}
    for platform in board.platforms.values():
        pairs |= {frozenset((platform.space, s)) for s in (platform.stone, platform.brick) if s}
    return pairs


def _choose(game: Superstition, pick: int) -> Action:
    actions = game.legal_actions()
    # Whammy placements dominate the list; taking them rarely lets games progress.
    plain = [a for a in actions if a.kind != "place_whammy"]
    pool = actions if (pick % 10 == 0 or not plain) else plain
    return pool[pick % len(pool)]


def _play(n: int, seed: int, option_index: int, picks: list[int]) -> tuple[Superstition, list[Action], list[Any]]:
    game = G.new(NAMES[:n], seed, OPTION_SETS[option_index])
    assert isinstance(game, Superstition)
    taken: list[Action] = []
    log: list[Any] = []
    for pick in picks:
        if game.is_over:
            break
        action = _choose(game, pick)
        before = [p["space"] for p in game.pawns]
        events = game.apply(action)
        taken.append(action)
        log.append((before, events))
    return game, taken, log


@PROPERTY_SETTINGS
@given(games)
def test_every_reachable_state_passes_the_saved_state_checks(case: tuple[int, int, int, list[int]]) -> None:
    """One pawn a space, four Whammies and four Charms conserved, a seat to act, traps consistent."""
    n, seed, option_index, picks = case
    game = G.new(NAMES[:n], seed, OPTION_SETS[option_index])
    for pick in picks:
        if game.is_over:
            break
        game.apply(_choose(game, pick))
        check_state(game)
        assert game.is_over or game.legal_actions(), game.phase


@PROPERTY_SETTINGS
@given(games)
def test_no_pawn_ever_passes_or_lands_on_another(case: tuple[int, int, int, list[int]]) -> None:
    game, _, log = _play(*case)
    adjacent = _adjacent(game.board)
    for before, events in log:
        for event in events:
            if event.type != "moved":
                continue
            mover = event.data["player"]
            others = {space for seat, space in enumerate(before) if seat != mover}
            path = event.data["path"]
            assert not others & set(path), (event.data, before)
            steps = [event.data["from"], *path]
            for a, b in zip(steps, steps[1:]):
                # A free step off a platform starts on its exit: that is not a move.
                assert frozenset((a, b)) in adjacent or a == b, (a, b, event.data)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_no_secret_ever_reaches_a_public_view_or_public_event(case: tuple[int, int, int, list[int]]) -> None:
    n, seed, option_index, picks = case
    game = G.new(NAMES[:n], seed, OPTION_SETS[option_index])
    for pick in picks:
        if game.is_over:
            break
        events = game.apply(_choose(game, pick))
        public = json.dumps(game.public_view())
        assert '"live"' not in public
        held = [h[k] for h in game.hands for k in ("whammy", "charm") if h[k]]
        for token in held:
            assert token not in public
        assert not any(a.kind in Superstition.SECRET_ACTION_KINDS for a in game.public_actions())
        for event in events:
            if event.type == "drew_tokens":
                assert event.secret and event.private_to == event.data["player"]
                for token in event.secret.values():
                    assert token not in json.dumps(event.public())
        for seat in range(n):
            mine = json.dumps(game.player_view(seat))
            for other in range(n):
                if other == seat:
                    continue
                for key in ("whammy", "charm"):
                    token = game.hands[other][key]
                    if token is not None:
                        assert token not in mine


@PROPERTY_SETTINGS
@given(games)
def test_replay_and_json_round_trip_are_exact(case: tuple[int, int, int, list[int]]) -> None:
    n, seed, option_index, _ = case
    game, taken, _ = _play(*case)
    again = G.replay(NAMES[:n], seed, taken, OPTION_SETS[option_index])
    assert again.to_json() == game.to_json()
    restored = Superstition.from_json(json.loads(json.dumps(game.to_json())))
    assert restored.to_json() == game.to_json()
    assert restored.legal_actions() == game.legal_actions()
    assert restored.expects() == game.expects()
    # The restored game goes on exactly like the original.
    for pick in range(6):
        if game.is_over:
            break
        action = _choose(game, pick)
        assert [e.to_json() for e in game.apply(action)] == [e.to_json() for e in restored.apply(action)]
    assert restored.to_json() == game.to_json()


def _candidates(game: Superstition) -> list[Action]:
    """A spread of well-formed actions, legal or not, for every seat."""
    out = []
    for seat in range(len(game.players)):
        out += [
            Action("roll", seat),
            Action("roll", seat, {"value": 3}),
            Action("end_turn", seat),
            Action("jump", seat),
            Action("leave_whammy", seat),
            Action("place_whammy", seat, {"space": "s5"}),
            Action("relocate_whammy", seat, {"to": "b9"}),
            Action("reset_trap", seat, {"trap": "grave1"}),
            Action("challenge_result", seat, {"trap": "ladder", "zapped": True}),
        ]
        out += [Action(k, seat, {"direction": d}) for k in ("move", "charm_move") for d in ("cw", "ccw", "in")]
        out += [Action("pull_peg", seat, {"trap": t, "peg": p}) for t in ("ladder", "grave2") for p in "ab"]
    return out


@PROPERTY_SETTINGS
@given(games, st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
def test_an_action_applies_exactly_when_it_is_legal(case: tuple[int, int, int, list[int]], probes: list[int]) -> None:
    game, _, _ = _play(*case)
    legal = game.legal_actions()
    candidates = _candidates(game)
    for probe in probes:
        action = candidates[probe % len(candidates)]
        before = json.dumps(game.to_json(), sort_keys=True)
        if action in legal:
            trial = Superstition.from_json(game.to_json())
            trial.apply(action)
        else:
            try:
                game.apply(action)
            except IllegalAction as exc:
                assert str(exc)
            else:
                raise AssertionError(f"{action} applied but was not in the legal list")
        assert json.dumps(game.to_json(), sort_keys=True) == before


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(range(len(OPTION_SETS))))
def test_random_games_finish_with_one_winner_home(seed: int, option_index: int) -> None:
    rng = random.Random(seed)
    game, _, _ = _play(4, seed, option_index, [rng.randrange(10**6) for _ in range(6000)])
    assert game.is_over, "a random 4-player game did not finish in 6000 actions"
    (winner,) = game.winners
    assert game.pawns[winner]["space"] == game.board.circles[game.colours[winner]]
    assert game.pawns[winner]["leg"] == "home"


@PROPERTY_SETTINGS
@given(st.integers(2, 4), st.integers(0, 2**32), st.lists(st.integers(0, 10**6), min_size=20, max_size=200))
def test_what_the_engine_expects_from_the_board_is_always_legal(n: int, seed: int, picks: list[int]) -> None:
    game = G.new(NAMES[:n], seed, {"challenge": "sensors"})
    for pick in picks:
        if game.is_over:
            break
        legal = game.legal_actions()
        for expectation in game.expects():
            offered = [a for values in expectation.accepts.values() for a in values.values()]
            offered += [a for a in (expectation.action, expectation.on_timeout) if a is not None]
            assert offered and all(a in legal for a in offered), (expectation, legal)
            for sensor, value in expectation.requires.items():
                assert value in sensor_values(sensor)
            for sensor, values in expectation.accepts.items():
                assert set(values) <= set(sensor_values(sensor))
        for sensor, value in game.expected_board().items():
            assert value in sensor_values(sensor)
        if game.phase in ("challenge", "outcome", "reset"):
            assert game.expects(), game.phase
        game.apply(_choose(game, pick))
