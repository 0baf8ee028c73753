"""Helpers the blueprints share."""

from __future__ import annotations

from flask import abort, current_app

from ..mqtt_view import MqttView
from ..settings import TABLE_ID_RE, PanelSettings


def mqtt_view() -> MqttView:
    return current_app.extensions["gravekeeper"]


def settings() -> PanelSettings:
    return current_app.extensions["gravekeeper_settings"]


def known_table(table: str) -> str:
    """``table`` if the broker has told us of it; 404 naming it otherwise."""
    if not TABLE_ID_RE.match(table):
        abort(404, description=f"{table!r} is not a valid table id")
    if not mqtt_view().has_table(table):
        abort(404, description=f"no table {table!r} on the broker (is its controller running?)")
    return table
