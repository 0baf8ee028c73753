# Starts patterns on eight of 24 outputs in a scrambled order, all ending at the
# same instant, and prints the order in which the firmware drove the pins.

import time

from firmware_bridge.firmware import gkfw

# Channels beyond a small dict's table size land in its slots out of order.
ORDER = (20, 3, 12, 1, 17, 8, 0, 23)


class Pin:
    def __init__(self, log: list[str], channel: int) -> None:
        self.log = log
        self.channel = channel

    def value(self, v: int = -1) -> int:
        if v >= 0:
            self.log.append("%d:%d" % (self.channel, v))
        return 1


def run() -> None:
    log: list[str] = []
    now: list[int] = [0]
    ticks_diff = time.ticks_diff  # type: ignore[attr-defined]  # MicroPython's
    fw = gkfw.Firmware([], [Pin(log, c) for c in range(24)], lambda b: None, lambda: now[0], ticks_diff, "order")
    for channel in ORDER:
        fw.play_pattern(channel, gkfw.PATTERN_BLINK, 300, 200, 0xFFFF, 0)
    print("start", " ".join(log))
    del log[:]
    for t in (100000, 200000, 300000):
        now[0] = t
        fw.tick()
        print(t, " ".join(log))
        del log[:]


run()
