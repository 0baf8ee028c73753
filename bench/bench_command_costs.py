"""What the replay and length protections cost, side by side with the same work without them.

* ``seal``: sealing one private view of a Terror game in play, padded to
  ``PAD_VIEW`` (what the controller does) and unpadded (``padded`` with a
  unit of 1 byte, i.e. the text as it is), plus the sizes that go on the wire;
* ``spend``: ``Journal.use_command``, the durable write of a command id the
  worker makes before every command (one SQLite commit, WAL, synchronous=FULL,
  so an fsync), next to an accepted ``act``'s own decision commit.

Usage: ``python bench/bench_command_costs.py [--n N] [--dir PATH]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games import get_game
from controller.protocol import security
from controller.store.journal import Journal


def _views(n: int) -> list[dict[str, Any]]:
    """Private views (player view and legal actions) of seeded Terror games in play."""
    cls = get_game("terror")
    out: list[dict[str, Any]] = []
    seed = 0
    while len(out) < n:
        game, rnd = cls.new(["Ann", "Bo", "Cy", "Dee"], seed), random.Random(seed)
        seed += 1
        for _ in range(200):
            if game.is_over or len(out) >= n:
                break
            seat = rnd.randrange(4)
            out.append({"seq": 1, "seat": seat, "game_id": "g", "view": game.player_view(seat),
                        "legal": [a.to_json() for a in game.legal_actions_for(seat)]})
            game.apply(rnd.choice(game.legal_actions()))
    return out


def _times(fn: Callable[[int], Any], n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _row(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    return f"| {name} | {len(ms)} | {statistics.median(ms):.3f} | {q[98]:.3f} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--dir", default=None, help="where the journal goes (default: a temporary folder)")
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"Python {platform.python_version()}")

    views = _views(args.n)
    real_padded = security.padded

    def seal_unpadded(i: int) -> str:
        security.padded = lambda data, unit: real_padded(data, 1)  # type: ignore[assignment]
        try:
            return security.seal("tok", "t1", views[i]["seat"], views[i])
        finally:
            security.padded = real_padded  # type: ignore[assignment]

    def seal_padded(i: int) -> str:
        security.padded = real_padded  # the same swap as above, so both pay for it
        return security.seal("tok", "t1", views[i]["seat"], views[i])

    plain = [len(json.dumps(v, separators=(",", ":"))) for v in views]
    print(f"views: {len(views)}, JSON {min(plain)} to {max(plain)} bytes; sealed padded: "
          f"{len(seal_padded(0))} base64 characters")
    rows = []
    for _ in range(2):  # alternate, so drift in the machine hits both alike
        rows.append(("seal a view, unpadded", _times(seal_unpadded, len(views))))
        rows.append(("seal a view, padded to 16 KiB", _times(seal_padded, len(views))))
    print("| work | n | p50 ms | p99 ms |\n|---|---|---|---|")
    for name in ("seal a view, unpadded", "seal a view, padded to 16 KiB"):
        print(_row(name, [x for n_, ms in rows if n_ == name for x in ms]))

    with (tempfile.TemporaryDirectory(dir=args.dir) as tmp,
          Journal(Path(tmp) / "bench.journal", table="bench") as journal):
        n = min(args.n, 1000)
        spend = _times(lambda i: journal.use_command(f"c{i}"), n)
        record = _times(lambda i: journal.record("command", {"command_id": f"r{i}"},
                                                 [{"type": "rolled", "data": {"i": i}}]), n)
    print(_row("spend a command id (use_command, fsync)", spend))
    print(_row("an accepted act's decision commit (record, fsync)", record))


if __name__ == "__main__":
    main()
