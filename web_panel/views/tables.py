"""Public pages: the table list, a table's live page, its snapshot and its event stream."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from controller.games import GAME_NAMES

from ..auth import control_token, current_session
from ..fanout import Item
from ..mqtt_view import LIST
from ..sse import stream
from .common import known_table, mqtt_view, settings

bp = Blueprint("tables", __name__)

# The games' names in the club list's filter (the tables' own lines carry the title they publish).
GAME_TITLES = {"terror": "Terror in the Graveyard", "superstition": "Superstition", "dogs": "Graveyard Dogs"}


@bp.get("/")
def index() -> str:
    current_session()
    tables = sorted(mqtt_view().tables(), key=lambda t: (not t["mismatch"], t["room"] or "", t["table"]))
    return render_template("index.html", tables=tables, broker=mqtt_view().connected.is_set(),
                           games=[(g, GAME_TITLES.get(g, g)) for g in GAME_NAMES], titles=GAME_TITLES)


@bp.get("/api/tables")
def api_tables() -> Response:
    return jsonify({"broker": "connected" if mqtt_view().connected.is_set() else "disconnected",
                    "tables": mqtt_view().tables()})


@bp.get("/api/tables/stream")
def tables_stream() -> Response:
    """The club list as it changes: every table's line first, then one line per change.

    It carries each table's one-line summary only, never a table's events or
    sensors: the list costs the panel and the phone a line per change."""
    view = mqtt_view()

    def first() -> list[tuple[str, Any]]:
        return [("tables", {"broker": "connected" if view.connected.is_set() else "disconnected",
                            "tables": view.tables()})]

    return stream(view, LIST, first=first, snapshot=False)


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
