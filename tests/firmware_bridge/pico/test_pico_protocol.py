"""The unchanged firmware on an emulated Pico speaks docs/protocol.md, checked with the host's own codec.

Times are simulated (the board is stepped), so the bounds below are the
firmware's, not the machine's: a busy CI runner changes nothing.
"""

from __future__ import annotations

import pytest
from cobs import cobs

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw
from firmware_bridge.pico_emulator.board import INPUT_PINS, OUTPUT_PINS, WireFrame, is_msg

from .conftest import BootedPico

# One worker runs the module, so its board boots once (scripts/test.sh distributes by group).
pytestmark = pytest.mark.xdist_group("test_pico_protocol")

LOOP_US = 2000  # a main-loop pass plus a frame, with room: an edge or a deadline is served within this
GC_MS = 7  # MicroPython's garbage collection pauses the loop for about 5 ms


def msg_of(frame: WireFrame) -> p.Message:
    assert frame.frame is not None, frame.error
    return frame.frame.message


def test_boot_starts_with_a_lone_delimiter_then_hello_seq_0(booted_pico: BootedPico) -> None:
    board = booted_pico
    first = board.frames[0]
    assert first is board.boot_hello
    assert board.tx[0][1] == 0 and board.tx[0][0] < first.t_first_ns  # the lone 0x00 before the HELLO
    assert first.frame is not None and first.frame.seq == 0
    assert msg_of(first) == p.HelloMsg(True, 16, 4, msg_of(first).mcu_time_us,  # type: ignore[union-attr]
                                       "gkfw-1.0.0", "pico-0000000000000000")
    assert msg_of(first).mcu_time_us < 5000  # type: ignore[union-attr]  # sent straight after the firmware starts
    assert first.t_first_ns < 1_000_000_000  # boot HELLO within a second of power-up (about 0.49 s)


def test_get_hello_is_answered_with_a_reply_hello(pico: BootedPico) -> None:
    pico.send(p.GetHelloMsg(), 1)
    reply = pico.next_frame(lambda f: is_msg(f, p.HelloMsg), within_us=20_000)
    assert msg_of(reply).boot is False  # type: ignore[union-attr]


def test_snapshot_shows_open_switches_high_and_closed_low(pico: BootedPico) -> None:
    pico.send(p.GetSnapshotMsg(), 2)
    snap = msg_of(pico.next_frame(lambda f: is_msg(f, p.SnapshotMsg), within_us=20_000))
    assert snap.levels() == dict.fromkeys(range(16), True)  # type: ignore[union-attr]  # pull-ups, nothing closed
    for channel in (0, 7, 15):
        pico.close_switch(channel)
    pico.step(LOOP_US)
    pico.send(p.GetSnapshotMsg(), 3)
    snap = msg_of(pico.next_frame(lambda f: is_msg(f, p.SnapshotMsg), within_us=20_000))
    assert [ch for ch, level in snap.levels().items() if not level] == [0, 7, 15]  # type: ignore[union-attr]
    assert snap.channels == 16 and len(snap.bitmap) == 2  # type: ignore[union-attr]


