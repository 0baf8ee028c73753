"""A virtual MCU on a pseudo-terminal, running the reference firmware's own logic.

The firmware's :class:`~firmware_bridge.firmware.gkfw.Firmware` runs unchanged
on a thread of its own; its pins are in memory and its UART is the master side
of a pty. The host opens the slave side with pyserial like a real port.

Stable device path: ``path`` is a symlink that points at the current pty
slave (``pty_path``); it is made in a private temp directory unless a
``path`` is given (so a config file can name it once for good). :meth:`unplug` closes the pty
and removes the symlink, exactly like a USB adapter vanishing; :meth:`replug`
makes a new pty and points the same symlink at it, so a link configured with
``path`` reconnects by itself.

Every command runs on the MCU thread, in the order given, and returns when it
has taken effect (a CHANGE frame for ``set_channel`` has been written by then),
so tests need no sleeps.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import os
import queue
import random
import select
import shutil
import struct
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.firmware import gkfw

log = logging.getLogger(__name__)

TICKS_MASK = (1 << 30) - 1
PATTERN_POLL_S = 0.002
COMMAND_TIMEOUT = 5.0


def _ticks_us() -> int:
    return (time.monotonic_ns() // 1000) & TICKS_MASK


class _InputPin:
    def __init__(self, levels: list[bool], index: int) -> None:
        self._levels = levels
        self._index = index

    def value(self) -> int:
        return 1 if self._levels[self._index] else 0


class _OutputPin:
    def __init__(self, mcu: VirtualMcu, index: int) -> None:
        self._mcu = mcu
        self._index = index

    def duty_u16(self, value: int) -> None:
        self._mcu._output_changed(self._index, value)

    def value(self, v: int) -> None:
        self._mcu._output_changed(self._index, 1 if v else 0)


@dataclass(order=True)
class _Edge:
    at: float
    order: int
    channel: int = field(compare=False)
    level: bool = field(compare=False)
    done: threading.Event | None = field(compare=False, default=None)


class VirtualMcu:
    """See the module docstring. A context manager; ``close()`` is idempotent."""

    def __init__(
        self,
        channels: int = 32,
        *,
        heartbeat_interval: float = 0.5,
        board_id: str = "virtual",
        outputs: int = 8,
        initial_level: bool = True,
        seed: int = 0,
        path: str | None = None,
    ) -> None:
        if not isinstance(channels, int) or not 1 <= channels <= 255:
            raise ValueError(f"channels must be 1..255, got {channels!r}")
        if not isinstance(outputs, int) or not 0 <= outputs <= 255:
            raise ValueError(f"outputs must be 0..255, got {outputs!r}")
        if heartbeat_interval <= 0:
            raise ValueError(f"heartbeat_interval must be positive, got {heartbeat_interval}")
        if len(board_id.encode()) > gkfw.MAX_STRING:
            raise ValueError(f"board_id is longer than {gkfw.MAX_STRING} bytes: {board_id!r}")
        self.channels = channels
        self.heartbeat_interval = heartbeat_interval
        self.board_id = board_id
        if path is not None:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise ValueError(f"path {path!r}: directory {parent!r} does not exist")
            if os.path.lexists(path) and not os.path.islink(path):
                raise ValueError(f"path {path!r} exists and is not a symlink; refusing to replace it")
            self._dir: str | None = None
            self.path = os.path.abspath(path)
        else:
            self._dir = tempfile.mkdtemp(prefix="gk-mcu-")
            self.path = os.path.join(self._dir, "ttyMCU")
        self.pty_path: str | None = None
        # Pins read with pull-ups idle high, so an open switch is True.
        self._levels = [bool(initial_level)] * channels
        self._inputs = [_InputPin(self._levels, i) for i in range(channels)]
        self._output_pins = [_OutputPin(self, i) for i in range(outputs)]
        self.outputs: list[int] = [0] * outputs
        self.on_output: Callable[[int, int], None] | None = None
        self._output_cond = threading.Condition()
        self._rng = random.Random(seed)
        self._master: int | None = None
        self._slave: int | None = None
        self._commands: queue.SimpleQueue[tuple[Callable[[], None], threading.Event, list[BaseException]]] = (
            queue.SimpleQueue()
        )
        self._edges: list[_Edge] = []
        self._edge_order = 0
        self._corrupt = 0
        self._hung = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.frames_sent = 0
        self.frames_dropped = 0
        # The last CHANGEs that reached the wire whole: (channel, level, mcu_time_us).
        self.sent_changes: deque[tuple[int, bool, int]] = deque(maxlen=10_000)
        self.boots = 0
        self.fw = self._new_firmware()

    # -- life cycle -----------------------------------------------------------

    def __enter__(self) -> VirtualMcu:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self._closed:
            raise RuntimeError("VirtualMcu was closed; make a new one")
        if self._thread is not None:
            return
        try:
            self._plug()
        except OSError:
            self.close()  # no pty to be had: leave no temp directory behind
            raise
        self.fw.boot()
        self.boots += 1
        self._thread = threading.Thread(target=self._run, name=f"virtual-mcu {self.path}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(COMMAND_TIMEOUT)
        self._unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)

    # -- commands (thread-safe; each returns once it has taken effect) --------

    def set_channel(self, channel: int, level: bool) -> None:
        self._check_channel(channel)
        self._do(lambda: self._apply_level(channel, bool(level)))

    def levels(self) -> list[bool]:
        """The current electrical level of every input."""
        return list(self._levels)

    def bounce(self, channel: int, final: bool, *, duration_ms: float = 5, edges: int = 6) -> None:
        """A contact bounce burst ending at ``final``, returning when it has ended.

        ``edges`` raw transitions are spread at irregular times over
        ``duration_ms``; one more is added when needed to end at ``final``.
        """
        self._check_channel(channel)
        if not 0 < duration_ms <= 1000:
            raise ValueError(f"bounce duration_ms must be in (0, 1000], got {duration_ms}")
        if not isinstance(edges, int) or not 1 <= edges <= 1000:
            raise ValueError(f"bounce edges must be 1..1000, got {edges!r}")
        done = threading.Event()
        self._do(lambda: self._schedule_bounce(channel, bool(final), duration_ms / 1000, edges, done))
        if not done.wait(COMMAND_TIMEOUT + duration_ms / 1000):
            raise TimeoutError(f"bounce on channel {channel} did not finish")

    def corrupt_next(self, nbytes: int = 1) -> None:
        """Flip ``nbytes`` bytes of the next frame sent (never into 0x00, so it stays one frame)."""
        if not isinstance(nbytes, int) or nbytes < 1:
            raise ValueError(f"corrupt_next nbytes must be a positive integer, got {nbytes!r}")

        def arm() -> None:
            self._corrupt = nbytes

        self._do(arm)

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the wire as they are: junk, half frames, hand-made frames."""
        if not isinstance(data, bytes | bytearray):
            raise ValueError(f"inject takes bytes, got {type(data).__name__}")
        raw = bytes(data)

        def put() -> None:
            if self._master is not None:
                os.write(self._master, raw)

        self._do(put)

    def reset(self) -> None:
        """An MCU reboot: outputs off, sequence from 0, a boot HELLO."""
        self._do(self._reboot)

    def unplug(self) -> None:
        """The cable is pulled: the pty and the symlink vanish; the MCU keeps running."""
        self._do(self._unplug)

    def replug(self, *, reset: bool = False) -> None:
        """A new pty behind the same ``path``; ``reset=True`` for a board powered over USB."""

        def plug() -> None:
            if self._master is None:
                self._plug()
            if reset:
                self._reboot()

        self._do(plug)

    def hang(self) -> None:
        """The firmware stops (a hung loop with no watchdog): no frames, no scans, port still open."""

        def stop() -> None:
            self._hung = True

        self._do(stop)

    def resume(self) -> None:
        """The firmware runs again from where it stopped; inputs that changed meanwhile are reported."""

        def go() -> None:
            self._hung = False
            self.fw.scan()

        self._do(go)

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def wait_output(self, channel: int, value: int, timeout: float = 2.0) -> bool:
        """Wait until output ``channel`` holds ``value``; False on timeout."""
        with self._output_cond:
            return self._output_cond.wait_for(lambda: self.outputs[channel] == value, timeout)

    # -- inside the MCU thread ------------------------------------------------

    def _new_firmware(self) -> gkfw.Firmware:
        return gkfw.Firmware(
            self._inputs, self._output_pins, self._write, _ticks_us, gkfw.ticks_diff_30,
            self.board_id, heartbeat_us=int(self.heartbeat_interval * 1_000_000),
        )

    def _reboot(self) -> None:
        self._hung = False
        for i, value in enumerate(self.outputs):
            if value:
                self._output_changed(i, 0)  # a reboot drops every output
        self.fw = self._new_firmware()
        self.fw.boot()
        self.boots += 1

    def _apply_level(self, channel: int, level: bool) -> None:
        self._levels[channel] = level
        if not self._hung:
            self.fw.scan()

    def _schedule_bounce(self, channel: int, final: bool, duration: float, edges: int, done: threading.Event) -> None:
        level = self._levels[channel]
        # An odd number of transitions changes the level, an even one does not.
        if (edges % 2 == 1) != (level != final):
            edges += 1
        start = time.monotonic()
        times = sorted(self._rng.uniform(0, duration) for _ in range(edges - 1)) + [duration]
        for i, offset in enumerate(times):
            level = not level
            self._edge_order += 1
            last = i == len(times) - 1
            heapq.heappush(self._edges, _Edge(start + offset, self._edge_order, channel, level, done if last else None))

    def _plug(self) -> None:
        master, slave = os.openpty()
        # Raw at once: with the default line discipline the slave would echo
        # our own frames back to us before the host configures the port.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.pty_path = os.ttyname(slave)
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(self.pty_path, tmp)
        os.replace(tmp, self.path)

    def _unplug(self) -> None:
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.pty_path = None

    def _write(self, frame: bytes) -> None:
        damaged = False
        if self._corrupt and len(frame) > 1:  # a lone delimiter is not a frame
            frame = self._corrupted(frame, self._corrupt)
            self._corrupt = 0
            damaged = True
        master = self._master
        if master is None:
            self.frames_dropped += 1  # nobody on the wire: the bytes are lost
            return
        try:
            written = os.write(master, frame)
        except OSError:
            written = 0
        if written < len(frame):
            self.frames_dropped += 1
        else:
            self.frames_sent += 1
            if not damaged and len(frame) == 14 and frame[-1] == 0:
                self._log_change(frame)

    def _log_change(self, frame: bytes) -> None:
        payload = gkfw.cobs_decode(frame[:-1])
        if payload[1] == gkfw.CHANGE:
            channel, level, t = struct.unpack(">BBI", payload[4:10])
            self.sent_changes.append((channel, bool(level), t))

    @staticmethod
    def _corrupted(frame: bytes, nbytes: int) -> bytes:
        data = bytearray(frame)
        body = len(data) - 1  # keep the delimiter so the damage stays inside one frame
        for k in range(min(nbytes, body)):
            i = body - 1 - k
            flipped = data[i] ^ 0x55
            data[i] = flipped if flipped else data[i] ^ 0xAA
        return bytes(data)

    def _output_changed(self, channel: int, value: int) -> None:
        with self._output_cond:
            self.outputs[channel] = value
            self._output_cond.notify_all()
        callback = self.on_output
        if callback is not None:
            callback(channel, value)

    def _do(self, action: Callable[[], None]) -> None:
        if self._thread is None or self._closed:
            raise RuntimeError("VirtualMcu is not running: call start() first")
        if threading.current_thread() is self._thread:
            action()  # from an on_output callback: already on the MCU thread
            return
        done = threading.Event()
        error: list[BaseException] = []
        self._commands.put((action, done, error))
        self._wake()
        if not done.wait(COMMAND_TIMEOUT):
            raise TimeoutError("the virtual MCU did not run the command in time")
        if error:
            raise error[0]

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):  # already woken, or closing
            os.write(self._wake_w, b"!")

    def _check_channel(self, channel: int) -> None:
        if not isinstance(channel, int) or isinstance(channel, bool) or not 0 <= channel < self.channels:
            raise ValueError(f"channel must be 0..{self.channels - 1}, got {channel!r}")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:
                # A bug here must not silently stop the MCU: say so and keep going.
                log.exception("virtual MCU %s: error in its main loop", self.path)
                self._stop.wait(0.1)

    def _step(self) -> None:
        fw_poll_period = min(0.05, self.heartbeat_interval / 4)
        if self.fw.patterns and not self._hung:
            fw_poll_period = PATTERN_POLL_S  # a running pattern steps every few ms, as on the Pico's loop
        timeout = fw_poll_period
        if self._edges:
            timeout = max(0.0, min(timeout, self._edges[0].at - time.monotonic()))
        fds = [self._wake_r] if self._master is None else [self._wake_r, self._master]
        readable, _, _ = select.select(fds, [], [], timeout)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        data = b""
        if self._master is not None and self._master in readable:
            try:
                data = os.read(self._master, 4096)
            except OSError:
                data = b""  # EIO while no host has the slave open
        if self._hung:
            data = b""  # a hung MCU's UART overflows: what arrives is lost
        if data:
            self.fw.feed(data)
        now = time.monotonic()
        while self._edges and self._edges[0].at <= now:
            edge = heapq.heappop(self._edges)
            self._apply_level(edge.channel, edge.level)
            if edge.done is not None:
                edge.done.set()
        while True:
            try:
                action, done, error = self._commands.get_nowait()
            except queue.Empty:
                break
            try:
                action()
            except Exception as exc:  # handed to the caller, the MCU keeps running
                error.append(exc)
            done.set()
        if not self._hung:
            self.fw.scan()
            self.fw.tick()
