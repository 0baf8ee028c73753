"""What MicroPython does differently from CPython, pinned down on CPython.

(tests/firmware_bridge/micropython runs the same on MicroPython.)

* dicts: MicroPython's do not keep insertion order, so nothing the firmware
  does may follow a dict's order;
* ints: on the Pico's 32-bit port an int from 2**30 up is a heap object, so
  the firmware's time, which every poll updates, must stay below that;
* COBS: the firmware must frame exactly like the host's ``cobs`` package,
  including a payload ending in a full 254-byte block.
"""

from __future__ import annotations

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw
from firmware_bridge.framing import BadFrame, FrameDecoder
from tests.firmware_bridge import fake_machine
from tests.firmware_bridge.test_firmware import Board

SMALL_INT = 1 << 30  # MicroPython's small ints on a 32-bit port: -2**30 .. 2**30 - 1


class _LoggedPin:
    def __init__(self, log: list[tuple[int, int]], channel: int) -> None:
        self._log = log
        self._channel = channel

    def value(self, v: int) -> None:
        self._log.append((self._channel, v))


def test_patterns_are_driven_in_channel_order_whatever_order_they_started_in(board: Board) -> None:
    log: list[tuple[int, int]] = []
    board.fw.outputs = [_LoggedPin(log, c) for c in range(4)]
    for channel in (3, 1, 2, 0):
        board.send(p.PlayPatternMsg(channel, p.PatternKind.BLINK, 300, 200, 0xFFFF, 0))
    board.loop()
    assert log == [(3, 1), (1, 1), (2, 1), (0, 1)]  # each starts when its frame is read
    for value in (0, 1, 0):
        log.clear()
        board.clock.advance(100_000)
        board.loop()
        assert log == [(c, value) for c in range(4)]
    assert board.fw.patterns == {}


def _ints(value: object) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list | tuple):
        return [i for v in value for i in _ints(v)]
    if isinstance(value, dict):
        return [i for k, v in value.items() for i in _ints(k) + _ints(v)]
    return []


def _big_ints(fw: gkfw.Firmware) -> dict[str, list[int]]:
    found = {name: [i for i in _ints(v) if not -SMALL_INT <= i < SMALL_INT] for name, v in vars(fw).items()}
    return {name: big for name, big in found.items() if big}


@pytest.mark.parametrize("uptime", [(1 << 30) + 7, (1 << 31) + 7, (1 << 32) + 7, 5 * (1 << 30) + 7])
def test_the_firmware_keeps_its_time_in_small_ints_and_still_stamps_32_bits(
        monkeypatch: pytest.MonkeyPatch, uptime: int) -> None:
    board = Board(monkeypatch, start_us=(1 << 30) - 5)  # ticks wrap at once, too
    board.fw.boot()
    board.send(p.PlayPatternMsg(2, p.PatternKind.BLINK, 60_000, 200, 0xFFFF, 0))
    elapsed = 0
    while elapsed < uptime:
        step = min(1 << 28, uptime - elapsed)
        board.clock.advance(step)
        elapsed += step
        board.loop()
        assert _big_ints(board.fw) == {}, f"after {elapsed} us"
    board.input_pin(4).driven = 0
    board.send(p.PingMsg(9))
    board.loop()
    assert _big_ints(board.fw) == {}
    got = [m for m in board.messages() if isinstance(m, p.ChangeMsg | p.PongMsg)]
    assert got == [p.PongMsg(9, uptime % (1 << 32)), p.ChangeMsg(4, False, uptime % (1 << 32))]
    assert board.fw.now() == uptime % (1 << 32)


