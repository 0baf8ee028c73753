"""Terror in the Graveyard: three sliding tombs, a shifting board and the Headless Ghost.

Callers outside this package use only what is exported here: the game class,
the loaders of its two data files (board and deck) and where the defaults are, every card a deck may hold, and the words for a tomb's
positions.
"""

from .board import DEFAULT_BOARD, load_board
from .cards import DEFAULT_CARDS, catalogue, load_deck
from .game import Terror
from .views import POSITION_WORDS

__all__ = ["DEFAULT_BOARD", "DEFAULT_CARDS", "POSITION_WORDS", "Terror", "catalogue", "load_board", "load_deck"]
