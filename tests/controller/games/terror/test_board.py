"""The board data file, its validation, and movement on the grid."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from controller.games import BadGameData
from controller.games.terror.board import (
    ALL_CONFIGS,
    DEFAULT_BOARD,
    POSITIONS,
    load_board,
)
from tests.controller.games.terror.support import CRYPT, EXIT, GATE, new_game

RAW: dict[str, Any] = json.loads(DEFAULT_BOARD.read_text())


def board_with(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    change(data)
    return data


def cells(board: Any, rcs: list[list[int]]) -> list[int]:
    return [board.cell(rc) for rc in rcs]


def test_default_board_loads_with_its_landmarks() -> None:
    b = load_board()
    assert (b.rows, b.cols) == (9, 9)
    assert [b.rc(b.gate), b.rc(b.entrance), b.rc(b.exit), b.rc(b.crypt)] == [GATE, [7, 0], EXIT, CRYPT]
    assert {p.colour: p.tomb for p in b.platforms.values()} == {"red": "mummy", "purple": "monster", "gold": "wolf"}


def test_every_space_type_appears_and_changes_under_each_platform() -> None:
    # Issue 2: "every space type appears, and changes, under each platform".
    b = load_board()
    for tomb, platform in b.platforms.items():
        shown: set[str] = set()
        changing: set[str] = set()
        for by_pos in platform.spaces.values():
            values = {by_pos[p] for p in POSITIONS}
            kinds = {v.split("-")[0] for v in values}
            shown |= kinds
            if len(values) > 1:
                changing |= kinds
        expected = {"grass", "arrow", "danger", "hand", "potion", "g", "pit"}
        assert shown == expected, tomb
        assert changing == expected, tomb


def test_each_danger_space_sits_by_its_tombs_pit_in_every_position() -> None:
    b = load_board()
    for cfg in range(ALL_CONFIGS):
        tombs = b.config_tombs(cfg)
        for tomb, platform in b.platforms.items():
            pit = platform.track[tombs[tomb]]
            danger = b.danger_cell(cfg, platform.colour)
            assert b.types(cfg)[pit] == "pit"
            r1, c1 = b.rc(pit)
            r2, c2 = b.rc(danger)
            assert abs(r1 - r2) + abs(c1 - c2) == 1


def test_the_crypt_is_reachable_from_the_gate_in_every_configuration() -> None:
    b = load_board()
    for cfg in range(ALL_CONFIGS):
        seen, todo = {b.gate}, [b.gate]
        while todo:
            for n in b.adjacency(cfg)[todo.pop()]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        assert b.crypt in seen


# ----- movement (rulebook, "Basic Pawn Movement") ------------------------------------
def test_moves_are_orthogonal_and_exact() -> None:
    # Rulebook, "Basic Pawn Movement": "Always move the full count of the number die roll."
    b = load_board()
    middle = b.config_index({"mummy": "middle", "monster": "middle", "wolf": "middle"})
    gate = b.gate
    assert sorted(b.rc(c) for c in b.destinations(middle, gate, 1)) == [[7, 0]]
    assert sorted(b.rc(c) for c in b.destinations(middle, gate, 3)) == [[5, 0], [6, 1]]
    # Every destination is exactly as far as its witness path is long.
    for dest, path in b.destinations(middle, b.cell([5, 0]), 4).items():
        assert len(path) == 4 and path[-1] == dest


def test_no_diagonal_step() -> None:
    # Rulebook: "cannot move diagonally through a corner of a space".
    b = load_board()
    why = b.check_path(0, b.cell([0, 0]), 1, cells(b, [[1, 1]]))
    assert why is not None and "blocked by bushes" in why
    why = b.check_path(13, b.cell([2, 6]), 1, cells(b, [[3, 7]]))
    assert why is not None and "not one orthogonal step" in why


def test_no_doubling_back() -> None:
    # Rulebook: "A pawn cannot doubleback onto any of the same spaces on the same turn."
    b = load_board()
    start = b.cell([2, 6])
    why = b.check_path(13, start, 2, cells(b, [[2, 7], [2, 6]]))
    assert why is not None and "doubles back" in why
    for steps in (2, 4, 6):
        assert start not in b.destinations(13, start, steps)


def test_bushes_and_pits_block_and_a_pit_is_never_a_destination() -> None:
    # Rulebook: "A pawn cannot move across bushes or open pits."
    b = load_board()
    cfg = 13  # every tomb in the middle
    pits = [i for i, t in enumerate(b.types(cfg)) if t == "pit"]
    why = b.check_path(cfg, b.cell([6, 2]), 2, cells(b, [[6, 3], [6, 4]]))
    assert why is not None and "blocked by a pit" in why
    why = b.check_path(cfg, b.cell([7, 0]), 1, cells(b, [[7, 1]]))
    assert why is not None and "blocked by bushes" in why
    for start in (b.cell([6, 2]), b.cell([4, 4]), b.cell([2, 2])):
        for steps in range(1, 7):
            dests = b.destinations(cfg, start, steps)
            assert not set(dests) & set(pits)
            for path in dests.values():
                assert all(b.types(cfg)[c] not in ("pit", "bush") for c in path)


def test_exit_jump_to_the_crypt_without_a_full_count() -> None:
    # Rulebook, "Destroy the Headless Ghost!": "You do not have to move the full count ...
    # to jump from the gameboard's Exit space onto the Crypt platform."
    b = load_board()
    start = b.cell([2, 7])
    dests = b.destinations(13, start, 6)
    assert b.crypt in dests
    assert [b.rc(c) for c in dests[b.crypt]] == [[1, 7], EXIT, CRYPT]
    assert b.check_path(13, start, 6, cells(b, [[1, 7], EXIT, CRYPT])) is None
    why = b.check_path(13, start, 6, cells(b, [[1, 7], EXIT]))
    assert why is not None and "count is 6" in why


def test_the_gate_is_never_re_entered() -> None:
    b = load_board()
    for steps in range(1, 7):
        assert b.gate not in b.destinations(13, b.cell([7, 0]), steps)


# ----- validation names the bad entry ------------------------------------------------------
@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["layout"].__setitem__(3, ".332#2.g"), r"layout\[3\] has 8 characters; layout\[0\] has 9"),
        (lambda d: d["layout"].__setitem__(1, ".#.33#..Z"), r"layout\[1\]\[8\]: unknown character 'Z'"),
        (lambda d: d["layout"].__setitem__(8, ".#g..#.p."), r"exactly one gate cell, found 0"),
        (lambda d: d["platforms"][0].__setitem__("colour", "pink"), r"platforms\[0\]: colour 'pink'"),
        (lambda d: d["platforms"][1].__setitem__("tomb", "mummy"), r"platforms\[1\]: tomb 'mummy' has two platforms"),
        (lambda d: d["platforms"][0]["spaces"][3].__setitem__("middle", "lava"),
         r"platforms\[0\] spaces\[3\]\.middle: 'lava'"),
        (lambda d: d["platforms"][0]["spaces"][0].__setitem__("end_a", "grass"),
         r"spaces\[0\]\.end_a: the tomb's own cell must show 'pit'"),
        (lambda d: d["platforms"][2]["spaces"][4].__setitem__("end_a", "pit"),
         r"platforms\[2\] spaces\[4\]\.end_a: only the cell under the tomb"),
        (lambda d: d["platforms"][0]["spaces"][1].update(end_a="hand"),
         r"platforms\[0\]: cell \[6, 3\] shows 'hand' with the tomb at end_a, but becomes the pit"),
        (lambda d: d["platforms"][0]["spaces"][6].update(middle="danger-red"),
         r"platforms\[0\]: with the tomb at middle, the red Danger space \[5, 1\] must sit next to the pit"),
        (lambda d: d["platforms"][0]["spaces"][6].update(end_a="hand", middle="hand", end_b="hand"),
         r"paralyse a pawn for ever"),
        (lambda d: d["platforms"][0]["spaces"][6].__setitem__("cell", [0, 0]), r"cell \[0, 0\] is not marked 1"),
        (lambda d: d["platforms"][0]["track"].__setitem__("end_b", [5, 1]),
         r"middle position must be next to both ends"),
        (lambda d: d.__setitem__("colour", "x"), r"unknown key\(s\) colour"),
        (lambda d: d["layout"].__setitem__(1, ".#.33#...") ,
         r"Crypt platform \[0, 8\] must touch the Exit and no other space"),
    ],
)
def test_bad_board_files_name_the_bad_entry(change: Any, message: str) -> None:
    with pytest.raises(BadGameData, match=message):
        load_board(board_with(change))


def test_a_board_that_cuts_the_gate_off_from_the_crypt_is_refused() -> None:
    def wall(d: dict[str, Any]) -> None:
        d["layout"][0] = "..g#..#XC"
        d["layout"][1] = ".#.33#.##"

    with pytest.raises(BadGameData, match=r"with the Mummy tomb at .*, no path leads from the Gate to the Crypt"):
        load_board(board_with(wall))


def test_board_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(BadGameData, match=r"nope.json' cannot be read: No such file"):
        load_board(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(BadGameData, match="broken.json: not valid JSON"):
        load_board(broken)


def test_an_owners_board_file_is_used_by_the_game(tmp_path: Path) -> None:
    custom = board_with(lambda d: d.__setitem__("name", "My printing"))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(custom))
    game = new_game(board=str(path))
    assert game.public_view()["board"]["name"] == "My printing"
    with pytest.raises(BadGameData, match="mine2.json' cannot be read"):
        new_game(board=str(tmp_path / "mine2.json"))


def test_every_witness_path_passes_the_path_check() -> None:
    # The destination search and the step-by-step path check must agree everywhere.
    b = load_board()
    checked = 0
    for cfg in range(ALL_CONFIGS):
        types = b.types(cfg)
        for start, kind in enumerate(types):
            if kind in (None, "bush", "pit"):
                continue
            for steps in (1, 2, 5, 6):
                for dest, path in b.destinations(cfg, start, steps).items():
                    assert b.check_path(cfg, start, steps, list(path)) is None, (cfg, b.rc(start), path)
                    assert path[-1] == dest and (len(path) == steps or dest == b.crypt)
                    checked += 1
    assert checked > 10_000
