"""Files a controller is pointed at that are not what they should be: one clear line, never a hang.

A config file given with ``--config``, and the data files (boards, cards,
tiles) a ``new_game`` command's options may name anywhere on the disk.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tests.support.broker import Broker
from tests.support.mqtt import Commander
from tests.support.run import run_cli
from tests.support.service import BASE, TOKEN, MakeService


def _one_line(result: object, *expected: str) -> str:
    assert result.returncode == 2, result
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def test_a_config_that_is_a_fifo_exits_2_at_once_with_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    # Nobody ever writes to it: reading it would wait for good (the timeout would fail the test).
    _one_line(run_cli("--config", str(fifo), timeout=20), str(fifo), "not a regular file")


def test_a_config_of_dev_zero_exits_2_with_one_line() -> None:
    _one_line(run_cli("--config", "/dev/zero", timeout=20), "/dev/zero", "not a regular file")


def test_a_config_larger_than_1_mib_or_nested_too_deeply_exits_2_with_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("x" * (1 << 20) + "\n")  # not TOML either: even read whole, it could never start a run
    _one_line(run_cli("--config", str(big)), str(big), "larger than 1024 KiB")
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "\n")
    _one_line(run_cli("--config", str(deep)), str(deep), "nested too deeply")


@pytest.mark.parametrize(("game", "option"), [("terror", "board"), ("terror", "cards"),
                                               ("superstition", "board"), ("dogs", "tiles")])
def test_a_data_file_nested_100000_deep_is_a_clear_refusal_naming_it(
        mosquitto: Broker, make_service: MakeService, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        game: str, option: str) -> None:
    deep = tmp_path / f"deep-{game}-{option}.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    t = f"uf-{game}-{option}"
    svc = make_service(t, **{"referee.board": "manual"})
    game_id = svc.call(lambda s: s.referee.game_id)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        with caplog.at_level(logging.WARNING):
            reply = cmd.call("new_game", {"game": game, "players": ["Ann", "Bo"], "options": {option: str(deep)}})
        assert reply["ok"] is False, reply
        assert str(deep) in reply["error"] and "nested too deeply" in reply["error"], reply
        assert "internal error" not in reply["error"] and "RecursionError" not in reply["error"]
        assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
        assert svc.call(lambda s: s.referee.game_id) == game_id  # the running game goes on
    finally:
        cmd.close()
