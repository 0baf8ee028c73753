# Replays seeded sessions against gkfw.Firmware on MicroPython and prints
# what came out: the UART bytes, and every output pin write with its step.
# The CPython side of tests/firmware_bridge/micropython/test_on_micropython.py
# replays the same steps through main.py and the fake machine.
#
# /input.bin: u8 id_len, board_id, u16 sessions, then per session
#   u32 start_ticks, u32 steps, and per step u32 dt_us, u16 input levels
#   (bit i = input i), u16 n, n host bytes.

import binascii
import struct
import time

from firmware_bridge.firmware import gkfw

INPUTS = 16
OUTPUTS = 4


class InPin:
    def __init__(self) -> None:
        self.level = 1

    def value(self) -> int:
        return self.level


class OutPin:
    def __init__(self, log: list[str], step: list[int], channel: int) -> None:
        self.log = log
        self.step = step
        self.channel = channel

    def value(self, v: int) -> None:
        self.log.append("%d,%d,%d" % (self.step[0], self.channel, v))


class Clock:
    def __init__(self, start: int) -> None:
        self.t = start

    def ticks_us(self) -> int:
        return self.t

    def advance(self, dt: int) -> None:
        # The real port's ticks_add: the same 2**30 wrap the Pico's ticks have.
        self.t = time.ticks_add(self.t, dt)  # type: ignore[attr-defined]  # MicroPython's


def run(data: bytes) -> None:
    n = data[0]
    board_id = data[1:1 + n].decode()
    pos = 1 + n
    (sessions,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for s in range(sessions):
        start, steps = struct.unpack_from(">II", data, pos)
        pos += 8
        clock = Clock(start)
        uart = bytearray()
        log: list[str] = []
        step: list[int] = [-1]
        inputs = [InPin() for _ in range(INPUTS)]
        outputs = [OutPin(log, step, c) for c in range(OUTPUTS)]
        fw = gkfw.Firmware(inputs, outputs, uart.extend, clock.ticks_us, time.ticks_diff, board_id)  # type: ignore[attr-defined]  # MicroPython's
        fw.boot()
        for i in range(steps):
            step[0] = i
            dt, levels, k = struct.unpack_from(">IHH", data, pos)
            pos += 8
            for c in range(INPUTS):
                inputs[c].level = (levels >> c) & 1
            clock.advance(dt)
            fw.poll(data[pos:pos + k] if k else None)
            pos += k
        print("S", s)
        print("U", binascii.hexlify(uart).decode())
        print("P", ";".join(log))


run(open("/input.bin", "rb").read())
