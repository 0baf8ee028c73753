"""A stand-in for MicroPython's ``machine`` module, enough to run firmware/main.py on CPython.

Pins model pulls: an input with PULL_UP reads 1 until something drives it
low (a switch closing to ground), with PULL_DOWN it reads 0. The UART keeps
two byte queues: what the host sent (``host_send``) and what the board wrote
(``take``). ``Clock`` provides ``ticks_us``/``ticks_diff`` with MicroPython's
2**30 wrap.
"""

from __future__ import annotations

from types import ModuleType


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id: int, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
        if not 0 <= id <= 28:
            raise ValueError(f"no GPIO {id} on this board")
        self.id = id
        self.mode = mode
        self.pull = pull
        self.driven: int | None = None  # an external level forced on the pin
        self._out = value or 0
        board.pins[id] = self

    def value(self, v: int | None = None) -> int | None:
        if v is not None:
            if self.mode != Pin.OUT:
                raise OSError(f"GPIO {self.id} is not an output")
            self._out = 1 if v else 0
            return None
        if self.mode == Pin.OUT:
            return self._out
        if self.driven is not None:
            return self.driven
        return 1 if self.pull == Pin.PULL_UP else 0


class UART:
    def __init__(self, id: int, baudrate: int = 9600, **kwargs: object) -> None:
        self.id = id
        self.baudrate = baudrate
        self.kwargs = kwargs
        self._rx = bytearray()
        self._tx = bytearray()
        board.uart = self

    def any(self) -> int:
        return len(self._rx)

    def read(self, n: int = -1) -> bytes | None:
        if not self._rx:
            return None
        n = len(self._rx) if n < 0 else n
        data = bytes(self._rx[:n])
        del self._rx[:n]
        return data

    def write(self, data: bytes) -> int:
        self._tx += data
        return len(data)

    # test side
    def host_send(self, data: bytes) -> None:
        self._rx += data

    def take(self) -> bytes:
        data = bytes(self._tx)
        self._tx.clear()
        return data


class WDT:
    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.feeds = 0
        board.wdt = self

    def feed(self) -> None:
        self.feeds += 1


class Clock:
    PERIOD = 1 << 30

    def __init__(self, start: int = 0) -> None:
        self.us = start

    def ticks_us(self) -> int:
        return self.us % self.PERIOD

    def ticks_diff(self, a: int, b: int) -> int:
        half = self.PERIOD // 2
        return ((a - b + half) % self.PERIOD) - half

    def advance(self, us: int) -> None:
        self.us += us


SIO_GPIO_IN = 0xD0000004


class _Mem32:
    """``machine.mem32``: only SIO's GPIO_IN register, built from the pins' levels as the chip's pads see them."""

    def __getitem__(self, address: int) -> int:
        if address != SIO_GPIO_IN:
            raise ValueError(f"the stand-in machine.mem32 models only GPIO_IN, not 0x{address:08x}")
        board.mem32_reads += 1
        word = 0
        for n, pin in board.pins.items():
            if pin.value():
                word |= 1 << n
        return word


mem32 = _Mem32()


class _Board:
    def __init__(self) -> None:
        self.pins: dict[int, Pin] = {}
        self.uart: UART | None = None
        self.wdt: WDT | None = None
        self.mem32_reads = 0


board = _Board()


def unique_id() -> bytes:
    return bytes([0xE6, 0x61, 0x41, 0x04, 0x03, 0x2B, 0x5C, 0x2A])


def module() -> ModuleType:
    """A fresh ``machine`` module object (and a fresh board behind it)."""
    global board
    board = _Board()
    mod = ModuleType("machine")
    for name in ("Pin", "UART", "WDT", "unique_id", "mem32"):
        setattr(mod, name, globals()[name])
    mod.board = board  # type: ignore[attr-defined]
    return mod
