"""The panel as it runs for real, for the attack tests: its own process, its own file limit, plain sockets.

``ChildPanel`` starts ``python -m web_panel.child`` (what ``gravekeeper run`` starts) with
``RLIMIT_NOFILE`` set in the child, so exhausting it is the panel's problem, not the test's.
``Browser`` is a person's browser reduced to what the attacks need: one cookie, a source address
(the attackers use other loopback addresses than the referee), and the time each answer took.
Everything stays on loopback.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[3]
FILE_LIMIT = 1024
ANSWER_TIMEOUT_S = 20.0  # one request's own deadline: generous for a busy CI machine


def raise_own_file_limit(needed: int) -> None:
    """The test process opens the attackers' sockets: it needs more descriptors than the panel."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        top = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert soft == resource.RLIM_INFINITY or soft >= needed, f"the test needs {needed} descriptors, has {soft}"


class ChildPanel:
    """``python -m web_panel.child`` under a file limit; ``close()`` stops it."""

    def __init__(self, settings: dict[str, Any], file_limit: int = FILE_LIMIT, hard_limit: int | None = None) -> None:
        # The soft limit the panel starts with, and the hard one it may raise it to (by default the same).
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, hard_limit or file_limit))

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-m", "web_panel.child"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, preexec_fn=limit)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"listen_port": 0, **settings}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        self.answer: dict[str, Any] = json.loads(line) if line else {"error": "no answer"}
        assert "url" in self.answer, f"the panel did not start: {self.answer}"
        parts = urllib.parse.urlsplit(self.answer["url"])
        self.host, self.port = str(parts.hostname), int(parts.port or 80)
        self.process = psutil.Process(self.proc.pid)
        # What it says after its answer (with "heartbeat_s" in its settings), each line when it was read.
        self.said: list[tuple[float, dict[str, Any]]] = []
        self._heard = threading.Condition()
        if "heartbeat_s" in settings:
            threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._heard:
                self.said.append((time.monotonic(), json.loads(line)))
                self._heard.notify_all()

    def wait_said(self, since: float, count: int, timeout: float) -> bool:
        """Until it has said ``count`` things (alive, or stuck) since ``since``: a span of its own heartbeats."""
        with self._heard:
            return self._heard.wait_for(lambda: sum(1 for at, _ in self.said if at >= since) >= count, timeout)

    def longest_silence(self, start: float, end: float) -> float:
        """The longest time between ``start`` and ``end`` in which it did not say it can serve a page."""
        beats = [at for at, said in list(self.said) if said.get("alive") is True and start <= at <= end]
        marks = [start, *beats, end]
        return max(b - a for a, b in itertools.pairwise(marks))

    def rss(self) -> int:
        return int(self.process.memory_info().rss)

    def cpu_seconds(self) -> float:
        times = self.process.cpu_times()
        return float(times.user + times.system)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def __enter__(self) -> ChildPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


class Browser:
    """One cookie jar at one source address; each request on a new connection, timed."""

    def __init__(self, panel: ChildPanel, source: str = "127.0.0.1", host_header: str | None = None) -> None:
        self.panel, self.source = panel, source
        self.cookie: str | None = None
        self.host_header = host_header or f"127.0.0.1:{panel.port}"

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None, timeout: float = ANSWER_TIMEOUT_S) -> Answer:
        conn = http.client.HTTPConnection(self.panel.host, self.panel.port, timeout=timeout,
                                          source_address=(self.source, 0))
        sent = {"Host": self.host_header, **(headers or {})}
        if self.cookie:
            sent["Cookie"] = self.cookie
        start = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=sent)
            r = conn.getresponse()
            data = r.read()
        finally:
            conn.close()
        seconds = time.monotonic() - start
        for name, value in r.getheaders():
            if name.lower() == "set-cookie" and value.startswith("gk_session="):
                self.cookie = value.split(";", 1)[0]
        return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, data, seconds)

    def csrf(self, table: str) -> str:
        page = self.request("GET", f"/t/{table}")
        assert page.status == 200, page.text[:300]
        return page.text.split('data-csrf="', 1)[1].split('"', 1)[0]

    def post_form(self, path: str, fields: dict[str, str]) -> Answer:
        return self.request("POST", path, urllib.parse.urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})

    def log_in(self, table: str, token: str) -> Answer:
        return self.post_form(f"/t/{table}/login", {"token": token, "csrf": self.csrf(table)})

    def join(self, table: str, code: str) -> Answer:
        return self.post_form(f"/t/{table}/join", {"code": code, "csrf": self.csrf(table)})


