"""Stopping on a signal (SIGTERM, Ctrl-C) without a race: the commands' main threads wait on an event.

A Python signal handler runs in the main thread, and only between two of its bytecodes. A main thread
blocked in ``Event.wait`` is woken by a signal only when the kernel hands the signal to that very
thread; handed to another one (paho's, the journal's), or arriving just before the wait blocks, it
waits on, its handler pending, for as long as the wait lasts. ``gravekeeper run`` once ignored a
SIGTERM so, about one stop in forty right after start. And a handler that calls ``Event.set`` may
find the main thread holding that event's own lock, and wait for it forever.

So the handler here does nothing itself. The C-level handler writes the signal's number to a socket
(``signal.set_wakeup_fd``), whichever thread the kernel chose, and a thread of its own reads it and
sets the event: an ordinary ``set`` from an ordinary thread.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterable
from types import FrameType, TracebackType
from typing import Any, Self

__all__ = ["StopOnSignals"]


def _pending(signum: int, frame: FrameType | None) -> None:
    """The Python-level handler: nothing (the wakeup socket carries the signal; see the module)."""


class StopOnSignals:
    """Sets ``stop`` when one of ``signals`` arrives, for as long as it is entered.

    ``received`` is the first signal's number. Enter it from the main thread (``signal`` allows handlers
    and the wakeup socket nowhere else), and not inside itself; leaving puts back what was there before.
    """

    def __init__(self, stop: threading.Event, signals: Iterable[int] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self._stop = stop
        self._signals = tuple(signals)
        self._previous: dict[int, Any] = {}
        self._old_fd = -1
        self.received: int | None = None

    def _watch(self, read: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                got = read.recv(64)
                if not got:  # closed: left
                    return
                ours = [n for n in got if n in self._signals]  # any other signal with a Python handler: not ours
                if ours:
                    if self.received is None:
                        self.received = ours[0]
                    self._stop.set()

    def __enter__(self) -> Self:
        # The socket and its reader exist only while entered: an object made and never entered holds nothing.
        self._read, self._write = socket.socketpair()
        self._write.setblocking(False)  # set_wakeup_fd wants it so: a full socket drops, never blocks
        self._thread = threading.Thread(target=self._watch, args=(self._read,), name="stop-on-signals", daemon=True)
        self._old_fd = signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        for sig in self._signals:
            self._previous[sig] = signal.signal(sig, _pending)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
        signal.set_wakeup_fd(self._old_fd)
        self._write.close()  # the watcher reads the end and returns
        self._thread.join(5)
        self._read.close()
