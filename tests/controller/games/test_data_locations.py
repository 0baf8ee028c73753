"""The loaders say where a data file is wrong, for an editor that shows the reason at that cell or entry."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from controller.games import BadGameData
from controller.games.dogs import parse_tiles
from controller.games.dogs.tiles import DEFAULT_TILES_PATH
from controller.games.superstition import parse_board
from controller.games.superstition.board import DEFAULT_BOARD_PATH as SUP_BOARD
from controller.games.terror import load_board, load_deck
from controller.games.terror.board import DEFAULT_BOARD
from controller.games.terror.cards import DEFAULT_CARDS

TERROR = json.loads(DEFAULT_BOARD.read_text())
SUP = json.loads(SUP_BOARD.read_text())
TILES = json.loads(DEFAULT_TILES_PATH.read_text())
CARDS = json.loads(DEFAULT_CARDS.read_text())


def _space(d: dict[str, Any], number: int, cell: list[int]) -> dict[str, Any]:
    return next(s for s in d["platforms"][number - 1]["spaces"] if s["cell"] == cell)


def _layout(d: dict[str, Any], r: int, c: int, ch: str) -> None:
    d["layout"][r] = d["layout"][r][:c] + ch + d["layout"][r][c + 1:]



def where_refused(load: Any, original: Any, change: Any, message: str | None = None) -> Any:
    """Where ``load`` says a changed copy of ``original`` is wrong (it must refuse it, saying ``message``)."""
    data = copy.deepcopy(original)
    change(data)
    with pytest.raises(BadGameData, match=message) as caught:
        load(data)
    return caught.value.at

@pytest.mark.parametrize(
    "change, message, at",
    [
        # a cell that becomes a pit where its tomb does not stand (seen with the Mummy at end A)
        (lambda d: _space(d, 1, [6, 4]).__setitem__("end_a", "pit"), r"only the cell under the tomb is a pit",
         {"cell": [6, 4], "tombs": {"mummy": "end_a"}}),
        # the tomb's own cell showing something else than the pit
        (lambda d: _space(d, 2, [4, 5]).__setitem__("middle", "grass"), r"the tomb's own cell must show 'pit'",
         {"cell": [4, 5], "tombs": {"monster": "middle"}}),
        # a Danger space away from the pit
        (lambda d: _space(d, 1, [7, 3]).__setitem__("end_a", "danger-red"),
         r"the red Danger space \[7, 3\] must sit next to the pit", {"cell": [7, 3], "tombs": {"mummy": "end_a"}}),
        # a cell that becomes the pit with one slide of the tomb, but is not a Danger space before it
        (lambda d: _space(d, 1, [6, 3]).__setitem__("end_a", "grass"),
         r"cell \[6, 3\] shows 'grass' with the tomb at end_a, but becomes the pit",
         {"cell": [6, 3], "tombs": {"mummy": "end_a"}}),
        (lambda d: _space(d, 3, [1, 3]).__setitem__("middle", "bush"), r"'bush' is not a space type here",
         {"cell": [1, 3], "tombs": {"wolf": "middle"}}),
        (lambda d: _space(d, 1, [5, 1]).update(end_a="hand", middle="hand", end_b="hand"), r"paralyse a pawn",
         {"cell": [5, 1]}),
        (lambda d: _layout(d, 0, 0, "?"), r"unknown character '\?'", {"cell": [0, 0]}),
        (lambda d: _layout(d, 0, 1, "X"), r"exactly one exit cell, found 2", {"cell": [0, 7]}),
        # the bushes painted last, between the Gate's side and the Exit, are pointed at, with the
        # first position of the tombs that shows the cut
        (lambda d: (_layout(d, 0, 6, "#"), _layout(d, 1, 7, "#")), r"no path leads from the Gate to the Crypt",
         {"cell": [0, 6], "tombs": {"mummy": "end_a", "monster": "end_a", "wolf": "end_a"}}),
    ],
)
def test_terror_board_errors_point_at_the_cell(change: Any, message: str, at: dict[str, Any]) -> None:
    assert where_refused(load_board, TERROR, change, message) == at


def test_a_whole_file_error_points_nowhere() -> None:
    with pytest.raises(BadGameData) as caught:
        load_board({"layout": []})
    assert caught.value.at is None


def test_the_place_survives_pickling() -> None:
    exc = BadGameData("board: bad", at={"cell": [1, 2]})
    again = pickle.loads(pickle.dumps(exc))
    assert str(again) == "board: bad" and again.at == {"cell": [1, 2]}


@pytest.mark.parametrize(
    "change, entry",
    [
        (lambda d: d["platforms"]["ladder"].__setitem__("brick_entrance", "b99"), "platforms.ladder.brick_entrance"),
        (lambda d: d["platforms"]["grave2"].__setitem__("front", "b3"), "platforms.grave2.front"),
        (lambda d: d["platforms"]["mirror"].__setitem__("stone_exit", "s0"), "platforms.mirror.stone_exit"),
        (lambda d: d.__setitem__("gate", "s1"), "gate"),
        (lambda d: d["start_circles"].__setitem__("red", "b1"), "start_circles.red"),
    ],
)
def test_superstition_errors_name_the_entry(change: Any, entry: str) -> None:
    assert where_refused(parse_board, SUP, change) == {"entry": entry}


@pytest.mark.parametrize(
    "change, message, at",
    [
        (lambda d: d["tiles"][4].__setitem__("grid", ["...", "...", "..."]), r"tile 5 .*exactly one Jack-O-Lantern",
         {"tile": 4}),
        (lambda d: d["tiles"][2].__setitem__("grid", ["JG.", "...", "..G"]), r"tile 3 .*2 Gravestones", {"tile": 2}),
        (lambda d: d["tiles"][0].__setitem__("grid", ["J..", ".x.", "..."]), r"tile 1 .*unknown square",
         {"tile": 0, "square": [1, 1]}),
    ],
)
def test_dogs_tile_errors_name_the_tile_and_square(change: Any, message: str, at: dict[str, Any]) -> None:
    assert where_refused(parse_tiles, TILES, change, message) == at


def test_a_card_mix_bigger_than_the_box_is_refused() -> None:
    data = copy.deepcopy(CARDS)
    data["cards"].append(dict(data["cards"][0], id="one-too-many"))
    with pytest.raises(BadGameData, match="37 cards; the box holds 36") as caught:
        load_deck(data)
    assert caught.value.at == {"entry": "cards[36]"}
    data["cards"] = data["cards"][:30]  # fewer is a mix the owner chose
    assert len(load_deck(data)) == 30


def test_superstition_seat_colours_do_not_follow_the_files_key_order() -> None:
    """A board sent in a new game's options is signed with sorted keys: the seats' colours must not change."""
    sorted_keys = json.loads(json.dumps(SUP, sort_keys=True))
    assert list(sorted_keys["start_circles"]) != list(SUP["start_circles"])
    assert parse_board(sorted_keys).colours == parse_board(SUP).colours == ["red", "blue", "green", "yellow"]
