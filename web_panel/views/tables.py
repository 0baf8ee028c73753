"""Public pages: the table list, a table's live page, its snapshot and its event stream."""

from __future__ import annotations

import re
import unicodedata
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
from markupsafe import Markup

from controller.games import GAME_NAMES, game_title, get_game

from ..auth import check_csrf, control_token, current_session
from ..fanout import Item
from ..house_rules import HOUSE_RULES
from ..mqtt import LIST
from ..reach import join_path, other_devices_can_use, qr_svg, reach_urls
from ..sse import stream, why_refused
from .common import known_table, mqtt_view, settings
from .player import seated_name

bp = Blueprint("tables", __name__)


# The page's collator (Unicode's root order, as Chromium has it) puts the ASCII marks in this order, all
# before digits and letters; a run of digits counts as its number (its length first, then its digits).
_MARKS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_BEFORE_DIGITS = str.maketrans({c: chr(1 + i) for i, c in enumerate(_MARKS)})
_NUMBER = chr(1 + len(_MARKS))


def natural(text: str) -> str:
    """Table 2 before table 10, case and accents aside, as the page's collator orders them (index.js):
    ids and names of ASCII letters, digits and marks exactly so, other letters as near as Python allows."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))
    return re.sub(r"\d+", lambda m: f"{_NUMBER}{len(m[0].lstrip('0')):03d}{m[0].lstrip('0')}",
                  folded.translate(_BEFORE_DIGITS))


def club_order(t: dict[str, Any]) -> tuple[Any, ...]:
    """The club list's order, the same before the page's script takes over as after (index.js, render):
    mismatches first, then online before offline, then room, name and id in natural order."""
    return (not t["mismatch"], not t["online"], natural(t["room"] or ""), natural(t["name"] or ""),
            natural(t["table"]))


@bp.get("/")
def index() -> str:
    current_session()
    tables = sorted(mqtt_view().tables(), key=club_order)
    # The filter offers every game, played at some table or not: the names come from the games themselves.
    titles = {g: game_title(g) for g in GAME_NAMES}
    return render_template("index.html", tables=tables, broker=mqtt_view().connected.is_set(),
                           games=list(titles.items()), titles=titles)


@bp.post("/t/<table>/forget")
def forget(table: str) -> Any:
    """Take an offline table off the list (its retained topics are deleted from the broker)."""
    known_table(table)
    check_csrf()
    if not mqtt_view().forget(table):
        abort(409, description=f"table {table!r} is online: only an offline table can be forgotten")
    return redirect(url_for("tables.index"), code=303)


@bp.get("/api/tables")
def api_tables() -> Response:
    return jsonify({"broker": "connected" if mqtt_view().connected.is_set() else "disconnected",
                    "tables": mqtt_view().tables()})


def join_link(table: str) -> str:
    """The join page's address as a phone at the table can open it.

    The referee's own browser may use ``127.0.0.1`` (the panel's machine itself), which a
    phone cannot: then the panel's first address on the network stands in for it.
    """
    path = join_path(table)
    host = request.host.rsplit(":", 1)[0].strip("[]")
    if host in ("127.0.0.1", "localhost", "::1"):
        urls = [u for u in reach_urls(settings().listen_host, _port(), path) if other_devices_can_use(u)]
        if urls:
            return urls[0]
    return request.host_url.rstrip("/") + path


def _port() -> int:
    try:
        return int(request.host.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return 80


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


@bp.get("/api/live")
def live_room() -> Response:
    """Whether a live page (of ``?table=``, or the club list) would be let in now, and if not, why, in words.

    A page whose stream the panel refused (the device's live pages all open, the panel full) cannot read the
    answer: it asks here, shows the words, and tries again by itself."""
    table = request.args.get("table") or LIST
    if table != LIST:
        known_table(table)
    refused = why_refused(mqtt_view(), table)
    if refused is None:
        return jsonify({"open": True})
    return jsonify({"open": False, "why": refused.reason, "status": refused.status})


@bp.get("/t/<table>")
def table_page(table: str) -> str:
    known_table(table)
    return render_table(table)


def render_table(table: str, login_error: str | None = None) -> str:
    """The table page; ``login_error`` says why the token just typed was refused, above the form again."""
    current_session()
    can_control = control_token(table) is not None
    join_url = join_link(table) if can_control else None
    last = mqtt_view().state(table) or {}
    players: list[Any] = last["players"] if isinstance(last.get("players"), list) else []
    return render_template(
        "table.html",
        table=table,
        can_control=can_control,
        panel_has_token=settings().token_for(table) is not None,
        games=[get_game(name) for name in GAME_NAMES],
        house_rules=HOUSE_RULES,
        # The form starts from the last game: same game, same players (a rematch is one tap).
        new_game={"game": last.get("game") if last.get("game") in GAME_NAMES else GAME_NAMES[0],
                  "players": ", ".join(str(p) for p in players)},
        join_url=join_url,
        join_local=not other_devices_can_use(join_url) if join_url else False,
        join_qr=Markup(qr_svg(join_url)) if join_url else None,  # segno's own SVG, no user text in it
        login_error=login_error,
        seated=seated_name(table),
    )


@bp.get("/api/t/<table>")
def api_table(table: str) -> Response:
    known_table(table)
    return jsonify(mqtt_view().snapshot(table))


# Spectators learn that a seat's sealed view changed from the topic name anyway; they need not be told,
# nor when someone joins or leaves a seat. Cues have a stream of their own (views/effects.py).
NOT_PUBLIC = frozenset({"private_changed", "seats_changed", "effects"})


def _public(item: Item) -> bool:
    return item.kind not in NOT_PUBLIC


@bp.get("/t/<table>/stream")
def table_stream(table: str) -> Response:
    known_table(table)
    return stream(mqtt_view(), table, wants=_public)
