"""Public pages: the table list, a table's live page, its snapshot and its event stream."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from controller.games import GAME_NAMES

from ..auth import control_token, current_session
from ..fanout import Item
from ..sse import stream
from .common import known_table, mqtt_view, settings

bp = Blueprint("tables", __name__)


@bp.get("/")
def index() -> str:
    current_session()
    return render_template("index.html", tables=mqtt_view().tables(),
                           broker=mqtt_view().connected.is_set())


@bp.get("/api/tables")
def api_tables() -> Response:
    return jsonify({"broker": "connected" if mqtt_view().connected.is_set() else "disconnected",
                    "tables": mqtt_view().tables()})


@bp.get("/t/<table>")
def table_page(table: str) -> str:
    known_table(table)
    current_session()
    can_control = control_token(table) is not None
    return render_template(
        "table.html",
        table=table,
        can_control=can_control,
        panel_has_token=settings().token_for(table) is not None,
        games=GAME_NAMES,
    )


@bp.get("/api/t/<table>")
def api_table(table: str) -> Response:
    known_table(table)
    return jsonify(mqtt_view().snapshot(table))


def _public(item: Item) -> list[Item | tuple[str, Any]] | None:
    # Spectators learn that a seat's sealed view changed from the topic name anyway; they need not be told.
    if item.kind in ("private_changed", "effects"):  # cues have a stream of their own (views/effects.py)
        return None
    return [item]


@bp.get("/t/<table>/stream")
def table_stream(table: str) -> Response:
    known_table(table)
    return stream(mqtt_view(), table, filter_item=_public)
