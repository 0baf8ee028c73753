"""No Superstition board the loader accepts has a path, space or trap with no way in.

The loader's checks (the gate on the brick path, each trap entered from and leading onto a space of its
path, every brick and stone space on its path, every platform used by a trap) are what keep a board
playable: both paths are closed rings walked both ways, so once those hold, a pawn reaches everything.
This test holds the loader to that, using the engine's own moves (``moves.move_options`` and the
challenge outcomes of ``flow._resolve``), over boards shaped as the editor makes them: whatever a
future change lets through, a board whose spaces a pawn can never reach fails here.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games import get_game
from controller.games.superstition import flow, moves
from controller.games.superstition.board import GRAVES, LADDER_MIRROR
from tests.controller.games.board_cases import SUPERSTITION


def _editor_board(brick: int, stone: int, gate: int, ways: list[int]) -> dict[str, Any]:
    """The document the editor builds from its numbers (board_edit_superstition.js), from 1."""
    doc = copy.deepcopy(SUPERSTITION)
    spaces = {k: v for k, v in doc["spaces"].items() if v["kind"] not in ("brick", "stone")}
    for i in range(brick):
        spaces[f"b{i}"] = {"kind": "brick", "x": 100 + i, "y": 100}
    for i in range(stone):
        spaces[f"s{i}"] = {"kind": "stone", "x": 300 + i, "y": 300}
    doc["spaces"] = spaces
    doc["brick_path"] = [f"b{i}" for i in range(brick)]
    doc["stone_path"] = [f"s{i}" for i in range(stone)]
    doc["gate"] = f"b{gate - 1}"
    ladder_in, ladder_out, mirror_in, mirror_out, grave1, grave2 = ways
    p = doc["platforms"]
    p["ladder"].update(brick_entrance=f"b{ladder_in - 1}", stone_exit=f"s{ladder_out - 1}")
    p["mirror"].update(brick_entrance=f"b{mirror_in - 1}", stone_exit=f"s{mirror_out - 1}")
    p["grave1"]["front"] = f"s{grave1 - 1}"
    p["grave2"]["front"] = f"s{grave2 - 1}"
    return doc


def _reached(doc: dict[str, Any]) -> tuple[set[str], bool]:
    """Every space the first seat's pawn can stand on or pass, alone on the board, by the engine's moves;
    and whether it can get home."""
    game: Any = get_game("superstition").new(["Ann", "Bo"], 1, {"board": doc})
    board = game.board
    game.pawns[1]["space"] = board.circles[game.colours[1]]  # the other pawn waits on its own circle
    start = (game.pawns[0]["space"], "in1", (), None)
    seen = {start}
    todo = [start]
    reached = {start[0]}
    home = False

    def put(space: str, leg: str, zapped: Any, target: Any) -> None:
        game.pawns[0] = {"space": space, "leg": leg, "zapped": list(zapped), "target": target}

    def after(trap: str, zapped: bool, state: tuple[Any, ...]) -> tuple[Any, ...]:
        put(*state)
        game.challenge = {"trap": trap, "peg": None}
        flow._resolve(game, 0, trap, zapped)
        q = game.pawns[0]
        return q["space"], q["leg"], tuple(q["zapped"]), q["target"]

    while todo:
        state = todo.pop()
        space, leg, zapped, target = state
        nexts: list[tuple[Any, ...]] = []
        if leg == "tomb":
            side = board.platforms[target].tomb_side
            reached.add(side)
            nexts += [after(target, z, (side, leg, zapped, target)) for z in (True, False)]
        else:
            for steps in range(1, 7):
                put(*state)
                for walk in moves.move_options(game, 0, steps).values():
                    if not isinstance(walk, moves.Walk):
                        continue
                    reached.update(walk.path)
                    end = walk.destination
                    if end == board.circles[game.colours[0]]:
                        home = True
                        continue
                    platform = board.platform_at(end)
                    if platform is None:
                        nexts.append((end, leg, zapped, target))
                    else:
                        nexts += [after(platform.trap, z, (end, leg, zapped, target)) for z in (True, False)]
        for n in nexts:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return reached, home


def _everything(doc: dict[str, Any]) -> set[str]:
    p = doc["platforms"]
    return (set(doc["brick_path"]) | set(doc["stone_path"]) | {p[t]["space"] for t in (*LADDER_MIRROR, *GRAVES)}
            | {p[t]["tomb_side"] for t in GRAVES})


def test_the_default_board_is_reached_everywhere() -> None:
    reached, home = _reached(SUPERSTITION)
    assert _everything(SUPERSTITION) <= reached and home


@settings(max_examples=40, deadline=None)
@given(st.integers(9, 40), st.integers(9, 24), st.data())  # board.MIN_PATH: shorter ones are refused
def test_every_board_the_loader_accepts_is_reached_everywhere(brick: int, stone: int, data: st.DataObject) -> None:
    # Any gate and trap spaces, each on its own space as the rules need: the loader must accept the board,
    # and the engine's moves must reach all of it.
    gate, ladder_in, mirror_in = data.draw(st.lists(st.integers(1, brick), min_size=3, max_size=3, unique=True))
    ladder_out, mirror_out, grave1, grave2 = data.draw(st.lists(st.integers(1, stone), min_size=4, max_size=4,
                                                                unique=True))
    doc = _editor_board(brick, stone, gate, [ladder_in, ladder_out, mirror_in, mirror_out, grave1, grave2])
    get_game("superstition").new(["Ann", "Bo"], 1, {"board": doc})
    reached, home = _reached(doc)
    missing = _everything(doc) - reached
    assert not missing and home, (doc["gate"], doc["platforms"], sorted(missing))


def test_the_engine_s_moves_are_what_reach() -> None:
    """The search follows the engine: with no move allowed, nothing past the start circle is reached."""
    from unittest import mock

    with mock.patch.object(moves, "move_options", return_value={}):
        reached, home = _reached(SUPERSTITION)
    assert reached == {SUPERSTITION["start_circles"]["red"]} and not home
