"""Games as text, for playing at the keyboard (``gravekeeper play``).

Each game may have a module ``controller.textplay.<game>`` offering:

``sections(game, marks) -> [(key, text), ...]``
    the public board in parts (the grid, one line a player, the dice...), with
    ``marks`` (place -> letter) drawn on the grid; the play loop reprints only
    the parts that changed.
``legend(game) -> str``
    what the symbols on the grid mean.
``private(game, seat) -> str``
    what only that seat may see (its hand), shown to that player alone.
``describe_event(game, event, viewer) -> str``
    an event in words; the event's secret is told only when ``viewer`` is the
    seat it belongs to.
``options(game, seat, actions) -> [Option, ...]``
    the seat's legal actions as choices in words, in the order to list them.
``position(game) -> callable``
    a place's ``(row, column)`` on the grid, to order letters and split a board.
``automatic(game, actions, chance) -> (action, words) | None`` (optional)
    an action the loop takes by itself (a skull drop decided by chance).
``MARK_WIDTH`` (optional, default 1)
    characters the grid has for a choice's letter; 2 allows two-letter keys.
``INTERRUPTS`` (optional, default False)
    whether another player may act during this turn (Play Anytime! cards).

A game without a module falls back to its public view as JSON and numbered
choices in the engine's own words. Nothing here reads a secret except
``private`` (one seat's own view) and an event's secret for its own seat.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from controller.games import Action, Event, Game

from .menu import Option, Place, Position


@dataclass
class Chance:
    """The table's luck where the physical board would decide (the skull's drop).

    Seeded from the game's seed, so ``--seed N`` replays the same game.
    """

    rng: random.Random
    skull_hit: float = 0.5  # the skull leaves by one of the Crypt's two windows

    @classmethod
    def for_seed(cls, seed: int, skull_hit: float = 0.5) -> Chance:
        # A string seed is hashed with SHA-512 by random.Random: the same on every run and machine.
        return cls(random.Random(f"gravekeeper play {seed}"), skull_hit)

    def happens(self, probability: float) -> bool:
        return self.rng.random() < probability


def renderer(name: str) -> ModuleType | None:
    """The game's text module, or ``None`` if it has none (other import errors surface)."""
    module_name = f"{__name__}.{name}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None


def sections(game: Game, marks: Mapping[Place, str] | None = None) -> list[tuple[str, str]]:
    module = renderer(game.name)
    if module is not None:
        return list(module.sections(game, dict(marks or {})))
    return [("view", json.dumps(game.public_view(), indent=2, sort_keys=True))]


def legend(game: Game) -> str:
    module = renderer(game.name)
    return str(module.legend(game)) if module is not None else ""


def render(game: Game) -> str:
    """The whole public board, with its legend."""
    parts = [text for _, text in sections(game)]
    key = legend(game)
    return "\n".join(parts + ([key] if key else []))


def render_private(game: Game, seat: int) -> str:
    module = renderer(game.name)
    return str(module.private(game, seat)) if module is not None else ""


def describe_event(game: Game, event: Event, viewer: int | None = None) -> str:
    module = renderer(game.name)
    if module is not None:
        text = module.describe_event(game, event, viewer)
        # An event the module does not know yet is named in words, never as raw data.
        return str(text) if text else event.type.replace("_", " ")
    return plain_event(event.type, event.data)


def options(game: Game, seat: int, actions: Sequence[Action]) -> list[Option]:
    module = renderer(game.name)
    if module is not None:
        return list(module.options(game, seat, actions))
    return [Option(a, game.describe(a), group=a.kind) for a in actions]


def position(game: Game) -> Position:
    module = renderer(game.name)
    if module is not None:
        return module.position(game)  # type: ignore[no-any-return]
    return lambda place: (0.0, 0.0)


def automatic(game: Game, actions: Sequence[Action], chance: Chance) -> tuple[Action, str] | None:
    module = renderer(game.name)
    if module is not None and hasattr(module, "automatic"):
        return module.automatic(game, actions, chance)  # type: ignore[no-any-return]
    return None


def mark_width(game: Game) -> int:
    """How many characters the grid has for a choice's letter (2 allows ``aa``, ``ab``...)."""
    module = renderer(game.name)
    return int(getattr(module, "MARK_WIDTH", 1))


def interrupts(game: Game) -> bool:
    module = renderer(game.name)
    return bool(getattr(module, "INTERRUPTS", False))


def plain_event(kind: str, data: Any) -> str:
    if isinstance(data, dict) and data:
        details = ", ".join(f"{k}={json.dumps(v, sort_keys=True)}" for k, v in data.items())
        return f"{kind}: {details}"
    return kind
