"""Fixtures of the MQTT link's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.controller.mqtt.test_link import Pump


@pytest.fixture
def pump() -> Iterator[Pump]:
    p = Pump()
    yield p
    p.stop()
