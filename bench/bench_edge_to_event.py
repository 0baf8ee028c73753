"""Sensor edge to MQTT event at an outside subscriber, against the durable floor, through one Mosquitto.

The target (``shared/DESIGN.md``): from a settled input to the event at an
outside subscriber, journal on disk with ``synchronous=FULL``, p99 at most
1.1x and p50 at most 1.2x those of the *durable floor* measured in the same
run. Starts its own Mosquitto on a free loopback port, then alternates rounds
of four kinds, all at the same cadence (the pause plus the launcher's
stability window, the spacing of the controller's samples):

* ``floor``: one SQLite commit of an event's size (a file beside the
  journal, WAL, ``synchronous=FULL``), then a bare paho 2 client publishes a
  QoS 1 message and the outside subscriber receives it. No design that keeps
  "journal first, then MQTT" can beat it: it is the limit on this disk;
* ``controller``: the real service (simulated board, Terror, mismatch grace 0)
  sees the Headless Ghost launcher flip; the referee decides (a foul, then its
  recovery), the journal commits, the link publishes the event; the same
  subscriber receives it;
* ``bare``: the floor without the commit (reported beside it, as DESIGN asks);
* ``fsync``: the raw cost of making a small write durable here: ``os.write``
  of an event's size, then ``os.fsync``, on a file in the same folder.

Publishers and the subscriber set TCP_NODELAY (without it Nagle stalls would
distort every row). The subscriber runs in a process of its own
(``Receiver``) and stamps each arrival with the system-wide monotonic clock.
For the controller two latencies are reported: from the moment the debouncer
settled the input (the software path the target is about) and from the first
raw edge (adds the sensor's stability window, see ``bench_debounce.py``).

``--stages`` also stamps each controller sample on its way (the hub's
callback, the referee, the journal commit, the link's publish, paho's socket
write) by wrapping those methods, and prints where the time goes.

Usage: ``python bench/bench_edge_to_event.py [--samples N] [--rounds R] [--gap-ms MS] [--dir PATH] [--stages]``.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt

from controller.config import load_config
from controller.mqtt.broker import BrokerChoice
from controller.service.service import Service

TARGET_P99 = 1.1  # controller / durable floor, shared/DESIGN.md
TARGET_P50 = 1.2
EVENT_ROW = '{"seq":1,"type":"mismatch","data":{"guidance":"' + "x" * 240 + '"}}'  # an event's size
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
c.on_disconnect = lambda *a: sys.exit(0)  # the broker is gone (the bench ended or failed): so is this
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
               durable: sqlite3.Connection | None = None, commits: list[float] | None = None,
               commit_cpu: list[float] | None = None) -> list[float]:
    """Bare paho publish -> subscriber; with ``durable``, a FULL commit first (the floor).

    ``commits`` receives the floor's commit times alone, ``commit_cpu`` their CPU times.
    """
    topic = "bench/bare" if durable is None else "bench/durable"
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-pub-{time.monotonic_ns()}")
    pub.connect("127.0.0.1", port)
    nodelay(pub)
    pub.loop_start()
    out = []
    pause = threading.Event()
    for _ in range(samples):
        n = len(receiver.arrivals[topic])
        t0, c0 = time.monotonic(), time.thread_time()
        if durable is not None:
            durable.execute("BEGIN IMMEDIATE")
            durable.execute("INSERT INTO events (data) VALUES (?)", (EVENT_ROW,))
            durable.execute("COMMIT")
            if commits is not None and commit_cpu is not None:
                commits.append(time.monotonic() - t0)
                commit_cpu.append(time.thread_time() - c0)
        pub.publish(topic, b'{"seq":1,"type":"x"}', qos=1)
        receiver.wait_count(topic, n + 1)
        out.append(receiver.arrivals[topic][n] - t0)
        pause.wait(gap)
    pub.disconnect()
    pub.loop_stop()
    return out


def fsync_round(path: Path, samples: int, gap: float) -> list[float]:
    """The raw fsync: an event's worth of bytes appended, then ``os.fsync``."""
    data = EVENT_ROW.encode() + b"\n"
    out = []
    pause = threading.Event()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(samples):
            t0 = time.monotonic()
            os.write(fd, data)
            os.fsync(fd)
            out.append(time.monotonic() - t0)
            pause.wait(gap)
    finally:
        os.close(fd)
    return out


