"""The words of an owner's new board, deck or tiles: text where text is shown, short enough to show.

A tile's name is how players tell the tile to place ("Tile to place: Pumpkin Patch"), a card's title
and words are read out, a file's name is listed in the new-game form. The loaders
(``terror/board.py``, ``terror/cards.py``, ``superstition/board.py``, ``dogs/tiles.py``) check the
rules; these checks are for a **new** file only (the board editor, and a new game's options through
``Game.check_new_options``): a game a journal holds keeps replaying whatever it started with.

Each refusal is a :class:`BadGameData` with the entry as the file spells it, and a reason in words
that names the tile or card by its place and never quotes a page of text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import BadGameData
from .words import ordinal

# Far above what the boxes print (the longest default title is 16 characters, words 198, a tile's
# name 13), far below what breaks a phone's line.
MAX_NAME_CHARS = 60
MAX_WORDS_CHARS = 400
MAX_NOTES_CHARS = 2000


def too_long(value: str, limit: int) -> str | None:
    """The words for ``value`` being over ``limit`` characters, or None when it fits."""
    if len(value) <= limit:
        return None
    return f"too long: {len(value)} characters, at most {limit}"


def check_words(option: str, doc: Any, where: str | None = None) -> None:
    """Check the words of a new ``option`` document ("board", "cards" or "tiles"); shapes are the loader's."""
    if not isinstance(doc, Mapping):
        return  # not a file of this kind at all: the loader says so
    where = where or option
    _file_words(doc, where)
    if option == "tiles":
        _tile_names(doc, where)
    elif option == "cards":
        _card_words(doc, where)


def _file_words(doc: Mapping[str, Any], where: str) -> None:
    for key, limit, words, verb in (("name", MAX_NAME_CHARS, "The file's name", "is"),
                                    ("notes", MAX_NOTES_CHARS, "The file's notes", "are")):
        if key not in doc:
            continue
        value = doc[key]
        if not isinstance(value, str):
            raise BadGameData(f"{where}: {key} must be a string", reason=f"{words} must be written as text.")
        problem = too_long(value, limit)
        if problem:
            raise BadGameData(f"{where}: {key} is {problem}", reason=f"{words} {verb} {problem}.")


def _tile_names(doc: Mapping[str, Any], where: str) -> None:
    tiles = doc.get("tiles")
    if not isinstance(tiles, list):
        return
    seen: dict[str, int] = {}
    for index, raw in enumerate(tiles):
        if not isinstance(raw, Mapping) or "name" not in raw or not isinstance(raw["name"], str):
            continue  # no name: the loader's (it names the tile by its id); not text: the loader says so
        name, at, words = raw["name"], {"tile": index}, f"Tile {index + 1}"
        entry = f"{where}: tile {index + 1}: 'name'"
        problem = too_long(name, MAX_NAME_CHARS)
        if problem:
            raise BadGameData(f"{entry} is {problem}", at=at, reason=f"{words} has a name that is {problem}.")
        if not name.strip():
            raise BadGameData(f"{entry} is empty", at=at,
                              reason=f"{words} has no name: players tell the tile to place by its name.")
        key = " ".join(name.split()).casefold()
        if key in seen:
            raise BadGameData(f"{entry} {name!r} is also tile {seen[key] + 1}'s", at=at,
                              reason=f"{words}, \u201c{name.strip()}\u201d, has the same name as tile "
                                     f"{seen[key] + 1}: players tell the tile to place by its name.")
        seen[key] = index


def _card_words(doc: Mapping[str, Any], where: str) -> None:
    cards = doc.get("cards")
    if not isinstance(cards, list):
        return
    for n, raw in enumerate(cards):
        if not isinstance(raw, Mapping):
            continue
        for key, limit, words in (("title", MAX_NAME_CHARS, "a title"), ("text", MAX_WORDS_CHARS, "words")):
            value = raw.get(key)
            problem = too_long(value, limit) if isinstance(value, str) else None
            if problem:
                raise BadGameData(f"{where} cards[{n}]: {key} is {problem}", at={"entry": f"cards[{n}]"},
                                  reason=f"The {ordinal(n + 1)} card has {words} {problem}.")
