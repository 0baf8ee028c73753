"""``gravekeeper mcu-sim``: a virtual MCU on a pseudo-terminal, driven by commands.

It prints the device path on the first line of stdout (point the controller's
``mcu`` source at it; ``--link PATH`` fixes it across runs), then runs the commands of ``--script FILE`` and then
those typed on stdin, until ``quit`` or end of input. ``--no-stdin`` keeps it
running after the script until it is interrupted.

Commands, one a line (``#`` starts a comment)::

    set CH LEVEL [CH LEVEL ...]        LEVEL: 1/0, high/low, on/off, true/false
    bounce CH LEVEL [MS [EDGES]]       a bounce burst ending at LEVEL (default 5 ms, 6 edges)
    corrupt [N]                        flip N bytes of the next frame sent (default 1)
    reset                              reboot the MCU: boot HELLO, sequence from 0
    hang / resume                      the firmware stops (no frames, port open) / runs again
    unplug                             the port vanishes
    replug [reset]                     the port comes back at the same path
    sleep SECONDS                      pause (scripts)
    status                             print levels, outputs and counters
    help, quit

Every output the host sets is printed as ``output CH VALUE``.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, cast

from controller.cli import UsageError
from firmware_bridge.virtual_mcu import VirtualMcu
from gravekeeper.errors import GravekeeperError
from gravekeeper.signals import StopOnSignals

_LEVELS = {"1": True, "high": True, "on": True, "true": True, "0": False, "low": False, "off": False, "false": False}
COMMAND_HELP = __doc__.split("Commands, one a line (``#`` starts a comment)::\n\n", 1)[1].split("\n\nEvery", 1)[0]


class McuSimCommandError(GravekeeperError, ValueError):
    """A command line that cannot be run; the message names the bad word."""


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[object, ...] = ()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--channels", type=int, default=32, metavar="N", help="input channels, 1..255 (default 32)")
    parser.add_argument("--outputs", type=int, default=8, metavar="N", help="output channels, 0..255 (default 8)")
    parser.add_argument("--script", type=Path, metavar="FILE", help="run the commands in FILE first")
    parser.add_argument("--heartbeat", type=float, default=0.5, metavar="SECONDS",
                        help="heartbeat interval (default 0.5)")
    parser.add_argument("--board-id", default="virtual", help="board id reported in HELLO (default 'virtual')")
    parser.add_argument("--link", metavar="PATH",
                        help="make the device symlink at PATH (default: a new temp directory)")
    parser.add_argument("--no-stdin", action="store_true",
                        help="do not read commands from stdin; run until interrupted")
    parser.epilog = "commands:\n" + COMMAND_HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def _int(word: str, what: str, low: int, high: int) -> int:
    try:
        value = int(word, 0)
    except ValueError:
        raise McuSimCommandError(f"{what} must be an integer, got {word!r}") from None
    if not low <= value <= high:
        raise McuSimCommandError(f"{what} must be {low}..{high}, got {value}")
    return value


def _float(word: str, what: str, low: float, high: float) -> float:
    try:
        value = float(word)
    except ValueError:
        raise McuSimCommandError(f"{what} must be a number, got {word!r}") from None
    if not low <= value <= high:
        raise McuSimCommandError(f"{what} must be {low}..{high}, got {word}")
    return value


def _level(word: str) -> bool:
    try:
        return _LEVELS[word.lower()]
    except KeyError:
        raise McuSimCommandError(f"level must be one of 1/0, high/low, on/off, true/false; got {word!r}") from None


def parse_command(line: str, channels: int) -> Command | None:
    """One command from one line; None for a blank or comment line; McuSimCommandError if bad."""
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    name, rest = words[0].lower(), words[1:]
    max_ch = channels - 1

    def arity(low: int, high: int) -> None:
        if not low <= len(rest) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            raise McuSimCommandError(f"'{name}' takes {want} arguments, got {len(rest)}")

    if name == "set":
        if not rest or len(rest) % 2:
            raise McuSimCommandError("'set' takes pairs of CHANNEL LEVEL")
        pairs = tuple((_int(rest[i], "channel", 0, max_ch), _level(rest[i + 1])) for i in range(0, len(rest), 2))
        return Command("set", pairs)
    if name == "bounce":
        arity(2, 4)
        ch = _int(rest[0], "channel", 0, max_ch)
        level = _level(rest[1])
        ms = _float(rest[2], "bounce duration (ms)", 0.001, 1000) if len(rest) > 2 else 5.0
        edges = _int(rest[3], "bounce edges", 1, 1000) if len(rest) > 3 else 6
        return Command("bounce", (ch, level, ms, edges))
    if name == "corrupt":
        arity(0, 1)
        return Command("corrupt", (_int(rest[0], "byte count", 1, 300) if rest else 1,))
    if name == "replug":
        arity(0, 1)
        if rest and rest[0].lower() != "reset":
            raise McuSimCommandError(f"'replug' takes only the word 'reset', got {rest[0]!r}")
        return Command("replug", (bool(rest),))
    if name == "sleep":
        arity(1, 1)
        return Command("sleep", (_float(rest[0], "sleep seconds", 0, 3600),))
    if name in ("reset", "unplug", "hang", "resume", "status", "help", "quit", "exit"):
        arity(0, 0)
        return Command("quit" if name == "exit" else name)
    raise McuSimCommandError(f"unknown command {name!r} (try 'help')")


def run_command(mcu: VirtualMcu, cmd: Command, out: TextIO, stop: threading.Event) -> bool:
    """Run one command; False when it was ``quit``."""
    a = cmd.args
    if cmd.name == "set":
        for ch, level in cast(tuple[tuple[int, bool], ...], a):
            mcu.set_channel(ch, level)
    elif cmd.name == "bounce":
        ch, level, ms, edges = cast(tuple[int, bool, float, int], a)
        mcu.bounce(ch, level, duration_ms=ms, edges=edges)
    elif cmd.name == "corrupt":
        mcu.corrupt_next(cast(int, a[0]))
    elif cmd.name == "reset":
        mcu.reset()
    elif cmd.name == "unplug":
        mcu.unplug()
    elif cmd.name == "hang":
        mcu.hang()
    elif cmd.name == "resume":
        mcu.resume()
    elif cmd.name == "replug":
        mcu.replug(reset=bool(a[0]))
    elif cmd.name == "sleep":
        stop.wait(cast(float, a[0]))
    elif cmd.name == "status":
        levels = "".join("1" if v else "0" for v in mcu.levels())
        print(f"levels {levels}", file=out)
        print(f"outputs {' '.join(str(v) for v in mcu.outputs)}", file=out)
        print(f"plugged {'yes' if mcu.plugged else 'no'} pty {mcu.pty_path or '-'} frames_sent {mcu.frames_sent} "
              f"frames_dropped {mcu.frames_dropped} host_errors {mcu.fw.rx_errors}", file=out)
    elif cmd.name == "help":
        print(COMMAND_HELP, file=out)
    elif cmd.name == "quit":
        return False
    out.flush()
    return True


def load_script(path: Path, channels: int) -> list[Command]:
    """Every command of a script, checked before any runs; UsageError names the bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--script: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"--script: {path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                         f"at offset {exc.start})") from None
    commands = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            cmd = parse_command(line, channels)
        except McuSimCommandError as exc:
            raise UsageError(f"--script {path} line {number}: {exc}") from None
        if cmd is not None:
            commands.append(cmd)
    return commands


