"""A TCP relay in front of the panel whose open connections can be silenced, as a phone's are after sleep.

A phone that slept often holds a connection that is dead without knowing it: nothing more arrives, and no
error ever comes. ``silence()`` does that to every connection open now (their bytes are dropped, the
sockets stay open); connections made after it are relayed as usual.
"""

from __future__ import annotations

import socket
import threading


class Relay:
    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._lock = threading.Lock()
        self._open: list[tuple[socket.socket, socket.socket, threading.Event]] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(("127.0.0.1", self.target))
            quiet = threading.Event()
            with self._lock:
                self._open.append((client, upstream, quiet))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b, quiet), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket, quiet: threading.Event) -> None:
        try:
            while data := src.recv(65536):
                if not quiet.is_set():
                    dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def silence(self) -> None:
        """Every connection open now goes quiet both ways, without being closed."""
        with self._lock:
            for _, _, quiet in self._open:
                quiet.set()

    def close(self) -> None:
        self.server.close()
        with self._lock:
            conns, self._open = self._open, []
        for client, upstream, _ in conns:
            for s in (client, upstream):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
