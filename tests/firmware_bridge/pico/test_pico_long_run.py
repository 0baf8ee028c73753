"""The firmware keeps time past MicroPython's ticks wrap (2^30 us) and past 2^32 us, on the emulated Pico.

Two different clocks wrap. ``time.ticks_us`` is the hardware TIMER modulo
2^30: the board is started with its TIMER just before a wrap (of 2^30, and of
the TIMER's low word at 2^32), so the wrap falls a moment after boot. The
firmware's own ``mcu_time`` (us since its boot, 32 bits) passes 2^30 after
18 minutes and wraps after 71.6: the TIMER is moved ahead ("warped") in
jumps of 500 s, each shorter than the 2^29 us that ``ticks_diff`` can
measure, with the loop running between jumps. A real board sees a jump of a
fraction of a millisecond per pass; the firmware's arithmetic is the same for
any jump below 2^29 us, which is what the warps exercise.
"""

from __future__ import annotations

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.pico_emulator.board import EmulatedPico, WireFrame, is_msg

TIME_MOD = 1 << 32
# Simulated time from power-up to the boot HELLO, near enough: 0.40 to 0.49 s, most of it MicroPython
# compiling main.py and gkfw.py. The wrap must fall after the first CHANGE and within the 0.2 s step after it.
BOOT_US = 400_000


def stamp(frame: WireFrame) -> int:
    assert frame.frame is not None, frame.error
    t: int = frame.frame.message.mcu_time_us  # type: ignore[union-attr]
    return t


def change_after(board: EmulatedPico, channel: int, closed: bool) -> WireFrame:
    (board.close_switch if closed else board.open_switch)(channel)
    return board.next_frame(lambda f: is_msg(f, p.ChangeMsg), within_us=20_000, slice_us=500)


@pytest.mark.slow
@pytest.mark.parametrize("wrap_us", [1 << 30, 1 << 32], ids=["ticks-wrap-2^30", "timer-low-word-2^32"])
def test_changes_and_heartbeats_run_on_across_a_timer_wrap(wrap_us: int) -> None:
    # The TIMER wraps about 0.15 s after the firmware starts.
    with EmulatedPico(timer_start_us=wrap_us - BOOT_US - 150_000) as board:
        hello = board.wait_boot_hello()
        start_ns = hello.t_first_ns - stamp(hello) * 1000  # when the firmware's clock read 0

        def since_start_us(t_ns: int) -> float:
            return (t_ns - start_ns) / 1000

        before = change_after(board, 5, closed=True)
        assert board.state()["timer_us"] < wrap_us
        board.step(200_000)
        assert board.state()["timer_us"] > wrap_us  # the wrap is behind us
        after = change_after(board, 5, closed=False)
        beat = board.next_frame(lambda f: is_msg(f, p.HeartbeatMsg), within_us=700_000, slice_us=20_000)
        for frame in (before, after, beat):  # every stamp is the simulated time since the firmware started
            assert stamp(frame) == pytest.approx(since_start_us(frame.t_first_ns), abs=3000)
        assert stamp(beat) - stamp(after) == pytest.approx(500_000, abs=3000)


@pytest.mark.slow
def test_mcu_time_passes_2_30_and_wraps_at_2_32() -> None:
    jump_us = 500_000_000  # under 2^29 us: ticks_diff measures it exactly
    with EmulatedPico() as board:
        board.wait_boot_hello()
        board.step(10_000)
        board.skip_frames()
        warped = 0
        last: WireFrame | None = None
        seen: list[int] = []
        while warped < TIME_MOD + 2 * jump_us:
            board.warp(jump_us)
            warped += jump_us
            # Nothing sent for 500 s: the first pass after the jump owes a heartbeat.
            beat = board.next_frame(lambda f: is_msg(f, p.HeartbeatMsg), within_us=5000, slice_us=500)
            if last is not None:
                gap = (stamp(beat) - stamp(last)) % TIME_MOD
                sim_gap_us = (beat.t_first_ns - last.t_first_ns) // 1000
                assert gap == pytest.approx(jump_us + sim_gap_us, abs=3000)
            seen.append(stamp(beat))
            last = beat
        assert any(t >= 1 << 30 for t in seen)  # past 2^30...
        assert sum(b < a for a, b in zip(seen, seen[1:], strict=False)) == 1  # ...and once round 2^32
        # Past the wrap the board still reports edges with the right time, and answers.
        assert last is not None
        before = board.now_ns
        change = change_after(board, 9, closed=True)
        assert (stamp(change) - stamp(last)) % TIME_MOD == pytest.approx((before - last.t_first_ns) / 1000, abs=3000)
        board.send(p.PingMsg(99), 1)
        pong = board.next_frame(lambda f: is_msg(f, p.PongMsg), within_us=20_000)
        assert pong.frame is not None and pong.frame.message.token == 99  # type: ignore[union-attr]
        assert not any(is_msg(f, p.HelloMsg) for f in board.frames[1:])  # and it never rebooted
        assert len(board.boots) == 1

