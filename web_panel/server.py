"""Serving the panel (``gravekeeper run`` and ``gravekeeper panel``): waitress, bounded for a room full of phones.

Why waitress, and the numbers below, are in ``docs/panel.md`` ("The server"). In short: one
thread reads every connection (``poll``), so a client that sends its request slowly, or not at
all, costs a buffer and a descriptor but never a worker; a request reaches a worker only once it
has fully arrived, and a body over the limit is refused from its ``Content-Length`` (or, chunked,
at the limit) before it is read. Each live page (an SSE stream) holds one worker while it lasts,
so streams are counted per client address and in all (``stream_gate.StreamGate``), and so are
connections (here). What the open-file limit allows is said once at start.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import resource
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Self

from waitress import wasyncore  # type: ignore[import-untyped]
from waitress.adjustments import Adjustments  # type: ignore[import-untyped]
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.parser import HTTPRequestParser  # type: ignore[import-untyped]
from waitress.server import TcpWSGIServer  # type: ignore[import-untyped]
from waitress.task import WSGITask  # type: ignore[import-untyped]
from waitress.utilities import RequestEntityTooLarge  # type: ignore[import-untyped]

from .app import create_app
from .auth import THIS_MACHINE, client_key
from .mqtt import MqttView
from .settings import PanelSettings
from .stream_gate import StreamGate
from .workers import Workers, holds_any_place

log = logging.getLogger(__name__)
# waitress says "Task queue depth is N" at every queued request: under a flood, a line per request.
logging.getLogger("waitress.queue").setLevel(logging.ERROR)

# A client that stops reading (a phone asleep with its stream open) is dropped once its output has
# waited this long: its worker and queue are freed. Streams write a keepalive every 15 s.
SEND_TIMEOUT_S = 30.0
# A request's line, headers and body must all arrive within this from its first byte (slowloris).
REQUEST_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 20  # a connection that sends nothing is closed after this
# One client address may hold this many connections and live pages.
# A phone keeps one stream per open page; a referee's laptop with a few tabs stays well below.
CONNECTIONS_PER_CLIENT = 24
STREAMS_PER_CLIENT = 8
# Live pages in all come from two budgets (docs/panel.md, "Memory per stream"). Descriptors: at most
# half the connections, so a room whose every phone keeps its pages open still leaves the other half for
# pages and commands (and for shedding what does nothing). Memory: each live page costs its worker
# (thread and stack pages in use) and its stream (queue, generator, buffers), measured at about 48 KiB
# on x86-64 and budgeted at STREAM_BYTES, within STREAM_MEMORY_BUDGET.
STREAM_MEMORY_BUDGET = 48 * 1024 * 1024
STREAM_BYTES = 64 * 1024
MOST_STREAMS = STREAM_MEMORY_BUDGET // STREAM_BYTES  # 768, whatever the file limit
# A quarter of the live pages are kept for the people with a place at a table (its referee, its seated
# players): devices that only watch, however many, cannot take those. A table's referee and four players
# with a page and its cues each are ten; a quarter of 768 is a club of 19 such tables, with phones to spare.
KEPT_SHARE = 4
WANTED_OPEN_FILES = 4096  # the soft open-file limit is raised towards this (never past the hard one)
# Workers for everything but live pages, a pool of its own (web_panel/workers.py): a flood of requests waits
# in its queue instead of running on hundreds of workers at once, and the tables' people go first. A command
# waits for the table's answer (at most panel.command_timeout): a few tables' players at once leave room.
REQUEST_THREADS = 24
STREAM_SPARE = 4  # workers beyond the live pages allowed: a live page refused (429, 503) is answered at once
FD_RESERVE = 48  # descriptors kept for everything but clients: the broker, files, the listener, pipes
MAX_HEADER_BYTES = 16 * 1024
MAX_BODY_BYTES = 64 * 1024  # the largest body any page sends (a board file is at most 48 KiB)
OUTBUF_HIGH_WATERMARK = 256 * 1024  # a stream's unsent output; past it its worker waits (see SEND_TIMEOUT_S)
# Not the default 8 MiB: 796 workers must fit a 32-bit Pi's address space (398 MiB of it at 512 KiB).
# Python's recursion limit stops the deepest the panel decodes (a JSON body nested 1,000 deep) before
# 256 KiB of C stack is used (measured on Python 3.11), so 512 KiB keeps a margin of two.
THREAD_STACK_BYTES = 512 * 1024
ACCEPT_BATCH = 64  # connections accepted at most in one turn of the loop
SHED_AT_ONCE = 32  # full: how many connections that do nothing are closed to let new ones in
SHED_SPARES_S = 1.0  # a connection this young is not closed to make room: its request is on its way
ACCEPT_PAUSE_S = 0.25  # out of descriptors: wait this long before accepting again, instead of spinning
SWEEP_EVERY_S = 0.5  # how often requests arriving too slowly and readers that stopped are looked for


@dataclass(frozen=True)
class Capacity:
    """How many clients the open-file limit allows."""

    open_files: int
    connections: int
    streams: int
    kept: int  # of the streams, those that people watching cannot take (``stream_gate.StreamGate``)

    def sentence(self) -> str:
        return (f"the open-file limit ({self.open_files}) allows {self.connections} connections at once, "
                f"{self.streams} of them live pages, {self.kept} of those kept for the referees and the players; "
                f"one device may hold {CONNECTIONS_PER_CLIENT} connections and {STREAMS_PER_CLIENT} live pages")


def raise_open_files(wanted: int = WANTED_OPEN_FILES) -> None:
    """Raise this process's soft open-file limit towards ``wanted``, as far as the hard limit allows.

    A Pi's service starts with a soft limit of 1,024 (hard: far more): half of what is left after the
    reserve is 488 live pages, fewer than a club room of phones. The hard limit is never raised (it
    cannot be, unprivileged), so a limit set on purpose, as the attack tests set it, stays.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def capacity(open_files: int | None = None) -> Capacity:
    """What ``open_files`` descriptors (default: this process's soft limit) allow."""
    if open_files is None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        open_files = 65536 if soft == resource.RLIM_INFINITY else int(soft)
    connections = max(16, open_files - FD_RESERVE)
    streams = max(4, min(MOST_STREAMS, connections // 2))
    return Capacity(open_files, connections, streams, streams // KEPT_SHARE)


class _Parser(HTTPRequestParser):
    """waitress's parser; a body over the limit is refused in words."""

    _worded = False
    error: Any

    def received(self, data: bytes) -> int:
        consumed = int(super().received(data))
        if isinstance(self.error, RequestEntityTooLarge) and not self._worded:
            self._worded = True
            limit = (self.adj.max_request_body_size - 1) // 1024
            self.error = RequestEntityTooLarge(f"the request's body is over {limit} KiB, the most the panel "
                                               "takes; it was not read")
        return consumed


class _Task(WSGITask):
    """One request a connection (``Connection: close``), as the panel always served.

    A phone that slept may hold kept-alive connections that died meanwhile without a word (its
    Wi-Fi went, a NAT forgot them). Waking, its browser would send the request that reopens its
    stream down one of them, and wait in vain; a fresh connection costs a millisecond on the LAN.
    It also leaves no idle connections to count against a device.
    """

    def build_response_header(self) -> bytes:
        self.set_close_on_finish()
        return bytes(super().build_response_header())


class _Channel(HTTPChannel):
    """One connection: counted against its client address; knows since when its request has been arriving."""

    parser_class = _Parser
    task_class = _Task
    server: _Server
    request_started: float | None = None
    _counted = False

    def __init__(self, server: _Server, sock: socket.socket, addr: Any, adj: Adjustments, map: Any = None) -> None:
        self.opened = time.monotonic()
        # Known before the base class registers the channel (add_channel), which it does before it sets addr.
        self.client = client_key(addr[0] if isinstance(addr, tuple) else None)
        super().__init__(server, sock, addr, adj, map)

    def add_channel(self, map: Any = None) -> None:
        super().add_channel(map)
        if not self._counted:
            self._counted = True
            self.server.client_opened(self.client)

    def del_channel(self, map: Any = None) -> None:
        super().del_channel(map)
        if self._counted:
            self._counted = False
            self.server.client_closed(self.client)

    def readable(self) -> bool:
        # Once the client has closed its end, its EOF would be reported at every poll: stop asking.
        return bool(self.connected and super().readable())

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.monotonic()
        done = bool(super().received(data))
        if self.request is None:
            self.request_started = None
        return done


class _Server(TcpWSGIServer):
    """waitress's server with a limit per client address, a deadline per request and a stop."""

    channel_class = _Channel

    def __init__(self, app: Any, listener: socket.socket, adj: Adjustments, per_client: int,
                 workers: Workers) -> None:
        self.per_client = per_client
        self.clients: dict[str, int] = {}
        self.refused = 0
        self._refused_logged = 0.0
        self._accept_paused_until = 0.0
        self._next_sweep = 0.0
        self.stopping = False
        self.workers = workers
        super().__init__(app, _sock=listener, bind_socket=False, adj=adj, dispatcher=workers)

    def client_opened(self, client: str) -> None:
        self.clients[client] = self.clients.get(client, 0) + 1

    def client_closed(self, client: str) -> None:
        held = self.clients.get(client, 0) - 1
        if held > 0:
            self.clients[client] = held
        else:
            self.clients.pop(client, None)

    def handle_accept(self) -> None:
        # Every connection waiting, up to a batch, not one a turn of the loop: under a flood of connections
        # the turns are slow (each polls every connection), and the referee's waited in the queue behind.
        for _ in range(ACCEPT_BATCH):
            if not self._accept_one():
                return

    def _accept_one(self) -> bool:
        """Accept one waiting connection; whether to try for another."""
        try:
            pair = self.accept()
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                # Accepting again at once would fail again at once, at full CPU; the kernel queues the rest.
                self._accept_paused_until = time.monotonic() + ACCEPT_PAUSE_S
                self._note_refusal(f"out of file descriptors ({exc.strerror})")
            return False
        if pair is None:
            return False
        conn, addr = pair
        client = client_key(addr[0] if isinstance(addr, tuple) else None)
        if self.clients.get(client, 0) >= self.per_client and client not in THIS_MACHINE:
            self._refuse(conn, client)
            return True
        try:
            self.set_socket_options(conn)
        except OSError:  # the client has already gone
            conn.close()
            return True
        self.channel_class(self, conn, addr, self.adj, map=self._map)
        return len(self._map) < self.adj.connection_limit

    def _refuse(self, conn: socket.socket, client: str) -> None:
        """Over the limit per address: a short answer if the socket takes it at once, then closed."""
        try:
            conn.setblocking(False)
            conn.send(b"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Type: text/plain\r\n"
                      b"Content-Length: 53\r\n\r\nthis device has too many connections open to the panel")
        except OSError:
            pass
        conn.close()
        self._note_refusal(f"{client} holds {self.per_client} connections, the most for one device")

    def _note_refusal(self, why: str) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self._refused_logged >= 10:  # once in a while: a flood must not flood the log too
            self._refused_logged = now
            log.warning("panel: connections refused (%d so far): %s", self.refused, why)

    def readable(self) -> bool:
        ready = bool(super().readable())  # also runs waitress's own maintenance() when it is due
        return ready and time.monotonic() >= self._accept_paused_until

    def _sweep(self) -> None:
        """Between two polls (closing a channel while the loop builds its poll set would confuse it)."""
        now = time.monotonic()
        if len(self._map) >= self.adj.connection_limit:
            self._shed()
        if now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_EVERY_S
        started_before = now - REQUEST_TIMEOUT_S
        sent_before = time.time() - SEND_TIMEOUT_S  # waitress keeps last_activity in wall-clock time
        for channel in list(self.active_channels.values()):
            started = getattr(channel, "request_started", None)
            if started is not None and started < started_before and not channel.requests:
                channel.handle_close()  # its request is still arriving: slow on purpose, or gone
            elif channel.total_outbufs_len and channel.last_activity < sent_before:
                channel.handle_close()  # it stopped reading: its worker waits on it, and is freed now

    def _shed(self) -> None:
        """Full: close the connections that do nothing for anyone, so that a new one (the referee's) gets in.

        Those are connections with no request being served: idle ones, and those whose request is
        still arriving, the slowest first. A stream or a request being answered is never closed here.
        """
        # Not one just accepted: its request is usually already on its way (under a flood of connections,
        # closing the newest closed the referee's before its request was read).
        young = time.monotonic() - SHED_SPARES_S
        idle = [c for c in self.active_channels.values()
                if not c.requests and not c.total_outbufs_len and getattr(c, "opened", 0.0) < young]
        idle.sort(key=lambda c: (getattr(c, "request_started", None) or float("inf"), c.last_activity))
        for channel in idle[:SHED_AT_ONCE]:
            channel.handle_close()
        if idle:
            self._note_refusal(f"{len(self._map)} connections open, all the open-file limit allows: "
                               f"closed {min(len(idle), SHED_AT_ONCE)} that were doing nothing")

    def serve(self) -> None:
        while not self.stopping:
            wasyncore.loop(timeout=self.adj.asyncore_loop_timeout, use_poll=True, map=self._map, count=1)
            self._sweep()
        # The connections go now (a worker waiting to write wakes and ends); the trigger and the
        # listener once the workers have ended (close()), since a worker that ends pulls the trigger.
        for channel in list(self.active_channels.values()):
            with contextlib.suppress(OSError):
                channel.handle_close()


class PanelServer:
    """A running panel: the waitress server plus its MQTT view. ``close()`` is idempotent."""

    def __init__(self, settings: PanelSettings, server: _Server, app: Any, capacity: Capacity) -> None:
        self.settings = settings
        self.app = app
        self.capacity = capacity
        self._server = server
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=server.serve, name="gk-panel-http", daemon=True)

    @property
    def host(self) -> str:
        return str(self._server.effective_host)

    @property
    def port(self) -> int:
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"  # a wildcard listener is reached on loopback from this machine
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        self._thread.start()

    def stuck(self, timeout: float) -> str | None:
        """Why the panel could not serve a page now, in words, or None: its loop (which accepts and reads the
        connections) and then a request worker each run a task of ours within ``timeout`` seconds, and the
        locks its live pages and commands take come free (``MqttView.stuck``).

        ``gravekeeper run`` starts a panel again that says it is stuck, or says nothing (web_panel/child.py).
        The worker's task goes before the requests waiting, so a flood of them does not make the panel look
        stuck; a panel whose every worker is held (a deadlock) or whose loop hangs does.
        """
        looped = threading.Event()
        self._server.trigger.pull_trigger(looped.set)  # run in the loop's own thread, at its next turn
        if not looped.wait(timeout):
            return f"its connection loop did not turn within {timeout:g} s"
        worked = threading.Event()
        self._server.workers.run_first(worked.set)
        if not worked.wait(timeout):
            return f"none of its request workers came free within {timeout:g} s"
        view: MqttView = self.app.extensions["gravekeeper"]
        return view.stuck(timeout)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Streams end first (their generators wake on the view closing), then the listener and workers.
        self.app.extensions["gravekeeper"].close()
        self._server.stopping = True
        self._server.pull_trigger()
        self._thread.join(5)
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        self._server.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_panel(settings: PanelSettings) -> PanelServer:
    """Connect to the broker (in the background) and serve the panel; returns at once.

    Raises ``OSError`` when the listen address cannot be bound (the port is taken).
    """
    family = socket.AF_INET6 if ":" in settings.listen_host else socket.AF_INET
    listener = socket.create_server((settings.listen_host, settings.listen_port), family=family, backlog=1024)
    raise_open_files()
    room = capacity()
    try:
        app = create_app({"PANEL_SETTINGS": settings})
    except BaseException:
        listener.close()
        raise
    gate = app.extensions["gravekeeper_streams"] = StreamGate(STREAMS_PER_CLIENT, room.streams, room.kept)
    adj = Adjustments(
        sockets=[listener], threads=room.streams + STREAM_SPARE + REQUEST_THREADS,
        connection_limit=room.connections,
        channel_timeout=IDLE_TIMEOUT_S, cleanup_interval=1, max_request_header_size=MAX_HEADER_BYTES,
        # waitress refuses a body of this many bytes or more: one over the largest allowed
        max_request_body_size=MAX_BODY_BYTES + 1, inbuf_overflow=MAX_BODY_BYTES + 1,
        outbuf_high_watermark=OUTBUF_HIGH_WATERMARK, outbuf_overflow=2 * OUTBUF_HIGH_WATERMARK,
        # Read on during a response: a client that closes its end is seen at once (sse.py asks).
        channel_request_lookahead=1,
        asyncore_use_poll=True, log_socket_errors=False, expose_tracebacks=False, ident="gravekeeper",
        clear_untrusted_proxy_headers=True,
    )
    previous_stack = threading.stack_size(THREAD_STACK_BYTES)
    workers: Workers | None = None
    try:
        workers = Workers(room.streams + STREAM_SPARE, REQUEST_THREADS, holds_any_place(app),
                          lambda channel: gate.refusal(channel.client) is None)
        server = _Server(app, listener, adj, CONNECTIONS_PER_CLIENT, workers)
    except BaseException:
        if workers is not None:
            workers.shutdown(cancel_pending=True, timeout=5)
        app.extensions["gravekeeper"].close()
        listener.close()
        raise
    finally:
        threading.stack_size(previous_stack)
    panel = PanelServer(settings, server, app, room)
    panel.start()
    log.info("panel listening on %s", panel.url)
    log.info("panel: %s", room.sentence())
    return panel
