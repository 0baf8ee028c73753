"""The panel as a child process of ``gravekeeper run``.

The controller and the panel share nothing but the broker, so ``run`` starts
the panel in a process of its own: a crash or a memory spike in the web
server cannot take the referee down, and the controller's footprint stays its
own (``docs/performance.md``). Settings, tokens and passwords included, come in
one JSON line on stdin, never on the command line where ``ps`` would show
them. The child answers one JSON line on stdout: ``{"url": ...}`` or
``{"error": ...}``. It stops on SIGTERM, or when its stdin closes, which is
what happens when the parent dies, even by ``kill -9``.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Any


def _answer(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> int:
    from web_panel.server import start_panel
    from web_panel.settings import PanelSettings, SettingsError

    line = sys.stdin.readline()
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError("settings must be a JSON object")
        settings = PanelSettings(**data)
    except (ValueError, TypeError, SettingsError) as exc:
        _answer({"error": f"bad panel settings: {exc}"})
        return 2
    try:
        panel = start_panel(settings)
    except OSError as exc:
        _answer({"error": f"cannot listen on {settings.listen_host}:{settings.listen_port} "
                          f"({exc.strerror or exc})"})
        return 1
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us

    def watch_parent() -> None:
        sys.stdin.read()  # returns at EOF: the parent has gone
        stop.set()

    threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()
    _answer({"url": panel.url})
    try:
        stop.wait()
    finally:
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
