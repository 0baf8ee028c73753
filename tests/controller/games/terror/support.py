"""Helpers that set up Terror in the Graveyard positions for the rule tests.

They edit the state the way a table would be arranged, while keeping every
card in exactly one place, so the engine's own invariants still hold.

Default board, all tombs in the middle (``Mu``/``Mo``/``Wo`` are the pits)::

         0   1   2   3   4   5   6   7   8
      0  ..  ..  G   ##  ..  ..  G   Ex  Cr
      1  ..  ##  ..  G   +   ##  ..  ..  ##
      2  G   ..  !g  Wo  ..  ##  +   ..  ..
      3  ..  H   >r  >g  ##  H   ..  G   ..
      4  ##  ..  ##  ..  !p  Mo  ..  ..  ##
      5  ..  +   ..  H   ##  G   ..  +   ..
      6  +   ..  !r  Mu  ..  ..  ##  ..  G
      7  En  ##  ..  G   ..  >p  ..  ..  ..
      8  Ga  ##  G   ..  ..  ##  ..  +   ..
"""

from __future__ import annotations

import json
from typing import Any

from controller.games import Action, Event
from controller.games.terror import Terror
from controller.games.terror.cards import DEFAULT_CARDS

GATE = [8, 0]
CRYPT = [0, 8]
EXIT = [0, 7]


def default_cards() -> dict[str, Any]:
    """The default deck as a fresh, editable object (for ``new_game(cards=...)``)."""
    return json.loads(DEFAULT_CARDS.read_text(encoding="utf-8"))


def deck_with_kinds(**kinds: str) -> dict[str, Any]:
    """The default deck with some cards given another kind, e.g. ``deck_with_kinds(**{"switch-1": "anytime"})``."""
    deck = default_cards()
    for card in deck["cards"]:
        card["kind"] = kinds.pop(card["id"], card["kind"])
    assert not kinds, f"no such card(s): {sorted(kinds)}"
    return deck


def new_game(players: int = 2, seed: int = 1, **options: Any) -> Terror:
    names = ["Ann", "Bo", "Cy", "Di"][:players]
    return Terror.new(names, seed, options or None)


def put(game: Terror, seat: int, pawn: int, rc: list[int] | None) -> None:
    game.s.pawns[seat][pawn].pos = None if rc is None else game.board.cell(rc)


def pos(game: Terror, seat: int, pawn: int) -> list[int] | None:
    p = game.s.pawns[seat][pawn].pos
    return None if p is None else game.board.rc(p)


def take(game: Terror, card_id: str) -> str:
    """Lift a card out of whichever pile holds it."""
    for pile in (game.s.draw, game.s.discard):
        if card_id in pile:
            pile.remove(card_id)
            return card_id
    raise AssertionError(f"{card_id} is not in a pile")


def give(game: Terror, seat: int, pawn: int, card_id: str) -> None:
    game.s.pawns[seat][pawn].cards.append(take(game, card_id))


def make_monster(game: Terror, seat: int, pawn: int, card_id: str = "monster-werewolf") -> None:
    game.s.pawns[seat][pawn].monster = take(game, card_id)


def on_top(game: Terror, card_id: str) -> None:
    """Make ``card_id`` the next card drawn."""
    game.s.draw.append(take(game, card_id))


def phase(game: Terror, seat: int, name: str, number: int | None = None, symbol: str | None = None) -> None:
    game.s.turn = seat
    game.s.phase = name
    game.s.number = number
    game.s.symbol = symbol


def act(game: Terror, kind: str, seat: int, **params: Any) -> list[Event]:
    return game.apply(Action(kind, seat, params))


def types_of(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def card_total(game: Terror) -> int:
    s = game.s
    held = sum(len(p.cards) + (p.monster is not None) for row in s.pawns for p in row)
    return len(s.draw) + len(s.discard) + held + (s.pending is not None)


def slide(game: Terror, seat: int) -> list[Event]:
    """Move the rolled tomb to its first legal position."""
    action = next(a for a in game.legal_actions() if a.kind == "move_tomb")
    assert action.player == seat
    return game.apply(action)
