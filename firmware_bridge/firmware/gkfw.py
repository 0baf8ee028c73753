# The reference firmware's protocol logic, written for MicroPython on a
# Raspberry Pi Pico and importable unchanged on CPython.
#
# It is deliberately plain: no dataclasses, no typing imports, no f-strings in
# hot paths, nothing MicroPython lacks. COBS and CRC-16/CCITT are implemented
# here in pure Python because MicroPython has neither the ``cobs`` package nor
# ``binascii.crc_hqx``; the host codec (firmware_bridge.protocol) uses those and
# the tests prove both sides agree byte for byte.
#
# The board glue (pins, UART, the main loop) lives in main.py. The virtual MCU
# (firmware_bridge.virtual_mcu) drives this same Firmware class on a
# pseudo-terminal, so the simulator and the board speak identical bytes.
#
# The wire format is specified in docs/protocol.md.

import struct

TYPE_CHECKING = False
if TYPE_CHECKING:  # for type checkers only: MicroPython has no typing module
    from collections.abc import Callable, Sequence
    from typing import Protocol

    class InputPin(Protocol):
        def value(self) -> int: ...

    class OutputPin(Protocol):
        def value(self, v: int) -> object: ...

PROTOCOL_VERSION = 1
FIRMWARE_VERSION = "gkfw-1.0.0"

# MCU -> host
HELLO = 0x01
SNAPSHOT = 0x02
CHANGE = 0x03
HEARTBEAT = 0x04
PONG = 0x05
NAK = 0x06
# host -> MCU
GET_HELLO = 0x80
GET_SNAPSHOT = 0x81
SET_OUTPUT = 0x82
PING = 0x83
PLAY_PATTERN = 0x84

HELLO_BOOT = 0
HELLO_REPLY = 1

# NAK codes: why a host frame was refused
NAK_CRC = 1
NAK_COBS = 2
NAK_VERSION = 3
NAK_TYPE = 4
NAK_LENGTH = 5
NAK_CHANNEL = 6
NAK_OVERSIZE = 7
NAK_VALUE = 8

# PLAY_PATTERN kinds: the firmware runs the pattern itself, so a flicker is one frame, not fifty
PATTERN_OFF = 0
PATTERN_ON = 1
PATTERN_BLINK = 2
PATTERN_PULSE = 3
PATTERN_FLICKER = 4

MAX_HOST_FRAME = 32  # encoded bytes; the longest host frame is 17 (PLAY_PATTERN)
MAX_STRING = 32
# The firmware keeps its clock as (wraps, microseconds below 2**29): on the
# Pico's 32-bit port an int from 2**30 up is a heap object, and a clock kept as
# one int would allocate on every poll once the board has run 18 minutes. Both
# parts stay small; the 32-bit mcu_time is put together only to send a frame.
LOW_BITS = 29
LOW_MASK = (1 << LOW_BITS) - 1
HIGH_MASK = (1 << (32 - LOW_BITS)) - 1

_CRC_TABLE = []
for _i in range(256):
    _c = _i << 8
    for _ in range(8):
        _c = ((_c << 1) ^ 0x1021) if _c & 0x8000 else (_c << 1)
    _CRC_TABLE.append(_c & 0xFFFF)


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as binascii.crc_hqx."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


_CRC_VERSION_CHANGE = crc16(bytes((PROTOCOL_VERSION, CHANGE)))  # every CHANGE payload starts so
# Two bytes a step: the CRC is linear, so byte a then byte b from state (h, l)
# give _CRC_TABLE2[h ^ a] ^ _CRC_TABLE[l ^ b].
_CRC_TABLE2 = [((_x & 0xFF) << 8) ^ _CRC_TABLE[_x >> 8] for _x in _CRC_TABLE]


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    # After a full 254-byte block that ends the data no empty block follows:
    # the canonical form, as the host's cobs package writes it, so a frame's
    # bytes are the same whichever side built them.
    full = False
    for b in data:
        full = False
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                full = True
    if not full:
        out.append(len(block) + 1)
        out.extend(block)
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Decode one COBS block (without its 0x00 delimiter); ValueError if malformed."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS code runs past the frame")
        out.extend(data[i + 1:end])
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def build_frame(msg_type: int, seq: int, body: bytes) -> bytes:
    payload = struct.pack(">BBH", PROTOCOL_VERSION, msg_type, seq & 0xFFFF) + body
    crc = crc16(payload)
    return cobs_encode(payload + struct.pack(">H", crc)) + b"\x00"


