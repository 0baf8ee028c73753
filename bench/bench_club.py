"""A club night on one Mosquitto: N tables, each a real Service with a simulated board, in one process.

Runs the one-table case and the N-table case (default 50) in one run, on the
same broker and the same panel, so the figures compare side by side:

* each table plays Terror at a human pace: a move (the Headless Ghost's
  launcher flipped: a foul launch, then its recovery, each an event) every
  few seconds on average (exponential gaps, mean ``--pace`` s), with bursts
  (one move in five is followed by two more 0.3 s apart), and every flip goes
  through the debouncer with a 15 ms contact bounce (sensor chatter);
* an outside subscriber on ``gravekeeper/#`` (a process of its own) times
  every event from the table's decision to its arrival and counts messages;
* the club panel (``gravekeeper panel``, its own process) serves ``--phones``
  phones per open table on the table's stream, plus one club list; a probe
  process times every event from decision to the phone. The panel subscribes
  to a table's traffic only while a page of it is open (``web_panel/interest.py``):
  ``--open K`` opens the first K tables' pages only (default: every table), so
  the SSE figures are those of tables whose page is open;
* the broker's CPU, this process's CPU (the controllers) and its memory
  growth per table are read over the same window.

Usage: ``python bench/bench_club.py [--tables N] [--seconds S] [--one-seconds S] [--pace S] [--phones K]
[--open K]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.broker import BrokerChoice  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.service import Service  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from bench_sse import free_port, wait_port  # noqa: E402 - the same helpers as the one-table SSE bench

TOKEN = "bench-club-token"
PROBES = ROOT / "bench" / "club_probes.py"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


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
    """The garbage collector's pauses in this process (it holds every table), in ms."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self._t0 = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.ms.append((time.perf_counter() - self._t0) * 1000)

    def close(self) -> None:
        if self._cb in gc.callbacks:
            gc.callbacks.remove(self._cb)


def start_probe(args: list[str]) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, str(PROBES), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=ROOT)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"probe {args[0]} did not start")
    return proc


def finish_probe(proc: subprocess.Popen[str], seconds: float) -> dict[str, Any]:
    out, _ = proc.communicate(timeout=seconds + 60)
    return json.loads(out.strip().splitlines()[-1])


