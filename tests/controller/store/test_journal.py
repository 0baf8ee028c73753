"""The journal: one transaction a decision, gap-free seq, the outbox cursor, bad files."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.store.journal import Journal, JournalError
from tests.support.journal_damage import damage_the_inputs


def ev(kind: str, **data: object) -> dict[str, object]:
    return {"type": kind, "data": data}


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "j.journal", table="t1")
    yield j
    j.close()


def test_sqlite_runs_in_wal_mode_with_full_sync(journal: Journal) -> None:
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_record_assigns_gap_free_seq_and_returns_the_public_form(journal: Journal) -> None:
    first = journal.record("new_game", {"game": "x"}, [ev("game_started", game="x")])
    assert first == [{"seq": 1, "table": "t1", "type": "game_started", "time": first[0]["time"], "data": {"game": "x"}}]
    assert journal.record("observation", {"sensor": "launcher"}, []) == []
    second = journal.record(
        "command",
        {"command_id": "c1"},
        [ev("a"), {"type": "b", "data": {}, "private_to": 1, "secret": {"card": "ring"}}],
    )
    assert [e["seq"] for e in second] == [2, 3]
    assert "secret" not in second[1] and "private_to" not in second[1]
    assert journal.last_seq() == 3
    assert [e["seq"] for e in journal.events_after(1)] == [2, 3]
    assert [e["seq"] for e in journal.events_after(0, limit=2)] == [1, 2]
    assert "ring" not in repr(journal.events_after(0))


def test_inputs_come_back_in_order_with_their_events(journal: Journal) -> None:
    journal.record("new_game", {"n": 1}, [ev("game_started")])
    journal.record("observation", {"n": 2}, [])
    secret_event = {"type": "x", "data": {}, "private_to": 0, "secret": {"s": 1}}
    journal.record("command", {"n": 3, "command_id": "c"}, [secret_event])
    inputs = list(journal.inputs())
    assert [(i["kind"], i["payload"]["n"]) for i in inputs] == [("new_game", 1), ("observation", 2), ("command", 3)]
    assert [len(i["events"]) for i in inputs] == [1, 0, 1]
    assert inputs[2]["events"][0]["secret"] == {"s": 1} and inputs[2]["events"][0]["private_to"] == 0


def test_inputs_are_read_in_pages(tmp_path: Path) -> None:
    # about paging, not disks: on tmpfs when there is one, 1203 fsyncs cost nothing
    folder = Path(tempfile.mkdtemp(dir="/dev/shm")) if Path("/dev/shm").is_dir() else tmp_path
    journal = Journal(folder / "j.journal", table="t1")
    for n in range(1203):
        journal.record("observation", {"n": n}, [ev("e", n=n)] if n % 2 else [])
    inputs = list(journal.inputs())
    assert [i["payload"]["n"] for i in inputs] == list(range(1203))
    assert [e["data"]["n"] for i in inputs for e in i["events"]] == list(range(1, 1203, 2))
    journal.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_a_command_id_is_accepted_once_and_a_repeat_records_nothing(journal: Journal) -> None:
    journal.record("command", {"command_id": "abc"}, [ev("x")])
    assert journal.has_command("abc") and not journal.has_command("abd")
    with pytest.raises(JournalError, match="already accepted"):
        journal.record("command", {"command_id": "abc"}, [ev("y")])
    assert journal.last_seq() == 1 and len(list(journal.inputs())) == 1


def test_unknown_input_kind_is_refused(journal: Journal) -> None:
    with pytest.raises(JournalError, match="unknown input kind"):
        journal.record("whatever", {}, [ev("x")])
    assert journal.last_seq() == 0


def test_a_bad_event_rolls_back_the_whole_decision(journal: Journal) -> None:
    with pytest.raises(KeyError):
        journal.record("command", {"command_id": "c9"}, [ev("ok"), {"data": {}}])  # second has no type
    assert journal.last_seq() == 0 and not journal.has_command("c9") and list(journal.inputs()) == []


def test_outbox_cursor_only_moves_forward_and_not_past_the_end(journal: Journal) -> None:
    journal.record("command", {}, [ev("a"), ev("b"), ev("c")])
    assert journal.published_seq() == 0
    journal.mark_published(2)
    journal.mark_published(1)
    assert journal.published_seq() == 2
    with pytest.raises(JournalError, match="last event is 3"):
        journal.mark_published(4)
    assert [e["seq"] for e in journal.events_after(journal.published_seq())] == [3]


def test_everything_survives_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "j.journal"  # parent folders are made
    with Journal(path, table="t1") as j:
        j.record("command", {"command_id": "k"}, [ev("a"), ev("b")])
        j.mark_published(1)
    with Journal(path, table="t1") as j:
        assert j.last_seq() == 2 and j.published_seq() == 1 and j.has_command("k")
        assert j.integrity_check() == "ok"


def test_tables_sharing_a_file_have_their_own_seq(tmp_path: Path) -> None:
    path = tmp_path / "shared.journal"
    with Journal(path, table="a") as a, Journal(path, table="b") as b:
        a.record("command", {}, [ev("x"), ev("y")])
        assert b.record("command", {}, [ev("z")])[0]["seq"] == 1
        assert a.last_seq() == 2 and b.last_seq() == 1
        assert [i["payload"] for i in b.inputs()] == [{}]
        assert a.tables() == ["a", "b"]


def test_concurrent_writers_never_leave_a_gap(journal: Journal) -> None:
    def writer(n: int) -> None:
        for i in range(50):
            journal.record("observation", {"w": n, "i": i}, [ev("e", w=n, i=i), ev("f")])

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    seqs = [e["seq"] for e in journal.events_after(0)]
    assert seqs == list(range(1, 401))
    assert journal.integrity_check() == "ok"


def test_missing_and_corrupt_files_give_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="not found"):
        Journal(tmp_path / "nope.journal", table="t1", create=False)
    assert not (tmp_path / "nope.journal").exists()
    junk = tmp_path / "junk.journal"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError, match="not a readable journal"):
        Journal(junk, table="t1")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '99')")
    with pytest.raises(JournalError, match="schema 99"):
        Journal(other, table="t1")


def test_integrity_check_reports_a_seq_gap(journal: Journal) -> None:
    journal.record("command", {}, [ev("a"), ev("b"), ev("c")])
    journal._db.execute("DELETE FROM events WHERE seq = 2")
    assert "seq gap" in journal.integrity_check()


def test_close_is_idempotent_and_a_closed_journal_refuses_work(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.journal", table="t1")
    j.close()
    j.close()
    with pytest.raises(JournalError, match="closed"):
        j.last_seq()


def test_a_journal_that_cannot_be_created_says_where(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(JournalError, match="cannot create the journal's folder"):
        Journal(blocker / "sub" / "j.journal", table="t1")


def test_last_input_id_and_reading_from_it(journal: Journal) -> None:
    assert journal.last_input_id("new_game") is None
    for kind in ("reconcile", "new_game", "command", "new_game", "observation"):
        journal.record(kind, {"k": kind}, [])
    start = journal.last_input_id("new_game")
    assert start == 4
    assert [i["kind"] for i in journal.inputs(start)] == ["new_game", "observation"]


def test_a_path_with_uri_characters_is_just_a_path(tmp_path: Path) -> None:
    path = tmp_path / "club #1 ?50% off" / "t1.journal"
    with Journal(path, table="t1") as j:
        j.record("command", {}, [ev("a")])
    assert path.is_file()
    with Journal(path, table="t1", create=False) as j:
        assert j.last_seq() == 1


def test_one_writer_per_table(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as first:
        first.record("command", {}, [ev("a")])
        with pytest.raises(JournalError, match="table 't1' is in use by another gravekeeper process"):
            Journal(path, table="t1")
        with Journal(path, table="t2") as other_table:  # another table of the same file is free
            assert other_table.last_seq() == 0
        with Journal(path, table="t1", create=False) as reader:  # a reader (replay) takes no lock
            assert reader.last_seq() == 1
    with Journal(path, table="t1") as again:  # closing the first writer freed the table
        assert again.last_seq() == 1


def test_a_killed_writer_does_not_leave_its_table_locked(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    code = (
        "import os, sys; from controller.store.journal import Journal; "
        "j = Journal(sys.argv[1], table='t1'); j.record('command', {}, [{'type': 'a', 'data': {}}]); "
        "print('ready', flush=True); sys.stdin.readline()"
    )
    root = Path(__file__).resolve().parents[3]
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=root, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    with pytest.raises(JournalError, match="in use"):
        Journal(path, table="t1")
    child.kill()  # SIGKILL: no clean-up in the child
    child.wait(30)
    with Journal(path, table="t1") as j:
        assert j.last_seq() == 1


# ----- several inputs in one commit, the writer's memory, background checkpoints -----------
def test_record_many_is_one_transaction(journal: Journal) -> None:
    journal.record("command", {"command_id": "used"}, [ev("a")])
    stored = journal.record_many([("observation", {"n": 1}, [ev("b")]), ("timeout", {"n": 2}, [ev("c"), ev("d")])])
    assert [[e["seq"] for e in batch] for batch in stored] == [[2], [3, 4]]
    assert [i["kind"] for i in journal.inputs()] == ["command", "observation", "timeout"]
    before = (journal.last_seq(), [i["id"] for i in journal.inputs()])
    with pytest.raises(JournalError, match="already accepted"):  # the second entry fails: neither is kept
        journal.record_many([("observation", {"n": 3}, [ev("e")]), ("command", {"command_id": "used"}, [ev("f")])])
    with pytest.raises(JournalError, match="unknown input kind"):
        journal.record_many([("observation", {"n": 4}, [ev("g")]), ("bogus", {}, [])])
    assert (journal.last_seq(), [i["id"] for i in journal.inputs()]) == before
    assert journal.record("observation", {"n": 5}, [ev("h")])[0]["seq"] == 5  # still gap-free
    assert journal.integrity_check() == "ok"


def test_record_many_calls_on_commit_once_the_entries_are_durable(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j, Journal(path, table="t1", create=False) as reader:
        seen: list[tuple[int, list[tuple[int, bytes]]]] = []

        def on_commit() -> None:  # another connection sees the commit; the outbox has the bytes
            seen.append((reader.last_seq(), j.public_after(0)))

        stored = j.record_many([("observation", {"n": 1}, []), ("timeout", {"n": 2}, [ev("b", n=2)])], on_commit)
        assert seen == [(1, [(1, b'{"seq":1,"table":"t1","type":"b","time":' + repr(stored[1][0]["time"]).encode()
                              + b',"data":{"n":2}}')])]
        assert stored[1][0]["data"] == {"n": 2}

        def broken() -> None:
            raise RuntimeError("the link failed")

        # It runs after the commit: its error is logged, and the entries stand.
        assert j.record_many([("observation", {"n": 3}, [ev("c")])], broken)[0][0]["seq"] == 2
        assert "the call after a commit failed" in caplog.text
        assert reader.last_seq() == 2
        with pytest.raises(JournalError, match="unknown input kind"):  # nothing committed: not called
            j.record_many([("bogus", {}, [ev("d")])], lambda: seen.append((-1, [])))
        assert len(seen) == 1


def test_the_writers_recent_events_read_as_the_file_does(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        j.record("command", {}, [ev("a", n=1), ev("b", n=2)])
    with Journal(path, table="t1") as writer, Journal(path, table="t1", create=False) as reader:
        assert writer.events_after(0) == reader.events_after(0)  # from before this start: read from the file
        for n in range(3, 12):
            writer.record("observation", {"n": n}, [ev("e", n=n)] if n % 3 else [])
        assert writer.last_seq() == reader.last_seq() == 8
        for seq in range(10):
            assert writer.events_after(seq) == reader.events_after(seq)
            assert writer.events_after(seq, limit=2) == reader.events_after(seq, limit=2)
        got = writer.events_after(5)
        got[0]["data"]["n"] = "changed"  # a caller's copy: the next reader still gets the journal's
        assert writer.events_after(5) == reader.events_after(5)


def test_the_wal_is_checkpointed_in_the_background_and_stays_small(tmp_path: Path) -> None:
    from controller.store.journal import CHECKPOINT_EVERY

    path = tmp_path / "j.journal"
    wal = tmp_path / "j.journal-wal"
    j = Journal(path, table="t1")
    assert j._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0  # none on the commit path
    checkpointer = j._checkpointer
    assert checkpointer is not None
    sizes = []
    for batch in range(4):
        checkpointer.ran.clear()
        for i in range(CHECKPOINT_EVERY):
            j.record("observation", {"batch": batch, "i": i, "pad": "x" * 200}, [ev("e", i=i)])
        assert checkpointer.ran.wait(10), "no background checkpoint after a batch of commits"
        sizes.append(wal.stat().st_size)
    # Without checkpoints the WAL would grow by a batch's worth each time; checkpointed, it is reused.
    assert sizes[-1] <= sizes[0] * 1.5, sizes
    j.close()
    assert not checkpointer._thread.is_alive()
    j.close()  # idempotent
    with Journal(path, table="t1", create=False) as reader:
        assert reader.last_seq() == 4 * CHECKPOINT_EVERY and reader.integrity_check() == "ok"


# ----- files that are not this program's journal, and damaged ones -------------------------
def test_another_programs_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (x)")
        db.execute("INSERT INTO notes VALUES ('keep me')")
    before = other.read_bytes()
    with pytest.raises(JournalError, match=r"is not a gravekeeper journal"):
        Journal(other, table="t1")  # journal.path pointed at the wrong file by mistake
    assert other.read_bytes() == before  # no tables added, not switched to WAL
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_meta_table_of_another_shape_is_not_a_journal(tmp_path: Path) -> None:
    other = tmp_path / "meta.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (k, v)")
    for create in (True, False):
        with pytest.raises(JournalError, match=r"is not a gravekeeper journal"):
            Journal(other, table="t1", create=create)


def test_a_folder_is_not_a_journal(tmp_path: Path) -> None:
    for create in (True, False):
        with pytest.raises(JournalError, match=r"is a folder, not a journal file"):
            Journal(tmp_path, table="t1", create=create)


def test_damaged_pages_are_a_journal_error_not_a_database_error(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        for n in range(50):
            j.record("observation", {"n": n, "pad": "x" * 300}, [ev("e", n=n)])
    damage_the_inputs(path)
    with Journal(path, table="t1", create=False) as reader:
        with pytest.raises(JournalError, match=r"cannot be read"):
            list(reader.inputs())
        with pytest.raises(JournalError, match=r"cannot be read"):
            reader.tables()
        with pytest.raises(JournalError, match=r"cannot be read"):
            reader.last_input_id("new_game")


def test_an_input_whose_text_was_damaged_names_the_input(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        j.record("observation", {"n": 1}, [])
        j.record("observation", {"n": 2}, [])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE inputs SET payload = '{\"n\": 2' WHERE id = 2")
    with (Journal(path, table="t1", create=False) as reader,
          pytest.raises(JournalError, match=r"input 2 cannot be read")):
        list(reader.inputs())
    with sqlite3.connect(path) as db:  # nested past the JSON parser's limit: a RecursionError, not a ValueError
        db.execute("UPDATE inputs SET payload = ? WHERE id = 2", ("[" * 100_000,))
    with (Journal(path, table="t1", create=False) as reader,
          pytest.raises(JournalError, match=r"input 2 cannot be read")):
        list(reader.inputs())


def test_a_reader_does_not_wait_for_the_writers_lock(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        j.record("command", {}, [ev("a")])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # the controller in the middle of a commit (a slow fsync)
    opened = threading.Event()
    seen: list[object] = []

    def read() -> None:
        try:
            with Journal(path, table="t1", create=False) as reader:  # `gravekeeper replay`
                seen.append(reader.last_seq())
        except JournalError as exc:
            seen.append(exc)
        opened.set()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        # A reader that took the write lock would wait out the 5 s busy timeout, then fail.
        assert opened.wait(3), "the reader waited for the writer's lock"
        assert seen == [1]
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        thread.join(10)


def test_a_reader_refuses_a_journal_of_another_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path, table="t1") as j:
        j.record("command", {}, [ev("a")])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    with pytest.raises(JournalError, match="has schema 7, expected 1"):
        Journal(path, table="t1", create=False)


def test_the_events_a_record_returns_are_the_callers_own(tmp_path: Path) -> None:
    # The outbox keeps its own copy of each event (built from the stored text, not re-encoded):
    # a caller changing what record() returned must not change what gets published.
    with Journal(tmp_path / "j.journal", table="t1") as j:
        stored = j.record("observation", {"n": 1}, [ev("e", n=1, nested={"k": [1, 2]})])
        stored[0]["data"]["n"] = "changed"
        stored[0]["data"]["nested"]["k"].append(3)
        stored[0]["type"] = "other"
        got = j.events_after(0)
        assert [(e["type"], e["data"]) for e in got] == [("e", {"n": 1, "nested": {"k": [1, 2]}})]
        got[0]["data"]["nested"]["k"].append(4)  # nor what events_after() returned
        assert j.events_after(0)[0]["data"] == {"n": 1, "nested": {"k": [1, 2]}}


def test_the_outbox_bytes_are_the_public_form_encoded_as_published(tmp_path: Path) -> None:
    """public_after() hands the link bytes made once from the stored data: the same bytes as encoding the
    public dict (compact JSON, UTF-8, keys seq, table, type, time, data), from memory and from the file."""
    import json

    from controller.mqtt.link import EVENT_KEYS
    from controller.protocol.commands import dumps

    path = tmp_path / "j.journal"
    events = [
        {"type": "mismatch", "data": {"zeta": 1, "alpha": "Ann’s dog — «Bø»", "n": [1.5, 2, None, True]}},
        {"type": "tile", "data": {"at": 1e-7, "big": 2**70, "nested": {"b": [], "a": {}}}, "time": 1700000000.1},
        {"type": "secret_draw", "data": {}, "private_to": 1, "secret": {"card": "ring"}},
        {"type": "quote \"and\" \\ backslash", "data": {"text": "line\nbreak\ttab \u2028"}},
    ]
    with Journal(path, table="Tåble \"1\"") as writer, Journal(path, table="Tåble \"1\"", create=False) as reader:
        stored = writer.record("command", {"command_id": "c1"}, events)  # the public dicts, made apart
        assert len(stored) == 4
        for seq in range(4):
            want = [(e["seq"], dumps({k: e.get(k) for k in EVENT_KEYS})) for e in stored if e["seq"] > seq]
            assert writer.public_after(seq) == want  # from the writer's memory
            assert reader.public_after(seq) == want  # from the file
            assert writer.public_after(seq, limit=1) == reader.public_after(seq, limit=1) == want[:1]
        bodies = [body for _, body in writer.public_after(0)]
        assert [json.loads(b)["seq"] for b in bodies] == [1, 2, 3, 4]
        assert all(b"ring" not in b and b"private_to" not in b for b in bodies)
        assert json.loads(bodies[0])["data"] == events[0]["data"]


def test_the_journal_stores_json_as_json_dumps_writes_it() -> None:
    """The journal's encoder is built once; what it writes is what json.dumps (sorted, compact) writes."""
    import json

    from controller.store.journal import _dumps

    values: list[object] = [
        {"b": 1, "a": [1.5, -0.0, 1e300, None, True], "é": {"z": "Ann’s dog", "y": "\\u0000\\n"}},
        {"10": "x", "2": "y", "1": "z"},
        {"nan": float("nan"), "inf": float("inf")}, [], {}, "text", 3, {"deep": [[[{"k": []}]]]},
    ]
    for value in values:
        assert _dumps(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with pytest.raises(TypeError):
        _dumps({"not json": object()})
    assert _dumps({"after": "an error"}) == '{"after":"an error"}'  # the shared encoder keeps no state
