"""The self-test page: start the self-test, walk through the guided steps, watch every result live.

The page needs the table's control token (the self-test moves the table's
board out of play). Commands go through the panel's usual signed route
(``POST /t/<table>/cmd/selftest``); the report arrives with the retained
health topic over the table's event stream (``health.selftest``,
``docs/selftest.md``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from ..auth import control_token, current_session
from .common import known_table, settings
from .control import log_in

bp = Blueprint("selftest", __name__)


@bp.get("/t/<table>/selftest")
def page(table: str) -> Any:
    known_table(table)
    return _render(table)


def _render(table: str, login_error: str | None = None) -> str:
    current_session()
    can_control = control_token(table) is not None
    return render_template("selftest.html", table=table, can_control=can_control,
                           panel_has_token=settings().token_for(table) is not None, login_error=login_error)


@bp.post("/t/<table>/selftest/login")
def login(table: str) -> Any:
    """The same check as the table page's login, coming back to this page."""
    return log_in(table, "selftest.page", lambda reason: _render(table, login_error=reason))
