"""The current game's latest moves, retained: the ``gravekeeper/<t>/recent`` topic.

Events are not retained, so a page opened on a table that nobody was watching
would show an empty list of moves until the next one. The controller keeps
the current game's most recent public events (at most ``MAX_EVENTS``, and at
most ``MAX_BYTES`` of them as JSON) and publishes them, retained and signed
like ``state`` (``controller.protocol.publication``), so a panel that starts watching
the table mid-game shows them at once. Each event is exactly what was
published on ``<t>/events`` (``controller.mqtt.link.EVENT_KEYS``), with its
``seq``, oldest first: the very bytes the journal hands the link
(``Journal.public_after``), never decoded and encoded again. A new game (its
``game_started`` event) empties it.

It is built off the decision's hot path: the worker asks :meth:`RecentEvents.due`
after it has published a change's events and views, at most once every
``EVERY_S``, and only when the journal has new events. The events come from the
journal's in-memory tail, so a check costs no query in steady play.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from controller.protocol.commands import dumps

MAX_EVENTS = 100  # a game's last hundred moves is far more than a page opened mid-game needs to catch up
MAX_BYTES = 48 << 10  # the events' JSON; small beside the 1 MiB a panel takes (controller.protocol.mqtt5)
EVERY_S = 1.0


class EventSource(Protocol):
    def last_seq(self) -> int: ...
    def public_after(self, seq: int, limit: int | None = None) -> list[tuple[int, bytes]]: ...


# An event's public body starts {"seq":N,"table":"...","type":"..." (controller.store.journal.public_body).
# Inside a JSON string every '"' is escaped, so the first ',"type":' is the key itself, never the
# table's text, and it comes before the data (which may hold a "type" of its own).
_TYPE_KEY = b',"type":'
_GAME_STARTED = b'"game_started"'


def _starts_game(body: bytes) -> bool:
    at = body.find(_TYPE_KEY)
    return at >= 0 and body.startswith(_GAME_STARTED, at + len(_TYPE_KEY))


class RecentEvents:
    """The current game's last events, as the ``recent`` topic carries them. One caller at a time."""

    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES, every_s: float = EVERY_S) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.every_s = every_s
        self._events: deque[bytes] = deque()  # each event's public body, oldest first
        self._bytes = 0
        self._seen = -1  # the last seq read from the journal; -1: nothing read yet
        self._next = 0.0  # not before this (the worker's monotonic clock)

    def due(self, journal: EventSource, now: float) -> bool:
        """Whether it is time to publish, and there is something new since the last time (then taken in)."""
        if now < self._next:
            return False
        last = journal.last_seq()
        if last == self._seen:
            return False
        self._next = now + self.every_s
        self.take(journal)
        return True

    def take(self, journal: EventSource) -> None:
        """Read the events the journal has beyond the last one taken."""
        last = journal.last_seq()
        if last < self._seen:
            self._clear()  # a journal started afresh numbers its events from 1 again
            self._seen = -1
        # First look: only the last MAX_EVENTS can matter, and a game_started among them cuts the rest.
        start = max(0, last - self.max_events) if self._seen < 0 else self._seen
        for _, body in journal.public_after(start):
            self._add(body)
        self._seen = last

    def _add(self, body: bytes) -> None:
        if _starts_game(body):
            self._clear()  # a new game, a new log: never an older game's moves in this one's
        self._events.append(body)
        self._bytes += len(body)
        while len(self._events) > self.max_events or (self._bytes > self.max_bytes and len(self._events) > 1):
            self._bytes -= len(self._events.popleft())

    def _clear(self) -> None:
        self._events.clear()
        self._bytes = 0

    def payload(self, game: Mapping[str, Any] | None) -> bytes:
        """The topic's JSON object, encoded as the link encodes one (``dumps``): ``seq`` (the journal's
        last seq when it was read), ``game`` (id, name, title, players: which game the events belong
        to), and ``events``, oldest first, each the bytes it was published with on the events topic."""
        head = b'{"seq":%d,"game":%s,"events":[' % (max(self._seen, 0), dumps(dict(game) if game is not None else None))
        return head + b",".join(self._events) + b"]}"

    def __len__(self) -> int:
        return len(self._events)

    @property
    def bytes(self) -> int:
        return self._bytes
