"""What may be done now: every legal action, and why a given action is refused.

``legal_actions()`` lists every action the rules allow at this moment, for
every seat (other seats' Play Anytime! plays included). The refusal checks
return the reason an action is illegal, or ``None``; both the enumeration and
``apply()`` (in ``game.py``) use them, so what is listed and what is
accepted cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from ..base import Action
from .rules import Rules
from .state import TURN_PHASES

# Tomb position -> the positions one slide away (rulebook, "2. Move a Tomb").
STEP: dict[str, tuple[str, ...]] = {"end_a": ("middle",), "middle": ("end_a", "end_b"), "end_b": ("middle",)}


def _act(kind: str, player: int, params: dict[str, Any]) -> Action:
    """Build an Action whose params are already canonical JSON (lists, ints, strings).

    ``Action()`` round-trips params through JSON to canonicalise them, which
    costs more than the whole move search; enumeration builds many actions.
    """
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    object.__setattr__(action, "player", player)
    object.__setattr__(action, "params", params)
    return action


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Legal(Rules):
    """The legal-action enumeration and the refusal checks that ``Terror`` builds on."""

    # ----- legal actions ---------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        s = self.s
        p = s.turn
        if s.phase == "over":
            return []
        cfg = self.cfg
        if s.phase in ("skull", "choose"):
            if s.phase == "skull":
                out = [_act("skull_outcome", p, {"hit": True}), _act("skull_outcome", p, {"hit": False})]
            else:
                assert s.pending is not None
                out = [
                    _act("place_monster", s.pending["seat"], {"target": [ts, tk]})
                    for ts, tk in self.monster_targets(s.pending["seat"], s.pending["pawn"])
                ]
            # Only the Play Anytime! card passes the timing check here.
            for seat in range(len(s.players)):
                out += self._card_actions(cfg, seat)
            return out
        out = []
        if s.phase == "roll":
            out.append(_act("roll", p, {}))
        elif s.phase == "tomb":
            assert s.symbol is not None
            out += [_act("move_tomb", p, {"tomb": s.symbol, "to": to}) for to in STEP[s.tombs[s.symbol]]]
        else:
            if s.phase == "move":
                assert s.number is not None
                out += [_act("move_pawn", p, {"pawn": k, "to": to}) for k, to in self._moves(cfg, p, s.number)]
            out += [_act("attempt_skull", p, {"pawn": k}) for k in (0, 1) if self.attempt_refusal(p, k) is None]
            out.append(_act("end_turn", p, {}))
        out += self._card_actions(cfg, p)
        for seat in range(len(s.players)):
            if seat != p:
                out += self._card_actions(cfg, seat)
        return out

    def _moves(self, cfg: int, seat: int, steps: int) -> list[tuple[int, list[int]]]:
        """(pawn, destination) for every legal walk of ``steps`` by ``seat``'s pawns."""
        types = self.board.types(cfg)
        rc = self.board.rc
        out = []
        for k, pawn in enumerate(self.s.pawns[seat]):
            if pawn.pos is not None and types[pawn.pos] != "hand":
                out += [(k, rc(dest)) for dest in self.board.destinations(cfg, pawn.pos, steps)]
        return out

    def _can_walk(self, seat: int, pawn: int) -> bool:
        p = self.s.pawns[seat][pawn]
        return p.pos is not None and not self.paralysed(seat, pawn)

    def _card_actions(self, cfg: int, seat: int) -> list[Action]:
        out: list[Action] = []
        for _k, pawn in enumerate(self.s.pawns[seat]):
            for card_id in pawn.cards:
                card = self.card(card_id)
                if self._timing_refusal(seat, card_id) is not None:
                    continue
                if card.effect == "extra_turn":
                    out.append(_act("play_card", seat, {"card": card_id}))
                elif card.effect == "steal_ring":
                    # Any saved card but a Magic Ring may be played for either pawn.
                    out += [
                        _act("play_card", seat, {"card": card_id, "target": t, "pawn": mine})
                        for mine in self._own_pawns(seat)
                        for t in self._opponent_pawns(seat)
                    ]
                elif card.effect == "switch":
                    out += [
                        _act("play_card", seat, {"card": card_id, "target": [ts, tk], "pawn": mine})
                        for mine in self._own_pawns(seat)
                        if self._can_walk(seat, mine)
                        for ts, tk in self._opponent_pawns(seat)
                        if self._switch_refusal(seat, mine, ts, tk) is None
                    ]
                elif card.effect == "move_pawn":
                    for ts in range(len(self.s.players)):
                        out += [
                            _act("play_card", seat, {"card": card_id, "target": [ts, tk], "to": to})
                            for tk, to in self._moves(cfg, ts, card.steps)
                        ]
        return out

    def _own_pawns(self, seat: int) -> list[int]:
        return [k for k, p in enumerate(self.s.pawns[seat]) if not p.out]

    def _opponent_pawns(self, seat: int) -> list[list[int]]:
        return [[s, k] for s, row in enumerate(self.s.pawns) if s != seat for k, p in enumerate(row) if not p.out]

    # ----- refusals: each returns why an action is illegal, or None -------------------
    def _timing_refusal(self, seat: int, card_id: str) -> str | None:
        card = self.card(card_id)
        phase = self.s.phase
        if card.kind == "anytime":
            # "You can use it anytime at all -- even on someone else's turn!": also while a
            # Monster card waits for its target or a skull drop waits for its result.
            return None
        if not card.playable:
            return f"{card.title} is a Play Later! card: it is never played by itself"
        if seat != self.s.turn:
            return f"{card.title} can only be played on your own turn"
        if phase not in TURN_PHASES:
            return "wait until the drawn card or the skull attempt is settled"
        return None

    def attempt_refusal(self, seat: int, pawn: int) -> str | None:
        s = self.s
        p = s.pawns[seat][pawn]
        if s.phase not in ("move", "after_move"):
            if s.phase in ("roll", "tomb"):
                return "roll and move a tomb before trying the skull"
            return "not now: the drawn card or the skull attempt comes first"
        if s.attempted:
            return "you have already dropped the skull this turn; try again on your next turn"
        if s.phase == "after_move" and s.moved_pawn != pawn:
            return "you moved your other pawn this turn"
        if p.pos != self.board.crypt:
            return "the pawn must be on the Crypt platform"
        if p.monster is not None:
            return "a Monster pawn cannot destroy the Headless Ghost; find a Magic Potion first"
        if not any(self.card(c).effect == "ring" for c in p.cards):
            return "this pawn holds no Magic Ring (a ring under your other pawn does not count)"
        return None

    def _switch_refusal(self, seat: int, pawn: int, ts: int, tk: int) -> str | None:
        me, them = self.s.pawns[seat][pawn], self.s.pawns[ts][tk]
        if ts == seat:
            return "switch places with an opponent's pawn"
        if them.out:
            return "that pawn is out of the game"
        if self.paralysed(seat, pawn) or self.paralysed(ts, tk):
            return "a pawn on a Skeleton Hand cannot leave its space"
        if me.pos == them.pos:
            return "those pawns already share a space"
        return None
