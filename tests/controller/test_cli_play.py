"""``gravekeeper play``: a whole game at the keyboard, driven through stdin."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from controller import cli, textplay
from controller.cli.play import ordered_actions
from controller.games import Action, Event, Game
from controller.games.terror import Terror


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], lines: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def choose(game: Terror, rng: random.Random) -> Action:
    """A simple player: hit with the skull, race a ring-holder to the Crypt, else hunt for cards."""
    mine = [a for a in game.legal_actions() if a.player == game.current_player]
    for a in mine:
        if a.kind == "skull_outcome" and a.params["hit"]:
            return a
    for a in mine:
        if a.kind == "attempt_skull":
            return a
    moves = [a for a in mine if a.kind == "move_pawn"]
    if moves:
        types = game.board.types(game.cfg)

        def score(a: Action) -> tuple[int, float]:
            pawn = game.s.pawns[a.player][a.params["pawn"]]  # type: ignore[index]
            cell = game.board.cell(a.params["to"])
            if any(game.card(c).effect == "ring" for c in pawn.cards):
                return (0 if cell == game.board.crypt else 1, a.params["to"][0] - a.params["to"][1])
            return (0 if types[cell] == "g" else 1, rng.random())

        return min(moves, key=score)
    return rng.choice([a for a in mine if a.kind != "play_card"] or mine)


def scripted_ghost_win() -> tuple[int, list[str], Terror]:
    """Find a seed whose game this player wins with the skull; return the keyboard script."""
    for seed in range(60):
        game = Terror.new(["Ann", "Bo"], seed)
        rng = random.Random(seed)
        lines: list[str] = []
        while not game.is_over and len(lines) < 1500:
            action = choose(game, rng)
            listed = ordered_actions(game)
            # Alternate the two ways of answering: the number, or the action as text.
            lines.append(str(listed.index(action) + 1) if len(lines) % 2 else action.to_text())
            game.apply(action)
        if game.s.ghost == "destroyed":
            return seed, lines, game
    raise AssertionError("no seed below 60 gives a skull win")


def test_a_whole_game_to_a_skull_win(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seed, lines, expected = scripted_ghost_win()
    # Bad input along the way: each prints a reason and changes nothing.
    noisy = lines[:3] + ["99", "fly 0", "", "roll 1", "board", "help"] + lines[3:]
    code, out, err = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", str(seed), "--players", "Ann,Bo"], noisy)
    assert code == 0, err
    winner = expected.players[expected.winners[0]]
    assert "The skull hits the launcher and the Headless Ghost flies off!" in out
    assert out.rstrip().endswith(f"Game over. Winner: {winner}.")
    assert "Not accepted: there is no action 99" in out
    assert "Not accepted: unknown action 'fly'" in out
    assert "Not accepted: it is " in out
    assert f"seed {seed}" in out


def test_board_and_actions_are_shown(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "4"], ["1", "quit"])
    assert code == 0
    assert "Ga4+" in out  # four pawns on the Gate platform, drawn on the grid
    assert "Player 1 to act:" in out and "1. Player 1 rolls both dice    (roll 0)" in out
    assert "Player 1 rolled" in out
    assert "Player 1 slides the" in out  # the tomb choices that follow the roll
    assert out.rstrip().endswith("Leaving the game.")


def test_end_of_input_leaves_cleanly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "1"], [])
    assert code == 0 and "End of input" in out


def test_other_seats_anytime_actions_come_after_the_current_players(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Terror.new(["Ann", "Bo"], 3)
    game.s.pawns[1][0].cards.append(game.s.draw.pop(game.s.draw.index("anytime-breeze")))
    listed = ordered_actions(game)
    assert listed[0] == Action("roll", 0)
    assert all(a.player == 1 and a.kind == "play_card" for a in listed[1:]) and len(listed) > 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "terror", "--players", "Solo"], "needs 2 to 4 players"),
        (["play", "terror", "--players", "A,,B"], "--players: empty name"),
        (["play", "terror", "--players", "A,A"], "names must be different"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run_cli(monkeypatch, capsys, argv, [])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


class _Bare(Game):
    """A game with no text renderer, to show the JSON fallback."""

    name: ClassVar[str] = "bare_for_textplay_test"
    title: ClassVar[str] = "Bare"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> "_Bare":
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "_Bare":
        return cls()

    def legal_actions(self) -> list[Action]:
        return []

    def apply(self, action: Action) -> list[Event]:
        return []

    players = property(lambda self: ["Solo"])  # type: ignore[assignment]
    current_player = property(lambda self: None)  # type: ignore[assignment]
    is_over = property(lambda self: True)  # type: ignore[assignment]
    winners = property(lambda self: [])  # type: ignore[assignment]

    def public_view(self) -> dict[str, Any]:
        return {"spooks": 3, "phase": "night"}

    def player_view(self, seat: int) -> dict[str, Any]:
        return self.public_view()


def test_a_game_without_a_renderer_shows_its_public_view_as_json() -> None:
    game = _Bare()
    assert textplay.renderer(game.name) is None
    assert json.loads(textplay.render(game)) == {"spooks": 3, "phase": "night"}
    assert textplay.render_private(game, 0) == ""
    assert textplay.describe_event(game, Event("woke", {"who": "ghost"})) == 'woke: who="ghost"'


def test_every_terror_event_is_told_in_words() -> None:
    from controller.textplay import terror as text

    seen: set[str] = set()
    for seed in range(30):
        game = Terror.new(["Ann", "Bo", "Cy"], seed)
        rng = random.Random(seed)
        for _ in range(1500):
            if game.is_over:
                break
            for event in game.apply(choose(game, rng) if seed % 2 else rng.choice(game.legal_actions())):
                words = text.describe_event(game, event)
                assert words and not words.startswith(event.type), event
                seen.add(event.type)
    assert {"rolled", "tomb_moved", "pawn_moved", "pawn_fell", "card_drawn", "game_won", "paralysed"} <= seen


def test_the_text_board_shows_tombs_pits_and_pawns() -> None:
    from controller.textplay import terror as text

    game = Terror.new(["Ann", "Bo"], 1)
    game.s.pawns[1][1].pos = game.board.cell([2, 1])
    game.s.tombs["wolf"] = "end_a"
    lines = text.render(game).splitlines()
    row2 = lines[3]  # header line, then rows 0, 1, 2
    assert row2.split()[:4] == ["2", "G", "..B", "Wo"]  # the Wolf tomb over its pit at end A
    assert "Wolf at end A" in text.render(game)
    assert "-> seat 0 Ann (green)" in text.render(game)
