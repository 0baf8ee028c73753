"""The outside observers of ``bench_club.py``, each run as a process of its own.

``mqtt PORT SECONDS``: a subscriber to ``gravekeeper/#`` that counts every
message and times every event (its ``time``, set when the table decided it,
to arrival, both on the wall clock of this one machine).

``sse HTTP_PORT SECONDS PHONES TABLE...``: ``PHONES`` phones per table on the
panel's table stream, and one club list, reading over raw sockets; it times
every ``event`` the same way.

Each waits for ``start`` on stdin, measures for ``SECONDS``, then prints one JSON line.
"""

from __future__ import annotations

import json
import selectors
import socket
import sys
import time
from typing import Any


def mqtt_probe(port: int, seconds: float) -> dict[str, Any]:
    import paho.mqtt.client as mqtt

    lat: list[float] = []
    arrivals: list[list[Any]] = []  # [table, seq, monotonic arrival, ms]: matched with the tables' stamps
    counts: dict[str, int] = {}
    state = {"on": False}

    def on_message(c: Any, u: Any, msg: Any) -> None:
        if not state["on"]:
            return
        kind = msg.topic.split("/")[2] if msg.topic.count("/") >= 2 else msg.topic
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "events":
            now, arrived = time.time(), time.monotonic()
            event = json.loads(msg.payload)
            lat.append((now - event["time"]) * 1000)
            arrivals.append([event["table"], event["seq"], arrived, lat[-1]])

    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-club-sub-{time.monotonic_ns()}")
    c.on_connect = lambda c, *a: c.subscribe("gravekeeper/#", 1)
    c.on_message = on_message
    c.connect("127.0.0.1", port)
    c.loop_start()
    print("ready", flush=True)
    sys.stdin.readline()
    state["on"] = True
    time.sleep(seconds)  # the measuring window itself
    state["on"] = False
    c.disconnect()
    c.loop_stop()
    return {"latency_ms": lat, "counts": counts, "arrivals": arrivals}


def sse_probe(port: int, seconds: float, phones: int, tables: list[str]) -> dict[str, Any]:
    sel = selectors.DefaultSelector()
    paths = [f"/t/{t}/stream" for t in tables for _ in range(phones)] + ["/api/tables/stream"]
    buffers: dict[int, bytes] = {}
    for i, path in enumerate(paths):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
        buffers[i] = b""
    # Streams are read from the start (a phone reads as things come); only the window is timed.
    sel.register(sys.stdin, selectors.EVENT_READ, "start")
    print("ready", flush=True)
    lat: list[float] = []
    lines = 0
    end = float("inf")
    while time.monotonic() < end:
        for key, _ in sel.select(0.2):
            now = time.time()
            if key.data == "start":
                sys.stdin.readline()
                sel.unregister(sys.stdin)
                end = time.monotonic() + seconds
                lat, lines = [], 0
                continue
            try:
                chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            buf = buffers[key.data] + chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                if b"event: event\n" in block:
                    lat.append((now - json.loads(block.split(b"data: ", 1)[1])["time"]) * 1000)
                elif b"event: table\n" in block:
                    lines += 1
            buffers[key.data] = buf
    return {"latency_ms": lat, "streams": len(paths), "list_lines": lines}


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "mqtt":
        out = mqtt_probe(int(sys.argv[2]), float(sys.argv[3]))
    else:
        out = sse_probe(int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
    print(json.dumps(out), flush=True)
