"""The web panel as a child process, shared by ``gravekeeper run`` and ``gravekeeper panel``.

The controller and the panel share nothing but the broker, so the panel runs in
a process of its own (``python -m web_panel.child``): a crash or a memory spike
in the web server cannot take the referee down, and the command line never
imports Flask or the panel's code. Settings (tokens and passwords included)
travel as one JSON line on the child's stdin, never on its command line where
``ps`` would show them; the child checks them and answers one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)



class PanelStopped(GravekeeperError):
    """The caller was asked to stop while its panel was starting."""


class PanelSettingsRefused(GravekeeperError, ValueError):
    """The child refused a setting; the message names it (``broker_port must be ...``)."""


class PanelPortBusy(GravekeeperError, OSError):
    """The panel's port is taken; ``free_port`` is the next one free to try (``None`` if none was found)."""

    def __init__(self, message: str, free_port: int | None) -> None:
        super().__init__(message)
        self.free_port = free_port


class PanelProcess:
    """A running panel child; ``close()`` stops it (idempotent)."""

    START_TIMEOUT_S = 20.0

    def __init__(self, settings: dict[str, Any], stop: threading.Event) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "web_panel.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(settings) + "\n")
        self._proc.stdin.flush()
        # Wait for the child's answer, but not past a stop: on a busy machine the child's
        # start can take seconds, and stopping must not wait for it.
        deadline = time.monotonic() + self.START_TIMEOUT_S
        ready: list[Any] = []
        while not ready and not stop.is_set() and time.monotonic() < deadline:
            ready, _, _ = select.select([self._proc.stdout], [], [], 0.1)
        if stop.is_set() and not ready:
            self.close()
            raise PanelStopped()
        line = self._proc.stdout.readline() if ready else ""
        try:
            answer = json.loads(line) if line else {"error": "it did not start within "
                                                              f"{self.START_TIMEOUT_S:g} s"}
        except ValueError:
            answer = {"error": f"unexpected answer {line.strip()!r}"}
        if not isinstance(answer, dict) or "url" not in answer:
            self.close()
            error = str(answer.get("error", "unknown error")) if isinstance(answer, dict) else "unknown error"
            if isinstance(answer, dict) and answer.get("kind") in ("settings", "state"):
                raise PanelSettingsRefused(error)
            if isinstance(answer, dict) and answer.get("busy"):
                free = answer.get("free_port")
                raise PanelPortBusy(error, free if isinstance(free, int) else None)
            raise OSError(error)
        self.url: str = answer["url"]
        # Where other devices reach it, and the player's join page with its QR code for a terminal.
        self.urls: list[str] = [str(u) for u in answer.get("urls") or [self.url]]
        self.join_url: str = str(answer.get("join_url") or self.url)
        self.qr: str = str(answer.get("qr") or "")
        self.local_only: bool = bool(answer.get("local_only"))
        self.capacity: str = str(answer.get("capacity") or "")
        self._heard_at = time.monotonic()
        self.stuck: str | None = None  # why it last said it could not serve a page

    def exited(self) -> int | None:
        """The child's exit status once it has ended on its own, else ``None``."""
        return self._proc.poll()

    def silent_for(self) -> float:
        """Seconds since the child last said it can serve a page (its heartbeat, ``"heartbeat_s"`` in its
        settings), or since it started; ``stuck`` keeps the last reason it gave for not being able to."""
        out = self._proc.stdout
        while out is not None and not out.closed and select.select([out], [], [], 0)[0]:
            line = out.readline()  # the child writes whole lines, each at once
            if not line:
                break  # its end closed: it has exited, or is about to
            try:
                said = json.loads(line)
            except ValueError:
                continue
            if isinstance(said, dict) and said.get("alive") is True:
                self._heard_at, self.stuck = time.monotonic(), None
            elif isinstance(said, dict) and isinstance(said.get("stuck"), str):
                self.stuck = said["stuck"]
        return time.monotonic() - self._heard_at

    def kill_if_hung(self, after: float) -> str | None:
        """End the child if it has not said it can serve a page for ``after`` seconds, and say why, in words
        ("served no page for 30 s: ..."); None if it has. SIGKILL also ends one stopped or hung in C code."""
        silent = self.silent_for()
        if silent < after:
            return None
        if self._proc.poll() is None:
            self._proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(5)
        return f"served no page for {silent:.0f} s" + (f": {self.stuck}" if self.stuck else "")

    def close(self) -> None:
        """Stop the child; safe to call twice."""
        if self._proc.poll() is None:
            if self._proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self._proc.stdin.close()  # the child stops at EOF
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def where_lines(panel: PanelProcess, table: str | None) -> list[str]:
    """What to print once the panel is up: its address, every one other devices can use, the join QR."""
    lines = [f"panel: {panel.url}"]
    if panel.capacity:
        lines.append(f"panel: {panel.capacity}")
    if panel.local_only:
        lines.append("panel: only this machine can open it; listen on every interface (--host 0.0.0.0) "
                     "so that players' phones can")
        return lines
    others = [u for u in panel.urls if not _loopback(u)]
    for url in others:
        lines.append(f"panel from other devices: {url}")
    who = f"players join table {table!r}" if table else "players open the panel"
    lines.append(f"{who} at {panel.join_url} (scan this code with a phone's camera):")
    if panel.qr:
        lines.append(panel.qr.rstrip("\n"))
    return lines


