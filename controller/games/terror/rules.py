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
from .state import LOG_LENGTH, TURN_PHASES, State
from .words import PAWN_LABELS


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
                Event("pawn_moved", {
                    **self.who(seat, pawn), "from": self.board.rc(p.pos), "to": self.board.rc(target),
                    "by": f"arrow-{colour}",
                })
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
        elif self.s.phase in TURN_PHASES:
            # A Monster pawn never draws, so the drawer itself is always a possible target.
            self.s.pending = {"card": card_id, "seat": seat, "pawn": pawn, "resume": self.s.phase}
            self.s.phase = "choose"
        else:
            # Drawn while another Monster card waits for its target or while the skull drops (a Cold
            # Breeze played then): this card waits its turn, and its target is chosen once the turn is
            # back to its own steps (``open_waiting``), so no choice ever opens inside another.
            self.s.waiting.append({"card": card_id, "seat": seat, "pawn": pawn})
        return events

    def open_waiting(self) -> list[Event]:
        """The oldest Monster card that waited behind another choice or a skull drop gets its target now."""
        s = self.s
        events: list[Event] = []
        while s.waiting and s.pending is None and s.phase in TURN_PHASES:
            w = s.waiting.pop(0)
            if w["seat"] != s.turn or not self.monster_targets(w["seat"], w["pawn"]):
                # The drawer's turn passed on, or no pawn in play can take it: it goes where such cards go.
                s.discard.append(w["card"])
                events.append(Event("monster_discarded", {"card": w["card"]}))
                continue
            s.pending = {**w, "resume": s.phase}
            s.phase = "choose"
        return events

    def monster_targets(self, seat: int, pawn: int) -> list[tuple[int, int]]:
        """Rulebook, "Monster Cards": any opponent's pawn, or the pawn that just moved."""
        drawer = self.s.pawns[seat][pawn]
        # The drawer can fall while the card waits when the referee takes a tomb from the board.
        out = [(seat, pawn)] if drawer.monster is None and not drawer.out else []
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
        if self.s.pawns[seat][pawn].out:
            # The drawer's pawn fell while the card waited (a tomb taken from the board): the card
            # goes where a fallen pawn's cards go (rulebook, "A Tomb Pit"), not onto a pawn out of play.
            self.s.discard.append(card_id)
            return events + [Event("monster_discarded", {"card": card_id})]
        # The drawer's pawn just moved and drew, so it is not a Monster.
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
        events = [
            Event("pawn_fell", {**self.who(seat, pawn), "cell": self.board.rc(p.pos or 0), "discarded": len(lost)})
        ]
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
        self.drop_pending()
        self.s.attempt = None
        self.s.winners = alive
        if alive:
            return [Event("game_won", {"seats": alive, "reason": "last_player"})]
        return [Event("game_over", {"reason": "every remaining pawn fell at once", "seats": []})]

    def drop_pending(self) -> None:
        """Monster cards still waiting for their targets go to the discard pile, so no card is lost."""
        if self.s.pending is not None:
            self.s.discard.append(self.s.pending["card"])
            self.s.pending = None
        self.s.discard.extend(w["card"] for w in self.s.waiting)
        self.s.waiting.clear()

    # ----- turns ---------------------------------------------------------------------
    def settle_after_fall(self) -> list[Event]:
        """After a tomb slid: the turn's own tomb step, or a tomb the referee took from the board.

        Rulebook, "Grave News": a player who loses both pawns is out at once, even on their
        own turn, so the turn passes on. A board reading can come at any moment, also while a
        Monster card waits: one that no pawn in play can take any more is discarded, so the
        game never waits on an impossible choice; and while a skull drop waits for its outcome:
        a drop by a pawn that fell meanwhile does not count (``void_attempt``).
        """
        s = self.s
        if s.phase == "over":
            return []
        events: list[Event] = []
        if s.attempt is not None and s.pawns[s.attempt["seat"]][s.attempt["pawn"]].out:
            events += self.void_attempt()
        if self.seat_out(s.turn):
            self.drop_pending()
            return events + self.next_turn(keep_seat=False)
        if s.pending is not None and not self.monster_targets(s.pending["seat"], s.pending["pawn"]):
            card, resume = s.pending["card"], s.pending["resume"]
            s.discard.append(card)
            s.pending = None
            s.phase = resume
            events.append(Event("monster_discarded", {"card": card}))
        return events + self.open_waiting()

    def void_attempt(self) -> list[Event]:
        """The attempting pawn fell while the skull dropped: the drop does not count.

        Rulebook, "A Tomb Pit": a fallen pawn "is immediately out of the game", and only a
        pawn on the Crypt platform with a Magic Ring may destroy the Headless Ghost ("How to
        Win"), so a pawn out of play cannot win with the skull it dropped. The turn goes on as
        after a miss: the skull was dropped, so the turn's attempt and its move are spent.
        """
        s = self.s
        assert s.attempt is not None
        seat, pawn = s.attempt["seat"], s.attempt["pawn"]
        s.attempt = None
        s.phase = "after_move"
        s.attempted = True
        if s.moved_pawn is None:
            s.moved_pawn = pawn
        return [Event("skull_void", {**self.who(seat, pawn), "reason": "fell"})]

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
