"""The common game shape: actions, the seeded RNG and the registry."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.games import (
    Action,
    IllegalAction,
    MalformedAction,
    game_title,
    get_game,
)
from controller.games.rng import Rng

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8))
params = st.dictionaries(st.text(min_size=1, max_size=6), st.one_of(json_scalars, st.lists(json_scalars, max_size=3)),
                         max_size=4)


@given(kind=st.from_regex(r"[a-z_]{1,12}", fullmatch=True), player=st.one_of(st.none(), st.integers(0, 7)),
       params=params)
def test_action_json_and_text_round_trip(kind: str, player: int | None, params: dict) -> None:
    action = Action(kind, player, params)
    assert Action.from_json(action.to_json()) == action
    assert Action.from_json(json.dumps(action.to_json())) == action
    assert Action.from_text(action.to_text()) == action


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ({"player": 1}, "no 'kind'"),
        ({"kind": "roll", "extra": 1}, "unknown action field"),
        ({"kind": "roll", "player": "one"}, "seat number"),
        ({"kind": "roll", "params": [1]}, "params must be an object"),
        ({"kind": ""}, "non-empty"),
    ],
)
def test_malformed_actions_say_why(raw: object, reason: str) -> None:
    with pytest.raises(MalformedAction, match=reason):
        Action.from_json(raw)


def test_malformed_is_an_illegal_action_and_a_value_error() -> None:
    assert issubclass(MalformedAction, IllegalAction)
    assert issubclass(IllegalAction, ValueError)


def test_rng_is_deterministic_and_round_trips() -> None:
    a, b = Rng(1234), Rng(1234)
    assert [a.die() for _ in range(50)] == [b.die() for _ in range(50)]
    c = Rng.from_json(a.to_json())
    assert [a.next_u64() for _ in range(5)] == [c.next_u64() for _ in range(5)]


def test_rng_die_is_in_range_and_covers_every_face() -> None:
    rng = Rng(7)
    faces = {rng.die() for _ in range(600)}
    assert faces == {1, 2, 3, 4, 5, 6}


def test_rng_shuffle_is_a_permutation() -> None:
    rng = Rng(99)
    items = list(range(36))
    rng.shuffle(items)
    assert sorted(items) == list(range(36)) and items != list(range(36))


@pytest.mark.parametrize("bad", [42, "xyz", None])
def test_rng_rejects_bad_state(bad: object) -> None:
    with pytest.raises(ValueError):
        Rng.from_json(bad)


def test_registry_names_the_choices_for_an_unknown_game() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'.*terror"):
        get_game("chess")


def test_a_games_title_is_its_classs_and_an_unknown_game_keeps_its_name_or_the_default() -> None:
    assert [game_title(n) for n in ("terror", "superstition", "dogs")] == [
        "Terror in the Graveyard", "Superstition", "Graveyard Dogs"]
    assert game_title("chess") == "chess" and game_title("chess", "No game") == "No game"
