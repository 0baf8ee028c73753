"""The service-side self-test on a simulated hub of its own: payloads, skipping by name, holding moves back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from hardware.config import load_hardware_config
from hardware.hub import SensorHub
from hardware.observation import Observation
from hardware.selftest import observed, run_for_service
from hardware.selftest.report import validate_report
from tests.hardware.selftest.test_faults import GPIO_BOARD


class Published:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.cond = threading.Condition()

    def __call__(self, report: Any) -> None:
        with self.cond:
            self.items.append(dict(report))
            self.cond.notify_all()

    def wait_done(self, timeout: float = 20.0) -> dict[str, Any]:
        with self.cond:
            assert self.cond.wait_for(lambda: bool(self.items) and self.items[-1]["running"] is False, timeout)
            return self.items[-1]


@pytest.fixture
def hub() -> Iterator[tuple[SensorHub, list[Observation]]]:
    game_moves: list[Observation] = []
    holder: dict[str, SensorHub] = {}

    def on_observation(obs: Observation) -> None:
        # what the service does: a walk-through holds its moves back from the referee
        if "hub" in holder and observed(holder["hub"], obs, game_moves.append):
            return
        game_moves.append(obs)

    h = SensorHub(load_hardware_config(GPIO_BOARD), on_observation=on_observation, simulate=True)
    h.start()
    holder["hub"] = h
    yield h, game_moves
    h.close()


@pytest.mark.parametrize(("payload", "problem"), [
    ({"guided": "yes"}, "guided must be true or false"),
    ({"step_timeout": 0}, "step_timeout must be seconds"),
    ({"step_timeout": True}, "step_timeout must be seconds"),
    ({"verbose": 1}, "unknown field"),
    ({"skip": {"a": 1}}, "skip must be true"),
    ({"skip": True}, "no self-test is running"),
])
def test_bad_payloads_are_refused_and_start_nothing(hub: tuple[SensorHub, list[Observation]],
                                                    payload: dict[str, Any], problem: str) -> None:
    published = Published()
    with pytest.raises(ValueError, match=problem):
        run_for_service(hub[0], payload, published)
    assert published.items == []


def test_skipping_by_name_and_holding_the_walk_through_back_from_the_game(
        hub: tuple[SensorHub, list[Observation]]) -> None:
    h, game_moves = hub
    before = len(game_moves)
    published = Published()
    assert run_for_service(h, {"skip": ["tomb.wolf", "noise"]}, published) == {"running": True, "guided": False}
    with pytest.raises(ValueError, match="already running"):
        run_for_service(h, {}, published)
    report = published.wait_done()
    validate_report(report)
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["noise.quiet"]["status"] == "skip" and "skipped on request" in checks["noise.quiet"]["message"]
    steps = {s["id"]: s["status"] for s in report["steps"]}
    assert {k: v for k, v in steps.items() if k.startswith("tomb.wolf")} == {
        "tomb.wolf.middle": "skipped", "tomb.wolf.end_b": "skipped", "tomb.wolf.end_a": "skipped"}
    assert all(v == "pass" for k, v in steps.items() if not k.startswith("tomb.wolf"))
    assert report["ok"] is True and report["current"] is None
    # progress went out step by step, with the current step named
    assert any(p["current"] and p["current"]["id"] == "launcher.launched" for p in published.items)
    # the moves were held back; afterwards the board went out once as a fresh reading of every sensor
    after = game_moves[before:]
    assert after and all(o.initial for o in after)
    assert {o.sensor for o in after} == set(h.config.sensor_ids)


def test_a_table_without_sensors_reports_that_at_once() -> None:
    published = Published()
    assert run_for_service(None, {}, published) == {"running": False, "ok": True}
    report = published.items[-1]
    validate_report(report)
    assert [(c["id"], c["status"]) for c in report["checks"]] == [("hardware", "skip")]


def test_a_simulated_walk_through_waits_for_a_long_tomb_settle_time() -> None:
    """The service's simulated hand must give each step the time its windows need
    (docs/selftest.md: twice the slowest window plus 0.6 s), as the CLI does."""
    board = {"pin_map": "none", "debounce": {"tomb_settle": 2200},
             "sensors": {"tomb.wolf": {"end_a": {"pin": 11}, "middle": {"pin": 5}, "end_b": {"pin": 6}}}}
    holder: dict[str, SensorHub] = {}

    def on_observation(obs: Observation) -> None:
        if "hub" in holder:
            observed(holder["hub"], obs, lambda o: None)

    h = SensorHub(load_hardware_config(board), on_observation=on_observation, simulate=True)
    h.start()
    holder["hub"] = h
    try:
        published = Published()
        run_for_service(h, {"skip": ["noise"]}, published)
        report = published.wait_done(timeout=30.0)
        validate_report(report)
        assert [(s["id"], s["status"]) for s in report["steps"]] == [
            ("tomb.wolf.middle", "pass"), ("tomb.wolf.end_b", "pass"), ("tomb.wolf.end_a", "pass")], report["steps"]
    finally:
        h.close()


def test_stop_ends_a_running_walk_through_within_its_timeout(hub: tuple[SensorHub, list[Observation]]) -> None:
    """A service shutting down must not leave a guided run waiting up to 600 s a step on a closed hub."""
    from hardware.selftest.session import stop

    h, _ = hub
    published = Published()
    run_for_service(h, {"guided": True, "step_timeout": 600, "skip": ["noise"]}, published)
    with published.cond:
        assert published.cond.wait_for(lambda: any(p["current"] for p in published.items), 10.0)
    assert stop(h, timeout=5.0) is True
    report = published.wait_done(timeout=1.0)
    validate_report(report)
    assert report["steps"] and all(s["status"] == "skipped" for s in report["steps"])
    assert stop(h, timeout=1.0) is True  # nothing running: a no-op
