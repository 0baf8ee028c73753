"""Serial decode throughput against the frame rate of a 1 Mbaud line.

The host must decode far faster than the wire can deliver, so that a burst of
edges never backs up behind the decoder. A UART byte is 10 bits on the wire
(start, 8 data, stop), so 1 Mbaud carries 100,000 bytes/s; the line's frame
rate is that divided by the average encoded frame length of the stream.

Each case feeds a prepared stream through ``FrameDecoder.feed`` in chunks the
size ``read(in_waiting or 1)`` returns at that rate. The machines here are
shared, so a case is many short runs (a few milliseconds each, short enough to
fit between other processes' time slices) timed by the wall clock, and the
verdict uses the best run, as ``timeit`` does: interference only ever slows a
run down. The median run is shown beside it.
Usage: ``python bench/bench_decode.py [--frames N] [--runs R]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import protocol as p
from firmware_bridge.framing import FrameDecoder

LINE_BYTES_PER_S = 1_000_000 / 10
TARGET = 50.0


def change_stream(n: int) -> bytes:
    rng = random.Random(1)
    return b"".join(p.encode(p.ChangeMsg(rng.randrange(32), rng.random() < 0.5, i * 137), i) for i in range(n))


def mixed_stream(n: int) -> bytes:
    """Mostly CHANGE, with a HEARTBEAT every 20 frames and a 32-channel SNAPSHOT every 100."""
    rng = random.Random(2)
    out = []
    for i in range(n):
        if i % 100 == 99:
            msg: p.Message = p.SnapshotMsg.from_levels([rng.random() < 0.5 for _ in range(32)], i * 137)
        elif i % 20 == 19:
            msg = p.HeartbeatMsg(i * 137)
        else:
            msg = p.ChangeMsg(rng.randrange(32), rng.random() < 0.5, i * 137)
        out.append(p.encode(msg, i))
    return b"".join(out)


def measure(stream: bytes, frames: int, chunk: int, runs: int) -> tuple[float, float]:
    """(best, median) decoded frames per wall-clock second over ``runs`` runs."""
    chunks = [stream[i:i + chunk] for i in range(0, len(stream), chunk)]
    rates = []
    for _ in range(runs):
        dec = FrameDecoder()
        start = time.perf_counter()
        for c in chunks:
            dec.feed(c)
        elapsed = time.perf_counter() - start
        if dec.counters["frames_ok"] != frames or dec.counters["bad_frames"]:
            raise SystemExit(f"decode error: {dec.counters}")
        rates.append(frames / elapsed)
    return max(rates), statistics.median(rates)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=10_000, help="frames per run (default 10000)")
    parser.add_argument("--runs", type=int, default=100, help="runs per case (default 100)")
    args = parser.parse_args()
    print(f"# serial decode, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"Python {platform.python_version()} on {platform.machine()}, {args.frames} frames x {args.runs} runs")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print("| stream | bytes/frame | line frames/s at 1 Mbaud | read size | decoded frames/s (best run) | ratio "
          "| decoded frames/s (median run) | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = float("inf")
    for name, build in (("CHANGE only", change_stream), ("mixed", mixed_stream)):
        stream = build(args.frames)
        per_frame = len(stream) / args.frames
        line_rate = LINE_BYTES_PER_S / per_frame
        for chunk in (64, 1024):
            best, median = measure(stream, args.frames, chunk, args.runs)
            ratio = best / line_rate
            worst = min(worst, ratio)
            print(f"| {name} | {per_frame:.1f} | {line_rate:,.0f} | {chunk} B | {best:,.0f} | {ratio:.0f}x "
                  f"| {median:,.0f} | {median / line_rate:.0f}x |")
    verdict = "meets" if worst >= TARGET else "MISSES"
    print(f"\nworst ratio {worst:.0f}x: {verdict} the {TARGET:.0f}x target")
    return 0 if worst >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
