"""Panel: 100 SSE clients on one table (or spread over several). Event latency (publish -> SSE client), panel RSS.

Runs a Mosquitto of its own on a free loopback port and ``gravekeeper panel``
as a separate process (so its memory is measured alone). This process
publishes a table's retained topics and then events, each stamped with
``time.monotonic()`` (one clock for every process on Linux), while one
selector thread reads all SSE streams and stamps each event as it arrives.
A bare paho subscriber on the same broker gives the baseline in the same run.

    .venv/bin/python bench/bench_sse.py [--clients 100] [--events 200] [--rate 20] [--tables 1]

With ``--tables N`` the clients are spread evenly over N tables (a club: 500
phones as ``--clients 500 --tables 10``) and the events go round the tables,
``--rate`` in all.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import shutil
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
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from controller.protocol.publication import Publisher  # noqa: E402 - the script puts its folders on sys.path first
from controller.protocol.signing import signed_status  # noqa: E402

TABLE = "bench"
TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port} after {timeout} s")


def panel_rss(proc: psutil.Process) -> int:
    """The panel's resident memory: its own and its children's (``gravekeeper panel`` may serve from a child)."""
    total = 0
    for p in (proc, *proc.children(recursive=True)):
        with contextlib.suppress(psutil.NoSuchProcess):  # a child that ended meanwhile holds nothing
            total += p.memory_info().rss
    return total


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class SseClients:
    """``n`` raw HTTP connections to the stream, read by one selector thread."""

    def __init__(self, port: int, n: int, tables: tuple[str, ...] = (TABLE,)) -> None:
        self.sel = selectors.DefaultSelector()
        self.latencies: list[float] = []
        self.per_client: list[int] = [0] * n
        self.snapshots = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.buffers: dict[int, bytes] = {}
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            request = (f"GET /t/{tables[i % len(tables)]}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Accept: text/event-stream\r\n\r\n")
            s.sendall(request.encode())
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, i)
            self.buffers[i] = b""
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(0.2):
                now = time.monotonic()
                try:
                    chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    continue
                i = key.data
                buf = self.buffers[i] + chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    if b"event: snapshot" in block:
                        with self.lock:
                            self.snapshots += 1
                    if b"event: event" in block:
                        data = json.loads(block.split(b"data: ", 1)[1])
                        with self.lock:
                            self.latencies.append(now - data["data"]["t0"])
                            self.per_client[i] += 1
                self.buffers[i] = buf

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--rate", type=float, default=20.0, help="events per second")
    ap.add_argument("--tables", type=int, default=1, help="tables the clients are spread over")
    args = ap.parse_args(argv)
    tables = (TABLE,) if args.tables <= 1 else tuple(f"{TABLE}{k}" for k in range(args.tables))

    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(mosquitto).exists():
        raise SystemExit("mosquitto is needed for this benchmark (apt install mosquitto)")
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-sse-"))
    bport, hport = free_port(), free_port()
    (tmp / "m.conf").write_text(f"listener {bport} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                                "max_queued_messages 10000\n")
    broker = subprocess.Popen([mosquitto, "-c", str(tmp / "m.conf")], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    panel = None
    try:
        wait_port(bport)
        panel = subprocess.Popen(
            [sys.executable, "-m", "controller", "panel", "--broker", f"mqtt://127.0.0.1:{bport}",
             "--port", str(hport), "--token", TOKEN], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(hport)
        proc = psutil.Process(panel.pid)

        pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-pub")
        pub.connect("127.0.0.1", bport)
        pub.loop_start()
        signers = {}
        for table in tables:
            base = f"gravekeeper/{table}"
            status = signed_status(TOKEN, table, {"state": "online", "table": table, "game": "terror",
                                                  "instance": "bench-run", "since": time.time()})
            pub.publish(f"{base}/status", status, 1, True)
            state = {"seq": 0, "table": table, "game": "terror", "game_id": "g", "players": ["A", "B"],
                     "current_player": 0, "over": False, "winners": [], "view": {"pad": "x" * 4000}, "legal": [],
                     "expects": [], "waiting_for": "Roll the dice.", "mismatch": None, "board": "manual"}
            # Signed as the controller signs them: the panel holds the token and takes nothing else.
            signers[table] = Publisher(TOKEN, table, "bench-run", time.time())
            pub.publish(f"{base}/state", signers[table].sign("state", json.dumps(state).encode()), 1,
                        True).wait_for_publish(5)

        bare: list[float] = []
        sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-bare")
        ready = threading.Event()
        sub.on_connect = lambda c, u, f, r, p: (c.subscribe("gravekeeper/+/events", 1), ready.set())
        sub.on_message = lambda c, u, m: bare.append(time.monotonic() - json.loads(m.payload)["data"]["t0"])
        sub.connect("127.0.0.1", bport)
        sub.loop_start()
        ready.wait(5)
        for s in (pub, sub):
            sock = s.socket()
            if isinstance(sock, socket.socket):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        time.sleep(1.0)  # the panel has the retained state; let it settle before the baseline
        rss_idle = panel_rss(proc)
        clients = SseClients(hport, args.clients, tables)
        deadline = time.monotonic() + 20
        while clients.snapshots < args.clients and time.monotonic() < deadline:
            time.sleep(0.05)
        rss_connected = panel_rss(proc)
        interval = 1.0 / args.rate
        start = time.monotonic()
        for seq in range(1, args.events + 1):
            target = start + seq * interval
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            table = tables[seq % len(tables)]
            ev = {"seq": (seq - 1) // len(tables) + 1, "table": table, "type": "bench", "time": time.time(),
                  "data": {"t0": time.monotonic()}}
            pub.publish(f"gravekeeper/{table}/events", signers[table].sign("events", json.dumps(ev).encode()), 1)
        viewers = [sum(1 for i in range(args.clients) if i % len(tables) == k) for k in range(len(tables))]
        expected = sum(viewers[seq % len(tables)] for seq in range(1, args.events + 1))
        deadline = time.monotonic() + 10
        while len(clients.latencies) < expected and time.monotonic() < deadline:
            time.sleep(0.05)
        rss_after = panel_rss(proc)
        clients.close()
        time.sleep(1.0)
        rss_closed = panel_rss(proc)
        pub.loop_stop()
        sub.loop_stop()

        lat = [x * 1000 for x in clients.latencies]
        base_ms = [x * 1000 for x in bare]
        mb = 1024 * 1024
        print(f"clients {args.clients} on {len(tables)} table(s), events {args.events} at {args.rate:g}/s, "
              f"received {len(lat)} of {expected} (lost {expected - len(lat)})")
        print(f"SSE event latency ms: p50 {pct(lat, 50):.1f}  p99 {pct(lat, 99):.1f}  max {max(lat):.1f}  "
              f"mean {statistics.fmean(lat):.1f}")
        print(f"bare MQTT latency ms: p50 {pct(base_ms, 50):.1f}  p99 {pct(base_ms, 99):.1f}")
        print(f"panel RSS MB: idle {rss_idle / mb:.1f}, {args.clients} streams open {rss_connected / mb:.1f}, "
              f"after events {rss_after / mb:.1f}, streams closed {rss_closed / mb:.1f} "
              f"(growth with streams {(rss_after - rss_idle) / mb:+.1f})")
        print(f"panel memory per client: {(rss_after - rss_idle) / args.clients / 1024:.0f} KiB "
              f"(streams open {(rss_connected - rss_idle) / args.clients / 1024:.0f} KiB)")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
        return 0 if lat and pct(lat, 99) <= 100 and len(lat) == expected else 1
    finally:
        if panel is not None:
            panel.send_signal(signal.SIGTERM)
            try:
                panel.wait(10)
            except subprocess.TimeoutExpired:
                panel.kill()
        broker.terminate()
        broker.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
