"""Who may open a live page (an SSE stream): limits per device and in all, and places kept for the tables' people.

Each live page holds a server worker while it lasts, so their number is bounded (``server.capacity``).
A quarter of them are kept for the people with a place at a table (its referee, its seated players:
``auth.holds_place``): people who only watch may hold the rest and no more. And when every live page is
taken, a person with a place still gets one: a watcher's page gives its place up, one of the device that
holds the most, the oldest of those. A club of many tables has more of its people than a quarter of the
places; watchers who came first must not keep them out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from gravekeeper.errors import GravekeeperError

from .auth import THIS_MACHINE

__all__ = ["StreamGate", "StreamRefused", "Ticket"]


class StreamRefused(GravekeeperError):
    """No stream for this client now; the message says why in words and what to do (``advice``), ``status``
    is the HTTP answer. ``reason`` is the why alone: a page that tries again by itself says its own advice."""

    def __init__(self, reason: str, status: int, advice: str = "try again in a moment") -> None:
        super().__init__(f"{reason}; {advice}")
        self.reason, self.status, self.advice = reason, status, advice


@dataclass(eq=False)
class Ticket:
    """One open stream, as the gate counts it: give it back to ``StreamGate.leave`` when the stream ends."""

    client: str
    placed: bool
    give_up: Callable[[], None] = field(repr=False)  # ends the stream (a watcher's, to make room)


class StreamGate:
    """How many streams are open, per client address and in all (see the module's text).

    ``start_panel`` puts one in the app (``app.extensions["gravekeeper_streams"]``); an app built
    for the test client has none and opens streams without counting.
    """

    def __init__(self, per_client: int, total: int, kept: int = 0) -> None:
        self.per_client, self.total, self.kept = per_client, total, max(0, min(kept, total))
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}
        self._tickets: dict[Ticket, None] = {}  # every stream counted, oldest first
        self._watching = 0  # streams of sessions with no place at their table
        self.given_up = 0  # watchers' streams ended to make room for a person with a place

    def enter(self, client: str, placed: bool = False, give_up: Callable[[], None] = lambda: None) -> Ticket:
        """Count one more stream for ``client`` (``placed``: its session has a place at the stream's table),
        or raise ``StreamRefused``. ``give_up`` ends the stream: a watcher's is called when the panel is full
        and a person with a place needs its place, which is then theirs at once."""
        with self._lock:
            refused = self._refusal(client, placed)
            ended: Ticket | None = None
            if refused is not None and refused.status == 503 and placed:
                ended = self._make_room()
                refused = self._refusal(client, placed)
            if refused is not None:
                raise refused
            ticket = Ticket(client, placed, give_up)
            self._count_in(ticket)
        if ended is not None:
            ended.give_up()  # outside the lock: it wakes the stream's worker, which leaves (a no-op now)
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """The stream of ``ticket`` ended; once only counts (a watcher's given up was counted out already)."""
        with self._lock:
            if ticket in self._tickets:
                self._count_out(ticket)

    def refusal(self, client: str, placed: bool = False) -> StreamRefused | None:
        """Why a stream for ``client`` would be refused now, or None if it would be let in."""
        with self._lock:
            return self._refusal(client, placed)

    def open_streams(self, client: str | None = None) -> int:
        with self._lock:
            return len(self._tickets) if client is None else self._open.get(client, 0)

    def _refusal(self, client: str, placed: bool) -> StreamRefused | None:
        held = self._open.get(client, 0)
        if held >= self.per_client and client not in THIS_MACHINE:
            return StreamRefused(f"this device already has {_pages(held)} open, the most the panel "
                                 "keeps for one device", 429, "close one and reload")
        if len(self._tickets) >= self.total:
            return StreamRefused(f"the panel already keeps {_pages(len(self._tickets))} open, all it can",
                                 503)
        if not placed and self._watching >= self.total - self.kept:
            return StreamRefused(f"the panel already keeps {_pages(self._watching)} open for people "
                                 "watching, all it keeps for them (the rest are for the referees and the "
                                 "players)", 503)
        return None

    def _make_room(self) -> Ticket | None:
        """Count out a watcher's stream, to be given up: the oldest of the device that holds the most."""
        watching: dict[str, list[Ticket]] = {}
        for ticket in self._tickets:
            if not ticket.placed:
                watching.setdefault(ticket.client, []).append(ticket)
        if not watching:
            return None  # every live page is a person's with a place: nobody is put out for another
        most = max(watching.values(), key=len)  # ties: the device first seen, as dicts keep their order
        self._count_out(most[0])
        self.given_up += 1
        return most[0]

    def _count_in(self, ticket: Ticket) -> None:
        self._tickets[ticket] = None
        self._open[ticket.client] = self._open.get(ticket.client, 0) + 1
        self._watching += 0 if ticket.placed else 1

    def _count_out(self, ticket: Ticket) -> None:
        del self._tickets[ticket]
        held = self._open.get(ticket.client, 0) - 1
        if held > 0:
            self._open[ticket.client] = held
        else:
            self._open.pop(ticket.client, None)
        if not ticket.placed:
            self._watching -= 1


def _pages(count: int) -> str:
    return f"{count} live page" if count == 1 else f"{count} live pages"

