"""The web panel as a child process, shared by ``gravekeeper run`` and ``gravekeeper panel``.

The controller and the panel share nothing but the broker, so the panel runs in
a process of its own (``python -m web_panel.child``): a crash or a memory spike
in the web server cannot take the referee down, and the command line never
imports Flask or the panel's code. Settings (tokens and passwords included)
travel as one JSON line on the child's stdin, never on its command line where
``ps`` would show them; the child checks them and answers one JSON line.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
from typing import Any


class PanelStopped(Exception):
    """The caller was asked to stop while its panel was starting."""


class PanelSettingsRefused(ValueError):
    """The child refused a setting; the message names it (``broker_port must be ...``)."""


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
            if isinstance(answer, dict) and answer.get("kind") == "settings":
                raise PanelSettingsRefused(error)
            raise OSError(error)
        self.url: str = answer["url"]

    def exited(self) -> int | None:
        """The child's exit status once it has ended on its own, else ``None``."""
        return self._proc.poll()

    def close(self) -> None:
        """Stop the child; safe to call twice."""
        if self._proc.poll() is None:
            if self._proc.stdin is not None:
                try:
                    self._proc.stdin.close()  # the child stops at EOF
                except OSError:
                    pass
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
