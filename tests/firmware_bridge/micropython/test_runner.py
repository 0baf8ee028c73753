"""Without Node or the pinned port the MicroPython tests fail and say how to install them; they never skip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.firmware_bridge.micropython import runner


def test_a_missing_node_is_an_error_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(runner.MicroPythonUnavailable, match="node is not installed"):
        runner.run("frames.py", {"input.bin": b""})


def test_a_missing_or_other_port_is_an_error_naming_npm_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(runner, "PACKAGE_DIR", tmp_path / "absent")
    with pytest.raises(runner.MicroPythonUnavailable, match="npm ci"):
        runner.check_installed()
    (tmp_path / "package.json").write_text(json.dumps({"version": "1.26.0"}))
    monkeypatch.setattr(runner, "PACKAGE_DIR", tmp_path)
    with pytest.raises(runner.MicroPythonUnavailable, match="1.26.0 is installed but package-lock.json pins 1.27.0"):
        runner.check_installed()


def test_an_exception_on_micropython_fails_the_caller(micropython: str) -> None:
    with pytest.raises(runner.MicroPythonError, match="bad record kind"):
        runner.run("frames.py", {"input.bin": b"X"})
