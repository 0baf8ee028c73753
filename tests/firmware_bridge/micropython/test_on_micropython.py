"""The reference firmware on real MicroPython (the WebAssembly port of the release the Pico runs).

CPython runs gkfw.py for the virtual MCU and for most tests, but the board runs
MicroPython, whose ints, dicts and memory differ. These tests run the firmware
file itself on MicroPython and compare it with CPython and the host codec byte
for byte. A missing Node or port fails them (``runner.check_installed``).
"""

from __future__ import annotations

import random
import struct
from binascii import crc_hqx

from cobs import cobs

from firmware_bridge import protocol as p
from firmware_bridge.framing import FrameDecoder
from tests.firmware_bridge.micropython import runner
from tests.firmware_bridge.micropython.sessions import encode_sessions, make_session, run_on_cpython

BOARD_ID = "pico-e6614104032b5c2a"  # what main.py reports on the fake machine (its unique_id)


def test_seeded_sessions_give_the_same_bytes_and_pin_writes_on_cpython_and_micropython(micropython: str) -> None:
    sessions = [make_session(seed, 3000) for seed in range(20)]
    on_micropython = runner.start("sessions.py", {"input.bin": encode_sessions(sessions, BOARD_ID)})
    on_cpython = [run_on_cpython(session) for session in sessions]  # meanwhile, on the other core
    lines = on_micropython.result().splitlines()
    assert len(lines) == 3 * len(sessions), lines[-3:]
    frames = 0
    for i, (uart, writes) in enumerate(on_cpython):
        tag, uart_hex, pins = lines[3 * i:3 * i + 3]
        assert tag == f"S {i}"
        assert uart_hex == "U " + uart.hex(), f"session {i}: the UART bytes differ"
        assert pins == "P " + ";".join(writes), f"session {i}: the output pins were written differently"
        decoded = FrameDecoder().feed(uart)
        assert all(isinstance(f, p.Frame) for f in decoded)
        frames += len(decoded)
    # The sessions exercise what they claim to (a guard against a generator that drifts into idleness).
    assert frames > 20 * 500
    assert all(sum(step.dt_us for step in session.steps) > 1 << 32 for session in sessions)  # mcu_time wraps


def _random_message(rng: random.Random) -> p.Message:
    def u32() -> int:
        return rng.choice((0, 0xFFFFFFFF, 1 << 30, rng.randrange(1 << 32)))

    def text() -> str:
        return "".join(rng.choice("aZ0-ä€𝄞") for _ in range(rng.randrange(9)))

    kind = rng.randrange(11)
    if kind == 0:
        return p.ChangeMsg(rng.randrange(256), rng.random() < 0.5, u32())
    if kind == 1:
        return p.HeartbeatMsg(u32())
    if kind == 2:
        return p.SnapshotMsg.from_levels([rng.random() < 0.5 for _ in range(rng.randrange(256))], u32())
    if kind == 3:
        return p.HelloMsg(rng.random() < 0.5, rng.randrange(256), rng.randrange(256), u32(), text(), text())
    if kind == 4:
        return p.PongMsg(rng.randrange(0x10000), u32())
    if kind == 5:
        return p.NakMsg(rng.randrange(256), rng.randrange(0x10000), rng.randrange(256))
    if kind == 6:
        return p.SetOutputMsg(rng.randrange(256), rng.randrange(0x10000))
    if kind == 7:
        return p.PingMsg(rng.randrange(0x10000))
    if kind == 8:
        return p.PlayPatternMsg(rng.randrange(256), rng.randrange(5), rng.randrange(1, 0x10000),
                                rng.randrange(20, 0x10000), rng.randrange(0x10000), rng.randrange(0x10000))
    return p.GetHelloMsg() if kind == 9 else p.GetSnapshotMsg()


def _nonzero_payloads(rng: random.Random) -> list[bytes]:
    """COBS inputs around the 254-byte block edge, where a code byte of 0xFF ends a block with no zero after it."""
    def nonzero(n: int) -> bytes:
        return bytes(rng.randrange(1, 256) for _ in range(n))

    out = [nonzero(n) for n in (253, 254, 255, 507, 508, 509) for _ in range(3)]
    out += [b"\x00" + nonzero(254), nonzero(254) + b"\x00", nonzero(254) + b"\x00" + nonzero(254),
            b"\x00" * 3 + nonzero(508), nonzero(127) + b"\x00" + nonzero(254), b"", b"\x00", b"\xff" * 254]
    return out


