"""The host side of the MCU wire protocol: message types and the frame codec.

A frame on the wire is ``COBS(payload) 0x00``; the payload is::

    version:u8  type:u8  seq:u16  body...  crc:u16

All multi-byte fields are big-endian. The CRC is CRC-16/CCITT-FALSE
(``binascii.crc_hqx`` with initial value 0xFFFF) over everything before it; it
is stored big-endian so that the CRC over the whole payload is zero, which
checks a frame with one call. ``docs/protocol.md`` has every byte layout.

The firmware (``firmware_bridge/firmware/gkfw.py``) implements the same format
in MicroPython; the message type numbers are taken from there so the two
cannot drift apart.
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple, TypeAlias

from cobs import cobs

from firmware_bridge.firmware import gkfw
from gravekeeper.errors import GravekeeperError

PROTOCOL_VERSION: int = gkfw.PROTOCOL_VERSION
HEADER_LEN = 4
CRC_LEN = 2
MIN_PAYLOAD = HEADER_LEN + CRC_LEN
MAX_PAYLOAD = 255
# COBS adds at most one byte per 254 plus one; 0x00 delimits.
MAX_ENCODED = MAX_PAYLOAD + MAX_PAYLOAD // 254 + 1
MAX_STRING = gkfw.MAX_STRING
MAX_CHANNELS = 255
SEQ_MOD = 0x10000
TIME_MOD = 1 << 32


class MsgType(IntEnum):
    HELLO = gkfw.HELLO
    SNAPSHOT = gkfw.SNAPSHOT
    CHANGE = gkfw.CHANGE
    HEARTBEAT = gkfw.HEARTBEAT
    PONG = gkfw.PONG
    NAK = gkfw.NAK
    GET_HELLO = gkfw.GET_HELLO
    GET_SNAPSHOT = gkfw.GET_SNAPSHOT
    SET_OUTPUT = gkfw.SET_OUTPUT
    PING = gkfw.PING
    PLAY_PATTERN = gkfw.PLAY_PATTERN


class NakCode(IntEnum):
    CRC = gkfw.NAK_CRC
    COBS = gkfw.NAK_COBS
    VERSION = gkfw.NAK_VERSION
    TYPE = gkfw.NAK_TYPE
    LENGTH = gkfw.NAK_LENGTH
    CHANNEL = gkfw.NAK_CHANNEL
    OVERSIZE = gkfw.NAK_OVERSIZE
    VALUE = gkfw.NAK_VALUE


class PatternKind(IntEnum):
    OFF = gkfw.PATTERN_OFF
    ON = gkfw.PATTERN_ON
    BLINK = gkfw.PATTERN_BLINK
    PULSE = gkfw.PATTERN_PULSE
    FLICKER = gkfw.PATTERN_FLICKER


class FrameError(GravekeeperError, ValueError):
    """A frame that cannot be accepted; ``kind`` names the counter it goes to."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Hello:
    """Who is on the other end: from the MCU's HELLO and the frame's version."""

    firmware: str
    board_id: str
    channels: int
    protocol: int
    outputs: int = 0


# -- messages (NamedTuples: decoding creates many, and they are cheap) -------


class HelloMsg(NamedTuple):
    boot: bool  # True: sent at boot (a reset); False: the reply to GET_HELLO
    channels: int
    outputs: int
    mcu_time_us: int
    firmware: str
    board_id: str


