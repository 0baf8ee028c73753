"""The panel as a child process of ``gravekeeper run``.

The controller and the panel share nothing but the broker, so ``run`` starts
the panel in a process of its own: a crash or a memory spike in the web
server cannot take the referee down, and the controller's footprint stays its
own (``docs/performance.md``). Settings, tokens and passwords included, come in
one JSON line on stdin, never on the command line where ``ps`` would show
them. The child answers one JSON line on stdout: ``{"url": ..., "urls":
[...], "join_url": ..., "qr": ...}`` (every address other devices can use,
the player's join page and its QR code drawn for a terminal, and "capacity":
how many clients the open-file limit allows) or ``{"error":
..., "kind": ...}``; a taken port adds ``"free_port"``, the next port that is
free to try. It stops on SIGTERM, or when its stdin closes, which is
what happens when the parent dies, even by ``kill -9``.

With ``"heartbeat_s"`` among the settings (``gravekeeper run`` asks for it), it
then writes ``{"alive": true}`` that often while it can serve a page (its
connection loop turns, and a request worker comes free: ``PanelServer.stuck``),
or ``{"stuck": <why>}``; the parent starts again a panel that falls silent.
"""

from __future__ import annotations

import errno
import json
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from gravekeeper.signals import StopOnSignals
from web_panel.settings import PanelSettings, SettingsError, broker_settings

if TYPE_CHECKING:
    from web_panel.server import PanelServer  # imported when the panel starts, not before (settings first)


def _answer(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def heartbeat_from(data: Any) -> float | None:
    """Take ``heartbeat_s`` out of the parent's settings: how often to say the panel is alive, or None."""
    if not isinstance(data, dict) or "heartbeat_s" not in data:
        return None
    every = data.pop("heartbeat_s")
    if isinstance(every, bool) or not isinstance(every, (int, float)) or not 0.05 <= every <= 600:
        raise SettingsError(f"heartbeat_s must be a number of seconds from 0.05 to 600, not {every!r}")
    return float(every)


def _beat(panel: PanelServer, every: float, stop: threading.Event) -> None:
    """Every ``every`` seconds: whether the panel can serve a page, on stdout for the parent."""
    while not stop.wait(every):
        try:
            why = panel.stuck(every)
        except Exception as exc:  # a check that fails (the server closing) is no heartbeat, and said so
            why = f"its check failed: {exc}"
        try:
            _answer({"alive": True} if why is None else {"stuck": why})
        except (OSError, ValueError):  # the parent has gone: stdin's EOF stops the panel
            return


def settings_from(data: Any) -> PanelSettings:
    """Settings from the parent's JSON object; ``broker_url`` may stand for the broker fields.

    ``SettingsError`` (a ``ValueError``) names the bad setting.
    """
    if not isinstance(data, dict):
        raise SettingsError("settings must be a JSON object")
    data = dict(data)
    heartbeat_from(data)  # the child's own, not the panel's: checked, and taken out
    url = data.pop("broker_url", None)
    if url is not None:
        data.update(broker_settings(url))
    if isinstance(data.get("public_names"), list):
        data["public_names"] = tuple(data["public_names"])  # JSON has no tuples
    try:
        return PanelSettings(**data)
    except TypeError as exc:  # an unknown key
        raise SettingsError(f"unknown setting: {exc}") from None


# A panel restarted at once may find its old self still closing its socket: wait that long for the port.
BUSY_WAIT_S = 5.0


def _start(settings: PanelSettings) -> PanelServer:
    from web_panel.server import start_panel

    deadline = time.monotonic() + BUSY_WAIT_S
    while True:
        try:
            return start_panel(settings)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def where(settings: PanelSettings, url: str, port: int) -> dict[str, Any]:
    """The addresses to print: every URL of the panel, the join page's and its QR code."""
    from web_panel.reach import (
        join_path,
        other_devices_can_use,
        qr_terminal,
        reach_urls,
    )

    urls = reach_urls(settings.listen_host, port)
    joins = reach_urls(settings.listen_host, port, join_path(settings.home_table))
    join_url = next((u for u in joins if other_devices_can_use(u)), joins[0])
    return {"url": url, "urls": urls, "join_url": join_url, "qr": qr_terminal(join_url),
            "local_only": not any(other_devices_can_use(u) for u in urls)}


def main() -> int:
    from web_panel.panel_state import PanelStateError

    line = sys.stdin.readline()
    try:
        data = json.loads(line)
        heartbeat = heartbeat_from(data)  # taken out here: settings_from finds none left to check
        settings = settings_from(data)
    except ValueError as exc:
        _answer({"error": str(exc), "kind": "settings"})
        return 2
    try:
        panel = _start(settings)
    except PanelStateError as exc:
        _answer({"error": str(exc), "kind": "state"})
        return 1
    except OSError as exc:
        answer: dict[str, Any] = {"error": f"cannot listen on {settings.listen_host}:{settings.listen_port} "
                                           f"({exc.strerror or exc})", "kind": "listen"}
        if exc.errno == errno.EADDRINUSE:
            from web_panel.reach import next_free_port

            answer["busy"] = True
            answer["free_port"] = next_free_port(settings.listen_host, settings.listen_port)
        _answer(answer)
        return 1
    stop = threading.Event()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us

    def watch_parent() -> None:
        sys.stdin.read()  # returns at EOF: the parent has gone
        stop.set()

    threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()
    _answer({**where(settings, panel.url, panel.port), "capacity": panel.capacity.sentence()})
    if heartbeat is not None:
        threading.Thread(target=_beat, args=(panel, heartbeat, stop), name="gk-panel-heartbeat", daemon=True).start()
    try:
        with StopOnSignals(stop, (signal.SIGTERM,)):
            stop.wait()
    finally:
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
