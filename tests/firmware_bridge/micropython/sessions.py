"""Seeded sessions for the firmware, replayed on CPython (main.py, fake machine) and on MicroPython.

A session is what a board lives through: inputs toggling (single edges and
bursts), host frames arriving whole, split across reads or damaged, and time
advancing by microseconds, by heartbeat intervals and by minutes, so the ticks
wrap (2**30) and the protocol's 32-bit timestamp wrap both fall inside it.
"""

from __future__ import annotations

import random
import struct
from binascii import crc_hqx
from dataclasses import dataclass

import pytest
from cobs import cobs

from firmware_bridge import protocol as p
from tests.firmware_bridge import fake_machine
from tests.firmware_bridge.test_firmware import Board

INPUTS = 16
OUTPUTS = 4


@dataclass(frozen=True)
class Step:
    dt_us: int
    levels: int  # bit i: input i is high
    host: bytes  # the host's bytes that have reached the UART by this poll


@dataclass(frozen=True)
class Session:
    start_ticks: int
    steps: tuple[Step, ...]


def _host_frame(rng: random.Random, seq: int) -> bytes:
    pick = rng.random()
    if pick < 0.2:
        return p.encode(p.PingMsg(rng.randrange(0x10000)), seq)
    if pick < 0.3:
        return p.encode(p.GetSnapshotMsg(), seq)
    if pick < 0.35:
        return p.encode(p.GetHelloMsg(), seq)
    if pick < 0.55:
        # channel 4..5 does not exist: a NAK
        return p.encode(p.SetOutputMsg(rng.randrange(6), rng.choice((0, 1, 0xFFFF, rng.randrange(0x10000)))), seq)
    if pick < 0.9:
        # Raw fields, some out of range, so the firmware's own checks answer (NAK_VALUE, NAK_CHANNEL).
        body = struct.pack(">BBHHHH", rng.randrange(5), rng.randrange(6), rng.choice((0, rng.randrange(1, 3000))),
                           rng.choice((10, rng.randrange(20, 400))), rng.randrange(0x10000), rng.randrange(0x10000))
        payload = struct.pack(">BBH", p.PROTOCOL_VERSION, p.MsgType.PLAY_PATTERN, seq) + body
        encoded: bytes = cobs.encode(payload + struct.pack(">H", crc_hqx(payload, 0xFFFF)))
        return encoded + b"\x00"
    if pick < 0.95:
        wire = bytearray(p.encode(p.PingMsg(seq), seq))
        wire[rng.randrange(len(wire) - 1)] ^= rng.randrange(1, 256) | 1  # damaged: a CRC or COBS NAK
        if 0 in wire[:-1]:
            wire[wire.index(0)] = 0x55
        return bytes(wire)
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))  # line noise


def make_session(seed: int, steps: int) -> Session:
    rng = random.Random(seed)
    levels = (1 << INPUTS) - 1  # pulled up, every switch open
    pending = b""
    seq = 0
    out: list[Step] = []
    for _ in range(steps):
        r = rng.random()
        if r < 0.9:
            dt = rng.randrange(0, 5000)
        elif r < 0.97:
            dt = rng.randrange(5000, 700_000)
        else:
            dt = rng.randrange(1_000_000, 200_000_000)  # minutes pass: the clocks wrap
        r = rng.random()
        if r < 0.15:
            levels ^= 1 << rng.randrange(INPUTS)
        elif r < 0.17:
            levels ^= rng.randrange(1 << INPUTS)
        if rng.random() < 0.1:
            pending += _host_frame(rng, seq)
            seq = (seq + 1) & 0xFFFF
        # Bytes arrive in pieces, as a UART read returns what has come so far.
        take = len(pending) if rng.random() < 0.7 else rng.randrange(len(pending) + 1)
        host, pending = pending[:take], pending[take:]
        out.append(Step(dt, levels, host))
    return Session(rng.randrange(1 << 30), tuple(out))


def encode_sessions(sessions: list[Session], board_id: str) -> bytes:
    """The input of mp/sessions.py (its header comment has the layout)."""
    bid = board_id.encode()
    data = bytearray([len(bid)]) + bid + struct.pack(">H", len(sessions))
    for session in sessions:
        data += struct.pack(">II", session.start_ticks, len(session.steps))
        for step in session.steps:
            data += struct.pack(">IHH", step.dt_us, step.levels, len(step.host)) + step.host
    return bytes(data)


class _LoggedPin:
    """An output pin of the fake machine that notes each write and the step it came in."""

    def __init__(self, pin: fake_machine.Pin, log: list[str], step: list[int], channel: int) -> None:
        self._pin = pin
        self._log = log
        self._step = step
        self._channel = channel

    def value(self, v: int) -> None:
        self._log.append(f"{self._step[0]},{self._channel},{v}")
        self._pin.value(v)


def run_on_cpython(session: Session) -> tuple[bytes, list[str]]:
    """The session through main.py's build() on the fake machine: UART bytes and the pin writes."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        board = Board(monkeypatch, start_us=session.start_ticks)
        log: list[str] = []
        step = [-1]
        board.fw.outputs = [_LoggedPin(pin, log, step, c) for c, pin in enumerate(board.fw.outputs)]
        board.fw.boot()
        for i, s in enumerate(session.steps):
            step[0] = i
            for c in range(INPUTS):
                board.input_pin(c).driven = None if s.levels >> c & 1 else 0
            board.clock.advance(s.dt_us)
            if s.host:
                board.uart.host_send(s.host)
            board.loop()
        return board.uart.take(), log
