"""An emulated Raspberry Pi Pico running the unchanged firmware, stepped in simulated time.

``EmulatedPico`` starts the Node harness (``harness/pico.js``, rp2040js) and
exchanges one JSON line per command with it. Time only moves when
:meth:`EmulatedPico.step` is called, so a test sees the same bytes at the same
simulated instants however loaded the machine is. Every UART byte and output
pin transition comes back with its simulated time in nanoseconds.

The board's switches close to ground and the firmware enables pull-ups, so an
open switch reads high: :meth:`EmulatedPico.open_switch` releases the pin and
the harness gives it the level its pad's pull sets (rp2040js models no pulls).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from firmware_bridge import protocol
from firmware_bridge.pico_emulator.images import BOOTROM_IMAGE, MICROPYTHON_IMAGE, build_fs_image, node_command

# main.py's pin tables: channel i is INPUT_PINS[i], output j is OUTPUT_PINS[j].
INPUT_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)
OUTPUT_PINS = (18, 19, 20, 21)
BAUDRATE = 115200
BOOT_WITHIN_US = 1_500_000  # the boot HELLO comes after about 0.49 s; generous for a slower build
REPLY_TIMEOUT_S = 600.0  # one command; a long step on a loaded 2-core machine can take minutes


class EmulatorError(RuntimeError):
    """The harness refused a command or died; the message carries its reason."""


class WireFrame(NamedTuple):
    """One delimited chunk from the board's UART, with the simulated times of its first and last byte."""

    t_first_ns: int
    t_last_ns: int  # the 0x00 delimiter's time
    raw: bytes  # without the delimiter
    frame: protocol.Frame | None
    error: str | None


class PinEvent(NamedTuple):
    t_ns: int
    gp: int
    level: int  # 1 high, 0 low, -1 no longer driven


