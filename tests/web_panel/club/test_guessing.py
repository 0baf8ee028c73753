"""A club's panel serves many tables: guessing at one table must not lock another.

Each table has its own control token (``--table-token``); the lockouts on wrong
control tokens and wrong join codes count per table, both per session and over
every session, so one table's abuse leaves the others (and this phone's own
table) open.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask

from tests.support.broker import Broker
from tests.web_panel.support.client import csrf_of
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.auth import (
    JOIN_FAILURES_ALLOWED,
    LOGIN_FAILURES_ALLOWED,
    TABLE_JOIN_FAILURES_ALLOWED,
)
from web_panel.mqtt import MqttView


@pytest.fixture
def club(mosquitto: Broker) -> Iterator[tuple[Flask, list[FakeTable]]]:
    tables = [FakeTable(mosquitto.port, "club" + uuid.uuid4().hex[:8], "tok-" + secrets.token_hex(8))
              for _ in range(3)]
    for t in tables:
        t.online()
        t.state()
    settings = PanelSettings(broker_port=mosquitto.port, tokens={t.table: t.token for t in tables},
                             listen_port=0, command_timeout=3.0)
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    # Every table is listed; a table's state comes with the first request of its (web_panel/interest.py).
    assert view.wait_until(lambda: all(view.has_table(t.table) for t in tables), 5)
    yield app, tables
    view.close()
    for t in tables:
        t.clear()
        t.close()


def _login(client, table: str, token: str) -> int:  # type: ignore[no-untyped-def]
    return client.post(f"/t/{table}/login", data={"token": token, "csrf": csrf_of(client, table)}).status_code


def test_each_table_takes_only_its_own_token(club: tuple[Flask, list[FakeTable]]) -> None:
    app, (a, b, _) = club
    client = app.test_client()
    assert _login(client, a.table, b.token) == 403  # another table's token opens nothing here
    assert client.get(f"/api/t/{a.table}/codes").status_code == 403
    assert _login(client, a.table, a.token) == 303
    assert client.get(f"/api/t/{a.table}/codes").status_code == 200
    assert client.get(f"/api/t/{b.table}/codes").status_code == 403  # a's token is no key to b


def test_a_session_locked_out_at_one_table_can_still_log_in_at_another(
        club: tuple[Flask, list[FakeTable]]) -> None:
    app, (a, b, _) = club
    client = app.test_client()
    for i in range(LOGIN_FAILURES_ALLOWED):
        assert _login(client, a.table, f"guess-{i}") == 403
    assert _login(client, a.table, a.token) == 429  # locked at a ...
    assert _login(client, b.table, b.token) == 303  # ... and not at b
    assert client.get(f"/api/t/{b.table}/codes").status_code == 200
    assert client.get(f"/api/t/{a.table}/codes").status_code == 403


def test_wrong_join_codes_at_one_table_do_not_lock_joining_another(club: tuple[Flask, list[FakeTable]]) -> None:
    app, (a, b, _) = club
    client = app.test_client()
    for _ in range(JOIN_FAILURES_ALLOWED):
        csrf = csrf_of(client, a.table)
        assert client.post(f"/t/{a.table}/join", data={"code": "AAAAAA", "csrf": csrf}).status_code == 403
    csrf = csrf_of(client, a.table)
    assert client.post(f"/t/{a.table}/join", data={"code": "AAAAAA", "csrf": csrf}).status_code == 429
    csrf = csrf_of(client, b.table)
    assert client.post(f"/t/{b.table}/join",
                       data={"code": "AAAAAA", "csrf": csrf}).status_code == 403  # a guess, not a lockout


def test_a_table_under_attack_from_many_sessions_leaves_the_others_open(
        club: tuple[Flask, list[FakeTable]]) -> None:
    """The table-wide count is per table: fresh cookies hammering table a lock a, not b or c."""
    app, (a, b, c) = club
    for i in range(TABLE_JOIN_FAILURES_ALLOWED):
        fresh = app.test_client()
        assert _login(fresh, a.table, f"guess-{i}") == 403
    assert _login(app.test_client(), a.table, a.token) == 429
    for t in (b, c):
        assert _login(app.test_client(), t.table, t.token) == 303
