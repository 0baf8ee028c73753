"""Setup, the turn, tombs and pits, the shifting board, pawn movement and the six spaces."""

from __future__ import annotations

import pytest

from controller.games import Action, IllegalAction, get_game
from controller.games.terror import Terror
from tests.controller.games.terror.support import (
    GATE,
    act,
    give,
    make_monster,
    new_game,
    on_top,
    phase,
    pos,
    put,
    types_of,
)


# ----- setup and seat order -------------------------------------------------------------
def test_registered_under_its_name() -> None:
    assert get_game("terror") is Terror


def test_setup() -> None:
    # Rulebook, "Setup": "Put both pawns on the Gate platform"; "Slide each tomb to its middle position";
    # "Shuffle the card deck ... to form a draw pile".
    g = new_game(players=4, seed=5)
    assert g.s.tombs == {"mummy": "middle", "monster": "middle", "wolf": "middle"}
    assert all(pos(g, s, k) == GATE for s in range(4) for k in (0, 1))
    assert len(g.s.draw) == 36 and g.s.discard == []
    assert g.s.draw != new_game(players=4, seed=6).s.draw
    assert g.s.draw == new_game(players=4, seed=5).s.draw
    assert g.expected_board() == {"tomb.mummy": "middle", "tomb.monster": "middle", "tomb.wolf": "middle",
                                  "launcher": "armed"}


def test_youngest_first_then_clockwise() -> None:
    # Rulebook, "How to Play": "The youngest player goes first. Play continues clockwise."
    g = new_game(players=3)
    seen = []
    for _ in range(4):
        seen.append(g.current_player)
        p = g.current_player
        act(g, "roll", p)
        act(g, "move_tomb", p, tomb=g.s.symbol, to="end_a" if g.s.tombs[g.s.symbol] == "middle" else "middle")
        act(g, "end_turn", p)  # every pawn is still on the Gate platform, so nobody can fall
    assert seen == [0, 1, 2, 0]


@pytest.mark.parametrize("players", [[], ["Solo"], ["A", "B", "C", "D", "E"], ["A", "A"], ["A", ""]])
def test_two_to_four_named_players(players: list[str]) -> None:
    with pytest.raises(IllegalAction):
        Terror.new(players, 1)


def test_unknown_option_is_named() -> None:
    with pytest.raises(IllegalAction, match="unknown option.*colour"):
        Terror.new(["A", "B"], 1, {"colour": "red"})


# ----- rolling and the tomb ------------------------------------------------------------------
def test_roll_both_dice_then_the_rolled_tomb_moves() -> None:
    # Rulebook, "1. Roll Dice": "Roll the symbol die and the number die."
    g = new_game()
    events = act(g, "roll", 0)
    assert types_of(events) == ["rolled"]
    assert 1 <= g.s.number <= 6 and g.s.symbol in ("mummy", "monster", "wolf")
    assert g.phase == "tomb"
    # Rulebook, "2. Move a Tomb": "Move the tomb (that matches the symbol rolled) one position."
    other = next(t for t in ("mummy", "monster", "wolf") if t != g.s.symbol)
    with pytest.raises(IllegalAction, match="symbol die shows"):
        act(g, "move_tomb", 0, tomb=other, to="end_a")
    act(g, "move_tomb", 0, tomb=g.s.symbol, to="end_b")
    assert g.s.tombs[g.s.symbol] == "end_b" and g.phase == "move"


def test_a_tomb_moves_one_position_only() -> None:
    # Rulebook, "2. Move a Tomb": "A tomb has 3 positions - a middle and two ends ... one position".
    g = new_game()
    phase(g, 0, "tomb", 3, "wolf")
    g.s.tombs["wolf"] = "end_a"
    with pytest.raises(IllegalAction, match="the Wolf tomb is at end A; one position from there is the middle"):
        act(g, "move_tomb", 0, tomb="wolf", to="end_b")
    assert [a.params["to"] for a in g.legal_actions() if a.kind == "move_tomb"] == ["middle"]


