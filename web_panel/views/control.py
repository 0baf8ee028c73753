"""What needs the table's control token: logging in, commands, and join codes.

Commands arrive as JSON with the session's CSRF token in ``X-CSRF-Token``;
they are checked (``commands.validate``), signed with the token kept in the
server-side session, published on ``<base>/<t>/cmd/<name>``, and the table's
reply is handed back. ``act`` is sealed for the acting seat and its reply
opened before it is handed back (``MqttView.act``), so the action and a
refusal's reason cross the broker encrypted. A player who joined a seat may
also send ``act`` for that seat alone (to play the cards only they can see).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, jsonify, redirect, request, url_for

from controller.protocol.security import join_code, same_secret

from ..auth import (
    check_csrf,
    control_token,
    current_session,
    guessing,
    joined_seat,
    remember,
    renew_session,
    store,
)
from ..commands import COMMANDS, MAX_BODY, PanelCommandError, validate
from ..mqtt import CommandTimeout, TableBusy
from ..seats import carry
from .common import form_again, known_table, mqtt_view, settings

bp = Blueprint("control", __name__)


def log_in(table: str, back_to: str, show_form: Callable[[str], str]) -> Any:
    """Check the typed control token and keep it in the server-side session; then go ``back_to``.

    Refused, the page that holds the form (``show_form(reason)``) comes back with the reason.
    """
    known_table(table)
    return form_again(lambda: _log_in(table, back_to), show_form)


def _log_in(table: str, back_to: str) -> Any:
    check_csrf()
    guess = guessing("login", table)
    token = request.form.get("token", "")
    if not token:
        abort(400, description="type the table's control token to log in")
    configured = settings().token_for(table)
    if configured is not None and not same_secret(token, configured):
        guess.wrong()
        abort(403, description=f"that is not the control token of table {table!r}")
    sess = guess.succeeded()
    sess.tokens[table] = token
    remember(sess)
    return redirect(url_for(back_to, table=table), code=303)


@bp.post("/t/<table>/login")
def login(table: str) -> Any:
    from .tables import render_table

    return log_in(table, "tables.table_page", lambda reason: render_table(table, login_error=reason))


@bp.post("/t/<table>/logout")
def logout(table: str) -> Any:
    known_table(table)
    check_csrf()
    sess = current_session(create=False)
    if sess is not None:
        sess = renew_session(sess)  # the id that was logged in is worth nothing from now on
        sess.tokens.pop(table, None)
        remember(sess)
    return redirect(url_for("tables.table_page", table=table), code=303)


def _body() -> Any:
    """The command's fields: a JSON body, or an HTML form's fields (all text, checked like JSON)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        abort(413, description=f"a command is at most {MAX_BODY} bytes")
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return {k: v for k, v in request.form.items() if k != "csrf"}
    raw = request.get_data(cache=False)
    if len(raw) > MAX_BODY:
        abort(413, description=f"a command is at most {MAX_BODY} bytes")
    try:
        return json.loads(raw or b"{}")
    except ValueError as exc:
        abort(400, description=f"the command is not valid JSON: {exc}")
    except RecursionError:
        # 16 KiB of brackets is enough to exhaust the decoder's recursion limit.
        abort(400, description="the command is nested too deeply to be a command")


@bp.post("/t/<table>/cmd/<name>")
def command(table: str, name: str) -> Any:
    known_table(table)
    check_csrf()
    if name not in COMMANDS:
        abort(404, description=f"unknown command {name!r} (one of {', '.join(COMMANDS)})")
    body = _body()
    try:
        fields = validate(name, body)
    except PanelCommandError as exc:
        abort(400, description=str(exc))
    token = control_token(table)
    if token is None:
        token = _player_token(table, name, fields)
    reply = _send(table, name, fields, token)
    # An act's reply comes back opened (``MqttView.act``): its reason is shown only to this sender.
    if reply.get("ok") is True:
        return jsonify({"ok": True, "id": reply.get("id"), "data": reply.get("data")})
    error = str(reply.get("error") or "the table refused the command without a reason")
    status = 403 if error.startswith("not authorised") else 422
    return jsonify({"ok": False, "id": reply.get("id"), "error": error}), status


def _player_token(table: str, name: str, fields: dict[str, Any]) -> str:
    """A joined player may act for their own seat; anyone else without the token is read-only."""
    state = mqtt_view().state(table) or {}
    carry(current_session(create=False), mqtt_view(), store(), table, state)  # kept on their phone for this game
    seat = joined_seat(table, state.get("game_id"))
    token = settings().token_for(table)
    if seat is None or token is None:
        abort(403, description="read-only: log in with the table's control token to send commands")
    if name == "undo_request":
        # A player may ask to take back their own last move; the referee answers (undo_answer).
        if fields.get("seat") != seat:
            abort(403, description=f"you joined as seat {seat}; you can only ask to take back your own move")
        return token
    if name != "act":
        abort(403, description="a player may only act for their own seat; other commands need the control token")
    if fields["action"].get("player") != seat:
        players = state.get("players") or []

        def called(s: Any) -> str:  # people read this: names, or seats counted from 1, never from 0
            return players[s] if isinstance(s, int) and 0 <= s < len(players) else \
                (f"player {s + 1}" if isinstance(s, int) else "another player")

        abort(403, description=f"you play as {called(seat)}; you cannot move for "
                               f"{called(fields['action'].get('player'))}")
    return token


def _send(table: str, name: str, fields: dict[str, Any], token: str) -> dict[str, Any]:
    view = mqtt_view()
    # Read by players on their phones too: what is wrong and what to do, without the parts' names.
    if not view.connected.is_set():
        abort(503, description="the panel has lost touch with the table (its message broker is out of reach); "
                               "try again in a moment")
    status = (view.snapshot(table) or {}).get("status") or {}
    if status.get("state") == "offline":
        abort(503, description="the table is offline: its controller is not running or out of reach; "
                               "the referee can start it again")
    try:
        if name == "act":
            return view.act(table, fields["action"], token)
        return view.command(table, name, fields, token)
    except TableBusy as exc:  # not sent: a table that does not answer holds few of the panel's workers
        abort(503, description=str(exc))
    except CommandTimeout:
        # Read by players on their phones: no table id, no command name; and the move may have gone through.
        abort(504, description="the table did not answer in time (it may be busy or out of reach); "
                               "look at the board before trying again, as the move may have been made")


@bp.get("/api/t/<table>/codes")
def codes(table: str) -> Response:
    """The join code of every seat of the current game, for token holders only."""
    known_table(table)
    token = control_token(table)
    if token is None:
        abort(403, description="join codes are shown only to holders of the table's control token")
    state = mqtt_view().state(table) or {}
    game_id = state.get("game_id")
    players = state.get("players") or []
    if not isinstance(game_id, str) or not game_id:
        return jsonify({"game_id": None, "codes": []})
    return jsonify({
        "game_id": game_id,
        "codes": [{"seat": i, "player": p, "code": join_code(token, table, game_id, i)}
                  for i, p in enumerate(players)],
    })
