# How much an idle poll allocates on MicroPython, as the uptime grows past
# 2**30 us (about 18 minutes: beyond a small int on a 32-bit port), 2**31 and
# the protocol's 2**32 wrap. At each point a PING is answered, so the test can
# check the PONG's timestamp too.
#
# A second firmware reads its inputs as one word, as on the Pico: at each point
# it also reports input edges and sends a heartbeat, and neither may allocate
# (garbage left by every edge makes MicroPython's allocator slower and slower).
#
# Prints "A <uptime_us> <bytes per idle poll> ..." per point, "W <uptime_us>
# <bytes per idle word poll> ...", "C <uptime_us> <bytes per CHANGE> ... <CHANGEs
# sent so far>" and "H <uptime_us> <bytes for a heartbeat> <heartbeats sent so far>",
# then "U <hex>" with every byte the first firmware wrote.

import binascii
import gc
import struct
import time

from firmware_bridge.firmware import gkfw

POINTS = (
    (1 << 30) - 300000,
    (1 << 30) + 1000,
    (1 << 31) + 5,
    (1 << 32) - 300000,
    (1 << 32) + 1000,
    (3 << 30) + (1 << 32) + 77,
)
STEP = 1 << 28  # below ticks_diff's reach of 2**29


class Pin:
    def value(self, v: int = -1) -> int:
        return 1


class Clock:
    def __init__(self) -> None:
        self.t = 123456

    def ticks_us(self) -> int:
        return self.t


def ping(seq: int, token: int) -> bytes:
    payload = struct.pack(">BBHH", gkfw.PROTOCOL_VERSION, gkfw.PING, seq, token)
    return gkfw.cobs_encode(payload + struct.pack(">H", gkfw.crc16(payload))) + b"\x00"


def allocated(call: "object") -> int:
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()  # type: ignore[attr-defined]  # MicroPython's
    call()  # type: ignore[operator]
    after = gc.mem_alloc()  # type: ignore[attr-defined]  # MicroPython's
    gc.enable()
    return after - before  # type: ignore[no-any-return]


def run() -> None:
    clock = Clock()
    uart = bytearray()
    fw = gkfw.Firmware([Pin() for _ in range(16)], [Pin() for _ in range(4)], uart.extend, clock.ticks_us,
                       time.ticks_diff, "alloc")  # type: ignore[attr-defined]  # MicroPython's
    fw.boot()
    word = [0xFFFF]
    sent = {gkfw.CHANGE: 0, gkfw.HEARTBEAT: 0}

    def written(frame: bytes) -> None:  # counts frames and keeps nothing, so nothing is allocated
        if len(frame) > 2 and frame[2] in sent:  # after the COBS code: the version and the type
            sent[frame[2]] += 1

    # A heartbeat after 1 ms of silence: one is due after each point's 20 polls (10 us apart).
    fast = gkfw.Firmware([Pin() for _ in range(16)], [], written, clock.ticks_us, time.ticks_diff,  # type: ignore[attr-defined]  # MicroPython's
                         "alloc", heartbeat_us=1000, read_inputs=lambda: word[0],
                         input_masks=[1 << i for i in range(16)])
    fast.boot()
    uptime = 0
    for k, point in enumerate(POINTS):
        while uptime < point:
            dt = min(STEP, point - uptime)
            clock.t = time.ticks_add(clock.t, dt)  # type: ignore[attr-defined]  # MicroPython's
            uptime += dt
            fw.poll()  # a heartbeat is due after each long step
            fast.poll()
        fw.poll(ping(k, k))
        sizes: list[int] = []
        idle: list[int] = []
        edges: list[int] = []
        for i in range(20):
            clock.t = time.ticks_add(clock.t, 10)  # type: ignore[attr-defined]  # MicroPython's
            sizes.append(allocated(fw.poll))
            idle.append(allocated(fast.poll))
            word[0] ^= 1 << (i % 16)
            edges.append(allocated(fast.scan))
        beats = sent[gkfw.HEARTBEAT]
        clock.t = time.ticks_add(clock.t, 1000)  # type: ignore[attr-defined]  # MicroPython's
        beat = allocated(fast.poll)
        uptime += 1200
        print("A", point, " ".join(str(s) for s in sizes))
        print("W", point, " ".join(str(s) for s in idle))
        print("C", point, " ".join(str(s) for s in edges), sent[gkfw.CHANGE])
        print("H", point, beat, sent[gkfw.HEARTBEAT] - beats)
    print("U", binascii.hexlify(uart).decode())


run()
