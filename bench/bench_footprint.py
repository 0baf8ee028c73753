"""The controller's footprint: start to "online", resident memory, idle CPU.

Starts its own Mosquitto on a free loopback port and an outside subscriber on
the table's status topic, then runs ``gravekeeper run --simulate`` as a
subprocess (Terror, journal in a temp dir) several times:

* start to online: from ``Popen`` to the retained ``{"state": "online"}``
  arriving at the subscriber (interpreter start and imports included);
* RSS: the process's resident set after it has been idle for a few seconds;
* idle CPU: user + system CPU time over an idle window, as % of one core.

Both with the web panel (what ``gravekeeper run`` does by default) and
without it (``panel.enabled = false``: the controller alone). ``gravekeeper
run`` starts the panel as a child process (``web_panel.child``), so RSS and
idle CPU are reported for the controller process and for its children (found
with psutil ``Process.children(recursive=True)``) separately, and summed. With
the panel, the bench also waits for the panel's port to accept a connection
(start to panel up) before the settling pause, so the child is measured
after its own start-up.
Usage: ``python bench/bench_footprint.py [--runs N] [--idle S]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_edge_to_event import free_port, start_mosquitto

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"online_s": 2.0, "rss_mb": 50.0, "cpu_pct": 1.0}


def watch_status(port: int, table: str) -> tuple[mqtt.Client, threading.Event]:
    online = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-fp-{table}")

    def on_message(c: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        if msg.payload and json.loads(msg.payload).get("state") == "online":
            online.set()

    subscribed = threading.Event()
    client.on_message = on_message
    client.on_subscribe = lambda *a: subscribed.set()
    client.connect("127.0.0.1", port)
    client.subscribe(f"gravekeeper/{table}/status", qos=1)
    client.loop_start()
    if not subscribed.wait(5):
        raise SystemExit("status watcher did not subscribe")
    return client, online


def _cpu_s(ps: psutil.Process) -> float:
    t = ps.cpu_times()
    return t.user + t.system


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def one_run(tmp: Path, port: int, index: int, panel: bool, idle: float) -> dict[str, float]:
    table = f"fp{index}{'p' if panel else 'c'}"
    cfg = tmp / f"{table}.toml"
    panel_port = free_port()
    panel_conf = f"enabled = true\nport = {panel_port}" if panel else "enabled = false"
    cfg.write_text(f'[table]\nid = "{table}"\ntoken = "bench"\ngame = "terror"\n'
                   f'[journal]\npath = "{tmp / (table + ".journal")}"\n[panel]\n{panel_conf}\n')
    watcher, online = watch_status(port, table)
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(cfg), "--simulate",
         "--broker", f"mqtt://127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        if not online.wait(30):
            raise SystemExit("the controller did not come online within 30 s")
        online_s = time.monotonic() - t0
        ps = psutil.Process(proc.pid)
        panel_s = float("nan")
        if panel:
            deadline = t0 + 30
            while not _port_open(panel_port):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the panel did not start listening within 30 s")
                time.sleep(0.01)
            panel_s = time.monotonic() - t0
        threading.Event().wait(3.0)  # let start-up work (imports, first views) finish
        children = ps.children(recursive=True)
        if panel and not children:
            raise SystemExit("panel enabled but the controller has no child process")
        if not panel and children:
            raise SystemExit(f"panel disabled but the controller has children: {children}")
        cpu0 = _cpu_s(ps)
        ccpu0 = [_cpu_s(c) for c in children]
        w0 = time.monotonic()
        threading.Event().wait(idle)
        cpu1 = _cpu_s(ps)
        ccpu1 = [_cpu_s(c) for c in children]
        wall = time.monotonic() - w0
        rss_mb = ps.memory_info().rss / 2**20
        child_rss_mb = sum(c.memory_info().rss for c in children) / 2**20
        child_busy = sum(b - a for a, b in zip(ccpu0, ccpu1, strict=False))
        return {"online_s": online_s, "panel_s": panel_s, "rss_mb": rss_mb,
                "cpu_pct": 100 * (cpu1 - cpu0) / wall, "child_rss_mb": child_rss_mb,
                "child_cpu_pct": 100 * child_busy / wall, "children": len(children)}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
        watcher.disconnect()
        watcher.loop_stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per variant (default 3)")
    ap.add_argument("--idle", type=float, default=20.0, help="idle window in seconds (default 20)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gk-fp-"))
    proc, port = start_mosquitto(tmp)
    results: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    try:
        for i in range(args.runs):
            for panel in (False, True):
                r = one_run(tmp, port, i, panel, args.idle)
                results[panel].append(r)
                line = (f"run {i} {'panel' if panel else 'alone'}: online {r['online_s']:.2f} s, "
                        f"controller RSS {r['rss_mb']:.1f} MB, idle CPU {r['cpu_pct']:.2f} %")
                if panel:
                    line += (f"; panel up {r['panel_s']:.2f} s, {r['children']:.0f} child process(es) "
                             f"RSS {r['child_rss_mb']:.1f} MB, idle CPU {r['child_cpu_pct']:.2f} %")
                print(line, flush=True)
    finally:
        proc.terminate()
        proc.wait(5)
    load = os.getloadavg()[0]
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average at the end {load:.1f}")
    print(f"command: python bench/bench_footprint.py --runs {args.runs} --idle {args.idle:g}\n")
    def cell(rs: list[dict[str, float]], key: str) -> str:
        vals = [r[key] for r in rs]
        return f"{statistics.median(vals):.2f} / {max(vals):.2f}"

    for r in results[True]:
        r["sum_rss_mb"] = r["rss_mb"] + r["child_rss_mb"]
        r["sum_cpu_pct"] = r["cpu_pct"] + r["child_cpu_pct"]
    print("| variant | process | start to online s (median / worst) | start to panel up s (median / worst) "
          "| RSS MB (median / worst) | idle CPU % (median / worst) |")
    print("|---|---|---|---|---|---|")
    alone, both = results[False], results[True]
    print(f"| controller alone (panel.enabled = false) | controller | {cell(alone, 'online_s')} | - "
          f"| {cell(alone, 'rss_mb')} | {cell(alone, 'cpu_pct')} |")
    print(f"| controller + panel (default) | controller | {cell(both, 'online_s')} | {cell(both, 'panel_s')} "
          f"| {cell(both, 'rss_mb')} | {cell(both, 'cpu_pct')} |")
    print(f"| controller + panel (default) | panel child | - | - "
          f"| {cell(both, 'child_rss_mb')} | {cell(both, 'child_cpu_pct')} |")
    print(f"| controller + panel (default) | both (sum per run) | - | - "
          f"| {cell(both, 'sum_rss_mb')} | {cell(both, 'sum_cpu_pct')} |")
    print(f"\ntargets: start to online <= {TARGETS['online_s']} s, RSS <= {TARGETS['rss_mb']:g} MB, "
          f"idle CPU <= {TARGETS['cpu_pct']:g} % (the controller process's own figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
