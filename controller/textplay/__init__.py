"""Text renderers for playing at the keyboard (``gravekeeper play``).

Each game may have a module ``controller.textplay.<game>`` with
``render(game) -> str`` (the board as text). It may also offer
``render_private(game, seat) -> str`` (what only that seat may see, shown to
the player at the keyboard) and ``describe_event(game, event) -> str`` (an
event in words). A game without a renderer falls back to its public view as
JSON, and events fall back to a plain ``type: key=value`` line.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from controller.games import Event, Game


def renderer(name: str) -> ModuleType | None:
    """The game's text module, or ``None`` if it has none (other import errors surface)."""
    module_name = f"{__name__}.{name}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None


def render(game: Game) -> str:
    module = renderer(game.name)
    if module is not None and hasattr(module, "render"):
        return str(module.render(game))
    return json.dumps(game.public_view(), indent=2, sort_keys=True)


def render_private(game: Game, seat: int) -> str:
    module = renderer(game.name)
    if module is not None and hasattr(module, "render_private"):
        return str(module.render_private(game, seat))
    return ""


def describe_event(game: Game, event: Event) -> str:
    module = renderer(game.name)
    if module is not None and hasattr(module, "describe_event"):
        text = module.describe_event(game, event)
        if text:
            return str(text)
    return plain_event(event.type, event.data)


def plain_event(kind: str, data: Any) -> str:
    if isinstance(data, dict) and data:
        details = ", ".join(f"{k}={json.dumps(v, sort_keys=True)}" for k, v in data.items())
        return f"{kind}: {details}"
    return kind
