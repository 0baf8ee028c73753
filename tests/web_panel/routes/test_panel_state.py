"""A restarted panel keeps its referees logged in and its players seated (``web_panel.panel_state``)."""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.protocol.publication import Publisher
from controller.protocol.security import join_code
from controller.protocol.signing import signed_status
from tests.web_panel.support.client import csrf_of
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.auth import SESSION_IDLE_SECONDS
from web_panel.mqtt import MqttView
from web_panel.panel_state import (
    SESSIONS_FILE,
    PanelStateError,
    secret_key,
    state_folder,
)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "panel-state"


def make_app(settings: PanelSettings, fake: FakeTable, state: Path) -> Flask:
    app = create_app({"PANEL_SETTINGS": PanelSettings(**{**settings.__dict__, "state_dir": str(state)}),
                      "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    # The table's line is in; its state comes with the first request of its (web_panel/interest.py).
    assert view.wait_until(lambda: view.has_table(fake.table), 5)
    return app


@pytest.fixture
def apps(settings: PanelSettings, fake: FakeTable, state: Path) -> Iterator[list[Flask]]:
    made: list[Flask] = []
    yield made
    for app in made:
        app.extensions["gravekeeper"].close()


def test_login_and_join_survive_a_panel_restart(settings: PanelSettings, fake: FakeTable, token: str,
                                                state: Path, apps: list[Flask]) -> None:
    apps.append(make_app(settings, fake, state))
    referee, player = apps[0].test_client(), apps[0].test_client()
    csrf = csrf_of(referee, fake.table)
    assert referee.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf}).status_code == 303
    pcsrf = csrf_of(player, fake.table)
    code = join_code(token, fake.table, "g1", 1)
    assert player.post(f"/t/{fake.table}/join", data={"code": code, "csrf": pcsrf}).status_code == 303

    apps[0].extensions["gravekeeper"].close()  # the panel stops; a new one starts on the same folder
    apps.append(make_app(settings, fake, state))
    referee, player = _same_app(apps[1], referee), _same_app(apps[1], player)
    assert referee.get(f"/api/t/{fake.table}/codes").status_code == 200  # still logged in
    assert player.get(f"/api/t/{fake.table}/me").get_json()["seat"] == 1  # still seated
    # The CSRF token is the session's own, so a page loaded before the restart can still post.
    assert referee.post(f"/t/{fake.table}/logout", data={"csrf": csrf}).status_code == 303
    assert referee.get(f"/api/t/{fake.table}/codes").status_code == 403


def _same_app(app: Flask, old: FlaskClient) -> FlaskClient:
    """A client of ``app`` with ``old``'s cookie jar: the same browser, talking to a new panel."""
    client = app.test_client()
    client._cookies = old._cookies  # type: ignore[attr-defined]
    return client


def test_without_a_state_folder_a_restart_forgets(settings: PanelSettings, fake: FakeTable, token: str) -> None:
    """The reverse check: what the state folder adds is what keeps the login."""
    first = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    try:
        view = first.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        referee = first.test_client()
        csrf = csrf_of(referee, fake.table)
        assert referee.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf}).status_code == 303
    finally:
        first.extensions["gravekeeper"].close()
    second = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    try:
        view = second.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        again = _same_app(second, referee)
        assert again.get(f"/api/t/{fake.table}/codes").status_code == 403
    finally:
        second.extensions["gravekeeper"].close()


def test_state_files_are_private_and_hold_only_sessions_with_a_login_or_seat(
        settings: PanelSettings, fake: FakeTable, token: str, state: Path, apps: list[Flask]) -> None:
    apps.append(make_app(settings, fake, state))
    spectator, referee = apps[0].test_client(), apps[0].test_client()
    spectator.get(f"/t/{fake.table}")
    csrf = csrf_of(referee, fake.table)
    referee.post(f"/t/{fake.table}/login", data={"token": token, "csrf": csrf})
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for name in ("secret_key", SESSIONS_FILE):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name
    kept = json.loads((state / SESSIONS_FILE).read_text())["sessions"]
    assert len(kept) == 1 and kept[0]["tokens"] == {fake.table: token}


def test_a_damaged_or_stale_sessions_file_costs_logins_not_the_panel(
        settings: PanelSettings, fake: FakeTable, token: str, state: Path, apps: list[Flask]) -> None:
    state_folder(str(state))
    (state / SESSIONS_FILE).write_text("{not json")
    apps.append(make_app(settings, fake, state))
    assert apps[0].test_client().get(f"/t/{fake.table}").status_code == 200
    (state / SESSIONS_FILE).write_text("[" * 100_000)  # nested past the parser's limit: not a ValueError
    apps.append(make_app(settings, fake, state))
    assert apps[1].test_client().get(f"/t/{fake.table}").status_code == 200
    stale = {"sid": "s" * 32, "csrf": "c" * 32, "tokens": {fake.table: token}, "seats": {},
             "last_used": time.time() - SESSION_IDLE_SECONDS - 60}
    (state / SESSIONS_FILE).write_text(json.dumps({"version": 1, "sessions": [stale, {"sid": 3}]}))
    apps.append(make_app(settings, fake, state))
    assert len(apps[2].extensions["gravekeeper_sessions"]) == 0  # idle too long, and malformed


def test_the_secret_key_is_made_once(tmp_path: Path) -> None:
    folder = state_folder(str(tmp_path / "s"))
    key = secret_key(folder)
    assert len(key) == 64 and secret_key(folder) == key
    (folder / "secret_key").write_text("short")  # cut short: never sign cookies with it
    assert secret_key(folder) != "short"
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(PanelStateError, match="state_dir"):
        state_folder(str(blocker / "sub"))


def test_a_seat_waits_for_the_tables_state_instead_of_being_dropped(tmp_path: Path, token: str) -> None:
    """Just restarted, the panel may know a table (its status) before its state: a seated player's page
    must be told to try again (503), never that their seat is gone (403, "join again")."""
    settings = PanelSettings(token=token, state_dir=str(tmp_path / "state"))
    table = Publisher(token, "t1", "run-1", time.time())  # the table signs what it publishes
    state = table.sign("state", json.dumps({"seq": 1, "table": "t1", "game": "terror", "game_id": "g1",
                                            "players": ["Ann", "Bo"]}).encode())

    def panel() -> Flask:
        app = create_app({"PANEL_SETTINGS": settings, "TESTING": True, "START_MQTT": False})
        status = signed_status(token, "t1", {"state": "online", "table": "t1", "since": 1.0})
        app.extensions["gravekeeper"].handle("gravekeeper/t1/status", status)
        return app

    first = panel()
    first.extensions["gravekeeper"].handle("gravekeeper/t1/state", state)
    player = first.test_client()
    csrf = csrf_of(player, "t1")
    assert player.post("/t/t1/join", data={"code": join_code(token, "t1", "g1", 0), "csrf": csrf}).status_code == 303
    first.extensions["gravekeeper"].close()

    second = panel()  # restarted: the status is in, the state not yet
    try:
        again = _same_app(second, player)
        r = again.get("/api/t/t1/me")
        assert r.status_code == 503 and "trying again" in r.get_json()["error"]
        second.extensions["gravekeeper"].handle("gravekeeper/t1/state", state)
        assert again.get("/api/t/t1/me").get_json()["seat"] == 0
        stranger = second.test_client()
        assert stranger.get("/api/t/t1/me").status_code == 403  # no seat, no wait: the old answer
    finally:
        second.extensions["gravekeeper"].close()
