"""Terror in the Graveyard: the rules engine.

Seats are ``0..n-1`` (2 to 4 players, youngest first; play goes up the seat
numbers, which is clockwise round the table). Each seat has two pawns, ``0``
(girl) and ``1`` (boy). Cells are ``[row, col]`` on the board grid.

Actions (``Action.kind`` and ``params``):

==================  =================================================================
``roll``            ``{}``: roll both dice (start of every turn)
``move_tomb``       ``{"tomb": "wolf", "to": "end_a"|"middle"|"end_b"}``: slide the
                    tomb the symbol die showed one position
``move_pawn``       ``{"pawn": 0|1, "to": [r, c], "path"?: [[r, c], ...]}``: move by the
                    number die; ``path`` (every cell after the start) is optional and is
                    checked when given, since only the destination has an effect
``attempt_skull``   ``{"pawn": 0|1, "ring"?: id}``: on the Crypt platform with a Magic
                    Ring, not a Monster: drop the skull (secret: it shows a ring)
``skull_outcome``   ``{"hit": true|false}``: what the skull did (the board's launcher
                    sensor, or typed in)
``play_card``       ``{"card": id, ...}``: play a saved card (secret: it shows a card);
                    ``steal_ring`` and ``switch`` take ``"target": [seat, pawn]`` and
                    ``"pawn"``: which of the player's pawns gains the ring / switches;
                    ``move_pawn`` cards take ``"target"``, ``"to"`` and optional ``"path"``;
                    ``extra_turn`` takes nothing
``place_monster``   ``{"target": [seat, pawn]}``: where a drawn Monster card goes
``end_turn``        ``{}``: finish the turn (without moving a pawn, this is passing)
==================  =================================================================

Phases: ``roll`` → ``tomb`` → ``move`` → ``after_move`` → (``end_turn``) and
between them ``choose`` (a drawn Monster card needs a target) and ``skull``
(an attempt waits for its outcome); ``over`` at the end. See
``docs/rules/terror.md`` for the board, the deck and every reading of an
unclear rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from .. import register
from ..base import Action, Event, Expectation, Game
from ..errors import BadGameData, IllegalAction, MalformedAction
from ..rng import Rng
from .board import POSITIONS, TOMBS, load_board
from .cards import load_deck
from .legal import STEP, Legal, is_int
from .play import play_card
from .state import Pawn, State
from .views import player_view, public_view
from .words import PAWN_LABELS, POSITION_WORDS, describe_action, place_words
from .words import describe_event as word_event

DEFAULT_SKULL_WINDOW_MS = 8000
SKULL_WINDOW_MS_RANGE = (100, 120_000)
OPTION_KEYS = frozenset({"board", "cards", "skull_window_ms"})
_PARAMS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # kind -> (required, optional)
    "roll": (frozenset(), frozenset()),
    "move_tomb": (frozenset({"tomb", "to"}), frozenset()),
    "move_pawn": (frozenset({"pawn", "to"}), frozenset({"path"})),
    "attempt_skull": (frozenset({"pawn"}), frozenset({"ring"})),
    "skull_outcome": (frozenset({"hit"}), frozenset()),
    "play_card": (frozenset({"card"}), frozenset({"target", "to", "path", "pawn"})),
    "place_monster": (frozenset({"target"}), frozenset()),
    "end_turn": (frozenset(), frozenset()),
}


def _options_refusal(opts: Mapping[str, Any]) -> str | None:
    """Why these game options are unusable, or None."""
    unknown = set(opts) - OPTION_KEYS
    if unknown:
        return f"unknown option(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(OPTION_KEYS))})"
    window = opts.get("skull_window_ms", DEFAULT_SKULL_WINDOW_MS)
    if not is_int(window) or window <= 0:
        return f"option skull_window_ms must be a positive whole number, got {window!r}"
    if not SKULL_WINDOW_MS_RANGE[0] <= window <= SKULL_WINDOW_MS_RANGE[1]:
        # The same bounds as the config's referee.skull_window_ms: a command may not set a window
        # that never ends (the table would wait on a missed skull for good).
        return (f"option skull_window_ms is {window}; use {SKULL_WINDOW_MS_RANGE[0]}.."
                f"{SKULL_WINDOW_MS_RANGE[1]}")
    for key in ("board", "cards"):
        # Kept in the saved state, so it must be plain JSON: a path string or an object.
        if key in opts and not isinstance(opts[key], (str, Mapping)):
            return f"option {key} must be a file path or an object, got {type(opts[key]).__name__}"
    return None


@register
class Terror(Legal, Game):
    name: ClassVar[str] = "terror"
    title: ClassVar[str] = "Terror in the Graveyard"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    SECRET_ACTION_KINDS: ClassVar[frozenset[str]] = frozenset({"play_card", "attempt_skull"})
    ACTION_WORDS: ClassVar[Mapping[str, str]] = {
        "roll": "roll the dice", "move_tomb": "slide a tomb", "move_pawn": "move a pawn",
        "place_monster": "place the Monster card", "end_turn": "end the turn",
        "skull_outcome": "say what the skull did", "play_card": "play a card", "attempt_skull": "drop the skull",
    }
    DOOR_EVENTS: ClassVar[frozenset[str]] = frozenset({"card_drawn", "reshuffled"})

    def __init__(self, state: State) -> None:
        self.board = load_board(state.options.get("board"))
        self.deck = load_deck(state.options.get("cards"))
        self.s = state

    # ----- construction and persistence ------------------------------------------
    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> Self:
        players = list(players)
        if not cls.min_players <= len(players) <= cls.max_players:
            raise IllegalAction(f"Terror in the Graveyard needs 2 to 4 players, got {len(players)}")
        if not all(isinstance(p, str) and p.strip() for p in players):
            raise IllegalAction("every player needs a non-empty name")
        if len(set(players)) != len(players):
            raise IllegalAction("player names must be different")
        if not is_int(seed):
            raise IllegalAction(f"seed must be a whole number, got {seed!r}")
        opts = dict(options or {})
        why = _options_refusal(opts)
        if why is not None:
            raise IllegalAction(why)
        for key in ("board", "cards"):
            if isinstance(opts.get(key), Mapping):
                opts[key] = dict(opts[key])
        board = load_board(opts.get("board"))
        deck = load_deck(opts.get("cards"))
        rng = Rng(seed)
        draw = deck.ids
        rng.shuffle(draw)
        state = State(
            players=players,
            seed=seed,
            options=opts,
            rng=rng,
            # Setup step 3: both pawns start on the Gate platform.
            pawns=[[Pawn(board.gate), Pawn(board.gate)] for _ in players],
            # Setup step 4: every tomb in its middle position.
            tombs={t: "middle" for t in TOMBS},
            draw=draw,
            discard=[],
        )
        return cls(state)

    def to_json(self) -> dict[str, Any]:
        return self.s.to_json(self.board)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        if not isinstance(data, Mapping):
            raise BadGameData("terror state must be a JSON object")
        options = data.get("options")
        if not isinstance(options, Mapping):
            raise BadGameData("terror state: 'options' must be an object")
        # The same checks as a new game's, so a saved state cannot fail later in expects().
        why = _options_refusal(options)
        if why is not None:
            raise BadGameData(f"terror state: {why}")
        board = load_board(options.get("board"))
        deck = load_deck(options.get("cards"))
        return cls(State.from_json(data, board, deck))

    # ----- who and when ------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return list(self.s.players)

    @property
    def current_player(self) -> int | None:
        return None if self.s.phase == "over" else self.s.turn

    @property
    def is_over(self) -> bool:
        return self.s.phase == "over"

    @property
    def winners(self) -> list[int]:
        return list(self.s.winners)

    @property
    def phase(self) -> str:
        return self.s.phase

    # ----- apply ----------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        if not isinstance(action, Action):
            raise MalformedAction(f"expected an Action, got {type(action).__name__}")
        if action.kind not in _PARAMS:
            raise MalformedAction(f"unknown action {action.kind!r} (one of: {', '.join(_PARAMS)})")
        required, optional = _PARAMS[action.kind]
        keys = set(action.params)
        if required - keys:
            raise MalformedAction(f"{action.kind} needs {', '.join(sorted(required - keys))}")
        if keys - required - optional:
            raise MalformedAction(f"{action.kind} does not take {', '.join(sorted(keys - required - optional))}")
        seat = action.player
        if seat is None:
            raise IllegalAction(f"{action.kind} needs the seat that does it (e.g. '{action.kind} 0')")
        if not 0 <= seat < len(self.s.players):
            raise IllegalAction(f"there is no player {seat + 1} in this game" if seat >= 0 else
                                "there is no such player in this game")
        if self.s.phase == "over":
            raise IllegalAction("the game is over")
        handler = getattr(self, f"_do_{action.kind}")
        events = handler(seat, action.params)
        if self.s.phase == "over":
            self.drop_pending()  # a Monster card drawn during the winning skull drop goes to the discard pile
        else:
            events += self.open_waiting()
        return self.record(events)

    def _my_turn(self, seat: int, *phases: str) -> None:
        s = self.s
        if s.phase == "choose" and s.pending is not None:
            if seat != s.pending["seat"]:
                raise IllegalAction(f"waiting for {s.players[s.pending['seat']]} to place a Monster card")
        elif seat != s.turn:
            raise IllegalAction(f"it is {s.players[s.turn]}'s turn, not {s.players[seat]}'s")
        if s.phase not in phases:
            hint = {
                "roll": "roll the dice first",
                "tomb": f"slide the {(s.symbol or '').title()} tomb first",
                "choose": "place the drawn Monster card first",
                "skull": "report the skull attempt's outcome first",
                "move": "move a pawn or end the turn",
                "after_move": "you have already moved; play a card, try the skull or end the turn",
            }[s.phase]
            raise IllegalAction(f"not now: {hint}")

    def _pawn_param(self, value: Any) -> int:
        # A float such as 1.0 compares equal to 1, so the type is checked, not only the value.
        if not is_int(value) or value not in (0, 1):
            raise MalformedAction(f"pawn must be 0 or 1, got {value!r}")
        return int(value)

    def _target_param(self, value: Any) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2 or not all(is_int(v) for v in value):
            raise MalformedAction(f"target must be [seat, pawn], got {value!r}")
        ts, tk = value
        if not 0 <= ts < len(self.s.players) or tk not in (0, 1):
            raise IllegalAction("there is no such pawn in this game")
        if self.s.pawns[ts][tk].out:
            raise IllegalAction(f"{self.s.players[ts]}'s {PAWN_LABELS[tk]} pawn is out of the game")
        return ts, tk

    def _walk(self, start: int, steps: int, to: Any, path: Any) -> list[int]:
        """Check a move of exactly ``steps`` to ``to`` (along ``path`` if given); return the path."""
        try:
            dest = self.board.cell(to)
            cells = None if path is None else [self.board.cell(c) for c in path] if isinstance(path, list) else None
        except ValueError:
            # (the cell's coordinates are in the action; people read this)
            raise IllegalAction("that space is not on the board") from None
        if path is not None and cells is None:
            raise MalformedAction("path must be a list of [row, col] cells")
        if cells is not None:
            why = self.board.check_path(self.cfg, start, steps, cells)
            if why is not None:
                raise IllegalAction(f"illegal path: {why}")
            if not cells or cells[-1] != dest:
                raise IllegalAction(f"the path does not end at {place_words(self.board, self.cfg, dest)}")
            return cells
        found = self.board.destinations(self.cfg, start, steps).get(dest)
        if found is None:
            raise IllegalAction(
                f"no legal move of exactly {steps} reaches {place_words(self.board, self.cfg, dest)} "
                "(orthogonal steps, no doubling back, bushes and pits block)"
            )
        return list(found)

    def _do_roll(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "roll")
        s = self.s
        s.number = s.rng.die(6)
        s.symbol = s.rng.choice(TOMBS)
        s.phase = "tomb"
        return [Event("rolled", {"seat": seat, "number": s.number, "symbol": s.symbol})]

    def _do_move_tomb(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "tomb")
        s = self.s
        tomb, to = params["tomb"], params["to"]
        if tomb not in TOMBS:
            raise MalformedAction(f"tomb must be one of {', '.join(TOMBS)}, got {tomb!r}")
        if to not in POSITIONS:
            raise MalformedAction(f"to must be one of {', '.join(POSITIONS)}, got {to!r}")
        if tomb != s.symbol:
            raise IllegalAction(
                f"the symbol die shows the {str(s.symbol).title()}, so the {str(s.symbol).title()} tomb moves"
            )
        if to not in STEP[s.tombs[tomb]]:
            raise IllegalAction(f"the {tomb.title()} tomb is at {POSITION_WORDS[s.tombs[tomb]]}; one position from "
                                f"there is {' or '.join(POSITION_WORDS[o] for o in STEP[s.tombs[tomb]])}")
        old_cfg = self.cfg
        events = [Event("tomb_moved", {"seat": seat, "tomb": tomb, "from": s.tombs[tomb], "to": to})]
        s.tombs[tomb] = to
        s.phase = "move"
        events += self.shift(old_cfg)
        return events + self.settle_after_fall()

    def _do_move_pawn(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "move")
        s = self.s
        k = self._pawn_param(params["pawn"])
        p = s.pawns[seat][k]
        if p.pos is None:
            raise IllegalAction(f"your {PAWN_LABELS[k]} pawn is out of the game")
        if self.paralysed(seat, k):
            raise IllegalAction(f"your {PAWN_LABELS[k]} pawn is paralysed on a Skeleton Hand")
        assert s.number is not None
        path = self._walk(p.pos, s.number, params["to"], params.get("path"))
        events = [
            Event("pawn_moved", {**self.who(seat, k), "from": self.board.rc(p.pos), "to": self.board.rc(path[-1]),
                                 "path": [self.board.rc(c) for c in path], "by": "roll"})
        ]
        p.pos = path[-1]
        s.moved_pawn = k
        s.phase = "after_move"
        return events + self.land(seat, k, may_draw=True)

    def _do_attempt_skull(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "move", "after_move")
        k = self._pawn_param(params["pawn"])
        why = self.attempt_refusal(seat, k)
        if why is not None:
            raise IllegalAction(why)
        held = self.s.pawns[seat][k].cards
        ring = params.get("ring")
        if ring is None:
            ring = next(c for c in held if self.card(c).effect == "ring")
        elif ring not in held or self.card(ring).effect != "ring":
            raise IllegalAction("this pawn holds no such Magic Ring")
        self.s.phase = "skull"
        self.s.attempt = {"seat": seat, "pawn": k}
        return [Event("skull_attempt", {**self.who(seat, k), "ring": ring})]

    def _do_skull_outcome(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "skull")
        hit = params["hit"]
        if not isinstance(hit, bool):
            raise MalformedAction(f"hit must be true or false, got {hit!r}")
        s = self.s
        assert s.attempt is not None
        if s.pawns[s.attempt["seat"]][s.attempt["pawn"]].out:
            # A state saved before falls voided a waiting drop: its outcome does not count either.
            return self.void_attempt()
        who = self.who(s.attempt["seat"], s.attempt["pawn"])
        s.attempt = None
        if hit:
            s.phase = "over"
            s.ghost = "destroyed"
            s.winners = [seat]
            return [Event("skull_hit", who), Event("game_won", {"seats": [seat], "reason": "ghost"})]
        s.phase = "after_move"
        s.attempted = True
        if s.moved_pawn is None:
            s.moved_pawn = who["pawn"]
        return [Event("skull_missed", who)]

    def _do_place_monster(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "choose")
        target = self._target_param(params["target"])
        assert self.s.pending is not None
        if target not in self.monster_targets(self.s.pending["seat"], self.s.pending["pawn"]):
            raise IllegalAction(
                "a Monster card goes on an opponent's pawn that is not already a Monster, or on the pawn that drew it"
            )
        return self.place_monster(target)

    def _do_end_turn(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        self._my_turn(seat, "move", "after_move")
        return self.next_turn(keep_seat=self.s.extra_turns > 0)

    def _do_play_card(self, seat: int, params: Mapping[str, Any]) -> list[Event]:
        return play_card(self, seat, params)

    # ----- views ------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        return public_view(self)

    def player_view(self, seat: int) -> dict[str, Any]:
        return player_view(self, seat)

    # ----- the physical board ---------------------------------------------------------------
    def expects(self) -> list[Expectation]:
        s = self.s
        if s.phase == "tomb" and s.symbol is not None:
            tomb = s.symbol
            options = STEP[s.tombs[tomb]]
            words = " or ".join(POSITION_WORDS[o] for o in options)
            return [
                Expectation(
                    kind="tomb_move",
                    player=s.turn,
                    prompt=f"Slide the {tomb.title()} tomb one position: to {words}.",
                    accepts={
                        f"tomb.{tomb}": {o: Action("move_tomb", s.turn, {"tomb": tomb, "to": o}) for o in options}
                    },
                )
            ]
        if s.phase == "skull" and s.attempt is not None:
            p = s.attempt["seat"]
            miss = Action("skull_outcome", p, {"hit": False})
            return [
                Expectation(
                    kind="skull_outcome",
                    player=p,
                    prompt="Drop the skull down the Crypt's chute.",
                    accepts={
                        "launcher": {"launched": Action("skull_outcome", p, {"hit": True})},
                        "chute.left": {"blocked": miss},
                    },
                    window_ms=int(s.options.get("skull_window_ms", DEFAULT_SKULL_WINDOW_MS)),
                    on_timeout=miss,
                )
            ]
        return []

    def expected_board(self) -> dict[str, str]:
        board = {f"tomb.{t}": pos for t, pos in self.s.tombs.items()}
        board["launcher"] = "launched" if self.s.ghost == "destroyed" else "armed"
        return board

    def describe_event(self, event: Event, viewer: int | None = None) -> str:
        return word_event(self, event, viewer)

    def describe(self, action: Action) -> str:
        return describe_action(self, action)

    # ----- the referee's corrections ------------------------------------------------------------
    def rng_state(self) -> str | None:
        return self.s.rng.to_json()

    def adopt_board(self, sensors: Mapping[str, str]) -> list[Event]:
        """Trust the board: a tomb may stand at any of its positions, and it shifts the board as a slide does.

        Not the tomb that was rolled (its move is declared, one position) and not the
        launcher (the Headless Ghost falls only to a skull, and stands until it does).
        """
        s = self.s
        if s.phase == "over":
            raise IllegalAction("the game is over")
        moves: dict[str, str] = {}
        # The tomb step is still to come while a Monster card drawn before it waits for its target.
        tomb_step = s.phase == "tomb" or (s.phase == "choose" and s.pending is not None
                                          and s.pending["resume"] == "tomb")
        for sensor, value in sensors.items():
            kind, _, tomb = sensor.partition(".")
            if kind != "tomb" or tomb not in TOMBS:
                what = {"launcher": "the Headless Ghost's launcher"}.get(sensor, "a Crypt window" if kind == "chute"
                                                                        else "that sensor")
                raise IllegalAction(f"only a tomb's position can be taken from the board, not {what}")
            if value not in POSITIONS:
                why = {"moving": "is between positions: slide it fully to one first",
                       "fault": "reports two positions at once: check its sensors"}.get(value, "is not at a position")
                raise IllegalAction(f"the {tomb.title()} tomb {why}")
            if tomb_step and tomb == s.symbol:
                then = "" if s.phase == "tomb" else ", once the drawn Monster card is placed"
                raise IllegalAction(f"the {tomb.title()} tomb was rolled: declare its one-position move instead{then}")
            moves[tomb] = value
        events: list[Event] = []
        for tomb, to in moves.items():
            if s.tombs[tomb] == to:
                continue
            old_cfg = self.cfg
            events.append(Event("tomb_moved", {"seat": None, "tomb": tomb, "from": s.tombs[tomb], "to": to}))
            s.tombs[tomb] = to
            events += self.shift(old_cfg)
            if s.phase == "over":
                break
        return self.record(events + self.settle_after_fall())
