"""Raw input channels: a GPIO pin, an MCU channel, or a simulated contact.

A channel reports "closed" (the input is at its active level) or "open", with
the ``clock()`` time of the edge, to a callback. All filtering happens later in
the hub's single worker thread, so a callback only timestamps and queues.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from gpiozero import DigitalInputDevice, Factory

from hardware.config import InputSpec

EdgeCallback = Callable[[int, bool, float], None]  # (input index, closed, time)


class GpioInput:
    """A BCM pin through gpiozero, with ``bounce_time=None``: we debounce ourselves."""

    source = "gpio"

    def __init__(self, index: int, spec: InputSpec, factory: Factory | None,
                 on_edge: EdgeCallback, clock: Callable[[], float]) -> None:
        assert spec.source == "gpio" and spec.pin is not None
        self.index = index
        self.spec = spec
        pull_up = {"up": True, "down": False, "none": None}[spec.pull or "up"]
        # gpiozero fixes the active level from the pull; a pull-up with an
        # active-high sensor is expressed by inverting its notion of active.
        active_state = spec.active_high if pull_up is None else None
        self._device = DigitalInputDevice(
            spec.pin, pull_up=pull_up, active_state=active_state, bounce_time=None, pin_factory=factory
        )
        gz_active_high = spec.active_high if pull_up is None else not pull_up
        self._invert = gz_active_high != spec.active_high
        self._on_edge = on_edge
        self._clock = clock

        def activated() -> None:
            self._on_edge(self.index, not self._invert, self._clock())

        def deactivated() -> None:
            self._on_edge(self.index, self._invert, self._clock())

        self._device.when_activated = activated
        self._device.when_deactivated = deactivated

    @property
    def pin(self) -> Any:
        """The gpiozero pin object (a ``MockPin`` under the simulator)."""
        return self._device.pin

    def read(self) -> bool:
        return bool(self._device.is_active) != self._invert

    def drive(self, closed: bool) -> None:
        """Simulator only: move the mock pin to the level that means ``closed``."""
        level_high = closed == self.spec.active_high
        if level_high:
            self.pin.drive_high()
        else:
            self.pin.drive_low()

    def close(self) -> None:
        self._device.when_activated = None
        self._device.when_deactivated = None
        self._device.close()


class SimInput:
    """A contact that only the simulator moves; it starts open."""

    source = "sim"

    def __init__(self, index: int, on_edge: EdgeCallback, clock: Callable[[], float], closed: bool = False) -> None:
        self.index = index
        self._closed = closed
        self._on_edge = on_edge
        self._clock = clock
        self._lock = threading.Lock()

    def read(self) -> bool:
        return self._closed

    def drive(self, closed: bool) -> None:
        with self._lock:
            if closed == self._closed:
                return
            self._closed = closed
            t = self._clock()
        self._on_edge(self.index, closed, t)

    def close(self) -> None:
        pass


class McuClock:
    """Maps MCU microsecond timestamps onto our monotonic clock.

    The offset is the smallest (host receipt - MCU time) seen, which is the
    sample with the least transport delay; it may grow by 200 ppm per second
    so that a slow MCU crystal cannot pin it in the past. 32-bit timestamps
    are unwrapped. ``reset()`` after a reconnect or MCU reset, whose clock
    restarts.
    """

    DRIFT = 200e-6
    MAX_DELAY = 0.5  # no serial transport is this slow; a larger lag is a clock jump
    WRAP = 1 << 32

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._offset: float | None = None
        self._offset_at = 0.0
        self._last_raw: int | None = None
        self._epoch = 0

    def to_host(self, mcu_time_us: int, received: float) -> float:
        raw = int(mcu_time_us)
        if self._last_raw is not None and raw < self._last_raw and self._last_raw - raw > self.WRAP // 2 \
                and self._last_raw < self.WRAP:
            self._epoch += self.WRAP
        self._last_raw = raw
        mcu_s = (raw + self._epoch) / 1e6
        sample = received - mcu_s
        if self._offset is not None and mcu_s + self._offset < received - self.MAX_DELAY:
            self._offset = None  # the MCU clock jumped (an unnoticed restart): learn it again
        if self._offset is None:
            self._offset = sample
        else:
            allowed = self._offset + self.DRIFT * max(0.0, received - self._offset_at)
            self._offset = min(sample, allowed)
        self._offset_at = received
        # Never later than receipt (a clock glitch must not delay settling).
        return min(mcu_s + self._offset, received)


class McuListener:
    """The ``firmware_bridge.link.LinkListener`` the hub hands to ``McuLink``.

    Called on the link's reader thread; it timestamps and forwards to the hub.
    """

    def __init__(self, post: Callable[[str, tuple[Any, ...]], None], clock: Callable[[], float]) -> None:
        self._post = post
        self._clock = clock

    def on_hello(self, hello: Any) -> None:
        self._post("hello", (hello, self._clock()))

    def on_snapshot(self, levels: dict[int, bool], mcu_time_us: int) -> None:
        self._post("snapshot", (dict(levels), mcu_time_us, self._clock()))

    def on_change(self, channel: int, level: bool, mcu_time_us: int) -> None:
        self._post("change", (channel, level, mcu_time_us, self._clock()))

    def on_online(self) -> None:
        self._post("online", (self._clock(),))

    def on_offline(self, reason: str) -> None:
        self._post("offline", (reason, self._clock()))
