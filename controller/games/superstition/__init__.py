"""Superstition: brick and stone paths, four spring traps, Whammies and Charms.

Callers outside this package use only what is exported here: the game class and
the loader of its board file (and of a board document), where the default is, and its spaces in words.
"""

from .board import DEFAULT_BOARD_PATH, load_board, parse_board
from .game import Superstition
from .words import space_words

__all__ = ["DEFAULT_BOARD_PATH", "Superstition", "load_board", "parse_board", "space_words"]
