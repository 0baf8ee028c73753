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

from web_panel.settings import PanelSettings, SettingsError, parse_broker_url


def _answer(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def settings_from(data: Any) -> PanelSettings:
    """Settings from the parent's JSON object; ``broker_url`` may stand for the broker fields.

    ``SettingsError`` (a ``ValueError``) names the bad setting.
    """
    if not isinstance(data, dict):
        raise SettingsError("settings must be a JSON object")
    data = dict(data)
    url = data.pop("broker_url", None)
    if url is not None:
        data.update(parse_broker_url(url))
    try:
        return PanelSettings(**data)
    except TypeError as exc:  # an unknown key
        raise SettingsError(f"unknown setting: {exc}") from None


def main() -> int:
    from web_panel.server import start_panel

    line = sys.stdin.readline()
    try:
        settings = settings_from(json.loads(line))
    except ValueError as exc:
        _answer({"error": str(exc), "kind": "settings"})
        return 2
    try:
        panel = start_panel(settings)
    except OSError as exc:
        _answer({"error": f"cannot listen on {settings.listen_host}:{settings.listen_port} "
                          f"({exc.strerror or exc})", "kind": "listen"})
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