def test_change_on_every_input_both_edges_with_seq_and_time(pico: BootedPico) -> None:
    seqs: list[int] = []
    after_edge: list[int] = []  # mcu_time minus the edge's simulated time, us
    after_first_byte: list[int] = []  # mcu_time minus the frame's first byte time, us
    for channel in range(len(INPUT_PINS)):
        for closed in (True, False):
            pico.step(3000 + 137 * channel)  # edges at varied points of the loop
            edge_ns = pico.now_ns
            (pico.close_switch if closed else pico.open_switch)(channel)
            frame = pico.next_frame(lambda f: not is_msg(f, p.HeartbeatMsg), within_us=20_000, slice_us=200)
            change = msg_of(frame)
            assert change == p.ChangeMsg(channel, not closed, change.mcu_time_us)  # type: ignore[union-attr]
            assert frame.frame is not None
            seqs.append(frame.frame.seq)
            after_edge.append(change.mcu_time_us - edge_ns // 1000)
            after_first_byte.append(change.mcu_time_us - frame.t_first_ns // 1000)
    assert seqs == [(seqs[0] + i) % 65536 for i in range(len(seqs))]
    # mcu_time is simulated time minus one fixed base: there is one base for
    # which every stamp lies between its edge and its frame's first byte...
    assert max(after_first_byte) <= min(after_edge) + 1, (after_edge, after_first_byte)
    # ...and each stamp follows its edge within one pass of the loop.
    assert max(after_edge) - min(after_edge) < LOOP_US, after_edge


def test_ping_is_answered_with_its_token(pico: BootedPico) -> None:
    for seq, token in enumerate((0, 1, 0xBEEF, 0xFFFF), start=10):
        pico.send(p.PingMsg(token), seq)
        pong = msg_of(pico.next_frame(lambda f: is_msg(f, p.PongMsg), within_us=20_000))
        assert pong.token == token  # type: ignore[union-attr]
        assert abs(pong.mcu_time_us - pico.mcu_time_at(pico.now_ns)) < 5000  # type: ignore[union-attr]


@pytest.mark.slow
def test_heartbeat_every_half_second_of_silence_and_no_watchdog_reset(pico: BootedPico) -> None:
    boots = len(pico.boots)
    beats = [pico.next_frame(within_us=700_000, slice_us=20_000) for _ in range(5)]
    assert all(is_msg(b, p.HeartbeatMsg) for b in beats)
    times = [msg_of(b).mcu_time_us for b in beats]  # type: ignore[union-attr]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert all(500_000 <= gap < 500_000 + LOOP_US for gap in gaps), gaps
    seqs = [b.frame.seq for b in beats if b.frame is not None]
    assert seqs == list(range(seqs[0], seqs[0] + 5))
    # Over 2 s of a quiet line, longer than the watchdog's 2 s: the loop kept feeding it.
    assert beats[-1].t_first_ns - beats[0].t_first_ns >= 2_000_000_000
    assert len(pico.boots) == boots


def test_set_output_drives_every_output_pin(pico: BootedPico) -> None:
    def level(gp: int) -> int:
        events = pico.output_events(gp)
        return events[-1].level if events else -1

    for channel, gp in enumerate(OUTPUT_PINS):
        for seq, value in ((20, 0xFFFF), (21, 0), (22, 1), (23, 0)):
            pico.send(p.SetOutputMsg(channel, value), seq)
            want = 1 if value else 0
            assert pico.run_until(lambda gp=gp, want=want: level(gp) == want, 20_000), (channel, value)
        assert all(level(other) == 0 for other in OUTPUT_PINS)


def test_nak_bad_crc_bad_channel_too_long(pico: BootedPico) -> None:
    damaged = bytearray(p.encode_payload(p.PingMsg(7), 30))
    damaged[-1] ^= 0x55
    pico.uart_write(cobs.encode(bytes(damaged)) + b"\x00")
    nak = msg_of(pico.next_frame(lambda f: is_msg(f, p.NakMsg), within_us=20_000))
    assert nak == p.NakMsg(p.NakCode.CRC, 0xFFFF, 0)

    pico.send(p.SetOutputMsg(len(OUTPUT_PINS), 1), 31)
    nak = msg_of(pico.next_frame(lambda f: is_msg(f, p.NakMsg), within_us=20_000))
    assert nak == p.NakMsg(p.NakCode.CHANNEL, 31, len(OUTPUT_PINS))

    pico.uart_write(bytes(range(1, 41)) + b"\x00")
    nak = msg_of(pico.next_frame(lambda f: is_msg(f, p.NakMsg), within_us=40_000))
    assert nak == p.NakMsg(p.NakCode.OVERSIZE, 0xFFFF, 0)

    pico.send(p.PingMsg(0x1234), 32)  # and the line recovers at once
    assert msg_of(pico.next_frame(lambda f: is_msg(f, p.PongMsg), within_us=20_000)).token == 0x1234  # type: ignore[union-attr]


def expected_on_off(kind: int, duration: int, period: int, level: int, seed: int) -> list[tuple[int, int]]:
    """(ms into the pattern, level) at each change a digital pin shows, from the firmware's own formula."""
    changes: list[tuple[int, int]] = []
    current = 0
    for ms in range(duration + 1):
        on = 1 if ms < duration and gkfw.pattern_level(kind, ms, period, level, seed) else 0
        if on != current:
            changes.append((ms, on))
            current = on
    return changes


@pytest.mark.parametrize(("kind", "duration", "period"), [
    (p.PatternKind.ON, 150, 100),
    (p.PatternKind.BLINK, 500, 100),
    (p.PatternKind.PULSE, 350, 100),
    (p.PatternKind.FLICKER, 600, 80),
], ids=["on", "blink", "pulse", "flicker"])
def test_pattern_timing_on_the_output_pin(pico: BootedPico, kind: int, duration: int, period: int) -> None:
    gp = OUTPUT_PINS[1]
    seed = 4242
    since = pico.now_ns
    pico.send(p.PlayPatternMsg(1, kind, duration, period, 0xFFFF, seed), 40)
    pico.step((duration + 20) * 1000)
    events = [(e.t_ns, e.level) for e in pico.output_events(gp, since)]
    expected = expected_on_off(kind, duration, period, 0xFFFF, seed)
    assert [level for _, level in events] == [level for _, level in expected]
    # The pattern starts when its frame is read, so the earliest change fixes the start;
    # every change then lands on its millisecond, late by at most a loop pass, or
    # by a garbage collection (about 5 ms) now and then.
    start_ns = min(t - ms * 1_000_000 for (t, _), (ms, _) in zip(events, expected, strict=True))
    late = sorted((t - start_ns) / 1e6 - ms for (t, _), (ms, _) in zip(events, expected, strict=True))
    assert late[-1] < GC_MS + LOOP_US / 1000, late
    assert late[len(late) // 2] < LOOP_US / 1000, late


def test_pattern_off_and_set_output_stop_a_running_pattern(pico: BootedPico) -> None:
    gp = OUTPUT_PINS[2]
    pico.send(p.PlayPatternMsg(2, p.PatternKind.BLINK, 10_000, 200, 0xFFFF, 0), 50)
    pico.step(30_000)
    assert pico.output_events(gp)[-1].level == 1
    since = pico.now_ns
    pico.send(p.PlayPatternMsg(2, p.PatternKind.OFF, 1, 20, 0, 0), 51)
    pico.step(400_000)
    assert [e.level for e in pico.output_events(gp, since)] == [0]  # off at once, and it stays off
    pico.send(p.PlayPatternMsg(2, p.PatternKind.BLINK, 10_000, 200, 0xFFFF, 0), 52)
    pico.step(30_000)
    since = pico.now_ns
    pico.send(p.SetOutputMsg(2, 0), 53)
    pico.step(400_000)
    assert [e.level for e in pico.output_events(gp, since)] == [0]


def test_a_hung_loop_is_rebooted_by_the_watchdog(pico: BootedPico) -> None:
    hung_at = pico.now_ns
    pico.hang()
    pico.step(1_900_000)
    assert pico.boots[-1][1] != "watchdog"  # not before its 2 s
    pico.step(300_000)
    assert pico.boots[-1][1] == "watchdog"
    assert 1.99 <= (pico.boots[-1][0] - hung_at) / 1e9 < 2.01  # fed up to a loop pass before the hang
    hello = pico.boot_and_wait()
    assert msg_of(hello).boot is True and hello.frame is not None and hello.frame.seq == 0  # type: ignore[union-attr]
