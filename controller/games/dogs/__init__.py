"""The graveyard dogs tile game: a digital referee for tiles, spooks, snacks and dice.

Callers outside this package use only what is exported here: the game class and
the loader of its tile file.
"""

from .game import DogsGame
from .tiles import load_tiles, parse_tiles

__all__ = ["DogsGame", "load_tiles", "parse_tiles"]
