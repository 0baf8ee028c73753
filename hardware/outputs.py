"""Optional outputs (an LED, a buzzer) that the effects packs drive (``hardware.patterns``).

GPIO outputs go through gpiozero (``LED``, ``PWMLED``, ``Buzzer``); MCU
outputs through the link's ``set_output(channel, value)``, whose value is a
16-bit duty (the firmware's ``duty_u16``): on is 65535, off 0.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import LED, PWMLED, Buzzer, Factory, GPIOZeroError

from firmware_bridge.protocol import PatternKind
from gravekeeper.errors import GravekeeperError
from hardware.config import OutputSpec
from hardware.patterns import Pattern, PatternPlayer

MCU_FULL = 0xFFFF
MCU_PATTERNS = {k.name.lower(): int(k) for k in PatternKind}  # the firmware's pattern numbers, by name


class OutputError(GravekeeperError, ValueError):
    """A bad output name or value."""


class Outputs:
    def __init__(self, specs: Sequence[OutputSpec], factory: Factory | None,
                 mcu: Callable[[], Any | None]) -> None:
        self._specs = {s.name: s for s in specs}
        self._devices: dict[str, Any] = {}
        self._values: dict[str, bool | float] = {}
        self._mcu = mcu
        self._lock = threading.Lock()
        self._patterns: PatternPlayer | None = None
        try:
            for spec in specs:
                if spec.source != "gpio":
                    continue
                cls = {"led": LED, "pwm_led": PWMLED, "buzzer": Buzzer}[spec.kind]
                try:
                    self._devices[spec.name] = cls(
                        spec.pin, active_high=spec.active_high, initial_value=False, pin_factory=factory
                    )
                except GPIOZeroError as exc:
                    raise type(exc)(f"cannot open GPIO {spec.pin} for output {spec.name}: {exc}") from exc
        except Exception:
            self.close()
            raise

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def values(self) -> dict[str, bool | float]:
        with self._lock:
            return dict(self._values)

    def set(self, name: str, value: bool | float) -> None:
        spec = self._specs.get(name)
        if spec is None:
            known = ", ".join(self._specs) or "none configured"
            raise OutputError(f"unknown output {name!r} (outputs: {known})")
        if isinstance(value, bool):
            level: bool | float = value
        elif isinstance(value, (int, float)) and spec.kind == "pwm_led" and 0.0 <= value <= 1.0:
            level = float(value)
        elif isinstance(value, int) and value in (0, 1):
            level = bool(value)
        else:
            wanted = "a number from 0 to 1" if spec.kind == "pwm_led" else "true or false"
            raise OutputError(f"output {name!r} ({spec.kind}) takes {wanted}, got {value!r}")
        with self._lock:
            if spec.source == "gpio":
                device = self._devices[name]
                if spec.kind == "pwm_led":
                    device.value = float(level)
                else:
                    device.on() if level else device.off()
            else:
                link = self._mcu()
                if link is None:
                    raise OutputError(f"output {name!r} is on the MCU, which is not connected")
                assert spec.channel is not None
                raw = round(float(level) * MCU_FULL)
                if not spec.active_high:
                    raw = MCU_FULL - raw
                link.set_output(spec.channel, raw)
            self._values[name] = level

    def dimmable(self, name: str) -> bool:
        spec = self._specs.get(name)
        return spec is not None and spec.kind == "pwm_led"

    def set_level(self, name: str, level: float) -> None:
        """``level`` from 0 to 1: a dimmable output takes it as is, the others are on above 0."""
        self.set(name, float(level) if self.dimmable(name) else level > 0)

    def play(self, name: str, pattern: Pattern, *, seed: int = 0) -> None:
        """Run ``pattern`` on output ``name`` in the background, replacing what runs there.

        An MCU output (active high) gets the whole pattern in one frame and the
        firmware times it, so a flicker does not flood the serial link; GPIO
        outputs, and MCU outputs wired active low, are stepped from here.
        """
        spec = self._specs.get(name)
        if spec is None:
            known = ", ".join(self._specs) or "none configured"
            raise OutputError(f"unknown output {name!r} (outputs: {known})")
        if spec.source == "mcu" and spec.active_high:
            link = self._mcu()
            if link is None:
                raise OutputError(f"output {name!r} is on the MCU, which is not connected")
            assert spec.channel is not None
            with self._lock:
                if self._patterns is not None:
                    self._patterns.cancel(name)
            level = round(float(pattern.level) * MCU_FULL) if spec.kind == "pwm_led" else MCU_FULL
            link.play_pattern(spec.channel, MCU_PATTERNS[pattern.kind], pattern.ms, pattern.period_ms,
                              level, seed & 0xFFFF)
            with self._lock:
                self._values[name] = False  # every pattern ends off
            return
        with self._lock:
            if self._patterns is None:
                self._patterns = PatternPlayer(self.set_level, self.dimmable)
            player = self._patterns
        player.play(name, pattern, seed=seed)

    def close(self) -> None:
        with self._lock:
            player, self._patterns = self._patterns, None
        if player is not None:
            player.close()  # outside the lock: its last step turns outputs off through set()
        with self._lock:
            for device in self._devices.values():
                with contextlib.suppress(Exception):  # closing must not stop the others from closing
                    device.close()
            self._devices.clear()
