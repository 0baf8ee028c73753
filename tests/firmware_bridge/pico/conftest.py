"""Fixtures for the emulated Pico: one booted board per test module, tidied between tests; a free-running
board on a pty with the sensors of a game on its channels, for ``gravekeeper run``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware_bridge.pico_emulator.board import INPUT_PINS, EmulatedPico, WireFrame
from firmware_bridge.pico_emulator.serial_port import FREE_RUN_CYCLE_SCALE, PicoSerialPort


class BootedPico(EmulatedPico):
    """An ``EmulatedPico`` that remembers its latest boot HELLO (the firmware's time base)."""

    boot_hello: WireFrame

    def boot_and_wait(self) -> WireFrame:
        self.boot_hello = self.wait_boot_hello()
        return self.boot_hello

    def mcu_time_at(self, t_ns: int) -> int:
        """The firmware's ``mcu_time`` (us since its boot) at simulated time ``t_ns``, from the boot HELLO."""
        hello = self.boot_hello.frame
        assert hello is not None
        return hello.message.mcu_time_us + (t_ns - self.boot_hello.t_first_ns) // 1000  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def booted_pico() -> Iterator[BootedPico]:
    board = BootedPico()
    board.start()
    try:
        board.boot_and_wait()
        yield board
    finally:
        board.close()


@pytest.fixture
def pico(booted_pico: BootedPico) -> BootedPico:
    """The module's board, every switch open and nothing left unread."""
    board = booted_pico
    if board.boots[-1][0] > board.boot_hello.t_first_ns:  # a test rebooted it: wait for its HELLO
        board.boot_and_wait()
    for gp in INPUT_PINS:
        board.set_pin(gp, None)
    board.step(20_000)  # let the firmware report any switch the last test left closed
    board.skip_frames()
    return board


@pytest.fixture
def free_pico() -> Iterator[tuple[EmulatedPico, str]]:
    """A board running free (as a real one does, not stepped by the test) and the pty a controller opens
    as its serial port."""
    with EmulatedPico(cycle_scale=FREE_RUN_CYCLE_SCALE) as board, PicoSerialPort(board) as port:
        yield board, port.path
