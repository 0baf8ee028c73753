"""What spectators and each player may see of a Terror in the Graveyard game.

The public view carries everything the panel draws (documented field by
field in ``docs/rules/terror.md``) and no secret: for saved cards and the draw
pile it gives counts only. A player's view adds the cards under that seat's
own two pawns.
"""

from __future__ import annotations

from typing import Any, Protocol

from .board import Board
from .cards import Card
from .state import SEAT_COLOURS, State
from .words import PAWN_LABELS


class Terror(Protocol):
    """What the views read of a game (:class:`controller.games.terror.game.Terror`), written out so
    that this module need not import the game's, which imports it."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def board(self) -> Board: ...

    @property
    def s(self) -> State: ...

    @property
    def cfg(self) -> int: ...

    @property
    def current_player(self) -> int | None: ...

    def attempt_refusal(self, seat: int, pawn: int) -> str | None: ...

    @property
    def is_over(self) -> bool: ...

    def card(self, card_id: str) -> Card: ...

    def paralysed(self, seat: int, pawn: int) -> bool: ...

    def seat_out(self, seat: int) -> bool: ...


def _where(board: Board, pos: int | None) -> str:
    if pos is None:
        return "out"
    if pos == board.gate:
        return "gate"
    if pos == board.crypt:
        return "crypt"
    return "board"


def public_view(game: Terror) -> dict[str, Any]:
    s = game.s
    cfg = game.cfg
    seats = []
    for seat, name in enumerate(s.players):
        pawns = []
        for k, p in enumerate(s.pawns[seat]):
            pawns.append(
                {
                    "pawn": k,
                    "label": PAWN_LABELS[k],
                    "pos": None if p.pos is None else game.board.rc(p.pos),
                    "where": _where(game.board, p.pos),
                    "space": None if p.pos is None else game.board.types(cfg)[p.pos],
                    "out": p.out,
                    "monster": p.monster is not None,
                    # A Monster card lies face up on the Pawn card, so it is public.
                    "monster_card": None if p.monster is None else game.card(p.monster).public(),
                    "paralysed": game.paralysed(seat, k),
                    "cards": len(p.cards),
                }
            )
        seats.append(
            {"seat": seat, "name": name, "colour": SEAT_COLOURS[seat], "out": game.seat_out(seat), "pawns": pawns}
        )
    pending = None
    if s.pending is not None:
        pending = {"card": game.card(s.pending["card"]).public(), "seat": s.pending["seat"], "pawn": s.pending["pawn"]}
    return {
        "game": game.name,
        "title": game.title,
        "board": game.board.describe(cfg),
        "tombs": dict(s.tombs),
        "players": seats,
        "turn": s.turn,
        "current_player": game.current_player,
        "phase": s.phase,
        "dice": {"number": s.number, "symbol": s.symbol},
        "moved_pawn": s.moved_pawn,
        "attempted": s.attempted,
        "extra_turns": s.extra_turns,
        "draw_count": len(s.draw),
        "discard_count": len(s.discard),
        "pending": pending,
        "skull": {"ghost": s.ghost, "attempt": None if s.attempt is None else dict(s.attempt)},
        "over": game.is_over,
        "winners": list(s.winners),
        "turns_taken": s.turns_taken,
        "last_events": [dict(e) for e in s.log],
        "walks": _walks(s, game.board, cfg),
    }


def _walks(s: State, board: Board, cfg: int) -> list[dict[str, Any]]:
    """One legal walk to each destination of the pawns to move, so a page can draw the path before
    the move is sent (the engine takes any legal walk to the same space; this is the one it would take)."""
    if s.phase != "move" or s.number is None:
        return []
    rc = board.rc
    types = board.types(cfg)
    out: list[dict[str, Any]] = []
    for k, pawn in enumerate(s.pawns[s.turn]):
        if pawn.pos is None or types[pawn.pos] == "hand":
            continue
        for dest, path in board.destinations(cfg, pawn.pos, s.number).items():
            out.append({"seat": s.turn, "pawn": k, "to": rc(dest), "path": [rc(c) for c in path]})
    return out


def player_view(game: Terror, seat: int) -> dict[str, Any]:
    # bool is an int: True would otherwise show seat 1's secret cards.
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(game.s.players):
        raise ValueError(f"there is no seat {seat!r} in this game")
    view = public_view(game)
    view["you"] = {
        "seat": seat,
        "pawns": [
            {"pawn": k, "label": PAWN_LABELS[k], "cards": [game.card(c).public() for c in p.cards]}
            for k, p in enumerate(game.s.pawns[seat])
        ],
        "notes": _crypt_notes(game, seat),
    }
    return view


def _crypt_notes(game: Terror, seat: int) -> list[str]:
    """Why a pawn of this seat on the Crypt platform has no skull drop to offer, in words (its own view only:
    the reason may tell that it holds no ring). Without it the player saw no button and no reason."""
    s = game.s
    if s.turn != seat or s.phase not in ("move", "after_move"):
        return []
    notes = []
    for k, p in enumerate(s.pawns[seat]):
        if p.out or p.pos != game.board.crypt:
            continue
        why = game.attempt_refusal(seat, k)
        if why is None:
            continue
        label = PAWN_LABELS[k]
        if why.startswith("this pawn holds no Magic Ring"):
            notes.append(f"Your {label} is on the Crypt platform: you need a Magic Ring under this pawn to drop the "
                         "skull (a ring under your other pawn does not count).")
        else:
            notes.append(f"Your {label} is on the Crypt platform, but cannot drop the skull: {why}.")
    return notes
