"""The board editor: owners' boards, decks and tiles, for holders of a table's control token.

The files belong to the panel (its ``boards_dir``), not to one table; the
pages sit under a table so that the table's control token, the one the
referee logged in with, is what opens them. Every change is checked by the
engines' own loaders (``web_panel.boards_store``); the answer says where the
problem is, and the editor shows it at that cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template, request

from controller.games.terror import catalogue as card_catalogue

from ..auth import check_csrf, control_token
from ..boards_store import (
    DEFAULT_NAME,
    KINDS,
    MAX_DOCUMENT_BYTES,
    BoardError,
    BoardStore,
    Kind,
    kind_of,
    parse_document,
    validate,
)
from .common import known_table, settings

bp = Blueprint("boards", __name__)


def _allowed(table: str) -> None:
    known_table(table)
    if control_token(table) is None:
        abort(403, description="the board editor is for the holder of the table's control token: log in first")


def _store() -> BoardStore:
    folder = settings().boards_dir
    return BoardStore(Path(folder) if folder else None)


def _writable_store() -> BoardStore:
    """The store for a save or a delete; without a boards directory there is nowhere to write."""
    store = _store()
    if store.root is None:
        abort(409, description="this panel has no boards directory to save in (see boards_dir in docs/boards.md)")
    return store


def _kind(key: str) -> Kind:
    try:
        return kind_of(key)
    except BoardError as exc:
        abort(404, description=str(exc))


def _refusal(exc: BoardError, status: int = 422) -> Any:
    # ``error`` names the file's entry (machines, hand edits); ``reason`` is what a person reads.
    return jsonify({"ok": False, "error": str(exc), "reason": exc.reason, "at": exc.at}), status


def _too_big() -> Any:
    """A body over the file limit is refused unread, in words: not the server's bare "too large"."""
    length = request.content_length
    if length is not None and length > MAX_DOCUMENT_BYTES:
        return _refusal(BoardError(f"the file is {length // 1024} KiB, larger than {MAX_DOCUMENT_BYTES // 1024} KiB: "
                                   "a board, card mix or set of tiles takes a few KiB; nothing was saved"), 413)
    return None


@bp.get("/t/<table>/boards")
def boards_page(table: str) -> str:
    _allowed(table)
    store = _store()
    listing = {k: store.names(kind) for k, kind in KINDS.items()}
    return render_template("boards.html", table=table, kinds=KINDS, listing=listing,
                           can_save=store.root is not None)


@bp.get("/t/<table>/boards/<key>/edit")
def edit_page(table: str, key: str) -> str:
    _allowed(table)
    kind = _kind(key)
    name = request.args.get("name", DEFAULT_NAME)
    # The card mix offers every card the engine knows, not only those the file holds.
    extra = {"catalogue": card_catalogue()} if kind.key == "terror-cards" else {}
    return render_template("board_edit.html", table=table, kind=kind, name=name,
                           can_save=_store().root is not None, **extra)


@bp.get("/api/t/<table>/boards")
def listing(table: str) -> Response:
    _allowed(table)
    store = _store()
    return jsonify({"kinds": {k: {"game": kind.game, "option": kind.option, "title": kind.title,
                                  "names": store.names(kind)}
                              for k, kind in KINDS.items()}})


@bp.get("/api/t/<table>/boards/<key>/<name>")
def document(table: str, key: str, name: str) -> Any:
    """The file as stored; with ``?download=1`` as an attachment (the export)."""
    _allowed(table)
    kind = _kind(key)
    try:
        raw = _store().raw(kind, name)
    except BoardError as exc:
        abort(404, description=str(exc))
    response = Response(raw, mimetype="application/json")
    if request.args.get("download"):
        response.headers["Content-Disposition"] = f'attachment; filename="{kind.key}-{name}.json"'
    return response


@bp.post("/api/t/<table>/boards/<key>/check")
def check(table: str, key: str) -> Any:
    """Check an edited document without keeping it: the editor asks after every change."""
    _allowed(table)
    check_csrf()
    kind = _kind(key)
    if (refused := _too_big()) is not None:
        return refused
    try:
        validate(kind, parse_document(request.get_data(cache=False)))
    except BoardError as exc:
        return _refusal(exc)
    return jsonify({"ok": True})


@bp.post("/api/t/<table>/boards/<key>/<name>")
def save(table: str, key: str, name: str) -> Any:
    """Save (or import: the body is the file) under ``name``; a refused document saves nothing."""
    _allowed(table)
    check_csrf()
    kind = _kind(key)
    store = _writable_store()
    if (refused := _too_big()) is not None:
        return refused
    try:
        store.save(kind, name, parse_document(request.get_data(cache=False)))
    except BoardError as exc:
        return _refusal(exc)
    except OSError as exc:
        abort(500, description=f"the file could not be written: {exc.strerror}")
    return jsonify({"ok": True, "name": name})


@bp.post("/api/t/<table>/boards/<key>/<name>/delete")
def delete(table: str, key: str, name: str) -> Any:
    _allowed(table)
    check_csrf()
    kind = _kind(key)
    store = _writable_store()
    try:
        store.delete(kind, name)
    except BoardError as exc:
        return _refusal(exc, 404)
    return jsonify({"ok": True})


@bp.get("/api/t/<table>/boards/options/<game>")
def new_game_options(table: str, game: str) -> Any:
    """The new-game options for the files chosen in the new-game form (``?terror-board=NAME``...)."""
    _allowed(table)
    store = _store()
    choices = {k: v for k, v in request.args.items() if k in KINDS}
    try:
        return jsonify({"ok": True, "options": store.new_game_options(game, choices)})
    except BoardError as exc:
        return _refusal(exc)
