"""The emulated Pico as a serial device: a pseudo-terminal the product opens like a real board's port.

A pump thread runs the board free, in slices of simulated time, never ahead of
the wall clock. The emulator runs about 3 times slower than a real Pico (more
on a loaded machine), so a board served here should be made with
``cycle_scale=FREE_RUN_CYCLE_SCALE``: a Pico at 31 MHz, whose firmware does the
same work but whose heartbeat, every 0.5 s of its time, still comes within
the host's wall-clock timeouts. Bytes the host writes to the pty
go to the board's RX line; bytes the board sends come out of the pty. Tests
can damage or drop bytes in either direction to play a bad cable.
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import time
import tty
from pathlib import Path

from firmware_bridge.pico_emulator.board import EmulatedPico

SLICE_US = 1000  # small enough that a PING is answered within a few ms of simulated time
FREE_RUN_CYCLE_SCALE = 4


class PicoSerialPort:
    """Serves ``board`` on a pty; ``path`` is a stable symlink to it (made in a temp dir if not given)."""

    def __init__(self, board: EmulatedPico, path: str | None = None, slice_us: int = SLICE_US) -> None:
        if slice_us <= 0:
            raise ValueError(f"slice_us must be > 0, got {slice_us}")
        self.board = board
        self.slice_us = slice_us
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="gk-pico-tty-")
            path = str(Path(self._tmp.name) / "ttyPICO")
        elif os.path.lexists(path) and not os.path.islink(path):
            raise ValueError(f"path {path!r} exists and is not a symlink; refusing to replace it")
        self.path = path
        self._master: int | None = None
        self._slave: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sent = 0  # board.tx bytes already forwarded
        self._damage_to_host = 0
        self._drop_to_host = 0
        self._damage_to_board = 0
        self.to_host = bytearray()  # what reached the host, after any damage
        self.to_board = bytearray()  # what the host wrote, before any damage
        self.to_board_at: list[tuple[int, bytes]] = []  # (simulated ns it reached the board's line, bytes)
        self.error: BaseException | None = None

    def start(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo of our own frames before the host configures the port
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self._thread = threading.Thread(target=self._pump, name="pico-serial", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> PicoSerialPort:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- a bad cable -------------------------------------------------------------
    def damage_to_host(self, n: int = 1) -> None:
        """Flip bits in the next ``n`` non-delimiter bytes the board sends."""
        with self._lock:
            self._damage_to_host += n

    def drop_to_host(self, n: int) -> None:
        """Lose the next ``n`` bytes the board sends."""
        with self._lock:
            self._drop_to_host += n

    def damage_to_board(self, n: int = 1) -> None:
        """Flip bits in the next ``n`` non-delimiter bytes the host sends."""
        with self._lock:
            self._damage_to_board += n

    # -- the pump ----------------------------------------------------------------
    def _pump(self) -> None:
        board = self.board
        wall0 = time.monotonic()
        sim0 = board.now_ns
        try:
            while not self._stop.is_set():
                self._from_host()
                board.step(self.slice_us)
                self._to_host()
                ahead = (board.now_ns - sim0) / 1e9 - (time.monotonic() - wall0)
                if ahead > 0:
                    self._stop.wait(ahead)  # never faster than a real board
        except BaseException as exc:  # the port must say why it stopped, not die silently
            self.error = exc
            raise

    def _from_host(self) -> None:
        master = self._master
        assert master is not None
        if not select.select([master], [], [], 0)[0]:
            return
        try:
            data = os.read(master, 4096)
        except (BlockingIOError, OSError):
            return  # nobody has the port open
        self.to_board += data
        self.to_board_at.append((self.board.now_ns, data))
        with self._lock:
            if self._damage_to_board:
                data, self._damage_to_board = _damage(data, self._damage_to_board)
        self.board.uart_write(data)

    def _to_host(self) -> None:
        tx = self.board.tx
        if self._sent >= len(tx):
            return
        data = bytes(b for _, b in tx[self._sent:])
        self._sent = len(tx)
        with self._lock:
            if self._drop_to_host:
                lost = min(self._drop_to_host, len(data))
                data, self._drop_to_host = data[lost:], self._drop_to_host - lost
            if self._damage_to_host and data:
                data, self._damage_to_host = _damage(data, self._damage_to_host)
        if not data:
            return
        self.to_host += data
        master = self._master
        assert master is not None
        # Nobody listening, or the host is not reading: the bytes are lost, as on a wire.
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(master, data)


def _damage(data: bytes, n: int) -> tuple[bytes, int]:
    """Flip bits in up to ``n`` bytes of ``data``, never making or removing a 0x00 (the damage stays inside frames)."""
    out = bytearray(data)
    for i, b in enumerate(out):
        if n == 0:
            break
        if b not in (0x00, 0x55):
            out[i] = b ^ 0x55
            n -= 1
    return bytes(out), n
