"""Superstition: brick and stone paths, four spring traps, Whammies and Charms.

Callers outside this package use only what is exported here: the game class and
the loader of its board file (and of a board document), where the default is, and its spaces in words.
"""

from .board import DEFAULT_BOARD_PATH, load_board, parse_board
from .event_words import TRAP_WORDS
from .event_words import describe_event as describe_superstition_event
from .game import Superstition
from .words import space_words

__all__ = ["DEFAULT_BOARD_PATH", "TRAP_WORDS", "Superstition", "describe_superstition_event", "load_board",
           "parse_board", "space_words"]