def referee_timings(referee: Browser, table: str, tries: int = 5) -> tuple[list[float], list[float]]:
    """How long the referee's page and a command took, ``tries`` times each (the referee is logged in)."""
    pages: list[float] = []
    commands: list[float] = []
    for _ in range(tries):
        try:
            page = referee.request("GET", f"/t/{table}")
        except OSError as exc:  # timed out, or refused: the panel did not answer the referee at all
            raise AssertionError(f"the referee's page got no answer within {ANSWER_TIMEOUT_S:g} s: {exc!r}") from None
        assert page.status == 200, f"the referee's page answered {page.status}: {page.text[:200]}"
        pages.append(page.seconds)
        csrf = page.text.split('data-csrf="', 1)[1].split('"', 1)[0]
        try:
            act = referee.request("POST", f"/t/{table}/cmd/act",
                                  json.dumps({"action": {"kind": "roll", "player": 0}}).encode(),
                                  {"Content-Type": "application/json", "X-CSRF-Token": csrf})
        except OSError as exc:
            raise AssertionError(f"the referee's command got no answer within {ANSWER_TIMEOUT_S:g} s: "
                                 f"{exc!r}") from None
        assert act.status == 200, f"the referee's command answered {act.status}: {act.text[:200]}"
        commands.append(act.seconds)
    return pages, commands


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def open_connections(panel: ChildPanel, sources: list[str], count: int, first: bytes,
                     connect_within: float = 10.0) -> list[socket.socket]:
    """``count`` connections spread over ``sources``, each sending ``first`` once connected.

    Non-blocking, so a full accept queue cannot hang the test: what is not connected within
    ``connect_within`` seconds is still kept open (the kernel goes on trying), as an attacker would.
    """
    import selectors

    socks: list[socket.socket] = []
    pending: dict[socket.socket, bool] = {}
    sel = selectors.DefaultSelector()
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((sources[i % len(sources)], 0))
        s.setblocking(False)
        s.connect_ex((panel.host, panel.port))
        socks.append(s)
        pending[s] = True
        sel.register(s, selectors.EVENT_WRITE)
    deadline = time.monotonic() + connect_within
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(0.2):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            sel.unregister(ready)
            pending.pop(ready, None)
            if ready.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                with contextlib.suppress(OSError):  # refused at once: the panel's limit per address
                    ready.send(first)
    sel.close()
    return socks


def answer_status(s: socket.socket) -> int:
    """The status of the answer on ``s`` (0 if none came before the panel closed it)."""
    head = b""
    while b"\r\n" not in head:
        chunk = s.recv(64)
        if not chunk:
            break
        head += chunk
    return int(head.split()[1]) if head.startswith(b"HTTP/1.") else 0


def stream_status(panel: ChildPanel, who: Browser, path: str) -> int:
    """The status a live page of ``who`` (its address, its cookie) is answered with."""
    with socket.create_connection((panel.host, panel.port), timeout=10, source_address=(who.source, 0)) as s:
        cookie = f"Cookie: {who.cookie}\r\n" if who.cookie else ""
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\nAccept: text/event-stream\r\n"
                  f"{cookie}\r\n".encode())
        return answer_status(s)


def close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        s.close()


def wait_for_game(browser: Browser, table: str, timeout: float = 30.0) -> None:
    """Until the panel has learnt the table and its game (``g1``) from the broker."""
    import threading

    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        r = browser.request("GET", f"/api/t/{table}")
        if r.status == 200 and '"g1"' in json.dumps(r.json()):
            return
        assert time.monotonic() < deadline, f"the panel did not learn table {table}'s game: {r.status} {r.text[:200]}"
        pause.wait(0.1)


def settle(panel: ChildPanel, most: float = 20.0) -> int:
    """Until the panel's open descriptors stop changing for a second (the attack has taken hold); their count."""
    import threading

    pause = threading.Event()
    deadline = time.monotonic() + most
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        fds = panel.process.num_fds()
        if fds != last:
            last, since = fds, time.monotonic()
        elif time.monotonic() - since >= 1.0:
            break
        pause.wait(0.2)
    return last
