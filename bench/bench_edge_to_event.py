"""Sensor edge to MQTT event at an outside subscriber, against bare paho, through one Mosquitto.

Starts its own Mosquitto on a free loopback port, then alternates rounds of:

* ``bare``: a paho 2 client publishes a QoS 1 message; an outside subscriber
  receives it. Both clients set TCP_NODELAY, so the baseline is the best paho
  can do (without it, Nagle stalls would flatter the ratio). Samples come at
  the controller's cadence (the pause plus the launcher's stability window),
  since a path that ran recently runs faster. A second bare row pauses only
  the pause, as runs before 2026-11-29 21:30 UTC did; its ratio is printed too;
* ``durable``: the same publisher, but each message is first committed to a
  SQLite file beside the journal (WAL, ``synchronous=FULL``, one row of an
  event's size), then published. No design that keeps "journal first, then
  MQTT" can beat this floor; it shows what the durable commit costs on this
  disk, side by side with the rest;
* ``controller``: the real service (simulated board, Terror, journal on disk
  with synchronous=FULL) sees the Headless Ghost launcher flip; the referee
  decides (a foul, then its recovery), the journal commits, the link publishes
  the event; the same subscriber receives it.

The subscriber runs in a process of its own (``Receiver``) and stamps each
arrival with the system-wide monotonic clock. For the controller two
latencies are reported: from the moment the debouncer settled the input (the
software path the target is about) and from the first raw edge (adds the
sensor's stability window, measured on its own by the debounce bench).

Usage: ``python bench/bench_edge_to_event.py [--samples N] [--rounds R] [--gap-ms MS] [--dir PATH]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402

from controller.broker import BrokerChoice  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.service import Service  # noqa: E402

TARGET_RATIO = 1.5
TABLE = "bench-edge"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_mosquitto(tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    conf = tmp / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    binary = next((p for p in ("/usr/sbin/mosquitto", "/usr/bin/mosquitto") if Path(p).exists()), "mosquitto")
    proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise SystemExit("mosquitto did not start")


def nodelay(client: mqtt.Client) -> None:
    sock: Any = client.socket()
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


RECEIVER_SCRIPT = r"""
import socket, sys, time
import paho.mqtt.client as mqtt
port, topics = int(sys.argv[1]), sys.argv[2:]
def on_connect(c, *a):
    c.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for t in topics:
        c.subscribe(t, qos=1)
def on_message(c, u, msg):
    now = time.monotonic()  # CLOCK_MONOTONIC is system-wide: comparable with the parent's stamps
    sys.stdout.write(f"{msg.topic} {now!r}\n")
    sys.stdout.flush()
