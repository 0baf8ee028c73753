# Board glue for the reference firmware on a Raspberry Pi Pico (MicroPython).
#
# Copy gkfw.py and this file to the board. At power-up MicroPython runs main.py:
# it reads the input pins with pull-ups, speaks the protocol on UART0 (GP0 TX,
# GP1 RX) at 115200 baud, and drives the output pins. Connect UART0 to the Pi's
# UART or to a USB-serial adapter (see docs/protocol.md about FTDI latency).
#
# Change the pin tables below to match your wiring; channel numbers are the
# positions in INPUT_PINS and OUTPUT_PINS, and the host's config refers to them.

import time

import gkfw
import machine

TYPE_CHECKING = False
if TYPE_CHECKING:  # for type checkers only: MicroPython has no typing module
    from typing import Any

INPUT_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)
OUTPUT_PINS = (18, 19, 20, 21)
UART_ID = 0
UART_TX = 0
UART_RX = 1
BAUDRATE = 115200
WATCHDOG_MS = 2000  # a hung loop reboots the board; the host sees a boot HELLO
SIO_GPIO_IN = 0xD0000004  # every GPIO's input level, one bit per pin
_mem32 = machine.mem32  # bound once: read on every pass of the loop


def board_id() -> str:
    return "pico-" + "".join("%02x" % b for b in machine.unique_id())


def build(uart: "Any" = None) -> "tuple[gkfw.Firmware, Any]":
    """The Firmware object and its UART, wired to this board's pins."""
    inputs = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in INPUT_PINS]
    outputs = [machine.Pin(n, machine.Pin.OUT, value=0) for n in OUTPUT_PINS]
    if uart is None:
        uart = machine.UART(UART_ID, baudrate=BAUDRATE, tx=machine.Pin(UART_TX), rx=machine.Pin(UART_RX),
                            rxbuf=256, txbuf=1024, timeout=0)
    fw = gkfw.Firmware(inputs, outputs, uart.write, time.ticks_us, time.ticks_diff,  # type: ignore[attr-defined]
                       board_id(), read_inputs=read_gpio_in, input_masks=[1 << n for n in INPUT_PINS])
    return fw, uart


def read_gpio_in() -> int:
    # One register read for all inputs: the loop then costs the same for 1 or 26
    # pins, and allocates nothing while none moves (so the collector seldom runs).
    return _mem32[SIO_GPIO_IN]  # type: ignore[no-any-return]


def run(fw: gkfw.Firmware, uart: "Any", steps: int = -1, watchdog: bool = True) -> None:
    """The main loop: read what the host sent, scan the inputs, send a heartbeat when due.

    ``steps`` bounds the loop for tests; -1 runs forever.
    """
    wdt = machine.WDT(timeout=WATCHDOG_MS) if watchdog else None
    fw.boot()
    # An input edge waits for at most one pass of this loop, so a pass does only what
    # fw.poll() would find to do, with C calls and locals: it reads GPIO_IN and compares
    # it with the firmware's last word, and compares the ticks with the firmware's next
    # due time, and calls into the firmware only when one of them moved (a Python call
    # costs about as much as the rest of the pass on the Pico).
    any_bytes, read = uart.any, uart.read
    feed, scan, tick = fw.feed, fw.scan, fw.tick
    ticks_us, ticks_diff = time.ticks_us, time.ticks_diff  # type: ignore[attr-defined]
    mem, gpio_in, bits = _mem32, SIO_GPIO_IN, fw.input_bits
    pet = wdt.feed if wdt is not None else None
    while steps != 0:
        n = any_bytes()
        if n:
            feed(read(n))
        word = mem[gpio_in] & bits
        if word != fw.input_word:
            scan(word)
        if ticks_diff(ticks_us(), fw.due) >= 0:
            tick()
        if pet is not None:
            pet()
        if steps > 0:
            steps -= 1


if __name__ == "__main__":
    run(*build())
