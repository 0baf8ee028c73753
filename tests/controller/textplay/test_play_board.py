"""``gravekeeper play <game> --board FILE``: an owner's own board, tried in the terminal before it is played."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest

from controller import cli
from controller.games.dogs.tiles import DEFAULT_TILES_PATH
from controller.games.superstition.board import DEFAULT_BOARD_PATH as SUP_BOARD
from controller.games.terror.board import DEFAULT_BOARD
from controller.games.terror.cards import DEFAULT_CARDS


def _play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("\nquit\n"))  # Enter when the device is passed, then leave
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_terror_plays_the_owners_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(DEFAULT_BOARD.read_text())
    doc["layout"][8] = doc["layout"][8][:3] + "#" + doc["layout"][8][4:]
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(doc))
    code, default_out, _ = _play(monkeypatch, capsys, ["play", "terror", "--seed", "4", "--players", "Ann,Bo"])
    assert code == 0
    code, out, err = _play(monkeypatch, capsys, ["play", "terror", "--seed", "4", "--players", "Ann,Bo",
                                                 "--board", str(mine), "--cards", str(DEFAULT_CARDS)])
    assert code == 0, err
    assert out != default_out  # the same game, drawn on the owner's board
    # Names typed at the prompt play the same board.
    monkeypatch.setattr("sys.stdin", io.StringIO("Ann, Bo\n\nquit\n"))
    assert cli.main(["play", "terror", "--seed", "4", "--board", str(mine)]) == 0
    prompted = capsys.readouterr().out
    assert prompted.split("Seed 4", 1)[1] == out.split("Seed 4", 1)[1]


def test_superstition_and_dogs_play_the_owners_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    tiles = json.loads(DEFAULT_TILES_PATH.read_text())
    for tile in tiles["tiles"]:
        tile["name"] = "Our Own " + tile["id"]
    (tmp_path / "tiles.json").write_text(json.dumps(tiles))
    code, out, err = _play(monkeypatch, capsys, ["play", "dogs", "--seed", "1", "--players", "Ann,Bo",
                                                 "--board", str(tmp_path / "tiles.json")])
    assert code == 0, err
    assert "Our Own " in out  # the first tile drawn is one of the owner's
    board = json.loads(SUP_BOARD.read_text())
    board["start_circles"] = {"green": "start.red", "red": "start.blue", "blue": "start.green",
                              "yellow": "start.yellow"}
    (tmp_path / "sup.json").write_text(json.dumps(board))
    code, out, err = _play(monkeypatch, capsys, ["play", "superstition", "--seed", "1", "--players", "Ann,Bo",
                                                 "--board", str(tmp_path / "sup.json")])
    assert code == 0, err
    assert "Ann [green]" in out or "Ann (green)" in out, out[:1500]  # the owner's first circle is green


def test_a_bad_board_file_names_the_entry_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(DEFAULT_BOARD.read_text())
    bad = copy.deepcopy(doc)
    bad["platforms"][0]["spaces"][2]["end_a"] = "pit"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    code, _, err = _play(monkeypatch, capsys, ["play", "terror", "--board", str(tmp_path / "bad.json")])
    assert code == 2
    assert "platforms[0] spaces[2].end_a" in err and "only the cell under the tomb is a pit" in err


def test_cards_only_for_terror(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _play(monkeypatch, capsys, ["play", "dogs", "--cards", str(DEFAULT_CARDS)])
    assert code == 2 and "--cards" in err