STAGES = ("callback", "decide", "commit", "committed", "publish", "written")
STAGE_NAMES = {
    "callback": "settled -> the service's callback (hub thread)",
    "decide": "callback -> the referee starts deciding",
    "commit": "the referee's decision (observation and its grace-0 timeout)",
    "committed": "the journal's record_many (JSON, SQL, one FULL commit)",
    "publish": "committed -> paho publish() of the event",
    "written": "publish() -> paho's thread writes it to the socket",
    "arrival": "written -> the outside subscriber (the broker)",
}


class BenchService(Service):
    """The real service, noting when each observation was settled and first seen.

    With ``stamp_stages`` its parts are wrapped to stamp one sample's way to the broker
    (a few microseconds of wrapper are counted in the stages they separate).
    """

    observed: list[tuple[float, float]]
    stamps: dict[str, float]
    cpu: dict[str, float]  # the same stamps on the calling thread's CPU clock
    inline: list[bool]

    def _on_observation(self, obs: Any) -> None:
        if not obs.initial:
            self.observed.append((obs.first_edge, obs.settled))
            self.stamps = {"settled": obs.settled, "callback": time.monotonic()}
            self.cpu = {"callback": time.thread_time()}
        super()._on_observation(obs)

    def stamp_stages(self) -> None:
        self.stamps = {}
        self.cpu = {}
        self.inline = []
        referee, journal, link = self.referee, self.journal, self.link
        assert link is not None
        events_topic = link.topics.events
        observe, record_many = referee.observe, journal.record_many
        publish, sock_send = link.client.publish, link.client._sock_send

        def stamp(name: str) -> None:
            if name not in self.stamps:
                self.stamps[name] = time.monotonic()
                if name != "written":  # paho's thread: its CPU clock is another one
                    self.cpu[name] = time.thread_time()

        def timed_observe(obs: Any) -> Any:
            stamp("decide")
            self.inline.append(threading.current_thread().name != "gk-worker")
            return observe(obs)

        def timed_record_many(entries: Any, on_commit: Any = None) -> Any:
            stamp("commit")

            def committed() -> None:  # the journal's call once the commit returned, before it decodes
                stamp("committed")
                on_commit()

            try:
                return record_many(entries) if on_commit is None else record_many(entries, committed)
            finally:
                stamp("committed")

        def timed_publish(topic: str, *args: Any, **kwargs: Any) -> Any:
            if topic == events_topic and "committed" in self.stamps:
                stamp("publish")
            return publish(topic, *args, **kwargs)

        def timed_send(data: Any) -> int:
            if "publish" in self.stamps:
                stamp("written")
            return int(sock_send(data))

        referee.observe = timed_observe  # type: ignore[method-assign]
        journal.record_many = timed_record_many  # type: ignore[method-assign]
        link.client.publish = timed_publish  # type: ignore[method-assign]
        link.client._sock_send = timed_send  # type: ignore[method-assign]


# --compare: (name, the rehearsal on)
COMPARED = (("without the rehearsal", False),)


@dataclass
class Variant:
    name: str
    rehearsal: bool
    settled: list[float] = field(default_factory=list)
    late: list[float] = field(default_factory=list)
    stages: list[dict[str, float]] | None = None


def controller_round(svc: BenchService, receiver: Receiver, samples: int, gap: float,
                     value: list[str], stages: list[dict[str, float]] | None = None,
                     late: list[float] | None = None) -> tuple[list[float], list[float]]:
    """Flip the launcher ``samples`` times: (settled -> arrival, first edge -> arrival) of each.

    ``late`` receives how long after its window's end each input was settled (the hub's
    wake-up, and anything that ran on its thread before the window's end: the rehearsal).
    """
    window = svc.config.hardware.sensor("launcher").window
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
        if late is not None:
            late.append(settled_at - first_edge - window)
        if stages is not None:
            stages.append({**svc.stamps, "arrival": arrival,
                           **{f"cpu_{k}": v for k, v in svc.cpu.items()}})
        pause.wait(gap)
    return settled, edge


