"""Terror in the Graveyard: three sliding tombs, a shifting board and the Headless Ghost.

Callers outside this package use only what is exported here: the game class,
the loaders of its two data files (board and deck) and where the defaults are,
every card a deck may hold, and the game's words for people (an action as done
or as offered, an event, a kind of space, a card's title, a tomb's positions, every space
of a view's board),
so that every place that tells a player about the game says it the same way.
"""

from .board import DEFAULT_BOARD, load_board
from .cards import DEFAULT_CARDS, catalogue, load_deck
from .game import Terror
from .places import view_places
from .words import (
    POSITION_WORDS,
    card_title,
    describe_action,
    describe_event,
    place_at,
    space_at,
    space_words,
)

__all__ = [
    "DEFAULT_BOARD",
    "DEFAULT_CARDS",
    "POSITION_WORDS",
    "Terror",
    "card_title",
    "catalogue",
    "describe_action",
    "describe_event",
    "load_board",
    "load_deck",
    "place_at",
    "space_at",
    "space_words",
    "view_places",
]
