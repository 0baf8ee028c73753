"""Pure rules engines, and the registry that finds them by name.

Built-in games are imported lazily by name, so that importing the registry does
not import every engine (and a broken engine cannot break the others).
"""

from __future__ import annotations

import importlib

from .base import Action, Event, Expectation, Game
from .errors import BadGameData, IllegalAction, MalformedAction

__all__ = [
    "GAME_NAMES",
    "Action",
    "BadGameData",
    "Event",
    "Expectation",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "game_title",
    "get_game",
    "register",
]

# name -> module that defines and registers it
_BUILTIN: dict[str, str] = {
    "terror": "controller.games.terror",
    "superstition": "controller.games.superstition",
    "dogs": "controller.games.dogs",
}

GAME_NAMES: tuple[str, ...] = tuple(_BUILTIN)

_REGISTRY: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make a game findable by its ``name``."""
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise ValueError(f"game name {cls.name!r} is already registered by {existing.__qualname__}")
    _REGISTRY[cls.name] = cls
    return cls


def get_game(name: str) -> type[Game]:
    """The game class registered under ``name``; ``ValueError`` naming the choices if none."""
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        choices = ", ".join(sorted(set(_BUILTIN) | set(_REGISTRY)))
        raise ValueError(f"unknown game {name!r} (choose one of: {choices})") from None


def game_title(name: str, default: str | None = None) -> str:
    """A game's name as players say it ("Terror in the Graveyard"), from its class's ``title``.

    The classes are the one place the names are written, so the spoken lines, the table's summary and
    the panel's club list cannot disagree. A name this registry does not know (a newer table's game)
    gives ``default``, or the name itself.
    """
    try:
        return get_game(name).title
    except ValueError:
        return name if default is None else default
