"""Starting an in-process controller service against the test broker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.config import load_config
from controller.service.service import Service
from tests.support.broker import Broker

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


def topic(table: str, *parts: str) -> str:
    return "/".join((BASE, table, *parts))