def _full_block_frame(rng: random.Random) -> tuple[int, int, bytes, bytes]:
    """A frame whose whole payload (header, body, CRC) is 254 non-zero bytes, and the host's encoding of it."""
    while True:
        seq = rng.randrange(0x101, 0x10000)
        body = bytes(rng.randrange(1, 256) for _ in range(248))
        payload = struct.pack(">BBH", p.PROTOCOL_VERSION, p.MsgType.SNAPSHOT, seq) + body
        payload += struct.pack(">H", crc_hqx(payload, 0xFFFF))
        if 0 not in payload:
            return int(p.MsgType.SNAPSHOT), seq, body, cobs.encode(payload) + b"\x00"


def test_host_codec_frames_and_cobs_blocks_match_gkfw_on_micropython(micropython: str) -> None:
    rng = random.Random(28)
    records = bytearray()
    expected: list[str] = []
    for _ in range(5000):
        msg, seq = _random_message(rng), rng.randrange(0x10000)
        msg_type, body = p.encode_body(msg)
        records += b"F" + struct.pack(">BHH", msg_type, seq, len(body)) + body
        expected.append(p.encode(msg, seq).hex())
    for _ in range(4):
        raw_type, seq, body, wire = _full_block_frame(rng)
        records += b"F" + struct.pack(">BHH", raw_type, seq, len(body)) + body
        expected.append(wire.hex())
    blocks = _nonzero_payloads(rng)
    for block in blocks:
        records += b"C" + struct.pack(">H", len(block)) + block
        expected.append(cobs.encode(block).hex() + " 1")
    got = runner.run("frames.py", {"input.bin": bytes(records)}).splitlines()
    assert len(got) == len(expected)
    differ = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e]
    assert not differ, (f"{len(differ)} records differ, first #{differ[0]}: "
                        f"MicroPython {got[differ[0]]} host {expected[differ[0]]}")
    assert sum(len(b) in (254, 508) and 0 not in b for b in blocks) >= 7


def test_an_idle_poll_allocates_no_more_after_18_minutes_on_micropython(micropython: str) -> None:
    """Past 2**30 us a time kept as one int is no longer small on the Pico: each poll would allocate more."""
    lines = runner.run("alloc.py", {}).splitlines()
    points = [line.split() for line in lines if line.startswith("A ")]
    per_poll = {int(fields[1]): {int(x) for x in fields[2:]} for fields in points}
    assert len(per_poll) == 6
    first = per_poll[(1 << 30) - 300000]
    assert len(first) == 1, f"idle polls before 2**30 us allocate unevenly: {first}"
    for uptime, sizes in per_poll.items():
        assert sizes == first, f"at {uptime} us an idle poll allocates {sorted(sizes)} bytes, before 2**30 {first}"
    # Read as one word, as on the Pico, the inputs cost nothing on the heap: neither an idle
    # poll nor an edge's CHANGE (20 edges a point, all sent), whatever the uptime.
    for tag in ("W", "C"):
        rows = [line.split() for line in lines if line.startswith(tag + " ")]
        assert len(rows) == 6
        for fields in rows:
            assert {int(x) for x in fields[2:22]} == {0}, f"{tag} at {fields[1]} us allocates: {fields[2:22]}"
    changes_sent = [int(fields[22]) for fields in (line.split() for line in lines if line.startswith("C "))]
    assert changes_sent == [20 * (k + 1) for k in range(6)]
    beats = [line.split()[2:] for line in lines if line.startswith("H ")]
    assert beats == [["0", "1"]] * 6  # one heartbeat sent at each point, nothing allocated for it
    # The split time still gives the protocol's 32-bit microsecond timestamp.
    (uart_hex,) = [line[2:] for line in lines if line.startswith("U ")]
    pongs = [f.message for f in FrameDecoder().feed(bytes.fromhex(uart_hex))
             if isinstance(f, p.Frame) and isinstance(f.message, p.PongMsg)]
    assert [(m.token, m.mcu_time_us) for m in pongs] == [
        (k, point % (1 << 32)) for k, point in enumerate(sorted(per_poll))]


def test_patterns_are_driven_in_channel_order_on_micropython(micropython: str) -> None:
    """MicroPython's dicts do not keep insertion order; the firmware must not depend on it."""
    lines = runner.run("pattern_order.py", {}).splitlines()
    assert lines[0] == "start 20:1 3:1 12:1 1:1 17:1 8:1 0:1 23:1"  # started in the order the host asked
    ascending = " ".join(f"{c}:{{}}" for c in (0, 1, 3, 8, 12, 17, 20, 23))
    assert lines[1:] == ["100000 " + ascending.format(*[0] * 8), "200000 " + ascending.format(*[1] * 8),
                         "300000 " + ascending.format(*[0] * 8)]
