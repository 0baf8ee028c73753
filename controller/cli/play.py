"""``gravekeeper play <game>``: play any game at the keyboard, without hardware.

One terminal serves the whole table (hot seat). Each step shows the board as
text, the current player's own secrets, and the numbered legal actions: the
current player's first, then what other seats may do right now (such as a
Play Anytime! card). Type a number, or an action in ``Action.to_text()`` form
(``kind seat {json params}``); a bad entry prints the reason and changes
nothing. ``quit`` or end of input leaves cleanly.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TextIO

from controller import textplay
from controller.cli import UsageError
from controller.games import GAME_NAMES, Action, Game, IllegalAction, get_game

QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP = (
    "Type the number of an action, or an action as text as shown in brackets (kind, seat, "
    'parameters), e.g.  {example}.  "board" shows the board again, "quit" leaves.'
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"which game ({', '.join(GAME_NAMES)})")
    parser.add_argument("--seed", type=int, default=None, help="random seed, to replay the same game (default: random)")
    parser.add_argument(
        "--players",
        default=None,
        metavar="A,B,...",
        help="comma-separated player names in seat order (default: two seats, Player 1 and Player 2)",
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
        return ["Player 1", "Player 2"]
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise UsageError(f"--players: empty name in {text!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"--players: names must be different, got {text!r}")
    return names


def ordered_actions(game: Game) -> list[Action]:
    """The current player's actions first, then other seats', each group in engine order."""
    current = game.current_player
    actions = game.legal_actions()
    return [a for a in actions if a.player == current] + [a for a in actions if a.player != current]


def main(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    try:
        cls = get_game(args.game)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    players = parse_players(args.players)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        options = data_options(args.game, getattr(args, "board", None), getattr(args, "cards", None))
        game = cls.new(players, seed, options) if options else cls.new(players, seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    example = ordered_actions(game)[0].to_text() if game.legal_actions() else "roll 0"
    say(f"{cls.title}, seed {seed} (replay with --seed {seed}). {HELP.format(example=example)}")
    show_board = True
    while True:
        if show_board:
            say()
            say(textplay.render(game))
            show_board = False
        if game.is_over:
            winners = ", ".join(game.players[s] for s in game.winners) or "nobody"
            say(f"Game over. Winner: {winners}.")
            return 0
        current = game.current_player
        if current is not None:
            private = textplay.render_private(game, current)
            if private:
                say(private)
        actions = ordered_actions(game)
        say(f"{game.players[current] if current is not None else 'Nobody'} to act:")
        for n, action in enumerate(actions, 1):
            seat = "" if action.player in (None, current) else f"[seat {action.player}] "
            say(f"  {n:>3}. {seat}{game.describe(action)}    ({action.to_text()})")
        print("> ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            say("\nEnd of input: leaving the game.")
            return 0
        line = line.strip()
        if not line:
            continue
        if line.lower() in QUIT_WORDS:
            say("Leaving the game.")
            return 0
        if line.lower() in ("help", "?"):
            say(HELP)
            continue
        if line.lower() == "board":
            show_board = True
            continue
        try:
            action = _choose(line, actions)
            events = game.apply(action)
        except IllegalAction as exc:
            say(f"Not accepted: {exc}")
            continue
        for event in events:
            say("  * " + textplay.describe_event(game, event))
        show_board = True


def _choose(line: str, actions: list[Action]) -> Action:
    if line.isdigit():
        n = int(line)
        if not 1 <= n <= len(actions):
            raise IllegalAction(f"there is no action {n}; choose 1 to {len(actions)}")
        return actions[n - 1]
    return Action.from_text(line)