def _clip(text: str) -> str:
    # The limit is in bytes on the wire; cut whole characters, as a cut inside
    # a UTF-8 sequence would make the HELLO undecodable.
    while len(text.encode()) > MAX_STRING:
        text = text[:-1]
    return text


def ticks_diff_30(a: int, b: int) -> int:
    # MicroPython's ticks wrap at 2**30 on the rp2 port; the host-side stand-ins
    # use the same period so the wrap handling is exercised in tests.
    half = 1 << 29
    return ((a - b + half) & ((1 << 30) - 1)) - half


class Firmware:
    """Scans inputs, reports edges, answers the host. One instance per boot.

    ``inputs`` and ``outputs`` are Pin-like objects (``value()`` /
    ``value(v)``); an output may also offer ``duty_u16(v)`` for PWM.
    ``write(bytes)`` sends to the host. ``ticks_us()`` and
    ``ticks_diff(a, b)`` are MicroPython's ``time`` functions.

    ``read_inputs()`` with ``input_masks`` reads every input at once: it
    returns a word in which input ``i`` is the bit ``input_masks[i]`` (on the
    Pico, SIO's GPIO_IN register). The loop then compares one word per pass
    instead of calling ``value()`` on each pin, and allocates nothing while
    no input moves; without it, each pin is read on its own.
    """

    def __init__(self, inputs: "Sequence[InputPin]", outputs: "Sequence[OutputPin]",
                 write: "Callable[[bytes], object]", ticks_us: "Callable[[], int]",
                 ticks_diff: "Callable[[int, int], int]", board_id: str,
                 version: str = FIRMWARE_VERSION, heartbeat_us: int = 500000,
                 read_inputs: "Callable[[], int] | None" = None,
                 input_masks: "Sequence[int] | None" = None) -> None:
        if len(inputs) > 255 or len(outputs) > 255:
            raise ValueError("at most 255 inputs and 255 outputs")
        if (read_inputs is None) != (input_masks is None):
            raise ValueError("read_inputs and input_masks go together")
        if input_masks is not None and len(input_masks) != len(inputs):
            raise ValueError("one input mask per input")
        self.inputs = inputs
        self.outputs = outputs
        self._write = write
        self._ticks_us = ticks_us
        self._ticks_diff = ticks_diff
        self.board_id = _clip(str(board_id))
        self.version = _clip(str(version))
        self.heartbeat_us = heartbeat_us
        self.seq = 0
        self._rx = bytearray()
        self._rx_skipping = False
        self._last_ticks = ticks_us()
        # Microseconds since boot, extended past the ticks wrap: _now_low + _now_high * 2**29.
        self._now_low = 0
        self._now_high = 0
        self._last_tx = 0  # the clock (_now_low, _now_high) when the last frame went out
        self._last_tx_high = 0
        self._read_inputs = read_inputs
        self._input_masks = tuple(input_masks) if input_masks is not None else ()
        self._input_bits = 0  # the other bits of the word (UART pins, outputs) move without us
        for m in self._input_masks:
            self._input_bits |= m
        # bit -> channel, to go straight to the one input that moved; only when each input has a bit of its own
        one = {}
        unique = True
        for i, m in enumerate(self._input_masks):
            if m & (m - 1) or m in one:
                unique = False
            one[m] = i
        self._channel_of_bit = one if unique else None
        self._raw = 0  # the last word read_inputs returned; self.levels always follows it
        self.levels = self._read_levels()
        self.output_values = [0] * len(outputs)
        # channel -> [kind, start (_now_low), duration_ms, period_ms, level, seed]: patterns running now.
        # Stepped in channel order, never the dict's: MicroPython's dicts keep no insertion order.
        self.patterns = {}  # type: dict[int, list[int]]
        self.rx_errors = 0
        self.frames_in = 0

    # -- time ---------------------------------------------------------------
    def now(self) -> int:
        """Microseconds since boot, 32 bits (the protocol's mcu_time), after reading the clock."""
        self._advance()
        return self._stamp()

    def _advance(self) -> int:
        # ticks_diff is below 2**29 and so is _now_low: their sum is still a small int.
        t = self._ticks_us()
        low = self._now_low + self._ticks_diff(t, self._last_ticks)
        self._last_ticks = t
        if low > LOW_MASK or low < 0:  # a step back (never on a Pico) wraps like the rest
            self._now_high = (self._now_high + (low >> LOW_BITS)) & HIGH_MASK
            low &= LOW_MASK
        self._now_low = low
        return low

    def _stamp(self) -> int:
        return (self._now_high << LOW_BITS) | self._now_low

    # -- sending ------------------------------------------------------------
    def send(self, msg_type: int, body: bytes = b"") -> None:
        frame = build_frame(msg_type, self.seq, body)
        self.seq = (self.seq + 1) & 0xFFFF
        self._last_tx = self._now_low
        self._last_tx_high = self._now_high
        self._write(frame)

    def send_hello(self, reason: int) -> None:
        fw = self.version.encode()
        bid = self.board_id.encode()
        body = struct.pack(">BBBI", reason, len(self.inputs), len(self.outputs), self.now())
        body += bytes([len(fw)]) + fw + bytes([len(bid)]) + bid
        self.send(HELLO, body)

    def _read_levels(self) -> "list[int]":
        if self._read_inputs is None:
            return [1 if p.value() else 0 for p in self.inputs]
        raw = self._raw = self._read_inputs() & self._input_bits
        return [1 if raw & m else 0 for m in self._input_masks]

    def send_snapshot(self) -> None:
        t = self.now()
        self.levels = self._read_levels()
        bitmap = bytearray((len(self.inputs) + 7) // 8)
        for i, level in enumerate(self.levels):
            if level:
                bitmap[i >> 3] |= 1 << (i & 7)
        self.send(SNAPSHOT, struct.pack(">IB", t, len(self.inputs)) + bytes(bitmap))

    def nak(self, code: int, ref_seq: int = 0xFFFF, arg: int = 0) -> None:
        self.send(NAK, struct.pack(">BHB", code, ref_seq & 0xFFFF, arg & 0xFF))

    # -- the main loop's three steps ----------------------------------------
    def boot(self) -> None:
        # A lone delimiter first ends whatever partial frame the host holds,
        # so the boot HELLO is never mistaken for the tail of older bytes.
        self._write(b"\x00")
        self.now()
        self.send_hello(HELLO_BOOT)

    def scan(self) -> None:
        """Report every input whose level differs from the last one reported."""
        levels = self.levels
        read = self._read_inputs
        if read is not None:
            raw = read() & self._input_bits
            changed = raw ^ self._raw
            if not changed:
                return
            self._raw = raw
            one = self._channel_of_bit
            if one is not None and not changed & (changed - 1):  # one input moved: the usual case
                i = one[changed]
                v = 1 if raw & changed else 0
                self.levels[i] = v
                self._send_change(i, v)
                return
            masks = self._input_masks
            for i in range(len(masks)):
                m = masks[i]
                if changed & m:
                    v = 1 if raw & m else 0
                    levels[i] = v
                    self._send_change(i, v)
            return
        for i, pin in enumerate(self.inputs):
            v = 1 if pin.value() else 0
            if v != levels[i]:
                levels[i] = v
                self.send(CHANGE, struct.pack(">BBI", i, v, self.now()))

    def _send_change(self, channel: int, level: int) -> None:
        # The same bytes as send(CHANGE, ...), built for speed: this is the
        # edge-to-wire path. build_frame's CRC loop and COBS encoder cost about
        # 0.9 ms per frame on a Pico; one struct.pack, a CRC two bytes a step
        # and a COBS that only visits the zeros cost about 0.2 ms.
        seq = self.seq
        # now(), written out (two method calls fewer on the edge-to-wire path).
        t = self._ticks_us()
        low = self._now_low + self._ticks_diff(t, self._last_ticks)
        self._last_ticks = t
        if low > LOW_MASK or low < 0:
            self._now_high = (self._now_high + (low >> LOW_BITS)) & HIGH_MASK
            low &= LOW_MASK
        self._now_low = low
        # The 32-bit stamp as two 16-bit halves: past 2**30 us (18 minutes) a 32-bit int is a heap
        # object on the Pico, and every CHANGE would allocate (and now and then wait for a collection).
        p = struct.pack(">BBHBBHH", PROTOCOL_VERSION, CHANGE, seq, channel, level,
                        (self._now_high << (LOW_BITS - 16)) | (low >> 16), low & 0xFFFF)
        t1 = _CRC_TABLE
        t2 = _CRC_TABLE2
        c = _CRC_VERSION_CHANGE
        c = t2[(c >> 8) ^ p[2]] ^ t1[(c & 0xFF) ^ p[3]]
        c = t2[(c >> 8) ^ p[4]] ^ t1[(c & 0xFF) ^ p[5]]
        c = t2[(c >> 8) ^ p[6]] ^ t1[(c & 0xFF) ^ p[7]]
        c = t2[(c >> 8) ^ p[8]] ^ t1[(c & 0xFF) ^ p[9]]
        # COBS of these 12 bytes (no 254-byte blocks): out[0] is the first code
        # byte, each zero of the payload becomes the next one, out[13] stays the
        # 0x00 delimiter. bytes.find is C; only the zeros cost Python steps.
        out = bytearray(14)
        out[1:11] = p
        hi = c >> 8
        lo = c & 0xFF
        out[11] = hi
        out[12] = lo
        last = 0
        i = p.find(b"\x00")
        while i >= 0:
            out[last] = i + 1 - last
            last = i + 1
            i = p.find(b"\x00", last)
        if not hi:
            out[last] = 11 - last
            last = 11
        if not lo:
            out[last] = 12 - last
            last = 12
        out[last] = 13 - last
        self.seq = (seq + 1) & 0xFFFF
        self._last_tx = self._now_low
        self._last_tx_high = self._now_high
        self._write(out)  # type: ignore[arg-type]  # a bytearray: bytes(out) would allocate again

    def tick(self) -> None:
        # _advance, written out: tick runs on every pass of the idle loop, and a method
        # call is a good part of a pass on the Pico (the edge-to-frame latency is a pass).
        t = self._ticks_us()
        low = self._now_low + self._ticks_diff(t, self._last_ticks)
        self._last_ticks = t
        if low > LOW_MASK or low < 0:
            self._now_high = (self._now_high + (low >> LOW_BITS)) & HIGH_MASK
            low &= LOW_MASK
        self._now_low = low
        if self.patterns:
            self.run_patterns(low)
        silent = low - self._last_tx
        if self._now_high != self._last_tx_high:
            # A small int still while the last frame is less than 2**29 us back, as it
            # is whenever heartbeats are due more often than every 9 minutes.
            silent += ((self._now_high - self._last_tx_high) & HIGH_MASK) << LOW_BITS
        if silent >= self.heartbeat_us:
            self.send(HEARTBEAT, struct.pack(">I", self._stamp()))

    def run_patterns(self, low: int) -> None:
        """Drive every running pattern's output at ``low`` (``_now_low``); a finished one leaves it off."""
        for channel in sorted(self.patterns):
            kind, start, duration, period, level, seed = self.patterns[channel]
            # Modulo 2**29 us (9 minutes): longer than any pattern (65.5 s) and than ticks_diff reaches.
            elapsed = ((low - start) & LOW_MASK) // 1000
            if elapsed >= duration:
                del self.patterns[channel]
                value = 0
            else:
                value = pattern_level(kind, elapsed, period, level, seed)
            if value != self.output_values[channel]:
                self._drive(channel, value)

    def poll(self, data: "bytes | None" = None) -> None:
        if data:
            self.feed(data)
        self.scan()
        self.tick()

    # -- receiving ----------------------------------------------------------
    def feed(self, data: bytes) -> None:
        for b in data:
            if b == 0:
                if self._rx_skipping:
                    self._rx_skipping = False
                elif self._rx:
                    self._handle(bytes(self._rx))
                self._rx = bytearray()
            elif not self._rx_skipping:
                self._rx.append(b)
                if len(self._rx) > MAX_HOST_FRAME:
                    self._rx = bytearray()
                    self._rx_skipping = True
                    self.rx_errors += 1
                    self.nak(NAK_OVERSIZE)

    def _handle(self, encoded: bytes) -> None:
        try:
            payload = cobs_decode(encoded)
        except ValueError:
            self.rx_errors += 1
            self.nak(NAK_COBS)
            return
        if len(payload) < 6 or crc16(payload) != 0:
            self.rx_errors += 1
            self.nak(NAK_CRC)
            return
        version, msg_type, seq = struct.unpack(">BBH", payload[:4])
        body = payload[4:-2]
        if version != PROTOCOL_VERSION:
            self.rx_errors += 1
            self.nak(NAK_VERSION, seq, version)
            return
        self.frames_in += 1
        if msg_type == GET_HELLO and not body:
            self.send_hello(HELLO_REPLY)
        elif msg_type == GET_SNAPSHOT and not body:
            self.send_snapshot()
        elif msg_type == PING and len(body) == 2:
            self.send(PONG, body + struct.pack(">I", self.now()))
        elif msg_type == SET_OUTPUT and len(body) == 3:
            channel, value = struct.unpack(">BH", body)
            if channel >= len(self.outputs):
                self.nak(NAK_CHANNEL, seq, channel)
                return
            self.set_output(channel, value)
        elif msg_type == PLAY_PATTERN and len(body) == 10:
            channel, kind, duration, period, level, seed = struct.unpack(">BBHHHH", body)
            if channel >= len(self.outputs):
                self.nak(NAK_CHANNEL, seq, channel)
                return
            if kind > PATTERN_FLICKER or duration == 0 or period < 20:
                self.rx_errors += 1
                self.nak(NAK_VALUE, seq, kind)
                return
            self.play_pattern(channel, kind, duration, period, level, seed)
        elif msg_type in (GET_HELLO, GET_SNAPSHOT, PING, SET_OUTPUT, PLAY_PATTERN):
            self.rx_errors += 1
            self.nak(NAK_LENGTH, seq, msg_type)
        else:
            self.rx_errors += 1
            self.nak(NAK_TYPE, seq, msg_type)

    def set_output(self, channel: int, value: int) -> None:
        """The host sets a level: a pattern running on that output stops."""
        self.patterns.pop(channel, None)
        self._drive(channel, value)

    def play_pattern(self, channel: int, kind: int, duration: int, period: int, level: int, seed: int) -> None:
        if kind == PATTERN_OFF:
            self.set_output(channel, 0)
            return
        low = self._advance()
        self.patterns[channel] = [kind, low, duration, period, level, seed]
        self.run_patterns(low)

    def _drive(self, channel: int, value: int) -> None:
        pin = self.outputs[channel]
        self.output_values[channel] = value
        if hasattr(pin, "duty_u16"):
            pin.duty_u16(value)
        else:
            pin.value(1 if value else 0)


def pattern_level(kind: int, elapsed_ms: int, period_ms: int, level: int, seed: int) -> int:
    """An output's 16-bit level ``elapsed_ms`` into a pattern (integer arithmetic, for the Pico)."""
    if kind == PATTERN_ON:
        return level
    if kind == PATTERN_BLINK:
        return level if (elapsed_ms // max(1, period_ms // 2)) % 2 == 0 else 0
    if kind == PATTERN_PULSE:
        half = max(1, period_ms // 2)
        phase = elapsed_ms % period_ms
        ramp = phase if phase <= half else period_ms - phase
        return level * min(ramp, half) // half
    if kind == PATTERN_FLICKER:
        # Uneven steps of about a quarter period, on or dimmed by a small hash of (seed, step).
        step = elapsed_ms // max(5, period_ms // 4)
        x = (seed * 2654435761 + step * 40503 + 12345) & 0xFFFF
        x = (x * 25173 + 13849) & 0xFFFF
        if x & 0x7 < 2:
            return 0
        return level * (40 + (x >> 8) % 61) // 100
    return 0
