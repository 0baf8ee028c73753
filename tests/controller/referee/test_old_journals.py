"""Journals written before the redesign still replay to exactly their recorded events.

Each was written by the controller as it stood at ``a0b57e0`` (before its folders were redrawn, before
signing version 2 and before rules edition 2): a table's history must survive an upgrade.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.cli import main

JOURNALS = Path(__file__).parent / "journals"


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_a_journal_written_before_replays_to_the_same_events(game: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "t1.journal"
    shutil.copy(JOURNALS / f"{game}-before-issue-27.journal", journal)  # replay opens it for reading only
    assert main(["replay", str(journal), "--verify"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verified: ") and "reproduce all" in out
