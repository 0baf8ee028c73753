"""The effects stream: the cues of one table, as they are played (``docs/effects.md``).

A page's effects player (``static/effects.js``) listens here, apart from the
table's own stream: cues are played now or never, so there is no snapshot to
send, and a page that does not play sound need not open it. The cues are
public (they are on the table's public ``effects`` topic), so anyone who may
see the table may listen.

A page whose "Table speaker" is on says so (``?speaker=1``) for as long as its
stream is open; every page's stream is told, in ``speaker`` messages, whether
the table has one, so a player's phone can leave the table's lines to it.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, Response, current_app, request

from ..fanout import Item
from ..mqtt import MqttView
from ..sse import stream
from .common import known_table, mqtt_view

bp = Blueprint("effects", __name__)


class Speakers:
    """How many pages play sound for each table (its "Table speaker" is on), over this panel; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def has(self, table: str) -> bool:
        with self._lock:
            return self._open.get(table, 0) > 0

    def opened(self, view: MqttView, table: str) -> None:
        with self._lock:
            self._open[table] = self._open.get(table, 0) + 1
            first = self._open[table] == 1
        if first:
            view.store.fanout.broadcast(table, ("speaker", {"on": True}))

    def closed(self, view: MqttView, table: str) -> None:
        with self._lock:
            left = self._open.get(table, 0) - 1
            if left > 0:
                self._open[table] = left
            else:
                self._open.pop(table, None)
        if left <= 0:
            view.store.fanout.broadcast(table, ("speaker", {"on": False}))


def speakers() -> Speakers:
    found: Speakers = current_app.extensions.setdefault("gravekeeper_speakers", Speakers())
    return found


CUE_KINDS = frozenset({"effects", "link", "speaker"})


def _is_cue(item: Item) -> bool:
    return item.kind in CUE_KINDS


@bp.get("/t/<table>/effects/stream")
def effects_stream(table: str) -> Response:
    known_table(table)
    view, known = mqtt_view(), speakers()

    def first() -> list[tuple[str, Any]]:
        # Only when there is one: a page that opens its stream takes the table to have none.
        return [("speaker", {"on": True})] if known.has(table) else []

    response = stream(view, table, first=first, snapshot=False, wants=_is_cue)
    if request.args.get("speaker") == "1":
        known.opened(view, table)
        # Called when the stream ends, the page gone or switched off: the table has one speaker fewer.
        response.call_on_close(lambda: known.closed(view, table))
    return response
