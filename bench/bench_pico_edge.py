"""Input edge to its CHANGE frame on the UART, on the emulated Pico, in simulated time.

The unchanged firmware runs on an emulated RP2040 at 125 MHz
(``firmware_bridge.pico_emulator``), stepped in simulated time, so the figures
do not depend on how busy this machine is. Each sample closes or opens one
switch at a pseudo-random moment of the main loop (seeded) and measures, from
the edge:

* ``first byte``: the firmware writes the frame's first byte to the UART;
* ``last byte``: the frame's last byte (the 0x00 delimiter) has left the
  wire, its stop bit included. The emulator's UART sends a byte the moment
  it is written, so the wire is modelled here: each byte takes 10 bit times
  at the configured baud and starts when written or when the one before it
  has gone, whichever is later (the RP2040's 32-byte FIFO holds a CHANGE
  whole).

Targets: first byte p99 <= 0.5 ms; last byte p99 <= the frame's wire time
(14 bytes at 115200 baud: 1.215 ms) + 0.5 ms. The emulator models no flash
wait states (see docs/performance.md).

``--firmware DIR`` runs the ``main.py`` and ``gkfw.py`` found in DIR instead
(for example an older version, to compare).

Usage: ``python bench/bench_pico_edge.py [--edges N] [--seed S] [--firmware DIR] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.pico_emulator.board import BAUDRATE, INPUT_PINS, EmulatedPico, is_msg, wire_time_ns  # noqa: E402
from firmware_bridge.pico_emulator.images import FIRMWARE_FILES, build_fs_image  # noqa: E402

FIRST_BYTE_TARGET_MS = 0.5
SLACK_MS = 0.5


def on_wire_end_ns(byte_times: list[int], baudrate: int = BAUDRATE) -> int:
    """When the last of these bytes has left the line, each taking 10 bit times after the one before."""
    per_byte = wire_time_ns(1, baudrate)
    end = 0
    for t in byte_times:
        end = max(t, end) + per_byte
    return end


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 3), "p50": round(statistics.median(values), 3),
            "p99": round(pct(values, 0.99), 3), "max": round(max(values), 3)}


def measure(edges: int, seed: int, fs_image: Path | None = None) -> dict[str, object]:
    rng = random.Random(seed)
    first: list[float] = []
    last: list[float] = []
    written: list[float] = []
    frame_bytes = 0
    with EmulatedPico(fs_image=fs_image) as board:
        board.wait_boot_hello()
        closed = [False] * len(INPUT_PINS)
        for n in range(edges):
            board.step(rng.uniform(1000, 6000))  # the edge lands anywhere in the loop
            board.skip_frames()
            channel = n % len(INPUT_PINS)
            closed[channel] = not closed[channel]
            start = board.now_ns
            (board.close_switch if closed[channel] else board.open_switch)(channel)
            frame = board.next_frame(lambda f: is_msg(f, p.ChangeMsg), within_us=50_000, slice_us=250)
            times = [t for t, _ in board.tx if frame.t_first_ns <= t <= frame.t_last_ns]
            frame_bytes = len(times)
            first.append((frame.t_first_ns - start) / 1e6)
            written.append((frame.t_last_ns - start) / 1e6)
            last.append((on_wire_end_ns(times) - start) / 1e6)
    wire_ms = wire_time_ns(frame_bytes) / 1e6
    result = {
        "edges": edges, "seed": seed, "baudrate": BAUDRATE, "frame_bytes": frame_bytes,
        "frame_wire_ms": round(wire_ms, 3),
        "first_byte_ms": summary(first),
        "last_byte_written_ms": summary(written),
        "last_byte_on_wire_ms": summary(last),
        "targets_ms": {"first_byte_p99": FIRST_BYTE_TARGET_MS, "last_byte_p99": round(wire_ms + SLACK_MS, 3)},
    }
    result["met"] = {"first_byte": pct(first, 0.99) <= FIRST_BYTE_TARGET_MS,
                     "last_byte": pct(last, 0.99) <= wire_ms + SLACK_MS}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=400, help="samples (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--firmware", type=Path, metavar="DIR", help="main.py and gkfw.py from DIR")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if args.edges < 1:
        parser.error("--edges must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        fs_image = None
        if args.firmware is not None:
            missing = [n for n in FIRMWARE_FILES if not (args.firmware / n).is_file()]
            if missing:
                parser.error(f"--firmware: {args.firmware} has no {', '.join(missing)}")
            fs_image = build_fs_image(Path(tmp) / "fs.img",
                                      {n: (args.firmware / n).read_bytes() for n in FIRMWARE_FILES})
        result = measure(args.edges, args.seed, fs_image)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{args.edges} edges, seed {args.seed}, simulated time; a CHANGE is {result['frame_bytes']} bytes, "
          f"{result['frame_wire_ms']} ms on the wire at {BAUDRATE} baud")
    for key, label in (("first_byte_ms", "edge -> first byte written"),
                       ("last_byte_written_ms", "edge -> last byte written"),
                       ("last_byte_on_wire_ms", "edge -> last byte off the wire")):
        s = result[key]
        assert isinstance(s, dict)
        print(f"  {label:32} min {s['min']:.3f}  p50 {s['p50']:.3f}  p99 {s['p99']:.3f}  max {s['max']:.3f} ms")
    targets = result["targets_ms"]
    met = result["met"]
    assert isinstance(targets, dict) and isinstance(met, dict)
    print(f"  targets: first byte p99 <= {targets['first_byte_p99']} ms ({'met' if met['first_byte'] else 'NOT met'}), "
          f"last byte p99 <= {targets['last_byte_p99']} ms ({'met' if met['last_byte'] else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
