"""The Flask application factory."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .auth import (
    TABLE_LOGIN_FAILURES_ALLOWED,
    JoinGuard,
    SessionStore,
    csrf_token,
    current_session,
)
from .hosts import HostCheck
from .mqtt import MqttView
from .panel_state import FileSessionStore, secret_key, state_folder
from .settings import PanelSettings


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the panel.

    ``test_config`` may hold Flask config keys plus:

    * ``PANEL_SETTINGS``: a :class:`PanelSettings` (default: ``PanelSettings()``);
    * ``MQTT_VIEW``: an :class:`MqttView` to use instead of making one (it is
      then the caller's to start and close);
    * ``START_MQTT``: ``False`` to build the view without connecting (tests
      that feed messages with ``MqttView.handle``).

    Raises ``panel_state.PanelStateError`` (a ``ValueError``) when ``settings.state_dir``
    cannot be used.
    """
    config = dict(test_config or {})
    settings: PanelSettings = config.pop("PANEL_SETTINGS", None) or PanelSettings()
    view: MqttView | None = config.pop("MQTT_VIEW", None)
    start_mqtt = bool(config.pop("START_MQTT", True))

    sessions = SessionStore()
    key = settings.secret_key
    if settings.state_dir is not None:
        # Kept on disk, so that a restarted panel logs no referee out and asks no player to join again.
        folder = state_folder(settings.state_dir)
        key = key or secret_key(folder)
        sessions = FileSessionStore(folder)

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=key or secrets.token_hex(32),
        SESSION_COOKIE_NAME="gk_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.config.update(config)

    if view is None:
        view = MqttView(settings)
        if start_mqtt:
            view.start()
        app.config["PANEL_OWNS_VIEW"] = True
    app.extensions["gravekeeper"] = view
    app.extensions["gravekeeper_settings"] = settings
    app.extensions["gravekeeper_sessions"] = sessions
    app.extensions["gravekeeper_join_guard"] = JoinGuard()
    app.extensions["gravekeeper_login_guard"] = JoinGuard(allowed=TABLE_LOGIN_FAILURES_ALLOWED)

    from .views import boards, control, effects, history, player, selftest, tables
    from .views.common import release_held

    app.register_blueprint(tables.bp)
    app.register_blueprint(control.bp)
    app.register_blueprint(player.bp)
    app.register_blueprint(selftest.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(effects.bp)
    app.register_blueprint(boards.bp)

    hosts = HostCheck(settings.listen_host, settings.public_names)

    @app.before_request
    def _check_host() -> Any:
        # First of all, before a session is made: a page of another site that made its name point
        # here (DNS rebinding) reads nothing, and learns nothing but this refusal.
        header = request.environ.get("HTTP_HOST")
        if not hosts.allows(header):
            return Response(hosts.refusal(header or "") + "\n", 421, mimetype="text/plain")
        return None

    @app.teardown_request
    def _release_tables(exc: BaseException | None) -> None:
        release_held(view)

    @app.context_processor
    def _globals() -> dict[str, Any]:
        # table_name(t): what a page shows for a table; its id stays in URLs and data attributes.
        return {"csrf_token": csrf_token, "base_topic": settings.base_topic, "table_name": view.table_name}

    @app.after_request
    def _headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
        )
        if request.endpoint != "static":
            # Pages and JSON alike: a player's hand or the join codes must not stay in a shared
            # browser's cache, or a proxy's, for the next person to read.
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        # Every refusal says why, as JSON to scripts and as a page to people.
        reason = exc.description or exc.name
        if _wants_json():
            return jsonify({"ok": False, "error": reason}), exc.code
        current_session()  # the error page has a CSRF token for its forms like any other
        return render_template("error.html", code=exc.code, name=exc.name, reason=reason), exc.code

    return app


def _wants_json() -> bool:
    if request.path.startswith("/api/") or "/cmd/" in request.path or request.path.endswith("/stream"):
        return True
    if request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]