class SnapshotMsg(NamedTuple):
    mcu_time_us: int
    channels: int
    bitmap: bytes  # bit i of byte i // 8 (LSB first) is channel i

    def levels(self) -> dict[int, bool]:
        bitmap = self.bitmap
        return {ch: bool(bitmap[ch >> 3] >> (ch & 7) & 1) for ch in range(self.channels)}

    @classmethod
    def from_levels(cls, levels: list[bool] | tuple[bool, ...], mcu_time_us: int) -> SnapshotMsg:
        bitmap = bytearray((len(levels) + 7) // 8)
        for ch, level in enumerate(levels):
            if level:
                bitmap[ch >> 3] |= 1 << (ch & 7)
        return cls(mcu_time_us, len(levels), bytes(bitmap))


class ChangeMsg(NamedTuple):
    channel: int
    level: bool
    mcu_time_us: int


class HeartbeatMsg(NamedTuple):
    mcu_time_us: int


class PongMsg(NamedTuple):
    token: int
    mcu_time_us: int


class NakMsg(NamedTuple):
    code: int
    ref_seq: int
    arg: int


class GetHelloMsg(NamedTuple):
    pass


class GetSnapshotMsg(NamedTuple):
    pass


class SetOutputMsg(NamedTuple):
    channel: int
    value: int


class PingMsg(NamedTuple):
    token: int


class PlayPatternMsg(NamedTuple):
    """Run a light or buzzer pattern on an output; the firmware times it (``docs/protocol.md``)."""

    channel: int
    kind: int  # PatternKind
    duration_ms: int
    period_ms: int
    level: int  # 16-bit duty, like SET_OUTPUT's value
    seed: int  # makes a flicker uneven, the same for the same seed


Message: TypeAlias = (
    HelloMsg | SnapshotMsg | ChangeMsg | HeartbeatMsg | PongMsg | NakMsg
    | GetHelloMsg | GetSnapshotMsg | SetOutputMsg | PingMsg | PlayPatternMsg
)


class Frame(NamedTuple):
    seq: int
    message: Message


# -- encoding -----------------------------------------------------------------

_U8_U8_U32 = struct.Struct(">BBI")
_U32 = struct.Struct(">I")
_U32_U8 = struct.Struct(">IB")
_U16 = struct.Struct(">H")
_U16_U32 = struct.Struct(">HI")
_U8_U16_U8 = struct.Struct(">BHB")
_U8_U16 = struct.Struct(">BH")
_HELLO_FIXED = struct.Struct(">BBBI")
_PATTERN = struct.Struct(">BBHHHH")
_HEADER = struct.Struct(">BBH")


def _u(value: int, bits: int, what: str) -> int:
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{what} must be 0..{(1 << bits) - 1}, got {value}")
    return value


def _string(text: str, what: str) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > MAX_STRING:
        raise ValueError(f"{what} is {len(raw)} bytes long; at most {MAX_STRING}")
    return bytes([len(raw)]) + raw


def encode_body(msg: Message) -> tuple[MsgType, bytes]:
    """The type and body bytes of a message; ``ValueError`` names a field out of range."""
    if isinstance(msg, ChangeMsg):
        return MsgType.CHANGE, _U8_U8_U32.pack(
            _u(msg.channel, 8, "channel"), int(bool(msg.level)), msg.mcu_time_us % TIME_MOD
        )
    if isinstance(msg, HeartbeatMsg):
        return MsgType.HEARTBEAT, _U32.pack(msg.mcu_time_us % TIME_MOD)
    if isinstance(msg, SnapshotMsg):
        _u(msg.channels, 8, "channels")
        if len(msg.bitmap) != (msg.channels + 7) // 8:
            raise ValueError(f"snapshot bitmap has {len(msg.bitmap)} bytes for {msg.channels} channels")
        return MsgType.SNAPSHOT, _U32_U8.pack(msg.mcu_time_us % TIME_MOD, msg.channels) + msg.bitmap
    if isinstance(msg, HelloMsg):
        fixed = _HELLO_FIXED.pack(
            int(not msg.boot), _u(msg.channels, 8, "channels"), _u(msg.outputs, 8, "outputs"),
            msg.mcu_time_us % TIME_MOD,
        )
        return MsgType.HELLO, fixed + _string(msg.firmware, "firmware") + _string(msg.board_id, "board_id")
    if isinstance(msg, PongMsg):
        return MsgType.PONG, _U16_U32.pack(_u(msg.token, 16, "token"), msg.mcu_time_us % TIME_MOD)
    if isinstance(msg, NakMsg):
        return MsgType.NAK, _U8_U16_U8.pack(
            _u(msg.code, 8, "code"), _u(msg.ref_seq, 16, "ref_seq"), _u(msg.arg, 8, "arg")
        )
    if isinstance(msg, GetHelloMsg):
        return MsgType.GET_HELLO, b""
    if isinstance(msg, GetSnapshotMsg):
        return MsgType.GET_SNAPSHOT, b""
    if isinstance(msg, SetOutputMsg):
        return MsgType.SET_OUTPUT, _U8_U16.pack(_u(msg.channel, 8, "output channel"), _u(msg.value, 16, "output value"))
    if isinstance(msg, PingMsg):
        return MsgType.PING, _U16.pack(_u(msg.token, 16, "token"))
    if isinstance(msg, PlayPatternMsg):
        if msg.kind not in tuple(PatternKind):
            raise ValueError(f"pattern kind must be one of {[int(k) for k in PatternKind]}, got {msg.kind}")
        if not 1 <= msg.duration_ms <= 0xFFFF or not 20 <= msg.period_ms <= 0xFFFF:
            raise ValueError(f"pattern duration must be 1..65535 ms and period 20..65535 ms, "
                             f"got {msg.duration_ms} and {msg.period_ms}")
        return MsgType.PLAY_PATTERN, _PATTERN.pack(
            _u(msg.channel, 8, "output channel"), msg.kind, msg.duration_ms, msg.period_ms,
            _u(msg.level, 16, "pattern level"), _u(msg.seed, 16, "pattern seed"))
    raise TypeError(f"not a protocol message: {msg!r}")


def encode_payload(msg: Message, seq: int, version: int = PROTOCOL_VERSION) -> bytes:
    msg_type, body = encode_body(msg)
    payload = _HEADER.pack(version, msg_type, seq % SEQ_MOD) + body
    return payload + _U16.pack(crc_hqx(payload, 0xFFFF))


def encode(msg: Message, seq: int) -> bytes:
    """The complete wire frame of ``msg``: COBS-encoded payload and the 0x00 delimiter."""
    encoded: bytes = cobs.encode(encode_payload(msg, seq))
    return encoded + b"\x00"


# -- decoding -----------------------------------------------------------------


def _decode_hello(body: bytes) -> HelloMsg:
    if len(body) < 9:
        raise FrameError("malformed", f"HELLO body is {len(body)} bytes; at least 9")
    reason, channels, outputs, t = _HELLO_FIXED.unpack_from(body)
    if reason > 1:
        raise FrameError("malformed", f"HELLO reason {reason} is neither 0 (boot) nor 1 (reply)")
    fw_len = body[7]
    end_fw = 8 + fw_len
    if end_fw >= len(body):
        raise FrameError("malformed", f"HELLO firmware string of {fw_len} bytes overruns the body")
    bid_len = body[end_fw]
    if end_fw + 1 + bid_len != len(body):
        raise FrameError("malformed", f"HELLO board_id string of {bid_len} bytes does not end the body")
    try:
        firmware = body[8:end_fw].decode("utf-8")
        board_id = body[end_fw + 1:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError("malformed", f"HELLO string is not UTF-8: {exc}") from None
    return HelloMsg(reason == 0, channels, outputs, t, firmware, board_id)


def _decode_snapshot(body: bytes) -> SnapshotMsg:
    if len(body) < 5:
        raise FrameError("malformed", f"SNAPSHOT body is {len(body)} bytes; at least 5")
    t, channels = _U32_U8.unpack_from(body)
    if len(body) != 5 + (channels + 7) // 8:
        raise FrameError("malformed", f"SNAPSHOT of {channels} channels has a {len(body) - 5}-byte bitmap")
    return SnapshotMsg(t, channels, body[5:])


def _fixed(msg_type: MsgType, body: bytes, size: int) -> None:
    if len(body) != size:
        raise FrameError("malformed", f"{msg_type.name} body is {len(body)} bytes; expected {size}")


def decode_payload(payload: bytes) -> Frame:
    """Check and parse one decoded payload; ``FrameError`` says what is wrong with it."""
    n = len(payload)
    if n < MIN_PAYLOAD:
        raise FrameError("malformed", f"frame of {n} bytes is shorter than the {MIN_PAYLOAD}-byte minimum")
    if crc_hqx(payload, 0xFFFF):
        raise FrameError("crc_errors", "CRC mismatch")
    version = payload[0]
    if version != PROTOCOL_VERSION:
        raise FrameError("version_errors", f"protocol version {version}; this host speaks {PROTOCOL_VERSION}")
    msg_type = payload[1]
    seq = payload[2] << 8 | payload[3]
    # CHANGE dominates real traffic, so it is parsed first and inline.
    if msg_type == 3:
        if n != 12:
            raise FrameError("malformed", f"CHANGE body is {n - 6} bytes; expected 6")
        level = payload[5]
        if level > 1:
            raise FrameError("malformed", f"CHANGE level {level} is neither 0 nor 1")
        return Frame(seq, ChangeMsg(payload[4], level == 1, _U32.unpack_from(payload, 6)[0]))
    body = payload[4:-2]
    if msg_type == 4:
        _fixed(MsgType.HEARTBEAT, body, 4)
        return Frame(seq, HeartbeatMsg(_U32.unpack(body)[0]))
    if msg_type == 2:
        return Frame(seq, _decode_snapshot(body))
    if msg_type == 1:
        return Frame(seq, _decode_hello(body))
    if msg_type == 5:
        _fixed(MsgType.PONG, body, 6)
        return Frame(seq, PongMsg(*_U16_U32.unpack(body)))
    if msg_type == 6:
        _fixed(MsgType.NAK, body, 4)
        return Frame(seq, NakMsg(*_U8_U16_U8.unpack(body)))
    if msg_type == 0x80:
        _fixed(MsgType.GET_HELLO, body, 0)
        return Frame(seq, GetHelloMsg())
    if msg_type == 0x81:
        _fixed(MsgType.GET_SNAPSHOT, body, 0)
        return Frame(seq, GetSnapshotMsg())
    if msg_type == 0x82:
        _fixed(MsgType.SET_OUTPUT, body, 3)
        return Frame(seq, SetOutputMsg(*_U8_U16.unpack(body)))
    if msg_type == 0x83:
        _fixed(MsgType.PING, body, 2)
        return Frame(seq, PingMsg(_U16.unpack(body)[0]))
    if msg_type == 0x84:
        _fixed(MsgType.PLAY_PATTERN, body, _PATTERN.size)
        return Frame(seq, PlayPatternMsg(*_PATTERN.unpack(body)))
    raise FrameError("unknown_type", f"unknown message type 0x{msg_type:02x}")


def decode(encoded: bytes) -> Frame:
    """Decode one frame given without its 0x00 delimiter (a trailing one is tolerated)."""
    if encoded.endswith(b"\x00"):
        encoded = encoded[:-1]
    if len(encoded) > MAX_ENCODED:
        raise FrameError("oversize", f"frame of {len(encoded)} bytes exceeds {MAX_ENCODED}")
    try:
        payload = cobs.decode(encoded)
    except cobs.DecodeError as exc:
        raise FrameError("cobs_errors", f"bad COBS encoding: {exc}") from None
    return decode_payload(payload)
