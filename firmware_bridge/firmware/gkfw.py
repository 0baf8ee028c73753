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
# tick() reads the clock at least this often, even with nothing else due: ticks_diff
# measures up to 2**29 us, so the clock never misses a wrap of the ticks.
CLOCK_READ_US = 1 << 28

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


# A CHANGE payload is 10 bytes: version and type, then 8 that vary. The CRC is linear, so it is the
# CRC of the payload with those 8 bytes zero, XOR each byte's own share: _Ck[b] is what byte b adds at
# payload position k (the CRC from zero of b followed by 9 - k zero bytes). Eight lookups, no loop.
_CRC_CHANGE_BASE = crc16(bytes((PROTOCOL_VERSION, CHANGE, 0, 0, 0, 0, 0, 0, 0, 0)))


def _after_zero_byte(table: "list[int]") -> "list[int]":
    return [((c << 8) & 0xFFFF) ^ _CRC_TABLE[c >> 8] for c in table]


# A HEARTBEAT payload is 8 bytes, so its byte k is followed by 7 - k zeros: the CHANGE's _C(k + 2).
_CRC_HEARTBEAT_BASE = crc16(bytes((PROTOCOL_VERSION, HEARTBEAT, 0, 0, 0, 0, 0, 0)))
_C9 = list(_CRC_TABLE)
_C8 = _after_zero_byte(_C9)
_C7 = _after_zero_byte(_C8)
_C6 = _after_zero_byte(_C7)
_C5 = _after_zero_byte(_C6)
_C4 = _after_zero_byte(_C5)
_C3 = _after_zero_byte(_C4)
_C2 = _after_zero_byte(_C3)


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
    # A zero never appears in an encoded block, in a code or in the data between codes.
    if b"\x00" in data:
        raise ValueError("zero byte inside a COBS frame")
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
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
    ``write(bytes)`` sends to the host; it must copy or send the bytes before it
    returns, as ``uart.write`` does (every CHANGE reuses one buffer). ``ticks_us()`` and
    ``ticks_diff(a, b)`` are MicroPython's ``time`` functions.

    ``read_inputs()`` with ``input_masks`` reads every input at once: it
    returns a word in which input ``i`` is the bit ``input_masks[i]`` (on the
    Pico, SIO's GPIO_IN register). The loop then compares one word per pass
    instead of calling ``value()`` on each pin, and allocates nothing while
    no input moves; without it, each pin is read on its own.

    ``poll()`` does a whole pass. A faster main loop (the Pico's, in main.py)
    calls ``scan(word)`` only when the word it read differs from
    ``input_word``, and ``tick()`` only when the ticks reach ``due``.
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
        self.input_bits = 0  # the other bits of the word (UART pins, outputs) move without us
        for m in self._input_masks:
            self.input_bits |= m
        # bit -> channel, to go straight to the one input that moved; only when each input has a bit of its own
        one = {}
        unique = True
        for i, m in enumerate(self._input_masks):
            if m & (m - 1) or m in one:
                unique = False
            one[m] = i
        self._channel_of_bit = one if unique else None
        # The last word read_inputs returned, masked to input_bits; self.levels always follows it.
        # A main loop may compare a fresh word with it and call scan(word) only when they differ.
        self.input_word = 0
        self.levels = self._read_levels()
        self.output_values = [0] * len(outputs)
        # channel -> [kind, start (_now_low), duration_ms, period_ms, level, seed]: patterns running now.
        # Stepped in channel order, never the dict's: MicroPython's dicts keep no insertion order.
        self.patterns = {}  # type: dict[int, list[int]]
        self.rx_errors = 0
        self.frames_in = 0
        # The ticks_us value from which tick() has work: a main loop may compare the ticks with it
        # and call tick() only then. -wait, since ticks_diff(t, -wait) is t + wait on the ticks' circle
        # (MicroPython's ticks_add, without a third clock function), and a small int.
        self._heartbeat_wait = -min(heartbeat_us, CLOCK_READ_US)
        self.due = self._ticks_diff(self._last_ticks, self._heartbeat_wait)
        # Every CHANGE frame is built in this one buffer, so an edge allocates nothing: garbage left
        # by each edge would make MicroPython's allocator search ever longer (docs/performance.md).
        # Bytes 1 and 2, the version and the type, are never zero, so COBS codes never land there.
        self._change = bytearray(14)
        self._change[1] = PROTOCOL_VERSION
        self._change[2] = CHANGE
        # The heartbeat likewise: build_frame takes about 1 ms on the Pico, and an edge waits for it.
        self._beat = bytearray(12)
        self._beat[1] = PROTOCOL_VERSION
        self._beat[2] = HEARTBEAT

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

    def _silent(self) -> int:
        """Microseconds from the last frame sent to the clock's last reading."""
        silent = self._now_low - self._last_tx
        if self._now_high != self._last_tx_high:
            # A small int still while the last frame is less than 2**29 us back, as it
            # is whenever heartbeats are due more often than every 9 minutes.
            silent += ((self._now_high - self._last_tx_high) & HIGH_MASK) << LOW_BITS
        return silent

    def _schedule(self) -> None:
        """Set ``due``: at once while a pattern runs (it steps on every pass), else the heartbeat."""
        if self.patterns:
            self.due = self._last_ticks
            return
        wait = self.heartbeat_us - self._silent()
        if wait > CLOCK_READ_US:
            wait = CLOCK_READ_US
        elif wait < 0:
            wait = 0
        self.due = self._ticks_diff(self._last_ticks, -wait)

    # -- sending ------------------------------------------------------------
    def send(self, msg_type: int, body: bytes = b"") -> None:
        frame = build_frame(msg_type, self.seq, body)
        self.seq = (self.seq + 1) & 0xFFFF
        self._advance()  # the idle loop reads the clock only when something is due
        self._last_tx = self._now_low
        self._last_tx_high = self._now_high
        self._schedule()
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
        raw = self.input_word = self._read_inputs() & self.input_bits
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

    def scan(self, word: int = -1) -> None:
        """Report every input whose level differs from the last one reported.

        ``word``: the input word, if the caller has just read it (the Pico's main loop
        reads it on every pass and calls scan only when it moved).
        """
        # Few locals on purpose: a function whose locals and stack pass 11 words gets its
        # frame from the heap on MicroPython, and this one runs on every edge.
        if self._read_inputs is None:
            self._scan_pins()
            return
        if word < 0:
            word = self._read_inputs()
        word &= self.input_bits
        changed = word ^ self.input_word
        if not changed:
            return
        self.input_word = word
        if changed & (changed - 1) or self._channel_of_bit is None:
            self._report_each(changed, word)
            return
        channel = self._channel_of_bit[changed]  # one input moved: the usual case
        level = 1 if word & changed else 0
        self.levels[channel] = level
        self._send_change(channel, level)

    def _report_each(self, changed: int, word: int) -> None:
        levels = self.levels
        masks = self._input_masks
        for i in range(len(masks)):
            m = masks[i]
            if changed & m:
                v = 1 if word & m else 0
                levels[i] = v
                self._send_change(i, v)

    def _scan_pins(self) -> None:
        levels = self.levels
        for i, pin in enumerate(self.inputs):
            v = 1 if pin.value() else 0
            if v != levels[i]:
                levels[i] = v
                self.send(CHANGE, struct.pack(">BBI", i, v, self.now()))

    def _send_change(self, channel: int, level: int) -> None:
        # The same bytes as send(CHANGE, ...), built for speed: this is the
        # edge-to-wire path. build_frame's CRC loop and COBS encoder cost about
        # 0.9 ms per frame on a Pico; this, in place in one buffer, about 0.2 ms
        # with the call. _advance, written out: a call costs 15 us or more there.
        t = self._ticks_us()
        low = self._now_low + self._ticks_diff(t, self._last_ticks)
        self._last_ticks = t
        if low > LOW_MASK or low < 0:
            self._now_high = (self._now_high + (low >> LOW_BITS)) & HIGH_MASK
            low &= LOW_MASK
        self._now_low = low
        high = self._now_high
        out = self._change
        seq = self.seq
        # The 32-bit stamp as two 16-bit halves: past 2**30 us (18 minutes) a 32-bit int is a heap
        # object on the Pico, and every CHANGE would allocate.
        struct.pack_into(">HBBHH", out, 3, seq, channel, level, (high << (LOW_BITS - 16)) | (low >> 16), low & 0xFFFF)
        c = (_CRC_CHANGE_BASE ^ _C2[out[3]] ^ _C3[out[4]] ^ _C4[out[5]] ^ _C5[out[6]]
             ^ _C6[out[7]] ^ _C7[out[8]] ^ _C8[out[9]] ^ _C9[out[10]])
        out[11] = c >> 8
        out[12] = c & 0xFF
        # COBS of out[1:13] in place: out[0] is the first code byte, each zero of the payload and
        # CRC becomes the next code, out[13] stays the 0x00 delimiter. Bytes 1 and 2 are never zero.
        # Written out byte by byte: a loop or a find() per zero costs twice as much on the Pico.
        last = 0
        if not out[3]:
            out[last] = 3 - last
            last = 3
        if not out[4]:
            out[last] = 4 - last
            last = 4
        if not out[5]:
            out[last] = 5 - last
            last = 5
        if not out[6]:
            out[last] = 6 - last
            last = 6
        if not out[7]:
            out[last] = 7 - last
            last = 7
        if not out[8]:
            out[last] = 8 - last
            last = 8
        if not out[9]:
            out[last] = 9 - last
            last = 9
        if not out[10]:
            out[last] = 10 - last
            last = 10
        if not out[11]:
            out[last] = 11 - last
            last = 11
        if not out[12]:
            out[last] = 12 - last
            last = 12
        out[last] = 13 - last
        # The frame goes out before the bookkeeping: the edge-to-wire time is what counts here.
        self._write(out)  # type: ignore[arg-type]  # a bytearray, written again by the next CHANGE
        self.seq = (seq + 1) & 0xFFFF
        self._last_tx = low
        self._last_tx_high = high
        if not self.patterns:
            self.due = self._ticks_diff(self._last_ticks, self._heartbeat_wait)

    def tick(self) -> None:
        """Step the running patterns and send a heartbeat when one is due.

        Nothing is due on most passes: then the clock is not even advanced (``due``
        says when it must be, at least every ``CLOCK_READ_US``).
        """
        if self._ticks_diff(self._ticks_us(), self.due) < 0:
            return
        low = self._advance()
        if self.patterns:
            self.run_patterns(low)
        if self._silent() >= self.heartbeat_us:
            self._send_heartbeat()
        else:
            self._schedule()

    def _send_heartbeat(self) -> None:
        # The same bytes as send(HEARTBEAT, ...) at the clock's last reading, built like a CHANGE.
        out = self._beat
        low = self._now_low
        struct.pack_into(">HHH", out, 3, self.seq, (self._now_high << (LOW_BITS - 16)) | (low >> 16), low & 0xFFFF)
        c = (_CRC_HEARTBEAT_BASE ^ _C4[out[3]] ^ _C5[out[4]] ^ _C6[out[5]] ^ _C7[out[6]] ^ _C8[out[7]]
             ^ _C9[out[8]])
        out[9] = c >> 8
        out[10] = c & 0xFF
        last = 0
        for i in range(3, 11):  # MicroPython counts a for over range() without a range object
            if not out[i]:
                out[last] = i - last
                last = i
        out[last] = 11 - last
        self.seq = (self.seq + 1) & 0xFFFF
        self._last_tx = low
        self._last_tx_high = self._now_high
        self._schedule()
        self._write(out)  # type: ignore[arg-type]  # a bytearray, written again by the next heartbeat

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
        self._schedule()

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
