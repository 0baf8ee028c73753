"""Mutated-frame fuzz run of the serial decoder: at least 1,000,000 frames.

A stream of valid frames (every message type) is built, a share of them is
damaged in random ways (byte substitution, including new 0x00 bytes that cut a
frame in two; deletion; insertion; truncation; junk runs; swapped bytes), and
the stream is fed to ``FrameDecoder`` in random-sized reads. The run checks:

* the decoder never raises;
* every undamaged frame comes out, in order, unchanged (resync at the next 0x00);
* every damaged stretch is counted: bad frames + recovered + undetected == damaged chunks,
  where "recovered" is a damaged frame whose damage only added a 0x00 beside
  an intact frame (the intact part decodes, rightly), and "undetected" is a
  damaged chunk that still passed COBS, CRC-16 and the header and length
  checks (CRC-16 lets through about 1 in 65,536 random corruptions that are
  not short bursts; they are reported, not hidden).

Usage: ``python bench/fuzz_decoder.py [--frames N] [--damage FRACTION] [--seed S]``.
Exit status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import protocol as p
from firmware_bridge.framing import BadFrame, FrameDecoder


def random_message(rng: random.Random, i: int) -> p.Message:
    r = rng.random()
    if r < 0.7:
        return p.ChangeMsg(rng.randrange(64), rng.random() < 0.5, rng.getrandbits(32))
    if r < 0.85:
        return p.HeartbeatMsg(rng.getrandbits(32))
    if r < 0.93:
        return p.SnapshotMsg.from_levels([rng.random() < 0.5 for _ in range(rng.randrange(1, 65))], i)
    if r < 0.96:
        return p.HelloMsg(rng.random() < 0.5, rng.randrange(256), rng.randrange(8), i, "gkfw-1.0.0", f"b{i % 97}")
    if r < 0.98:
        return p.PongMsg(rng.getrandbits(16), i)
    return p.NakMsg(rng.randrange(1, 8), rng.getrandbits(16), rng.randrange(256))


def mutate(rng: random.Random, body: bytes) -> bytes:
    """Damage an encoded frame (without its delimiter); the result is never equal to the input."""
    data = bytearray(body)
    kind = rng.randrange(6)
    if kind == 0:  # one substituted byte, possibly 0x00
        i = rng.randrange(len(data))
        data[i] = (data[i] + rng.randrange(1, 256)) % 256
    elif kind == 1 and len(data) > 1:  # a lost byte
        del data[rng.randrange(len(data))]
    elif kind == 2:  # an extra byte
        data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
    elif kind == 3 and len(data) > 1:  # cut short
        del data[rng.randrange(1, len(data)):]
    elif kind == 4:  # a run of line noise
        i = rng.randrange(len(data) + 1)
        data[i:i] = rng.randbytes(rng.randrange(1, 40))
    else:  # several substitutions
        for _ in range(rng.randrange(2, 6)):
            i = rng.randrange(len(data))
            data[i] = (data[i] + rng.randrange(1, 256)) % 256
    if bytes(data) == body:
        data.append(0x55)
    return bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--damage", type=float, default=0.2, help="share of frames damaged (default 0.2)")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()

    parts: list[bytes] = []
    originals: list[tuple[p.Frame, bool]] = []  # every frame sent, and whether it was damaged
    damaged_chunks = 0
    damaged_frames = 0
    for i in range(args.frames):
        seq = i % p.SEQ_MOD
        msg = random_message(rng, i)
        encoded = p.encode(msg, seq)
        if rng.random() < args.damage:
            bad = mutate(rng, encoded[:-1])
            damaged_frames += 1
            damaged_chunks += sum(1 for c in bad.split(b"\x00") if c)
            parts.append(bad + b"\x00")
            originals.append((p.Frame(seq, msg), True))
        else:
            originals.append((p.Frame(seq, msg), False))
            parts.append(encoded)
    stream = b"\x00" + b"".join(parts)
    built = time.perf_counter()

    dec = FrameDecoder()
    decoded: list[p.Frame] = []
    bad_seen = 0
    pos = 0
    while pos < len(stream):
        n = rng.choice((1, 7, 64, 300, 4096))
        for item in dec.feed(stream[pos:pos + n]):
            if isinstance(item, BadFrame):
                bad_seen += 1
            else:
                decoded.append(item)
        pos += n
    decode_s = time.perf_counter() - built

    # Walk the decoded frames against what was sent. A decoded frame is the next
    # undamaged one, or an intact frame inside damaged bytes (recovered), or
    # garbage that passed every check (undetected). Undamaged frames are never skipped.
    def same(a: p.Frame, b: p.Frame) -> bool:
        return a.seq == b.seq and type(a.message) is type(b.message) and a.message == b.message

    k = 0
    undetected = recovered = 0
    undetected_examples: list[str] = []
    for frame in decoded:
        j = k
        while j < len(originals) and originals[j][1] and not same(frame, originals[j][0]):
            j += 1
        if j < len(originals) and same(frame, originals[j][0]):
            if originals[j][1]:
                recovered += 1
            k = j + 1
        else:
            undetected += 1
            if len(undetected_examples) < 3:
                nxt = originals[k][0].seq if k < len(originals) else None
                undetected_examples.append(f"{frame} (the next seq expected was {nxt})")
    missing = sum(1 for _, damaged in originals[k:] if not damaged)
    c = dec.counters
    checks = {
        "every undamaged frame decoded, in order": missing == 0,
        "bad frames reported == counted": bad_seen == c["bad_frames"],
        "bad + recovered + undetected == damaged chunks": c["bad_frames"] + recovered + undetected == damaged_chunks,
        "nothing left half-read": dec.pending == 0,
    }
    print(f"frames: {args.frames:,} ({damaged_frames:,} damaged into {damaged_chunks:,} chunks), "
          f"stream {len(stream):,} bytes, seed {args.seed}")
    print(f"decoded ok: {c['frames_ok']:,}; bad frames: {c['bad_frames']:,} "
          f"(crc {c['crc_errors']:,}, cobs {c['cobs_errors']:,}, malformed {c['malformed']:,}, "
          f"unknown type {c['unknown_type']:,}, version {c['version_errors']:,}, oversize {c['oversize']:,})")
    print(f"recovered intact frames inside damaged bytes: {recovered}")
    print(f"undetected damaged chunks: {undetected} ({undetected / max(damaged_chunks, 1):.2e} of damaged)")
    for example in undetected_examples:
        print(f"  undetected: {example}")
    print(f"build {built - start:.1f} s, decode {decode_s:.1f} s ({args.frames / decode_s:,.0f} frames/s)")
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}: {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
