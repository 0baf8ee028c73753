"""The threaded serial link to the MCU: reconnects, resynchronises, never invents changes.

One reader thread owns the port: it opens it (with backoff while it cannot),
reads ``read(in_waiting or 1)``, frames, decodes, and calls the listener. The
listener is called from that thread only, never while a lock is held, so it may
call back into the link.

Connection life cycle (docs/protocol.md, "Link behaviour"):

1. Open the port, send GET_HELLO (repeated every ``hello_retry`` until answered).
2. HELLO arrives: ``on_hello``, ``on_online`` if offline, then GET_SNAPSHOT and
   the outputs the host wants; the SNAPSHOT arrives as ``on_snapshot``.
3. CHANGE frames become ``on_change``. A bad frame or a sequence gap may have
   hidden a CHANGE, so it triggers a fresh GET_SNAPSHOT (rate limited).
4. A boot HELLO or a sequence number going backwards is an MCU reset: HELLO
   again, then a snapshot. A port error is a loss: ``on_offline`` once, then
   reconnect with exponential backoff. No frame for ``heartbeat_timeout`` is a
   loss too; the port stays open and GET_HELLO is repeated until the MCU answers.

A snapshot is always reported as a full state: the link never turns one into
``on_change`` calls. The hardware layer diffs it against what it knew.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Protocol

import serial

from firmware_bridge.framing import BadFrame, FrameDecoder
from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    ChangeMsg,
    Frame,
    GetHelloMsg,
    GetSnapshotMsg,
    HeartbeatMsg,
    Hello,
    HelloMsg,
    Message,
    NakCode,
    NakMsg,
    PingMsg,
    PlayPatternMsg,
    PongMsg,
    SetOutputMsg,
    SnapshotMsg,
    encode,
    encode_body,
)

__all__ = ["Hello", "LinkListener", "McuLink"]

log = logging.getLogger(__name__)

SEQ_MOD = 0x10000
TIME_MOD = 1 << 32
# A damaged frame while waiting for HELLO may have been the HELLO: ask again
# this soon rather than after the full hello_retry.
HELLO_RETRY_AFTER_DAMAGE = 0.05


class LinkListener(Protocol):
    def on_hello(self, hello: Hello) -> None: ...

    def on_snapshot(self, levels: dict[int, bool], mcu_time_us: int) -> None: ...

    def on_change(self, channel: int, level: bool, mcu_time_us: int) -> None: ...

    def on_online(self) -> None: ...

    def on_offline(self, reason: str) -> None: ...


class _McuClock:
    """Unwraps the MCU's 32-bit microsecond clock into a count since its boot.

    Within one boot the MCU's time only moves forward and frames keep their
    order, so a step back by less than half the range is a restart the host
    did not see (the MCU rebooted while unplugged, or its HELLO was lost);
    ``extend`` then starts counting afresh and sets ``restarted``.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._base = 0
        self._last: int | None = None
        self.restarted = False

    def went_back(self, t32: int | None) -> bool:
        """Whether ``t32`` is a step back that ``extend`` would take for a restart."""
        last = self._last
        return t32 is not None and last is not None and t32 < last and last - t32 <= TIME_MOD // 2

    def extend(self, t32: int) -> int:
        last = self._last
        if last is not None and t32 < last:
            if last - t32 > TIME_MOD // 2:
                self._base += TIME_MOD
            else:
                self._base = 0
                self.restarted = True
        self._last = t32
        return self._base + t32


