"""Superstition: brick and stone paths, four spring traps, Whammies and Charms.

Callers outside this package use only what is exported here: the game class and
the loader of its board file.
"""

from .board import load_board, parse_board
from .game import Superstition

__all__ = ["Superstition", "load_board", "parse_board"]
