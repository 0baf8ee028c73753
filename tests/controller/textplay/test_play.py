"""``gravekeeper play``: the command, and the play loop's rows one by one (Terror in the Graveyard)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from controller import cli, textplay
from controller.cli import build_parser
from controller.cli import play as play_cli
from controller.games import Action, Event, Game
from controller.games.terror import Terror
from controller.textplay import Chance
from controller.textplay import terror as text
from controller.textplay.session import CLEAR, Session


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
            lines: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_session(game: Game, lines: list[str], seed: int = 1, skull_hit: float = 0.5) -> tuple[Session, str]:
    out = io.StringIO()
    session = Session(game, io.StringIO("".join(line + "\n" for line in lines)), out, Chance.for_seed(seed, skull_hit))
    assert session.run() == 0
    return session, out.getvalue()


def screens(out: str) -> list[str]:
    return out.split(CLEAR)


def with_breeze(seat: int, seed: int = 3) -> Terror:
    """A game where ``seat``'s girl pawn holds the Play Anytime! card."""
    game = Terror.new(["Ann", "Bo", "Cy"], seed)
    game.s.pawns[seat][0].cards.append(game.s.draw.pop(game.s.draw.index("anytime-breeze")))
    return game


# ----- help -----------------------------------------------------------------------------
def test_help_and_question_mark_print_real_words_not_a_placeholder() -> None:
    _, out = run_session(Terror.new(["Ann", "Bo"], 4), ["", "help", "?", "quit"])
    assert "{example}" not in out and "{" not in out
    assert out.count("Type the number of a choice, or a letter shown on the board (for example 1).") == 2
    assert "such as 'roll'" in out and "interrupt:" in out


# ----- pass the device --------------------------------------------------------------------
def test_each_turn_starts_with_a_hand_over_and_the_hand_only_after_enter() -> None:
    game = Terror.new(["Ann", "Bo"], 4)
    game.s.pawns[0][0].cards.append(game.s.draw.pop(game.s.draw.index("ring-1")))
    _, out = run_session(game, ["", "1", "1", "end turn", "quit"])
    first, *rest = screens(out)
    before, after = first.split("Ann, press Enter when only you can see the screen > ")
    assert "It is Ann's turn." in before and "Pass the device to Ann (player 1)." in before
    assert "Magic Ring" not in before and "Magic Ring" in after  # her own hand, once she pressed Enter
    # The turn ends: the screen is cleared, then Bo is asked for, and Ann's ring is not on his screen.
    assert len(rest) == 1 and rest[0].startswith("What happened:")
    assert "It is Bo's turn." in rest[0] and "Magic Ring" not in rest[0]


def test_a_secret_card_is_told_to_its_owner_only() -> None:
    game = Terror.new(["Ann", "Bo", "Cy"], 1)
    drawn = Event("card_drawn", {"seat": 2, "pawn": 0, "label": "girl"}, private_to=2,
                  secret={"card": game.deck.cards["ring-1"].public()})
    assert "Magic Ring" in text.describe_event(game, drawn, 2)
    for viewer in (None, 0, 1):
        words = text.describe_event(game, drawn, viewer)
        assert words == "Cy's girl pawn (3g) drew a card and saved it." and "only" not in words


def test_another_players_anytime_card_is_not_in_the_current_players_menu() -> None:
    session, out = run_session(with_breeze(1), ["", "quit"])
    assert "Cold Breeze" not in out
    assert session.menu is not None and all(o.action.player == 0 for o in session.menu.options())


def test_interrupt_hands_the_device_to_that_player_and_back() -> None:
    game = with_breeze(1)
    breeze = next(a for a in game.legal_actions() if a.player == 1)
    lines = ["", "interrupt", "1", ""]  # Ann types interrupt, picks Bo (the first other player), Bo presses Enter
    probe = Session(game, io.StringIO(), io.StringIO(), Chance.for_seed(1))
    menu = textplay.menu.build("x", textplay.options(game, 1, [a for a in game.legal_actions() if a.player == 1]),
                               probe.position, probe.mark_width)
    key = next(e.key for e in menu.entries if any(o.action == breeze for o in e.options))
    entry = menu.find(key)
    assert entry is not None
    lines.append(key)
    if len(entry.options) > 1:
        lines.append(str(next(i for i, o in enumerate(entry.options, 1) if o.action == breeze)))
    lines += ["", "quit"]  # Ann takes the device back
    _, out = run_session(game, lines)
    parts = screens(out)
    assert "Who interrupts? (back: nobody)" in parts[0] and "Cold Breeze" not in parts[0]
    assert parts[1].startswith("Bo interrupts Ann's turn.") and "Bo, press Enter" in parts[1]
    assert "Only for Bo" in parts[1] and "Play Cold Breeze" in parts[1]
    assert "Bo plays Cold Breeze" in parts[2] and "Pass the device to Ann (player 1)." in parts[2]
    assert "Only for Bo" not in parts[2]


