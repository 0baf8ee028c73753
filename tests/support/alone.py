"""Tests that load the whole machine run alone: the other worker waits, and starts none beside them.

The attack tests (``pytest.mark.alone``) open 1,100 sockets or keep a panel at full CPU with a flood of
requests, on a 2-core machine. Beside them a browser test on the other worker, with its waits of a few
seconds, once timed out: its page could not load in time, which said nothing about the page. Every test
takes a shared lock for the run, an ``alone`` test the exclusive one; an ``alone`` test waiting for it
first closes a turnstile, so that the other worker finishes the test it is in and starts no other.
Without xdist (one process) there is no one to wait for, and nothing is locked.

An ``alone`` test followed on its worker by another (they share an xdist group) keeps both locks for it:
let go between them, the other worker started a test, and the next one waited for it to end, 26 s in all
over one run of the suite, with one of the two cores idle.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# The turnstile and the lock an ``alone`` test kept for the one after it on this worker.
_kept: tuple[IO[str], IO[str]] | None = None


@contextmanager
def run_alone(alone: bool, keep: bool = False) -> Iterator[None]:
    """Run the test inside alone (``alone``) or beside others; ``keep``: an ``alone`` test whose next test on
    this worker is ``alone`` too keeps the machine for it."""
    global _kept
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        yield
        return
    if alone and _kept is not None:
        turnstile, lock = _kept
        _kept = None
    else:
        base = Path(tempfile.gettempdir()) / f"gravekeeper-tests-{run}"
        turnstile, lock = open(f"{base}.turnstile", "a"), open(f"{base}.lock", "a")  # noqa: SIM115 - kept
        if alone:
            fcntl.flock(turnstile, fcntl.LOCK_EX)  # no test starts now; the one running ends
            fcntl.flock(lock, fcntl.LOCK_EX)
        else:
            fcntl.flock(turnstile, fcntl.LOCK_SH)  # waits while an alone test waits or runs
            fcntl.flock(lock, fcntl.LOCK_SH)
            fcntl.flock(turnstile, fcntl.LOCK_UN)
    try:
        yield
    finally:
        if alone and keep:
            _kept = (turnstile, lock)
        else:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
            lock.close()
            turnstile.close()
