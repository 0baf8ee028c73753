"""Superstition's events in words: "Ann throws 5", "Bo places the Whammy Black Cat on the third brick after the gate".

One wording for every reader: the terminal play, the history's step list and its readable export. A secret
(the Whammy and Charm a player drew) is told only to ``viewer``, the seat it belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import Event, Game
from .words import space_words

TRAP_WORDS = {"ladder": "the Ladder", "mirror": "the Mirror", "grave1": "the first Grave", "grave2": "the second Grave"}


def describe_event(game: Game, event: Event, viewer: int | None = None,
                   where: Callable[[str | None], str] | None = None) -> str:
    """``event`` in words, or "" for one this wording does not know; ``where`` names a space (the
    panel's names by default: "the third brick after the gate")."""
    d = event.data
    names = game.players
    who = names[d["player"]] if isinstance(d.get("player"), int) else ""
    trap = TRAP_WORDS.get(d.get("trap", ""), "")
    mine = viewer is not None and event.private_to == viewer and bool(event.secret)

    def where_words(space: Any) -> str:
        if where is not None:
            return where(space if isinstance(space, str) else None)
        return space_words(game.public_view(), space)

    def drew() -> str:
        if mine:
            return (f"{who} draws the Whammy {event.secret.get('whammy_name')} and the Charm "
                    f"{event.secret.get('charm_name')} from the Wizard's Tomb (only you know).")
        return f"{who} draws a Whammy and a Charm from the Wizard's Tomb."

    texts: dict[str, Callable[[], str]] = {
        "opening_roll": lambda: f"{who} throws {d.get('total')} to see who starts",
        "opening_tie": lambda: "a tie at {}: {} throw again".format(
            d.get("total"), " and ".join(names[s] for s in d.get("players", []) if isinstance(s, int))),
        "first_player": lambda: f"{who} starts with the highest throw",
        "turn_started": lambda: f"{who}'s turn",
        "rolled": lambda: f"{who} throws {d.get('total')}",
        "moved": lambda: f"{who} moves {len(d.get('path', []))} to {where_words(d.get('to'))}",
        "turn_passed": lambda: f"{who} is blocked both ways and does not move",
        "challenge_begins": lambda: f"{who} must challenge {trap}",
        "peg_pulled": lambda: f"{who} pulls peg {str(d.get('peg')).upper()} of {trap}",
        "challenge_resolved": lambda: (
            f"{trap}: {'ZAPPED!' if d.get('zapped') else 'sneaked by.'} {who} goes to {where_words(d.get('to'))}"
        ),
        "trap_reset": lambda: f"{trap} is reset in secret",
        "second_throw": lambda: f"{who} steps off and throws again",
        "draw_due": lambda: f"{who} draws a Whammy and a Charm from the real tomb",
        "drew_tokens": drew,
        "jumped_tomb": lambda: f"{who} jumps the Wizard's Tomb",
        "traded_places": lambda: "players trade places across the tomb",
        "whammy_placed": lambda: f"{who} places the Whammy {d.get('name')} on {where_words(d.get('space'))}",
        "landed_on_whammy": lambda: f"{who} lands on the Whammy on {where_words(d.get('space'))} and may move it",
        "whammy_moved": lambda: f"{who} moves the Whammy to {where_words(d.get('to'))}",
        "won": lambda: f"{who} is home and WINS!",
    }
    text = texts.get(event.type)
    return text() if text else ""
