"""Places in a player's words, for what the controller itself says to people (undo guidance).

The same names as the panel's (``web_panel/static/words_places.js``): "the third
brick after the gate", "the top-left square of Lantern Walk". Read from a
game's public view only. The engines own the naming (their refusals use it too);
this module gives it to the rest of the controller.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.games.dogs import in_words as dogs_in_words
from controller.games.dogs import square_words
from controller.games.superstition import in_words as superstition_in_words
from controller.games.superstition import space_words
from controller.games.words import ordinal_word as ordinal

__all__ = ["dogs_square", "in_words", "ordinal", "superstition_space"]


def superstition_space(view: Mapping[str, Any], space: Any) -> str:
    """A Superstition space in words (``controller.games.superstition.space_words``)."""
    return space_words(view, space)


def dogs_square(view: Mapping[str, Any], x: Any, y: Any) -> str:
    """A Graveyard Dogs square in words (``controller.games.dogs.square_words``)."""
    return square_words(view, x, y)


def in_words(game: str | None, view: Mapping[str, Any], text: str) -> str:
    """``text`` (an engine's description) with its squares or space ids named as players do.

    The engines' own ``in_words``, so the patterns live once (Superstition's also names the
    traps' platforms, and only ids its board has).
    """
    if game == "dogs":
        return dogs_in_words(view, text)
    if game == "superstition":
        return superstition_in_words(view, text)
    return text
