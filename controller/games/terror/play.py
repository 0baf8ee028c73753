"""Playing a saved Goosebumps card: checks first, then the effect.

Cards are held per pawn. The rulebook forbids one thing only ("Play Later!
Cards"): a Magic Ring saved under one pawn cannot be played for the other. Any
other saved card may be played for either of the player's pawns still in the
game: ``play_card`` takes ``"pawn"`` (0 or 1, by default the pawn that holds
the card) for the cards that act for a pawn: a stolen ring goes to that pawn,
and that pawn is the one that switches places.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..base import Event
from ..errors import IllegalAction, MalformedAction
from ..words import listed
from .board import Board
from .cards import Card, Deck
from .state import State
from .words import PAWN_LABELS


class Terror(Protocol):
    """What playing a card reads and does of a game (:class:`controller.games.terror.game.Terror`),
    written out so that this module need not import the game's, which imports it."""

    @property
    def board(self) -> Board: ...

    @property
    def s(self) -> State: ...

    @property
    def deck(self) -> Deck: ...

    def card(self, card_id: str) -> Card: ...

    def who(self, seat: int, pawn: int) -> dict[str, Any]: ...

    def land(self, seat: int, pawn: int, may_draw: bool) -> list[Event]: ...

    def paralysed(self, seat: int, pawn: int) -> bool: ...

    def _walk(self, start: int, steps: int, to: Any, path: Any) -> list[int]: ...

    def _pawn_param(self, value: Any) -> int: ...

    def _target_param(self, value: Any) -> tuple[int, int]: ...

    def _timing_refusal(self, seat: int, card_id: str) -> str | None: ...

    def _switch_refusal(self, seat: int, pawn: int, ts: int, tk: int) -> str | None: ...


def play_card(game: Terror, seat: int, params: Mapping[str, Any]) -> list[Event]:
    s = game.s
    card_id = params["card"]
    if not isinstance(card_id, str):
        raise MalformedAction(f"card must be a card id, got {card_id!r}")
    if card_id not in game.deck.cards:
        raise IllegalAction("there is no such card in this game")
    holder = next((k for k, p in enumerate(s.pawns[seat]) if card_id in p.cards), None)
    if holder is None:
        raise IllegalAction(f"none of {s.players[seat]}'s pawns holds {game.card(card_id).title}")
    card = game.card(card_id)
    why = game._timing_refusal(seat, card_id)
    if why is not None:
        raise IllegalAction(why)
    allowed = {"card"} | ({"target", "pawn"} if card.effect in ("steal_ring", "switch") else set())
    allowed |= {"target", "to", "path"} if card.effect == "move_pawn" else set()
    extra = set(params) - allowed
    if extra:
        raise MalformedAction(f"{card.title} does not take {_parts(extra)}")
    missing = allowed - {"path", "pawn"} - set(params)
    if missing:
        raise MalformedAction(f"{card.title} needs {_parts(missing)}")
    acting = holder
    if "pawn" in params:
        acting = game._pawn_param(params["pawn"])
        if s.pawns[seat][acting].out:
            raise IllegalAction(f"your {PAWN_LABELS[acting]} pawn is out of the game")

    me = s.pawns[seat][acting]
    played = Event("card_played", {"seat": seat, "pawn": holder, "label": PAWN_LABELS[holder], "card": card.public()})

    def may_draw(owner: int) -> bool:
        # Rulebook, "G" Space: a pawn draws "only on your turn", moved there "by die roll count
        # or by card direction" -- whoever played the card ("your card or an opponent's card").
        # Also while a Monster card waits for its target or the skull drops: a Monster card drawn
        # then waits its turn (``Rules.open_waiting``).
        return owner == s.turn

    if card.effect == "extra_turn":
        _discard(s, seat, holder, card_id)
        s.extra_turns += 1
        return [played, Event("extra_turn", {"seat": seat, "pending": s.extra_turns})]

    ts, tk = game._target_param(params["target"])
    target = s.pawns[ts][tk]
    if card.effect == "steal_ring":
        if ts == seat:
            raise IllegalAction("steal from an opponent's pawn")
        _discard(s, seat, holder, card_id)
        ring = next((c for c in target.cards if game.card(c).effect == "ring"), None)
        who = {"from": game.who(ts, tk), "to": game.who(seat, acting)}
        if ring is None:
            return [played, Event("steal_failed", who)]
        target.cards.remove(ring)
        me.cards.append(ring)
        return [played, Event("ring_stolen", who, private_to=seat, secret={"card": game.card(ring).public()})]

    if card.effect == "switch":
        why = game._switch_refusal(seat, acting, ts, tk)
        if why is not None:
            raise IllegalAction(why)
        _discard(s, seat, holder, card_id)
        assert me.pos is not None and target.pos is not None
        events = [
            played,
            Event("pawns_switched", {"a": game.who(seat, acting), "b": game.who(ts, tk),
                                     "a_to": game.board.rc(target.pos), "b_to": game.board.rc(me.pos)}),
        ]
        me.pos, target.pos = target.pos, me.pos
        # At most one of the two pawns belongs to the player whose turn it is, and only
        # that one can draw; it reacts last, because a draw may open a choice and
        # nothing else should happen after a choice opens.
        first, last = ((seat, acting), (ts, tk)) if ts == s.turn else ((ts, tk), (seat, acting))
        events += game.land(*first, may_draw=False)
        events += game.land(*last, may_draw=may_draw(last[0]))
        return events

    # move_pawn
    if game.paralysed(ts, tk):
        raise IllegalAction(f"{s.players[ts]}'s {PAWN_LABELS[tk]} pawn is paralysed on a Skeleton Hand")
    assert target.pos is not None
    path = game._walk(target.pos, card.steps, params.get("to"), params.get("path"))
    _discard(s, seat, holder, card_id)
    events = [
        played,
        Event("pawn_moved", {**game.who(ts, tk), "from": game.board.rc(target.pos), "to": game.board.rc(path[-1]),
                             "path": [game.board.rc(c) for c in path], "by": "card"}),
    ]
    target.pos = path[-1]
    return events + game.land(ts, tk, may_draw=may_draw(ts))


# A play's parts as the refusal says them: a person may read it, so no parameter names.
_PART_WORDS = {"target": "a pawn to act on", "to": "a space to move to", "path": "a path",
               "pawn": "which of your pawns plays it"}


def _parts(keys: set[str]) -> str:
    return listed([_PART_WORDS[k] for k in sorted(keys)])


def _discard(s: State, seat: int, pawn: int, card_id: str) -> None:
    s.pawns[seat][pawn].cards.remove(card_id)
    s.discard.append(card_id)
