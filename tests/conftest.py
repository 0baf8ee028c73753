"""Fixtures shared by the whole suite: a real Mosquitto on a free port, a controller service on it.

Mosquitto is required, not optional: if it cannot be started the fixture fails
(it never skips), so a missing broker cannot hide behind a skipped test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.broker import choose_broker
from controller.service.service import Service
from tests.support.alone import run_alone
from tests.support.broker import Broker, make_broker
from tests.support.service import MakeService, service_config

# Chromium and a phone on it, for the panel's tests and the whole chain's (tests/firmware_bridge/pico).
pytest_plugins = ["tests.web_panel.support.fixtures"]


# Whether the next test on this worker is ``alone`` too: then an ``alone`` test keeps the machine for it.
_NEXT_ALONE = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    item.stash[_NEXT_ALONE] = nextitem is not None and nextitem.get_closest_marker("alone") is not None


@pytest.fixture(autouse=True)
def _alone_if_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """An ``alone`` test runs with no other test beside it (tests/support/alone.py)."""
    with run_alone(request.node.get_closest_marker("alone") is not None,
                   keep=request.node.stash.get(_NEXT_ALONE, False)):
        yield


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """One broker for the session (tests use distinct table ids to stay apart)."""
    broker = make_broker(tmp_path_factory.mktemp("mosquitto"))
    yield broker
    broker.stop()


@pytest.fixture
def fresh_mosquitto(tmp_path: Path) -> Iterator[Broker]:
    """A broker of the test's own, for tests that stop and restart it."""
    broker = make_broker(tmp_path)
    yield broker
    broker.stop()


@pytest.fixture
def make_service(mosquitto: Broker, tmp_path: Path) -> Iterator[MakeService]:
    started: list[Service] = []

    def make(table: str, *, broker: Broker | None = None, **overrides: Any) -> Service:
        cfg = service_config(broker or mosquitto, tmp_path, table, **overrides)
        svc = Service(cfg, choose_broker(cfg.mqtt))
        svc.start()
        started.append(svc)
        assert svc.wait_online(5), "service did not come online"
        return svc

    yield make
    for svc in started:
        svc.stop()
