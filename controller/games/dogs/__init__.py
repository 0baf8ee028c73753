"""The graveyard dogs tile game: a digital referee for tiles, spooks, snacks and dice.

Callers outside this package use only what is exported here: the game class and
the loader of its tile file (and of a tiles document), where the default is, and its squares in words (and the words for a text naming them).
"""

from .game import DogsGame
from .tiles import DEFAULT_TILES_PATH, load_tiles, parse_tiles
from .words import in_words, square_words

__all__ = ["DEFAULT_TILES_PATH", "DogsGame", "load_tiles", "parse_tiles", "square_words", "in_words"]