@pytest.mark.parametrize("uptime", [(1 << 29) - 150_000, (1 << 30) - 150_000, (1 << 32) - 150_000])
def test_a_pattern_keeps_time_across_the_firmware_s_internal_wraps(monkeypatch: pytest.MonkeyPatch,
                                                                  uptime: int) -> None:
    board = Board(monkeypatch)
    board.fw.boot()
    while board.clock.us < uptime:
        board.clock.advance(min(1 << 28, uptime - board.clock.us))
        board.loop()
    pin = board.pin(board.main.OUTPUT_PINS[1])
    board.send(p.PlayPatternMsg(1, p.PatternKind.BLINK, 400, 200, 0xFFFF, 0))
    seen = []
    for _ in range(45):
        board.loop()
        seen.append(pin.value())
        board.clock.advance(10_000)
    assert seen == ([1] * 10 + [0] * 10) * 2 + [0] * 5
    assert board.fw.patterns == {}
    board.clock.advance(50_000)
    board.loop()
    heartbeats = [m.mcu_time_us for m in board.messages() if isinstance(m, p.HeartbeatMsg)]
    assert heartbeats[-2:] == [uptime % (1 << 32), (uptime + 500_000) % (1 << 32)]  # 0.5 s after the last frame


@pytest.mark.parametrize("interval_s", [0.5, 600, 3000])
def test_heartbeats_keep_their_interval_however_long(interval_s: float) -> None:
    """Also beyond 2**29 us (9 minutes), the low part of the firmware's clock."""
    clock = fake_machine.Clock((1 << 30) - 3)
    sent = bytearray()
    interval = int(interval_s * 1_000_000)
    fw = gkfw.Firmware([], [], sent.extend, clock.ticks_us, clock.ticks_diff, "hb", heartbeat_us=interval)
    fw.boot()
    step = interval // 7 + 1  # below ticks_diff's reach of 2**29 us
    for _ in range(7 * 3 + 2):
        clock.advance(step)
        fw.poll()
    beats = [f.message.mcu_time_us for f in FrameDecoder().feed(bytes(sent))
             if isinstance(f, p.Frame) and isinstance(f.message, p.HeartbeatMsg)]
    assert beats == [k * 7 * step % (1 << 32) for k in (1, 2, 3)]  # mcu_time wraps at 2**32


@pytest.mark.parametrize("data", [
    bytes(range(1, 255)), b"\x07" * 508, b"\x00" + b"\x7e" * 254, b"\x01" * 254 + b"\x00" + b"\xfe" * 254,
])
def test_a_payload_ending_in_a_full_block_is_framed_like_the_cobs_package(data: bytes) -> None:
    assert gkfw.cobs_encode(data) == cobs.encode(data)
    assert not gkfw.cobs_encode(data).endswith(b"\x01")  # no empty block after a full one
    assert gkfw.cobs_decode(gkfw.cobs_encode(data)) == data


def test_a_frame_of_254_nonzero_payload_bytes_is_the_host_s_bytes() -> None:
    body = bytes([0x11]) * 248
    for seq in range(0x101, 0x10000):
        wire = gkfw.build_frame(gkfw.SNAPSHOT, seq, body)
        payload = cobs.decode(wire[:-1])
        if 0 not in payload:
            break
    assert len(payload) == 254 and 0 not in payload
    assert wire == cobs.encode(payload) + b"\x00" and len(wire) == 256
    (bad,) = FrameDecoder().feed(b"\x00" + wire)  # the host reads it (and refuses its odd SNAPSHOT body)
    assert isinstance(bad, BadFrame) and bad.kind == "malformed"


_runs = st.sampled_from([0, 1, 253, 254, 255, 508]).flatmap(
    lambda n: st.binary(min_size=n, max_size=n).map(lambda b: b.replace(b"\x00", b"\x5a")))


@settings(deadline=None, max_examples=300)
@given(st.lists(st.one_of(st.just(b"\x00"), _runs), max_size=6).map(b"".join))
def test_firmware_cobs_matches_the_cobs_package_at_block_edges(data: bytes) -> None:
    assert gkfw.cobs_encode(data) == cobs.encode(data)
    assert gkfw.cobs_decode(cobs.encode(data)) == data
