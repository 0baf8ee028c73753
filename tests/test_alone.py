"""The suite's own rule that an ``alone`` test has the machine to itself (tests/support/alone.py)."""

from __future__ import annotations

import fcntl
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.support.alone import run_alone


def _others_may_start(run: str) -> bool:
    """Whether a test beside could start now: the shared lock, taken from a file of its own, without waiting."""
    base = Path(tempfile.gettempdir()) / f"gravekeeper-tests-{run}"
    with open(f"{base}.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(lock, fcntl.LOCK_UN)
        return True


def test_alone_tests_in_a_row_keep_the_machine_between_them_and_give_it_back_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = f"unit-{uuid.uuid4().hex}"  # a run of its own: this test holds the suite's shared lock itself
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", run)
    with run_alone(True, keep=True):
        assert not _others_may_start(run)
    assert not _others_may_start(run)  # between two alone tests: no test beside starts
    with run_alone(True, keep=False):
        assert not _others_may_start(run)
    assert _others_may_start(run)  # after the last one
    with run_alone(False):
        assert _others_may_start(run)  # tests beside each other share
    for suffix in (".lock", ".turnstile"):
        Path(tempfile.gettempdir(), f"gravekeeper-tests-{run}{suffix}").unlink()
