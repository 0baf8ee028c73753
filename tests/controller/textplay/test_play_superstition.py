"""``gravekeeper play superstition``: the board as text, choices in words, Whammies in two steps."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from controller.cli import main as cli_main
from controller.games import Event
from controller.games.superstition import Superstition
from controller.games.superstition.board import DEFAULT_BOARD_PATH
from controller.textplay import Chance, options, position
from controller.textplay import superstition as text
from controller.textplay.menu import build, second_step
from controller.textplay.session import Session
from tests.controller.games.superstition.support import (
    begin,
    give,
    new_game,
    on_board,
    put,
    throw,
)
from tests.controller.textplay.pty_player import superstition_player


def _line_with(rendered: str, needle: str) -> str:
    return next(line for line in rendered.splitlines() if needle in line)


def render(game: Superstition, marks: dict[object, str] | None = None) -> str:
    return "\n".join(t for _, t in text.sections(game, marks or {}))


def test_the_board_is_drawn_from_its_coordinates() -> None:
    rendered = render(new_game(2))
    lines = rendered.splitlines()
    assert lines[0] == "   ".join(["[ ]"] * 9)
    assert "<1>   <2>   < >   < >" in rendered  # pawns are players' numbers, counted from 1
    ladder_row = _line_with(rendered, "{L}")
    assert "TMB" in ladder_row and "{M}" in ladder_row and ladder_row.count("[ ]") == 2
    assert rendered.count("{G}") == 2 and rendered.count("| |") == 2


def test_pawns_whammies_and_status_are_shown_in_words() -> None:
    game = new_game(3)
    begin(game, first=1)
    put(game, 0, "ladder", leg="in2")
    put(game, 2, "tomb.north", leg="tomb", target="grave2")
    give(game, 2, "the_raven", "hex_sign")
    on_board(game, "s5", "witching_hour")
    throw(game, 4)
    rendered = render(game)
    assert "{1}" in rendered and "|3|" in rendered and "<2>" in rendered and "(*)" in rendered
    assert "-> 2 Bob (blue): Bob's start circle, Part I" in rendered
    assert ("3 Cy (green): beside the Wizard's Tomb, Part II, at the Wizard's Tomb (has been to the Wizard's Tomb)"
            in rendered)
    assert "holds a Whammy" not in rendered  # who still holds a Whammy is secret
    assert "Whammies: Witching Hour on the stone path (top side)" in rendered
    assert "Throw: 4 = 4" in rendered
    # Only public facts: nobody's tokens are named on the shared board, and no space ids.
    assert "Raven" not in rendered and "Hex" not in rendered and "s5" not in rendered and "tomb.north" not in rendered


def test_a_whammy_under_a_pawn_is_drawn() -> None:
    game = new_game(2)
    begin(game, first=0)
    on_board(game, "b3", "the_raven")
    put(game, 1, "b3")
    rendered = render(game)
    assert "[2*" in rendered and "[*]" not in rendered


def test_the_private_line_names_only_that_seats_tokens() -> None:
    game = new_game(2)
    assert text.private(game, 0) == "Only for Ann: you hold no Whammy and no Charm."
    give(game, 0, "the_raven", "hex_sign")
    assert text.private(game, 0) == (
        "Only for Ann: your Whammy The Raven (not placed yet); your Charm Hex Sign (it lets you pass Witching Hour)")
    assert "Raven" not in text.private(game, 1)


def test_events_in_words_and_drawn_tokens_only_for_their_owner() -> None:
    game = new_game(2)
    moved = Event("moved", {"player": 0, "from": "b1", "to": "b3", "path": ["b2", "b3"]})
    assert text.describe_event(game, moved, None) == "Ann moves 2 to the brick path (bottom side)"
    zapped = Event("challenge_resolved", {"player": 1, "trap": "grave2", "zapped": True, "to": "s12"})
    assert text.describe_event(game, zapped, None).startswith("the second Grave: ZAPPED! Bob goes to the stone path")
    drew = Event("drew_tokens", {"player": 1}, private_to=1,
                 secret={"whammy": "the_raven", "whammy_name": "The Raven", "charm": "hex_sign",
                         "charm_name": "Hex Sign"})
    assert "The Raven" in text.describe_event(game, drew, 1)
    assert text.describe_event(game, drew, 0) == "Bob draws a Whammy and a Charm from the Wizard's Tomb."


def test_moves_are_letters_at_their_destination() -> None:
    game = new_game(2)
    begin(game, first=0)
    throw(game, 3)
    opts = options(game, 0, [a for a in game.legal_actions() if a.player == 0])
    moves = [o for o in opts if o.action.kind == "move"]
    assert moves and all(o.place in game.board.spaces for o in moves)
    menu = build("x", opts, position(game))
    rendered = render(game, menu.marks)
    assert all(f"[{letter}]" in rendered or f"({letter})" in rendered or f"{{{letter}}}" in rendered
               for letter in menu.marks.values())
    assert all("b" + str(i) not in line for line in menu.lines() for i in range(32))


def test_placing_a_whammy_is_two_steps_not_48_lines() -> None:
    game = new_game(2)
    begin(game, first=0)
    give(game, 0, "the_raven", "hex_sign")
    mine = [a for a in game.legal_actions() if a.player == 0]
    assert sum(a.kind == "place_whammy" for a in mine) > 26
    menu = build("x", options(game, 0, mine), position(game))
    parts = [e for e in menu.entries if e.label.startswith("Place your Whammy The Raven: a place in")]
    assert len(parts) >= 2 and len(menu.lines()) < 12
    second = second_step(parts[0], position(game))
    assert all(e.key.isalpha() and len(e.key) == 1 for e in second.entries)
    assert len(second.options()) == len(parts[0].options)
    assert "Letters on the board, a to" in "\n".join(second.lines())
    # Every free space is reachable in exactly one part.
    assert sorted(o.action.params["space"] for e in parts for o in e.options) == sorted(
        a.params["space"] for a in mine if a.kind == "place_whammy")


def test_move_cw_typed_as_words_is_the_move() -> None:
    game = new_game(2)
    begin(game, first=0)
    throw(game, 3)
    out = io.StringIO()
    Session(game, io.StringIO("\nmove cw\nquit\n"), out, Chance.for_seed(1)).run()
    assert "Ann moves 3" in out.getvalue() and "seat None" not in out.getvalue()


def test_a_whole_game_at_the_keyboard_with_letters_and_numbers() -> None:
    """The same game played by numbers and letters from the screen, to the end."""
    players = ["Ann", "Bo", "Cy"]
    game = Superstition.new(players, 41)
    rng = random.Random(41)
    lines: list[str] = []

    class Typist(io.StringIO):
        """Answers each prompt from the menu on screen (the session is this typist's reader)."""

        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            out = session.out.getvalue()  # type: ignore[attr-defined]
            if out.endswith("only you can see the screen > ") or out.endswith("hide your screen > "):
                return "\n"
            menu = session.menu
            assert menu is not None
            nonlocal_state["want"] = nonlocal_state["want"] or superstition_player(game, rng)
            want = nonlocal_state["want"]
            entry = next(e for e in menu.entries if any(o.action == want for o in e.options))
            if len(entry.options) == 1:
                nonlocal_state["want"] = None
            lines.append(entry.key)
            return entry.key + "\n"

    nonlocal_state: dict[str, object] = {"want": None}
    session = Session(game, Typist(), io.StringIO(), Chance.for_seed(41))
    assert session.run() == 0
    transcript = session.out.getvalue()  # type: ignore[attr-defined]
    assert game.is_over and transcript.rstrip().endswith(f"Game over. Winner: {players[game.winners[0]]}.")
    assert any(k.isalpha() for k in lines) and any(k.isdigit() for k in lines)
    assert "is home and WINS!" in transcript and "pulls peg" in transcript
    assert '{"' not in transcript and "start.red" not in transcript


def test_the_console_command_starts_a_superstition_game(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n1\nquit\n"))
    assert cli_main(["play", "superstition", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Superstition: Player 1 (player 1), Player 2 (player 2)." in out and "Leaving the game." in out
    assert "Player 1 throws" in out and "to see who starts" in out
    assert "{L}" in out and "{M}" in out and "TMB" in out


def test_an_owners_board_draws_too(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_BOARD_PATH.read_text())
    for space in raw["spaces"].values():
        space["x"] *= 2  # a wider printing
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(raw))
    game = new_game(2, board=str(path))
    rendered = render(game)
    assert rendered.splitlines()[0].count("[ ]") == 9 and "{L}" in rendered


def test_nothing_public_tells_who_holds_a_whammy() -> None:
    """The rules keep the drawn Whammy secret: holding one, or having placed it, looks the same in public."""
    holding, placed = new_game(2), new_game(2)
    for game in (holding, placed):
        begin(game, first=0)
        put(game, 1, "tomb.north", leg="tomb", target="grave2")
        give(game, 1, "the_raven", "hex_sign")
    placed.hands[1]["whammy"] = None  # the same player, with their Whammy gone from their hand
    public = [json.dumps(g.public_view(), sort_keys=True) for g in (holding, placed)]
    assert public[0] == public[1]
    assert "holds" not in public[0].lower()
    assert render(holding) == render(placed)  # the shared board of terminal play says nothing either
    assert holding.player_view(1)["you"]["whammy"] == "the_raven"  # the holder still sees it
