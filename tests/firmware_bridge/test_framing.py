"""The stream decoder: split frames, junk, damage; it never raises and always resyncs."""

from __future__ import annotations

from binascii import crc_hqx

from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.framing import BadFrame, FrameDecoder


def change_frames(n: int, start_seq: int = 0) -> list[bytes]:
    return [p.encode(p.ChangeMsg(i % 32, bool(i & 1), i * 1000), start_seq + i) for i in range(n)]


def good(items: list[p.Frame | BadFrame]) -> list[p.Frame]:
    return [i for i in items if isinstance(i, p.Frame)]


def feed_all(dec: FrameDecoder, stream: bytes, cuts: list[int]) -> list[p.Frame | BadFrame]:
    out: list[p.Frame | BadFrame] = []
    prev = 0
    for cut in sorted(set(c for c in cuts if 0 < c < len(stream))) + [len(stream)]:
        out += dec.feed(stream[prev:cut])
        prev = cut
    return out


def test_frames_split_at_every_byte_boundary() -> None:
    frames = change_frames(3)
    stream = b"".join(frames)
    for cut in range(1, len(stream)):
        dec = FrameDecoder()
        items = dec.feed(stream[:cut]) + dec.feed(stream[cut:])
        assert [f.seq for f in good(items)] == [0, 1, 2]
        assert dec.counters["bad_frames"] == 0


def test_one_byte_at_a_time() -> None:
    dec = FrameDecoder()
    items: list[p.Frame | BadFrame] = []
    for b in b"".join(change_frames(5)):
        items += dec.feed(bytes([b]))
    assert [f.seq for f in good(items)] == [0, 1, 2, 3, 4]


def test_junk_between_frames_is_one_bad_frame_per_stretch() -> None:
    f = change_frames(3)
    dec = FrameDecoder()
    dec.feed(f[0])  # past the leading partial
    items = dec.feed(b"\x07junk\x00" + f[1] + b"\xff\xfe\xfd\x00" + f[2])
    assert [x.seq for x in good(items)] == [1, 2]
    bad = [x for x in items if isinstance(x, BadFrame)]
    assert len(bad) == 2
    assert dec.counters["bad_frames"] == 2 and dec.counters["resyncs"] == 2


def test_idle_delimiters_are_not_errors() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"\x00\x00" + change_frames(1)[0] + b"\x00\x00\x00")
    assert len(good(items)) == 1
    assert dec.counters["bad_frames"] == 0 and dec.counters["resyncs"] == 0


def test_leading_partial_after_open_is_a_resync_not_an_error() -> None:
    f = change_frames(2)
    dec = FrameDecoder()
    items = dec.feed(f[0][5:] + f[1])
    assert [x.seq for x in good(items)] == [1]
    assert dec.counters["resyncs"] == 1 and dec.counters["bad_frames"] == 0
    dec.restart()
    items = dec.feed(f[0][3:] + f[1])
    assert dec.counters["resyncs"] == 2 and dec.counters["bad_frames"] == 0


def test_crc_error_is_counted_and_the_next_frame_decodes() -> None:
    f = change_frames(3)
    payload = bytearray(p.encode_payload(p.ChangeMsg(1, True, 5), 1))
    payload[6] ^= 0x01
    damaged = cobs.encode(bytes(payload)) + b"\x00"
    dec = FrameDecoder()
    items = dec.feed(f[0] + damaged + f[2])
    assert [x.seq for x in good(items)] == [0, 2]
    assert dec.counters["crc_errors"] == 1 and dec.counters["bad_frames"] == 1


def test_oversize_stretch_is_counted_once_and_skipped() -> None:
    dec = FrameDecoder(max_encoded=40)
    f = change_frames(2)
    dec.feed(f[0])
    items = dec.feed(b"\x01" * 30)
    items += dec.feed(b"\x01" * 30)  # now over the limit without a delimiter
    items += dec.feed(b"\x01" * 30 + b"\x00" + f[1])
    assert [x.seq for x in good(items)] == [1]
    assert dec.counters["oversize"] == 1 and dec.counters["bad_frames"] == 1
    assert dec.pending == 0