class McuLink:
    """A context manager; ``close()`` is idempotent. See the module docstring."""

    def __init__(
        self,
        url: str,
        listener: LinkListener,
        *,
        baudrate: int = 115200,
        heartbeat_timeout: float = 2.0,
        backoff: tuple[float, float] = (0.1, 5.0),
        low_latency: bool = False,
        hello_retry: float = 0.5,
        snapshot_retry: float = 0.25,
        reopen_after: float | None = None,
    ) -> None:
        if not url:
            raise ValueError("MCU link url is empty")
        if baudrate <= 0:
            raise ValueError(f"baudrate must be positive, got {baudrate}")
        if heartbeat_timeout <= 0:
            raise ValueError(f"heartbeat_timeout must be positive, got {heartbeat_timeout}")
        if len(backoff) != 2 or not 0 < backoff[0] <= backoff[1]:
            raise ValueError(f"backoff must be (min, max) with 0 < min <= max, got {backoff!r}")
        if hello_retry <= 0 or snapshot_retry <= 0:
            raise ValueError("hello_retry and snapshot_retry must be positive")
        self.url = url
        self.listener = listener
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff = (float(backoff[0]), float(backoff[1]))
        self.low_latency = low_latency
        self.hello_retry = hello_retry
        self.snapshot_retry = snapshot_retry
        # Silence this long closes and reopens the port (default: 3 heartbeat timeouts, at least 5 s).
        self.reopen_after = reopen_after if reopen_after is not None else max(5.0, 3 * heartbeat_timeout)
        if self.reopen_after <= heartbeat_timeout:
            raise ValueError(f"reopen_after ({self.reopen_after}) must exceed heartbeat_timeout ({heartbeat_timeout})")
        # Short enough to notice a heartbeat timeout promptly; close() wakes
        # the read at once with cancel_read(), so this is not a busy loop.
        self._read_timeout = min(0.1, heartbeat_timeout / 4)

        self.online = False
        self.hello: Hello | None = None
        self.last_error = ""
        self._decoder = FrameDecoder()
        self._link_counters = dict.fromkeys(
            ("drops", "reconnects", "disconnects", "reopens", "resets", "heartbeats", "heartbeat_timeouts", "snapshots",
             "changes", "naks", "unexpected", "ignored_unsynced", "frames_out", "listener_errors"),
            0,
        )
        self._lock = threading.Lock()  # online flag, port handle, outputs, pings
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._port: serial.Serial | None = None
        self._tx_seq = 0
        self._outputs: dict[int, int] = {}
        self._missing_outputs: list[int] = []
        self._pings: dict[int, tuple[threading.Event, list[float]]] = {}
        self._ping_token = 0
        # Reader-thread state for the current connection.
        self._synced = False
        self._expect_seq: int | None = None
        self._last_rx = 0.0
        self._hello_sent_at = 0.0
        self._snapshot_sent_at: float | None = None
        self._clock = _McuClock()

    # -- public API -----------------------------------------------------------

    def __enter__(self) -> McuLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def counters(self) -> dict[str, int]:
        """A copy: decoder counters (frames_ok, crc_errors, resyncs, ...) and link counters."""
        return {**self._decoder.counters, **self._link_counters}

    def health(self) -> dict[str, object]:
        """A JSON-ready summary for health reports: state, who is there, why not, counters."""
        hello = self.hello
        return {
            "url": self.url,
            "state": "online" if self.online else ("connected" if self.connected else "offline"),
            "board_id": hello.board_id if hello else None,
            "firmware": hello.firmware if hello else None,
            "channels": hello.channels if hello else None,
            "last_error": self.last_error or None,
            "counters": self.counters,
        }

    @property
    def connected(self) -> bool:
        """The port is open (the MCU may still be silent)."""
        return self._port is not None

    def start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("McuLink was closed; make a new one")
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name=f"mcu-link {self.url}", daemon=True)
            self._thread.start()

    def close(self, timeout: float = 2.0) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            port = self._port
        self._stop.set()
        if port is not None:
            with contextlib.suppress(AttributeError, OSError, serial.SerialException):
                port.cancel_read()
        # From a listener callback close() runs on the reader thread itself,
        # which stops on its own once it returns.
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("MCU link reader for %s did not stop within %.1f s", self.url, timeout)
        self._go_offline("link closed")

    def set_output(self, channel: int, value: int) -> None:
        """Ask the MCU to drive an output; remembered and re-sent after every reconnect or reset."""
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(channel, int) or isinstance(channel, bool) or not 0 <= channel <= 255:
            raise ValueError(f"output channel must be an integer 0..255, got {channel!r}")
        if not isinstance(value, int) or not 0 <= value <= 0xFFFF:
            raise ValueError(f"output {channel} value must be an integer 0..65535, got {value!r}")
        hello = self.hello
        if hello is not None and channel >= hello.outputs:
            raise ValueError(f"output channel {channel} does not exist: the MCU has {hello.outputs} outputs")
        with self._lock:
            self._outputs[channel] = value
        if self._synced:
            self._send(SetOutputMsg(channel, value))

    def play_pattern(self, channel: int, kind: int, duration_ms: int, period_ms: int, level: int,
                     seed: int = 0) -> bool:
        """Ask the MCU to run a pattern on an output: one frame, the firmware times every step.

        A pattern is a passing effect: it is not re-sent after a reconnect or a
        reset (those drop it, and the output is off). False when not synced.
        """
        msg = PlayPatternMsg(channel, kind, duration_ms, period_ms, level, seed)
        encode_body(msg)  # ValueError naming the field before anything is sent
        hello = self.hello
        if hello is not None and channel >= hello.outputs:
            raise ValueError(f"output channel {channel} does not exist: the MCU has {hello.outputs} outputs")
        if not self._synced:
            return False
        with self._lock:
            self._outputs.pop(channel, None)  # the pattern ends off: nothing to restore after a reset
        self._send(msg)
        return True

    def request_snapshot(self) -> None:
        """Ask for a full SNAPSHOT now; if not yet synced, one follows the next HELLO anyway."""
        if self._synced:
            self._snapshot_sent_at = time.monotonic()
            self._send(GetSnapshotMsg())

    def ping(self, timeout: float = 1.0) -> float:
        """Round trip of a PING to the MCU and its PONG, in seconds."""
        if self._thread is threading.current_thread():
            # The PONG would be read by this very thread, which is busy waiting for it.
            raise RuntimeError("ping() cannot be called from the link's reader thread (a listener callback)")
        if self._port is None:
            raise ConnectionError(f"MCU link {self.url} is not connected: {self.last_error or 'not started'}")
        event = threading.Event()
        holder: list[float] = []
        with self._lock:
            self._ping_token = token = (self._ping_token + 1) % SEQ_MOD
            self._pings[token] = (event, holder)
        try:
            start = time.monotonic()
            if not self._send(PingMsg(token)):
                raise ConnectionError(f"MCU link {self.url}: cannot send PING: {self.last_error}")
            if not event.wait(timeout):
                raise TimeoutError(f"no PONG from the MCU on {self.url} within {timeout} s")
            return holder[0] - start
        finally:
            with self._lock:
                self._pings.pop(token, None)

    # -- sending ------------------------------------------------------------

    def _send(self, msg: Message) -> bool:
        port = self._port
        if port is None:
            return False
        with self._write_lock:
            frame = encode(msg, self._tx_seq)
            self._tx_seq = (self._tx_seq + 1) % SEQ_MOD
            try:
                port.write(frame)
            except (OSError, serial.SerialException) as exc:
                # The reader thread sees the same failure and handles the loss.
                self.last_error = f"write failed: {exc}"
                return False
        self._link_counters["frames_out"] += 1
        return True

    # -- the reader thread ----------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff[0]
        opened_before = False
        while not self._stop.is_set():
            try:
                port = self._open()
            except (OSError, ValueError, serial.SerialException) as exc:
                self.last_error = f"cannot open {self.url}: {exc}"
                log.debug("%s; retrying in %.2f s", self.last_error, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            if opened_before:
                self._link_counters["reconnects"] += 1
            opened_before = True
            with self._lock:
                self._port = port
            try:
                if self._serve(port):
                    delay = self.backoff[0]  # the connection was healthy
            except Exception as exc:
                # A driver or a bug raised what no port should: the reader must
                # outlive it, so it counts as losing the port and reconnects.
                log.exception("MCU link reader for %s failed; reopening the port", self.url)
                self.last_error = f"port lost: {type(exc).__name__}: {exc}"
                self._link_counters["disconnects"] += 1
                self._go_offline(self.last_error)
            finally:
                with self._lock:
                    self._port = None
                with contextlib.suppress(OSError, serial.SerialException):
                    port.close()
            if not self._stop.is_set():
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])

    def _open(self) -> serial.Serial:
        # Two readers on one port would each see half the bytes; a URL (loop://, socket://) is not a
        # device, and None is pyserial's own default there.
        exclusive = None if "://" in self.url else True
        port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=self._read_timeout,
                                     write_timeout=1.0, exclusive=exclusive)
        if self.low_latency:
            try:
                port.set_low_latency_mode(True)
            except (AttributeError, OSError, ValueError, NotImplementedError) as exc:
                log.warning("low_latency is not available on %s: %s", self.url, exc)
        return port

    def _serve(self, port: serial.Serial) -> bool:
        """Read until the port fails or close(); True if the MCU answered on this connection."""
        self._decoder.restart()
        self._synced = False
        self._expect_seq = None
        self._snapshot_sent_at = None
        now = time.monotonic()
        self._last_rx = now
        healthy = False
        self._request_hello(now)
        while not self._stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
            except (OSError, serial.SerialException) as exc:
                if self._stop.is_set():
                    break
                self.last_error = f"port lost: {exc}"
                self._link_counters["disconnects"] += 1
                self._go_offline(self.last_error)
                return healthy
            now = time.monotonic()
            if data:
                for item in self._decoder.feed(data):
                    if isinstance(item, BadFrame):
                        if item.kind == "version_errors":
                            # Firmware and host out of step: worth saying plainly.
                            if self.last_error != item.reason:
                                log.warning("MCU on %s: %s", self.url, item.reason)
                            self.last_error = item.reason
                        else:
                            log.debug("bad frame from %s: %s", self.url, item.reason)
                        if self._synced:
                            self._want_snapshot(now)
                        elif now - self._hello_sent_at >= HELLO_RETRY_AFTER_DAMAGE:
                            self._request_hello(now)  # it may have been the HELLO
                    else:
                        self._on_frame(item, now)
                healthy = healthy or self._synced
            self._housekeeping(now)
            if now - self._last_rx > self.reopen_after:
                # Some USB-serial adapters wedge without reporting an error;
                # a fresh open is the only cure, and it is harmless otherwise.
                self._link_counters["reopens"] += 1
                self.last_error = f"no frame for {self.reopen_after} s: reopening {self.url}"
                log.info("%s", self.last_error)
                return healthy
        return healthy

    def _housekeeping(self, now: float) -> None:
        if now - self._last_rx > self.heartbeat_timeout:
            if self.online:
                self._link_counters["heartbeat_timeouts"] += 1
                self._synced = False
                self.last_error = f"heartbeat timeout: no frame from the MCU for {self.heartbeat_timeout} s"
                self._go_offline(self.last_error)
            self._synced = False
        if not self._synced and now - self._hello_sent_at >= self.hello_retry:
            self._request_hello(now)
        if self._synced and self._snapshot_sent_at is not None and now - self._snapshot_sent_at >= self.snapshot_retry:
            self._want_snapshot(now, force=True)

    def _request_hello(self, now: float) -> None:
        self._hello_sent_at = now
        self._send(GetHelloMsg())

    def _want_snapshot(self, now: float, force: bool = False) -> None:
        sent = self._snapshot_sent_at
        if force or sent is None or now - sent >= self.snapshot_retry:
            self._snapshot_sent_at = now
            self._send(GetSnapshotMsg())

    def _on_frame(self, frame: Frame, now: float) -> None:
        self._last_rx = now
        seq, msg = frame
        if isinstance(msg, HelloMsg):
            self._expect_seq = (seq + 1) % SEQ_MOD
            self._on_hello(msg, now)
            return
        expect = self._expect_seq
        self._expect_seq = (seq + 1) % SEQ_MOD
        if expect is not None and seq != expect:
            gap = (seq - expect) % SEQ_MOD
            # A forward jump whose clock went back is a reboot late in the
            # sequence (its HELLO lost), not tens of thousands of lost frames.
            if gap < SEQ_MOD // 2 and not self._clock.went_back(getattr(msg, "mcu_time_us", None)):
                self._link_counters["drops"] += gap
                if self._synced:
                    self._want_snapshot(now)
            else:
                # The numbers went backwards: the MCU restarted and its boot
                # HELLO was lost. Start over as after a HELLO.
                log.info("MCU on %s restarted (sequence %d after %d)", self.url, seq, expect - 1)
                self._link_counters["resets"] += 1
                self._clock.reset()
                self._synced = False
                self._request_hello(now)
        if isinstance(msg, ChangeMsg):
            t = self._mcu_time(msg.mcu_time_us, now)
            if self._synced:
                self._link_counters["changes"] += 1
                self._call("on_change", msg.channel, msg.level, t)
            else:
                self._link_counters["ignored_unsynced"] += 1
        elif isinstance(msg, HeartbeatMsg):
            self._link_counters["heartbeats"] += 1
            self._mcu_time(msg.mcu_time_us, now)
        elif isinstance(msg, SnapshotMsg):
            t = self._mcu_time(msg.mcu_time_us, now)
            if self._synced:
                self._snapshot_sent_at = None
                self._link_counters["snapshots"] += 1
                self._call("on_snapshot", msg.levels(), t)
            else:
                self._link_counters["ignored_unsynced"] += 1
        elif isinstance(msg, PongMsg):
            self._mcu_time(msg.mcu_time_us, now)
            with self._lock:
                waiter = self._pings.get(msg.token)
            if waiter is not None:
                waiter[1].append(now)
                waiter[0].set()
        elif isinstance(msg, NakMsg):
            self._link_counters["naks"] += 1
            try:
                code = NakCode(msg.code).name
            except ValueError:
                code = str(msg.code)
            log.warning("MCU on %s refused frame %d: %s (arg %d)", self.url, msg.ref_seq, code, msg.arg)
            if msg.code in (NakCode.CRC, NakCode.COBS, NakCode.OVERSIZE) and self._synced:
                # A host frame was damaged on the way and we cannot tell which:
                # re-send what is idempotent (the outputs); requests retry by themselves.
                self._resend_outputs()
        else:
            self._link_counters["unexpected"] += 1  # a host-only message type from the MCU

    def _mcu_time(self, t32: int, now: float) -> int:
        t = self._clock.extend(t32)
        if self._clock.restarted:
            self._clock.restarted = False
            log.info("MCU on %s restarted unseen (its clock went back)", self.url)
            self._link_counters["resets"] += 1
            if self._synced:
                self._synced = False  # HELLO again, then a snapshot
                self._request_hello(now)
        return t

    def _on_hello(self, msg: HelloMsg, now: float) -> None:
        if msg.boot:
            if self.hello is not None:
                self._link_counters["resets"] += 1
            self._clock.reset()
        self._clock.extend(msg.mcu_time_us)
        if self._clock.restarted:  # a reply HELLO from an MCU that rebooted while nobody listened
            self._clock.restarted = False
            self._link_counters["resets"] += 1
        hello = Hello(msg.firmware, msg.board_id, msg.channels, PROTOCOL_VERSION, msg.outputs)
        self.hello = hello
        self._synced = True
        self._call("on_hello", hello)
        went_online = False
        with self._lock:
            if not self.online and not self._stop.is_set():
                self.online = went_online = True
        if went_online:
            self._call("on_online")
        self._want_snapshot(now, force=True)
        with self._lock:
            missing = sorted(ch for ch in self._outputs if ch >= msg.outputs)
        if missing and missing != self._missing_outputs:
            # Set before the MCU said what it has; the hardware layer lists it as a problem too.
            log.warning("MCU on %s has %d outputs: output %s cannot be set", self.url, msg.outputs,
                        ", ".join(map(str, missing)))
        self._missing_outputs = missing  # said once, not at every HELLO
        self._resend_outputs()

    def _resend_outputs(self) -> None:
        with self._lock:
            outputs = sorted(self._outputs.items())
        limit = self.hello.outputs if self.hello is not None else 0
        for channel, value in outputs:
            if channel < limit:
                self._send(SetOutputMsg(channel, value))

    def _go_offline(self, reason: str) -> None:
        with self._lock:
            was_online, self.online = self.online, False
        if was_online:
            log.info("MCU on %s offline: %s", self.url, reason)
            self._call("on_offline", reason)

    def _call(self, name: str, *args: object) -> None:
        try:
            getattr(self.listener, name)(*args)
        except Exception:
            # A buggy listener must not kill the reader thread.
            self._link_counters["listener_errors"] += 1
            log.exception("MCU link listener %s failed", name)
