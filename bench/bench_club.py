"""A club night on one Mosquitto: N tables, each a real Service with a simulated board.

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

``--procs K`` spreads the tables over K worker processes (``club_tables.py``),
closer to a club where every table is its own Raspberry Pi; by default every
table is in this one process.

Usage: ``python bench/bench_club.py [--tables N] [--seconds S] [--one-seconds S] [--pace S] [--warmup S] [--phones K]
[--open K] [--procs K] [--rounds R] [--journal-dir DIR] [--switch-ms MS] [--freeze-gc] [--stages]``.

``--rounds R`` alternates the one-table and N-table windows R times (the tables
restarted each time on their journals) and pools each case's samples, so a change in a shared
machine's load falls on both cases and the one-table p99 has more samples.

``--stages`` stamps every event on its way in the tables' processes
(``club_stages.py``) and prints, for each case, where the slowest 2 % of
events spent their time against all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))
from bench_sse import free_port, wait_port  # noqa: E402 - the script puts its folders on sys.path first
from club_stages import report  # noqa: E402 - the script puts its folders on sys.path first
from club_tables import TOKEN, LocalTables  # noqa: E402 - the script puts its folders on sys.path first

PROBES = ROOT / "bench" / "club_probes.py"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class WorkerTables:
    """``tables`` split over ``procs`` worker processes (``club_tables.py``), driven like ``LocalTables``."""

    def __init__(self, tables: list[str], procs: int, bport: int, tmp: Path, pace: float,
                 switch_ms: float | None, freeze_gc: bool, stages: bool = False) -> None:
        shares = [tables[i::procs] for i in range(procs) if tables[i::procs]]
        self._argv = [[sys.executable, str(ROOT / "bench" / "club_tables.py"),
                       json.dumps({"tables": share, "bport": bport, "tmp": str(tmp), "pace": pace, "seed": 1 + k,
                                   "switch_ms": switch_ms, "freeze_gc": freeze_gc, "stages": stages})]
                      for k, share in enumerate(shares)]
        self.procs: list[subprocess.Popen[str]] = []

    def start(self) -> None:
        # A few at a time: 50 interpreters importing at once on 2 cores starve each other past
        # the simulated board's set-up timeout (a club's Pis do not share their cores).
        in_flight = max(2, os.cpu_count() or 2)
        waiting: list[subprocess.Popen[str]] = []
        for argv in self._argv + [None] * in_flight:
            if argv is not None:
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
                self.procs.append(proc)
                waiting.append(proc)
            if len(waiting) >= in_flight or (argv is None and waiting):
                first = waiting.pop(0)
                assert first.stdout is not None
                if first.stdout.readline().strip() != "ready":
                    raise SystemExit("a worker of tables did not start")

    def _say(self, word: str) -> None:
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write(word + "\n")
            proc.stdin.flush()

    def go(self) -> None:
        self._say("go")

    def mark(self) -> None:
        self._say("mark")

    def end(self) -> dict[str, Any]:
        self._say("end")
        parts = []
        for proc in self.procs:
            assert proc.stdout is not None
            parts.append(json.loads(proc.stdout.readline()))
        for proc in self.procs:
            proc.wait(30)
        return {"cpu_s": sum(p["cpu_s"] for p in parts), "flips": sum(p["flips"] for p in parts),
                "gc_ms": [ms for p in parts for ms in p["gc_ms"]],
                "rss_tables": sum(p["rss_tables"] for p in parts), "rss_peak": sum(p["rss_peak"] for p in parts),
                "threads": sum(p["threads"] for p in parts),
                "gc_pauses": [gp for p in parts for gp in p["gc_pauses"]],
                "stamps": {t: st for p in parts for t, st in p["stamps"].items()}}


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
    tables = [f"club-{n}-{i}" for i in range(1, n + 1)]
    group: LocalTables | WorkerTables
    if args.procs:
        group = WorkerTables(tables, args.procs, bport, tmp, args.pace, args.switch_ms, args.freeze_gc, args.stages)
    else:
        group = LocalTables(tables, bport, tmp, args.pace, freeze_gc=args.freeze_gc, stages=args.stages)
    t_start = time.monotonic()
    group.start()
    started_s = time.monotonic() - t_start
    seconds = args.one_seconds if n == 1 else args.seconds
    sub = start_probe(["mqtt", str(bport), str(seconds)])
    opened = tables if args.open is None else tables[:max(1, min(args.open, n))]
    phones = start_probe(["sse", str(hport), str(seconds), str(args.phones), *opened])
    group.go()
    time.sleep(args.warmup)  # warm up: every table has moved before the window opens
    group.mark()
    b0, p0, t0 = broker.cpu_times(), panel.cpu_times(), time.monotonic()
    for probe in (sub, phones):
        assert probe.stdin is not None
        probe.stdin.write("start\n")
        probe.stdin.flush()
    mqtt_out = finish_probe(sub, seconds)
    sse_out = finish_probe(phones, seconds)
    b1, p1, t1 = broker.cpu_times(), panel.cpu_times(), time.monotonic()
    tables_out = group.end()
    wall = t1 - t0

    def share(a: Any, b: Any) -> float:
        return 100 * ((b.user - a.user) + (b.system - a.system)) / wall

    msgs = sum(mqtt_out["counts"].values())
    return {
        "tables": n, "procs": len(group.procs) if isinstance(group, WorkerTables) else 1, "open": len(opened),
            "window_s": round(wall, 1),
        "start_s": round(started_s, 1), "flips": tables_out["flips"],
        "events": len(mqtt_out["latency_ms"]),
        "mqtt_p50": pct(mqtt_out["latency_ms"], 50), "mqtt_p99": pct(mqtt_out["latency_ms"], 99),
        "sse_events": len(sse_out["latency_ms"]), "sse_streams": sse_out["streams"],
        "sse_p50": pct(sse_out["latency_ms"], 50), "sse_p99": pct(sse_out["latency_ms"], 99),
        "list_lines": sse_out["list_lines"],
        "gc_collections": len(tables_out["gc_ms"]), "gc_longest_ms": max(tables_out["gc_ms"], default=0.0),
        "msgs_per_s_per_table": msgs / wall / n, "counts": mqtt_out["counts"],
        "broker_cpu_pct": share(b0, b1), "controllers_cpu_pct": 100 * tables_out["cpu_s"] / wall,
        "controller_cpu_pct_per_table": 100 * tables_out["cpu_s"] / wall / n, "panel_cpu_pct": share(p0, p1),
        "rss_per_table_mib": tables_out["rss_tables"] / n / 2**20, "rss_peak_mib": tables_out["rss_peak"] / 2**20,
        "threads": tables_out["threads"],
        "mqtt_ms": mqtt_out["latency_ms"], "sse_ms": sse_out["latency_ms"],
        # Kept raw so that the rounds of a case are reported together (``pool``).
        "arrivals": mqtt_out["arrivals"], "stamps": tables_out["stamps"], "gc_pauses": tables_out["gc_pauses"],
    }


def pool(rounds: list[dict[str, Any]], stages: bool = False) -> dict[str, Any]:
    """One case's rounds as one: percentiles over every sample, rates and shares weighted by window."""
    out = dict(rounds[0])
    out["stages"] = []
    if stages:
        stamps: dict[str, dict[str, Any]] = {}
        for r in rounds:  # a table keeps its journal from round to round: its seqs go on rising
            for table, by_seq in r["stamps"].items():
                stamps.setdefault(table, {}).update(by_seq)
        n = out["tables"]
        out["stages"] = report(f"{n} table{'s' if n > 1 else ''}", [a for r in rounds for a in r["arrivals"]],
                               stamps, [g for r in rounds for g in r["gc_pauses"]])
    if len(rounds) == 1:
        return out
    wall = sum(r["window_s"] for r in rounds)
    out["mqtt_ms"] = [ms for r in rounds for ms in r["mqtt_ms"]]
    out["sse_ms"] = [ms for r in rounds for ms in r["sse_ms"]]
    out.update(
        rounds=len(rounds), window_s=round(wall, 1), events=len(out["mqtt_ms"]), sse_events=len(out["sse_ms"]),
        mqtt_p50=pct(out["mqtt_ms"], 50), mqtt_p99=pct(out["mqtt_ms"], 99),
        sse_p50=pct(out["sse_ms"], 50), sse_p99=pct(out["sse_ms"], 99),
        flips=sum(r["flips"] for r in rounds), list_lines=sum(r["list_lines"] for r in rounds),
        gc_collections=sum(r["gc_collections"] for r in rounds),
        gc_longest_ms=max(r["gc_longest_ms"] for r in rounds),
        start_s=max(r["start_s"] for r in rounds),
        counts={k: sum(r["counts"].get(k, 0) for r in rounds) for r in rounds for k in r["counts"]},
    )
    for key in ("msgs_per_s_per_table", "broker_cpu_pct", "controllers_cpu_pct", "controller_cpu_pct_per_table",
                "panel_cpu_pct"):
        out[key] = sum(r[key] * r["window_s"] for r in rounds) / wall
    for key in ("rss_per_table_mib", "rss_peak_mib", "threads"):
        out[key] = max(r[key] for r in rounds)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0, help="measuring window of the N-table case")
    ap.add_argument("--one-seconds", type=float, default=180.0,
                    help="measuring window of the one-table case (longer: one table makes few events)")
    ap.add_argument("--pace", type=float, default=6.0, help="mean seconds between a table's moves")
    ap.add_argument("--warmup", type=float, default=5.0,
                    help="seconds the tables play before each window opens (a test of the bench itself needs less)")
    ap.add_argument("--phones", type=int, default=2, help="phones on each open table's stream")
    ap.add_argument("--open", type=int, default=None,
                    help="tables whose page is open (phones on them); default every table")
    ap.add_argument("--procs", type=int, default=0,
                    help="spread the tables over this many worker processes (0: every table in this process)")
    ap.add_argument("--journal-dir", default=None,
                    help="where the tables' journals go (e.g. /dev/shm: at a club each table has its own disk, "
                         "here 50 share one); default a temporary folder on the disk")
    ap.add_argument("--switch-ms", type=float, default=None,
                    help="the tables' processes' GIL switch interval in ms (Python's default is 5)")
    ap.add_argument("--tcp-nodelay", action="store_true",
                    help="the broker sends without Nagle's delay (mosquitto's set_tcp_nodelay)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate the one-table and N-table windows this many times, pooling each case's samples")
    ap.add_argument("--stages", action="store_true",
                    help="stamp every event on its way and say where the slowest 2 %% spent their time")
    ap.add_argument("--freeze-gc", action="store_true",
                    help="gc.freeze() once the tables have started, so full collections skip start-up objects")
    args = ap.parse_args()
    if args.procs < 0:
        ap.error("--procs must be 0 or more")
    if args.rounds < 1:
        ap.error("--rounds must be 1 or more")
    if args.switch_ms is not None:
        sys.setswitchinterval(args.switch_ms / 1000)

    began, load0 = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-club-"))
    bport, hport = free_port(), free_port()
    (tmp / "m.conf").write_text(f"listener {bport} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                                "max_queued_messages 10000\n"
                                # Nagle off on the broker's sockets (mosquitto's default keeps it on).
                                + ("set_tcp_nodelay true\n" if args.tcp_nodelay else ""))
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
        journals = Path(tempfile.mkdtemp(prefix="gk-bench-club-", dir=args.journal_dir)) if args.journal_dir else tmp
        # Rounds alternate the cases, so a change in the shared machine's load falls on both.
        runs: dict[int, list[dict[str, Any]]] = {}
        for _ in range(args.rounds):
            for n in sorted({1, args.tables}):
                runs.setdefault(n, []).append(
                    run_phase(n, args, bport, hport, psutil.Process(broker.pid), server, journals))
        results = [pool(runs[n], args.stages) for n in sorted(runs)]
    finally:
        if panel is not None:
            panel.terminate()
            panel.wait(10)
        broker.terminate()
        broker.wait(10)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, pace {args.pace:g} s, {args.phones} phones a table, "
          f"window {args.one_seconds:g} s (one table) and {args.seconds:g} s ({args.tables} tables)"
          f"{f', {args.rounds} rounds alternated' if args.rounds > 1 else ''}; "
          f"GIL switch interval {sys.getswitchinterval() * 1000:g} ms, gc.freeze {'on' if args.freeze_gc else 'off'}, "
          f"tables in {'this process' if not args.procs else f'{args.procs} worker processes'}, "
          f"journals in {args.journal_dir or 'a temporary folder on the disk'}, "
          f"broker set_tcp_nodelay {'true' if args.tcp_nodelay else 'false (its default)'}")
    load1 = os.getloadavg()
    print(f"# began {began}, ended {time.strftime('%H:%M:%S UTC', time.gmtime())}; load average (1, 5, 15 min) "
          f"{load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f} at the start, {load1[0]:.1f} {load1[1]:.1f} {load1[2]:.1f} "
          "at the end")
    keys = ["tables", "procs", "open", "window_s", "events", "mqtt_p50", "mqtt_p99", "sse_events", "sse_p50",
            "sse_p99", "msgs_per_s_per_table",
            "broker_cpu_pct", "controller_cpu_pct_per_table", "panel_cpu_pct", "rss_per_table_mib", "start_s",
            "threads", "gc_collections", "gc_longest_ms"]
    for r in results:
        print("  ".join(f"{k} {r[k]:.2f}" if isinstance(r[k], float) else f"{k} {r[k]}" for k in keys))
        print("   messages by topic:", r["counts"])
        for line in r["stages"]:
            print("  " + line)
    one, many = results[0], results[-1]
    if len(results) == 2:
        print(f"event p99 at an outside subscriber: {many['mqtt_p99']:.1f} ms vs {one['mqtt_p99']:.1f} ms "
              f"= {many['mqtt_p99'] / one['mqtt_p99']:.2f}x (target <= 2x)")
        print(f"club panel SSE event p99 at {many['tables']} tables: {many['sse_p99']:.1f} ms (target <= 100 ms)")
    print(json.dumps([{k: v for k, v in r.items() if k not in ("mqtt_ms", "sse_ms", "arrivals", "stamps",
                                                               "gc_pauses")} for r in results]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
