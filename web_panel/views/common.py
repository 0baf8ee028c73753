"""Helpers the blueprints share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, current_app, g
from werkzeug.exceptions import HTTPException

from controller.protocol.names import is_table_id

from ..mqtt import MqttView
from ..settings import PanelSettings


def mqtt_view() -> MqttView:
    return current_app.extensions["gravekeeper"]


def settings() -> PanelSettings:
    return current_app.extensions["gravekeeper_settings"]


def known_table(table: str) -> str:
    """``table`` if the broker has told us of it; 404 naming it otherwise.

    A known table is held for the rest of the request (``MqttView.hold``): the panel subscribes to
    its full traffic if nothing did yet, and waits for its retained topics, so what the request
    reads of it is complete. The hold is released when the request ends (``release_held``); a
    stream holds it for as long as it runs (``web_panel.sse``).
    """
    if not is_table_id(table):
        abort(404, description=f"{table!r} is not a valid table id")
    view = mqtt_view()
    # Known from the list's topics (every table's status and summary): an unknown id costs no subscription.
    if not view.has_table(table):
        abort(404, description=f"no table {table!r} on the broker (is its controller running?)")
    view.hold(table)
    g.setdefault("gk_held", []).append(table)
    return table


def release_held(view: MqttView) -> None:
    """Release the tables this request held (called when the request ends)."""
    for table in g.pop("gk_held", []):
        view.release(table)


def form_again(action: Callable[[], Any], show_form: Callable[[str], str]) -> Any:
    """Run a form's ``action``; when it is refused, show the form again with the reason.

    A wrong join code or token is a person's slip, not the end of the road: the answer keeps
    the refusal's status (403, 429, ...) for scripts, but its page is the form, reason on top.
    A table that does not exist (404) still gets the plain error page: there is no form to show.
    """
    try:
        return action()
    except HTTPException as exc:
        if exc.code is None or exc.code == 404:
            raise
        reason = str(exc.description or exc.name)
        return show_form(reason[:1].upper() + reason[1:]), exc.code
