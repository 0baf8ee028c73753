"""Fixtures of the panel's tests: a fake table on the real broker, the app, a served panel, pages.

Chromium and the phone fixture are the whole suite's (``tests/web_panel/support/fixtures.py``)."""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.support.broker import Broker, make_broker
from tests.support.club import REPO
from tests.support.cut_proxy import CutProxy
from tests.support.service import BASE
from tests.web_panel.support.browser import PAGE_WAIT_MS
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView
from web_panel.server import PanelServer, start_panel

# The hall's bridge to the central broker, as deployed (the convention tests).
BRIDGE_CONF = REPO / "deploy" / "mosquitto" / "hall-bridge.conf"


@pytest.fixture
def token() -> str:
    return "tok-" + secrets.token_hex(8)


@pytest.fixture
def table_id() -> str:
    return "t" + uuid.uuid4().hex[:10]


@pytest.fixture
def fake(mosquitto: Broker, table_id: str, token: str) -> Iterator[FakeTable]:
    table = FakeTable(mosquitto.port, table_id, token)
    table.online()
    table.state()
    yield table
    table.clear()
    table.close()


@pytest.fixture
def bare_view(mosquitto: Broker) -> Iterator[MqttView]:
    """The panel's MQTT side alone, for every table on the broker (no pages): its commands and replies."""
    view = MqttView(PanelSettings(broker_port=mosquitto.port, base_topic=BASE, command_timeout=5.0))
    view.start(wait=5)
    yield view
    view.close()


@pytest.fixture
def settings(mosquitto: Broker, token: str) -> PanelSettings:
    return PanelSettings(broker_port=mosquitto.port, token=token, listen_port=0, command_timeout=3.0)


@pytest.fixture
def app(settings: PanelSettings, fake: FakeTable) -> Iterator[Flask]:
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.has_table(fake.table), 5), "the panel did not learn of the fake table"
    # The table is watched for the whole test, as if its page were open: the panel subscribes to a
    # table's full traffic only then (web_panel/interest.py; test_watching.py tests that part).
    view.hold(fake.table)
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("game_id") == "g1", 5), \
        "the panel did not learn the fake table's retained state"
    yield app
    view.release(fake.table)
    view.close()


@pytest.fixture
def served(settings: PanelSettings, fake: FakeTable) -> Iterator[PanelServer]:
    """The panel served over HTTP, for the browser tests, once it knows the fake table."""
    panel = start_panel(settings)
    view = panel.app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.has_table(fake.table), 5)
    yield panel
    panel.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def pages(chromium: Any) -> Iterator[Any]:
    """Opens pages, each in its own browser context (its own cookies); any script error on one fails the test."""
    made: list[Any] = []
    errors: list[str] = []

    def new_page(width: int = 1280, height: int = 900, mobile: bool = False, timeout: float = PAGE_WAIT_MS) -> Any:
        ctx = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=mobile,
                                   has_touch=mobile, bypass_csp=True)  # Playwright waits are eval()ed strings
        made.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(timeout)
        # Where it happened too: a rare one must say which script and line, not only its message.
        page.on("pageerror", lambda exc: errors.append(f"{exc} at {page.url}\n{exc.stack or ''}"))
        return page

    yield new_page
    for ctx in made:
        ctx.close()
    assert errors == [], f"the pages' scripts failed: {errors}"


@pytest.fixture
def convention(tmp_path: Path) -> Iterator[tuple[Broker, Broker, CutProxy]]:
    (tmp_path / "central").mkdir()
    central = make_broker(tmp_path / "central")
    proxy = CutProxy(central.port)
    bridge = re.sub(r"(?m)^address .*$", f"address 127.0.0.1:{proxy.port}", BRIDGE_CONF.read_text())
    assert f"address 127.0.0.1:{proxy.port}" in bridge
    (tmp_path / "hall").mkdir()
    hall = make_broker(tmp_path / "hall", extra_conf=bridge)
    try:
        yield central, hall, proxy
    finally:
        hall.stop()
        proxy.close()
        central.stop()
