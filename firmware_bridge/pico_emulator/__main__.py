"""``python -m firmware_bridge.pico_emulator [--link PATH]``: the emulated Pico on a pseudo-terminal.

Prints the port's path alone on the first line, then serves until stdin ends,
or until interrupted. Point ``hardware.mcu.port`` at that path and run
``gravekeeper run`` or ``gravekeeper selftest`` as with a real board.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from firmware_bridge.pico_emulator.board import EmulatedPico
from firmware_bridge.pico_emulator.images import EmulatorUnavailable
from firmware_bridge.pico_emulator.serial_port import FREE_RUN_CYCLE_SCALE, PicoSerialPort
from gravekeeper.signals import StopOnSignals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.pico_emulator",
                                     description="The reference firmware on an emulated Pico, served on a pty.")
    parser.add_argument("--link", metavar="PATH", help="make the port's symlink here (default: a temp dir)")
    parser.add_argument("--no-stdin", action="store_true", help="serve until interrupted, not until stdin ends")
    args = parser.parse_args(argv)
    board = EmulatedPico(cycle_scale=FREE_RUN_CYCLE_SCALE)
    try:
        port = PicoSerialPort(board, path=args.link)
    except ValueError as exc:
        print(f"error: --link: {exc}", file=sys.stderr)
        return 2
    try:
        board.start()
    except EmulatorUnavailable as exc:
        port.close()  # its temp dir
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    with StopOnSignals(stop, (signal.SIGTERM,)):  # Ctrl-C stays a KeyboardInterrupt
        try:
            port.start()
            print(port.path, flush=True)
            if not args.no_stdin:
                def until_stdin_ends() -> None:
                    sys.stdin.read()
                    stop.set()

                threading.Thread(target=until_stdin_ends, daemon=True).start()
            stop.wait()
        except KeyboardInterrupt:
            pass
        finally:
            port.close()
            board.close()
    if port.error is not None:
        print(f"error: the emulated board stopped: {port.error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
