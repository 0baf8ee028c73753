"""A referee decision: validate, apply, events; with and without the journal write.

Plays seeded games of Terror and Superstition through the referee as a table
would: commands (rolls, pawn moves, cards) and sensor observations (the rolled
tomb sliding, pegs pulled, traps springing and being reset). Every call into
the referee is one decision and is timed on its own:

* ``core``: the decision alone (the checks a live command gets, then the
  engine's apply, the board comparison and the events), no I/O;
* ``journal``: the whole ``Referee.act`` / ``Referee.observe`` call, which also
  commits the decision to SQLite (WAL, synchronous=FULL, so an fsync).

Choosing the next action (legal-move enumeration) happens outside the timed
part. Usage: ``python bench/bench_referee.py [--decisions N] [--dir PATH]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.config import load_config
from controller.games.base import Action
from controller.referee.live import Referee
from controller.store.journal import Journal
from hardware.observation import ALL_SENSORS, Observation

TARGET_MS = 1.0
REST = {s: ("cocked" if s.endswith("sprung") else "in") for s in ALL_SENSORS if s.startswith("trap.")}
REST.update({"tomb.mummy": "middle", "tomb.monster": "middle", "tomb.wolf": "middle", "launcher": "armed"})


class Timed:
    """Wraps the referee's decision methods and keeps each call's duration."""

    def __init__(self, ref: Referee, core_only: bool) -> None:
        self.ref, self.core_only = ref, core_only
        self.samples: list[float] = []  # wall ms
        self.cpu: list[float] = []  # this thread's CPU ms: what the decision costs, without preemption
        self.mix: Counter[str] = Counter()
        self.restore: tuple[int, float] | None = None  # (inputs in the journal, ms to restart on it)
        if core_only:
            # measure the core by keeping the journal out of the way: record_many() returns at once
            ref.journal.record_many = (  # type: ignore[method-assign]
                lambda entries, on_commit=None: [events for _, _, events in entries]
            )

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start, cpu_start = time.perf_counter_ns(), time.thread_time_ns()
        out = fn(*args, **kwargs)
        self.cpu.append((time.thread_time_ns() - cpu_start) / 1e6)
        self.samples.append((time.perf_counter_ns() - start) / 1e6)
        self.mix[fn.__name__] += 1
        return out


def board_step(ref: Referee, rnd: random.Random) -> Observation | None:
    """The observation a careful player makes next, or None when the board has nothing to do."""
    expects = ref.state()["expects"]
    if not expects:
        return None
    exp = expects[0]
    if exp["accepts"]:
        sensor = rnd.choice(sorted(exp["accepts"]))
        value = rnd.choice(sorted(exp["accepts"][sensor]))
        if exp["kind"] == "trap_outcome" and rnd.random() < 0.5:
            return None  # not sprung: the window runs out
        return Observation(sensor, value, 0.0, 0.0, "sim")
    for sensor, value in sorted(exp["requires"].items()):
        if ref.core.sensors.get(sensor) != value:
            return Observation(sensor, value, 0.0, 0.0, "sim")
    return None


def play(ref: Referee, clock: list[float], timed: Timed, game: str, decisions: int, seed: int) -> None:
    rnd = random.Random(seed)
    ref.reconcile(REST)
    timed.call(ref.new_game, game, ["Ann", "Bo", "Cy"], seed=seed)
    while len(timed.samples) < decisions:
        if ref.game is None or ref.game.is_over:
            ref.reconcile(REST)
            timed.call(ref.new_game, game, ["Ann", "Bo", "Cy"], seed=rnd.randrange(1 << 30))
            continue
        observation = board_step(ref, rnd)
        if observation is not None:
            timed.call(ref.observe, observation)
            continue
        if ref.state()["expects"]:  # an outcome window: let it run out
            clock[0] += 120.0
            timed.call(ref.tick)
            continue
        legal = ref.state()["legal"]
        if not legal:
            raise RuntimeError(f"{game}: nothing to do: {ref.state()['waiting_for']}")
        timed.call(ref.act, Action.from_json(rnd.choice(legal)))


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(game: str, decisions: int, core_only: bool, folder: Path) -> Timed:
    path = folder / f"{game}-{'core' if core_only else 'journal'}.journal"
    config = load_config(overrides={"journal.path": str(path), "table.token": "bench"})
    clock = [0.0]
    with Journal(path, table="bench") as journal:
        ref = Referee(journal, config, clock=lambda: clock[0])
        timed = Timed(ref, core_only)
        play(ref, clock, timed, game, decisions, seed=17)
    if not core_only:
        # a restart replays from the latest new game: time it on the journal just written
        with Journal(path, table="bench") as journal:
            inputs = sum(1 for _ in journal.inputs())
            start = time.perf_counter()
            Referee(journal, config, clock=lambda: clock[0])
            timed.restore = (inputs, (time.perf_counter() - start) * 1000)
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--games", nargs="+", default=["terror", "superstition"], choices=["terror", "superstition"])
    parser.add_argument("--dir", type=Path, default=None, help="where the journals go (default: a temp folder)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-referee-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, journals in {folder}")
    print(f"# load average before: {os.getloadavg()[0]:.2f}")
    print("| game | decision | n | p50 ms | p99 ms | p99 CPU ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    mixes: list[str] = []
    restores: list[str] = []
    for game in args.games:
        for core_only in (True, False):
            timed = run(game, args.decisions, core_only, folder)
            wall, cpu = timed.samples, timed.cpu
            mixes.append(f"{game}: " + ", ".join(f"{n} {k}" for k, n in sorted(timed.mix.items())))
            if timed.restore is not None:
                restores.append(f"{game}: restart on a journal of {timed.restore[0]} inputs: {timed.restore[1]:.1f} ms")
            failed |= core_only and pct(cpu, 0.99) > TARGET_MS  # the target is the decision; fsync is beside it
            label = "validate + apply + events" if core_only else "the same + journal commit (fsync)"
            print(f"| {game} | {label} | {len(wall)} | {statistics.median(wall):.3f} | {pct(wall, 0.99):.3f} | "
                  f"{pct(cpu, 0.99):.3f} | {max(wall):.3f} |")
    print(f"# load average after: {os.getloadavg()[0]:.2f}")
    print()
    for line in dict.fromkeys(mixes):
        print(f"- calls timed, {line}")
    for line in restores:
        print(f"- {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
