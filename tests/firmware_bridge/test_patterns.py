"""PLAY_PATTERN: one frame, and the firmware times the pattern (the Pico's main.py, and the virtual MCU)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw
from firmware_bridge.link import McuLink
from firmware_bridge.virtual_mcu import VirtualMcu
from tests.firmware_bridge.recorder import Recorder
from tests.firmware_bridge.test_firmware import Board


def test_the_frame_round_trips_and_refuses_bad_fields() -> None:
    msg = p.PlayPatternMsg(3, p.PatternKind.FLICKER, 1500, 120, 40000, 77)
    wire = p.encode(msg, 513)
    assert len(wire) <= gkfw.MAX_HOST_FRAME + 1
    frame = p.decode(wire)
    assert frame == p.Frame(513, msg)
    # the firmware's own builder makes the same bytes (the two sides cannot drift)
    body = bytes([3, 4]) + (1500).to_bytes(2, "big") + (120).to_bytes(2, "big") + (40000).to_bytes(2, "big") \
        + (77).to_bytes(2, "big")
    assert gkfw.build_frame(gkfw.PLAY_PATTERN, 513, body) == wire
    for bad, words in ((p.PlayPatternMsg(0, 9, 100, 100, 1, 0), "pattern kind"),
                       (p.PlayPatternMsg(0, 1, 0, 100, 1, 0), "duration"),
                       (p.PlayPatternMsg(0, 2, 100, 5, 1, 0), "period"),
                       (p.PlayPatternMsg(300, 1, 100, 100, 1, 0), "output channel"),
                       (p.PlayPatternMsg(0, 1, 100, 100, 70000, 0), "pattern level")):
        with pytest.raises(ValueError, match=words):
            p.encode(bad, 0)
    with pytest.raises(p.FrameError, match="PLAY_PATTERN body is 3 bytes; expected 10"):
        p.decode(gkfw.build_frame(gkfw.PLAY_PATTERN, 1, b"\x00\x01\x02"))


def test_the_pico_runs_a_blink_by_itself_and_ends_off(board: Board) -> None:
    pin = board.pin(board.main.OUTPUT_PINS[1])
    board.send(p.PlayPatternMsg(1, p.PatternKind.BLINK, 400, 200, 0xFFFF, 0))
    seen = []
    for _ in range(45):  # 10 ms a loop: the host sends nothing more
        board.loop()
        seen.append(pin.value())
        board.clock.advance(10_000)
    assert seen[:10] == [1] * 10 and seen[10:20] == [0] * 10 and seen[20:30] == [1] * 10
    assert seen[30:40] == [0] * 10 and seen[40:] == [0] * 5
    assert board.fw.patterns == {} and board.fw.output_values[1] == 0
    assert [m for m in board.messages() if not isinstance(m, p.HeartbeatMsg)] == []  # no NAK


def test_set_output_stops_a_pattern(board: Board) -> None:
    pin = board.pin(board.main.OUTPUT_PINS[0])
    board.send(p.PlayPatternMsg(0, p.PatternKind.BLINK, 10_000, 100, 0xFFFF, 0))
    board.loop()
    assert pin.value() == 1 and 0 in board.fw.patterns
    board.send(p.SetOutputMsg(0, 0))
    board.loop()
    for _ in range(20):
        board.clock.advance(25_000)
        board.loop()
        assert pin.value() == 0
    assert board.fw.patterns == {}


@pytest.mark.parametrize(("body", "code"), [
    (bytes([9, 2, 0, 100, 0, 100, 255, 255, 0, 0]), p.NakCode.CHANNEL),
    (bytes([0, 7, 0, 100, 0, 100, 255, 255, 0, 0]), p.NakCode.VALUE),
    (bytes([0, 2, 0, 0, 0, 100, 255, 255, 0, 0]), p.NakCode.VALUE),
    (bytes([0, 2, 0, 100, 0, 5, 255, 255, 0, 0]), p.NakCode.VALUE),
    (bytes([0, 2, 0, 100]), p.NakCode.LENGTH),
])
def test_a_bad_pattern_is_refused_with_a_nak(board: Board, body: bytes, code: p.NakCode) -> None:
    board.uart.host_send(gkfw.build_frame(gkfw.PLAY_PATTERN, 8, body))
    board.loop()
    (nak,) = board.messages()
    assert isinstance(nak, p.NakMsg) and nak.code == code and nak.ref_seq == 8
    assert board.fw.patterns == {}


def test_pattern_levels() -> None:
    level = gkfw.pattern_level
    assert [level(gkfw.PATTERN_ON, t, 100, 500, 0) for t in (0, 50, 99)] == [500, 500, 500]
    assert [level(gkfw.PATTERN_PULSE, t, 200, 1000, 0) for t in (0, 50, 100, 150, 200)] == [0, 500, 1000, 500, 0]
    flicker = [level(gkfw.PATTERN_FLICKER, t, 120, 1000, 5) for t in range(0, 3000, 30)]
    assert len(set(flicker)) > 4 and 0 in flicker and max(flicker) <= 1000
    assert flicker == [level(gkfw.PATTERN_FLICKER, t, 120, 1000, 5) for t in range(0, 3000, 30)]


@pytest.fixture
def mcu() -> Iterator[VirtualMcu]:
    with VirtualMcu(6, heartbeat_interval=0.5, outputs=4) as m:
        yield m


def test_a_pattern_keeps_running_while_the_link_is_busy(mcu: VirtualMcu) -> None:
    """One frame starts it; a flood of traffic on the link meanwhile does not stop or stretch it."""
    changes: list[tuple[float, int]] = []
    done = threading.Event()

    def on_output(channel: int, value: int) -> None:
        if channel == 2:
            changes.append((time.monotonic(), value))
            if len(changes) >= 6:
                done.set()

    mcu.on_output = on_output
    rec = Recorder()
    with McuLink(mcu.path, rec, heartbeat_timeout=2.0, backoff=(0.02, 0.2)) as link:
        assert rec.wait_count("online", 1)
        want = dict(enumerate(mcu.levels()))
        assert rec.wait_for(lambda: rec.levels == want)  # synced: the snapshot is in
        before = link.counters["frames_out"]
        assert link.play_pattern(2, int(p.PatternKind.BLINK), 600, 200, 0xFFFF) is True
        sent = link.counters["frames_out"] - before
        started = time.monotonic()
        for i in range(40):  # the host keeps the line busy: pings and input changes
            link.ping()
            mcu.set_channel(i % 6, bool(i % 2))
        assert done.wait(5), changes
        assert sent == 1
        values = [v for _, v in changes]
        assert values[:6] == [0xFFFF, 0, 0xFFFF, 0, 0xFFFF, 0]
        offsets = [t - started for t, _ in changes[1:6]]
        for got, want in zip(offsets, (0.1, 0.2, 0.3, 0.4, 0.5), strict=False):
            assert want - 0.02 <= got <= want + 0.15, offsets
        with pytest.raises(ValueError, match="output channel 7 does not exist"):
            link.play_pattern(7, 1, 100, 100, 1)