def test_interrupt_with_nothing_to_play_says_so_to_that_player_alone() -> None:
    _, out = run_session(Terror.new(["Ann", "Bo"], 4), ["", "interrupt", "", "", "", "quit"])
    parts = screens(out)
    assert parts[1].startswith("Bo interrupts Ann's turn.")
    assert "You have nothing you can play now." in parts[1].split("only you can see the screen > ")[1]
    assert "It is Ann's turn." in parts[2]


# ----- no free win ----------------------------------------------------------------------------
def skull_ready(seed: int = 2) -> Terror:
    """Ann's girl pawn on the Crypt with a Magic Ring, her turn, after the tomb slid."""
    game = Terror.new(["Ann", "Bo"], seed)
    game.s.pawns[0][0].cards.append(game.s.draw.pop(game.s.draw.index("ring-1")))
    game.s.pawns[0][0].pos = game.board.crypt
    game.apply(Action("roll", 0))
    game.apply(game.legal_actions()[0])
    return game


@pytest.mark.parametrize("hit, words", [(1.0, "Headless Ghost flies off"), (0.0, "rolls out of the other window")])
def test_the_skull_drop_is_decided_by_chance_never_picked(hit: float, words: str) -> None:
    game = skull_ready()
    attempt = next(a for a in game.legal_actions() if a.kind == "attempt_skull")
    session = Session(game, io.StringIO(), io.StringIO(), Chance.for_seed(1, hit))
    menu = textplay.menu.build("x", textplay.options(game, 0, [a for a in game.legal_actions() if a.player == 0]),
                               session.position)
    key = next(e.key for e in menu.entries if any(o.action == attempt for o in e.options))
    _, out = run_session(game, ["", key, "quit"], skull_hit=hit)
    assert "The skull rattles down the Crypt's chute..." in out and words in out
    assert "knocks the Headless Ghost off" not in out  # never offered as a choice


def test_the_skull_chance_follows_the_seed() -> None:
    chances = [Chance.for_seed(seed) for seed in (7, 7, 8)]
    draws = [[chance.happens(0.5) for _ in range(40)] for chance in chances]
    assert draws[0] == draws[1] != draws[2]
    assert 5 < sum(draws[0]) < 35  # about half: one of the Crypt's two windows


# ----- numbering and words -------------------------------------------------------------------
def test_players_are_counted_from_one_and_typed_words_say_what_to_type() -> None:
    _, out = run_session(Terror.new(["Ann", "Bo"], 4), ["", "roll 3", "move cw", "roll", "quit"])
    assert "seat None" not in out and "seat 0" not in out
    assert "'roll 3' is not one of your choices now: type one of 1, or 'roll' alone to see its choices." in out
    assert "'move cw' is not a choice here: type one of 1 (or 'help')." in out
    assert "Ann rolled" in out  # 'roll' alone is the roll
    assert "-> 1 Ann (green)" in out and "   2 Bo (blue)" in out and "Pass the device to Ann (player 1)." in out


def test_monster_card_targets_list_opponents_first_and_own_pawn_last() -> None:
    game = Terror.new(["Ann", "Bo", "Cy"], 1)
    actions = [Action("place_monster", 1, {"target": t}) for t in ([1, 0], [0, 0], [0, 1], [2, 1])]
    labels = [o.label for o in text.options(game, 1, actions)]
    assert labels == [
        "Put the Monster card on Ann's girl pawn (1g)",
        "Put the Monster card on Ann's boy pawn (1b)",
        "Put the Monster card on Cy's boy pawn (3b)",
        "Put the Monster card on your own girl pawn (2g)",
    ]


# ----- a compact board -------------------------------------------------------------------------
def test_only_what_changed_is_reprinted_and_board_shows_it_all() -> None:
    _, out = run_session(Terror.new(["Ann", "Bo"], 4), ["", "1", "board", "quit"])
    after_roll = out.split("Ann rolled")[1].split("Ann, your choice:")[0]
    assert "Dice:" in after_roll and "Tombs:" not in after_roll and "Draw pile" not in after_roll
    # 'board' printed it all again, with the legend.
    assert out.count("Tombs:") == 2 and out.count("Draw pile") == 2 and out.count(".. grass  ## bushes") == 1


def test_destinations_are_letters_on_the_board_and_chosen_by_letter() -> None:
    game = Terror.new(["Ann", "Bo"], 4)
    session, out = run_session(game, ["", "1", "1", "a", "quit"])
    assert "Type the letter shown on the board:" in out
    assert "a  your girl pawn (1g) to a Magic Potion space / your boy pawn (1b)" in out
    grid = out.split("Type the letter shown on the board:")[0].rsplit("Ann, your choice:", 1)[0]
    # The letter stands just before its space (the Magic Potion space both pawns can reach), not between two.
    assert "\na+ " in grid
    assert "Which one?" in out  # both pawns can go there: the second step asks which
    assert game.s.phase == "move"


def test_with_moves_on_the_board_a_typed_digit_is_no_choice_and_never_ends_the_turn() -> None:
    # A game night typed "1" for a move: it was "1. End your turn without moving", the only number.
    game = Terror.new(["Ann", "Bo"], 4)
    _, out = run_session(game, ["", "1", "1", "1", "quit"])
    menu = out.rsplit("Ann, your choice:", 1)[1]
    assert menu.index("Type the letter shown on the board:") < menu.index("End your turn without moving")
    assert "1. End your turn" not in out and "'1' is not a choice here" in out
    assert game.s.phase == "move" and game.s.turn == 0  # the turn was not skipped


