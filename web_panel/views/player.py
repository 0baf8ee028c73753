"""A player's own page: join with a code, then see your hand and act for your seat.

The panel opens ``<base>/<t>/private/<seat>`` with the table's token only
inside this player's request or stream, and sends it to no one else.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from controller.protocol.security import SealError, join_code, same_secret, unseal

from ..auth import (
    Seat,
    check_csrf,
    current_session,
    guessing,
    joined_seat,
    remember,
    renew_session,
    store,
)
from ..fanout import Item
from ..mqtt import MqttView
from ..seats import carry, not_playing
from ..sse import stream
from .common import form_again, known_table, mqtt_view, settings

bp = Blueprint("player", __name__)

# Changes a player's stream never carries (see ``wants`` in ``me_stream``).
NOT_FOR_PLAYERS = frozenset({"effects", "sensors", "health"})

# A phone whose player the referee left out of the next game (docs/panel.md, "A new game with the same players").
NOT_PLAYING = "you are not playing this game"
# A phone that holds a seat of the game before: the same words from its stream and from its other requests,
# whichever reaches it first (a tap answered just as the new game came asks the panel again).
NEW_GAME = "a new game started; join again with its code"


def _normalise(code: str) -> bytes:
    # People read codes aloud and type them in lower case, with spaces or dashes. Bytes: what a
    # phone's keyboard types may hold any letter, and the compare takes the bytes as typed.
    return "".join(c for c in code.upper() if c.isalnum()).encode()


def seated_name(table: str) -> str | None:
    """The name of the seat this phone holds in the table's current game, if it holds one: a player who
    scans the join code again, or opens the table page, is shown the way back to their own page."""
    state = mqtt_view().state(table) or {}
    carry(current_session(create=False), mqtt_view(), store(), table, state)
    seat = joined_seat(table, state.get("game_id"))
    players = state.get("players") or []
    if seat is None:
        return None
    return str(players[seat]) if 0 <= seat < len(players) else f"player {seat + 1}"


@bp.get("/t/<table>/join")
def join_form(table: str) -> str:
    known_table(table)
    current_session()
    return render_template("join.html", table=table, error=None, seated=seated_name(table))


@bp.post("/t/<table>/join")
def join(table: str) -> Any:
    known_table(table)
    # A mistyped code shows the form again with the reason (and keeps its status for scripts).
    return form_again(lambda: _join(table),
                      lambda reason: render_template("join.html", table=table, error=reason,
                                                     seated=seated_name(table)))


def _join(table: str) -> Any:
    check_csrf()
    guess = guessing("join", table)
    token = settings().token_for(table)
    if token is None:
        abort(409, description=f"this panel does not hold table {table!r}'s control token, so players cannot join")
    state = mqtt_view().state(table) or {}
    game_id, players = state.get("game_id"), state.get("players") or []
    if not isinstance(game_id, str) or not players:
        abort(409, description=f"table {table!r} has no game to join yet")
    code = _normalise(request.form.get("code", ""))
    if not code:
        abort(400, description="type the join code the referee gave you")
    for seat in range(len(players)):
        if same_secret(code, join_code(token, table, game_id, seat)):
            sess = guess.succeeded()
            sess.seats[table] = Seat(game_id=game_id, seat=seat)
            remember(sess)
            mqtt_view().seats_changed(table)  # this phone's other page of another seat learns it at once
            return redirect(url_for("player.me", table=table), code=303)
    guess.wrong()
    abort(403, description="that join code does not match a seat of the current game")


@bp.post("/t/<table>/leave")
def leave(table: str) -> Any:
    known_table(table)
    check_csrf()
    sess = current_session(create=False)
    if sess is not None:
        sess = renew_session(sess)  # the id that held the seat is worth nothing from now on
        sess.seats.pop(table, None)
        remember(sess)
        mqtt_view().seats_changed(table)  # this phone's other pages of the seat learn it at once
    return redirect(url_for("tables.table_page", table=table), code=303)


def _seat_or_403(table: str) -> int:
    state = mqtt_view().state(table) or {}
    if not state.get("game_id"):
        sess = current_session(create=False)
        if sess is not None and table in sess.seats:
            # A panel just restarted has not had the table's state yet: the seat is not lost, so
            # the player's page must try again (a 403 would tell them to join again).
            abort(503, description="the table's game has not reached the panel yet; trying again")
    sess = current_session(create=False)
    carry(sess, mqtt_view(), store(), table, state)
    seat = joined_seat(table, state.get("game_id"))
    if seat is None:
        if not_playing(sess, table, state):
            abort(403, description=NOT_PLAYING)
        held = sess.seats.get(table) if sess is not None else None
        if held is not None and held.game_id != state.get("game_id"):
            abort(403, description=NEW_GAME)
        abort(403, description="join this table with your join code to see your own view")
    return seat


def private_view(table: str, seat: int) -> dict[str, Any]:
    """The opened private view of ``seat``, or an explanation of why there is none yet."""
    game_id = (mqtt_view().state(table) or {}).get("game_id")
    return _open(settings().token_for(table), mqtt_view(), table, seat, game_id)


@bp.get("/t/<table>/me")
def me(table: str) -> str:
    known_table(table)
    seat = _seat_or_403(table)
    players = (mqtt_view().state(table) or {}).get("players") or []
    name = players[seat] if seat < len(players) else f"player {seat + 1}"
    return render_template("player.html", table=table, seat=seat, name=name)


@bp.get("/api/t/<table>/me")
def api_me(table: str) -> Response:
    known_table(table)
    return jsonify(private_view(table, _seat_or_403(table)))


@bp.get("/t/<table>/me/stream")
def me_stream(table: str) -> Response:
    known_table(table)
    seat = _seat_or_403(table)
    sess = current_session(create=False)
    assert sess is not None
    settings_now, view, sessions = settings(), mqtt_view(), store()
    game_now = (view.state(table) or {}).get("game_id")

    def still_seated() -> bool:
        # Checked on every item: a new game, or leaving, ends the private feed at once.
        joined = sess.seats.get(table)
        game_id = (view.state(table) or {}).get("game_id")
        return joined is not None and joined.seat == seat and joined.game_id == game_id

    def carried() -> bool:
        # The referee kept the players on their phones: this player's seat of the new game is theirs.
        # The page opens again for it (its seat, its hand, its moves are drawn for one seat).
        state = view.state(table) or {}
        if state.get("game_id") == game_now:
            return False
        joined = carry(sess, view, sessions, table, state)
        return joined is not None and joined.game_id == state.get("game_id")

    def why_gone() -> str:
        # What a person reads: what happened to their seat, in words (never a seat number).
        joined = sess.seats.get(table)
        state = view.state(table) or {}
        if joined is None:
            return "you left your seat (on this phone's other page); join again with your code"
        if not_playing(sess, table, state):
            return NOT_PLAYING
        if joined.game_id != state.get("game_id"):
            return NEW_GAME
        players = state.get("players") or []
        now = players[joined.seat] if 0 <= joined.seat < len(players) else "another player"
        return f"this phone now plays as {now} (joined on another page)"

    def opened() -> list[tuple[str, Any]]:
        if not still_seated():
            return [("left", {"reason": why_gone()})]
        game_id = (view.state(table) or {}).get("game_id")
        return [("private", _open(settings_now.token_for(table), view, table, seat, game_id))]

    def wants(item: Item) -> bool:
        # Cues have a stream of their own (views/effects.py); another seat's sealed view is not this page's;
        # nothing on a player's page shows the table's sensors or health (the snapshot still has them).
        if item.kind == "private_changed":
            return bool(item.data.get("seat") == seat)
        return item.kind not in NOT_FOR_PLAYERS

    def filter_item(item: Item) -> list[Item | tuple[str, Any]] | None:
        if item.kind == "private_changed":
            return list(opened())
        if item.kind == "seats_changed":
            return None if still_seated() else [("left", {"reason": why_gone()})]
        if item.kind == "state" and not still_seated():
            if carried():
                return [item, ("moved", {"reason": "a new game started, and you play in it"})]
            return [item, ("left", {"reason": why_gone()})]
        return [item]

    return stream(view, table, first=opened, filter_item=filter_item, wants=wants)


def _open(token: str | None, view: MqttView, table: str, seat: int, game_id: str | None) -> dict[str, Any]:
    envelope = view.sealed_view(table, seat)
    if token is None or envelope is None:
        return {"seat": seat, "available": False, "reason": "your private view has not arrived yet"}
    try:
        opened = unseal(token, table, seat, envelope["sealed"])
    except SealError as exc:
        return {"seat": seat, "available": False, "reason": str(exc)}
    # A game that kept the last game's players on their phones may have moved one to a seat another player
    # held: a view of that seat must name this game, never be taken on trust (docs/panel.md).
    carried = isinstance((view.state(table) or {}).get("seats_from"), dict)
    named = opened.get("game_id") if isinstance(opened, dict) else None
    if named not in ((game_id,) if carried else (None, game_id)):
        # A retained view left from the previous game: never show one game's hand in another.
        return {"seat": seat, "available": False, "reason": "your view of this game has not arrived yet"}
    return {"seat": seat, "available": True, "seq": envelope.get("seq"), "view": opened}
