"""The hub's call just before a window closes (``on_window_closing``): once per window, never in its way.

The service rehearses the decision that may follow there (``controller/service/service.py``); these
tests hold the hub's side: when it is called, how often, and that nothing it does or raises
costs the sensors an observation.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.config import DEFAULT_PINS, load_hardware_config
from hardware.hub import WINDOW_LEAD_S, SensorHub
from tests.hardware.support import Recorder

# A long window, so that a loaded test machine holding the hub's thread for a while still finds
# it before the window's last WINDOW_LEAD_S (a rehearsal after that is skipped, by design).
SLOW = {"debounce": {"launcher": 200}}
LAUNCHER_WINDOW = load_hardware_config(SLOW).sensor("launcher").window


def test_it_runs_once_just_before_the_window_closes_and_before_the_observation(factory: MockFactory) -> None:
    rec = Recorder()
    calls: list[tuple[float, int]] = []  # when, and how many observations had come by then

    def closing() -> None:
        calls.append((time.monotonic(), len(rec.changes())))

    with SensorHub(load_hardware_config(SLOW), on_observation=rec, pin_factory=factory,
                   on_window_closing=closing) as hub:
        factory.pin(DEFAULT_PINS["launcher"]).drive_low()
        obs = rec.wait_count(1, "launcher")[0]
        assert rec.stays_at(1, LAUNCHER_WINDOW, "launcher")
        assert hub.rehearsals == (1, 0)
    assert len(calls) == 1
    at, seen = calls[0]
    assert seen == 0  # before the observation was handed on
    # Not before the window's end minus the lead (a timed wait never returns early), and
    # before the hub settled the input.
    assert obs.first_edge + LAUNCHER_WINDOW - WINDOW_LEAD_S - 1e-4 <= at <= obs.settled


def test_a_bounce_burst_gets_one_rehearsal_for_its_one_window(factory: MockFactory) -> None:
    rec = Recorder()
    calls = threading.Semaphore(0)
    with SensorHub(load_hardware_config(SLOW), on_observation=rec, pin_factory=factory, simulate=True,
                   on_window_closing=calls.release) as hub:
        rec.wait_for(lambda items: any(o.sensor == "launcher" for o in items))
        hub.simulate("launcher", "launched", bounce_ms=8)
        rec.wait_count(1, "launcher")
        assert rec.stays_at(1, LAUNCHER_WINDOW, "launcher")
        assert hub.rehearsals == (1, 0)


def test_a_window_shorter_than_the_lead_is_left_alone(factory: MockFactory) -> None:
    rec = Recorder()
    called = threading.Event()
    with SensorHub(load_hardware_config(SLOW), on_observation=rec, pin_factory=factory,
                   on_window_closing=called.set, window_lead=LAUNCHER_WINDOW * 0.9) as hub:
        factory.pin(DEFAULT_PINS["launcher"]).drive_low()
        rec.wait_count(1, "launcher")
        assert hub.rehearsals == (0, 0)
    assert not called.is_set()


def test_a_failing_rehearsal_costs_no_observation_and_is_logged_once(
        factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder()

    def broken() -> None:
        raise RuntimeError("rehearsal bug")

    pin = factory.pin(DEFAULT_PINS["launcher"])
    with caplog.at_level(logging.ERROR, logger="hardware.hub"), \
            SensorHub(load_hardware_config(SLOW), on_observation=rec, pin_factory=factory,
                      on_window_closing=broken) as hub:
        pin.drive_low()
        first = rec.wait_count(1, "launcher")[0]
        pin.drive_high()
        second = rec.wait_count(2, "launcher")[1]
        assert first.value != second.value
        assert hub.rehearsals == (2, 2)
    logged = [r for r in caplog.records if "rehearsal" in r.getMessage()]
    assert len(logged) == 1, logged
