"""``gravekeeper play superstition``: a whole game at the keyboard, driven through stdin."""

from __future__ import annotations

import io
import random

import pytest

from controller.cli import build_parser
from controller.cli import main as cli_main
from controller.cli import play
from controller.games import Action
from controller.games.superstition import Superstition


def sensible(game: Superstition, rng: random.Random) -> Action:
    """A plain player: goes in to a platform when it can, otherwise picks at random."""
    actions = [a for a in game.legal_actions() if a.player == game.current_player]
    inward = [a for a in actions if a.kind == "move" and a.params["direction"] == "in"]
    if inward:
        return inward[0]
    non_whammy = [a for a in actions if a.kind != "place_whammy"]
    return rng.choice(non_whammy if non_whammy and rng.random() < 0.93 else actions)


def keyboard_lines(seed: int, players: list[str]) -> tuple[list[str], Superstition]:
    """What a person types to play the game for ``seed``: menu numbers, with moves typed as text."""
    sim = Superstition.new(players, seed)
    rng = random.Random(seed)
    lines = ["board", "help", "", "999", 'move 0 {"direction": "up"}']
    while not sim.is_over:
        action = sensible(sim, rng)
        menu = play.ordered_actions(sim)
        lines.append(action.to_text() if action.kind == "move" else str(menu.index(action) + 1))
        sim.apply(action)
    return lines, sim


@pytest.mark.parametrize("seed", [3, 41])
def test_a_whole_game_through_the_play_loop(seed: int) -> None:
    players = ["Ann", "Bo", "Cy"]
    lines, finished = keyboard_lines(seed, players)
    args = build_parser().parse_args(["play", "superstition", "--seed", str(seed), "--players", ",".join(players)])
    out = io.StringIO()
    assert play.main(args, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    text = out.getvalue()
    (winner,) = finished.winners
    assert text.rstrip().endswith(f"Game over. Winner: {players[winner]}.")
    assert "Not accepted: there is no action 999" in text
    assert "Not accepted: move is not allowed now" in text  # typed before the opening is over
    assert "[ ] brick  ( ) stone" in text  # the board legend
    assert "must challenge the" in text and "pulls peg" in text
    assert "draws a Whammy and a Charm from the Wizard's Tomb" in text
    assert f"{players[winner]} is home and WINS!" in text
    # The holder of tokens sees them (hot seat), named in words.
    assert "(only for" in text and "your Charm:" in text


def test_the_console_command_starts_a_superstition_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\nquit\n"))
    assert cli_main(["play", "superstition", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Superstition, seed 4" in out and "Leaving the game." in out
    assert "Player 1 throws" in out and "to see who starts" in out
    assert "{L}" in out and "{M}" in out and "TMB" in out