def pct(data: list[float], q: float) -> float:
    s = sorted(data)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def row(name: str, data: list[float]) -> str:
    return (f"| {name} | {len(data)} | {pct(data, 50) * 1000:.3f} | {pct(data, 99) * 1000:.3f} | "
            f"{max(data) * 1000:.3f} |")


def stage_table(stages: list[dict[str, float]]) -> list[str]:
    """p50/p90/p99 of each stage over the samples that have every stamp, in order.

    Stages run by the deciding thread also get its CPU time (``time.thread_time``): the
    controller's own work, which other processes on a busy machine do not inflate.
    """
    order = ("settled", *STAGES, "arrival")
    full = [s for s in stages if all(k in s for k in order)]
    lines = [f"stages of {len(full)} of {len(stages)} controller samples (the others lack a stamp):", "",
             "| stage | p50 ms | p90 ms | p99 ms | CPU p50 ms | CPU p99 ms |", "|---|---|---|---|---|---|"]
    if not full:
        return lines

    def cells(d: list[float]) -> str:
        return " | ".join(f"{pct(d, q) * 1000:.3f}" for q in (50, 90, 99))

    for a, b in zip(order, order[1:], strict=False):
        cpu = [s[f"cpu_{b}"] - s[f"cpu_{a}"] for s in full if f"cpu_{a}" in s and f"cpu_{b}" in s]
        cpu_cells = (f"{pct(cpu, 50) * 1000:.3f} | {pct(cpu, 99) * 1000:.3f}" if len(cpu) == len(full)
                     else "- | -")
        lines.append(f"| {STAGE_NAMES[b]} | {cells([s[b] - s[a] for s in full])} | {cpu_cells} |")
    cpu = [s["cpu_publish"] - s["cpu_callback"] for s in full]
    lines.append(f"| total (CPU: callback -> publish()) | {cells([s['arrival'] - s['settled'] for s in full])} | "
                 f"{pct(cpu, 50) * 1000:.3f} | {pct(cpu, 99) * 1000:.3f} |")
    return lines


def verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "MISSED"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200, help="samples per round and kind (default 200)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--gap-ms", type=float, default=5.0, help="pause between samples (default 5 ms)")
    ap.add_argument("--dir", help="directory for the journal (default: a temp dir on the disk under /tmp)")
    ap.add_argument("--stages", action="store_true", help="also stamp and report the controller's stages")
    ap.add_argument("--compare", action="store_true",
                    help="also run the controller without its rehearsal before a window closes, alternated")
    args = ap.parse_args()
    if args.samples < 1 or args.rounds < 1:
        ap.error("--samples and --rounds must be at least 1")
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-", dir=args.dir))
    proc, port = start_mosquitto(tmp)
    gap = args.gap_ms / 1000
    stages: list[dict[str, float]] | None = [] if args.stages else None
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
        if args.stages:
            svc.stamp_stages()
        bare: list[float] = []
        floor: list[float] = []
        fsync: list[float] = []
        floor_commits: list[float] = []
        floor_commit_cpu: list[float] = []
        settled: list[float] = []
        edge: list[float] = []
        value = ["armed"]
        late: list[float] = []  # settled after the window's end, by so much
        rehearse = svc.hub._on_window_closing
        assert rehearse is not None
        rehearsals: list[tuple[float, float]] = []  # each rehearsal's wall and CPU time

        def timed_rehearsal() -> None:
            t0, c0 = time.monotonic(), time.thread_time()
            try:
                rehearse()
            finally:
                rehearsals.append((time.monotonic() - t0, time.thread_time() - c0))

        # --compare: the controller without its rehearsal (as before 2026-12-02), alternated with the
        # others in every round.
        variants = {name: Variant(name, rehearsal) for name, rehearsal in COMPARED} if args.compare else {}
        for v in variants.values():
            v.stages = [] if args.stages else None
        svc.hub._on_window_closing = timed_rehearsal
        # A controller sample lasts the launcher's stability window longer than the pause; the
        # others pause that much more, so every kind runs at the same cadence. (Code that ran
        # 25 ms ago is slower than code that ran 5 ms ago, a disk flush too, on these machines.)
        cadence = gap + cfg.hardware.sensor("launcher").window
        bare_round(port, receiver, 20, cadence, floor_db)  # warm-up
        controller_round(svc, receiver, 20, gap, value)
        for _ in range(args.rounds):
            floor += bare_round(port, receiver, args.samples, cadence, floor_db, floor_commits, floor_commit_cpu)
            s, e = controller_round(svc, receiver, args.samples, gap, value, stages, late)
            settled += s
            edge += e
            bare += bare_round(port, receiver, args.samples, cadence)
            fsync += fsync_round(tmp / "fsync.bin", args.samples, cadence)
            for v in variants.values():
                svc.hub._on_window_closing = timed_rehearsal if v.rehearsal else None
                v.settled += controller_round(svc, receiver, args.samples, gap, value, v.stages, v.late)[0]
                svc.hub._on_window_closing = timed_rehearsal
        svc.stop()
        receiver.close()
        floor_db.close()
    finally:
        proc.terminate()
        proc.wait(5)
    p50 = pct(settled, 50) / pct(floor, 50)
    p99 = pct(settled, 99) / pct(floor, 99)
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average "
          f"{os.getloadavg()[0]:.2f} after the run; journal on {tmp}")
    print(f"command: python bench/bench_edge_to_event.py --samples {args.samples} --rounds {args.rounds}"
          f"{' --dir ' + args.dir if args.dir else ''}{' --stages' if args.stages else ''}"
          f"{' --compare' if args.compare else ''}\n")
    print("| path | samples | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(row("durable floor: SQLite commit (WAL, FULL), then paho publish -> subscriber", floor))
    print(row("the floor's commit alone (BEGIN IMMEDIATE, one INSERT, COMMIT)", floor_commits))
    print(row("controller: settled input -> event at subscriber", settled))
    print(row("controller: first raw edge -> event (adds the 20 ms launcher window)", edge))
    print(row("bare paho publish -> subscriber (QoS 1, TCP_NODELAY)", bare))
    print(row("raw fsync: an event's bytes appended, then os.fsync", fsync))
    for v in variants.values():
        print(row(f"controller {v.name}", v.settled))
    print(row("the rehearsal before the launcher's window closes (its wall time)", [w for w, _ in rehearsals]))
    print(row("the same, its CPU time", [c for _, c in rehearsals]))
    print(row("settled after the window's end by (the hub's wake-up)", late))
    for v in variants.values():
        print(row(f"the same, {v.name}", v.late))
    print(f"\ncontroller / durable floor, p99: {p99:.2f}x (target <= {TARGET_P99}x: {verdict(p99, TARGET_P99)})")
    print(f"controller / durable floor, p50: {p50:.2f}x (target <= {TARGET_P50}x: {verdict(p50, TARGET_P50)})")
    print(f"durable floor / bare paho: p50 {pct(floor, 50) / pct(bare, 50):.2f}x, "
          f"p99 {pct(floor, 99) / pct(bare, 99):.2f}x; raw fsync p99 {pct(fsync, 99) * 1000:.3f} ms")
    for v in variants.values():
        print(f"controller {v.name} / durable floor: p50 {pct(v.settled, 50) / pct(floor, 50):.2f}x, "
              f"p99 {pct(v.settled, 99) / pct(floor, 99):.2f}x")
    if stages is not None:
        print(f"\nthe floor's commit, CPU time: p50 {pct(floor_commit_cpu, 50) * 1000:.3f} ms, "
              f"p99 {pct(floor_commit_cpu, 99) * 1000:.3f} ms")
        inline = svc.inline
        print(f"\ndecided in the hub's thread: {sum(inline)} of {len(inline)} observations")
        print("\n".join(stage_table(stages)))
        for v in variants.values():
            if v.stages:
                print(f"\nthe controller {v.name}:\n")
                print("\n".join(stage_table(v.stages)))
    return 0 if p99 <= TARGET_P99 and p50 <= TARGET_P50 else 1


if __name__ == "__main__":
    sys.exit(main())
