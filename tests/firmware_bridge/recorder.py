"""A LinkListener that records every call and lets tests wait for a condition."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.link import Hello


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.levels: dict[int, bool] = {}
        self.cond = threading.Condition()

    def _add(self, *call: Any) -> None:
        with self.cond:
            self.calls.append(call)
            self.cond.notify_all()

    def on_hello(self, hello: Hello) -> None:
        self._add("hello", hello)

    def on_snapshot(self, levels: dict[int, bool], mcu_time_us: int) -> None:
        with self.cond:
            self.levels = dict(levels)
        self._add("snapshot", dict(levels), mcu_time_us)

    def on_change(self, channel: int, level: bool, mcu_time_us: int) -> None:
        with self.cond:
            self.levels[channel] = level
        self._add("change", channel, level, mcu_time_us)

    def on_online(self) -> None:
        self._add("online")

    def on_offline(self, reason: str) -> None:
        self._add("offline", reason)

    def names(self) -> list[str]:
        with self.cond:
            return [c[0] for c in self.calls]

    def count(self, name: str) -> int:
        return self.names().count(name)

    def of(self, name: str) -> list[tuple[Any, ...]]:
        with self.cond:
            return [c for c in self.calls if c[0] == name]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        with self.cond:
            return self.cond.wait_for(predicate, timeout)

    def wait_count(self, name: str, n: int, timeout: float = 5.0) -> bool:
        return self.wait_for(lambda: sum(1 for c in self.calls if c[0] == name) >= n, timeout)


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0, interval: float = 0.01) -> bool:
    """Poll a condition that no listener call announces (a counter, a flag), up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        threading.Event().wait(interval)
    return True
