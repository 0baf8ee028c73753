"""The undo guidance names places as players do: no coordinates, no space ids."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator

from controller.games import Action, Game, get_game
from controller.referee.place_words import dogs_square, ordinal, superstition_space
from controller.referee.undo import pieces_back

RAW = re.compile(r"\(-?\d+, -?\d+\)|\b[bs]\d+\b|tomb\.|start\.")


def _played(name: str, steps: int) -> object:
    game = get_game(name).new(["Ann", "Bo"], seed=3)
    rnd = random.Random(3)
    for _ in range(steps):
        actions = game.legal_actions()
        if game.is_over or not actions:
            break
        game.apply(rnd.choice(actions))
    return game


def test_a_dog_and_a_spook_are_put_back_on_named_squares() -> None:
    game = _played("dogs", 60)
    restored = game.public_view()
    now = copy.deepcopy(restored)
    now["dogs"][0]["x"] += 1
    for spook in now.get("spooks") or []:
        spook["y"] += 1
    lines = pieces_back("dogs", now, restored)
    assert lines and lines[0].startswith("Move Ann's dog back to the ") and " square of " in lines[0]
    assert not any(RAW.search(line) for line in lines), lines


def test_a_superstition_pawn_and_whammy_are_put_back_on_named_spaces() -> None:
    game = _played("superstition", 5)
    restored = game.public_view()
    now = copy.deepcopy(restored)
    brick = restored["board"]["brick_path"]
    now["players"][0]["space"] = brick[3]
    restored["players"][0]["space"] = brick[5]
    now["whammies"] = [{"space": brick[7]}]
    restored["whammies"] = []
    lines = pieces_back("superstition", now, restored)
    assert len(lines) == 2 and lines[0].startswith("Move Ann's pawn back to the ")
    assert lines[1].startswith("Take the Whammy off the ")
    assert not any(RAW.search(line) for line in lines), lines


def test_place_words() -> None:
    assert [ordinal(n) for n in (1, 3, 11, 12, 21, 22)] == ["first", "third", "11th", "12th", "21st", "22nd"]
    view = {"tile_size": 3, "tiles": [{"x": 0, "y": 0, "name": "Lantern Walk"}]}
    assert dogs_square(view, 0, 0) == "the top-left square of Lantern Walk"
    assert dogs_square(view, 1, 1) == "the centre square of Lantern Walk"
    assert dogs_square(view, 2, 2) == "the bottom-right square of Lantern Walk"
    assert dogs_square(view, 9, 9) == "a square off the tiles"
    game = get_game("superstition").new(["Ann", "Bo"], seed=1)
    view = game.public_view()
    gate = view["board"]["gate"]
    assert superstition_space(view, gate) == "the brick at the gate"
    brick_path = view["board"]["brick_path"]
    after = brick_path[(brick_path.index(gate) + 2) % len(brick_path)]
    assert "after the gate" in superstition_space(view, after) or "before" in superstition_space(view, after)


def random_positions(game: Game, *, seed: int, steps: int) -> Iterator[list[Action]]:
    """The legal actions of each position of a seeded random game, until it ends or ``steps`` moves;
    the game moves on (one of them at random) after the caller has looked at each."""
    rnd = random.Random(seed)
    for _ in range(steps):
        actions = game.legal_actions()
        if game.is_over or not actions:
            return
        yield actions
        game.apply(rnd.choice(actions))


def test_a_step_to_take_back_is_described_in_words() -> None:
    """The engine describes a dog's move by its square, and so does the undo card."""
    from controller.referee.undo import describe_step

    game = get_game("dogs").new(["Ann", "Bo"], seed=3)
    seen = 0
    for actions in random_positions(game, seed=3, steps=400):
        for a in [a for a in actions if a.kind == "move_dog"][:3]:
            assert not re.search(r"\(-?\d+, -?\d+\)", game.describe(a))  # the engine says it in words too
            text = describe_step(game, a)
            assert " square of " in text and not RAW.search(text), text
            seen += 1
    assert seen >= 10


def test_every_games_steps_are_the_engines_own_words_without_ids() -> None:
    """Each step is worded by its game's describe, which already names squares and spaces."""
    from controller.referee.undo import describe_step

    for name in ("terror", "superstition", "dogs"):
        game = get_game(name).new(["Ann", "Bo"], seed=5)
        seen = 0
        for actions in random_positions(game, seed=5, steps=150):
            for a in actions[:6]:
                text = describe_step(game, a)
                assert text.endswith(game.describe(a)) and not RAW.search(text), (name, text)
                seen += 1
        assert seen >= 20, name


def test_a_players_name_that_looks_like_a_space_id_is_kept() -> None:
    """Only the engine words a place, where it names one: never a player's own name."""
    from controller.referee.undo import describe_step

    game = get_game("superstition").new(["b1", "s2"], seed=1)
    actions = game.legal_actions()
    assert actions
    text = describe_step(game, actions[0])
    assert text.startswith("b1 ") or text.startswith("s2 "), text
