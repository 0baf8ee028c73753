"""One rule for a table id, on both sides of the broker (``controller.protocol.names.check_table_id``)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.config import ConfigError, load_config
from controller.protocol.names import check_table_id, is_table_id
from web_panel import PanelSettings, SettingsError, create_app
from web_panel.mqtt import MqttView

# Ids a controller accepts today (and so every table that exists): they keep working everywhere.
GOOD = ["t1", "bar-3", "hall-b-12", "kitchen_table", "T98A2CDF2CD", "a" * 64, "-", "_"]
# '/', '+' and '#' split or widen an MQTT topic; a '.' makes '.' and '..' ids (a URL or a journal's
# file name that climbs) and Home Assistant object ids two tables share; the rest are no topic level.
BAD: list[Any] = ["", "a" * 65, "a/b", "a+", "#", "t.1", ".", "..", "t 1", "t1\n", "tä", None, 7]


@pytest.mark.parametrize("table", GOOD)
def test_the_ids_of_tables_that_exist_are_fine(table: str) -> None:
    assert check_table_id(table) is None and is_table_id(table)
    PanelSettings(tokens={table: "tok"}, home_table=table)


@pytest.mark.parametrize("table", BAD)
def test_a_bad_id_is_refused_with_the_rule_in_words(table: Any) -> None:
    assert check_table_id(table) == "must be 1-64 letters, digits, '-' or '_' (it is part of MQTT topics)"
    assert not is_table_id(table)


@pytest.mark.parametrize("table", ["t.1", "a/b", "#"])
def test_the_controller_and_the_panel_refuse_the_same_ids(tmp_path: Any, table: str) -> None:
    config = tmp_path / "gk.toml"
    config.write_text(f"[table]\nid = '{table}'\n")
    with pytest.raises(ConfigError, match="table.id: must be 1-64 letters"):
        load_config(config)
    with pytest.raises(SettingsError, match="tokens: .* is not a valid table id: it must be 1-64 letters"):
        PanelSettings(tokens={table: "tok"})
    with pytest.raises(SettingsError, match="home_table .* is not a valid table id"):
        PanelSettings(home_table=table)


def test_the_panel_reads_no_table_whose_id_breaks_the_rule() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        for table in ("t.1", "bar-3"):
            view.handle(f"gravekeeper/{table}/status", b'{"state": "online"}', retained=True)
        assert [t["table"] for t in view.tables()] == ["bar-3"]
        client = app.test_client()
        assert "not a valid table id" in client.get("/t/t.1").get_data(as_text=True)
        assert client.get("/t/t.1").status_code == 404
    finally:
        view.close()
