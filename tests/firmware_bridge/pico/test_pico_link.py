"""The host's McuLink against the emulated Pico on a pseudo-terminal: resets, a bad line, a slow boot.

The board runs free here (paced by the wall clock, and slower than a real
Pico), so waits are on the listener's calls with generous timeouts, and the
link's heartbeat timeout is raised to match a loaded machine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.link import McuLink
from firmware_bridge.pico_emulator.board import INPUT_PINS, OUTPUT_PINS, EmulatedPico
from firmware_bridge.pico_emulator.serial_port import FREE_RUN_CYCLE_SCALE, PicoSerialPort

from ..recorder import Recorder, wait_until

# One worker runs the module, so its board boots once (scripts/test.sh distributes by group).
pytestmark = pytest.mark.xdist_group("test_pico_link")

WAIT_S = 120.0  # a loaded 2-core runner can make the emulator 10 to 20 times slower than a Pico
ALL_OPEN = dict.fromkeys(range(len(INPUT_PINS)), True)


def link_to(port: PicoSerialPort, recorder: Recorder) -> McuLink:
    return McuLink(port.path, recorder, heartbeat_timeout=30.0, backoff=(0.05, 0.5))


def frames_in(data: bytes | bytearray) -> list[p.Frame]:
    out = []
    for chunk in bytes(data).split(b"\x00"):
        if chunk:
            with contextlib.suppress(p.FrameError):  # a damaged frame is the point: keep the rest
                out.append(p.decode(chunk))
    return out


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[EmulatedPico, PicoSerialPort]]:
    with EmulatedPico(cycle_scale=FREE_RUN_CYCLE_SCALE) as board, PicoSerialPort(board) as port:
        yield board, port


@pytest.fixture
def online(served: tuple[EmulatedPico, PicoSerialPort]) -> Iterator[tuple[EmulatedPico, PicoSerialPort, McuLink,
                                                                          Recorder]]:
    board, port = served
    for gp in INPUT_PINS:
        board.set_pin(gp, None)
    recorder = Recorder()
    with link_to(port, recorder) as link:
        link.start()
        assert recorder.wait_for(lambda: recorder.levels == ALL_OPEN, WAIT_S), recorder.calls
        yield board, port, link, recorder


def changes(recorder: Recorder) -> list[tuple[int, bool]]:
    return [(c[1], c[2]) for c in recorder.of("change")]


@pytest.mark.slow
def test_reset_mid_stream_resyncs_from_the_snapshot_without_phantom_changes(
        online: tuple[EmulatedPico, PicoSerialPort, McuLink, Recorder]) -> None:
    board, _, link, recorder = online
    link.set_output(0, 1)
    board.close_switch(1)
    board.close_switch(2)
    # As CHANGEs, or by a snapshot if a slow start made the link sync twice: either way, no more.
    assert recorder.wait_for(lambda: recorder.levels == {**ALL_OPEN, 1: False, 2: False}, WAIT_S), recorder.calls
    before = changes(recorder)
    assert set(before) <= {(1, False), (2, False)}
    hellos = recorder.count("hello")
    resets = link.counters["resets"]
    board.reset()
    board.close_switch(3)  # moved while the board reboots: the snapshot must carry it
    assert recorder.wait_for(lambda: recorder.count("hello") > hellos and recorder.levels.get(3) is False,
                             WAIT_S), recorder.calls
    assert link.counters["resets"] == resets + 1
    assert recorder.levels == {**ALL_OPEN, 1: False, 2: False, 3: False}
    assert changes(recorder) == before  # channel 3 came by snapshot, not as a change
    assert recorder.count("offline") == 0  # a reset is not a loss of the link
    # The outputs come back after the reset, and new edges are reported as before.
    assert wait_until(lambda: any(e.level == 1 for e in board.output_events(OUTPUT_PINS[0], board.boots[-1][0])),
                      WAIT_S)
    board.open_switch(3)
    assert recorder.wait_for(lambda: changes(recorder)[-1:] == [(3, True)], WAIT_S)


@pytest.mark.slow
def test_damaged_and_dropped_bytes_cost_one_frame_and_the_snapshot_repairs_it(
        online: tuple[EmulatedPico, PicoSerialPort, McuLink, Recorder]) -> None:
    board, port, link, recorder = online
    # A CHANGE damaged on its way to the host: counted, and the level comes by snapshot.
    port.damage_to_host(2)
    board.close_switch(4)
    assert recorder.wait_for(lambda: recorder.levels.get(4) is False, WAIT_S), recorder.calls
    assert link.counters["crc_errors"] + link.counters["cobs_errors"] >= 1
    assert (4, False) not in changes(recorder)
    # A whole CHANGE lost (14 bytes): the next frame's seq shows the gap.
    port.drop_to_host(14)
    board.close_switch(5)
    assert recorder.wait_for(lambda: recorder.levels.get(5) is False, WAIT_S), recorder.calls
    assert link.counters["drops"] >= 1
    # A SET_OUTPUT damaged on its way to the board: NAK, and the link sends its outputs again.
    naks = link.counters["naks"]
    port.damage_to_board(1)
    link.set_output(1, 1)
    assert wait_until(lambda: link.counters["naks"] > naks, WAIT_S)
    assert wait_until(lambda: any(e.level == 1 for e in board.output_events(OUTPUT_PINS[1])), WAIT_S)
    nak_frames = [f for f in frames_in(port.to_host) if isinstance(f.message, p.NakMsg)]
    last_nak = nak_frames[-1].message if nak_frames else None
    assert isinstance(last_nak, p.NakMsg) and last_nak.code in (p.NakCode.CRC, p.NakCode.COBS)
    # Nothing invented: every change the listener got is an edge the board made.
    assert set(changes(recorder)) <= {(4, False), (5, False)}


@pytest.mark.slow
def test_slow_boot_retries_do_not_pile_up_into_duplicate_replies() -> None:
    recorder = Recorder()
    with EmulatedPico(cycle_scale=FREE_RUN_CYCLE_SCALE) as board:
        board.hang()  # the core waits at power-up while the host already asks
        with PicoSerialPort(board) as port, link_to(port, recorder) as link:
            link.start()
            assert wait_until(lambda: sum(isinstance(f.message, p.GetHelloMsg)
                                          for f in frames_in(port.to_board)) >= 3, WAIT_S)
            board.hang(False)
            assert recorder.wait_for(lambda: recorder.levels == ALL_OPEN, WAIT_S), recorder.calls
            board.close_switch(0)
            assert recorder.wait_for(lambda: recorder.levels.get(0) is False, WAIT_S)
            assert set(changes(recorder)) <= {(0, False)}
            hellos = [f for f in frames_in(port.to_host) if isinstance(f.message, p.HelloMsg)]
            boot_ns = next(f.t_first_ns for f in board.frames if f.frame is not None
                           and isinstance(f.frame.message, p.HelloMsg) and f.frame.message.boot)
            asked_while_booting = sum(isinstance(f.message, p.GetHelloMsg) for t, data in port.to_board_at
                                      if t < boot_ns - 50_000_000 for f in frames_in(data))
            asked_after = sum(isinstance(f.message, p.GetHelloMsg) for t, data in port.to_board_at
                              if t >= boot_ns - 50_000_000 for f in frames_in(data))
            assert asked_while_booting >= 3
            # The boot HELLO, then one reply per GET_HELLO that reached a running board: none
            # for those sent while it booted (its UART was not set up yet). On a quiet machine
            # that is one HELLO, or two when a retry crossed the boot HELLO; on a loaded one the
            # emulated board answers more slowly than the link retries, and each retry is answered once.
            assert hellos[0].message.boot  # type: ignore[union-attr]
            assert len(hellos) <= 1 + asked_after, (len(hellos), asked_while_booting, asked_after)
            assert recorder.count("hello") == len(hellos)
            assert link.counters["resets"] == 0
