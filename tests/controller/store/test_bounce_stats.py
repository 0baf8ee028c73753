"""Bounce counts are journalled per game and the history's sensor table sums them across games and restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.service.service import Service
from controller.store.bounce_ledger import BounceLedger, bounce_counts
from controller.store.journal import Journal
from tests.support.broker import Broker
from tests.support.mqtt import Commander
from tests.support.service import BASE, TOKEN, MakeService


class FakeHub:
    """Just the hub's ``health()``: per sensor, per input, the debouncer's bounce counter."""

    def __init__(self) -> None:
        self.bounces: dict[str, int] = {}

    def health(self) -> dict[str, Any]:
        return {"sensors": {s: {"inputs": {"closed": {"bounces": n, "edges": n + 1}}} for s, n in self.bounces.items()}}


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_the_ledger_writes_what_is_new_against_the_running_game(tmp_path: Path) -> None:
    hub, clock = FakeHub(), Clock()
    ledger = BounceLedger(every_s=60, clock=clock)
    with Journal(tmp_path / "j", table="t1") as journal:
        hub.bounces = {"tomb.wolf": 3, "launcher": 0}
        assert ledger.maybe_flush(hub, journal, "g1") == 0  # not due yet: nothing read, nothing written
        clock.t = 61
        assert ledger.maybe_flush(hub, journal, "g1") == 3
        hub.bounces = {"tomb.wolf": 5, "launcher": 1}
        ledger.due = True  # after a mismatch
        assert ledger.maybe_flush(hub, journal, "g1") == 3
        hub.bounces["tomb.wolf"] = 9
        assert ledger.flush(hub, journal, "g2") == 4  # a new game: the rest is the new game's
        hub.bounces = {"tomb.wolf": 2}  # a new hub: its counters started again, all of them new
        assert ledger.flush(hub, journal, "g2") == 2
        assert ledger.flush(hub, journal, "g2") == 0
        assert journal.sensor_counts() == [("g1", "launcher", 1), ("g1", "tomb.wolf", 5), ("g2", "tomb.wolf", 6)]


def test_a_failed_write_is_tried_again(tmp_path: Path) -> None:
    hub = FakeHub()
    ledger = BounceLedger()
    journal = Journal(tmp_path / "j", table="t1")
    hub.bounces = {"tomb.wolf": 4}
    journal.close()
    with pytest.raises(ValueError, match="closed"):
        ledger.flush(hub, journal, "g1")
    with Journal(tmp_path / "j", table="t1") as again:
        assert ledger.flush(hub, again, "g1") == 4
        assert again.sensor_counts() == [("g1", "tomb.wolf", 4)]


def test_bounce_counts_sum_a_sensors_inputs_and_ignore_junk() -> None:
    health = {"sensors": {"tomb.wolf": {"inputs": {"end_a": {"bounces": 2}, "end_b": {"bounces": 3},
                                                   "mid": {"bounces": True}, "x": "junk"}},
                          "launcher": {"inputs": None}}}
    assert bounce_counts(health) == {"tomb.wolf": 5, "launcher": 0}


def bounce(svc: Service, sensor: str, *values: str) -> None:
    """Move a simulated sensor through ``values`` with a contact bounce on every move."""
    for value in values:
        svc.hub.simulate(sensor, value, bounce_ms=6)
        assert svc.hub.sync(), "the hub did not take the burst in time"


def counted(svc: Service) -> dict[str, int]:
    return bounce_counts(svc.hub.health())


def test_bounces_of_two_games_across_a_restart_are_in_the_history_in_words(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "gm-bounces"
    svc = make_service(t, **{"table.game": "terror"})
    game1 = svc.referee.game_id
    bounce(svc, "trap.mirror.sprung", "sprung", "cocked")
    first = counted(svc)["trap.mirror.sprung"]
    assert first >= 2
    svc.stop()  # the counts so far go in the journal as the service stops
    svc = make_service(t, **{"table.game": "terror"})
    assert counted(svc)["trap.mirror.sprung"] == 0  # a new hub counts from nothing
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        cmd.ok("new_game", {"game": "terror", "players": ["Ann", "Bo"]})
        game2 = svc.referee.game_id
        assert game2 != game1
        bounce(svc, "trap.mirror.sprung", "sprung", "cocked")
        bounce(svc, "trap.ladder.peg_a", "pulled", "in")
        second, peg = counted(svc)["trap.mirror.sprung"], counted(svc)["trap.ladder.peg_a"]
        reply = cmd.call("history", {"op": "sensors"})  # flushed before the answer: up to now
        assert reply["ok"] is True, reply
    finally:
        cmd.close()
    rows = {r["sensor"]: r for r in reply["data"]["sensors"]}
    mirror, ladder = rows["trap.mirror.sprung"], rows["trap.ladder.peg_a"]
    assert mirror["label"] == "the Mirror trap" and ladder["label"] == "peg A of the Ladder trap"
    assert mirror["bounces"] == first + second and mirror["bounce_games"] == 2
    assert ladder["bounces"] == peg and ladder["bounce_games"] == 1
    svc.stop()
    with Journal(svc.config.journal.path, table=t, create=False) as journal:
        per_game = journal.sensor_counts()
    assert (game1, "trap.mirror.sprung", first) in per_game and (game2, "trap.mirror.sprung", second) in per_game
    assert (game2, "trap.ladder.peg_a", peg) in per_game