def test_tomb_expectation_names_the_two_positions() -> None:
    g = new_game()
    phase(g, 1, "tomb", 2, "wolf")
    (exp,) = g.expects()
    assert exp.kind == "tomb_move" and exp.player == 1
    assert exp.prompt == "Slide the Wolf tomb one position: to end A or end B."
    assert exp.accepts == {
        "tomb.wolf": {
            "end_a": Action("move_tomb", 1, {"tomb": "wolf", "to": "end_a"}),
            "end_b": Action("move_tomb", 1, {"tomb": "wolf", "to": "end_b"}),
        }
    }
    g.s.tombs["wolf"] = "end_b"
    (exp,) = g.expects()
    assert exp.prompt == "Slide the Wolf tomb one position: to the middle."
    assert set(exp.accepts["tomb.wolf"]) == {"middle"}
    # The referee's action is accepted by the engine as is.
    g.apply(exp.accepts["tomb.wolf"]["middle"])
    assert g.expected_board()["tomb.wolf"] == "middle"


def test_a_pawn_in_the_pit_is_out_and_its_cards_are_discarded() -> None:
    # Rulebook, "A Tomb Pit": "If any pawn falls into a pit, that pawn is immediately out of the game.
    # ... Put all cards collected by that fallen pawn in the discard pile."
    g = new_game(players=3)
    put(g, 1, 0, [6, 2])  # red Danger space, next to the Mummy's pit
    give(g, 1, 0, "ring-1")
    give(g, 1, 0, "switch-1")
    make_monster(g, 1, 0)
    phase(g, 0, "tomb", 4, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_a")
    assert "pawn_fell" in types_of(events)
    p = g.s.pawns[1][0]
    assert p.out and p.cards == [] and p.monster is None
    assert set(g.s.discard) == {"ring-1", "switch-1", "monster-werewolf"}
    assert g.public_view()["players"][1]["pawns"][0]["where"] == "out"


# ----- the shifting gameboard ------------------------------------------------------------------
def test_an_arrow_appearing_sends_the_pawn_to_its_danger_space() -> None:
    # Rulebook, "The Shifting Gameboard": react immediately to an Arrow Space.
    g = new_game()
    put(g, 1, 1, [5, 3])  # Skeleton Hand with the Mummy in the middle; a red arrow at end B
    phase(g, 0, "tomb", 1, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_b")
    moved = [e for e in events if e.type == "pawn_moved"]
    assert moved and moved[0].data["by"] == "arrow-red"
    assert pos(g, 1, 1) == [6, 3]  # the red Danger space with the tomb at end B
    assert g.board.types(g.cfg)[g.board.cell([6, 3])] == "danger-red"


def test_a_potion_appearing_cures_a_monster() -> None:
    # Rulebook, "What to Do When You're a Monster": "If a tomb moves and a Magic Potion space
    # appears underneath you, you're automatically cured!"
    g = new_game()
    put(g, 1, 0, [7, 3])  # "G" with the Mummy in the middle, a potion at end B
    make_monster(g, 1, 0)
    phase(g, 0, "tomb", 1, "mummy")
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_b")
    assert "cured" in types_of(events)
    assert g.s.pawns[1][0].monster is None and "monster-werewolf" in g.s.discard


def test_a_g_space_appearing_underneath_draws_nothing() -> None:
    # Rulebook, "G" Space: "If a tomb moves and the space under you changes to a "G" space,
    # you do not draw a card."
    g = new_game()
    put(g, 0, 0, [5, 1])  # potion with the Mummy in the middle, "G" at end B
    phase(g, 0, "tomb", 1, "mummy")
    before = len(g.s.draw)
    events = act(g, "move_tomb", 0, tomb="mummy", to="end_b")
    assert g.board.types(g.cfg)[g.board.cell([5, 1])] == "g"
    assert "card_drawn" not in types_of(events) and len(g.s.draw) == before


def test_a_skeleton_hand_appearing_paralyses_and_changing_it_frees() -> None:
    # Rulebook, "Skeleton Hand Space": "It cannot leave this space until someone moves a tomb and
    # changes the space."
    g = new_game()
    put(g, 0, 0, [6, 4])  # grass with the Mummy in the middle, a hand at end A
    phase(g, 1, "tomb", 1, "mummy")
    assert "paralysed" in types_of(act(g, "move_tomb", 1, tomb="mummy", to="end_a"))
    assert g.public_view()["players"][0]["pawns"][0]["paralysed"]
    phase(g, 0, "move", 1, "mummy")
    with pytest.raises(IllegalAction, match="paralysed"):
        act(g, "move_pawn", 0, pawn=0, to=[6, 5])
    assert all(a.params.get("pawn") != 0 for a in g.legal_actions() if a.kind == "move_pawn")
    phase(g, 1, "tomb", 1, "mummy")
    act(g, "move_tomb", 1, tomb="mummy", to="middle")
    assert not g.paralysed(0, 0)


def test_the_board_shifts_under_every_players_pawns() -> None:
    g = new_game(players=3)
    put(g, 0, 0, [6, 2])
    put(g, 1, 0, [6, 2])
    put(g, 2, 1, [6, 2])
    phase(g, 2, "tomb", 1, "mummy")
    act(g, "move_tomb", 2, tomb="mummy", to="end_a")
    assert g.s.pawns[0][0].out and g.s.pawns[1][0].out and g.s.pawns[2][1].out


# ----- pawn movement -----------------------------------------------------------------------------
def test_move_one_pawn_the_full_count_along_a_legal_path() -> None:
    # Rulebook, "3. Move Your Pawn": "move one of your pawns the full count of the number die roll."
    g = new_game()
    phase(g, 0, "move", 3, "wolf")
    dests = sorted(a.params["to"] for a in g.legal_actions() if a.kind == "move_pawn" and a.params["pawn"] == 0)
    assert dests == [[5, 0], [6, 1]]
    with pytest.raises(IllegalAction, match="no legal move of exactly 3 reaches"):
        act(g, "move_pawn", 0, pawn=0, to=[7, 0])
    events = act(g, "move_pawn", 0, pawn=0, to=[6, 1], path=[[7, 0], [6, 0], [6, 1]])
    assert events[0].data["path"] == [[7, 0], [6, 0], [6, 1]]
    assert pos(g, 0, 0) == [6, 1] and g.phase == "after_move"
    with pytest.raises(IllegalAction, match="already moved"):
        act(g, "move_pawn", 0, pawn=1, to=[6, 1])


def test_a_bad_path_is_refused_with_the_reason() -> None:
    g = new_game()
    phase(g, 0, "move", 3, "wolf")
    with pytest.raises(IllegalAction, match="doubles back"):
        act(g, "move_pawn", 0, pawn=0, to=[7, 0], path=[[7, 0], [6, 0], [7, 0]])
    with pytest.raises(IllegalAction, match="blocked by bushes"):
        act(g, "move_pawn", 0, pawn=0, to=[6, 1], path=[[7, 0], [7, 1], [6, 1]])
    # The place is said as a player finds it on the board: by what it is and the named places near it.
    with pytest.raises(IllegalAction, match="the path does not end at the grass space two spaces from the Entrance"):
        act(g, "move_pawn", 0, pawn=0, to=[5, 0], path=[[7, 0], [6, 0], [6, 1]])


def test_moving_is_optional() -> None:
    # Rulebook, "3. Move Your Pawn": "If you do not wish to move or you cannot move, your turn is over."
    g = new_game()
    phase(g, 0, "move", 6, "wolf")
    act(g, "end_turn", 0)
    assert g.current_player == 1 and g.phase == "roll"


def test_pawns_share_spaces() -> None:
    # Rulebook, "Basic Pawn Movement": "Pawns may share spaces and platforms."
    g = new_game()
    put(g, 1, 0, [6, 1])
    phase(g, 0, "move", 3, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[6, 1])
    assert pos(g, 0, 0) == pos(g, 1, 0) == [6, 1]


def test_the_exit_jump_ends_on_the_crypt() -> None:
    g = new_game()
    put(g, 0, 1, [2, 7])
    phase(g, 0, "move", 5, "wolf")
    act(g, "move_pawn", 0, pawn=1, to=[0, 8])
    assert g.public_view()["players"][0]["pawns"][1]["where"] == "crypt"


# ----- the six spaces ------------------------------------------------------------------------------
def test_grass_does_nothing() -> None:
    g = new_game()
    put(g, 0, 0, [0, 0])
    phase(g, 0, "move", 1, "wolf")
    events = act(g, "move_pawn", 0, pawn=0, to=[0, 1])
    assert types_of(events) == ["pawn_moved"]


def test_landing_on_an_arrow_goes_to_the_matching_danger_space() -> None:
    # Rulebook, "Arrow Space": "Move your pawn immediately to the matching color Danger space!"
    g = new_game()
    put(g, 0, 0, [2, 1])
    phase(g, 0, "move", 2, "wolf")
    events = act(g, "move_pawn", 0, pawn=0, to=[3, 2], path=[[2, 2], [3, 2]])
    assert [e.data["by"] for e in events if e.type == "pawn_moved"] == ["roll", "arrow-red"]
    assert pos(g, 0, 0) == [6, 2]


def test_a_danger_space_is_safe_until_its_tomb_moves_onto_it() -> None:
    # Rulebook, "Danger Space": "it may fall into the nearby tomb pit on someone else's turn".
    g = new_game()
    put(g, 0, 0, [2, 1])
    phase(g, 0, "move", 1, "wolf")
    assert types_of(act(g, "move_pawn", 0, pawn=0, to=[2, 2])) == ["pawn_moved"]
    phase(g, 1, "tomb", 2, "wolf")
    act(g, "move_tomb", 1, tomb="wolf", to="end_a")
    assert g.s.pawns[0][0].out


def test_landing_on_a_skeleton_hand_paralyses() -> None:
    # Rulebook, "Basic Pawn Movement": "A pawn cannot move if it is on a Skeleton Hand space."
    g = new_game()
    put(g, 0, 0, [3, 0])
    phase(g, 0, "move", 1, "wolf")
    assert "paralysed" in types_of(act(g, "move_pawn", 0, pawn=0, to=[3, 1]))
    act(g, "end_turn", 0)
    phase(g, 0, "move", 2, "wolf")
    with pytest.raises(IllegalAction, match="paralysed on a Skeleton Hand"):
        act(g, "move_pawn", 0, pawn=0, to=[2, 2])


def test_both_pawns_on_hands_cannot_move() -> None:
    # Rulebook, "Skeleton Hand Space": "If both of your pawns are on Skeleton Hand spaces,
    # you cannot move on your turn."
    g = new_game()
    put(g, 0, 0, [3, 1])
    put(g, 0, 1, [3, 5])
    phase(g, 0, "move", 4, "wolf")
    kinds = {a.kind for a in g.legal_actions() if a.player == 0}
    assert kinds == {"end_turn"}


def test_landing_on_a_potion_cures_only_a_monster() -> None:
    # Rulebook, "Magic Potion Space": "If your pawn is not under a Monster card's spell, nothing happens."
    g = new_game()
    put(g, 0, 0, [0, 4])
    put(g, 0, 1, [0, 4])
    make_monster(g, 0, 0)
    phase(g, 0, "move", 1, "wolf")
    events = act(g, "move_pawn", 0, pawn=0, to=[1, 4])
    assert "cured" in types_of(events) and g.s.pawns[0][0].monster is None
    phase(g, 0, "move", 1, "wolf")
    assert types_of(act(g, "move_pawn", 0, pawn=1, to=[1, 4])) == ["pawn_moved"]


def test_landing_on_g_draws_a_card_for_that_pawn() -> None:
    # Rulebook, "G" Space: "pick a card from the draw pile and follow that card's directions."
    g = new_game()
    put(g, 0, 1, [0, 1])
    on_top(g, "ring-3")
    phase(g, 0, "move", 1, "wolf")
    events = act(g, "move_pawn", 0, pawn=1, to=[0, 2])
    drawn = [e for e in events if e.type == "card_drawn"][0]
    assert drawn.private_to == 0 and drawn.secret["card"]["id"] == "ring-3"
    assert "card" not in drawn.data  # a saved card stays secret
    assert g.s.pawns[0][1].cards == ["ring-3"] and g.s.pawns[0][0].cards == []


def test_the_engine_uses_no_global_random_clock_or_threads() -> None:
    # Issue 2: engines are pure (the random state lives in the game state).
    import ast
    from pathlib import Path

    import controller.games.terror as engine

    folder = Path(engine.__file__).parent
    for path in sorted(folder.glob("terror*.py")):
        tree = ast.parse(path.read_text())
        names = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node,
                (ast.Import, ast.ImportFrom)) for a in node.names}
        modules = {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node,
                                                                                      ast.ImportFrom) and node.module}
        assert not ({"random", "time", "threading", "datetime", "secrets"} & (names | modules)), path.name
