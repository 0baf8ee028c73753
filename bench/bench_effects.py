"""Effects never slow the referee: decision latency with effects on, divided by effects off.

Plays the same seeded games through two referees, side by side in rounds
(off, on, off, on, ...), as ``bench_referee.py`` does. "On" notes every
decision's events as the service does and, after the decision (as the
service's worker does once they are published), hands them to a real
:class:`~controller.effects.engine.EffectsPlayer`
with the game's shipped pack: its thread matches rules, fills the spoken
lines, encodes the cues as the MQTT payload would be and runs light patterns
on a pattern player, competing with the decisions for the interpreter as it
does in the controller. "Off" has no player. Each decision is timed on its
own; the target is p99(on) / p99(off) <= 1.05.

Usage: ``python bench/bench_effects.py [--rounds N] [--decisions N] [--journal]``
(``--journal`` also commits each decision to SQLite with synchronous=FULL).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_referee import Timed, pct, play

from controller.config import load_config
from controller.effects.engine import EffectsPlayer, load_effects
from controller.referee.live import Referee
from controller.store.journal import Journal
from hardware.patterns import Pattern, PatternPlayer

TARGET = 1.05


class PacedTimed(Timed):
    """Decisions ``pace_s`` apart, as a table makes them (the gap is not timed); 0: back to back.

    ``after`` runs after each timed decision, untimed: the service's worker handing the decided
    events to the effects player once they are published (``TableEffects.hand_over``).
    """

    def __init__(self, ref: Referee, core_only: bool, pace_s: float) -> None:
        super().__init__(ref, core_only)
        self.pace_s = pace_s
        self.after: Any = None

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        out = super().call(fn, *args, **kwargs)
        if self.after is not None:
            self.after()
        if self.pace_s:
            time.sleep(self.pace_s)
        return out


def one_round(game: str, decisions: int, seed: int, effects: bool, journal: bool, folder: Path,
              pace_s: float) -> tuple[Timed, int]:
    path = folder / f"{game}-{seed}-{'on' if effects else 'off'}.journal"
    config = load_config(overrides={"journal.path": str(path), "table.token": "bench"})
    clock = [0.0]
    sent = [0]
    with Journal(path, table="bench") as j:
        ref = Referee(j, config, clock=lambda: clock[0])
        timed = PacedTimed(ref, core_only=not journal, pace_s=pace_s)
        player: EffectsPlayer | None = None
        lamps: PatternPlayer | None = None
        if effects:
            pack, _ = load_effects(game, None)
            lamps = PatternPlayer(lambda name, level: None, dimmable=lambda name: True)

            def publish(body: dict[str, Any]) -> None:
                json.dumps(body, sort_keys=True).encode()  # what the link would send
                sent[0] += 1

            def lights(output: str, cue: Any) -> None:
                assert lamps is not None
                lamps.play(output, Pattern(cue["pattern"], cue.get("ms", 1000), cue.get("period_ms", 400)))

            player = EffectsPlayer("bench", effects=lambda: pack, players=lambda: ["Ann", "Bo", "Cy"],
                                   publish=publish, lights=lights, clock=lambda: 0.0)
            player.start()
            # As in the service (controller/service/effects.py): the decision only notes its events;
            # the worker offers them to the player after publishing, outside the decision.
            pending: list[dict[str, Any]] = []
            ref.on_events = pending.extend

            def hand_over() -> None:
                if pending:
                    events = pending[:]
                    pending.clear()
                    assert player is not None
                    player.offer(events)

            timed.after = hand_over
        try:
            play(ref, clock, timed, game, decisions, seed=seed)
            if player is not None:
                player.drain(10)
        finally:
            if player is not None:
                player.close()
            if lamps is not None:
                lamps.close()
    return timed, sent[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--games", nargs="+", default=["terror", "superstition"])
    parser.add_argument("--journal", action="store_true", help="commit each decision (SQLite, FULL)")
    parser.add_argument("--pace-ms", type=float, nargs="+", default=[20.0, 0.0],
                        help="gaps between decisions to measure (default: 20 ms, faster than any table; "
                             "0, back to back: a stress case with no target)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-effects-"))
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, {'journal on disk (FULL)' if args.journal else 'journal stubbed'}")
    print(f"# load average before: {os.getloadavg()[0]:.2f}")
    print("| game | gap ms | n (each) | p50 off ms | p50 on ms | p99 off ms | p99 on ms | p99 on / off "
          "| p50 on / off | cues published |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for pace in args.pace_ms:
        for game in args.games:
            off: list[float] = []
            on: list[float] = []
            cues = 0
            for r in range(args.rounds):
                seed = 1000 + r
                order = (False, True) if r % 2 == 0 else (True, False)  # neither always goes first
                for effects in order:
                    timed, sent = one_round(game, args.decisions, seed, effects, args.journal, folder, pace / 1000)
                    (on if effects else off).extend(timed.samples)
                    cues += sent
            ratio99 = pct(on, 0.99) / pct(off, 0.99)
            ratio50 = statistics.median(on) / statistics.median(off)
            if pace > 0:
                worst = max(worst, ratio99)
            print(f"| {game} | {pace:g} | {len(off)} | {statistics.median(off):.3f} | {statistics.median(on):.3f} | "
                  f"{pct(off, 0.99):.3f} | {pct(on, 0.99):.3f} | {ratio99:.3f} | {ratio50:.3f} | {cues} |")
    print(f"# load average after: {os.getloadavg()[0]:.2f}")
    print(f"# worst p99 ratio at a table's pace {worst:.3f} (target <= {TARGET})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
