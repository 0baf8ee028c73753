"""A journal that can no longer be written, mid-game and at start: refused in words, never a dead controller.

SQLite keeps the WAL index (the ``-shm`` file) mapped in memory; writing a page of it
once the file may no longer change is SIGBUS, which killed the controller without a
line (controller/store/journal.py). On a Pi the controller runs as its own user, and
a file made read-only is refused to it; these tests run as root in CI, where the mode
bits stop nothing, so as root the files are made immutable (``chattr +i``), which the
kernel refuses to everyone, root included: the same refusal a user sees.
"""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from tests.controller.cli.test_run import TOKEN, write_config
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.run import RunProcess, run_cli

FILES = ("", "-wal", "-shm")


def _set(paths: list[Path], read_only: bool) -> None:
    if os.geteuid() == 0:
        for path in paths:
            subprocess.run(["chattr", "+i" if read_only else "-i", str(path)], check=True, capture_output=True)
    else:
        for path in paths:
            path.chmod(0o444 if read_only else 0o644)
    for path in paths:  # the refusal the controller will meet, whoever runs the test
        assert os.access(path, os.W_OK) is not read_only, path


@contextmanager
def read_only(journal: Path) -> Iterator[None]:
    paths = [Path(f"{journal}{suffix}") for suffix in FILES if Path(f"{journal}{suffix}").exists()]
    _set(paths, True)
    try:
        yield
    finally:
        _set(paths, False)  # else pytest could not remove tmp_path either


@contextmanager
def running(mosquitto: Broker, tmp_path: Path, table: str) -> Iterator[tuple[RunProcess, Commander, Subscriber, Path]]:
    """``gravekeeper run`` online on a simulated board, a move taken, and a reader of every topic of its table."""
    cfg = write_config(tmp_path, table)
    with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/#",)) as sub:
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
        try:
            run.wait_line("online")
            cmd.ok("resync", {})
            yield run, cmd, sub, tmp_path / f"{table}.journal"
        finally:
            cmd.close()
            run.close()


def refused_then_taken_again(run: RunProcess, cmd: Commander, sub: Subscriber, journal: Path, said: str,
                             refusal: str, fault: Callable[[], AbstractContextManager[None]]) -> None:
    """Under ``fault`` each move is refused (``refusal`` in its words) and the health warns (``said``), with the
    controller alive; after it, a move is taken, the warning goes, and the log said both."""
    health_topic = f"gravekeeper/{journal.stem}/health"
    with fault():
        for _ in range(3):  # each one would touch the mapped -shm file
            reply = cmd.call("resync", {})
            assert reply["ok"] is False and refusal in reply["error"], reply
        health = sub.wait_latest(health_topic, lambda h: any(said in w for w in h["warnings"]))
        assert any(str(journal) in w and "moves are refused" in w for w in health["warnings"]), health
        assert run.proc.poll() is None, f"the controller died: {run.proc.returncode}"
    reply = cmd.call("resync", {})
    assert reply["ok"] is True, reply
    sub.wait_latest(health_topic, lambda h: not any(said in w for w in h["warnings"]))
    assert run.terminate() == 0
    stderr = run.stderr_tail()
    assert f"the journal {journal} {said}" in stderr, stderr
    assert "can be written again" in stderr, stderr


def test_a_journal_made_read_only_mid_game_refuses_moves_in_words_and_resumes(
    mosquitto: Broker, tmp_path: Path
) -> None:
    with running(mosquitto, tmp_path, "rn-ro") as (run, cmd, sub, journal):
        assert {Path(f"{journal}{s}").exists() for s in FILES} == {True}
        refused_then_taken_again(run, cmd, sub, journal, "is read-only", "is read-only",
                                 lambda: read_only(journal))


def test_a_start_on_a_read_only_journal_exits_2_with_one_line(mosquitto: Broker, tmp_path: Path) -> None:
    table = "rn-ro-start"
    cfg = write_config(tmp_path, table)
    journal = tmp_path / f"{table}.journal"
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        assert run.terminate() == 0
    finally:
        run.close()
    with read_only(journal):
        result = run_cli("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    assert result.returncode == 2, result
    assert "online" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gravekeeper run: journal.path: ") and "read-only" in lines[0], lines[0]


def test_the_self_test_calls_a_read_only_journal_so_beside_its_running_writer(tmp_path: Path) -> None:
    from controller.service.selftest import check_journal
    from controller.store.journal import Journal

    path = tmp_path / "st.journal"
    with Journal(path, table="st") as journal:  # the controller's own journal, open in this process
        journal.record("observation", {"n": 1}, [{"type": "x", "data": {}}])
        with read_only(path):
            writable, integrity = check_journal(path, "st")
            assert journal.write_problem() is not None
        assert writable.status.value == "fail" and "is read-only" in writable.message, writable
        assert integrity.status.value == "skip"
        journal.record("observation", {"n": 2}, [{"type": "x", "data": {}}])  # and on it goes


def test_a_journal_whose_writes_fail_mid_game_says_so_in_the_health_and_the_log_and_resumes(
    mosquitto: Broker, tmp_path: Path
) -> None:
    """A full SD card: every write fails, though every file may still be written. The moves were refused, but
    nothing said why in the health or the log. The controller's own file-size limit, lowered from outside
    (``prlimit``), makes every write past the files' first bytes fail in the kernel (EFBIG; CPython ignores
    SIGXFSZ), as a full disk does, without a mount; raised again, the table takes moves again."""
    with running(mosquitto, tmp_path, "rn-full") as (run, cmd, sub, journal):

        @contextmanager
        def no_room() -> Iterator[None]:
            limits = resource.prlimit(run.proc.pid, resource.RLIMIT_FSIZE)
            resource.prlimit(run.proc.pid, resource.RLIMIT_FSIZE, (1, limits[1]))
            try:
                yield
            finally:
                resource.prlimit(run.proc.pid, resource.RLIMIT_FSIZE, limits)

        refused_then_taken_again(run, cmd, sub, journal, "could not be written", "the journal cannot be written",
                                 no_room)
