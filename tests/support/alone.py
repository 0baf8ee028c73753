"""Tests that load the whole machine run alone: the other worker waits, and starts none beside them.

The attack tests (``pytest.mark.alone``) open 1,100 sockets or keep a panel at full CPU with a flood of
requests, on a 2-core machine. Beside them a browser test on the other worker, with its waits of a few
seconds, once timed out: its page could not load in time, which said nothing about the page. Every test
takes a shared lock for the run, an ``alone`` test the exclusive one; an ``alone`` test waiting for it
first closes a turnstile, so that the other worker finishes the test it is in and starts no other.
Without xdist (one process) there is no one to wait for, and nothing is locked.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def run_alone(alone: bool) -> Iterator[None]:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        yield
        return
    base = Path(tempfile.gettempdir()) / f"gravekeeper-tests-{run}"
    with open(f"{base}.turnstile", "a") as turnstile, open(f"{base}.lock", "a") as lock:
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
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