def busy_line(exc: PanelPortBusy, port: int, option: str) -> str:
    """The sentence for a taken port: say so, and name the next free one to try."""
    text = f"cannot listen on port {port}: it is already in use (another panel, or another program, listens there)"
    if exc.free_port is None:
        return f"{text}; choose another with {option}"
    return f"{text}; port {exc.free_port} is free: try {option} {exc.free_port}"


def _loopback(url: str) -> bool:
    host = url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


# A panel that dies is started again after these waits, one after another, the last one repeated;
# one that then ran this long without dying starts the count again.
RESTART_WAITS_S = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 60.0)
RESTART_STABLE_S = 60.0
WATCH_EVERY_S = 0.5
# A panel that hangs (a deadlock, every worker held, a loop that no longer turns, a process stopped) serves
# no page, yet has not died. The child says, this many times within panel.hang_timeout (30 s by default),
# that it can serve one; silent for the whole of it, it is killed and started again. Long enough that a
# machine busy for seconds, or a flood of requests (the child's own check goes before them), does not cost
# the phones their live pages; short enough that the people at the table are back within a minute.
BEATS_PER_HANG_TIMEOUT = 6


def heartbeat_for(hang_timeout: float) -> float:
    """How often the child says it can serve a page, for a supervisor that waits ``hang_timeout`` seconds."""
    return hang_timeout / BEATS_PER_HANG_TIMEOUT


def exit_reason(status: int) -> str:
    """A child's exit status in words: ``killed by signal SIGKILL``, ``exited with status 1``."""
    import signal

    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        return f"killed by signal {name}"
    return f"exited with status {status}"


class PanelSupervisor:
    """Keeps the panel child running: one that dies is started again after a wait that grows.

    Whatever the panel does, the controller goes on refereeing: this runs in a thread of its own
    and catches every failure of a restart. ``health()`` is what the controller publishes about
    it (``panel`` in the health payload); ``on_change`` is called (from this thread) whenever it changes.
    """

    def __init__(self, panel: PanelProcess, settings: dict[str, Any], say: Callable[[str], None],
                 on_change: Callable[[], None] = lambda: None, hung_after: float | None = None) -> None:
        self._panel: PanelProcess | None = panel
        self._settings, self._say, self._on_change = settings, say, on_change
        # With heartbeats asked of the child (``"heartbeat_s"`` in ``settings``): silent this long, it is hung.
        self._hung_after = hung_after
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._health: dict[str, Any] = {"state": "running", "url": panel.url, "restarts": 0, "last_exit": None}
        self._started = time.monotonic()
        self._failures = 0  # deaths since it last ran RESTART_STABLE_S
        self._thread = threading.Thread(target=self._watch, name="gk-panel-supervisor", daemon=True)
        self._thread.start()

    def health(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._health)

    def _set(self, **fields: Any) -> None:
        with self._lock:
            self._health.update(fields)
        try:
            self._on_change()
        except Exception:  # the controller is busy or stopping: the next periodic health has it
            log.warning("panel supervisor: health not published at once", exc_info=True)

    def _watch(self) -> None:
        while not self._closing.wait(WATCH_EVERY_S):
            panel = self._panel
            status = panel.exited() if panel is not None else None
            reason = exit_reason(status) if status is not None else None
            if panel is not None and reason is None and self._hung_after is not None:
                hung = panel.kill_if_hung(self._hung_after)
                if hung is not None:
                    reason = f"it {hung}"
                    log.warning("panel child hung (%s): killed it", reason)
            if reason is None:
                continue
            try:
                self._restart(reason)
            except Exception as exc:  # never the controller's end: say so, and try again later
                log.exception("panel supervisor: restart failed")
                self._say(f"panel: could not be started again ({exc})")

    def _restart(self, reason: str) -> None:
        if time.monotonic() - self._started >= RESTART_STABLE_S:
            self._failures = 0
        self._failures += 1
        restarts = int(self.health()["restarts"]) + 1
        while not self._closing.is_set():
            wait = RESTART_WAITS_S[min(self._failures - 1, len(RESTART_WAITS_S) - 1)]
            self._say(f"panel: it stopped ({reason}); starting it again in {wait:g} s. The table goes on")
            log.warning("panel child %s; restart %d in %g s", reason, restarts, wait)
            self._set(state="restarting", restarts=restarts, last_exit=reason, retry_in_s=wait)
            if self._closing.wait(wait):
                return
            try:
                panel = PanelProcess(self._settings, self._closing)
            except PanelStopped:
                return
            except (OSError, ValueError) as exc:
                reason = f"it did not start again: {exc}"
                self._failures += 1
                continue
            with self._lock:
                dead, self._panel = self._panel, panel
            if dead is not None:
                dead.close()  # its pipes
            self._started = time.monotonic()
            self._say(f"panel: running again at {panel.url} (restart {restarts})")
            self._set(state="running", url=panel.url, retry_in_s=None)
            return

    def close(self) -> None:
        """Stop watching, then stop the panel (safe to call twice)."""
        self._closing.set()
        if self._thread is not threading.current_thread():
            self._thread.join(10)
        with self._lock:
            panel, self._panel = self._panel, None
        if panel is not None:
            panel.close()
