"""Random play through the referee: the journal always restores and replays it exactly."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.games.base import Action
from controller.referee.guidance import describe
from controller.referee.live import Referee
from controller.referee.replay import replay
from hardware.observation import ALL_SENSORS, sensor_values
from tests.controller.referee.test_fakegame import REST, Clock, make_referee, obs

SENSORS = sorted(REST)
step = st.one_of(
    st.tuples(st.just("obs"), st.sampled_from(SENSORS), st.integers(0, 4)),
    st.tuples(st.just("act"), st.integers(0, 20), st.booleans()),
    st.tuples(st.just("tick"), st.sampled_from([100, 300, 1000, 2500]), st.booleans()),
    st.tuples(st.just("board"), st.sampled_from([0]), st.booleans()),  # a careful player: do what is expected
    st.tuples(st.just("board"), st.sampled_from([1]), st.booleans()),
    st.tuples(st.just("fix"), st.sampled_from([0]), st.booleans()),  # put a wrong part back
)


def expected_move(ref: Referee) -> tuple[str, str] | None:
    """A sensor change the game is waiting for now, if any."""
    for exp in ref.state()["expects"]:
        for sensor, values in sorted(exp["accepts"].items()):
            return sensor, sorted(values)[0]
        for sensor, value in sorted(exp["requires"].items()):
            if ref.core.sensors.get(sensor) != value:
                return sensor, value
    return None


def core_state(ref: Referee) -> dict[str, Any]:
    core = ref.core
    return {
        "game": core.game.to_json() if core.game else None,
        "sensors": dict(core.sensors),
        "mismatch": core.mismatch,
        "pending": core.pending,
        "seq": ref.journal.last_seq(),
    }


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=10, max_size=40), st.integers(0, 1000))
def test_any_play_restores_identically_and_verifies(steps: list[tuple[Any, Any, Any]], seed: int) -> None:
    # tmpfs when there is one: fsync there is free, and this test is about logic, not disks
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as tmp:
        clock = Clock()
        ref = make_referee(Path(tmp), clock)
        ref.reconcile(REST)
        ref.new_game("fakeboard", ["Ann", "Bo"], seed=seed)
        for kind, a, b in steps:
            if kind == "obs":
                values = sensor_values(a)
                ref.observe(obs(a, values[b % len(values)]))
            elif kind == "act":
                # mostly what the panel offers; sometimes any seat's legal action, refused ones too
                offered = [Action.from_json(x) for x in ref.state()["legal"]]
                legal = offered if (b or not ref.game) else ref.game.legal_actions()
                if legal:
                    ref.act(legal[a % len(legal)], command_id=f"c{a}" if a % 3 == 0 else None)
            elif kind == "fix":
                if ref.mismatch is not None:
                    sensor, want = next(iter(ref.mismatch["sensors"].items()))
                    if want["expected"] is not None:
                        ref.observe(obs(sensor, want["expected"]))
            elif kind == "tick":
                clock.advance(a)
                ref.tick()
            else:
                move = expected_move(ref)
                if move is not None:
                    ref.observe(obs(*move))
        before = core_state(ref)
        events = ref.journal.events_after(0)
        for kind in sorted({e["type"] for e in events} & {"mismatch", "mismatch_cleared", "trap_result", "tomb_moved"}):
            event(f"reached {kind}")
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert all(e["type"] != "peeked" or "secret" not in e for e in events)
        ref.journal.close()

        again = make_referee(Path(tmp), Clock())
        assert core_state(again) == before
        divergences = [s.divergence for s in replay(again.journal) if s.divergence]
        assert divergences == []
        again.journal.close()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ALL_SENSORS), min_size=1, max_size=5, unique=True),
    st.data(),
    st.booleans(),
)
def test_every_mismatch_has_words(sensors: list[str], data: st.DataObject, setup: bool) -> None:
    """Whatever the board shows, a mismatch says what is wrong and what to do, in sentences."""
    unexplained: dict[str, tuple[str | None, str]] = {}
    for sensor in sensors:
        values = sensor_values(sensor)
        want = data.draw(st.one_of(st.none(), st.sampled_from(values)))
        have = data.draw(st.sampled_from([v for v in values if v != want]))
        unexplained[sensor] = (want, have)
    readings = {s: have for s, (_, have) in unexplained.items()}
    found = describe(unexplained, readings, [], setup=setup)
    assert found["code"] and found["sensors"].keys() == unexplained.keys()
    for text in (found["message"], found["guidance"]):
        assert text and text[0].isupper() and text.endswith(".") and "None" not in text and "_" not in text
