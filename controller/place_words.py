"""Places in a player's words, for what the controller itself says to people (undo guidance).

The same names as the panel's (``web_panel/static/words_places.js``): "the third
brick after the gate", "the top-left square of Lantern Walk". Read from a
game's public view only. The engines own the naming (their refusals use it too);
this module gives it to the rest of the controller.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from controller.games.dogs import square_words
from controller.games.superstition import space_words
from controller.games.words import ordinal_word as ordinal

__all__ = ["dogs_square", "in_words", "ordinal", "superstition_space"]


def superstition_space(view: Mapping[str, Any], space: Any) -> str:
    """A Superstition space in words (``controller.games.superstition.space_words``)."""
    return space_words(view, space)


def dogs_square(view: Mapping[str, Any], x: Any, y: Any) -> str:
    """A Graveyard Dogs square in words (``controller.games.dogs.square_words``)."""
    return square_words(view, x, y)


_DOGS_SQUARE = re.compile(r"\((-?\d+), (-?\d+)\)")
_SUPER_SPACE = re.compile(r"\b(?:[bs]\d+|start\.[a-z]+|tomb\.[a-z]+)\b")


def in_words(game: str | None, view: Mapping[str, Any], text: str) -> str:
    """``text`` (an engine's description) with its squares or space ids named as players do."""
    if game == "dogs":
        return _DOGS_SQUARE.sub(lambda m: dogs_square(view, int(m.group(1)), int(m.group(2))), text)
    if game == "superstition":
        return _SUPER_SPACE.sub(lambda m: superstition_space(view, m.group(0)), text)
    return text
