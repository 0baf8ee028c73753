"""Serving the panel from a background thread (``gravekeeper run`` and ``gravekeeper panel``)."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from typing import Any, Self

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from .app import create_app
from .settings import PanelSettings

log = logging.getLogger(__name__)

# How long one read or write on a client's socket may block. A client that stops reading (a phone
# asleep with its stream open) would otherwise hold its thread and queue for as long as TCP lets it.
# Streams write a keepalive every 15 s, so a live reader is never near this.
SEND_TIMEOUT_S = 30.0


class _QuietHandler(WSGIRequestHandler):
    """Request lines go to our logger at debug level: an SSE page reconnecting is not news."""

    def setup(self) -> None:
        super().setup()
        # An SSE stream is many small writes; Nagle plus the browser's delayed ACK would hold each one back.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Kernel timeouts, not settimeout(): that makes Python poll() before every write, which cost
        # 100 streams about 6 ms per event. A send or read that times out fails like a dropped
        # connection, and werkzeug then closes the stream's generator.
        seconds = int(SEND_TIMEOUT_S)
        limit = struct.pack("ll", seconds, int((SEND_TIMEOUT_S - seconds) * 1_000_000))  # struct timeval
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)

    def log(self, type: str, message: str, *args: object) -> None:
        level = logging.DEBUG if type == "info" else logging.WARNING
        log.log(level, "%s %s", self.address_string(), message % args)


class PanelServer:
    """A running panel: a threaded werkzeug server plus its MQTT view. ``close()`` is idempotent."""

    def __init__(self, settings: PanelSettings, server: BaseWSGIServer, app: Any) -> None:
        self.settings = settings
        self.app = app
        self._server = server
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=server.serve_forever, name="gk-panel-http", daemon=True)

    @property
    def host(self) -> str:
        return str(self._server.host)

    @property
    def port(self) -> int:
        return int(self._server.port)

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

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Streams end first (their generators wake on the view closing), then the listener.
        self.app.extensions["gravekeeper"].close()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_panel(settings: PanelSettings) -> PanelServer:
    """Connect to the broker (in the background) and serve the panel; returns at once.

    Raises ``OSError`` when the listen address cannot be bound (the port is taken).
    """
    # Bind here: werkzeug answers a taken port with sys.exit(), which a caller cannot handle.
    listener = socket.create_server((settings.listen_host, settings.listen_port),
                                    family=socket.AF_INET6 if ":" in settings.listen_host else socket.AF_INET)
    app = create_app({"PANEL_SETTINGS": settings})
    try:
        server = make_server(settings.listen_host, listener.getsockname()[1], app, threaded=True,
                             request_handler=_QuietHandler, fd=listener.fileno())
    except BaseException:
        app.extensions["gravekeeper"].close()
        raise
    finally:
        listener.close()  # werkzeug holds its own duplicate of the socket
    # Request threads must not hold the process open after close (an SSE stream may still be writing).
    server.daemon_threads = True  # type: ignore[attr-defined]
    panel = PanelServer(settings, server, app)
    panel.start()
    log.info("panel listening on %s", panel.url)
    return panel
