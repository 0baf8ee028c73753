"""Terror in the Graveyard: legal-move enumeration and ``apply()`` latency.

Target (docs/performance.md): p99 <= 1 ms for each, on the default board.

1. Move search, cold: ``Board.destinations`` for a roll of 6 from every space
   in every one of the 27 tomb configurations, with the destination cache
   emptied before each call. The worst of these is the worst single-pawn case.
2. ``legal_actions()`` in the worst move-phase position found in (1): both of
   the current player's pawns on the two most expensive starts, a roll of 6,
   and a 3-space move card in hand (which enumerates moves for every pawn).
   Measured cold (caches emptied each time) and warm.
3. ``apply()`` for every action of many random games (2 to 4 players), timed
   one call at a time; ``legal_actions()`` over the same positions.

Each call is timed twice: wall clock (``perf_counter``) and the thread's CPU
time (``thread_time``), which leaves out the time another process holds the
core, so a busy shared machine does not hide the engine's own cost. The
garbage collector is paused while timing, as ``timeit`` does. Every
measurement runs in several rounds; the table gives the median round.

Usage: ``.venv/bin/python bench/bench_terror.py [--games N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games.terror import Terror
from controller.games.terror.board import ALL_CONFIGS, load_board

TARGET_MS = 1.0


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Sample = tuple[float, float]  # (wall seconds, thread CPU seconds)


def timed(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> list[Sample]:
    out = []
    for _ in range(repeat):
        if before is not None:
            before()
        w, c = time.perf_counter(), time.thread_time()
        fn()
        out.append((time.perf_counter() - w, time.thread_time() - c))
    return out


def row(name: str, rounds: list[list[Sample]]) -> str:
    """Median over rounds of each round's p50 and p99, in milliseconds."""

    def med(q: float, which: int) -> float:
        return statistics.median(pct([s[which] for s in r], q) for r in rounds) * 1e3

    p99_cpu = med(0.99, 1)
    verdict = "ok" if p99_cpu <= TARGET_MS else "OVER"
    worst = max(s[0] for r in rounds for s in r) * 1e3
    return (
        f"| {name} | {len(rounds)} x {len(rounds[0])} | {med(0.5, 0):.3f} | {med(0.99, 0):.3f} | "
        f"{med(0.5, 1):.3f} | {p99_cpu:.3f} | {worst:.2f} | {verdict} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="random games for the apply() figures")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each measurement (the median is reported)")
    args = parser.parse_args()

    board = load_board()
    walkable = [i for i, t in enumerate(board.static) if t not in (None, "bush", "crypt")]
    starts = [(cfg, s) for cfg in range(ALL_CONFIGS) for s in walkable if board.types(cfg)[s] != "pit"]
    gc.disable()

    # 1. cold move search, every start in every configuration
    def cold_search() -> tuple[list[Sample], dict[int, float]]:
        samples, cost = [], {}
        for cfg, start in starts:
            (sample,) = timed(lambda cfg=cfg, start=start: board.destinations(cfg, start, 6), 1,
                              board._dest_cache.clear)
            samples.append(sample)
            cost[start] = cost.get(start, 0.0) + sample[1]
        return samples, cost

    search_rounds, cost = [], {}
    for _ in range(args.rounds):
        samples, round_cost = cold_search()
        search_rounds.append(samples)
        for start, c in round_cost.items():
            cost[start] = cost.get(start, 0.0) + c
    worst_two = sorted(cost, key=lambda s: cost[s], reverse=True)[:2]

    # 2. legal_actions() in the worst move-phase position
    game = Terror.new(["A", "B", "C", "D"], 1)
    s = game.s
    for k, cell in enumerate(worst_two):
        s.pawns[0][k].pos = cell
    for seat in (1, 2, 3):
        for k in (0, 1):
            s.pawns[seat][k].pos = walkable[(seat * 7 + k * 13) % len(walkable)]
    s.phase, s.number, s.symbol = "move", 6, "wolf"
    pawn_only = [timed(game.legal_actions, 300, board._dest_cache.clear) for _ in range(args.rounds)]
    s.pawns[0][0].cards.append(s.draw.pop(s.draw.index("move-pawn-3")))
    n_actions = len(game.legal_actions())
    legal_cold = [timed(game.legal_actions, 300, board._dest_cache.clear) for _ in range(args.rounds)]
    legal_warm = [timed(game.legal_actions, 1000) for _ in range(args.rounds)]

    # 3. apply() and legal_actions() through random games
    applies: list[list[Sample]] = []
    legals: list[list[Sample]] = []
    for _ in range(args.rounds):
        board._dest_cache.clear()
        a_round: list[Sample] = []
        l_round: list[Sample] = []
        for seed in range(args.games):
            g = Terror.new([f"P{n}" for n in range(2 + seed % 3)], seed)
            pick = random.Random(seed)
            while not g.is_over:
                listed: list = []
                l_round += timed(lambda listed=listed, g=g: listed.extend(g.legal_actions()), 1)
                action = pick.choice(listed)
                a_round += timed(lambda g=g, action=action: g.apply(action), 1)
        applies.append(a_round)
        legals.append(l_round)
    gc.enable()

    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs")
    print(f"worst starts {[board.rc(c) for c in worst_two]}; worst position lists {n_actions} actions")
    print("| measurement | rounds x samples | wall p50 ms | wall p99 ms | CPU p50 ms | CPU p99 ms | wall max ms | CPU "
          "p99 <= 1 ms |")
    print("|---|---|---|---|---|---|---|---|")
    print(row("move search, one pawn, roll 6, cold cache (every start, 27 configurations)", search_rounds))
    print(row("legal_actions(), worst position: two pawns, roll 6, cold cache", pawn_only))
    print(row("same, plus a 3-space move card (moves for all 8 pawns), cold cache", legal_cold))
    print(row("same, warm cache", legal_warm))
    print(row(f"legal_actions(), every position of {args.games} random games", legals))
    print(row(f"apply(), every action of {args.games} random games", applies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
