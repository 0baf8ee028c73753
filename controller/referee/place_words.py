"""Places in a player's words, for what the controller itself says to people (undo guidance).

The same names as the panel's (``web_panel/static/words_places.js``): "the third
brick after the gate", "the top-left square of Lantern Walk". Read from a
game's public view only. The engines own the naming (their refusals and descriptions use it too);
this module gives it to the rest of the controller.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.games.dogs import square_words
from controller.games.superstition import space_words
from controller.games.words import ordinal_word as ordinal

__all__ = ["dogs_square", "ordinal", "superstition_space"]


def superstition_space(view: Mapping[str, Any], space: Any) -> str:
    """A Superstition space in words (``controller.games.superstition.space_words``)."""
    return space_words(view, space)


def dogs_square(view: Mapping[str, Any], x: Any, y: Any) -> str:
    """A Graveyard Dogs square in words (``controller.games.dogs.square_words``)."""
    return square_words(view, x, y)

