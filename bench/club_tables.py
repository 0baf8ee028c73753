"""The club bench's tables: N real Services on simulated boards, and the players who move them.

Used two ways by ``bench_club.py``: in its own process (``--procs 0``, every table
in one Python process), or as a worker process of its own holding a share of the
tables (``--procs K``), the way a club has one Raspberry Pi per table: then one
process's garbage collection and GIL hand-overs delay only its own tables.

As a worker: ``python bench/club_tables.py '<json settings>'`` prints ``ready``
once every table is online, then answers ``go`` (players start), ``mark`` (the
measuring window opens) and ``end`` (it closes: one JSON line of figures, then
the tables stop and the process exits), one line each on stdin.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.config import load_config  # noqa: E402 - the script puts its folders on sys.path first
from controller.mqtt.broker import BrokerChoice  # noqa: E402 - the script puts its folders on sys.path first
from controller.service.service import Service  # noqa: E402 - the script puts its folders on sys.path first

sys.path.insert(0, str(ROOT / "bench"))
from club_stages import stamp_service  # noqa: E402 - the script puts its folders on sys.path first

TOKEN = "bench-club-token"


class Players:
    """One thread moves every table's launcher at a human pace, with bursts."""

    def __init__(self, services: list[Service], pace: float, seed: int = 1) -> None:
        self.services, self.pace = services, pace
        self.rnd = random.Random(seed)
        self.flips = 0
        self.stop = threading.Event()
        self.launched = [False] * len(services)
        self.thread = threading.Thread(target=self._run, name="bench-players", daemon=True)

    def _run(self) -> None:
        now = time.monotonic()
        due = [now + self.rnd.expovariate(1 / self.pace) for _ in self.services]
        burst = [0] * len(self.services)
        while not self.stop.is_set():
            i = min(range(len(due)), key=due.__getitem__)
            if self.stop.wait(max(0.0, due[i] - time.monotonic())):
                return
            svc = self.services[i]
            self.launched[i] = not self.launched[i]
            try:
                svc.hub.simulate("launcher", "launched" if self.launched[i] else "armed", bounce_ms=15)
                self.flips += 1
            except (ValueError, AttributeError):
                pass  # a table stopping under us
            if burst[i] == 0 and self.rnd.random() < 0.2:
                burst[i] = 2
            if burst[i] > 0:
                burst[i] -= 1
                due[i] = time.monotonic() + 0.3
            else:
                due[i] = time.monotonic() + self.rnd.expovariate(1 / self.pace)


class GcPauses:
    """The garbage collector's pauses in this process, in ms."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.starts: list[float] = []  # on the monotonic clock, to match slow events with a pause
        self._t0 = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
            self.starts.append(time.monotonic())
        else:
            self.ms.append((time.perf_counter() - self._t0) * 1000)

    def close(self) -> None:
        if self._cb in gc.callbacks:
            gc.callbacks.remove(self._cb)


class LocalTables:
    """``tables`` as Services in this process; ``start``, ``go``, ``mark``, then ``end`` for the figures."""

    def __init__(self, tables: list[str], bport: int, tmp: Path, pace: float, seed: int = 1,
                 freeze_gc: bool = False, stages: bool = False) -> None:
        self.tables, self.bport, self.tmp, self.pace, self.seed = tables, bport, tmp, pace, seed
        self.freeze_gc, self.stages = freeze_gc, stages
        self.stamps: dict[str, dict[int, dict[str, Any]]] = {}
        self.me = psutil.Process()
        self.services: list[Service] = []

    def start(self) -> None:
        self.rss0 = self.me.memory_info().rss
        for t in self.tables:
            cfg = load_config(None, overrides={
                "simulate": True, "table.id": t, "table.token": TOKEN, "table.game": "terror", "table.seed": 7,
                "journal.path": str(self.tmp / f"{t}.journal"), "mqtt.url": f"mqtt://127.0.0.1:{self.bport}",
                "referee.mismatch_grace_ms": 0, "panel.enabled": False})
            svc = Service(cfg, BrokerChoice("127.0.0.1", self.bport, False))
            svc.start()
            self.services.append(svc)
        for t, svc in zip(self.tables, self.services, strict=False):
            if not svc.wait_online(30):
                raise SystemExit("a table did not come online")
            if self.stages:
                self.stamps[t] = stamp_service(svc)
        self.rss_tables = self.me.memory_info().rss
        self.players = Players(self.services, self.pace, self.seed)

    def go(self) -> None:
        self.players.thread.start()
        if self.freeze_gc:
            gc.collect()
            gc.freeze()  # the tables' start-up objects: every later full collection skips them

    def mark(self) -> None:
        self.pauses = GcPauses()
        self.cpu0, self.flips0 = self.me.cpu_times(), self.players.flips

    def end(self) -> dict[str, Any]:
        cpu1 = self.me.cpu_times()
        self.pauses.close()
        out = {
            "cpu_s": (cpu1.user - self.cpu0.user) + (cpu1.system - self.cpu0.system),
            "flips": self.players.flips - self.flips0, "gc_ms": self.pauses.ms,
            "rss_tables": self.rss_tables - self.rss0, "rss_peak": self.me.memory_info().rss,
            "threads": self.me.num_threads(),
            "gc_pauses": list(zip(self.pauses.starts, self.pauses.ms, strict=False)),
            "stamps": {t: {str(seq): st for seq, st in by_seq.items()} for t, by_seq in self.stamps.items()},
        }
        self.players.stop.set()
        self.players.thread.join(5)
        for svc in self.services:
            svc.stop()
        return out


def worker(settings: dict[str, Any]) -> int:
    if settings.get("switch_ms") is not None:
        sys.setswitchinterval(settings["switch_ms"] / 1000)
    group = LocalTables(settings["tables"], settings["bport"], Path(settings["tmp"]), settings["pace"],
                        settings["seed"], settings["freeze_gc"], settings.get("stages", False))
    group.start()
    print("ready", flush=True)
    for line in sys.stdin:
        word = line.strip()
        if word == "go":
            group.go()
        elif word == "mark":
            group.mark()
        elif word == "end":
            print(json.dumps(group.end()), flush=True)
            return 0
    return 1


if __name__ == "__main__":
    raise SystemExit(worker(json.loads(sys.argv[1])))
