"""The firmware's fast input scan (one input word per pass) and its CHANGE frame builder, on CPython.

The Pico's main.py reads all inputs with one read of SIO's GPIO_IN and builds
a CHANGE frame without the general CRC and COBS code: the bytes on the wire and
the edges reported must be exactly those of the plain per-pin scan.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw
from firmware_bridge.framing import FrameDecoder

from .test_firmware import Board


class Word:
    """An input word and the pins that read it, so the plain scan and the word scan see the same levels."""

    def __init__(self, n: int) -> None:
        self.value = (1 << n) - 1
        self.reads = 0

    def __getitem__(self, address: int) -> int:
        self.reads += 1
        return self.value

    def pin(self, i: int) -> WordPin:
        return WordPin(self, i)


class WordPin:
    def __init__(self, word: Word, i: int) -> None:
        self.word, self.i = word, i

    def value(self) -> int:
        return self.word.value >> self.i & 1


class Clock:
    def __init__(self) -> None:
        self.us = 0

    def ticks_us(self) -> int:
        return self.us % (1 << 30)


def firmware(word: Word, n: int, clock: Clock, out: bytearray, fast: bool) -> gkfw.Firmware:
    pins = [word.pin(i) for i in range(n)]
    if not fast:
        return gkfw.Firmware(pins, [], out.extend, clock.ticks_us, gkfw.ticks_diff_30, "scan")
    return gkfw.Firmware(pins, [], out.extend, clock.ticks_us, gkfw.ticks_diff_30, "scan",
                         read_inputs=lambda: word[0], input_masks=[1 << i for i in range(n)])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 0xFFFF), st.integers(0, 3000), st.booleans()), max_size=40),
       st.integers(0, 0xFFFF))
def test_word_scan_sends_the_same_bytes_as_the_per_pin_scan(
        steps: list[tuple[int, int, bool]], start_seq: int) -> None:
    """Edges, bursts of several inputs at once, snapshots in between: byte for byte the same wire."""
    outputs = []
    for fast in (False, True):
        word, clock, out = Word(16), Clock(), bytearray()
        fw = firmware(word, 16, clock, out, fast)
        fw.seq = start_seq
        for value, advance, snapshot in steps:
            clock.us += advance
            word.value = value
            fw.poll(p.encode(p.GetSnapshotMsg(), 1) if snapshot else None)
            fw.poll()
        outputs.append(bytes(out))
    assert outputs[0] == outputs[1]


def test_a_pin_that_moves_and_comes_back_around_a_snapshot_is_not_lost() -> None:
    """The snapshot reads the word too, so the scan's memory of it never goes stale."""
    word, clock, out = Word(4), Clock(), bytearray()
    fw = firmware(word, 4, clock, out, fast=True)
    word.value = 0b1110  # input 0 closes...
    fw.feed(p.encode(p.GetSnapshotMsg(), 1))  # ...and the snapshot reports it
    word.value = 0b1111  # it opens again before the next scan
    fw.scan()
    frames = [f.message for f in FrameDecoder().feed(bytes(out)) if isinstance(f, p.Frame)]
    assert isinstance(frames[0], p.SnapshotMsg) and frames[0].levels()[0] is False
    assert frames[1:] == [p.ChangeMsg(0, True, 0)]


def test_an_idle_pass_reads_one_word_and_sends_nothing() -> None:
    word, clock, out = Word(16), Clock(), bytearray()
    fw = firmware(word, 16, clock, out, fast=True)
    reads = word.reads
    fw.scan()
    word.value |= 1 << 20  # pins that are no input of ours (the UART's, an output) move
    fw.scan()
    word.value |= 1 << 17
    fw.scan()
    assert word.reads == reads + 3 and out == b""
    word.value &= ~(1 << 3)
    fw.scan()
    assert [f.message for f in FrameDecoder().feed(bytes(out)) if isinstance(f, p.Frame)] == [p.ChangeMsg(3, False, 0)]


def test_inputs_sharing_a_bit_are_each_reported_as_by_the_per_pin_scan() -> None:
    outputs = []
    for fast in (False, True):
        word, clock, out = Word(3), Clock(), bytearray()
        pins = [word.pin(0), word.pin(1), word.pin(1)]
        extra = {"read_inputs": lambda word=word: word[0], "input_masks": [1, 2, 2]} if fast else {}
        fw = gkfw.Firmware(pins, [], out.extend, clock.ticks_us, gkfw.ticks_diff_30, "x", **extra)  # type: ignore[arg-type]
        word.value = 0b101
        fw.scan()
        outputs.append(bytes(out))
    assert outputs[0] == outputs[1] and len(outputs[0]) == 28  # two CHANGEs, channels 1 and 2


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 255), st.integers(0, 1), st.integers(0, 0xFFFFFFFF))
def test_change_frame_builder_matches_build_frame(seq: int, channel: int, level: int, t: int) -> None:
    out: list[bytes] = []
    fw = gkfw.Firmware([], [], out.append, lambda: 0, gkfw.ticks_diff_30, "x")
    fw.seq, fw._now_low, fw._now_high = seq, t & gkfw.LOW_MASK, t >> gkfw.LOW_BITS
    fw._ticks_us = lambda: fw._last_ticks  # now() adds nothing: the stamp is t
    fw._send_change(channel, level)
    assert bytes(out[0]) == gkfw.build_frame(gkfw.CHANGE, seq, struct.pack(">BBI", channel, level, t))
    assert p.decode(bytes(out[0])) == p.Frame(seq, p.ChangeMsg(channel, bool(level), t))
    assert fw.seq == (seq + 1) & 0xFFFF


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF) | st.sampled_from([0, 0xFF, 0xFF00, 1 << 29, 1 << 31]))
def test_heartbeat_frame_builder_matches_build_frame(seq: int, t: int) -> None:
    out: list[bytes] = []
    fw = gkfw.Firmware([], [], out.append, lambda: 0, gkfw.ticks_diff_30, "x")
    fw.seq, fw._now_low, fw._now_high = seq, t & gkfw.LOW_MASK, t >> gkfw.LOW_BITS
    fw._send_heartbeat()
    assert bytes(out[0]) == gkfw.build_frame(gkfw.HEARTBEAT, seq, struct.pack(">I", t))
    assert p.decode(bytes(out[0])) == p.Frame(seq, p.HeartbeatMsg(t))
    assert fw.seq == (seq + 1) & 0xFFFF


def test_input_word_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="go together"):
        gkfw.Firmware([], [], print, lambda: 0, gkfw.ticks_diff_30, "x", read_inputs=lambda: 0)
    with pytest.raises(ValueError, match="one input mask per input"):
        gkfw.Firmware([], [], print, lambda: 0, gkfw.ticks_diff_30, "x", read_inputs=lambda: 0, input_masks=[1])


def test_main_reads_the_inputs_from_gpio_in(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board(monkeypatch)
    board.fw.boot()
    board.messages()
    reads = board.machine.board.mem32_reads
    board.loop(3)
    assert board.machine.board.mem32_reads == reads + 3  # one read per pass, not one per pin
    board.input_pin(5).driven = 0
    board.loop()
    assert board.messages() == [p.ChangeMsg(5, False, 0)]
