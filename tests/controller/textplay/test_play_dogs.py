"""``gravekeeper play dogs``: a Graveyard Dogs game at the keyboard, tiles placed in two steps."""

from __future__ import annotations

import io
import random
import re

import pytest

from controller.cli import main as cli_main
from controller.games import Action
from controller.games.dogs import DogsGame
from controller.textplay import Chance, options, position
from controller.textplay import dogs as text
from controller.textplay.menu import build, second_step
from controller.textplay.session import Session
from tests.controller.games.dogs.support import greedy, lab

COORDS = re.compile(r"\(-?\d+, -?\d+\)")
SPOOK_ID = re.compile(r"spook \d")


def sprawling(seed: int = 5) -> DogsGame:
    """A game several tiles in, so the drawn tile may go in dozens of places."""
    game = DogsGame.new(["Ann", "Bo", "Cy"], seed)
    rng = random.Random(seed)
    while len([a for a in game.legal_actions()
               if a.kind == "place_tile"]) <= 26 * 4 or game.legal_actions()[0].kind != "place_tile":
        game.apply(greedy(game, rng))
    return game


def test_a_tile_placement_is_two_steps_where_then_which_way_round() -> None:
    game = sprawling()
    mine = game.legal_actions()
    spots = {(a.params["x"], a.params["y"]) for a in mine}
    assert len(mine) > 100 and len(spots) > 26
    menu = build("x", options(game, game.current_player or 0, mine), position(game), text.MARK_WIDTH)
    # Step one: a letter (two letters, as there are many places) drawn on the board at each place.
    assert len(menu.entries) == len(spots) and all(len(e.key) == 2 for e in menu.entries)
    grid = "\n".join(t for k, t in text.sections(game, menu.marks) if k == "grid")
    assert all(key in grid for key in menu.marks.values())
    assert "\n".join(menu.lines()).count("\n") < 4  # one line says what the letters are
    # Step two: the tile's four turns, drawn.
    second = second_step(menu.entries[0], position(game), text.MARK_WIDTH)
    assert [e.key for e in second.entries] == ["1", "2", "3", "4"]
    assert second.entries[0].label.startswith("as printed:") and second.entries[1].label.startswith("turned a quarter "
                                                                                                    "clockwise:")


def test_the_turned_tile_is_drawn_as_the_engine_turns_it() -> None:
    game = sprawling()
    tile = game.public_view()["drawn_tile"]
    for rotation in range(4):
        trial = DogsGame.from_json(game.to_json())
        spot = next(a for a in trial.legal_actions() if a.params["rotation"] == rotation)
        trial.apply(spot)
        placed = trial.public_view()["tiles"][-1]["grid"]
        assert text.turned(tile["grid"], rotation) == placed


def test_events_and_choices_have_words_not_coordinates_or_ids() -> None:
    seen: set[str] = set()
    for seed in range(12):
        game = lab(3, seed)
        pick = random.Random(seed)
        for _ in range(250):
            if game.is_over:
                break
            legal = game.legal_actions()
            seat = legal[0].player
            for o in options(game, seat, [a for a in legal if a.player == seat]):  # type: ignore[arg-type]
                assert not COORDS.search(o.label) and not SPOOK_ID.search(o.label), o.label
            action = pick.choice([a for a in legal if a.kind != "back"] or legal)
            for event in game.apply(action):
                seen.add(event.type)
                words = text.describe_event(game, event, None)
                assert words and not COORDS.search(words) and not SPOOK_ID.search(words), (event, words)
    assert {"dice_rolled", "dog_moved", "spook_moved", "concern", "haunted", "borked"} <= seen


def test_a_whole_game_through_the_play_loop() -> None:
    players = ["Ann", "Bo", "Cy"]
    game = DogsGame.new(players, 9)
    rng = random.Random(9)
    state: dict[str, Action | None] = {"want": None}

    class Typist(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            out = session.out.getvalue()  # type: ignore[attr-defined]
            if out.endswith(("only you can see the screen > ", "hide your screen > ")):
                return "\n"
            menu = session.menu
            assert menu is not None
            want = state["want"] = state["want"] or greedy(game, rng)
            entry = next(e for e in menu.entries if any(o.action == want for o in e.options))
            if len(entry.options) == 1:
                state["want"] = None
            return entry.key + "\n"

    session = Session(game, Typist(), io.StringIO(), Chance.for_seed(9))
    assert session.run() == 0
    transcript = session.out.getvalue()  # type: ignore[attr-defined]
    winners = ", ".join(players[s] for s in game.winners)
    assert transcript.rstrip().endswith(f"Game over. Winner: {winners}.")
    assert "Final scores:" in transcript and "rolls" in transcript
    assert '{"' not in transcript and "T0" not in transcript and "T1" not in transcript


def test_the_console_command_starts_a_dogs_game(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\na\n1\nquit\n"))
    assert cli_main(["play", "dogs", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Graveyard Dogs: Player 1 (player 1), Player 2 (player 2)." in out
    assert "Tile to place:" in out and "Player 1 places the tile, as printed" in out and "Leaving the game." in out


def test_too_many_players_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["play", "dogs", "--players", "A,B,C,D,E"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gravekeeper play: Graveyard Dogs takes 2 to 4 players, got 5"