def _serve_lines(mcu: VirtualMcu, lines: Iterable[str], channels: int, out: TextIO, err: TextIO,
                 stop: threading.Event) -> bool:
    for number, line in enumerate(lines, 1):
        try:
            cmd = parse_command(line, channels)
        except McuSimCommandError as exc:
            print(f"error: line {number}: {exc}", file=err, flush=True)
            continue
        if cmd is None:
            continue
        try:
            if not run_command(mcu, cmd, out, stop):
                return False
        except (ValueError, TimeoutError, OSError) as exc:
            print(f"error: line {number}: {exc}", file=err, flush=True)
    return True


def main(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = sys.stderr
    if not 1 <= args.channels <= 255:
        raise UsageError(f"--channels must be 1..255, got {args.channels}")
    if not 0 <= args.outputs <= 255:
        raise UsageError(f"--outputs must be 0..255, got {args.outputs}")
    if not 0 < args.heartbeat <= 60:
        raise UsageError(f"--heartbeat must be in (0, 60] seconds, got {args.heartbeat}")
    script = load_script(args.script, args.channels) if args.script else []
    try:
        mcu = VirtualMcu(args.channels, heartbeat_interval=args.heartbeat, board_id=args.board_id,
                         outputs=args.outputs, path=args.link)
    except ValueError as exc:
        option = "--link" if str(exc).startswith("path ") else "--board-id"
        raise UsageError(f"{option}: {exc}") from None
    stop = threading.Event()
    lock = threading.Lock()

    def on_output(channel: int, value: int) -> None:
        with lock:
            print(f"output {channel} {value}", file=out, flush=True)

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous: Callable[..., object] | int | None = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        previous = signal.signal(signal.SIGTERM, on_term)
    mcu.on_output = on_output
    try:
        with mcu:
            print(mcu.path, file=out, flush=True)
            how = "stop with Ctrl-C" if args.no_stdin else "type 'help' for commands"
            print(f"virtual MCU: {args.channels} inputs, {args.outputs} outputs on {mcu.path} "
                  f"(pty {mcu.pty_path}); {how}", file=err, flush=True)
            for cmd in script:
                try:
                    if not run_command(mcu, cmd, out, stop):
                        return 0
                except (ValueError, TimeoutError, OSError) as exc:
                    print(f"error: --script {args.script}: '{cmd.name}' failed: {exc}", file=err, flush=True)
                    return 1
            if args.no_stdin:
                # A handler that raises runs only once the main thread's wait returns, which a SIGTERM handed
                # to another thread never makes it do (gravekeeper/signals.py): here the signal sets ``stop``.
                with StopOnSignals(stop, (signal.SIGTERM,)) if in_main else contextlib.nullcontext():
                    stop.wait()
            else:
                _serve_lines(mcu, stdin or sys.stdin, args.channels, out, err, stop)
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
