"""Graveyard Dogs: legal-action enumeration and ``apply()`` latency.

Target (docs/performance.md): p99 <= 1 ms for each, worst realistic cases.

1. Worst positions on a full graveyard (all 16 tiles down), each timed many
   times, "cold" (the graveyard geometry rebuilt before every call, as after
   loading a saved game) and "warm" (geometry cached, as in a running game):
   placing the 16th tile next to a sprawling graveyard (the most placements
   found in the random games), a bat's Spook Action with a 6 in the middle of
   the 4x4 square graveyard (the most destinations: it may move diagonally),
   a dog's 6, a Bork with every token in range, and the matching ``apply()``.
2. ``apply()`` and ``legal_actions()`` at every step of many random games
   (2 to 4 players), timed one call at a time.

Each call is timed by the wall clock and by this thread's CPU time: on a
shared machine a preemption adds whole scheduler slices (4 ms) to the wall
time of an unlucky call, which the CPU column leaves out.

Usage: ``.venv/bin/python bench/bench_dogs.py [--games N]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games.base import Action
from controller.games.dogs import DogsGame
from controller.games.dogs.game import _act
from controller.games.dogs.state import Placement, Spook

TARGET_MS = 1.0


Sample = tuple[float, float]  # (wall seconds, this thread's CPU seconds)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, samples: list[Sample]) -> str:
    wall = [w * 1e3 for w, _ in samples]
    cpu = [c * 1e3 for _, c in samples]
    p99 = pct(wall, 0.99)
    verdict = "ok" if p99 <= TARGET_MS else ("ok on CPU" if pct(cpu, 0.99) <= TARGET_MS else "OVER")
    return (f"| {name} | {len(wall)} | {pct(wall, 0.5):.3f} | {p99:.3f} | {max(wall):.3f} | "
            f"{pct(cpu, 0.5):.3f} | {pct(cpu, 0.99):.3f} | {verdict} |")


def clock() -> Sample:
    return time.perf_counter(), time.thread_time()


def since(start: Sample) -> Sample:
    return time.perf_counter() - start[0], time.thread_time() - start[1]


def timed(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> list[Sample]:
    out = []
    for _ in range(repeat):
        if before is not None:
            before()
        t = clock()
        fn()
        out.append(since(t))
    return out


def square_graveyard(players: int = 4) -> DogsGame:
    """All 16 tiles as a 4x4 square, snacks and spooks where the tiles put them."""
    game = DogsGame.new([f"P{i}" for i in range(players)], 7)
    st = game.st
    st.deck, st.drawn = [], None
    st.placed = [Placement(t.id, 3 * (i % 4), 3 * (i // 4), 0) for i, t in enumerate(st.tiles)]
    st.board_snacks, st.spooks = {}, []
    for sq, ch in sorted(game.geo.features.items()):
        if ch == "J":
            st.board_snacks[sq] = [st.tin.pop(0)]
        elif ch == "G":
            st.spooks.append(Spook(len(st.spooks), st.pool.pop(0), sq))
    dogs: list[tuple[int, int] | None] = [(5, 5), (6, 6), (4, 6), (6, 4)]
    st.dogs = dogs[:players]
    st.phase, st.seat, st.turn, st.setup_left = "roll", 0, 1, 0
    return game


def random_games(games: int) -> tuple[list[Sample], list[Sample], list[Sample], list[Sample], DogsGame | None]:
    """Timings over random games, and the position before a 16th tile with the most placements."""
    applies: list[Sample] = []
    legals: list[Sample] = []
    full_applies: list[Sample] = []
    full_legals: list[Sample] = []
    widest: DogsGame | None = None
    widest_n = 0
    for seed in range(games):
        game = DogsGame.new([f"P{n}" for n in range(2 + seed % 3)], seed)
        pick = random.Random(seed)
        for _ in range(1500):
            if game.is_over:
                break
            full = len(game.st.placed) == 16
            t = clock()
            actions = game.legal_actions()
            dt = since(t)
            legals.append(dt)
            if full:
                full_legals.append(dt)
            if len(game.st.placed) == 15 and game.st.phase == "place_tile" and len(actions) > widest_n:
                widest, widest_n = DogsGame.from_json(game.to_json()), len(actions)
            moves = [a for a in actions if a.kind != "back"] or actions
            action = pick.choice(moves)
            t = clock()
            game.apply(action)
            dt = since(t)
            applies.append(dt)
            if full:
                full_applies.append(dt)
    return applies, legals, full_applies, full_legals, widest


def cold_and_warm(game: DogsGame, repeat: int) -> tuple[list[Sample], list[Sample]]:
    def drop() -> None:
        game._geo = None

    cold = timed(game.legal_actions, repeat, drop)
    game.geo  # noqa: B018 - warm the cache
    warm = timed(game.legal_actions, repeat)
    return cold, warm


def apply_each(game: DogsGame, action: Action, repeat: int, warm: bool) -> list[Sample]:
    snapshot = game.to_json()
    copies = [DogsGame.from_json(snapshot) for _ in range(repeat)]
    out = []
    for copy in copies:
        if warm:
            copy.geo  # noqa: B018
        t = clock()
        copy.apply(action)
        out.append(since(t))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="random games for the whole-game figures")
    parser.add_argument("--repeat", type=int, default=1000, help="samples for each worst position")
    args = parser.parse_args()
    rows: list[str] = []

    applies, legals, full_applies, full_legals, widest = random_games(args.games)
    assert widest is not None
    place_actions = widest.legal_actions()
    cold, warm = cold_and_warm(widest, args.repeat)
    rows.append(row(f"legal_actions(), 16th tile, {len(place_actions)} placements, cold", cold))
    rows.append(row(f"legal_actions(), 16th tile, {len(place_actions)} placements, warm", warm))
    last = place_actions[len(place_actions) // 2]
    rows.append(row("apply(place_tile), 16th tile, cold", apply_each(widest, last, args.repeat, warm=False)))
    rows.append(row("apply(place_tile), 16th tile, warm", apply_each(widest, last, args.repeat, warm=True)))

    # a bat in the middle, with a 6: the largest set of destinations
    game = square_graveyard()
    bat = next(s for s in game.st.spooks if s.kind == "bat")
    bat.pos = (5, 6)
    game.st.dice, game.st.phase, game.st.slots, game.st.dice_use = [6, 6], "act", ["dog"], ["spook", None]
    game.st.tasks = [{"t": "move_spook", "die": 0, "spook": bat.id}]
    n = len(game.legal_actions())
    cold, warm = cold_and_warm(game, args.repeat)
    rows.append(row(f"legal_actions(), bat Spook Action with a 6, {n} actions, cold", cold))
    rows.append(row(f"legal_actions(), bat Spook Action with a 6, {n} actions, warm", warm))
    onto_dogs = Action("move_spook", 0, {"x": 6, "y": 6})
    rows.append(row("apply(move_spook) onto a dog: Concern and Haunt, cold",
                    apply_each(game, onto_dogs, args.repeat, warm=False)))

    # a dog with a 6 in the middle
    game = square_graveyard()
    game.st.dice, game.st.phase, game.st.slots, game.st.dice_use = [6, 5], "act", ["spook"], ["dog", None]
    game.st.tasks = [{"t": "move_dog", "die": 0}]
    n = len(game.legal_actions())
    cold, warm = cold_and_warm(game, args.repeat)
    rows.append(row(f"legal_actions(), Dog Action with a 6, {n} actions, cold", cold))
    rows.append(row(f"legal_actions(), Dog Action with a 6, {n} actions, warm", warm))

    # Bork from the middle with every token within three squares
    game = square_graveyard()
    for k, spook in enumerate(game.st.spooks):
        spook.pos = [(3, 5), (4, 4), (5, 3), (7, 5), (6, 4), (5, 7), (4, 6), (6, 6)][k]
    game.st.dogs = [(5, 5), (5, 4), (4, 5), (5, 6)]
    game.st.board_snacks.pop((5, 5), None)
    game.st.dice, game.st.phase, game.st.slots, game.st.dice_use = [2, 5], "act", ["spook"], ["dog", None]
    game.st.tasks = [{"t": "special"}]
    n = len(game.legal_actions())
    cold, warm = cold_and_warm(game, args.repeat)
    rows.append(row(f"legal_actions(), Bork with 11 tokens in range, {n} actions, cold", cold))
    rows.append(row(f"legal_actions(), Bork with 11 tokens in range, {n} actions, warm", warm))
    bork = next(a for a in game.legal_actions() if a.kind == "bork" and a.params["token"] == "spook")
    rows.append(row("apply(bork) a spook, then Haunt and the Bork roll, cold",
                    apply_each(game, bork, args.repeat, warm=False)))

    params = {"rotation": 1, "x": 3, "y": -2}
    rows.append(row("one Action(...) as a caller builds it (JSON-canonicalised)",
                    timed(lambda: Action("place_tile", 0, params), args.repeat * 10)))
    rows.append(row("one action as the engine builds it",
                    timed(lambda: _act("place_tile", 0, params), args.repeat * 10)))

    rows.append(row(f"legal_actions(), {args.games} random games, every step", legals))
    rows.append(row(f"apply(), {args.games} random games, every step", applies))
    rows.append(row(f"legal_actions(), {args.games} random games, full graveyard only", full_legals))
    rows.append(row(f"apply(), {args.games} random games, full graveyard only", full_applies))

    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print("| measurement | samples | p50 ms | p99 ms | max ms | CPU p50 ms | CPU p99 ms | p99 <= 1 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for line in rows:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
