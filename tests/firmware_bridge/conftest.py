"""Fixtures of the firmware bridge's tests."""

from __future__ import annotations

import pytest

from tests.firmware_bridge.test_firmware import Board


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch) -> Board:
    return Board(monkeypatch)
