"""Each table's history: its past games, a game replayed step by step, exports, sensor statistics.

The panel asks the table (the ``history`` command, signed with the token this
panel holds or the one the visitor logged in with) and shows what it answers.
The table answers with public information only (``controller/referee/history.py``):
what a spectator could see at each step, and the hands of a finished game
only when the table's setting allows it. So these pages are open to everyone.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template

from ..auth import control_token, current_session
from ..mqtt import CommandTimeout, TableBusy
from ..terror_places import with_places
from .common import known_table, mqtt_view, settings

bp = Blueprint("history", __name__)

HISTORY_TIMEOUT_S = 30.0  # a long game replayed from the journal takes a while on a Pi
# Whole content types: a mimetype given to Flask would get a second "; charset=utf-8" for text.
_FORMATS = {"jsonl": "application/x-ndjson", "text": "text/plain; charset=utf-8"}
# Every request replays part of a journal on the table's Pi: open to everyone, so a few at a time.
MAX_AT_ONCE = 2
_busy = threading.BoundedSemaphore(MAX_AT_ONCE)


def _ask(table: str, fields: dict[str, Any]) -> dict[str, Any]:
    token = control_token(table) or settings().token_for(table)
    if token is None:
        abort(403, description="this panel holds no token for this table: log in with its control token "
                               "to read its history")
    view = mqtt_view()
    if not view.connected.is_set():
        abort(503, description="the panel is not connected to the broker; try again in a moment")
    status = (view.snapshot(table) or {}).get("status") or {}
    if status.get("state") == "offline":
        abort(503, description="the table is offline: its history is in its journal, and is shown again when "
                               "the table runs")
    if not _busy.acquire(blocking=False):
        abort(429, description="the history is busy answering others; try again in a moment")
    try:
        reply = view.command(table, "history", fields, token, timeout=max(HISTORY_TIMEOUT_S,
                                                                          settings().command_timeout))
    except TableBusy as exc:
        abort(503, description=str(exc))
    except CommandTimeout:
        abort(504, description="the table did not answer in time (it may be busy or out of reach); "
                               "try again in a moment")
    finally:
        _busy.release()
    if reply.get("ok") is not True:
        abort(422, description=str(reply.get("error") or "the table refused without a reason"))
    data = reply.get("data")
    return data if isinstance(data, dict) else {}


@bp.get("/t/<table>/history")
def page(table: str) -> str:
    known_table(table)
    current_session()
    return render_template("history.html", table=table, game_id=None)


@bp.get("/t/<table>/history/<game_id>")
def game_page(table: str, game_id: str) -> str:
    known_table(table)
    current_session()
    return render_template("history.html", table=table, game_id=game_id)


@bp.get("/api/t/<table>/history")
def api_games(table: str) -> Response:
    known_table(table)
    return jsonify(_ask(table, {"op": "games"}))


@bp.get("/api/t/<table>/history/sensors")
def api_sensors(table: str) -> Response:
    known_table(table)
    return jsonify(_ask(table, {"op": "sensors"}))


@bp.get("/api/t/<table>/history/<game_id>")
def api_steps(table: str, game_id: str) -> Response:
    known_table(table)
    return jsonify(_ask(table, {"op": "steps", "game_id": game_id}))


@bp.get("/api/t/<table>/history/<game_id>/board/<int:step>")
def api_board(table: str, game_id: str, step: int) -> Response:
    known_table(table)
    # The board as it stood, its spaces in the engine's words (web_panel.terror_places).
    return jsonify(with_places(_ask(table, {"op": "board", "game_id": game_id, "step": step})))


@bp.get("/t/<table>/history/<game_id>/export.<fmt>")
def export(table: str, game_id: str, fmt: str) -> Response:
    known_table(table)
    if fmt not in _FORMATS:
        abort(404, description=f"export as jsonl or text, not {fmt!r}")
    data = _ask(table, {"op": "export", "game_id": game_id, "format": fmt})
    name = str(data.get("name") or f"{game_id}.{fmt}")
    safe = "".join(c for c in name if c.isalnum() or c in "-_.") or "game"
    return Response(str(data.get("content") or ""), content_type=_FORMATS[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{safe}"'})
