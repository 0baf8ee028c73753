"""Terror in the Graveyard: the rulebook audit's rows (only Danger spaces fall, saved cards for
either pawn, Play Anytime! at any time). Quotes are from ../shared/rules/terror-in-the-graveyard.txt."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import BadGameData, IllegalAction
from controller.games.terror.board import DEFAULT_BOARD, load_board
from tests.controller.games.terror.support import (
    act,
    give,
    new_game,
    on_top,
    phase,
    pos,
    put,
    types_of,
)

POSITIONS = ("end_a", "middle", "end_b")
SLIDES = {"end_a": ("middle",), "middle": ("end_a", "end_b"), "end_b": ("middle",)}


def _raw_board() -> dict[str, Any]:
    return json.loads(DEFAULT_BOARD.read_text())


# ----- "Danger Space: ... it may fall into the nearby tomb pit"; "Any Grass Space: Do nothing." --
def test_every_cell_that_can_become_a_pit_is_a_danger_space_in_the_default_board() -> None:
    # Worked out from the file itself: for each platform and tomb position, the track cell the
    # tomb slides onto next must show that platform's Danger space before the slide.
    raw = _raw_board()
    checked = 0
    for platform in raw["platforms"]:
        shows = {tuple(s["cell"]): s for s in platform["spaces"]}
        for here in POSITIONS:
            for there in SLIDES[here]:
                cell = tuple(platform["track"][there])
                assert shows[cell][here] == f"danger-{platform['colour']}", (platform["tomb"], here, cell)
                checked += 1
    assert checked == 12


def test_no_pawn_falls_from_grass_when_a_tomb_slides() -> None:
    # Every slide from every configuration: whatever a pawn stood on before, if it falls it stood
    # on a Danger space.
    g = new_game()
    board = g.board
    for cfg in range(27):
        before = board.types(cfg)
        tombs = board.config_tombs(cfg)
        for tomb, at in tombs.items():
            for to in SLIDES[at]:
                after = board.types(board.config_index({**tombs, tomb: to}))
                for cell, kind in enumerate(after):
                    if kind == "pit" and before[cell] != "pit":
                        assert before[cell] is not None and before[cell].startswith("danger-"), (cfg, tomb, to,
                                                                                                 board.rc(cell))


def test_a_board_with_grass_that_becomes_a_pit_is_refused_naming_the_cell() -> None:
    raw = _raw_board()
    raw["platforms"][0]["spaces"][2]["middle"] = "grass"  # the Mummy track's end B, [6, 4]
    with pytest.raises(BadGameData,
            match=r"cell \[6, 4\] shows 'grass' with the tomb at middle, but becomes the pit when the tomb slides to "
                       r"end_b"):
        load_board(raw)


def test_an_arrow_sends_a_pawn_to_the_nearer_of_two_danger_spaces() -> None:
    # "Arrow Space: Move your pawn immediately to the matching color Danger space!" With the Mummy
    # tomb in the middle both its ends are red Danger spaces; the red Arrow at [3, 2] (gold
    # platform, tomb in the middle) is nearer [6, 2].
    g = new_game()
    types = g.board.types(g.cfg)
    assert types[g.board.cell([3, 2])] == "arrow-red"
    assert types[g.board.cell([6, 2])] == types[g.board.cell([6, 4])] == "danger-red"
    put(g, 0, 0, [2, 2])
    phase(g, 0, "move", 1, "wolf")
    events = act(g, "move_pawn", 0, pawn=0, to=[3, 2])
    assert pos(g, 0, 0) == [6, 2]
    assert [e.data["by"] for e in events if e.type == "pawn_moved"] == ["roll", "arrow-red"]


# ----- "Important: You cannot play a Magic Ring card that is saved under one of your pawns for
# your other pawn." -- the only such limit: other saved cards may be played for either pawn. ----
def test_a_stolen_ring_goes_to_the_pawn_the_player_chooses() -> None:
    g = new_game()
    give(g, 0, 0, "steal-ring-1")  # saved under the girl
    give(g, 1, 1, "ring-2")
    put(g, 0, 1, [5, 0])
    phase(g, 0, "move", 2, "wolf")
    choices = {(a.params["pawn"], tuple(a.params["target"])) for a in g.legal_actions()
               if a.kind == "play_card" and a.params["card"] == "steal-ring-1"}
    assert choices == {(0, (1, 0)), (0, (1, 1)), (1, (1, 0)), (1, (1, 1))}
    events = act(g, "play_card", 0, card="steal-ring-1", target=[1, 1], pawn=1)  # for the boy
    assert g.s.pawns[0][1].cards == ["ring-2"] and g.s.pawns[0][0].cards == []
    stolen = next(e for e in events if e.type == "ring_stolen")
    assert stolen.data["to"]["pawn"] == 1 and stolen.private_to == 0
    # and the boy, who now holds it, may use it at the Crypt
    put(g, 0, 1, [0, 8])
    assert g.attempt_refusal(0, 1) is None


def test_body_swap_may_be_played_for_the_other_pawn() -> None:
    g = new_game()
    give(g, 0, 0, "switch-1")  # saved under the girl
    put(g, 0, 0, [5, 0])
    put(g, 0, 1, [7, 2])
    put(g, 1, 0, [0, 7])
    phase(g, 0, "move", 2, "wolf")
    act(g, "play_card", 0, card="switch-1", target=[1, 0], pawn=1)
    assert pos(g, 0, 1) == [0, 7] and pos(g, 1, 0) == [7, 2] and pos(g, 0, 0) == [5, 0]


def test_a_card_cannot_be_played_for_a_fallen_pawn() -> None:
    g = new_game()
    give(g, 0, 0, "steal-ring-1")
    put(g, 0, 1, None)
    phase(g, 0, "move", 2, "wolf")
    with pytest.raises(IllegalAction, match="out of the game"):
        act(g, "play_card", 0, card="steal-ring-1", target=[1, 0], pawn=1)


# ----- "4. Play Anytime! Card: You can use it anytime at all -- even on someone else's turn!" ----
def test_play_anytime_while_a_monster_card_waits_for_its_target() -> None:
    g = new_game()
    give(g, 1, 0, "anytime-breeze")
    put(g, 0, 0, [0, 1])
    put(g, 1, 0, [5, 0])
    on_top(g, "monster-bat")
    phase(g, 0, "move", 1, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[0, 2])
    assert g.phase == "choose"
    plays = [a for a in g.legal_actions() if a.kind == "play_card"]
    assert plays and all(a.player == 1 and a.params["card"] == "anytime-breeze" for a in plays)
    act(g, "play_card", 1, card="anytime-breeze", target=[1, 0], to=[6, 0])
    assert g.phase == "choose" and pos(g, 1, 0) == [6, 0]
    act(g, "place_monster", 0, target=[1, 0])
    assert g.s.pawns[1][0].monster == "monster-bat" and g.phase == "after_move"


def test_play_anytime_while_a_skull_drop_waits_for_its_result() -> None:
    g = new_game()
    give(g, 0, 0, "ring-1")
    give(g, 1, 1, "anytime-breeze")
    put(g, 0, 0, [0, 8])
    put(g, 1, 1, [0, 6])
    phase(g, 0, "move", 3, "wolf")
    act(g, "attempt_skull", 0, pawn=0)
    assert g.phase == "skull"
    assert any(a.kind == "play_card" and a.player == 1 for a in g.legal_actions())
    act(g, "play_card", 1, card="anytime-breeze", target=[1, 1], to=[0, 5])
    assert g.phase == "skull"
    # The skull was already dropped: its result still counts.
    events = act(g, "skull_outcome", 0, hit=False)
    assert types_of(events) == ["skull_missed"] and g.phase == "after_move"