def test_the_grid_carries_its_key_every_time() -> None:
    _, out = run_session(Terror.new(["Ann", "Bo"], 4), ["", "1", "1", "quit"])  # the tomb slides: a new grid
    assert out.count("Key: 1g 1b = player 1's girl and boy; 1g+2 = 1g and 2 more pawns") == 2


def test_no_coordinates_ids_or_json_on_screen() -> None:
    game = Terror.new(["Ann", "Bo"], 4)
    game.s.pawns[0][0].cards.append(game.s.draw.pop(game.s.draw.index("move-pawn-1")))
    _, out = run_session(game, ["", "1", "1", "board", "quit"])
    assert '{"' not in out and "move-pawn" not in out and "[7, 0]" not in out and "seat 0" not in out


# ----- the command ----------------------------------------------------------------------------
def test_players_help_says_who_goes_first() -> None:
    helptext = " ".join(build_parser()._subparsers._group_actions[0].choices["play"].format_help().split())  # type: ignore[union-attr]
    assert "the youngest player" in helptext and "the spookiest" in helptext


def test_default_names_can_be_changed_at_the_prompt(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "4"], ["A,A", "Ann, Bo", "", "quit"])
    assert code == 0
    assert "Not accepted: names must be different" in out
    assert "Terror in the Graveyard: Ann (player 1), Bo (player 2)." in out


def test_enter_keeps_the_default_names(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "4"], ["", "", "quit"])
    assert code == 0 and "Player 1 (player 1), Player 2 (player 2)" in out
    assert "Seed 4 (replay with --seed 4)" in out and out.rstrip().endswith("Leaving the game.")


def test_end_of_input_leaves_cleanly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "1", "--players", "Ann,Bo"], [])
    assert code == 0 and "End of input" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "terror", "--players", "Solo"], "needs 2 to 4 players"),
        (["play", "terror", "--players", "A,,B"], "--players: empty name"),
        (["play", "terror", "--players", "A,A"], "names must be different"),
        (["play", "terror", "--skull-chance", "101"], "--skull-chance: a percentage 0..100"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run_cli(monkeypatch, capsys, argv, [])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_same_seed_plays_the_same_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ["", "1", "1", "a", "1"] + ["1"] * 30 + ["quit"]
    first = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "9", "--players", "Ann,Bo"], lines)[1]
    second = run_cli(monkeypatch, capsys, ["play", "terror", "--seed", "9", "--players", "Ann,Bo"], lines)[1]
    assert first == second


class _Bare(Game):
    """A game with no text module, to show the fallback."""

    name: ClassVar[str] = "bare_for_textplay_test"
    title: ClassVar[str] = "Bare"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> _Bare:
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> _Bare:
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


def test_a_game_without_a_text_module_shows_its_public_view() -> None:
    game = _Bare()
    assert textplay.renderer(game.name) is None
    assert json.loads(textplay.render(game)) == {"spooks": 3, "phase": "night"}
    assert textplay.render_private(game, 0) == ""
    assert textplay.describe_event(game, Event("woke", {"who": "ghost"})) == 'woke: who="ghost"'


def test_the_text_board_shows_tombs_pits_and_pawns() -> None:
    game = Terror.new(["Ann", "Bo"], 1)
    game.s.pawns[1][1].pos = game.board.cell([2, 1])
    game.s.tombs["wolf"] = "end_a"
    rendered = textplay.render(game)
    row2 = rendered.splitlines()[2]
    assert row2.split()[:3] == ["G", "..2b", "Wo"]  # Bo's boy pawn, and the Wolf tomb over its pit at end A
    assert "Wolf at end A" in rendered and "-> 1 Ann (green)" in rendered


def test_play_main_runs_with_given_streams() -> None:
    args = build_parser().parse_args(["play", "terror", "--seed", "4", "--players", "Ann,Bo"])
    out = io.StringIO()
    assert play_cli.main(args, stdin=io.StringIO("\nquit\n"), stdout=out) == 0
    assert "Ann, your choice:" in out.getvalue()


def test_the_skull_is_decided_even_when_other_choices_are_open() -> None:
    """Should the rules let a card be played while the skull falls, the drop still is not a menu item."""
    game = skull_ready()
    hit, miss = Action("skull_outcome", 0, {"hit": True}), Action("skull_outcome", 0, {"hit": False})
    other = Action("play_card", 0, {"card": "anytime-breeze", "target": [1, 0], "to": [7, 0]})
    chosen = textplay.automatic(game, [other, hit, miss], Chance.for_seed(3, 1.0))
    assert chosen is not None and chosen[0] == hit
    chosen = textplay.automatic(game, [other, hit, miss], Chance.for_seed(3, 0.0))
    assert chosen is not None and chosen[0] == miss
    assert textplay.automatic(game, [other], Chance.for_seed(3)) is None