class EmulatedPico:
    """One emulated board. Use as a context manager, or call :meth:`start` and :meth:`close`."""

    def __init__(self, *, timer_start_us: int = 0, cycle_scale: int = 1, fs_image: Path | None = None) -> None:
        """``timer_start_us``: the TIMER's value at power-up. ``cycle_scale``: each CPU cycle takes that
        many times longer (1, the real 125 MHz chip, for every measurement; see ``serial_port``)."""
        if timer_start_us < 0:
            raise ValueError(f"timer_start_us must be >= 0, got {timer_start_us}")
        if not 1 <= cycle_scale <= 64:
            raise ValueError(f"cycle_scale must be 1..64, got {cycle_scale}")
        self.timer_start_us = timer_start_us
        self.cycle_scale = cycle_scale
        self._fs_image = fs_image
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self.now_ns = 0
        self.tx: list[tuple[int, int]] = []  # (t_ns, byte), every byte since start
        self.frames: list[WireFrame] = []
        self.pin_events: list[PinEvent] = []
        self.boots: list[tuple[int, str]] = []
        self.frame_listeners: list[Callable[[list[tuple[int, int]]], None]] = []
        self._chunk: list[tuple[int, int]] = []
        self._cursor = 0  # frames before it were handed out by next_frame

    # -- life cycle ----------------------------------------------------------
    def start(self) -> None:
        if self._proc is not None:
            raise EmulatorError("the board is already started")
        command = node_command()
        image = self._fs_image
        if image is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="gk-pico-")
            image = build_fs_image(Path(self._tmp.name) / "littlefs.img")
        command += ["--firmware", str(MICROPYTHON_IMAGE), "--bootrom", str(BOOTROM_IMAGE), "--fs", str(image),
                    "--timer-start-us", str(self.timer_start_us), "--cycle-scale", str(self.cycle_scale)]
        self._proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, bufsize=1)
        reply = self._read_reply()
        if not reply.get("ready"):
            raise EmulatorError(f"the harness did not say it was ready: {reply}")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait(timeout=10)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> EmulatedPico:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands --------------------------------------------------------------
    def step(self, us: float) -> None:
        """Run ``us`` microseconds of simulated time."""
        self._command({"op": "step", "us": us})

    def set_pin(self, gp: int, level: int | None) -> None:
        """Drive input ``gp`` to 0 or 1, or release it (``None``) to the level its pull gives."""
        self._command({"op": "pin", "gp": gp, "level": level})

    def close_switch(self, channel: int) -> None:
        """The switch on input ``channel`` closes to ground: the pin reads 0."""
        self.set_pin(INPUT_PINS[channel], 0)

    def open_switch(self, channel: int) -> None:
        """The switch on input ``channel`` opens: the pull-up makes it read 1."""
        self.set_pin(INPUT_PINS[channel], None)

    def uart_write(self, data: bytes) -> None:
        """Bytes from the host onto the board's RX line (delivered at the line's pace while stepping)."""
        self._command({"op": "uart", "hex": data.hex()})

    def send(self, msg: protocol.Message, seq: int) -> None:
        self.uart_write(protocol.encode(msg, seq))

    def reset(self) -> None:
        """Reboot at once, as the RUN pin would; flash (and so the files) survive."""
        self._command({"op": "reset"})

    def hang(self, on: bool = True) -> None:
        """Stop the core while time, timers and the watchdog go on: a hung main loop."""
        self._command({"op": "hang", "on": on})

    def warp(self, us: int) -> None:
        """Move the hardware timer (``ticks_us``) ``us`` ahead, as if that much time passed between two loop passes."""
        self._command({"op": "warp", "us": us})

    def state(self) -> dict[str, Any]:
        return self._command({"op": "state"})

    # -- waiting ---------------------------------------------------------------
    def run_until(self, done: Callable[[], bool], within_us: float, slice_us: float = 1000.0) -> bool:
        """Step in slices until ``done()`` holds; False if ``within_us`` of simulated time passed first."""
        end = self.now_ns + within_us * 1000
        while not done():
            if self.now_ns >= end:
                return False
            self.step(min(slice_us, (end - self.now_ns) / 1000))
        return True

    def next_frame(self, want: Callable[[WireFrame], bool] | None = None, within_us: float = 1_000_000,
                   slice_us: float = 1000.0) -> WireFrame:
        """The next frame (after those already handed out) that ``want`` accepts; earlier ones are passed over."""
        found: list[WireFrame] = []

        def seen() -> bool:
            while self._cursor < len(self.frames):
                frame = self.frames[self._cursor]
                self._cursor += 1
                if want is None or want(frame):
                    found.append(frame)
                    return True
            return False

        if not self.run_until(seen, within_us, slice_us):
            raise AssertionError(f"no wanted frame within {within_us} us of simulated time; "
                                 f"frames since: {[f.frame or f.error for f in self.frames[-8:]]}")
        return found[0]

    def skip_frames(self) -> None:
        """Hand out nothing received so far: the next ``next_frame`` looks only at newer frames."""
        self._cursor = len(self.frames)

    def wait_boot_hello(self, within_us: float = BOOT_WITHIN_US) -> WireFrame:
        return self.next_frame(lambda f: is_msg(f, protocol.HelloMsg) and f.frame.message.boot,  # type: ignore[union-attr]
                               within_us, slice_us=10_000)

    def output_events(self, gp: int, since_ns: int = 0) -> list[PinEvent]:
        return [e for e in self.pin_events if e.gp == gp and e.t_ns >= since_ns]

    # -- plumbing ----------------------------------------------------------------
    def _command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None:
                raise EmulatorError("the board is not started")
            try:
                proc.stdin.write(json.dumps(cmd) + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                raise EmulatorError(f"the harness died: {self._stderr()}") from None
            return self._read_reply()

    def _read_reply(self) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        # The harness answers every command; a missing line means it died.
        line = proc.stdout.readline()
        if not line:
            raise EmulatorError(f"the harness died: {self._stderr()}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.get("ok"):
            raise EmulatorError(f"the harness refused the command: {reply.get('error')}")
        self.now_ns = int(reply["t"])
        self.boots.extend((int(t), str(why)) for t, why in reply["boots"])
        self.pin_events.extend(PinEvent(int(t), int(gp), int(level)) for t, gp, level in reply["pins"])
        if reply["tx"]:
            received = [(int(t), int(b)) for t, b in reply["tx"]]
            self.tx.extend(received)
            self._cut(received)
        return reply

    def _cut(self, received: list[tuple[int, int]]) -> None:
        chunk = self._chunk
        for t, b in received:
            if b != 0:
                chunk.append((t, b))
                continue
            if chunk:
                raw = bytes(x for _, x in chunk)
                try:
                    frame: protocol.Frame | None = protocol.decode(raw)
                    error = None
                except protocol.FrameError as exc:
                    frame, error = None, f"{exc.kind}: {exc}"
                self.frames.append(WireFrame(chunk[0][0], t, raw, frame, error))
            chunk.clear()

    def _stderr(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None:
            return "(no stderr)"
        proc.wait(timeout=10)
        return proc.stderr.read()[-2000:] or f"exit status {proc.returncode}"


def is_msg(frame: WireFrame, kind: type) -> bool:
    return frame.frame is not None and isinstance(frame.frame.message, kind)


def wire_time_ns(n_bytes: int, baudrate: int = BAUDRATE) -> int:
    """How long ``n_bytes`` take on the line (start, 8 data, stop bits)."""
    return n_bytes * 10 * 1_000_000_000 // baudrate
