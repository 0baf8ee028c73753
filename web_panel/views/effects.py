"""The effects stream: the cues of one table, as they are played (``docs/effects.md``).

A page's effects player (``static/effects.js``) listens here, apart from the
table's own stream: cues are played now or never, so there is no snapshot to
send, and a page that does not play sound need not open it. The cues are
public (they are on the table's public ``effects`` topic), so anyone who may
see the table may listen.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from ..fanout import Item
from ..sse import stream
from .common import known_table, mqtt_view

bp = Blueprint("effects", __name__)


def _cues_only(item: Item) -> list[Item | tuple[str, Any]] | None:
    return [item] if item.kind in ("effects", "link") else None


@bp.get("/t/<table>/effects/stream")
def effects_stream(table: str) -> Response:
    known_table(table)
    return stream(mqtt_view(), table, filter_item=_cues_only, snapshot=False)
