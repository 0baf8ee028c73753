"""What the panel knows of one table, and how a line of the club list says it.

A :class:`TableView` holds one table's public picture (its retained topics, its
event log, the game its events belong to); the functions below read a table's
messages the way the list and the pages need them. Nothing here touches the
broker: ``web_panel.mqtt._table_store`` keeps one of these per table.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.games import GAME_NAMES, get_game
from controller.protocol.names import shown_name

__all__ = ["TableView", "game_context", "game_title", "made_at", "room_of"]

# A retained state older than this by the table's stamp is not aged by it: the outcome windows are at
# most two minutes (referee.skull_window_ms), so the clocks of the panel and the table disagree.
MAX_RETAINED_AGE_S = 300.0


@dataclass
class TableView:
    """What the panel knows of one table. Only public data; private views stay sealed."""

    table: str
    status: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    sensors: dict[str, Any] | None = None
    health: dict[str, Any] | None = None
    sealed: dict[int, dict[str, Any]] = field(default_factory=dict)
    events: deque[dict[str, Any]] = field(default_factory=deque)
    last_seq: int | None = None
    gaps: int = 0
    game: dict[str, Any] | None = None  # the game the next event belongs to (see ``game_context``)
    glance: dict[str, Any] | None = None  # the retained ``summary`` topic: the table in plain words
    state_at: float | None = None  # this panel's monotonic clock when the table made ``state``, as best known
    vouched: bool = False  # the panel holds the table's token, so its status was checked (``name``)

    def name(self) -> str:
        """What people read for the table: the name its status carries, else one made from the id.

        The name is who the table is, so it is taken only from a status the panel could check (signed
        with the table's token: a forged one is refused before it gets here). A panel without the token
        cannot tell the table's name from anyone's, and shows the one made from the id.
        """
        return shown_name(self.table, (self.status or {}).get("name") if self.vouched else None)

    def snapshot(self) -> dict[str, Any]:
        """Everything public, as one JSON object (what a page draws on connect)."""
        return {
            "table": self.table,
            "name": self.name(),
            "status": self.status,
            "state": self.aged_state(),
            "sensors": self.sensors,
            "health": self.health,
            "events": list(self.events),
        }

    def aged_state(self) -> dict[str, Any] | None:
        """The state, with ``age_ms`` (how long ago the table made it) when it shows a running timer.

        A state carries what is left of an outcome window when it was made (``expects[].left_ms``);
        a page that opens in the middle of the window gets this copy, maybe seconds later, and
        counts down from what is left now (``countdown.js``). A state without a timer is as published.
        """
        if self.state is None or "time" not in self.state or self.state_at is None:
            return self.state
        return {**self.state, "age_ms": max(0, round((time.monotonic() - self.state_at) * 1000))}

    def summary(self) -> dict[str, Any]:
        # Every field is checked for its type: a table the panel cannot vouch for shows whatever
        # anyone published there, and one list line of the wrong type broke the whole club list.
        status = self.status or {}
        state = self.state or {}
        glance = self.glance or {}
        mismatch = state.get("mismatch") if self.state is not None else None
        gm: dict[str, Any] = state["gm"] if isinstance(state.get("gm"), dict) else {}
        game = _text(state.get("game")) or _text(glance.get("game")) or _text(status.get("game"))
        return {
            "table": self.table,
            "name": self.name(),  # what people read; "table" stays for links and filters
            "room": room_of(self.table),
            "online": status.get("state") == "online",
            "game": game,
            # What people read: the game's title (the id stays in "game" for machines).
            "title": _text(glance.get("title")) or game_title(game),
            "players": _players(state.get("players")) or _names(glance.get("players")),
            "turn": _text(glance.get("turn")) or _turn(state),
            "waiting_for": _text(state.get("waiting_for")) or _text(glance.get("waiting_for")),
            "over": (state.get("over") is True) if self.state is not None else glance.get("over") is True,
            "mismatch": bool(mismatch) if self.state is not None else glance.get("mismatch") is True,
            "mismatch_text": _text(mismatch.get("message") if isinstance(mismatch, dict)
                                   else glance.get("mismatch") is True and glance.get("mismatch_text")),
            # the game master paused it
            "paused": bool(gm.get("paused")) if self.state is not None else glance.get("paused") is True,
        }


def made_at(state: dict[str, Any], retained: bool) -> float:
    """When the table made ``state``, on this panel's monotonic clock.

    A message published while the panel listens was made a few milliseconds before it arrived.
    The broker's retained copy (a panel that started or reconnected mid-window) may be older:
    then the table's own stamp (``time``, its wall clock, present while a timer runs) says by
    how much, if the two clocks roughly agree (a panel on the table's own machine, or both on
    NTP); a stamp from the future or from long ago is a clock that does not, and is not trusted.
    """
    now = time.monotonic()
    stamp = state.get("time")
    if not retained or isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        return now
    age = time.time() - float(stamp)
    return now - age if 0.0 <= age <= MAX_RETAINED_AGE_S else now


def game_context(data: Any) -> dict[str, Any] | None:
    """Which game an event belongs to, from a ``game_started`` event's data or a state: id, name, title, players."""
    if not isinstance(data, dict) or not isinstance(data.get("game_id"), str):
        return None
    view: dict[str, Any] = data["view"] if isinstance(data.get("view"), dict) else {}
    players = data.get("players")
    return {"game_id": data["game_id"], "game": data.get("game"), "title": data.get("title") or view.get("title"),
            "players": list(players) if isinstance(players, list) else []}


def game_title(game: Any) -> str | None:
    """The title people know a game by ("Terror in the Graveyard"), or None for no or an unknown game."""
    return get_game(game).title if isinstance(game, str) and game in GAME_NAMES else None


def _turn(state: dict[str, Any]) -> str | None:
    """Whose turn, by name, from the state (a table that publishes no summary yet)."""
    players, seat = state.get("players"), state.get("current_player")
    if state.get("over") or not isinstance(players, list) or isinstance(seat, bool) or not isinstance(seat, int):
        return None
    return _text(players[seat]) if 0 <= seat < len(players) else None


def _players(value: Any) -> list[str]:
    """The players' names from a state: a list of text, or none (never a forgery's other types)."""
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _names(value: Any) -> list[str]:
    """The players from a summary, which words them as one line ("Ann, Bo")."""
    return [name for name in value.split(", ") if name] if isinstance(value, str) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def room_of(table: str) -> str | None:
    """A table's room, from its id: the part before its last ``-`` (``bar-3`` is in ``bar``,
    ``hall-b-12`` in ``hall-b``); an id without ``-`` is in no room (docs/panel.md)."""
    room, sep, rest = table.rpartition("-")
    return room if sep and room and rest else None

