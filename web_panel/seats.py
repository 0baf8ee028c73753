"""A player's seat carried into the next game, when the referee kept the same players on their phones.

A seat is a seat of one game (``auth.Seat``): a new game needs a new join code.
When the referee starts the next game with "Keep the same players on their
phones" (``new_game``'s ``keep_seats``), the table's signed state names, in
``seats_from``, the game just before and, for each seat of the new game, the
seat of that game its player held (matched by name), or ``null``. A phone that
held one of those seats is moved to its player's new seat the next time it
asks; every other phone keeps its old seat, which opens nothing in the new game.

Only a state the panel checked is believed: a panel that cannot check the
table's signature (it holds no token) carries nobody. A forged state would
first have to pass that check. Only the game just before is carried, never
an older one: ``seats_from`` names one game id, and a seat of another game
does not match it.
"""

from __future__ import annotations

from typing import Any

from .auth import PanelSession, Seat, SessionStore
from .mqtt import MqttView


def carry(sess: PanelSession | None, view: MqttView, sessions: SessionStore, table: str,
          state: dict[str, Any]) -> Seat | None:
    """The seat ``sess`` holds in the table's current game, carried over from the last game if the
    referee chose so (and written down in ``sessions``); ``None`` if it holds none there."""
    if sess is None:
        return None
    held = sess.seats.get(table)
    game_id = state.get("game_id")
    if held is None or not isinstance(game_id, str):
        return None
    if held.game_id == game_id:
        return held
    new = _new_seat(state, held)
    if new is None or not view.vouching.holds(table):
        return None
    sess.seats[table] = carried = Seat(game_id=game_id, seat=new)
    sessions.changed(sess)  # a restarted panel still knows the seat
    return carried


def _new_seat(state: dict[str, Any], held: Seat) -> int | None:
    kept = state.get("seats_from")
    if not isinstance(kept, dict) or kept.get("game_id") != held.game_id:
        return None
    seats = kept.get("seats")
    players = state.get("players")
    if not isinstance(seats, list) or not isinstance(players, list) or len(seats) != len(players):
        return None
    matches = [new for new, old in enumerate(seats) if type(old) is int and old == held.seat]
    return matches[0] if len(matches) == 1 else None


def not_playing(sess: PanelSession | None, table: str, state: dict[str, Any]) -> bool:
    """True if ``sess`` held a seat of the game just before and the referee kept the players on their
    phones, but its player is not in this game: the page says so, and offers to watch or join."""
    held = sess.seats.get(table) if sess is not None else None
    kept = state.get("seats_from")
    return (held is not None and held.game_id != state.get("game_id") and isinstance(kept, dict)
            and kept.get("game_id") == held.game_id)
