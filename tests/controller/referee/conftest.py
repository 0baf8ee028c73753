"""Fixtures of the referee's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.referee.live import Referee
from tests.controller.referee.test_fakegame import Clock, make_referee
from tests.controller.referee.test_games import TRAPS_REST, drive_to


@pytest.fixture
def superstition(tmp_path: Path) -> tuple[Referee, Clock]:
    clock = Clock()
    ref = make_referee(tmp_path, clock, settings={"referee.trap_window_ms": 1500})
    assert ref.reconcile(TRAPS_REST).ok
    assert ref.new_game("superstition", ["Ann", "Bo"], seed=1).ok
    drive_to(ref, "peg_pull")
    return ref, clock
