"""``kill -9`` mid-game: the restarted referee has the identical state and every event once.

A child process plays a fixed game through the real Referee and Journal and
dies at a chosen point: right after a decision (``os._exit``), in the middle of
a decision's transaction, or from a ``SIGKILL`` sent by this test while it
plays. A reference run of the same script in this process gives the state
after every decision; the restarted referee must match the reference at the
number of inputs the journal kept.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Action
from controller.referee.live import Referee
from controller.store.journal import Journal
from tests.controller.referee.test_fakegame import REST, Clock, make_referee, obs

ROOT = Path(__file__).resolve().parents[3]


def script(ref: Referee, clock: Clock, rounds: int) -> Iterator[None]:
    """A deterministic game, yielding after every call into the referee."""
    for round_no in range(rounds):
        ref.reconcile(REST)
        yield
        ref.new_game("fakeboard", ["Ann", "Bo"], seed=11 + round_no)
        yield
        game = ref.game
        assert game is not None
        for _ in range(4):
            ref.act(Action("roll", game.current_player))
            yield
            rolled = game.to_json()["rolled"]
            at = ref.core.sensors[f"tomb.{rolled}"]
            ref.observe(obs(f"tomb.{rolled}", "moving"))
            yield
            ref.observe(obs(f"tomb.{rolled}", "end_a" if at == "middle" else "middle"))
            yield
        seat = game.current_player
        ref.act(Action("challenge", seat))
        yield
        ref.observe(obs("trap.ladder.peg_b", "pulled"))
        yield
        clock.advance(1000)
        ref.tick()  # sneaked by
        yield
        ref.observe(obs("trap.ladder.peg_b", "in"))  # reset
        yield
        ref.observe(obs("launcher", "launched"))  # a foul
        yield
        clock.advance(300)
        ref.tick()
        yield
        ref.act(Action("pass", game.current_player))  # refused: play holds
        yield
        ref.observe(obs("launcher", "armed"))
        yield
        ref.act(Action("attempt", game.current_player))
        yield
        ref.observe(obs("launcher", "launched"))  # a hit: game over
        yield


def comparable(journal: Journal) -> list[tuple[int, str, Any]]:
    """Every event as (seq, type, data), without the game id (random for every new game)."""
    return [
        (e["seq"], e["type"], {k: v for k, v in e["data"].items() if k != "game_id"})
        for e in journal.events_after(0)
    ]


def reference(tmp: Path, rounds: int) -> tuple[dict[int, tuple[Any, int]], list[tuple[int, str, Any]]]:
    """Input count -> (game state, last seq) after each step, and every event of the run."""
    clock = Clock()
    ref = make_referee(tmp, clock)
    states: dict[int, tuple[Any, int]] = {0: (None, 0)}
    count = 0
    for _ in script(ref, clock, rounds):
        count = sum(1 for _ in ref.journal.inputs())
        states[count] = (ref.game.to_json() if ref.game else None, ref.journal.last_seq())
    events = comparable(ref.journal)
    ref.journal.close()
    return states, events


CHILD = r"""
import os, sys
from pathlib import Path
from tests.controller.store.test_journal_kill import script
from tests.controller.referee.test_fakegame import Clock, make_referee

tmp, mode, point, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
clock = Clock()
ref = make_referee(tmp, clock)

if mode == "mid_transaction":
    class ExitingDb:
        def __init__(self, db):
            self.db, self.n = db, 0
        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO events"):
                self.n += 1
                if self.n == point:
                    os._exit(9)  # inside the transaction, between two event rows
            return self.db.execute(sql, *args)
        def __getattr__(self, name):
            return getattr(self.db, name)
    ref.journal._db = ExitingDb(ref.journal._db)

for step, _ in enumerate(script(ref, clock, rounds), start=1):
    print(f"step {step}", flush=True)
    if mode == "after_step" and step == point:
        os._exit(9)
print("done", flush=True)
"""


def run_child(tmp: Path, mode: str, point: int, rounds: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp), mode, str(point), str(rounds)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def check_restart(
    tmp: Path, states: dict[int, tuple[Any, int]], events: list[tuple[int, str, Any]]
) -> tuple[int, int]:
    """Restart on the child's journal and compare with the reference; returns (inputs, last seq) kept."""
    clock = Clock()
    restarted = make_referee(tmp, clock)
    journal = restarted.journal
    assert journal.integrity_check() == "ok"
    count = sum(1 for _ in journal.inputs())
    assert count in states, f"{count} inputs is not a decision boundary"
    game_state, seq = states[count]
    assert (restarted.game.to_json() if restarted.game else None) == game_state
    assert journal.last_seq() == seq
    assert comparable(journal) == events[:seq]  # nothing lost, nothing doubled, in order
    # the restarted referee goes on from there with the next seq
    out = restarted.reconcile(REST)
    assert out.ok and all(e["seq"] > seq for e in out.events)
    journal.close()
    return count, seq


Reference = tuple[dict[int, tuple[Any, int]], list[tuple[int, str, Any]]]


@pytest.fixture(scope="module")
def ref_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    # the reference only needs the logic: on tmpfs when there is one (the children write to the real disk)
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path_factory.mktemp("reference")
    yield reference(folder, rounds=6)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("point", [2, 9, 17, 24])
def test_exit_right_after_a_decision(tmp_path: Path, ref_run: Any, point: int) -> None:
    child = run_child(tmp_path, "after_step", point, rounds=2)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 9, err
    assert out.split()[-1] == str(point)
    check_restart(tmp_path, *ref_run)


@pytest.mark.parametrize("point", [1, 4, 11])
def test_exit_inside_a_decisions_transaction(tmp_path: Path, ref_run: Any, point: int) -> None:
    child = run_child(tmp_path, "mid_transaction", point, rounds=2)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 9, err
    _, seq = check_restart(tmp_path, *ref_run)
    # the half-written decision is gone entirely: the journal ends at the last whole decision before it
    assert seq == max(s for _, s in ref_run[0].values() if s < point)


@pytest.mark.parametrize("after", [5, 40])
def test_sigkill_while_playing(tmp_path: Path, ref_run: Any, after: int) -> None:
    child = run_child(tmp_path, "play", 0, rounds=6)
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == f"step {after}":
            os.kill(child.pid, signal.SIGKILL)
            break
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    count, _ = check_restart(tmp_path, *ref_run)
    assert count >= after - 6  # at least the decisions reported before the kill (some steps record nothing)