def test_every_message_type_passes_through_the_stream_decoder() -> None:
    msgs: list[p.Message] = [
        p.HelloMsg(True, 16, 4, 1, "fw", "b"), p.SnapshotMsg.from_levels([True] * 16, 2), p.ChangeMsg(3, False, 3),
        p.HeartbeatMsg(4), p.PongMsg(9, 5), p.NakMsg(1, 2, 3),
    ]
    dec = FrameDecoder()
    items = dec.feed(b"\x00" + b"".join(p.encode(m, i) for i, m in enumerate(msgs)))
    assert [x.message for x in good(items)] == msgs
    assert dec.counters["frames_ok"] == len(msgs)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.lists(st.integers(0, 2000), max_size=20))
def test_decoder_never_raises_on_arbitrary_bytes(junk: bytes, cuts: list[int]) -> None:
    dec = FrameDecoder()
    items = feed_all(dec, junk, cuts)
    c = dec.counters
    assert c["bad_frames"] == sum(isinstance(i, BadFrame) for i in items)
    assert c["frames_ok"] == sum(isinstance(i, p.Frame) for i in items)
    assert c["bad_frames"] == sum(c[k] for k in ("crc_errors", "cobs_errors", "version_errors", "malformed",
                                                 "unknown_type", "oversize"))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(1, 20), st.lists(st.integers(0, 5000), max_size=10))
def test_decoder_resyncs_at_the_next_frame_after_any_junk(junk: bytes, n: int, cuts: list[int]) -> None:
    """Whatever came before, every frame after the next 0x00 is decoded, in order."""
    frames = change_frames(n, start_seq=100)
    dec = FrameDecoder()
    items = feed_all(dec, junk + b"\x00" + b"".join(frames), cuts)
    assert [f.seq for f in good(items)][-n:] == list(range(100, 100 + n))


@st.composite
def streams_with_damage(draw: st.DrawFn) -> tuple[bytes, set[int], int]:
    n = draw(st.integers(1, 40))
    damaged = draw(st.sets(st.integers(0, n - 1)))
    parts = [b"\x00"]  # as the firmware sends at boot: the first frame is known to be whole
    for i in range(n):
        payload = bytearray(p.encode_payload(p.ChangeMsg(i % 8, bool(i & 1), i), i))
        if i in damaged:
            pos = draw(st.integers(0, len(payload) - 1))
            payload[pos] ^= draw(st.integers(1, 255))
        parts.append(cobs.encode(bytes(payload)) + b"\x00")
        if draw(st.booleans()):
            parts.append(b"\x00")  # idle fill is never an error
    return b"".join(parts), damaged, n


@settings(max_examples=200, deadline=None)
@given(streams_with_damage(), st.lists(st.integers(0, 3000), max_size=15))
def test_every_damaged_frame_is_counted_and_every_good_one_kept(case: tuple[bytes, set[int], int],
                                                                cuts: list[int]) -> None:
    stream, damaged, n = case
    dec = FrameDecoder()
    items = feed_all(dec, stream, cuts)
    assert [f.seq for f in good(items)] == [i for i in range(n) if i not in damaged]
    # A damaged byte in the payload is always caught: CRC-16 finds every burst up to 16 bits.
    assert dec.counters["bad_frames"] == len(damaged)
    assert dec.counters["resyncs"] == len(damaged)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3), st.sampled_from([3, 3, 3, 4, 0x83]), st.binary(min_size=8, max_size=8))
def test_change_fast_path_agrees_with_the_full_decoder(version: int, msg_type: int, rest: bytes) -> None:
    """Any 12-byte payload with a good CRC: the stream decoder and decode_payload agree exactly."""
    body = bytes([version, msg_type]) + rest
    payload = body + crc_hqx(body, 0xFFFF).to_bytes(2, "big")
    dec = FrameDecoder()
    (item,) = dec.feed(b"\x00" + cobs.encode(payload) + b"\x00")
    try:
        expected: p.Frame | str = p.decode_payload(payload)
    except p.FrameError as exc:
        expected = exc.kind
    if isinstance(item, BadFrame):
        assert item.kind == expected
    else:
        assert isinstance(expected, p.Frame)
        assert item.seq == expected.seq and type(item.message) is type(expected.message)
        assert item.message == expected.message
