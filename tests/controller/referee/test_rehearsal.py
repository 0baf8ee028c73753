"""``Referee.rehearse`` (just before a sensor window closes) changes nothing the referee decides.

Two referees of the same table take the same random readings; one rehearses before each.
Their events, states and journals must be the same, and a rehearsal alone changes nothing.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.referee.live import Referee
from controller.store.journal import Journal
from hardware.observation import Observation, sensor_values
from tests.controller.referee.test_fakegame import (
    REST,
    Clock,
    make_config,
    make_referee,
)


def _referee(where: Path, clock: Clock) -> Referee:
    """A grace of 0 ms (every mismatch is reported in the observation's own commit, as on the bench),
    and a wall clock that moves with ``clock``, so the two tables stamp the same times."""
    config = make_config(where, {"referee.mismatch_grace_ms": 0})
    return Referee(Journal(config.journal.path, table=config.table.id), config, clock=clock,
                   wall_clock=lambda: 1.7e9 + clock())


def _snapshot(ref: Referee) -> tuple[Any, ...]:
    with sqlite3.connect(ref.journal.path) as db:
        rows = db.execute("SELECT kind, payload FROM inputs ORDER BY id").fetchall()
    game = ref.game
    return (json.dumps(ref.core.board_state(), sort_keys=True),
            json.dumps(game.to_json() if game is not None else None, sort_keys=True),
            json.dumps(ref.state(), sort_keys=True, default=str), ref.next_deadline(), ref.journal.last_seq(), rows)


def _key(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], json.dumps(e["data"], sort_keys=True)) for e in events]


@pytest.mark.parametrize("game", ["terror", "superstition"])
def test_random_readings_decide_the_same_with_or_without_rehearsals(tmp_path: Path, game: str) -> None:
    clocks = [Clock(), Clock()]
    refs = [_referee(tmp_path / name, clock) for name, clock in (("a", clocks[0]), ("b", clocks[1]))]
    for ref in refs:
        assert ref.reconcile(REST).ok
        out = ref.new_game(game, ["Ann", "Bo"], seed=11)
        assert out.ok, out.error
    rng = random.Random(5)
    sensors = sorted(REST)
    decided = 0
    for step in range(120):
        sensor = rng.choice(sensors)
        value = rng.choice(sorted(sensor_values(sensor)))
        ms = rng.choice([0, 5, 50, 400, 2500])
        outs = []
        for i, (ref, clock) in enumerate(zip(refs, clocks, strict=False)):
            clock.advance(ms)
            if i == 0:
                before = _snapshot(ref)
                ref.rehearse()
                assert _snapshot(ref) == before, f"step {step}: the rehearsal changed the referee"
            now = clock()
            outs.append(ref.observe(Observation(sensor, value, first_edge=now, settled=now, source="sim")))
            while (tick := ref.tick()) is not None and tick.ok:
                outs[-1].events.extend(tick.events)
        assert outs[0].ok == outs[1].ok and outs[0].error == outs[1].error, step
        assert _key(outs[0].events) == _key(outs[1].events), f"step {step}: {sensor} -> {value}"
        decided += len(outs[0].events)
    assert _snapshot(refs[0])[:2] == _snapshot(refs[1])[:2]  # the state also names each its own game id
    assert refs[0].journal.last_seq() == refs[1].journal.last_seq()
    assert decided >= 20  # the readings did make the referee decide (fouls, recoveries, moves)


def test_a_rehearsal_in_the_middle_of_a_grace_changes_nothing(tmp_path: Path) -> None:
    clock = Clock()
    ref = make_referee(tmp_path, clock)  # a 300 ms grace for a reading nothing explains
    assert ref.reconcile(REST).ok
    assert ref.new_game("terror", ["Ann", "Bo"], seed=3).ok
    now = clock()
    assert ref.observe(Observation("launcher", "launched", first_edge=now, settled=now, source="sim")).ok
    pending = _snapshot(ref)
    assert pending[3] is not None  # the grace's deadline is pending
    ref.rehearse()
    assert _snapshot(ref) == pending
