"""MicroPython's ``machine`` module as the rp2 port (Raspberry Pi Pico) offers it, for type checkers only.

Only what main.py uses is declared, so a call the board lacks shows up as an error.
"""

from typing import overload

class Pin:
    IN: int
    OUT: int
    OPEN_DRAIN: int
    PULL_UP: int
    PULL_DOWN: int
    def __init__(self, id: int, mode: int = ..., pull: int | None = ..., *, value: int | None = ...) -> None: ...
    @overload
    def value(self) -> int: ...
    @overload
    def value(self, v: int) -> None: ...

class UART:
    def __init__(
        self,
        id: int,
        baudrate: int = ...,
        bits: int = ...,
        parity: int | None = ...,
        stop: int = ...,
        *,
        tx: Pin | None = ...,
        rx: Pin | None = ...,
        txbuf: int = ...,
        rxbuf: int = ...,
        timeout: int = ...,
        timeout_char: int = ...,
    ) -> None: ...
    def any(self) -> int: ...
    def read(self, nbytes: int = ..., /) -> bytes | None: ...
    def write(self, buf: bytes, /) -> int | None: ...

class WDT:
    def __init__(self, id: int = ..., timeout: int = ...) -> None: ...
    def feed(self) -> None: ...

def unique_id() -> bytes: ...
