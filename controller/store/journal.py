"""The durable journal: every accepted input and every event, in one SQLite file.

A decision of the referee is one transaction: the input that was accepted and
the events it caused are committed together, so after ``kill -9`` or a power
cut the journal holds either the whole decision or none of it. WAL mode with
``synchronous=FULL`` makes a committed decision survive a power cut.

The journal is also the MQTT outbox: events carry a gap-free ``seq`` per table
and ``published_seq`` is the cursor of the last event the broker acknowledged.
After an outage the link publishes ``public_after(published_seq())`` in order:
each event's public form as the bytes that go on the events topic, built once
when the event is recorded from the data's stored text (see :func:`public_body`).

Private parts of events (``private_to``/``secret``) are stored, because replay
verification compares them too, but never returned by :meth:`public_after` or
:meth:`events_after`, whose events go straight onto public topics.

The writer is the only one for its table (an advisory lock, see
``_take_table``), so it keeps the table's last ``seq`` and its most recent
public events in memory: the outbox reads them after each decision without a
query. SQLite's own checkpoints (copying the WAL back into the main file, with
an fsync of their own) would land on one commit in a few hundred and make it
several times slower; the writer turns them off and a background thread with
its own connection checkpoints instead, which WAL allows alongside commits.

A journal that can no longer be written (its files made read-only or immutable,
or a card that failed into a read-only file system) must be refused, never
touched: SQLite keeps the WAL index in the ``-shm`` file mapped in memory, and
writing a mapped page of a file the kernel will no longer let change is not an
error SQLite can return but SIGBUS, which kills the process without a word.
So the writer asks the kernel whether its three files are writable before each
use of the file (``access(2)``, about a microsecond) and refuses with a
:class:`JournalError` in words while they are not; the game goes on when they
are writable again (see :meth:`Journal.write_problem`).
"""

from __future__ import annotations

import collections
import ctypes
import fcntl
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self
from urllib.parse import quote

from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
INPUT_KINDS = ("new_game", "command", "observation", "timeout", "reconcile", "gm")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    time REAL NOT NULL,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inputs_by_table ON inputs (table_id, id);
CREATE INDEX IF NOT EXISTS inputs_by_kind ON inputs (table_id, kind, id);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    input_id INTEGER NOT NULL REFERENCES inputs (id),
    type TEXT NOT NULL,
    time REAL NOT NULL,
    data TEXT NOT NULL,
    private_to INTEGER,
    secret TEXT,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_by_input ON events (input_id);
