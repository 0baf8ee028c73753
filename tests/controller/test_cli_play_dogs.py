"""``gravekeeper play dogs``: a whole Graveyard Dogs game at the keyboard."""

from __future__ import annotations

import io
import random

import pytest

from controller.cli import build_parser, main as cli_main
from controller.cli import play
from controller.games.dogs import DogsGame
from tests.controller.games.test_dogs_kit import greedy


def keyboard_lines(seed: int, players: list[str]) -> tuple[list[str], DogsGame]:
    """What a person would type to play the greedy game for ``seed``: menu numbers,
    with every roll typed as text instead."""
    sim = DogsGame.new(players, seed)
    rng = random.Random(seed)
    lines = ["board", "help", "", "77777", 'move_dog 0 {"x": 100, "y": 100}']
    while not sim.is_over:
        action = greedy(sim, rng)
        menu = play.ordered_actions(sim)
        lines.append(action.to_text() if action.kind == "roll" else str(menu.index(action) + 1))
        sim.apply(action)
    return lines, sim


@pytest.mark.parametrize("seed", [3, 9])
def test_a_whole_game_through_the_play_loop(seed: int) -> None:
    players = ["Ann", "Bo", "Cy"]
    lines, finished = keyboard_lines(seed, players)
    args = build_parser().parse_args(["play", "dogs", "--seed", str(seed), "--players", ",".join(players)])
    out = io.StringIO()
    assert play.main(args, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    text = out.getvalue()
    winners = ", ".join(players[s] for s in finished.winners)
    assert text.rstrip().endswith(f"Game over. Winner: {winners}.")
    assert "Not accepted: there is no action 77777" in text
    assert "Not accepted: cannot move_dog now" in text
    assert "Graveyard Dogs - turn" in text and "Final scores:" in text
    assert "the game is over: scores" in text
    assert "rolls" in text and "collects" in text


def test_the_console_command_starts_a_dogs_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\nquit\n"))
    assert cli_main(["play", "dogs", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Graveyard Dogs, seed 4" in out
    assert "places the tile at (0, 0)" in out and "Leaving the game." in out
    assert "(the graveyard is empty)" in out and "Tile to place:" in out


def test_every_event_and_position_has_words() -> None:
    """Random play from a full graveyard: the board renders and every event reads as a sentence."""
    from controller.textplay import dogs as text
    from tests.controller.games.test_dogs_kit import lab

    seen: set[str] = set()
    for seed in range(12):
        game = lab(3, seed)
        pick = random.Random(seed)
        for _ in range(250):
            if game.is_over:
                break
            legal = game.legal_actions()
            action = pick.choice([a for a in legal if a.kind != "back"] or legal)
            assert game.describe(action) != action.to_text()
            for event in game.apply(action):
                seen.add(event.type)
                assert text.describe_event(game, event), event
            assert "Graveyard Dogs - turn" in text.render(game)
    assert {"dice_rolled", "dog_moved", "spook_moved", "concern", "haunted", "borked", "bork_penalty"} <= seen


def test_too_many_players_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["play", "dogs", "--players", "A,B,C,D,E"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gravekeeper play: Graveyard Dogs takes 2 to 4 players, got 5"
