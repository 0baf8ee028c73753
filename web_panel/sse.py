"""Server-sent event streams: everything retained first, then changes as they come."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, abort, current_app, request

from .auth import client_key, holds_place
from .fanout import Item, Subscriber, Wants, encode_sse
from .mqtt import LIST, MqttView
from .stream_gate import StreamGate, StreamRefused
from .workers import is_live_page, may_hold_stream

KEEPALIVE_SECONDS = 15.0  # also how soon a vanished client's thread notices, where the server cannot say
GONE_CHECK_SECONDS = 2.0  # how often a stream asks the server whether its client has gone

# What to send for one change of the table: the change itself (an Item), others, or None to drop it.
Filter = Callable[[Item], list[Item | tuple[str, Any]] | None]

format_event = encode_sse


def stream(view: MqttView, table: str, first: Callable[[], list[tuple[str, Any]]] | None = None,
           filter_item: Filter | None = None, snapshot: bool = True, wants: Wants | None = None) -> Response:
    """An SSE response for ``table``.

    The subscription is made before the snapshot is read, so nothing that
    happens in between is lost (the page drops what it has already seen by
    ``seq``). ``first`` adds items after the snapshot; ``filter_item`` may
    rewrite or drop each item (the player stream opens its own private view); ``wants`` says which
    items the stream takes at all, in the thread that fans them out, so that the stream's thread is
    not woken for one it would drop (``fanout.Wants``).
    ``snapshot=False`` sends changes only (the effects stream: cues are now or never).

    A table's stream holds the table (``MqttView.hold``) while it runs: the panel subscribes to
    the table's traffic for as long as someone watches it. The club list's stream holds nothing.
    """

    if not is_live_page(request.path):
        # waitress's pools tell a live page by its path before Flask routes it (workers.py): one served
        # elsewhere would run on the few request workers and be refused there every time.
        raise RuntimeError(f"a live page's route must end in /stream, not {request.url_rule}")
    # waitress says when the client has closed its end (server.py reads it during the response):
    # the stream then ends within seconds, and frees its worker and its place among the device's.
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected") or (lambda: False)

    # A watcher's page may be asked to give its place to a person with a place at a table (stream_gate.py).
    given_up = threading.Event()
    subscribed: list[Subscriber] = []

    def give_up() -> None:
        given_up.set()
        for sub in list(subscribed):
            sub.offer(None)  # wakes the stream, which ends

    def generate() -> Iterator[str]:
        # Subscribed inside the body: a response whose body never runs (a HEAD request, a client
        # gone before the first byte) never reaches the ``finally`` that unsubscribes.
        sub = view.subscribe(table, wants)
        subscribed.append(sub)
        held = table != LIST
        try:
            if held:
                view.hold(table)  # subscribed to first: nothing that arrives while it waits is lost
            # EventSource reconnects by itself; one second is quick without hammering.
            yield "retry: 1000\n\n"
            if snapshot:
                yield format_event("snapshot", view.snapshot(table))
            for kind, data in first() if first else []:
                yield format_event(kind, data)
            quiet = 0.0  # seconds since the last write
            while not sub.closing.is_set() and not given_up.is_set():
                if sub.overflowed.is_set():
                    # Too slow to keep up: what was queued is stale, so start again from the picture.
                    sub.drain()
                    sub.overflowed.clear()
                    if snapshot:
                        yield format_event("snapshot", view.snapshot(table))
                    for kind, data in first() if first else []:
                        yield format_event(kind, data)
                wait = min(GONE_CHECK_SECONDS, KEEPALIVE_SECONDS)
                try:
                    item = sub.get(wait)
                except queue.Empty:
                    if gone():
                        return
                    quiet += wait
                    if quiet >= KEEPALIVE_SECONDS:
                        quiet = 0.0
                        yield ": keepalive\n\n"
                    continue
                quiet = 0.0
                if item is None or given_up.is_set():
                    return
                out = filter_item(item) if filter_item else [item]
                for it in out or []:
                    yield it.text if isinstance(it, Item) else format_event(*it)
        finally:
            view.unsubscribe(sub)
            if held:
                view.release(table)

    gate: StreamGate | None = current_app.extensions.get("gravekeeper_streams")
    client = client_key(request.remote_addr)
    placed = _placed(view, table)
    if gate is not None:
        try:
            if not may_hold_stream():
                # Sent to the few request workers because it would be refused (workers.py): refused here
                # even if a place opened since, so that no live page holds one of them.
                raise gate.refusal(client, placed) or StreamRefused(
                    "the panel was keeping all the live pages it can a moment ago", 503)
            ticket = gate.enter(client, placed, give_up)
        except StreamRefused as exc:
            # EventSource gives up on a 4xx/5xx answer; the page's own retry comes later, not at once.
            abort(exc.status, description=str(exc))
    response = Response(
        generate(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
    if gate is not None:
        # The server closes every response, even one whose body never ran (a HEAD, a client gone early).
        response.call_on_close(lambda: gate.leave(ticket))
    return response


def _placed(view: MqttView, table: str) -> bool:
    """Whether this request's session has a place at ``table`` (the club list's stream is nobody's place)."""
    return table != LIST and holds_place(table, (view.state(table) or {}).get("game_id"))


def why_refused(view: MqttView, table: str) -> StreamRefused | None:
    """Why a live page of ``table`` (``LIST``: the club list) would be refused to this request's device now,
    or None if it would be let in. EventSource cannot read a refused stream's answer: the page asks this."""
    gate: StreamGate | None = current_app.extensions.get("gravekeeper_streams")
    if gate is None:
        return None
    return gate.refusal(client_key(request.remote_addr), _placed(view, table))