CREATE TABLE IF NOT EXISTS commands (
    table_id TEXT NOT NULL,
    command_id TEXT NOT NULL,
    input_id INTEGER NOT NULL,
    PRIMARY KEY (table_id, command_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (table_id TEXT PRIMARY KEY, published_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sensor_counts (
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    sensor TEXT NOT NULL,
    bounces INTEGER NOT NULL,
    PRIMARY KEY (table_id, game_id, sensor)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS used_commands (
    table_id TEXT NOT NULL,
    command_id TEXT NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (table_id, command_id)
) WITHOUT ROWID;
"""


RECENT_EVENTS = 1024  # public events kept in memory for the outbox (a broker outage's backlog reads SQL)
CHECKPOINT_EVERY = 64  # commits between background checkpoints (SQLite's default is about 1000 pages)
CHECKPOINT_JOIN_S = 5.0
BUSY_TIMEOUT_MS = 5000  # how long a write waits for another table's writer of the same file


class JournalError(GravekeeperError, ValueError):
    """The journal file is missing, corrupt, of another version, or the call is invalid."""


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# JSONEncoder.encode() builds its C encoder anew on every call; this one is built once (a decision
# encodes three or four times). Without the circular check: what the journal stores came from
# JSON or from the engines' plain data, and a shared check would keep stale ids after an error.
_c_encode = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
    None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", True, False, True,
) if json.encoder.c_make_encoder is not None else None  # type: ignore[attr-defined]


def _dumps(obj: Any) -> str:
    """Compact JSON with sorted keys, as the journal has always stored it."""
    if _c_encode is None:  # an interpreter without the C accelerator
        return _ENCODER.encode(obj)
    return "".join(_c_encode(obj, 0))


# The public form's fields in their published order (``seq``, ``table``, ``type``, ``time``), unsorted.
_dumps_head = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_json_text = json.encoder.encode_basestring  # a str as JSON (ensure_ascii=False): one C call


def public_body(seq: int, table: str, etype: str, at: float, data_text: str) -> bytes:
    """The public form of an event as the bytes published on the events topic.

    ``data_text`` is the data exactly as the journal stores it (encoded once, when
    recorded), so an event's data is never decoded and encoded again on its way
    out. Byte for byte what ``json.dumps`` (compact, ``ensure_ascii=False``) gives
    for ``{"seq", "table", "type", "time", "data"}`` with the data as stored.
    """
    if type(seq) is int and type(etype) is str and type(at) is float and math.isfinite(at):
        # what the encoder writes for these types, without building an encoder's state per event
        head = f'{{"seq":{seq},"table":{_json_text(table)},"type":{_json_text(etype)},"time":{at!r}'
    else:
        head = _dumps_head({"seq": seq, "table": table, "type": etype, "time": at})[:-1]
    return (head + ',"data":' + data_text + "}").encode("utf-8", "backslashreplace")


class _Checkpointer:
    """Copies the WAL back into the main file from its own thread and connection (see the module doc).

    A PASSIVE checkpoint never blocks the writer; one that cannot finish (a
    reader holds an old snapshot) is simply tried again after the next batch.
    """

    def __init__(self, uri: str, write_problem: Callable[[], str | None]) -> None:
        self._write_problem = write_problem
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout=5000")
        self._commits = 0
        self._due = threading.Event()
        self.ran = threading.Event()  # set after each checkpoint attempt
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gk-journal-checkpoint", daemon=True)
        self._thread.start()

    def committed(self) -> None:
        self._commits += 1  # under the journal's lock
        if self._commits % CHECKPOINT_EVERY == 0:
            self._due.set()

    def _run(self) -> None:
        while True:
            self._due.wait()
            if self._stop.is_set():
                return
            self._due.clear()
            if self._write_problem() is not None:
                self.ran.set()
                continue  # a checkpoint writes the mapped -shm: SIGBUS on a file that may not change
            try:
                self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:
                log.warning("journal checkpoint failed (retried after the next commits): %s", exc)
            self.ran.set()

    def close(self) -> None:
        self._stop.set()
        self._due.set()
        self._thread.join(CHECKPOINT_JOIN_S)
        if self._thread.is_alive():
            log.error("journal checkpoint thread did not stop within %.1f s", CHECKPOINT_JOIN_S)
            return  # its connection is still in use; the process exit closes it
        self._db.close()


def _leave_open(db: sqlite3.Connection) -> None:
    """Never close ``db``: closing checkpoints, which writes the mapped ``-shm`` (SIGBUS while the
    file may not change). Every decision is committed already; the next start recovers the WAL.

    The connection gets a reference that is never dropped, so not even the interpreter's exit
    deallocates (and so closes) it; the kernel lets the files go with the process.
    """
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(db))


class _Transaction:
    """``with``: BEGIN IMMEDIATE, then COMMIT, or ROLLBACK if the block raised.

    A class rather than a ``@contextmanager`` generator: it is on every decision's
    way, and a generator-based manager costs several Python calls more per use.
    """

    __slots__ = ("_db",)

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self._db.execute("ROLLBACK")
            return  # the block's exception goes on
        try:
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # a COMMIT that failed (disk full) may leave it open
                self._db.execute("ROLLBACK")
            raise


class Journal:
    """One SQLite connection shared by threads under a lock (decisions are rare and short)."""

    def __init__(self, path: str | Path, *, table: str, create: bool = True) -> None:
        self.path = Path(path)
        self.table = table
        self._lock = threading.Lock()
        self._closed = False
        self._writer = create
        self._last_seq: int | None = None  # the writer's cache; None: read it from the file
        # (seq, the public form's bytes, see public_body): the outbox publishes these bytes as they
        # are, and a dict copy is one json.loads of them.
        self._recent: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=RECENT_EVENTS)
        self._checkpointer: _Checkpointer | None = None
        self._files = tuple(f"{self.path}{suffix}" for suffix in ("", "-wal", "-shm"))
        self._problem: str | None = None  # why the file cannot be written now (write_problem), as last logged
        self._failed: str | None = None  # why the last write failed (a full disk), until one succeeds
        self._problem_lock = threading.Lock()
        if self.path.is_dir():
            raise JournalError(f"journal {self.path} is a folder, not a journal file")
        if not create and not self.path.is_file():
            raise JournalError(f"journal not found: {self.path}")
        self._lock_file: IO[bytes] | None = None
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(f"cannot create the journal's folder {self.path.parent}: {exc.strerror}") from None
            self._take_table()
            problem = self._unwritable()
            if problem is not None:
                self._release_table()
                raise JournalError(f"journal {self.path} is read-only ({problem}): the controller must write "
                                   "every move to it; make it writable for the user the controller runs as")
        try:
            uri = f"file:{quote(str(self.path))}?mode={'rwc' if create else 'rw'}"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            self._release_table()
            raise JournalError(f"cannot open journal {self.path}: {exc}") from None
        try:
            self._check_foreign(create)
            self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if not create:
                # A reader (`replay`, the self-test) writes nothing: no write lock to wait for
                # while the controller commits, and a user who may only read the file can.
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None or row[0] != str(SCHEMA_VERSION):
                    found = "no schema" if row is None else f"schema {row[0]}"
                    raise JournalError(f"journal {self.path} has {found}, expected {SCHEMA_VERSION}")
                return
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise JournalError(f"journal {self.path}: this file system cannot hold a WAL journal (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None:
                    self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                elif row[0] != str(SCHEMA_VERSION):
                    raise JournalError(f"journal {self.path} has schema {row[0]}, expected {SCHEMA_VERSION}")
            if create:
                self._last_seq = self._query_last_seq()
                self._db.execute("PRAGMA wal_autocheckpoint=0")  # see the module doc
                self._checkpointer = _Checkpointer(uri, self.write_problem)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            self._release_table()
            raise JournalError(f"journal {self.path} is not a readable journal: {exc}") from None
        except JournalError:
            self._db.close()
            self._release_table()
            raise

    def _check_foreign(self, create: bool) -> None:
        """Refuse a database of another program before anything is written to it.

        A ``journal.path`` pointed at the wrong file by mistake must not be
        switched to WAL and filled with our tables: an empty file is a new
        journal, anything else must already be one.
        """
        tables = [r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if "meta" not in tables:
            if create and not tables:
                return  # a new, empty file
            other = f" (it holds {', '.join(sorted(tables)[:5])})" if tables else ""
            raise JournalError(f"{self.path} is not a gravekeeper journal{other}")
        try:
            self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.OperationalError:
            raise JournalError(f"{self.path} is not a gravekeeper journal (its meta table is another one)") from None

    def _take_table(self) -> None:
        """One writer per table: a second controller for the same table would interleave its decisions.

        An advisory lock on a file beside the journal; the kernel drops it when the
        process dies, even by ``kill -9``, so a crash never leaves the table locked.
        A reader (``create=False``, as ``gravekeeper replay``) takes no lock.
        """
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", self.table) or "_"
        lock_path = self.path.with_name(f"{self.path.name}.{safe}.lock")
        try:
            handle = open(lock_path, "ab")  # noqa: SIM115 - held open for the journal's lifetime
        except OSError as exc:
            raise JournalError(f"cannot create the journal's lock file {lock_path}: {exc.strerror}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise JournalError(
                f"journal {self.path}: table {self.table!r} is in use by another gravekeeper process"
            ) from None
        self._lock_file = handle

    def _release_table(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing drops the lock
            self._lock_file = None

    # ----- plumbing ---------------------------------------------------------------
    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def _check_open(self, touch: bool = True) -> None:
        """Refuse a closed journal and, before the file is touched (``touch``), one that cannot be written."""
        if self._closed:
            raise JournalError(f"journal {self.path} is closed")
        if touch and self._writer:
            problem = self.write_problem()
            if problem is not None:
                raise JournalError(problem)

    def _unwritable(self) -> str | None:
        for name in self._files:
            # access(2) answers for root too: an immutable file (chattr +i) or a read-only mount is
            # EPERM/EROFS to everyone, while root may write a file whose mode bits say read-only.
            if not os.access(name, os.W_OK) and os.path.lexists(name):
                return f"{Path(name).name} cannot be written"
        return None

    def write_problem(self) -> str | None:
        """Why this writer's journal cannot be written now, in words, or None; each change is logged once.

        SQLite would write the ``-shm`` file through a memory mapping, where a file that may not
        change is SIGBUS, not an error (see the module doc): every use of the file asks this first.
        """
        if not self._writer:
            return None
        found = self._unwritable()
        problem = None if found is None else (f"the journal {self.path} is read-only ({found}), so nothing can "
                                              "be recorded: moves are refused until it can be written again")
        with self._problem_lock:
            changed, self._problem = problem != self._problem, problem
        if changed:
            if problem is not None:
                log.error("%s", problem)
            else:
                log.warning("the journal %s can be written again: moves are taken again", self.path)
        return problem

    @contextmanager
    def _reading(self) -> Iterator[None]:
        # A damaged page is found only when a query reaches it, long after the open succeeded;
        # callers (the restore at start-up, `replay`) report a JournalError as one line.
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"journal {self.path} cannot be read: {exc}") from None

    @contextmanager
    def _writing(self) -> Iterator[None]:
        # A full or failing disk. The callers of these writes go on without them (the outbox
        # cursor) or refuse what needed them (a spent command id): they catch one JournalError,
        # which says what SQLite or the system said, rather than every error of both. The failure
        # is kept (``problem``: the health's warning, one log line) until a write succeeds: a full
        # SD card refused every move in silence, with nothing in the log or the health.
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            said = str(exc) or type(exc).__name__
            self._write_failed(f"the journal {self.path} could not be written ({said}), so nothing can be "
                               "recorded: moves are refused until it can be written again")
            raise JournalError(said) from exc
        if self._failed is not None:  # unlocked: a stale None only leaves the clearing to the next write
            self._write_failed(None)

    def _write_failed(self, failure: str | None) -> None:
        with self._problem_lock:
            changed, self._failed = (failure is None) != (self._failed is None), failure
        if changed and failure is not None:
            log.error("%s", failure)
        elif changed:
            log.warning("the journal %s can be written again: moves are taken again", self.path)

    def problem(self) -> str | None:
        """Why moves are refused now, in words, or None: files that cannot be written (``write_problem``), or a
        last write that failed (a full disk) and none since that succeeded."""
        return self.write_problem() or self._failed

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.close()  # outside the lock: it never takes it, but may be mid-checkpoint
        with self._lock:
            if self.write_problem() is not None:
                _leave_open(self._db)
            else:
                self._db.close()  # the last connection to close checkpoints the rest
            self._release_table()

    # ----- writing --------------------------------------------------------------
    def record(self, kind: str, payload: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Store one accepted input and its events in ONE transaction; return the events as stored.

        Each event dict has ``type`` and ``data``, optionally ``time``, ``private_to``
        and ``secret``. The returned dicts are the public form
        ``{"seq", "table", "type", "time", "data"}``.
        """
        return self.record_many([(kind, payload, events)])[0]

    def record_many(
        self, entries: list[tuple[str, dict[str, Any], list[dict[str, Any]]]],
        on_commit: Callable[[], None] | None = None,
    ) -> list[list[dict[str, Any]]]:
        """Store several inputs, each with its events, in ONE transaction (one fsync).

        For a decision that at once causes another: an observation and the
        grace-0 timeout it starts. They stay separate inputs, so a replay
        decides them one by one as before. Returns each input's stored events.

        ``on_commit`` is called once they are durable, outside the journal's lock and
        before the events are decoded for the caller: the outbox publishes the bytes the
        journal keeps (:meth:`public_after`), so the events need not wait for that copy.
        An error it raises is logged, not raised: the entries are recorded by then.
        """
        for kind, _, _ in entries:
            if kind not in INPUT_KINDS:
                raise JournalError(f"unknown input kind {kind!r} (one of {', '.join(INPUT_KINDS)})")
        now = time.time()
        table = self.table
        with self._lock:
            self._check_open()
            rows: list[list[tuple[int, str, float, str]]] = []
            seq = self._last_seq_locked()
            with self._transaction():
                for kind, payload, events in entries:
                    stored, seq = self._insert(kind, payload, events, now, seq)
                    rows.append(stored)
            if self._writer:
                self._last_seq = seq
                self._recent.extend((s, public_body(s, table, t, at, text))
                                    for batch in rows for s, t, at, text in batch)
            if self._checkpointer is not None:
                self._checkpointer.committed()  # only sets an event: cheap under the lock
        if on_commit is not None:
            try:
                on_commit()
            except Exception:
                log.exception("journal: the call after a commit failed")
        return [[{"seq": s, "table": table, "type": t, "time": at, "data": json.loads(text)}
                 for s, t, at, text in batch] for batch in rows]

    def _insert(
        self, kind: str, payload: dict[str, Any], events: list[dict[str, Any]], now: float, seq: int
    ) -> tuple[list[tuple[int, str, float, str]], int]:
        """Insert one input and its events; returns each event's seq, type, time and data text, and the last seq."""
        command_id = payload.get("command_id") if kind in ("command", "new_game", "gm") else None
        cur = self._db.execute(
            "INSERT INTO inputs (table_id, kind, time, payload) VALUES (?, ?, ?, ?)",
            (self.table, kind, now, _dumps(payload)),
        )
        input_id = cur.lastrowid
        if command_id is not None:
            try:
                self._db.execute("INSERT INTO commands VALUES (?, ?, ?)", (self.table, str(command_id), input_id))
            except sqlite3.IntegrityError:
                raise JournalError(f"command id {command_id!r} was already accepted") from None
        stored: list[tuple[int, str, float, str]] = []
        for event in events:
            seq += 1
            at = float(event.get("time", now))
            secret = event.get("secret") or None
            data_text = _dumps(event.get("data") or {})
            self._db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (self.table, seq, input_id, event["type"], at, data_text, event.get("private_to"),
                 _dumps(secret) if secret else None),
            )
            stored.append((seq, event["type"], at, data_text))
        return stored, seq

    def rehearse(self) -> bool:
        """Write a decision's rows as :meth:`record_many` would, then roll them back: nothing is stored.

        The sensor hub calls it (through the referee) just before a window closes, so that SQLite's
        code, its statements and the pages a commit touches are warm when the observation's real
        commit follows (see ``controller/service/service.py``, ``_rehearse``). It never waits for the file's
        lock (another table's writer may hold it: then it does nothing) and never raises.
        Returns whether it ran.
        """
        if not self._writer:
            return False
        with self._lock:
            if self._closed or self.write_problem() is not None:
                return False
            db = self._db
            try:
                db.execute("PRAGMA busy_timeout=0")  # never wait: this is only a rehearsal
                try:
                    db.execute("BEGIN IMMEDIATE")
                finally:
                    db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            except sqlite3.Error:
                return False
            try:
                now = time.time()
                stored, seq = self._insert("observation", {"rehearsal": True, "time": now},
                                           [{"type": "rehearsal", "data": {}}], now, self._last_seq_locked())
                public_body(seq, self.table, stored[0][1], now, stored[0][3])  # the outbox's bytes
            except (sqlite3.Error, JournalError):
                pass  # what the real commit will say, if anything, it says then
            finally:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    log.exception("journal: the rehearsal's rollback failed")
                if db.in_transaction:  # the next decision's BEGIN would fail inside it
                    db.rollback()
            return True

    def begin_run(self, now: float) -> float:
        """When a run of the table that begins at ``now`` (its wall clock) begins, in the order of its runs.

        ``now``, but never at or before the previous run's, which the journal keeps: a run whose
        clock is behind takes the previous run's time and a millisecond (``controller.protocol.status``).
        """
        key = f"run_since:{self.table}"
        with self._lock:
            self._check_open()
            with self._transaction():
                row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
                try:
                    last = float(row[0]) if row is not None else None
                except ValueError:
                    last = None  # not ours (edited by hand): the clock alone, as before there was a record
                since = last + 0.001 if last is not None and math.isfinite(last) and last >= now else now
                self._db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                                 "excluded.value", (key, repr(since)))
        return since

    def mark_published(self, seq: int) -> None:
        """Advance the outbox cursor; it never moves back and never passes ``last_seq()``.

        :class:`JournalError` for a seq past the last event, or a write that fails.
        """
        with self._lock:
            self._check_open()
            last = self._last_seq_locked()
            if seq > last:
                raise JournalError(f"cannot mark seq {seq} published: the last event is {last}")
            with self._writing(), self._transaction():
                self._db.execute(
                    "INSERT INTO outbox VALUES (?, ?) ON CONFLICT (table_id) "
                    "DO UPDATE SET published_seq = max(published_seq, excluded.published_seq)",
                    (self.table, seq),
                )

    # ----- reading --------------------------------------------------------------
    def _query_last_seq(self) -> int:
        row = self._db.execute("SELECT max(seq) FROM events WHERE table_id = ?", (self.table,)).fetchone()
        return int(row[0] or 0)

    def _last_seq_locked(self) -> int:
        return self._last_seq if self._last_seq is not None else self._query_last_seq()

    def last_seq(self) -> int:
        with self._lock:
            self._check_open(touch=self._last_seq is None)
            if self._last_seq is not None:
                return self._last_seq  # the writer's own count (after every decision, from the link)
            with self._reading():
                return self._query_last_seq()

    def published_seq(self) -> int:
        with self._lock, self._reading():
            self._check_open()
            row = self._db.execute("SELECT published_seq FROM outbox WHERE table_id = ?", (self.table,)).fetchone()
            return int(row[0]) if row else 0

    def events_after(self, seq: int, limit: int | None = None) -> list[dict[str, Any]]:
        """Public events with a seq above ``seq``, in order (at most ``limit``)."""
        # each a fresh copy: callers may change what they get
        return [json.loads(body) for _, body in self.public_after(seq, limit)]

    def public_after(self, seq: int, limit: int | None = None) -> list[tuple[int, bytes]]:
        """``(seq, public body)`` of the public events with a seq above ``seq``, in order (at most ``limit``).

        The body is :func:`public_body`: the bytes the link publishes, with the data
        as it was encoded when recorded (the outbox neither decodes nor encodes it).
        """
        with self._lock:
            self._check_open(touch=False)
            recent = self._recent
            if recent and recent[0][0] <= seq + 1:
                # the outbox after a decision: the events it just stored, without a query
                picked: list[tuple[int, bytes]] = []
                for item in reversed(recent):
                    if item[0] <= seq:
                        break
                    picked.append(item)
                picked.reverse()
                return picked if limit is None else picked[:limit]
            self._check_open()
            with self._reading():
                rows = self._db.execute(
                    "SELECT seq, type, time, data FROM events WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                    (self.table, seq, -1 if limit is None else limit),
                ).fetchall()
        return [(s, public_body(s, self.table, t, at, d)) for s, t, at, d in rows]

    def inputs(self, start_id: int = 0) -> Iterator[dict[str, Any]]:
        """Every recorded input in order: ``{"id", "kind", "time", "payload", "events"}``.

        ``start_id``: begin with the input of that id (from :meth:`last_input_id`).
        ``events`` are the full stored events (private parts included), for
        verification. Read in pages so a long journal does not sit in memory.
        """
        last_id = max(0, start_id - 1)
        while True:
            with self._lock, self._reading():
                self._check_open()
                rows = self._db.execute(
                    "SELECT id, kind, time, payload FROM inputs WHERE table_id = ? AND id > ? ORDER BY id LIMIT 500",
                    (self.table, last_id),
                ).fetchall()
                if not rows:
                    return
                first, last = rows[0][0], rows[-1][0]
                event_rows = self._db.execute(
                    "SELECT input_id, seq, type, time, data, private_to, secret FROM events "
                    "WHERE table_id = ? AND input_id BETWEEN ? AND ? ORDER BY seq",
                    (self.table, first, last),
                ).fetchall()
            by_input: dict[int, list[dict[str, Any]]] = {}
            for input_id, seq, etype, at, data, private_to, secret in event_rows:
                try:
                    event = {"seq": seq, "table": self.table, "type": etype, "time": at, "data": json.loads(data),
                             "private_to": private_to, "secret": json.loads(secret) if secret else {}}
                except (ValueError, TypeError, RecursionError) as exc:  # RecursionError: nested too deep
                    raise JournalError(f"journal {self.path}: event {seq} of input {input_id} cannot be read: "
                                       f"{exc}") from None
                by_input.setdefault(input_id, []).append(event)
            for input_id, kind, at, payload in rows:
                try:
                    decoded = json.loads(payload)
                except (ValueError, TypeError, RecursionError) as exc:
                    raise JournalError(f"journal {self.path}: input {input_id} cannot be read: {exc}") from None
                yield {"id": input_id, "kind": kind, "time": at, "payload": decoded,
                       "events": by_input.get(input_id, [])}
            last_id = rows[-1][0]

    def input_ids(self, kind: str) -> list[tuple[int, float]]:
        """``(id, time)`` of every input of ``kind`` of this table, in order (the history's game list)."""
        with self._lock, self._reading():
            self._check_open()
            rows = self._db.execute(
                "SELECT id, time FROM inputs WHERE table_id = ? AND kind = ? ORDER BY id", (self.table, kind)
            ).fetchall()
        return [(int(i), float(t)) for i, t in rows]

    def last_input_id(self, kind: str | None = None) -> int | None:
        """The id of the table's latest input, of ``kind`` if given (``None``: there is none)."""
        with self._lock, self._reading():
            self._check_open()
            if kind is None:
                row = self._db.execute("SELECT max(id) FROM inputs WHERE table_id = ?", (self.table,)).fetchone()
            else:
                row = self._db.execute(
                    "SELECT max(id) FROM inputs WHERE table_id = ? AND kind = ?", (self.table, kind)
                ).fetchone()
        return int(row[0]) if row[0] is not None else None

    def has_command(self, command_id: str) -> bool:
        with self._lock, self._reading():
            self._check_open()
            row = self._db.execute(
                "SELECT 1 FROM commands WHERE table_id = ? AND command_id = ?", (self.table, str(command_id))
            ).fetchone()
        return row is not None

    def use_command(self, command_id: str) -> None:
        """Write down, durably, that a signed command with this id came (any command, any outcome).

        Called before the command runs, so a captured command is refused after a
        restart whether it was accepted, refused or never judged. ``commands``
        (below ``record``) keeps which accepted input an id became; this table
        only says the id is spent. A new table in schema 1: ``CREATE TABLE IF
        NOT EXISTS`` adds it to an older journal at its next open. A write that fails raises
        :class:`JournalError`.
        """
        with self._lock:
            self._check_open()
            with self._writing(), self._transaction():
                self._db.execute("INSERT OR IGNORE INTO used_commands VALUES (?, ?, ?)",
                                 (self.table, str(command_id), time.time()))

    def command_used(self, command_id: str) -> bool:
        """Whether a command with this id was ever taken: accepted (``commands``) or written by :meth:`use_command`."""
        with self._lock, self._reading():
            self._check_open()
            row = self._db.execute(
                "SELECT 1 FROM used_commands WHERE table_id = ? AND command_id = ? "
                "UNION ALL SELECT 1 FROM commands WHERE table_id = ? AND command_id = ? LIMIT 1",
                (self.table, str(command_id), self.table, str(command_id)),
            ).fetchone()
        return row is not None

    # ----- sensor statistics (not game input: never replayed) --------------------------------
    def add_sensor_counts(self, game_id: str, bounces: Mapping[str, int]) -> None:
        """Add ``bounces`` (sensor -> bounces counted since the last call) to game ``game_id``'s totals.

        Statistics for the history's sensor table (``controller/store/bounce_ledger.py``), written
        now and then, never on a decision's path. A new table in schema 1, like ``used_commands``.
        """
        rows = [(self.table, str(game_id), str(sensor), int(n)) for sensor, n in sorted(bounces.items()) if n > 0]
        if not rows:
            return
        with self._lock:
            self._check_open()
            with self._transaction():
                self._db.executemany(
                    "INSERT INTO sensor_counts VALUES (?, ?, ?, ?) ON CONFLICT (table_id, game_id, sensor) "
                    "DO UPDATE SET bounces = bounces + excluded.bounces", rows)

    def sensor_counts(self) -> list[tuple[str, str, int]]:
        """``(game_id, sensor, bounces)`` for every game and sensor of this table with bounces journalled."""
        with self._lock, self._reading():
            self._check_open()
            try:
                rows = self._db.execute(
                    "SELECT game_id, sensor, bounces FROM sensor_counts WHERE table_id = ? ORDER BY game_id, sensor",
                    (self.table,)).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []  # a journal no controller of this version has opened yet: none counted
                raise
        return [(str(g), str(s), int(n)) for g, s, n in rows]

    def integrity_check(self) -> str:
        """``"ok"``, or SQLite's description of what is damaged, plus any seq gap."""
        with self._lock:
            self._check_open()
            try:
                rows = self._db.execute("PRAGMA integrity_check").fetchall()
                gap = self._db.execute(
                    "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE table_id = ?", (self.table,)
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                return str(exc)
        message = "; ".join(str(r[0]) for r in rows)
        if message != "ok":
            return message
        if gap[0] != gap[1]:
            return f"events of table {self.table!r} have a seq gap: {gap[0]} events up to seq {gap[1]}"
        return "ok"

    def tables(self) -> list[str]:
        """Every table id this file holds inputs for (one file may serve several tables)."""
        with self._lock, self._reading():
            self._check_open()
            rows = self._db.execute("SELECT DISTINCT table_id FROM inputs ORDER BY table_id").fetchall()
        return [r[0] for r in rows]
