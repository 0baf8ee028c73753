"""Server-sent event streams: everything retained first, then changes as they come."""

from __future__ import annotations

import json
import queue
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response

from .mqtt_view import MqttView

KEEPALIVE_SECONDS = 15.0  # also how soon a vanished client's thread notices

# Returns the SSE items to send for an item from the table, or None to drop it.
Filter = Callable[[str, Any], list[tuple[str, Any]] | None]


def format_event(kind: str, data: Any) -> str:
    body = json.dumps(data, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n"


def stream(view: MqttView, table: str, first: Callable[[], list[tuple[str, Any]]] | None = None,
           filter_item: Filter | None = None) -> Response:
    """An SSE response for ``table``.

    The subscription is made before the snapshot is read, so nothing that
    happens in between is lost (the page drops what it has already seen by
    ``seq``). ``first`` adds items after the snapshot; ``filter_item`` may
    rewrite or drop each item (the player stream opens its own private view).
    """
    sub = view.subscribe(table)

    def generate() -> Iterator[str]:
        try:
            # EventSource reconnects by itself; one second is quick without hammering.
            yield "retry: 1000\n\n"
            yield format_event("snapshot", view.snapshot(table))
            for kind, data in first() if first else []:
                yield format_event(kind, data)
            while True:
                if sub.overflowed.is_set():
                    # Too slow to keep up: what was queued is stale, so start again from the picture.
                    sub.drain()
                    sub.overflowed.clear()
                    yield format_event("snapshot", view.snapshot(table))
                    for kind, data in first() if first else []:
                        yield format_event(kind, data)
                try:
                    item = sub.get(KEEPALIVE_SECONDS)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if item is None:
                    return
                kind, data = item
                out = filter_item(kind, data) if filter_item else [(kind, data)]
                for k, d in out or []:
                    yield format_event(k, d)
        finally:
            view.unsubscribe(sub)

    return Response(
        generate(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
