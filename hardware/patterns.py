"""Light and buzzer patterns on named outputs: on, off, blink, pulse, flicker, for a duration.

A pattern is compiled into steps, ``(at_ms, level)``, and one scheduler thread
plays the steps of every running pattern through :meth:`Outputs.set`. A new
pattern on an output replaces the one running there, and every pattern ends
with its output off, so an effect can never leave a light stuck on. The
scheduler sleeps on a condition until the next step, so an idle table costs
nothing, and a failing output is logged and skipped without stopping the rest.
"""

from __future__ import annotations

import heapq
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)

PATTERNS = ("on", "off", "blink", "pulse", "flicker")
PULSE_STEP_MS = 20  # a PWM fade in steps of this size; 50 updates a second look smooth


class PatternError(GravekeeperError, ValueError):
    """A pattern that cannot be played; the message says which setting is wrong."""


@dataclass(frozen=True)
class Pattern:
    kind: str
    ms: int = 1000
    period_ms: int = 400
    level: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in PATTERNS:
            raise PatternError(f"pattern {self.kind!r} is not one of {', '.join(PATTERNS)}")
        if isinstance(self.ms, bool) or not isinstance(self.ms, int) or not 0 < self.ms <= 60_000:
            raise PatternError(f"ms must be 1 to 60000, got {self.ms!r}")
        if isinstance(self.period_ms, bool) or not isinstance(self.period_ms, int) \
                or not 20 <= self.period_ms <= 10_000:
            raise PatternError(f"period_ms must be 20 to 10000, got {self.period_ms!r}")
        if not 0.0 <= float(self.level) <= 1.0:
            raise PatternError(f"level must be 0 to 1, got {self.level!r}")


def steps(pattern: Pattern, *, dimmable: bool, seed: int = 0) -> list[tuple[int, float]]:
    """The pattern as ``(at_ms, level)`` steps, ending with the output off at ``ms`` (``off``: at once).

    ``dimmable`` outputs (a PWM LED) fade for ``pulse``; the others blink slowly instead.
    """
    level = float(pattern.level) if dimmable else 1.0
    end = pattern.ms
    if pattern.kind == "off":
        return [(0, 0.0)]
    if pattern.kind == "on":
        return [(0, level), (end, 0.0)]
    out: list[tuple[int, float]] = []
    if pattern.kind == "blink" or (pattern.kind == "pulse" and not dimmable):
        half = max(1, pattern.period_ms // 2)
        at, on = 0, True
        while at < end:
            out.append((at, level if on else 0.0))
            at, on = at + half, not on
    elif pattern.kind == "pulse":
        half_period = pattern.period_ms / 2
        at = 0
        while at < end:
            phase = (at % pattern.period_ms) / half_period  # 0..2: up, then down
            out.append((at, round(level * (phase if phase <= 1 else 2 - phase), 4)))
            at += PULSE_STEP_MS
    else:  # flicker: uneven, like a candle or a failing bulb, the same for the same seed
        rnd = random.Random(seed)
        at, on = 0, True
        while at < end:
            out.append((at, (level * rnd.uniform(0.3, 1.0) if dimmable else level) if on else 0.0))
            at += rnd.randint(max(10, pattern.period_ms // 4), pattern.period_ms)
            on = not on if rnd.random() < 0.8 else on
    out.append((end, 0.0))
    return out


class PatternPlayer:
    """Plays patterns on outputs through ``set_level(name, level)``; ``close()`` turns everything off."""

    def __init__(self, set_level: Callable[[str, float], None], dimmable: Callable[[str], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._set = set_level
        self._dimmable = dimmable
        self._clock = clock
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, str, float, int]] = []  # (due, order, output, level, generation)
        self._generation: dict[str, int] = {}
        self._order = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="gk-patterns", daemon=True)
        self._thread.start()
        self.failures = 0

    def play(self, output: str, pattern: Pattern, *, seed: int = 0) -> None:
        """Start ``pattern`` on ``output`` now, replacing what runs there (any thread)."""
        plan = steps(pattern, dimmable=self._dimmable(output), seed=seed)
        now = self._clock()
        with self._cond:
            if self._stop:
                return
            gen = self._generation.get(output, 0) + 1
            self._generation[output] = gen
            for at_ms, level in plan:
                self._order += 1
                heapq.heappush(self._heap, (now + at_ms / 1000.0, self._order, output, level, gen))
            self._cond.notify()

    def cancel(self, output: str) -> None:
        """Forget the pattern running on ``output`` (another player took it over); its level stays."""
        with self._cond:
            self._generation[output] = self._generation.get(output, 0) + 1

    def running(self, output: str) -> bool:
        with self._cond:
            gen = self._generation.get(output)
            return any(o == output and g == gen for _, _, o, _, g in self._heap)

    def close(self, timeout: float = 2.0) -> None:
        """Stop and turn off every output a pattern touched; idempotent."""
        with self._cond:
            if self._stop:
                return
            self._stop = True
            touched = list(self._generation)
            self._heap.clear()
            self._cond.notify_all()
        self._thread.join(timeout)
        for output in touched:
            self._apply(output, 0.0)

    def _apply(self, output: str, level: float) -> None:
        try:
            self._set(output, level)
        except Exception as exc:  # noqa: BLE001 - a dead output must not stop the other patterns
            self.failures += 1
            log.warning("effects: output %s failed: %s", output, exc)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop and (not self._heap or self._heap[0][0] > self._clock()):
                    wait = None if not self._heap else max(0.0, self._heap[0][0] - self._clock())
                    self._cond.wait(wait)
                if self._stop:
                    return
                _, _, output, level, gen = heapq.heappop(self._heap)
                current = self._generation.get(output) == gen
            if current:
                self._apply(output, level)
