"""What a Superstition game is made of, as the modules that play it see it.

The game (``game.py``) is put together from the modules that decide its parts: the turn flow, the
moves, the rules, the checks of a saved state, the referee's "trust the board". They all act on the
game, and the game imports them all; they read its shape from here (:class:`Superstition`, a
Protocol that ``game.Superstition`` fills) so that none of them imports the game's module. A legal
move (:class:`Walk`) is here too: the game's shape names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..base import Action, Event
from ..rng import Rng
from .board import Board


@dataclass(frozen=True)
class Walk:
    """A legal move: the spaces entered in order (the last is where the pawn stops)."""

    direction: str
    path: tuple[str, ...]
    charm: bool = False
    # Two dice only: the pawn stops on the Whammy on the very next space instead of
    # moving the throw (no throw of two dice is 1; see ``moves.move_options``).
    short: bool = False

    @property
    def destination(self) -> str:
        return self.path[-1]


class Superstition(Protocol):
    """What the modules of the game read and change of :class:`controller.games.superstition.game.Superstition`."""

    board: Board
    ring_index: dict[str, dict[str, int]]
    _players: list[str]
    options: dict[str, Any]
    colours: list[str]
    rng: Rng
    phase: str
    turn: int | None
    opening: dict[str, Any]
    dice: list[int]
    pawns: list[dict[str, Any]]
    hands: list[dict[str, Any]]
    pools: dict[str, list[str]]
    whammies: dict[str, str]
    traps: dict[str, dict[str, Any]]
    challenge: dict[str, Any] | None
    after_reset: str | None
    relocate_from: str | None
    winner: int | None
    turns: int

    @property
    def current_player(self) -> int | None: ...

    def seat_name(self, seat: int) -> str: ...

    def trap_name(self, trap: str) -> str: ...

    def _opening_pending(self) -> list[int]: ...

    def options_for(self, seat: int) -> dict[str, Walk | str]: ...

    def charm_options_for(self, seat: int) -> dict[str, Walk]: ...

    def expected_board(self) -> dict[str, str]: ...

    def cached_action(self, kind: str, player: int, **params: Any) -> Action: ...

    def check(self, action: Action) -> None: ...

    def apply(self, action: Action) -> list[Event]: ...

    def in_words(self, text: str) -> str: ...

    def _places(self) -> dict[str, Any]: ...
