"""A TCP proxy on loopback that a test can cut and heal (a network link between two brokers), or silence.

``silence()`` is what a phone's connections suffer in its sleep: they are dead without knowing it,
nothing more arrives and no error ever comes (their bytes are dropped, the sockets stay open);
connections made after it are forwarded as usual.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.support.broker import free_port


class CutProxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``target``. ``cut()`` drops every connection
    at once and refuses new ones (they are accepted and closed) until ``heal()``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._cut = threading.Event()
        self._lock = threading.Lock()
        self._live: list[socket.socket] = []
        self._quiet: list[threading.Event] = []  # one a connection: set, its bytes are dropped
        self._closed = False
        self.connections = 0  # accepted and forwarded, over the proxy's life
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._thread = threading.Thread(target=self._accept, name="cut-proxy", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            if self._cut.is_set() or self._closed:
                conn.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                conn.close()
                continue
            upstream.settimeout(None)
            quiet = threading.Event()
            with self._lock:
                self._live += [conn, upstream]
                self._quiet.append(quiet)
                self.connections += 1
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pump, args=(a, b, quiet), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, quiet: threading.Event) -> None:
        try:
            while data := src.recv(65536):
                if not quiet.is_set():
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def _drop_all(self) -> None:
        with self._lock:
            live, self._live = self._live, []
            self._quiet = []
        for s in live:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def silence(self) -> None:
        """Every connection open now goes quiet both ways, without being closed."""
        with self._lock:
            for quiet in self._quiet:
                quiet.set()

    def cut(self) -> None:
        self._cut.set()
        self._drop_all()

    def heal(self) -> None:
        self._cut.clear()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        self._drop_all()
