"""The self-test page: start the self-test, walk through the guided steps, watch every result live.

The page needs the table's control token (the self-test moves the table's
board out of play). Commands go through the panel's usual signed route
(``POST /t/<table>/cmd/selftest``); the report arrives with the retained
health topic over the table's event stream (``health.selftest``,
``docs/selftest.md``).
"""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for

from ..auth import check_csrf, control_token, current_session
from .common import known_table, settings

bp = Blueprint("selftest", __name__)


@bp.get("/t/<table>/selftest")
def page(table: str) -> Any:
    known_table(table)
    current_session()
    can_control = control_token(table) is not None
    return render_template("selftest.html", table=table, can_control=can_control,
                           panel_has_token=settings().token_for(table) is not None)


@bp.post("/t/<table>/selftest/login")
def login(table: str) -> Any:
    """The same check as the table page's login, coming back to this page."""
    known_table(table)
    check_csrf()
    token = request.form.get("token", "")
    if not token:
        abort(400, description="type the table's control token to log in")
    configured = settings().token_for(table)
    if configured is not None and not hmac.compare_digest(token.encode(), configured.encode()):
        abort(403, description=f"that is not the control token of table {table!r}")
    sess = current_session()
    assert sess is not None
    sess.tokens[table] = token
    return redirect(url_for("selftest.page", table=table), code=303)
