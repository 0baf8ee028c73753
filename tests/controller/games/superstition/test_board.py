"""The Superstition board data file: the default layout, and validation naming bad entries."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.games import BadGameData, IllegalAction, get_game
from controller.games.superstition.board import (
    DEFAULT_BOARD_PATH,
    load_board,
    parse_board,
)


def _raw() -> dict[str, Any]:
    return json.loads(DEFAULT_BOARD_PATH.read_text())


def test_default_board_has_every_part_the_rulebook_names() -> None:
    board = load_board()
    assert len(board.brick) == 32 and len(board.stone) == 16
    assert board.gate == "b0"
    assert set(board.circles) == {"red", "blue", "green", "yellow"}
    ladder, mirror = board.platforms["ladder"], board.platforms["mirror"]
    assert (ladder.brick, ladder.stone) == ("b8", "s0") and (mirror.brick, mirror.stone) == ("b24", "s8")
    g1, g2 = board.platforms["grave1"], board.platforms["grave2"]
    assert (g1.stone, g1.tomb_side) == ("s4", "tomb.north") and (g2.stone, g2.tomb_side) == ("s12", "tomb.south")


def test_default_board_is_symmetric_so_neither_way_is_favoured() -> None:
    board = load_board()
    n = len(board.brick)
    assert board.brick.index("b8") == n - board.brick.index("b24")  # gate to Ladder == gate to Mirror
    stone = board.stone
    distances = {(stone.index(a) - stone.index(b)) % len(stone) for a in ("s0", "s8") for b in ("s4", "s12")}
    assert distances == {4, 12}  # each Ladder/Mirror exit is 4 steps from each Grave one way round


def test_geometry_gives_coordinates_for_every_space() -> None:
    geometry = load_board().geometry()
    assert all(isinstance(s["x"], (int, float)) and isinstance(s["y"],
                                                               (int, float)) for s in geometry["spaces"].values())
    assert set(geometry) >= {"spaces", "brick_path", "stone_path", "gate", "start_circles", "platforms", "tomb"}
    coords = [(s["x"], s["y"]) for s in geometry["spaces"].values()]
    assert len(coords) == len(set(coords))  # no two spaces drawn on top of each other


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(raw: dict[str, Any]) -> None:
        keys = path.split("/")
        target = raw
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if value is _DELETE:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return edit


_DELETE = object()


@pytest.mark.parametrize(
    "edit, message",
    [
        (_set("gate", "s3"), r"'gate' is 's3'"),
        (_set("spaces/b5/x", "left"), r"spaces\['b5'\]\.x must be a number"),
        (_set("spaces/b5/kind", "lava"), r"spaces\['b5'\]\.kind is 'lava'"),
        (_set("spaces/b5/colour", "red"), r"spaces\['b5'\]\.colour is not a space field"),
        (_set("brick_path/3", "s2"), r"brick_path\[3\] is 's2', a stone space"),
        (_set("brick_path/3", "b4"), r"brick_path\[4\] repeats 'b4'"),
        (_set("brick_path/3", "zz"), r"brick_path\[3\] is 'zz', which is not a space id"),
        (_set("stone_path", [f"s{i}" for i in range(16) if i != 4]),
         r"spaces\['s4'\] is a stone space missing from 'stone_path'"),
        (_set("stone_path", [f"s{i}" for i in range(8)]), r"'stone_path' must be a list of at least 9 space ids"),
        (_set("platforms/ladder/brick_entrance", "s3"),
         r"platforms\['ladder'\]\.brick_entrance is 's3', a stone space"),
        (_set("platforms/mirror/brick_entrance", "b8"), r"platforms\['mirror'\]\.brick_entrance is 'b8', already used"),
        (_set("platforms/ladder/brick_entrance", "b0"), r"already used by the gate"),
        (_set("platforms/grave1/kind", "ladder_mirror"), r"platforms\['grave1'\]\.kind is 'ladder_mirror'"),
        (_set("platforms/grave2/tomb_side", "s3"), r"platforms\['grave2'\]\.tomb_side is 's3'"),
        (_set("platforms/grave2", _DELETE), r"platforms\['grave2'\] is missing"),
        (_set("platforms/ghost", {"kind": "grave"}), r"platforms\['ghost'\] is not a trap"),
        (_set("start_circles/red", "b1"), r"start_circles\['red'\] is 'b1', which is not a circle"),
        (_set("start_circles/yellow", _DELETE), r"start_circles' must map at least 4 colours"),
        (_set("tomb/width", None), r"tomb\.width must be a number"),
        (_set("tomb", _DELETE), r"key 'tomb' is missing"),
        (_set("extra", 1), r"key 'extra' is not a board key"),
    ],
)
def test_bad_board_entries_are_named(edit: Callable[[dict[str, Any]], None], message: str) -> None:
    raw = _raw()
    edit(raw)
    with pytest.raises(BadGameData, match=message):
        parse_board(raw)


def test_unused_platform_space_is_named() -> None:
    raw = _raw()
    raw["spaces"]["spare"] = {"kind": "platform", "x": 1, "y": 1}
    with pytest.raises(BadGameData, match=r"spaces\['spare'\] is a platform space no platform uses"):
        parse_board(raw)


def test_board_option_loads_an_owners_file(tmp_path: Path) -> None:
    raw = _raw()
    # An owner's printing with the Ladder entrance one space nearer the gate.
    raw["platforms"]["ladder"]["brick_entrance"] = "b7"
    path = tmp_path / "my_board.json"
    path.write_text(json.dumps(raw))
    game = get_game("superstition").new(["A", "B"], 1, {"board": str(path), "dice_source": "table"})
    assert game.board.platforms["ladder"].brick == "b7"
    assert game.public_view()["board"]["platforms"]["ladder"]["brick_entrance"] == "b7"
    # The board travels inside the saved state, so a later edit of the file cannot change a game.
    path.write_text("{}")
    again = type(game).from_json(game.to_json())
    assert again.board.platforms["ladder"].brick == "b7"


def test_board_option_with_a_broken_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(BadGameData, match="broken.json.*not valid JSON"):
        get_game("superstition").new(["A", "B"], 1, {"board": str(path)})
    with pytest.raises(BadGameData, match="missing.json.*cannot be read"):
        get_game("superstition").new(["A", "B"], 1, {"board": str(tmp_path / "missing.json")})


def test_bad_game_data_is_a_value_error() -> None:
    assert issubclass(BadGameData, ValueError)
    with pytest.raises(ValueError):
        parse_board([])


def test_board_option_must_be_a_path() -> None:
    with pytest.raises(IllegalAction, match="'board' must be a file path"):
        get_game("superstition").new(["A", "B"], 1, {"board": 5})


def test_parse_board_does_not_alias_its_input() -> None:
    raw = _raw()
    board = parse_board(raw)
    copy_before = copy.deepcopy(board.raw)
    raw["gate"] = "b1"
    assert board.raw == copy_before
