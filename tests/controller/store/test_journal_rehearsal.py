"""``Journal.rehearse``: a decision's rows written and rolled back, so the real commit runs warm.

It is called from the sensor hub's thread just before a window closes; it must leave no
trace, never wait for another writer of the file, and never break the next decision.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from controller.store.journal import BUSY_TIMEOUT_MS, Journal


def ev(kind: str, **data: object) -> dict[str, object]:
    return {"type": kind, "data": data}


def _rows(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with sqlite3.connect(path) as db:
        return (db.execute("SELECT * FROM inputs ORDER BY id").fetchall(),
                db.execute("SELECT * FROM events ORDER BY table_id, seq").fetchall())


def test_a_rehearsal_leaves_no_trace_and_the_next_decision_follows_on(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        j.record("command", {"n": 1}, [ev("a")])
        before = _rows(path)
        for _ in range(3):
            assert j.rehearse()
        assert _rows(path) == before
        assert j.last_seq() == 1 and j.public_after(0) == j.public_after(0, limit=1)
        stored = j.record("observation", {"sensor": "launcher"}, [ev("b")])
        assert stored[0]["seq"] == 2
        ids = [row[0] for row in _rows(path)[0]]
        assert ids == [ids[0], ids[0] + 1]  # the rolled-back input took no id for good
    with Journal(path, table="t1") as again:  # and the file says the same after a reopen
        assert again.last_seq() == 2
        assert [i["payload"] for i in again.inputs()] == [{"n": 1}, {"sensor": "launcher"}]


def test_a_rehearsal_never_waits_for_another_writer_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.journal"
    with Journal(path, table="a") as a:
        a.record("command", {}, [ev("x")])
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another table's writer, in the middle of its commit
        try:
            started = time.monotonic()
            assert a.rehearse() is False
            assert time.monotonic() - started < 1.0  # not the 5 s busy timeout
        finally:
            other.execute("ROLLBACK")
            other.close()
        # The busy timeout is back for real writes, and the journal writes on.
        assert a._db.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
        assert a.record("command", {}, [ev("y")])[0]["seq"] == 2


def test_a_real_write_waiting_behind_another_writer_still_waits(tmp_path: Path) -> None:
    path = tmp_path / "shared.journal"
    with Journal(path, table="a") as a:
        a.rehearse()
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        done = threading.Event()
        result: list[object] = []

        def write() -> None:
            result.append(a.record("command", {}, [ev("x")])[0]["seq"])
            done.set()

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        try:
            assert not done.wait(0.3)  # it waits for the lock (busy timeout), as before
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert done.wait(5) and result == [1]
        thread.join(5)


def test_a_reader_or_closed_journal_does_not_rehearse(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    j = Journal(path, table="t1")
    j.record("command", {}, [ev("a")])
    with Journal(path, table="t1", create=False) as reader:
        assert reader.rehearse() is False
    j.close()
    assert j.rehearse() is False
