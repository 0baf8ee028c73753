"""Fixtures of the game master's pages' tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.broker import Broker
from tests.web_panel.support.service_runner import RunningService, start_service


@pytest.fixture
def service(request: pytest.FixtureRequest, mosquitto: Broker, tmp_path: Path,
            table_id: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, "tok-gm-browser", game=getattr(request, "param", "terror"))
    yield svc
    svc.stop()
