"""Starting an in-process controller service against the test broker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config
from controller.mqtt.broker import choose_broker
from controller.service.service import Service
from tests.conftest import Broker

TOKEN = "service-test-token"
BASE = "gk"

MakeService = Callable[..., Service]


def service_config(broker: Broker, tmp_path: Path, table: str, **overrides: Any) -> Any:
    values: dict[str, Any] = {
        "simulate": True,
        "table.id": table,
        "table.token": TOKEN,
        "table.seed": 7,
        "journal.path": str(tmp_path / f"{table}.journal"),
        "mqtt.url": broker.url,
        "mqtt.base_topic": BASE,
        "referee.mismatch_grace_ms": 0,  # report at once: the tests wait on events, not on time
        "panel.enabled": False,
    }
    values.update(overrides)
    return load_config(None, overrides=values)


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


def topic(table: str, *parts: str) -> str:
    return "/".join((BASE, table, *parts))
