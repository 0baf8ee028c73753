"""The graveyard dogs tile game: a digital referee for tiles, spooks, snacks and dice.

Callers outside this package use only what is exported here: the game class and
the loader of its tile file (and of a tiles document), where the default is, and its squares in words.
"""

from .event_words import TURNS
from .event_words import describe_event as describe_dogs_event
from .game import DogsGame
from .tiles import DEFAULT_TILES_PATH, load_tiles, parse_tiles
from .words import square_words

__all__ = ["DEFAULT_TILES_PATH", "TURNS", "DogsGame", "describe_dogs_event", "load_tiles", "parse_tiles",
           "square_words"]
