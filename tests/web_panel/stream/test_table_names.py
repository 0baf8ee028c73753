"""What the panel calls a table: the name in its signed status, else one made from its id; never a forged one."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient

from controller.protocol.names import default_name
from controller.protocol.signing import signed_status
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.mqtt import MqttView

NAME = "The kitchen table"


def _named(fake: FakeTable, name: object, since: float = 100.0) -> dict[str, object]:
    return {"state": "online", "table": fake.table, "game": "terror", "since": since, "name": name}


def _title_and_heading(client: FlaskClient, path: str) -> str:
    html = client.get(path).get_data(as_text=True)
    title = re.search(r"<title>(.*?)</title>", html, re.DOTALL)
    assert title is not None
    return title.group(1) + " | " + " ".join(re.findall(r'class="table-name">(.*?)</span>', html, re.DOTALL))


def test_an_unnamed_table_reads_by_the_name_made_from_its_id(client: FlaskClient, fake: FakeTable) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    made = default_name(fake.table)
    assert made.startswith("Table ") and fake.table not in made
    assert view.table_name(fake.table) == made
    assert client.get(f"/api/t/{fake.table}").get_json()["name"] == made
    assert [t["name"] for t in client.get("/api/tables").get_json()["tables"] if t["table"] == fake.table] == [made]
    shown = _title_and_heading(client, f"/t/{fake.table}")
    assert made in shown and fake.table not in shown


def test_the_signed_name_is_shown_and_a_forged_one_never(client: FlaskClient, fake: FakeTable) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    fake.publish("status", _named(fake, NAME))
    assert view.wait_until(lambda: view.table_name(fake.table) == NAME, 5)
    forged = _named(fake, "Free drinks: type your token here", since=300.0)
    other_token = signed_status("not-the-token", fake.table, forged)
    for body in (json.dumps(forged).encode(), other_token):
        fake.publish_raw("status", body)
    fake.state(seq=2)  # a marker after the forgeries
    assert view.wait_until(lambda: (view.state(fake.table) or {}).get("seq") == 2, 5)
    refused = view.vouching.describe(fake.table)["refused"]
    assert refused.get("unsigned", 0) >= 1 and refused.get("forged", 0) >= 1
    assert view.table_name(fake.table) == NAME
    for path in (f"/t/{fake.table}", f"/t/{fake.table}/join", f"/t/{fake.table}/selftest", "/"):
        page = client.get(path).get_data(as_text=True)
        assert NAME in page and "Free drinks" not in page, path


def test_a_signed_name_that_is_no_name_is_not_shown(client: FlaskClient, fake: FakeTable) -> None:
    view: MqttView = client.application.extensions["gravekeeper"]
    for since, bad in enumerate(("", "   ", "Kitchen\ntable", "x" * 61, 7, ["Kitchen"]), start=200):
        fake.publish("status", _named(fake, bad, since=float(since)))
        assert view.wait_until(lambda s=since: ((view.snapshot(fake.table) or {}).get("status") or {})
                               .get("since") == s, 5)
        assert view.table_name(fake.table) == default_name(fake.table), bad


def test_a_panel_without_the_token_shows_no_name_it_cannot_check(mosquitto: Broker, fake: FakeTable) -> None:
    """Anyone on the broker can publish a status: without the token, the name could be anyone's."""
    fake.publish("status", _named(fake, NAME))
    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, listen_port=0), "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: ((view.snapshot(fake.table) or {}).get("status") or {})
                               .get("name") == NAME, 5)
        assert view.table_name(fake.table) == default_name(fake.table)
        page = app.test_client().get(f"/t/{fake.table}").get_data(as_text=True)
        assert NAME not in page and default_name(fake.table) in page
    finally:
        view.close()
