"""What happens to the board and the pawns once an action has been judged legal.

These helpers only mutate: every check that can refuse an action runs before
any of them is called (in ``game.py``), so an illegal action never leaves a
half-applied state. Each helper returns the events it caused.
"""

from __future__ import annotations

from typing import Any

from ..base import Event
from .board import Board
from .cards import Card, Deck
from .state import LOG_LENGTH, PAWN_LABELS, State


class Rules:
    s: State
    board: Board
    deck: Deck

    # ----- small queries -----------------------------------------------------
    @property
    def cfg(self) -> int:
        return self.board.config_index(self.s.tombs)

    def space(self, pos: int) -> str | None:
        return self.board.types(self.cfg)[pos]

    def paralysed(self, seat: int, pawn: int) -> bool:
        pos = self.s.pawns[seat][pawn].pos
        return pos is not None and self.space(pos) == "hand"

    def seat_out(self, seat: int) -> bool:
        return all(p.out for p in self.s.pawns[seat])

    def active_seats(self) -> list[int]:
        return [s for s in range(len(self.s.players)) if not self.seat_out(s)]

    def who(self, seat: int, pawn: int) -> dict[str, Any]:
        return {"seat": seat, "pawn": pawn, "label": PAWN_LABELS[pawn]}

    def card(self, card_id: str) -> Card:
        return self.deck.cards[card_id]

    # ----- landing on a space ---------------------------------------------------
    def land(self, seat: int, pawn: int, may_draw: bool) -> list[Event]:
        """Follow the directions of the space the pawn now stands on."""
        p = self.s.pawns[seat][pawn]
        assert p.pos is not None
        kind = self.space(p.pos)
        events: list[Event] = []
        if kind is None:
            return events
        if kind.startswith("arrow-"):
            colour = kind.split("-", 1)[1]
            target = self.board.danger_cell(self.cfg, colour, near=p.pos)
            events.append(
                Event("pawn_moved", {**self.who(seat, pawn), "from": self.board.rc(p.pos), "to": self.board.rc(target), "by": f"arrow-{colour}"})
            )
            p.pos = target
        elif kind == "potion":
            events += self.cure(seat, pawn, "potion")
        elif kind == "hand":
            events.append(Event("paralysed", self.who(seat, pawn)))
        elif kind == "g" and may_draw:
            if p.monster is not None:
                events.append(Event("no_draw", {**self.who(seat, pawn), "reason": "a Monster cannot draw"}))
            else:
                events += self.draw_card(seat, pawn)
        return events

    def cure(self, seat: int, pawn: int, how: str) -> list[Event]:
        p = self.s.pawns[seat][pawn]
        if p.monster is None:
            return []
        card, p.monster = p.monster, None
        self.s.discard.append(card)
        return [Event("cured", {**self.who(seat, pawn), "card": card, "by": how})]

    def draw_card(self, seat: int, pawn: int) -> list[Event]:
        events: list[Event] = []
        if not self.s.draw:
            if not self.s.discard:
                return [Event("deck_empty", self.who(seat, pawn))]
            self.s.draw, self.s.discard = self.s.discard, []
            self.s.rng.shuffle(self.s.draw)
            events.append(Event("reshuffled", {"cards": len(self.s.draw)}))
        card_id = self.s.draw.pop()
        card = self.card(card_id)
        if card.kind != "now":
            self.s.pawns[seat][pawn].cards.append(card_id)
            events.append(Event("card_drawn", self.who(seat, pawn), private_to=seat, secret={"card": card.public()}))
            return events
        # Play Now! cards are read aloud, so their identity is public.
        events.append(Event("card_drawn", {**self.who(seat, pawn), "card": card.public()}))
        if card.effect == "cure_all":
            self.s.discard.append(card_id)
            for s, row in enumerate(self.s.pawns):
                for k in range(len(row)):
                    events += self.cure(s, k, card_id)
        else:
            # A Monster pawn never draws, so the drawer itself is always a possible target.
            self.s.pending = {"card": card_id, "seat": seat, "pawn": pawn, "resume": self.s.phase}
            self.s.phase = "choose"
        return events

    def monster_targets(self, seat: int, pawn: int) -> list[tuple[int, int]]:
        """Rulebook, "Monster Cards": any opponent's pawn, or the pawn that just moved."""
        out = [(seat, pawn)] if self.s.pawns[seat][pawn].monster is None else []
        for s, row in enumerate(self.s.pawns):
            if s == seat:
                continue
            out += [(s, k) for k, p in enumerate(row) if not p.out and p.monster is None]
        return out

    def place_monster(self, target: tuple[int, int]) -> list[Event]:
        pending = self.s.pending
        assert pending is not None
        card_id, seat, pawn = pending["card"], pending["seat"], pending["pawn"]
        self.s.pending = None
        self.s.phase = pending["resume"]
        ts, tk = target
        victim = self.s.pawns[ts][tk]
        reversal = next((c for c in victim.cards if self.card(c).effect == "reversal"), None) if ts != seat else None
        if reversal is None:
            victim.monster = card_id
            return [Event("monster_placed", {**self.who(ts, tk), "card": card_id, "by": seat})]
        victim.cards.remove(reversal)
        self.s.discard.append(reversal)
        events = [Event("monster_reversed", {"card": reversal, "from": self.who(ts, tk), "to": self.who(seat, pawn)})]
        # The drawer's pawn just moved and drew, so it is in play and not a Monster.
        self.s.pawns[seat][pawn].monster = card_id
        events.append(Event("monster_placed", {**self.who(seat, pawn), "card": card_id, "by": ts}))
        return events

    # ----- the shifting board ------------------------------------------------------
    def shift(self, old_cfg: int) -> list[Event]:
        """Rulebook, "A Tomb Pit" and "The Shifting Gameboard": falls first, then reactions."""
        new_cfg = self.cfg
        before, after = self.board.types(old_cfg), self.board.types(new_cfg)
        events: list[Event] = []
        for s, row in enumerate(self.s.pawns):
            for k, p in enumerate(row):
                if p.pos is not None and after[p.pos] == "pit":
                    events += self.fall(s, k)
        for s, row in enumerate(self.s.pawns):
            for k, p in enumerate(row):
                if p.pos is not None and before[p.pos] != after[p.pos]:
                    # A "G" appearing underneath draws nothing (rulebook, "G" Space).
                    events += self.land(s, k, may_draw=False)
        events += self.check_survivors()
        return events

    def fall(self, seat: int, pawn: int) -> list[Event]:
        p = self.s.pawns[seat][pawn]
        lost = list(p.cards) + ([p.monster] if p.monster else [])
        events = [Event("pawn_fell", {**self.who(seat, pawn), "cell": self.board.rc(p.pos or 0), "discarded": len(lost)})]
        self.s.discard += lost
        p.cards.clear()
        p.monster = None
        p.pos = None
        if self.seat_out(seat):
            events.append(Event("player_out", {"seat": seat, "reason": "both pawns fell into pits"}))
        return events

    def check_survivors(self) -> list[Event]:
        """Rulebook, "News from the Crypt": the last player standing wins."""
        if self.s.phase == "over":
            return []
        alive = self.active_seats()
        if len(alive) > 1:
            return []
        self.s.phase = "over"
        self.s.pending = None
        self.s.attempt = None
        self.s.winners = alive
        if alive:
            return [Event("game_won", {"seats": alive, "reason": "last_player"})]
        return [Event("game_over", {"reason": "every remaining pawn fell at once", "seats": []})]

    # ----- turns ---------------------------------------------------------------------
    def next_turn(self, keep_seat: bool) -> list[Event]:
        s = self.s
        events = [Event("turn_ended", {"seat": s.turn})]
        if keep_seat and not self.seat_out(s.turn):
            s.extra_turns -= 1
        else:
            s.extra_turns = 0
            n = len(s.players)
            s.turn = next(t % n for t in range(s.turn + 1, s.turn + n + 1) if not self.seat_out(t % n))
        s.phase = "roll"
        s.number = s.symbol = None
        s.moved_pawn = None
        s.attempted = False
        s.turns_taken += 1
        events.append(Event("turn_started", {"seat": s.turn, "extra": keep_seat}))
        return events

    def record(self, events: list[Event]) -> list[Event]:
        self.s.log.extend(e.public() for e in events)
        del self.s.log[:-LOG_LENGTH]
        return events
