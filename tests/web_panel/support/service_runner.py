"""``gravekeeper run`` as a subprocess on the test broker (``--simulate``, or on a board the test gives it),
for end-to-end browser tests."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.protocol.security import join_code
from tests.support.broker import Broker, free_port
from tests.web_panel.support.browser import open_page

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class RunningService:
    proc: subprocess.Popen[str]
    table: str
    token: str
    panel_url: str
    game: str
    broker_url: str
    lines: list[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start_service(broker: Broker, tmp: Path, table: str, token: str | None, game: str = "terror",
                  timeout: float = 20.0, port: int | None = None, table_extra: str = "",
                  referee_extra: str = "", referee: dict[str, int] | None = None, seed: int = 1,
                  hardware: str | None = None) -> RunningService:
    """Start the controller with its panel; returns once the panel's address is printed.

    ``hardware``: the config's ``[hardware]`` sections; the controller then reads that board instead
    of running ``--simulate`` (``seed``: the first game's, as ``table.seed``).

    ``token=None`` configures none: the table makes one (kept beside the journal) and prints it.
    ``table_extra`` and ``referee_extra``: more TOML lines for the ``[table]`` and ``[referee]`` sections.
    ``referee`` overrides the ``[referee]`` timings below (e.g. a long window to open a page in).
    """
    timings = {"skull_window_ms": 1500, "trap_window_ms": 300, "mismatch_grace_ms": 100, "tomb_grace_ms": 300,
               **(referee or {})}
    port = port or free_port()
    config = tmp / f"{table}.toml"
    token_line = f'token = "{token}"\n' if token is not None else ""
    config.write_text(
        f'[table]\nid = "{table}"\n{token_line}game = "{game}"\nplayers = ["Ann", "Bo"]\nseed = {seed}\n{table_extra}'
        f'[mqtt]\nurl = "{broker.url}"\n'
        f'[journal]\npath = "{tmp / (table + ".journal")}"\n'
        f'[panel]\nport = {port}\n'
        "[referee]\n" + "".join(f"{key} = {value}\n" for key, value in timings.items())
        + referee_extra + (hardware or "")
    )
    simulate = ["--simulate"] if hardware is None else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(config), *simulate, "--log-level", "warning"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[str] = []
    found: queue.Queue[str | None] = queue.Queue()
    printed: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.startswith("gravekeeper: control token: "):
                printed.append(line.split("control token: ", 1)[1].split()[0])
            # Only the address itself: the panel child's log lines share this pipe, and one was
            # seen glued to the end of this line on a loaded machine.
            address = re.match(r"gravekeeper: panel: (https?://[^/\s]+/)", line)
            if address:
                found.put(address.group(1))
        found.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    try:
        url = found.get(timeout=max(0.1, deadline - time.monotonic()))
    except queue.Empty:
        url = None
    if url is None:
        proc.kill()
        proc.wait(5)
        raise AssertionError("gravekeeper run did not start its panel:\n" + "\n".join(lines[-30:]))
    if token is None:
        assert printed, "no control token was printed:\n" + "\n".join(lines[-30:])
        token = printed[0]
    return RunningService(proc=proc, table=table, token=token, panel_url=url, game=game, broker_url=broker.url,
                          lines=lines)


def join(page: Any, service: RunningService, game_id: str, seat: int) -> None:
    """Take ``seat`` of the game on ``page`` with the seat's join code, as its player does."""
    open_page(page, service.panel_url + f"t/{service.table}/join")
    page.fill("#join-code", join_code(service.token, service.table, game_id, seat))
    page.click("button[type=submit]")
    page.wait_for_selector("#hand")
