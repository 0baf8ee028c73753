"""The state of one Terror in the Graveyard game, and its exact JSON form.

Everything that changes during play lives here (secrets included); the board
and the deck are static data loaded from the options. ``from_json`` checks a
saved state thoroughly, because a journal or a hand-edited file may be wrong:
each problem is a :class:`BadGameData` that names the bad field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import BadGameData
from ..rng import Rng
from .board import POSITIONS, TOMBS, Board, is_walkable
from .cards import Deck

PHASES: tuple[str, ...] = ("roll", "tomb", "move", "after_move", "choose", "skull", "over")
# Phases that belong to the current player's turn proper (cards may be played).
TURN_PHASES = frozenset({"roll", "tomb", "move", "after_move"})
SEAT_COLOURS: tuple[str, ...] = ("green", "blue", "orange", "white")
LOG_LENGTH = 12
# Phases in which this turn's dice have been rolled (so the number and symbol are known).
_ROLLED_PHASES = frozenset({"tomb", "move", "after_move", "skull"})


@dataclass
class Pawn:
    pos: int | None  # cell index; None once the pawn has fallen into a pit
    monster: str | None = None  # the Monster card lying face up on its Pawn card
    cards: list[str] = field(default_factory=list)  # saved cards, secret, in order found

    @property
    def out(self) -> bool:
        return self.pos is None


@dataclass
class State:
    players: list[str]
    seed: int
    options: dict[str, Any]
    rng: Rng
    pawns: list[list[Pawn]]
    tombs: dict[str, str]
    draw: list[str]
    discard: list[str]
    turn: int = 0
    phase: str = "roll"
    number: int | None = None
    symbol: str | None = None
    moved_pawn: int | None = None  # which pawn moved by die this turn
    attempted: bool = False  # a skull attempt was made this turn
    extra_turns: int = 0
    pending: dict[str, Any] | None = None  # a drawn Play Now! card waiting for a choice
    # Monster cards drawn while another choice or a skull drop was open, oldest first ({card, seat, pawn}):
    # each gets its target once the turn is back to its own steps.
    waiting: list[dict[str, Any]] = field(default_factory=list)
    attempt: dict[str, int] | None = None  # the skull attempt waiting for its outcome
    ghost: str = "standing"
    winners: list[int] = field(default_factory=list)
    turns_taken: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, board: Board) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "seed": self.seed,
            "options": dict(self.options),
            "rng": self.rng.to_json(),
            "pawns": [
                [
                    {"pos": None if p.pos is None else board.rc(p.pos), "monster": p.monster, "cards": list(p.cards)}
                    for p in seat
                ]
                for seat in self.pawns
            ],
            "tombs": dict(self.tombs),
            "draw": list(self.draw),
            "discard": list(self.discard),
            "turn": self.turn,
            "phase": self.phase,
            "number": self.number,
            "symbol": self.symbol,
            "moved_pawn": self.moved_pawn,
            "attempted": self.attempted,
            "extra_turns": self.extra_turns,
            "pending": None if self.pending is None else dict(self.pending),
            **({"waiting": [dict(w) for w in self.waiting]} if self.waiting else {}),
            "attempt": None if self.attempt is None else dict(self.attempt),
            "ghost": self.ghost,
            "winners": list(self.winners),
            "turns_taken": self.turns_taken,
            "log": [dict(e) for e in self.log],
            "board_digest": board.digest,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], board: Board, deck: Deck) -> State:
        return _parse(data, board, deck)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _need(data: Mapping[str, Any], key: str, types: type | tuple[type, ...], allow_none: bool = False) -> Any:
    if key not in data:
        raise BadGameData(f"terror state: missing {key!r}")
    value = data[key]
    if value is None and allow_none:
        return None
    allowed = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in allowed):
        raise BadGameData(f"terror state: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _parse(data: Mapping[str, Any], board: Board, deck: Deck) -> State:
    if not isinstance(data, Mapping):
        raise BadGameData("terror state must be a JSON object")
    if data.get("board_digest") != board.digest:
        raise BadGameData("terror state: 'board_digest' does not match the board file (was it edited?)")
    players = _need(data, "players", list)
    if not 2 <= len(players) <= 4 or not all(isinstance(p, str) and p for p in players):
        raise BadGameData("terror state: 'players' must be 2 to 4 names")
    try:
        rng = Rng.from_json(data.get("rng"))
    except ValueError as exc:
        raise BadGameData(f"terror state: 'rng': {exc}") from None
    raw_pawns = _need(data, "pawns", list)
    if len(raw_pawns) != len(players):
        raise BadGameData("terror state: 'pawns' must have one entry per player")
    seen_cards: list[str] = []
    pawns: list[list[Pawn]] = []
    for s, seat in enumerate(raw_pawns):
        if not isinstance(seat, list) or len(seat) != 2:
            raise BadGameData(f"terror state: pawns[{s}] must list two pawns")
        row: list[Pawn] = []
        for k, raw in enumerate(seat):
            at = f"pawns[{s}][{k}]"
            if not isinstance(raw, Mapping) or set(raw) != {"pos", "monster", "cards"}:
                raise BadGameData(f"terror state: {at} must have pos, monster, cards")
            pos = None
            if raw["pos"] is not None:
                try:
                    pos = board.cell(raw["pos"])
                except ValueError as exc:
                    raise BadGameData(f"terror state: {at}.pos: {exc}") from None
            cards = raw["cards"]
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise BadGameData(f"terror state: {at}.cards must be a list of card ids")
            monster = raw["monster"]
            if monster is not None and (
                not isinstance(monster, str) or monster not in deck.cards or deck.cards[monster].effect != "monster"
            ):
                raise BadGameData(f"terror state: {at}.monster {monster!r} is not a Monster card")
            if pos is None and (cards or monster):
                raise BadGameData(f"terror state: {at} is out of the game but still holds cards")
            seen_cards += cards + ([monster] if monster else [])
            row.append(Pawn(pos, monster, list(cards)))
        pawns.append(row)
    tombs = _need(data, "tombs", dict)
    if set(tombs) != set(TOMBS) or not all(v in POSITIONS for v in tombs.values()):
        raise BadGameData(f"terror state: 'tombs' must give each of {', '.join(TOMBS)} one of {', '.join(POSITIONS)}")
    cfg = board.config_index(tombs)
    types = board.types(cfg)
    for s, row in enumerate(pawns):
        for k, p in enumerate(row):
            if p.pos is not None and p.pos != board.gate and not is_walkable(types[p.pos]):
                raise BadGameData(f"terror state: pawns[{s}][{k}] stands on {types[p.pos]}, which is not a space")
    draw = _need(data, "draw", list)
    discard = _need(data, "discard", list)
    turn = _need(data, "turn", int)
    if not 0 <= turn < len(players):
        raise BadGameData(f"terror state: 'turn' {turn} is not a seat")
    pending = _need(data, "pending", dict, allow_none=True)
    if pending is not None:
        # Type checks come first: an unhashable value would otherwise raise TypeError below.
        if (
            set(pending) != {"card", "seat", "pawn", "resume"}
            or not all(isinstance(pending[k], str) for k in ("card", "resume"))
            or not all(_is_int(pending[k]) for k in ("seat", "pawn"))
            # Only the player whose turn it is draws, so only they can owe a Monster card's target.
            or pending["seat"] != turn
            or pending["pawn"] not in (0, 1)
            or pending["resume"] not in TURN_PHASES
            or pending["card"] not in deck.cards
            or deck.cards[pending["card"]].effect != "monster"
        ):
            raise BadGameData(
                "terror state: 'pending' must be a Monster card, the current seat, a pawn and a turn phase"
            )
        seen_cards.append(pending["card"])
    # Absent from states saved before a Monster card could wait behind another choice.
    waiting = _need(data, "waiting", list) if "waiting" in data else []
    for w in waiting:
        if (
            not isinstance(w, Mapping)
            or set(w) != {"card", "seat", "pawn"}
            or not isinstance(w["card"], str)
            or not all(_is_int(w[k]) for k in ("seat", "pawn"))
            or w["seat"] != turn
            or w["pawn"] not in (0, 1)
            or w["card"] not in deck.cards
            or deck.cards[w["card"]].effect != "monster"
        ):
            raise BadGameData("terror state: each of 'waiting' must be a Monster card, the current seat and a pawn")
        seen_cards.append(w["card"])
    seen_cards += draw + discard
    if sorted(map(str, seen_cards)) != sorted(deck.cards):
        raise BadGameData("terror state: the cards held, piled and pending are not exactly the deck")
    phase = _need(data, "phase", str)
    if phase not in PHASES:
        raise BadGameData(f"terror state: unknown phase {phase!r}")
    if (phase == "choose") != (pending is not None):
        raise BadGameData("terror state: 'pending' must be set exactly in the choose phase")
    if phase != "over" and all(p.out for p in pawns[turn]):
        # Rulebook, "Grave News": a player who loses both pawns is out at once; the turn has passed on.
        raise BadGameData(
            f"terror state: it is seat {turn}'s turn, but both of that player's pawns are out of the game"
        )
    attempt = _need(data, "attempt", dict, allow_none=True)
    if attempt is not None and (
        set(attempt) != {"seat", "pawn"}
        or not all(_is_int(v) for v in attempt.values())
        # Only the player whose turn it is drops the skull.
        or attempt["seat"] != turn
        or attempt["pawn"] not in (0, 1)
    ):
        raise BadGameData("terror state: 'attempt' must have the current seat and a pawn")
    if (phase == "skull") != (attempt is not None):
        raise BadGameData("terror state: 'attempt' must be set exactly in the skull phase")
    number = _need(data, "number", int, allow_none=True)
    if number is not None and not 1 <= number <= 6:
        raise BadGameData(f"terror state: 'number' {number} is not a die face")
    symbol = _need(data, "symbol", str, allow_none=True)
    if symbol is not None and symbol not in TOMBS:
        raise BadGameData(f"terror state: 'symbol' {symbol!r} is not a tomb")
    # From the tomb move on, the turn is played with this roll; a choose phase goes back to its phase.
    in_phase = pending["resume"] if pending is not None else phase
    if in_phase in _ROLLED_PHASES:
        for key, value in (("number", number), ("symbol", symbol)):
            if value is None:
                raise BadGameData(f"terror state: {key!r} must be set in phase {in_phase!r} (the dice were rolled)")
    winners = _need(data, "winners", list)
    if not all(_is_int(w) and 0 <= w < len(players) for w in winners):
        raise BadGameData("terror state: 'winners' must be seats")
    if winners and phase != "over":
        raise BadGameData("terror state: 'winners' must be empty until the game is over")
    ghost = _need(data, "ghost", str)
    if ghost not in ("standing", "destroyed"):
        raise BadGameData(f"terror state: 'ghost' {ghost!r} is not standing or destroyed")
    moved_pawn = _need(data, "moved_pawn", int, allow_none=True)
    if moved_pawn not in (None, 0, 1):
        raise BadGameData("terror state: 'moved_pawn' must be 0, 1 or null")
    log = _need(data, "log", list)
    if not all(isinstance(e, Mapping) for e in log):
        raise BadGameData("terror state: 'log' must be a list of event objects")
    for key in ("extra_turns", "turns_taken"):
        if _need(data, key, int) < 0:
            raise BadGameData(f"terror state: {key!r} cannot be negative")
    return State(
        players=list(players),
        seed=_need(data, "seed", int),
        options=dict(_need(data, "options", dict)),
        rng=rng,
        pawns=pawns,
        tombs=dict(tombs),
        draw=list(draw),
        discard=list(discard),
        turn=turn,
        phase=phase,
        number=number,
        symbol=symbol,
        moved_pawn=moved_pawn,
        attempted=_need(data, "attempted", bool),
        extra_turns=_need(data, "extra_turns", int),
        pending=None if pending is None else dict(pending),
        waiting=[dict(w) for w in waiting],
        attempt=None if attempt is None else dict(attempt),
        ghost=ghost,
        winners=list(winners),
        turns_taken=_need(data, "turns_taken", int),
        log=[dict(e) for e in log],
    )