c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-receiver")
c.on_connect = on_connect
c.on_subscribe = lambda *a: (sys.stdout.write("READY 0\n"), sys.stdout.flush())
c.on_message = on_message
c.connect("127.0.0.1", port)
c.loop_forever()
"""


class Receiver:
    """The outside subscriber, in a process of its own: it stamps each arrival with the monotonic clock.

    Outside means outside: in the bench's own process the subscriber would wait for the
    controller's threads to release the interpreter lock before it could stamp a message,
    which charges the controller's after-publish work (views, sealing) to the latency.
    """

    def __init__(self, port: int, topics: list[str]) -> None:
        self.arrivals: dict[str, list[float]] = {t: [] for t in topics}
        self.cond = threading.Condition()
        ready = threading.Event()
        self.proc = subprocess.Popen([sys.executable, "-c", RECEIVER_SCRIPT, str(port), *topics],
                                     stdout=subprocess.PIPE, text=True)

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                topic, _, stamp = line.rstrip("\n").rpartition(" ")
                if topic == "READY":
                    ready.set()
                    continue
                with self.cond:
                    if topic in self.arrivals:
                        self.arrivals[topic].append(float(stamp))
                        self.cond.notify_all()

        threading.Thread(target=read, name="receiver-reader", daemon=True).start()
        if not ready.wait(10):
            self.close()
            raise SystemExit("receiver did not subscribe")

    def wait_count(self, topic: str, n: int, timeout: float = 10.0) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.arrivals[topic]) >= n, timeout):
                raise SystemExit(f"only {len(self.arrivals[topic])} of {n} messages arrived on {topic}")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def bare_round(port: int, receiver: Receiver, samples: int, gap: float,
               durable: sqlite3.Connection | None = None) -> list[float]:
    topic = "bench/bare" if durable is None else "bench/durable"
    row_text = '{"seq":1,"type":"mismatch","data":{"guidance":"' + "x" * 240 + '"}}'
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-pub-{time.monotonic_ns()}")
    pub.connect("127.0.0.1", port)
    nodelay(pub)
    pub.loop_start()
    out = []
    pause = threading.Event()
    for _ in range(samples):
        n = len(receiver.arrivals[topic])
        t0 = time.monotonic()
        if durable is not None:
            durable.execute("BEGIN IMMEDIATE")
            durable.execute("INSERT INTO events (data) VALUES (?)", (row_text,))
            durable.execute("COMMIT")
        pub.publish(topic, b'{"seq":1,"type":"x"}', qos=1)
        receiver.wait_count(topic, n + 1)
        out.append(receiver.arrivals[topic][n] - t0)
        pause.wait(gap)
    pub.disconnect()
    pub.loop_stop()
    return out


class BenchService(Service):
    """The real service, noting when each observation was settled and first seen."""

    observed: list[tuple[float, float]]

    def _on_observation(self, obs: Any) -> None:
        if not obs.initial:
            self.observed.append((obs.first_edge, obs.settled))
        super()._on_observation(obs)


def controller_round(svc: BenchService, receiver: Receiver, samples: int, gap: float,
                     value: list[str]) -> tuple[list[float], list[float]]:
    topic = f"gk/{TABLE}/events"
    settled, edge = [], []
    pause = threading.Event()
    for _ in range(samples):
        n = len(receiver.arrivals[topic])
        k = len(svc.observed)
        value[0] = "armed" if value[0] == "launched" else "launched"
        svc.hub.simulate("launcher", value[0])
        receiver.wait_count(topic, n + 1)
        first_edge, settled_at = svc.observed[k]
        arrival = receiver.arrivals[topic][n]
        settled.append(arrival - settled_at)
        edge.append(arrival - first_edge)
        pause.wait(gap)
    return settled, edge


def pct(data: list[float], q: float) -> float:
    s = sorted(data)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def row(name: str, data: list[float]) -> str:
    return (f"| {name} | {len(data)} | {pct(data, 50) * 1000:.3f} | {pct(data, 99) * 1000:.3f} | "
            f"{max(data) * 1000:.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200, help="samples per round and kind (default 200)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--gap-ms", type=float, default=5.0, help="pause between samples (default 5 ms)")
    ap.add_argument("--dir", help="directory for the journal (default: a temp dir on the disk under /tmp)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-", dir=args.dir))
    proc, port = start_mosquitto(tmp)
    gap = args.gap_ms / 1000
    try:
        receiver = Receiver(port, ["bench/bare", "bench/durable", f"gk/{TABLE}/events"])
        floor_db = sqlite3.connect(tmp / "floor.sqlite", isolation_level=None, check_same_thread=False)
        floor_db.execute("PRAGMA journal_mode=WAL")
        floor_db.execute("PRAGMA synchronous=FULL")
        floor_db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
        cfg = load_config(None, overrides={
            "simulate": True, "table.id": TABLE, "table.token": "bench", "table.game": "terror",
            "journal.path": str(tmp / "bench.journal"), "mqtt.url": f"mqtt://127.0.0.1:{port}",
            "mqtt.base_topic": "gk", "referee.mismatch_grace_ms": 0, "panel.enabled": False,
        })
        svc = BenchService(cfg, BrokerChoice("127.0.0.1", port, False))
        svc.observed = []
        svc.start()
        if not svc.wait_online(5):
            raise SystemExit("controller did not come online")
        receiver.wait_count(f"gk/{TABLE}/events", 1)  # game_started
        bare: list[float] = []
        bare_fast: list[float] = []
        durable: list[float] = []
        settled: list[float] = []
        edge: list[float] = []
        value = ["armed"]
        # A controller sample lasts the launcher's stability window longer than the pause; the
        # bare ones pause that much more, so every kind runs at the same cadence. (Code that ran
        # 25 ms ago is slower than code that ran 5 ms ago, a disk flush too, on these machines.)
        cadence = gap + cfg.hardware.sensor("launcher").window
        bare_round(port, receiver, 20, cadence)  # warm-up
        controller_round(svc, receiver, 20, gap, value)
        for _ in range(args.rounds):
            bare += bare_round(port, receiver, args.samples, cadence)
            bare_fast += bare_round(port, receiver, args.samples, gap)
            durable += bare_round(port, receiver, args.samples, cadence, floor_db)
            s, e = controller_round(svc, receiver, args.samples, gap, value)
            settled += s
            edge += e
        svc.stop()
        receiver.close()
        floor_db.close()
    finally:
        proc.terminate()
        proc.wait(5)
    ratio = pct(settled, 99) / pct(bare, 99)
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, journal on {tmp}")
    print(f"command: python bench/bench_edge_to_event.py --samples {args.samples} --rounds {args.rounds}\n")
    print("| path | samples | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(row("bare paho publish -> subscriber (QoS 1, TCP_NODELAY)", bare))
    print(row(f"the same, pausing only {args.gap_ms:g} ms between samples (a faster cadence)", bare_fast))
    print(row("durable floor: SQLite commit (WAL, FULL), then paho publish -> subscriber", durable))
    print(row("controller: settled input -> event at subscriber", settled))
    print(row("controller: first raw edge -> event (adds the 20 ms launcher window)", edge))
    verdict = "meets" if ratio <= TARGET_RATIO else "misses"
    print(f"\np99 ratio (settled -> event) / bare: {ratio:.2f}x; target <= {TARGET_RATIO}x: {verdict}")
    print(f"p99 ratio against bare paho at the faster cadence: {pct(settled, 99) / pct(bare_fast, 99):.2f}x")
    print(f"p99 ratio durable floor / bare: {pct(durable, 99) / pct(bare, 99):.2f}x; "
          f"controller / durable floor: {pct(settled, 99) / pct(durable, 99):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
