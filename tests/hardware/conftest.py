"""Fixtures of the hardware tests: mock pins, a hub on them, and what it reports."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.config import HardwareConfig
from hardware.hub import SensorHub
from tests.hardware.support import HealthLog, Recorder, TraceClock


@pytest.fixture
def tclock() -> TraceClock:
    return TraceClock()


@pytest.fixture
def health_log() -> HealthLog:
    return HealthLog()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def make_hub(recorder: Recorder, factory: MockFactory, tclock: TraceClock) -> Iterator[Callable[..., SensorHub]]:
    hubs: list[SensorHub] = []

    def make(config: HardwareConfig, **kwargs: Any) -> SensorHub:
        kwargs.setdefault("pin_factory", factory)
        kwargs.setdefault("clock", tclock)
        hub = SensorHub(config, on_observation=recorder, **kwargs)
        hubs.append(hub)
        hub.start()
        return hub

    yield make
    for hub in hubs:
        hub.close()
