"""Superstition: the rules engine (rulebook in ``shared/rules/superstition.txt``).

Players race in through the brick path, challenge a Ladder or Mirror trap,
cross the stone path to a Grave trap, draw a Whammy and a Charm at the Wizard's
Tomb, jump it (Part II) and race back out to their own start circle.

A challenge is resolved one of two ways (``options["challenge"]``):

* ``digital``: the engine keeps each trap's live peg as a secret in the state,
  re-drawn from the state's RNG at every reset; naming a peg settles it at once.
* ``sensors``: the physical trap decides. The engine publishes what it expects
  (a peg pull, then the sprung sensor within a window, then a full reset) and
  the referee turns sensor readings into ``pull_peg``, ``challenge_result`` and
  ``reset_trap`` actions; a person may enter the same actions by hand.

Interpretations of unclear rules are listed in ``docs/rules/superstition.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from .. import register
from ..base import JSON, Action, Event, Expectation, Game
from ..errors import BadGameData, IllegalAction
from ..rng import Rng
from .adopt import adopt_board
from .board import (
    GRAVES,
    LADDER_MIRROR,
    LEGACY_MIN_PATH,
    TRAP_NAMES,
    TRAPS,
    Board,
    load_board,
    parse_board,
)
from .event_words import describe_event as word_event
from .moves import (
    CHARM_FOR_WHAMMY,
    CHARM_NAMES,
    WHAMMY_NAMES,
    charm_options,
    move_options,
)
from .rules import RulesMixin
from .state import check_state
from .table import Walk

DEFAULT_OPTIONS: dict[str, JSON] = {
    "board": None,
    "challenge": "digital",
    "dice": 1,
    "dice_source": "engine",
    "step_off": "free",
    "outcome_window_ms": 1500,
    "colours": None,
    "tokens": "engine",
    # House rule, off as the rulebook has it (Whammy rule 4: no partial moves): with two dice a leaving pawn
    # may stop on a Whammy on the very next space, which no throw of two dice can land on.
    "whammy_stop": False,
}
STATE_VERSION = 1


def _normalise_options(options: Mapping[str, JSON] | None, n_players: int, board: Board) -> dict[str, JSON]:
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise IllegalAction("options must be an object")
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise IllegalAction(f"unknown option {unknown[0]!r} (known: {', '.join(DEFAULT_OPTIONS)})")
    out = dict(DEFAULT_OPTIONS)
    out.update(options)
    choices = {
        "challenge": ("digital", "sensors"),
        "dice_source": ("engine", "table"),
        "step_off": ("free", "counts"),
        "tokens": ("engine", "table"),
    }
    for key, allowed in choices.items():
        if out[key] not in allowed:
            raise IllegalAction(f"option {key!r} is {out[key]!r}; choose one of {', '.join(allowed)}")
    if not isinstance(out["whammy_stop"], bool):
        raise IllegalAction(f"option 'whammy_stop' is {out['whammy_stop']!r}; choose true or false")
    if out["dice"] not in (1, 2) or isinstance(out["dice"], bool):
        raise IllegalAction(f"option 'dice' is {out['dice']!r}; choose 1 or 2")
    window = out["outcome_window_ms"]
    if isinstance(window, bool) or not isinstance(window, int) or not 100 <= window <= 60000:
        raise IllegalAction(f"option 'outcome_window_ms' is {window!r}; use 100..60000")
    if out["board"] is not None and not isinstance(out["board"], (str, Mapping)):
        raise IllegalAction(f"option 'board' must be a file path or a board document, got {out['board']!r}")
    colours = out["colours"]
    if colours is None:
        colours = board.colours[:n_players]
    if not isinstance(colours, list) or len(colours) != n_players:
        raise IllegalAction(f"option 'colours' must list one colour a player ({n_players}), got {colours!r}")
    for colour in colours:
        # A list or object here would fail the lookup itself, not just miss.
        if not isinstance(colour, str) or colour not in board.circles:
            raise IllegalAction(
                f"option 'colours': {colour!r} has no start circle (board has {', '.join(board.circles)})"
            )
    if len(set(colours)) != len(colours):
        raise IllegalAction(f"option 'colours' repeats a colour: {colours!r}")
    out["colours"] = list(colours)
    return out


@register
class Superstition(RulesMixin, Game):
    name: ClassVar[str] = "superstition"
    title: ClassVar[str] = "Superstition"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    # The legal list before a Whammy is placed, a move that needs a Charm, and
    # the entry of tokens drawn from the real tomb would tell spectators what a
    # seat holds.
    SECRET_ACTION_KINDS: ClassVar[frozenset[str]] = frozenset({"place_whammy", "charm_move", "draw_tokens"})
    # A Whammy placed by mistake may be taken back until the next throw of the dice (which closes the door
    # anyway): its placement is public the moment it is made, so taking it back shows nobody anything new.
    TAKE_BACK_KINDS: ClassVar[frozenset[str]] = frozenset({"place_whammy"})
    ACTION_WORDS: ClassVar[Mapping[str, str]] = {
        "roll": "throw the dice", "move": "move a pawn", "charm_move": "move past a Whammy with a Charm",
        "end_turn": "end the turn", "jump": "jump the Wizard's Tomb",
        "trade_places": "trade places across the Wizard's Tomb", "pull_peg": "pull a peg of the trap",
        "challenge_result": "say what the trap did", "reset_trap": "reset the trap",
        "place_whammy": "place a Whammy", "relocate_whammy": "move the Whammy",
        "leave_whammy": "leave the Whammy where it is", "draw_tokens": "enter the tokens drawn",
    }

    @classmethod
    def options_of_first_edition(cls, options: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        # Before edition 2 a two-dice game always allowed the stop on a Whammy beside the pawn.
        if isinstance(options, Mapping) and "whammy_stop" not in options:
            return {**options, "whammy_stop": True}
        return {"whammy_stop": True} if options is None else options

    @classmethod
    def check_new_options(cls, options: Mapping[str, Any]) -> None:
        super().check_new_options(options)
        board = options.get("board")
        if isinstance(board, Mapping):
            parse_board(board, where="option 'board'")  # every check, the newest included
    # A challenge's result shows which peg was live; a drawn Whammy or Charm is a secret.
    DOOR_EVENTS: ClassVar[frozenset[str]] = frozenset({"challenge_resolved", "drew_tokens"})

    def __init__(self, board: Board) -> None:
        self.board = board
        self.ring_index = {
            "brick": {s: i for i, s in enumerate(board.brick)},
            "stone": {s: i for i, s in enumerate(board.stone)},
        }
        self._players: list[str] = []
        self.seed = 0
        self.options: dict[str, JSON] = dict(DEFAULT_OPTIONS)
        self.colours: list[str] = []
        self.rng = Rng(0)
        self.phase = "opening"
        self.turn: int | None = None
        self.opening: dict[str, Any] = {"round": [], "rolls": {}}
        self.dice: list[int] = []
        self.pawns: list[dict[str, Any]] = []
        self.hands: list[dict[str, Any]] = []
        self.pools: dict[str, list[str]] = {"whammies": [], "charms": []}
        self.whammies: dict[str, str] = {}
        self.traps: dict[str, dict[str, Any]] = {}
        self.challenge: dict[str, Any] | None = None
        self.after_reset: str | None = None
        self.relocate_from: str | None = None
        self.winner: int | None = None
        self.turns = 0

    # ----- construction and persistence -------------------------------------
    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, JSON] | None = None) -> Self:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise IllegalAction("players must be a list of names")
        if not cls.min_players <= len(players) <= cls.max_players:
            raise IllegalAction(f"Superstition needs 2 to 4 players, got {len(players)}")
        for i, name in enumerate(players):
            if not isinstance(name, str) or not name.strip():
                raise IllegalAction(f"player {i} needs a non-empty name, got {name!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise IllegalAction(f"seed must be an integer, got {seed!r}")
        board_path = (options or {}).get("board") if isinstance(options, Mapping) else None
        # A board document travels inside the options (and so in the journal): the game keeps the
        # board it started with, whatever happens to the owner's file afterwards.
        if isinstance(board_path, Mapping):
            # The board travels in the journal too: replaying an old game must not apply a check made
            # since. A new game's board is checked in full first (check_new_options, by the referee).
            board = parse_board(board_path, where="option 'board'", min_path=LEGACY_MIN_PATH)
        else:
            board = load_board(board_path) if isinstance(board_path, str) else load_board()
        game = cls(board)
        game.options = _normalise_options(options, len(players), board)
        game._players = list(players)
        game.seed = seed
        game.rng = Rng(seed)
        game.colours = list(game.options["colours"])
        game.pawns = [
            {"space": board.circles[c], "leg": "in1", "zapped": [], "target": None} for c in game.colours
        ]
        game.hands = [{"whammy": None, "charm": None, "drawn": False} for _ in players]
        game.pools = {"whammies": list(CHARM_FOR_WHAMMY), "charms": list(CHARM_FOR_WHAMMY.values())}
        game.traps = {t: {"live": None, "pulled": None, "sprung": False} for t in TRAPS}
        if game.options["challenge"] == "digital":
            # Setup note: each trap is reset in secret before play.
            for trap in TRAPS:
                game.traps[trap]["live"] = "ab"[game.rng.below(2)]
        game.opening = {"round": list(range(len(players))), "rolls": {}}
        return game

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.name,
            "version": STATE_VERSION,
            "players": list(self._players),
            "seed": self.seed,
            "options": dict(self.options, colours=list(self.colours)),
            "board": copy.deepcopy(self.board.raw),
            "rng": self.rng.to_json(),
            "phase": self.phase,
            "turn": self.turn,
            "turns": self.turns,
            "opening": {
                "round": list(self.opening["round"]),
                "rolls": {str(k): v for k, v in self.opening["rolls"].items()},
            },
            "dice": list(self.dice),
            "pawns": [dict(p, zapped=list(p["zapped"])) for p in self.pawns],
            "hands": [dict(h) for h in self.hands],
            "pools": {k: list(v) for k, v in self.pools.items()},
            "whammies": dict(self.whammies),
            "traps": {t: dict(v) for t, v in self.traps.items()},
            "challenge": dict(self.challenge) if self.challenge else None,
            "after_reset": self.after_reset,
            "relocate_from": self.relocate_from,
            "winner": self.winner,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Self:
        if not isinstance(data, Mapping):
            raise BadGameData("a Superstition state must be a JSON object")
        if data.get("game") != cls.name or data.get("version") != STATE_VERSION:
            raise BadGameData(
                f"not a Superstition state of version {STATE_VERSION}: game={data.get('game')!r}, "
                f"version={data.get('version')!r}"
            )
        board = parse_board(data.get("board"), where="saved state's board", min_path=LEGACY_MIN_PATH)
        game = cls(board)
        try:
            options = dict(data["options"])
            game.options = _normalise_options(options, len(data["players"]), board)
            game._players = [str(p) for p in data["players"]]
            game.seed = int(data["seed"])
            game.colours = list(game.options["colours"])
            game.rng = Rng.from_json(data["rng"])
            game.phase = str(data["phase"])
            game.turn = data["turn"]
            game.turns = int(data["turns"])
            game.opening = {
                "round": [int(s) for s in data["opening"]["round"]],
                "rolls": {int(k): int(v) for k, v in data["opening"]["rolls"].items()},
            }
            game.dice = [int(d) for d in data["dice"]]
            game.pawns = [dict(p, zapped=list(p["zapped"])) for p in data["pawns"]]
            game.hands = [dict(h) for h in data["hands"]]
            game.pools = {k: list(data["pools"][k]) for k in ("whammies", "charms")}
            game.whammies = dict(data["whammies"])
            game.traps = {t: dict(data["traps"][t]) for t in TRAPS}
            game.challenge = dict(data["challenge"]) if data["challenge"] else None
            game.after_reset = data["after_reset"]
            game.relocate_from = data["relocate_from"]
            game.winner = data["winner"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadGameData(f"Superstition state is incomplete or mistyped: {type(exc).__name__}: {exc}") from None
        try:
            check_state(game)
        except (KeyError, TypeError, AttributeError) as exc:
            # A mistyped value the checks did not name (a list where a name belongs)
            # must still be refused as bad data, not escape as a crash.
            raise BadGameData(f"Superstition state is mistyped: {type(exc).__name__}: {exc}") from None
        return game

    # ----- who and when ------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return list(self._players)

    @property
    def current_player(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase == "opening":
            return self._opening_pending()[0]
        return self.turn

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def winners(self) -> list[int]:
        return [self.winner] if self.winner is not None else []

    def seat_name(self, seat: int) -> str:
        return f"{self._players[seat]} ({self.colours[seat]})"

    @staticmethod
    def trap_name(trap: str) -> str:
        return TRAP_NAMES[trap]

    def _opening_pending(self) -> list[int]:
        return [s for s in self.opening["round"] if s not in self.opening["rolls"]]

    # ----- views ------------------------------------------------------------
    def public_view(self) -> dict[str, JSON]:
        roll = sum(self.dice) if self.dice else None
        return {
            "game": self.name,
            "title": self.title,
            "phase": self.phase,
            "current_player": self.current_player,
            "turn_number": self.turns,
            "dice": list(self.dice),
            "roll": roll,
            "options": {k: v for k, v in self.options.items() if k != "board"},
            "board": self.board.geometry(),
            "players": [
                {
                    "seat": seat,
                    "name": name,
                    "colour": self.colours[seat],
                    "space": self.pawns[seat]["space"],
                    "leg": self.pawns[seat]["leg"],
                    "part": 1 if self.pawns[seat]["leg"] in ("in1", "in2") else 2,
                    "zapped_by": list(self.pawns[seat]["zapped"]),
                    # Whether a seat still holds its Whammy is not public: the rules keep the tokens
                    # secret (only a placed Whammy is seen), so a player's own view alone says so.
                    "drew_tokens": self.hands[seat]["drawn"],
                }
                for seat, name in enumerate(self._players)
            ],
            "traps": {
                t: {
                    "name": TRAP_NAMES[t],
                    "state": "sprung" if v["sprung"] else "cocked",
                    "peg_a": "pulled" if v["pulled"] == "a" else "in",
                    "peg_b": "pulled" if v["pulled"] == "b" else "in",
                }
                for t, v in self.traps.items()
            },
            "whammies": [
                {"space": s, "whammy": w, "name": WHAMMY_NAMES[w]} for s, w in sorted(self.whammies.items())
            ],
            "challenge": (
                {"trap": self.challenge["trap"], "peg": self.challenge.get("peg")} if self.challenge else None
            ),
            "opening_rolls": {str(k): v for k, v in self.opening["rolls"].items()},
            "winners": self.winners,
            "walks": self._walks(),
        }

    def _walks(self) -> dict[str, JSON]:
        """Where each legal move of the player to move goes: the spaces entered, the last is where it stops.

        So a page can show the landing space before the move is sent. A walk that needs the Charm is
        never here: only its holder's own view may tell that they can use one (``player_view``).
        """
        p = self.current_player
        if self.phase != "move" or p is None:
            return {}
        return {
            direction: {"to": walk.destination, "path": list(walk.path), "charm": False}
            for direction, walk in self.options_for(p).items()
            if isinstance(walk, Walk)
        }

    def player_view(self, seat: int) -> dict[str, JSON]:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self._players):
            raise ValueError(f"no seat {seat!r} in this game")
        view = self.public_view()
        hand = self.hands[seat]
        view["you"] = {
            "seat": seat,
            "whammy": hand["whammy"],
            "whammy_name": WHAMMY_NAMES.get(hand["whammy"] or ""),
            "charm": hand["charm"],
            "charm_name": CHARM_NAMES.get(hand["charm"] or ""),
            "charm_passes": WHAMMY_NAMES[_whammy_for(hand["charm"])] if hand["charm"] else None,
        }
        if seat == self.current_player:
            # The holder's own view adds the walks its Charm opens: in ``walks`` for a way no plain move
            # takes, and all of them in ``charm_walks`` (a way may offer both, under the house rule
            # ``whammy_stop``: the stop on the Whammy, or the whole throw past it with the Charm).
            charm_walks = self._charm_walks()
            view["walks"] = {**charm_walks, **self._walks()}
            view["charm_walks"] = charm_walks
        return view

    def _charm_walks(self) -> dict[str, JSON]:
        p = self.current_player
        if self.phase != "move" or p is None:
            return {}
        return {
            direction: {"to": walk.destination, "path": list(walk.path), "charm": True}
            for direction, walk in self.charm_options_for(p).items()
        }

    # ----- the physical board -------------------------------------------------
    def expects(self) -> list[Expectation]:
        if self.options["challenge"] != "sensors" or self.challenge is None or self.turn is None:
            return []
        p = self.turn
        trap = self.challenge["trap"]
        name = TRAP_NAMES[trap]
        prefix = f"trap.{trap}"
        if self.phase == "challenge":
            return [
                Expectation(
                    kind="peg_pull",
                    player=p,
                    prompt=f"Pull one peg of the {name}.",
                    accepts={
                        f"{prefix}.peg_{peg}": {"pulled": Action("pull_peg", p, {"trap": trap, "peg": peg})}
                        for peg in "ab"
                    },
                )
            ]
        if self.phase == "outcome":
            return [
                Expectation(
                    kind="trap_outcome",
                    player=p,
                    prompt=f"Watch the {name}: did it spring?",
                    accepts={
                        f"{prefix}.sprung": {
                            "sprung": Action("challenge_result", p, {"trap": trap, "zapped": True})
                        }
                    },
                    window_ms=int(self.options["outcome_window_ms"]),
                    on_timeout=Action("challenge_result", p, {"trap": trap, "zapped": False}),
                )
            ]
        if self.phase == "reset":
            return [
                Expectation(
                    kind="trap_reset",
                    player=p,
                    prompt=f"Reset the {name} in secret: both pegs in, the trap cocked.",
                    requires={f"{prefix}.peg_a": "in", f"{prefix}.peg_b": "in", f"{prefix}.sprung": "cocked"},
                    action=Action("reset_trap", p, {"trap": trap}),
                )
            ]
        return []

    def expected_board(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for trap, state in self.traps.items():
            for peg in "ab":
                out[f"trap.{trap}.peg_{peg}"] = "pulled" if state["pulled"] == peg else "in"
            out[f"trap.{trap}.sprung"] = "sprung" if state["sprung"] else "cocked"
        return out

    def rng_state(self) -> str | None:
        return self.rng.to_json()

    def adopt_board(self, sensors: Mapping[str, str]) -> list[Event]:
        """Trust the board: the challenged trap's pegs and spring, as a challenge can stand (``adopt.py``)."""
        return adopt_board(self, sensors)

    def describe_event(self, event: Event, viewer: int | None = None) -> str:
        return word_event(self, event, viewer)

    def closes_door(self, action: Action, events: Sequence[Event]) -> str | None:
        if action.kind == "pull_peg" and self.options["challenge"] == "digital":
            return "the trap's live peg was decided"
        return super().closes_door(action, events)

    # ----- helpers the rules use ------------------------------------------------
    def options_for(self, seat: int) -> dict[str, Walk | str]:
        """The moves without a Charm (``move``), or why each direction is blocked."""
        return move_options(self, seat, sum(self.dice))

    def charm_options_for(self, seat: int) -> dict[str, Walk]:
        """The moves that pass a Whammy with the seat's Charm (``charm_move``)."""
        return charm_options(self, seat, sum(self.dice))


def _whammy_for(charm: str) -> str:
    for whammy, c in CHARM_FOR_WHAMMY.items():
        if c == charm:
            return whammy
    raise KeyError(charm)


__all__ = ["GRAVES", "LADDER_MIRROR", "TRAPS", "Superstition"]
