"""``gravekeeper play <game>``: play any game at the keyboard, without hardware.

One terminal serves the whole table, passed from player to player
(:mod:`controller.textplay.session`). Choices are numbers, or letters drawn
on the board; ``help`` lists the commands; ``quit`` or end of input leaves
cleanly. Without ``--players`` the names are asked at the prompt.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TextIO

from controller import textplay
from controller.cli import UsageError
from controller.games import GAME_NAMES, Game, IllegalAction, get_game
from controller.textplay.session import PROMPT, Session

DEFAULT_PLAYERS = ["Player 1", "Player 2"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"which game ({', '.join(GAME_NAMES)})")
    parser.add_argument("--seed", type=int, default=None, help="random seed, to replay the same game (default: random)")
    parser.add_argument(
        "--players",
        default=None,
        metavar="A,B,...",
        help="comma-separated player names in seat order, player 1 first. Who goes first: in Terror in the "
        "Graveyard the youngest player, in Graveyard Dogs the spookiest; in Superstition everyone throws "
        "and the highest throw starts. Without this option the names are asked at the prompt "
        "(Enter keeps Player 1, Player 2)",
    )
    parser.add_argument(
        "--skull-chance",
        type=int,
        default=50,
        metavar="PERCENT",
        help="Terror in the Graveyard: the chance that a dropped skull knocks the Headless Ghost off "
        "(default 50: the skull leaves by one of the Crypt's two windows)",
    )
    parser.add_argument(
        "--board",
        default=None,
        metavar="FILE",
        help="your own board file: a Terror or Superstition board, or the dogs tiles (docs/boards.md)",
    )
    parser.add_argument("--cards", default=None, metavar="FILE", help="your own Terror card mix (docs/boards.md)")


# The new-game option that carries each game's board file.
BOARD_OPTION = {"terror": "board", "superstition": "board", "dogs": "tiles"}


def data_options(game: str, board: str | None, cards: str | None) -> dict[str, str]:
    """The options naming the data files given on the command line; UsageError for one the game lacks."""
    out: dict[str, str] = {}
    if board is not None:
        if game not in BOARD_OPTION:
            raise UsageError(f"--board: the game {game!r} has no board file")
        out[BOARD_OPTION[game]] = board
    if cards is not None:
        if game != "terror":
            raise UsageError(f"--cards: only Terror in the Graveyard has a card file, not {game!r}")
        out["cards"] = cards
    return out


def parse_players(text: str | None) -> list[str]:
    if text is None:
        return list(DEFAULT_PLAYERS)
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise UsageError(f"--players: empty name in {text!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"--players: names must be different, got {text!r}")
    return names


def ask_players(cls: type[Game], seed: int, inp: TextIO, out: TextIO,
                options: dict[str, str] | None = None) -> Game | None:
    """Names typed at the prompt (Enter keeps the defaults); a bad list is asked again."""
    while True:
        print(
            f"{cls.title} for {cls.min_players} to {cls.max_players} players. Type the names in seat order, "
            f"separated by commas, or press Enter for {', '.join(DEFAULT_PLAYERS)} {PROMPT}",
            end="",
            file=out,
            flush=True,
        )
        line = inp.readline()
        if not line:
            return None
        try:
            names = parse_players(line.strip() or None)
            return cls.new(names, seed, options or None)
        except (UsageError, IllegalAction) as exc:
            print(f"Not accepted: {str(exc).removeprefix('--players: ')}", file=out, flush=True)


def main(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    try:
        cls = get_game(args.game)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not 0 <= args.skull_chance <= 100:
        raise UsageError(f"--skull-chance: a percentage 0..100, got {args.skull_chance}")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    options = data_options(args.game, getattr(args, "board", None), getattr(args, "cards", None))
    if options:
        try:  # the owner's files are checked before anyone types a name: a bad one is one line, exit 2
            cls.new(list(DEFAULT_PLAYERS), seed, options)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.players is None:
        game = ask_players(cls, seed, inp, out, options)
        if game is None:
            print("\nEnd of input: leaving the game.", file=out, flush=True)
            return 0
    else:
        try:
            game = cls.new(parse_players(args.players), seed, options or None)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    print(f"Seed {seed} (replay with --seed {seed}). Type help for the commands.", file=out, flush=True)
    chance = textplay.Chance.for_seed(seed, args.skull_chance / 100)
    return Session(game, inp, out, chance).run()
