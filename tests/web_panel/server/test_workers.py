"""The request pool's order: the tables' people before the others waiting, each in the order they came."""

from __future__ import annotations

import logging
import threading

import pytest

from web_panel.app import create_app
from web_panel.auth import PanelSession, Seat
from web_panel.mqtt import LIST
from web_panel.settings import PanelSettings
from web_panel.sse import stream
from web_panel.workers import Workers, has_place, is_live_page, may_hold_stream


class _Request:
    def __init__(self, path: str, placed: bool) -> None:
        self.path, self.placed = path, placed


class _Channel:
    def __init__(self, name: str, path: str = "/t/a", placed: bool = False) -> None:
        self.name = name
        self.requests = [_Request(path, placed)]


def test_placed_requests_go_first_in_the_order_they_came_and_live_pages_to_their_own_pool(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "waitress.queue")  # it counts what waits, which is the point here
    workers = Workers(0, 0, lambda request: bool(request.placed))  # no threads: only the queues are looked at
    for name, path, placed in [("w1", "/t/a", False), ("p1", "/t/a", True), ("w2", "/static/x.js", False),
                               ("s1", "/t/a/stream", False), ("p2", "/t/a/me", True),
                               ("s2", "/t/a/effects/stream", True), ("w3", "/t/a/join", False)]:
        workers.add_task(_Channel(name, path, placed))
    assert [c.name for c in workers.requests.queue] == ["p1", "p2", "w1", "w2", "w3"]
    assert [c.name for c in workers.streams.queue] == ["s1", "s2"]


def test_live_pages_that_would_be_refused_are_answered_on_the_request_pool(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "waitress.queue")
    room = {"yes": True}
    workers = Workers(0, 0, lambda request: bool(request.placed), lambda channel: room["yes"])
    workers.add_task(_Channel("s1", "/t/a/stream"))
    room["yes"] = False  # the watchers' live pages are all taken
    workers.add_task(_Channel("s2", "/t/a/stream"))  # a watcher's: it will be refused
    workers.add_task(_Channel("s3", "/t/a/me/stream", placed=True))  # a player's: it may take what is left
    assert [c.name for c in workers.streams.queue] == ["s1", "s3"]
    assert [c.name for c in workers.requests.queue] == ["s2"]


def test_only_the_live_pages_workers_may_hold_a_live_page() -> None:
    seen: dict[str, bool] = {}
    done = threading.Event()

    class Task:
        def __init__(self, name: str) -> None:
            self.name = name

        def service(self) -> None:
            seen[self.name] = may_hold_stream()
            if len(seen) == 2:
                done.set()

        def cancel(self) -> None:
            pass

    workers = Workers(1, 1, lambda request: False)
    try:
        workers.streams.add_task(Task("live pages' worker"))
        workers.requests.add_task(Task("request worker"))
        assert done.wait(5)
    finally:
        workers.shutdown(timeout=5)
    assert seen == {"live pages' worker": True, "request worker": False}
    assert may_hold_stream()  # a thread of no pool (Flask's test client runs views in the caller's)


def test_what_counts_as_a_live_page_and_as_a_place() -> None:
    assert is_live_page("/t/a/stream") and is_live_page("/api/tables/stream") and is_live_page("/t/a/me/stream")
    assert not is_live_page("/t/a/streams") and not is_live_page("/t/a") and not is_live_page(None)
    settings = PanelSettings(token="right-token")
    assert not has_place(PanelSession("s", "c"), settings)
    assert has_place(PanelSession("s", "c", tokens={"a": "right-token"}), settings)
    assert not has_place(PanelSession("s", "c", tokens={"a": "wrong-token"}), settings)
    assert has_place(PanelSession("s", "c", seats={"a": Seat("g1", 0)}), settings)
    # A panel that holds no token cannot check a typed one: it earns nothing.
    assert not has_place(PanelSession("s", "c", tokens={"a": "anything"}), PanelSettings())


def test_every_live_page_route_is_one_the_pools_tell_by_its_path() -> None:
    """The pools read the path before Flask routes it: each route that serves a stream ends so, and a stream
    served on a route that does not is refused loudly, at once, not on every request of a busy night."""
    app = create_app({"START_MQTT": False})
    streams = [r.rule for r in app.url_map.iter_rules() if r.rule.endswith("/stream")]
    assert sorted(streams) == ["/api/tables/stream", "/t/<table>/effects/stream", "/t/<table>/me/stream",
                               "/t/<table>/stream"]
    view = app.extensions["gravekeeper"]
    with app.test_request_context("/api/tables/streams"), pytest.raises(RuntimeError, match="must end in /stream"):
        stream(view, LIST, snapshot=False)
    with app.test_request_context("/api/tables/stream"):
        assert stream(view, LIST, snapshot=False).mimetype == "text/event-stream"

