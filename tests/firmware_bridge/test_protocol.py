"""The codec: every message round-trips, the firmware's pure-Python codec is byte-identical."""

from __future__ import annotations

import struct
from binascii import crc_hqx

import pytest
from cobs import cobs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw

u32 = st.integers(0, 2**32 - 1)
u16 = st.integers(0, 0xFFFF)
u8 = st.integers(0, 255)
text = st.text(max_size=10)

messages = st.one_of(
    st.builds(p.ChangeMsg, u8, st.booleans(), u32),
    st.builds(p.HeartbeatMsg, u32),
    st.builds(lambda lv, t: p.SnapshotMsg.from_levels(lv, t), st.lists(st.booleans(), min_size=0, max_size=255), u32),
    st.builds(p.HelloMsg, st.booleans(), u8, u8, u32, text, text),
    st.builds(p.PongMsg, u16, u32),
    st.builds(p.NakMsg, u8, u16, u8),
    st.just(p.GetHelloMsg()),
    st.just(p.GetSnapshotMsg()),
    st.builds(p.SetOutputMsg, u8, u16),
    st.builds(p.PingMsg, u16),
)


@settings(deadline=None)
@given(messages, u16)
def test_every_message_round_trips(msg: p.Message, seq: int) -> None:
    wire = p.encode(msg, seq)
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    frame = p.decode(wire)
    assert frame.seq == seq
    assert type(frame.message) is type(msg)
    assert frame.message == msg


@settings(deadline=None)
@given(st.binary(max_size=600))
def test_firmware_cobs_matches_the_cobs_package(data: bytes) -> None:
    assert gkfw.cobs_encode(data) == cobs.encode(data)
    assert gkfw.cobs_decode(cobs.encode(data)) == data


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_firmware_crc_matches_crc_hqx(data: bytes) -> None:
    assert gkfw.crc16(data) == crc_hqx(data, 0xFFFF)


@settings(deadline=None)
@given(st.binary(min_size=1, max_size=60))
# A zero among the data bytes, not at a code: the firmware once decoded it where the package refuses it.
@example(b"\n" + b"\x00" * 9)
def test_firmware_cobs_decode_rejects_or_matches(data: bytes) -> None:
    """On arbitrary bytes the firmware decoder agrees with the package: same result or both refuse."""
    try:
        expected: bytes | None = cobs.decode(data)
    except cobs.DecodeError:
        expected = None
    try:
        got: bytes | None = gkfw.cobs_decode(data)
    except ValueError:
        got = None
    assert got == expected


def test_firmware_change_frame_is_byte_identical_to_host_encoding() -> None:
    body = struct.pack(">BBI", 7, 1, 0xDEADBEEF)
    assert gkfw.build_frame(gkfw.CHANGE, 513, body) == p.encode(p.ChangeMsg(7, True, 0xDEADBEEF), 513)


def test_change_layout_matches_the_documented_bytes() -> None:
    payload = p.encode_payload(p.ChangeMsg(5, True, 0x01020304), 0x0A0B)
    # version, type, seq (big-endian), channel, level, time (big-endian), crc
    assert payload[:10] == bytes([1, 0x03, 0x0A, 0x0B, 5, 1, 1, 2, 3, 4])
    assert payload[10:] == crc_hqx(payload[:10], 0xFFFF).to_bytes(2, "big")


def test_snapshot_levels_bitmap_is_lsb_first() -> None:
    snap = p.SnapshotMsg.from_levels([True, False, False, False, False, False, False, False, False, True], 9)
    assert snap.bitmap == bytes([0b00000001, 0b00000010])
    assert snap.levels() == {0: True, 1: False, 2: False, 3: False, 4: False, 5: False, 6: False, 7: False,
                             8: False, 9: True}


@pytest.mark.parametrize(
    ("msg", "needle"),
    [
        (p.ChangeMsg(256, True, 0), "channel must be 0..255, got 256"),
        (p.SetOutputMsg(1, 70000), "output value must be 0..65535, got 70000"),
        (p.PingMsg(-1), "token must be 0..65535, got -1"),
        (p.HelloMsg(False, 1, 0, 0, "x" * 40, "b"), "firmware is 40 bytes long"),
        (p.SnapshotMsg(0, 9, b"\x00"), "bitmap has 1 bytes for 9 channels"),
    ],
)
def test_encoding_out_of_range_names_the_field(msg: p.Message, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        p.encode(msg, 0)


def _frame_of(payload_wo_crc: bytes) -> bytes:
    encoded: bytes = cobs.encode(payload_wo_crc + crc_hqx(payload_wo_crc, 0xFFFF).to_bytes(2, "big"))
    return encoded


@pytest.mark.parametrize(
    ("encoded", "kind", "needle"),
    [
        (b"\x03\x01", "cobs_errors", "bad COBS"),
        (b"\x05\x01", "cobs_errors", "bad COBS"),
        (_frame_of(b"\x01\x03"), "malformed", "shorter than"),
        (_frame_of(bytes([2, 3, 0, 0, 1, 1, 0, 0, 0, 0])), "version_errors", "protocol version 2"),
        (_frame_of(bytes([1, 0x7F, 0, 0])), "unknown_type", "unknown message type 0x7f"),
        (_frame_of(bytes([1, 3, 0, 0, 1, 2, 0, 0, 0, 0])), "malformed", "CHANGE level 2"),
        (_frame_of(bytes([1, 3, 0, 0, 1, 1, 0, 0, 0])), "malformed", "CHANGE body is 5 bytes"),
        (_frame_of(bytes([1, 4, 0, 0, 1])), "malformed", "HEARTBEAT body is 1 bytes; expected 4"),
        (_frame_of(bytes([1, 2, 0, 0, 0, 0, 0, 0, 9, 0])), "malformed", "SNAPSHOT of 9 channels has a 1-byte bitmap"),
        (_frame_of(bytes([1, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0])), "malformed", "HELLO reason 2"),
        (_frame_of(bytes([1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 9, 0])), "malformed", "firmware string of 9 bytes"),
        (_frame_of(bytes([1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0xFF, 0])), "malformed", "not UTF-8"),
        (b"\x01" * 400, "oversize", "exceeds"),
    ],
)
def test_bad_frames_raise_frame_error_naming_the_problem(encoded: bytes, kind: str, needle: str) -> None:
    with pytest.raises(p.FrameError, match=needle) as info:
        p.decode(encoded)
    assert info.value.kind == kind
    assert isinstance(info.value, ValueError)


def test_a_flipped_bit_is_a_crc_error() -> None:
    payload = bytearray(p.encode_payload(p.HeartbeatMsg(1234), 9))
    payload[5] ^= 0x10
    with pytest.raises(p.FrameError, match="CRC mismatch") as info:
        p.decode(cobs.encode(bytes(payload)))
    assert info.value.kind == "crc_errors"


def test_the_documented_example_bytes_are_what_the_codec_sends() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    wire = p.encode(p.ChangeMsg(3, True, 123456), 7).hex(" ")
    payload = p.encode_payload(p.ChangeMsg(3, True, 123456), 7).hex(" ")
    assert f"wire     {wire}" in doc
    assert f"payload  {payload}" in doc
    assert crc_hqx(b"123456789", 0xFFFF) == 0x29B1 and "0x29B1" in doc
