"""The panel's workers in two pools: live pages on one, every other request on the other, the tables' people first.

waitress runs each request on a worker of one pool. A live page (an SSE stream) holds its worker for as
long as it is open, so the pool had a worker for each live page allowed plus a few, and any request could
run on any idle one. A thousand connections that ask for pages as fast as they are answered then ran on
hundreds of workers at once, all sharing one interpreter: the referee's page took 1.4 s, since it had
a five-hundredth of the CPU. Here the requests that are not live pages run on a pool of their own, a
few dozen at once however many ask, and those of a session with a place at a table (its referee, its
players: ``holds_any_place``) go before the ones waiting. A flood then waits in the queue, where it
costs nothing but its buffer, and the referee's request runs next.

A live page that would be refused (the watchers' live pages all taken, or its device's) is answered on the
request pool, in its turn, like any other short request: a flood of them then waits in that queue instead of
running on the live pages' hundreds of workers at once. A live page must never hold one of those few
workers, so one that finds room after all is refused there too (``may_hold_stream``); the page tries again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from flask import Flask
from waitress.task import ThreadedTaskDispatcher  # type: ignore[import-untyped]
from werkzeug.http import parse_cookie

from .auth import PanelSession, SessionStore, checked_login
from .settings import PanelSettings

__all__ = ["Workers", "holds_any_place", "is_live_page", "may_hold_stream"]

STREAM_SUFFIX = "/stream"  # every live page's path ends so (views: tables, player, effects)


_here = threading.local()  # in a worker's thread: whether its pool may hold live pages


def is_live_page(path: str | None) -> bool:
    return bool(path) and str(path).endswith(STREAM_SUFFIX)


def may_hold_stream() -> bool:
    """Whether the calling thread may hold a live page: any but a worker of the request pool (a thread of no
    pool, as under Flask's test client, may)."""
    return bool(getattr(_here, "holds_streams", True))


class _Pool(ThreadedTaskDispatcher):  # type: ignore[misc]
    """waitress's pool of workers, in which a task may go before the others waiting: after those that went
    first already, so that they are served in the order they came (a page's assets after the page)."""

    def __init__(self, holds_streams: bool) -> None:
        super().__init__()
        self._holds_streams = holds_streams
        self._first: weakref.WeakSet[Any] = weakref.WeakSet()  # the connections that went first, while they wait

    def handler_thread(self, thread_no: int) -> None:
        _here.holds_streams = self._holds_streams
        super().handler_thread(thread_no)

    def add_task(self, task: Any) -> None:
        with self.lock:
            self._first.discard(task)  # a connection's next request waits its turn like any other
        super().add_task(task)

    def add_first(self, task: Any) -> None:
        with self.lock:
            at = 0
            for waiting in self.queue:
                if waiting not in self._first:
                    break
                at += 1
            self._first.add(task)
            self.queue.insert(at, task)
            self.queue_cv.notify()


class _Call:
    """A task of the panel's own for a pool, as waitress runs its channels: ``service``, or ``cancel`` at a stop."""

    def __init__(self, fn: Callable[[], None]) -> None:
        self._fn = fn

    def service(self) -> None:
        self._fn()

    def cancel(self) -> None:
        pass


class Workers:
    """waitress's task dispatcher, as two pools (see the module's text). ``placed(request)`` says whether
    a request comes from a session with a place, ``room(channel)`` whether a live page of someone watching
    from the connection's address would be let in now; both run in the thread that reads the connections."""

    def __init__(self, streams: int, requests: int, placed: Callable[[Any], bool],
                 room: Callable[[Any], bool] = lambda channel: True) -> None:
        self.streams, self.requests = _Pool(holds_streams=True), _Pool(holds_streams=False)
        self.streams.set_thread_count(streams)
        self.requests.set_thread_count(requests)
        self._placed = placed
        self._room = room

    def add_task(self, channel: Any) -> None:
        # waitress hands the connection, whose first request has fully arrived.
        request = channel.requests[0] if channel.requests else None
        if is_live_page(getattr(request, "path", None)):
            if self._room(channel) or (request is not None and self._placed(request)):
                self.streams.add_task(channel)
            else:  # it will be refused: answered in its turn, on a few workers, not on hundreds at once
                self.requests.add_task(channel)
        elif request is not None and self._placed(request):
            self.requests.add_first(channel)
        else:
            self.requests.add_task(channel)

    def run_first(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on a request worker, before the requests waiting (after the tables' people's): the
        panel's own heartbeat asks whether a worker still comes free."""
        self.requests.add_first(_Call(fn))

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        streams = bool(self.streams.shutdown(cancel_pending, timeout))
        return bool(self.requests.shutdown(cancel_pending, timeout)) and streams


def holds_any_place(app: Flask) -> Callable[[Any], bool]:
    """For waitress's request (before Flask sees it): whether its session cookie is one of this panel's and
    its session holds a place at some table, logged in with the token the panel holds or seated by a code.

    Only for the order requests are served in; what a request may do is still decided by the views.
    """
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    name = str(app.config["SESSION_COOKIE_NAME"])
    sessions: SessionStore = app.extensions["gravekeeper_sessions"]
    settings: PanelSettings = app.extensions["gravekeeper_settings"]

    def placed(request: Any) -> bool:
        cookie = request.headers.get("COOKIE") if isinstance(getattr(request, "headers", None), dict) else None
        if not cookie or serializer is None:
            return False
        value = parse_cookie(str(cookie)).get(name)
        if not value:
            return False
        try:
            data = serializer.loads(value)
        except Exception:  # not signed by this panel, altered, or not a cookie at all: no place
            return False
        sess = sessions.get(data.get("sid") if isinstance(data, dict) else None)
        return sess is not None and has_place(sess, settings)

    return placed


def has_place(sess: PanelSession, settings: PanelSettings) -> bool:
    return bool(sess.seats) or any(checked_login(sess, table, settings) for table in list(sess.tokens))
