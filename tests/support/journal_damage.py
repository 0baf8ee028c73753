"""Damaging a journal file the way a failing SD card would, for the tests of its error messages."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def damage_the_inputs(path: Path) -> None:
    """Overwrite the root pages of the inputs table and its indexes with garbage."""
    with sqlite3.connect(path) as db:
        roots = [r[0] for r in db.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'inputs'")]
        page = db.execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as fh:
        for root in roots:
            fh.seek((root - 1) * page)
            fh.write(b"\xa5" * page)
