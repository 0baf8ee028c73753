"""Data files named by a config or a new_game command: only a regular file of a sane size is read."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.games import BadGameData, get_game
from controller.games.datafile import MAX_DATA_FILE_BYTES, read_json
from controller.games.terror.board import load_board
from controller.games.terror.cards import load_deck


def _loaders() -> list[tuple[str, Any]]:
    return [
        ("terror board", load_board),
        ("terror cards", load_deck),
        ("superstition board", lambda p: get_game("superstition").new(["A", "B"], seed=1, options={"board": str(p)})),
        ("dogs tiles", lambda p: get_game("dogs").new(["A", "B"], seed=1, options={"tiles": str(p)})),
    ]


@pytest.mark.parametrize("name, load", _loaders(), ids=[n for n, _ in _loaders()])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path, name: str, load: Any) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    box: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            load(fifo)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            box.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(5), f"{name}: reading a FIFO blocked (no writer ever comes)"
    assert isinstance(box[0], BadGameData) and "not a regular file" in str(box[0])


@pytest.mark.parametrize("name, load", _loaders(), ids=[n for n, _ in _loaders()])
def test_a_device_a_folder_and_an_oversized_file_are_refused_by_name(tmp_path: Path, name: str, load: Any) -> None:
    with pytest.raises(BadGameData, match="/dev/zero.*not a regular file"):
        load(Path("/dev/zero"))  # read whole, it would fill the memory
    with pytest.raises(BadGameData, match="not a regular file"):
        load(tmp_path)
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "a" * MAX_DATA_FILE_BYTES + '"}')
    with pytest.raises(BadGameData, match=r"big.json.*larger than 1024 KiB"):
        load(big)


def test_a_file_at_the_limit_is_still_read(tmp_path: Path) -> None:
    ok = tmp_path / "ok.json"
    ok.write_text('{"x": "' + "a" * (MAX_DATA_FILE_BYTES - 10) + '"}')
    assert len(read_json(ok, "board file")["x"]) == MAX_DATA_FILE_BYTES - 10


@pytest.mark.parametrize("window", [99, 120_001, 10**30])
def test_a_skull_window_outside_the_configs_range_is_refused(window: int) -> None:
    with pytest.raises(ValueError, match="skull_window_ms"):
        get_game("terror").new(["A", "B"], seed=1, options={"skull_window_ms": window})
    assert get_game("terror").new(["A", "B"], seed=1, options={"skull_window_ms": 100}) is not None