def run_phase(n: int, args: argparse.Namespace, bport: int, hport: int, broker: psutil.Process,
              panel: psutil.Process, tmp: Path) -> dict[str, Any]:
    me = psutil.Process()
    rss0 = me.memory_info().rss
    tables = [f"club-{n}-{i}" for i in range(1, n + 1)]
    services: list[Service] = []
    t_start = time.monotonic()
    for t in tables:
        cfg = load_config(None, overrides={
            "simulate": True, "table.id": t, "table.token": TOKEN, "table.game": "terror", "table.seed": 7,
            "journal.path": str(tmp / f"{t}.journal"), "mqtt.url": f"mqtt://127.0.0.1:{bport}",
            "referee.mismatch_grace_ms": 0, "panel.enabled": False})
        svc = Service(cfg, BrokerChoice("127.0.0.1", bport, False))
        svc.start()
        services.append(svc)
    for svc in services:
        if not svc.wait_online(30):
            raise SystemExit("a table did not come online")
    started_s = time.monotonic() - t_start
    rss_tables = me.memory_info().rss
    players = Players(services, args.pace)
    seconds = args.one_seconds if n == 1 else args.seconds
    sub = start_probe(["mqtt", str(bport), str(seconds)])
    opened = tables if args.open is None else tables[:max(1, min(args.open, n))]
    phones = start_probe(["sse", str(hport), str(seconds), str(args.phones), *opened])
    players.thread.start()
    pauses = GcPauses()
    if args.freeze_gc:
        gc.collect()
        gc.freeze()  # the tables' start-up objects: every later full collection skips them
    time.sleep(5.0)  # warm up: every table has moved before the window opens
    cpu0, b0, p0, t0 = me.cpu_times(), broker.cpu_times(), panel.cpu_times(), time.monotonic()
    flips0 = players.flips
    for probe in (sub, phones):
        assert probe.stdin is not None
        probe.stdin.write("start\n")
        probe.stdin.flush()
    mqtt_out = finish_probe(sub, seconds)
    sse_out = finish_probe(phones, seconds)
    cpu1, b1, p1, t1 = me.cpu_times(), broker.cpu_times(), panel.cpu_times(), time.monotonic()
    flips = players.flips - flips0
    pauses.close()
    rss_peak = me.memory_info().rss
    threads = me.num_threads()
    players.stop.set()
    players.thread.join(5)
    for svc in services:
        svc.stop()
    wall = t1 - t0

    def share(a: Any, b: Any) -> float:
        return 100 * ((b.user - a.user) + (b.system - a.system)) / wall

    msgs = sum(mqtt_out["counts"].values())
    return {
        "tables": n, "open": len(opened), "window_s": round(wall, 1), "start_s": round(started_s, 1), "flips": flips,
        "events": len(mqtt_out["latency_ms"]),
        "mqtt_p50": pct(mqtt_out["latency_ms"], 50), "mqtt_p99": pct(mqtt_out["latency_ms"], 99),
        "sse_events": len(sse_out["latency_ms"]), "sse_streams": sse_out["streams"],
        "sse_p50": pct(sse_out["latency_ms"], 50), "sse_p99": pct(sse_out["latency_ms"], 99),
        "list_lines": sse_out["list_lines"],
        "gc_collections": len(pauses.ms), "gc_longest_ms": max(pauses.ms, default=0.0),
        "msgs_per_s_per_table": msgs / wall / n, "counts": mqtt_out["counts"],
        "broker_cpu_pct": share(b0, b1), "controllers_cpu_pct": share(cpu0, cpu1),
        "controller_cpu_pct_per_table": share(cpu0, cpu1) / n, "panel_cpu_pct": share(p0, p1),
        "rss_per_table_mib": (rss_tables - rss0) / n / 2**20, "rss_peak_mib": rss_peak / 2**20,
        "threads": threads,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0, help="measuring window of the N-table case")
    ap.add_argument("--one-seconds", type=float, default=180.0,
                    help="measuring window of the one-table case (longer: one table makes few events)")
    ap.add_argument("--pace", type=float, default=6.0, help="mean seconds between a table's moves")
    ap.add_argument("--phones", type=int, default=2, help="phones on each open table's stream")
    ap.add_argument("--open", type=int, default=None,
                    help="tables whose page is open (phones on them); default every table")
    ap.add_argument("--switch-ms", type=float, default=None,
                    help="the tables' process's GIL switch interval in ms (Python's default is 5)")
    ap.add_argument("--freeze-gc", action="store_true",
                    help="gc.freeze() once the tables have started, so full collections skip start-up objects")
    args = ap.parse_args()
    if args.switch_ms is not None:
        sys.setswitchinterval(args.switch_ms / 1000)

    began, load0 = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-club-"))
    bport, hport = free_port(), free_port()
    (tmp / "m.conf").write_text(f"listener {bport} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                                "max_queued_messages 10000\n")
    mosquitto = next(p for p in ("/usr/sbin/mosquitto", "/usr/bin/mosquitto", "mosquitto") if Path(p).exists())
    broker = subprocess.Popen([mosquitto, "-c", str(tmp / "m.conf")], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    panel = None
    try:
        wait_port(bport, timeout=15.0)
        panel = subprocess.Popen(
            [sys.executable, "-m", "controller", "panel", "--broker", f"mqtt://127.0.0.1:{bport}",
             "--port", str(hport), "--token", TOKEN], cwd=ROOT, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
        wait_port(hport, timeout=15.0)
        # The panel runs as a child of the command: count the child that serves, not the launcher.
        pp = psutil.Process(panel.pid)
        server = max([pp, *pp.children(recursive=True)], key=lambda p: p.memory_info().rss)
        results = [run_phase(n, args, bport, hport, psutil.Process(broker.pid), server, tmp)
                   for n in sorted({1, args.tables})]
    finally:
        if panel is not None:
            panel.terminate()
            panel.wait(10)
        broker.terminate()
        broker.wait(10)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, pace {args.pace:g} s, {args.phones} phones a table, "
          f"window {args.one_seconds:g} s (one table) and {args.seconds:g} s ({args.tables} tables); "
          f"GIL switch interval {sys.getswitchinterval() * 1000:g} ms, gc.freeze {'on' if args.freeze_gc else 'off'}")
    load1 = os.getloadavg()
    print(f"# began {began}, ended {time.strftime('%H:%M:%S UTC', time.gmtime())}; load average (1, 5, 15 min) "
          f"{load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f} at the start, {load1[0]:.1f} {load1[1]:.1f} {load1[2]:.1f} "
          "at the end")
    keys = ["tables", "open", "events", "mqtt_p50", "mqtt_p99", "sse_events", "sse_p50", "sse_p99", "msgs_per_s_per_table",
            "broker_cpu_pct", "controller_cpu_pct_per_table", "panel_cpu_pct", "rss_per_table_mib", "start_s",
            "threads", "gc_collections", "gc_longest_ms"]
    for r in results:
        print("  ".join(f"{k} {r[k]:.2f}" if isinstance(r[k], float) else f"{k} {r[k]}" for k in keys))
        print("   messages by topic:", r["counts"])
    one, many = results[0], results[-1]
    if len(results) == 2:
        print(f"event p99 at an outside subscriber: {many['mqtt_p99']:.1f} ms vs {one['mqtt_p99']:.1f} ms "
              f"= {many['mqtt_p99'] / one['mqtt_p99']:.2f}x (target <= 2x)")
        print(f"club panel SSE event p99 at {many['tables']} tables: {many['sse_p99']:.1f} ms (target <= 100 ms)")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
