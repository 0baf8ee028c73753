"""The common shape of every rules engine.

A game is a state object. ``legal_actions()`` enumerates what may happen next;
``apply(action)`` checks one action and, if it is legal, mutates the state and
returns the domain events it caused. An illegal action raises
:class:`IllegalAction` (a ``ValueError``) that says why, and leaves the state
exactly as it was.

Engines are pure: no I/O, threads, wall clock or global random numbers. The
random state is an :class:`~controller.games.rng.Rng` held in the game state,
so ``seed + actions`` replays a game exactly, and ``to_json()`` /
``from_json()`` round-trip it.

Engines also say what they expect from the physical board next
(:meth:`Game.expects`) and what the board should look like when nothing is
moving (:meth:`Game.expected_board`). The referee reads both; engines never see
a sensor.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from .errors import BadGameData, IllegalAction, MalformedAction
from .owner_words import check_words

# The errors stay importable from here, where they were first defined.
__all__ = [
    "JSON",
    "Action",
    "BadGameData",
    "Event",
    "Expectation",
    "Game",
    "IllegalAction",
    "MalformedAction",
]

JSON = Any


def _freeze(value: JSON) -> JSON:
    """Canonical JSON copy, so actions compare equal regardless of tuple/list."""
    return json.loads(json.dumps(value, sort_keys=True))


@dataclass(frozen=True, eq=True)
class Action:
    """One thing a seat (or the board) does.

    ``kind`` names the action; ``player`` is the seat index (``None`` for the
    rare action that belongs to no seat); ``params`` is plain JSON.
    """

    kind: str
    player: int | None = None
    params: Mapping[str, JSON] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not self.kind:
            raise MalformedAction("action kind must be a non-empty string")
        if self.player is not None and (not isinstance(self.player, int) or isinstance(self.player, bool)):
            raise MalformedAction(f"action player must be a seat number, got {self.player!r}")
        if not isinstance(self.params, Mapping):
            raise MalformedAction("action params must be an object")
        try:
            object.__setattr__(self, "params", _freeze(dict(self.params)))
        except (TypeError, ValueError) as exc:
            raise MalformedAction(f"action params are not plain JSON: {exc}") from None

    def __hash__(self) -> int:
        return hash((self.kind, self.player, json.dumps(self.params, sort_keys=True)))

    def to_json(self) -> dict[str, JSON]:
        return {"kind": self.kind, "player": self.player, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: JSON) -> Action:
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except RecursionError:
                raise MalformedAction("action is not valid JSON: it is nested too deeply") from None
            except ValueError as exc:
                raise MalformedAction(f"action is not valid JSON: {exc}") from None
        if not isinstance(data, Mapping):
            raise MalformedAction("action must be a JSON object")
        unknown = set(data) - {"kind", "player", "params"}
        if unknown:
            raise MalformedAction(f"unknown action field(s): {', '.join(sorted(unknown))}")
        if "kind" not in data:
            raise MalformedAction("action has no 'kind'")
        return cls(kind=data["kind"], player=data.get("player"), params=data.get("params") or {})

    def to_text(self) -> str:
        """``kind [player] [params-json]``, e.g. ``move_pawn 1 {"pawn": 0, "to": [3, 4]}``."""
        parts = [self.kind]
        if self.player is not None or self.params:
            parts.append("-" if self.player is None else str(self.player))
        if self.params:
            parts.append(json.dumps(self.params, sort_keys=True))
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> Action:
        text = text.strip()
        if not text:
            raise MalformedAction("empty action text")
        head, _, rest = text.partition(" ")
        rest = rest.strip()
        player: int | None = None
        params: JSON = {}
        if rest:
            who, _, tail = rest.partition(" ")
            if who != "-":
                try:
                    player = int(who)
                except ValueError:
                    raise MalformedAction(f"player must be a seat number or '-', got {who!r}") from None
            tail = tail.strip()
            if tail:
                try:
                    params = json.loads(tail)
                except RecursionError:
                    raise MalformedAction("action params are not valid JSON: they are nested too deeply") from None
                except ValueError as exc:
                    raise MalformedAction(f"action params are not valid JSON: {exc}") from None
        return cls(kind=head, player=player, params=params)

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True)
class Event:
    """A domain event. ``data`` is public; ``secret`` is seen only by ``private_to``."""

    type: str
    data: Mapping[str, JSON] = field(default_factory=dict)
    private_to: int | None = None
    secret: Mapping[str, JSON] = field(default_factory=dict)

    def public(self) -> dict[str, JSON]:
        return {"type": self.type, "data": dict(self.data)}

    def for_player(self, seat: int) -> dict[str, JSON]:
        out = self.public()
        if self.private_to == seat and self.secret:
            out["secret"] = dict(self.secret)
        return out

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": self.type,
            "data": dict(self.data),
            "private_to": self.private_to,
            "secret": dict(self.secret),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Event:
        return cls(
            type=data["type"],
            data=data.get("data") or {},
            private_to=data.get("private_to"),
            secret=data.get("secret") or {},
        )


@dataclass(frozen=True)
class Expectation:
    """What the engine waits for from the physical board.

    ``accepts`` maps a logical sensor id to the sensor values that satisfy the
    expectation, and for each value the action that observation becomes; the
    referee applies that action. ``requires`` is the other shape: when every
    listed sensor shows its value at once (a trap reset: both pegs in and
    cocked), ``action`` is applied. ``window_ms`` opens an outcome window: if
    nothing accepted arrives within it, ``on_timeout`` is applied.

    Sensor ids and values are the hardware vocabulary in ``docs/topics.md``:
    ``tomb.<mummy|monster|wolf>`` = end_a|middle|end_b, ``launcher`` =
    armed|launched, ``chute.<left|right>`` = clear|blocked,
    ``trap.<name>.peg_a|peg_b`` = in|pulled, ``trap.<name>.sprung`` =
    cocked|sprung.
    """

    kind: str
    prompt: str
    player: int | None = None
    accepts: Mapping[str, Mapping[str, Action]] = field(default_factory=dict)
    requires: Mapping[str, str] = field(default_factory=dict)
    action: Action | None = None
    window_ms: int | None = None
    on_timeout: Action | None = None

    def action_for(self, sensor: str, value: str) -> Action | None:
        return self.accepts.get(sensor, {}).get(value)

    def sensors(self) -> set[str]:
        return set(self.accepts) | set(self.requires)

    def to_json(self) -> dict[str, JSON]:
        return {
            "kind": self.kind,
            "prompt": self.prompt,
            "player": self.player,
            "accepts": {
                s: {v: a.to_json() for v, a in vals.items()} for s, vals in self.accepts.items()
            },
            "requires": dict(self.requires),
            "action": self.action.to_json() if self.action else None,
            "window_ms": self.window_ms,
            "on_timeout": self.on_timeout.to_json() if self.on_timeout else None,
        }


class Game(ABC):
    """One game in progress. Subclasses register themselves in ``controller.games``."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    # ----- construction and persistence -------------------------------------
    @classmethod
    @abstractmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, JSON] | None = None) -> Self:
        """Set up a fresh game. Raises :class:`IllegalAction` for a bad player list or option."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The complete state, secrets included, as plain JSON."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Self:
        """Inverse of :meth:`to_json`; raises :class:`BadGameData` for a bad state."""

    @classmethod
    def replay(
        cls,
        players: Sequence[str],
        seed: int,
        actions: Iterable[Action],
        options: Mapping[str, JSON] | None = None,
    ) -> Self:
        game = cls.new(players, seed, options)
        for action in actions:
            game.apply(action)
        return game

    # ----- play --------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action now, for every seat (Play Anytime! cards included)."""

    def legal_actions_for(self, seat: int) -> list[Action]:
        return [a for a in self.legal_actions() if a.player == seat]

    def public_actions(self) -> list[Action]:
        """Legal actions that reveal no secret (safe for the public state)."""
        return [a for a in self.legal_actions() if a.kind not in self.SECRET_ACTION_KINDS]

    @classmethod
    def options_of_first_edition(cls, options: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The options a game journalled before rules editions existed was played under.

        A default that changed since (to follow the rulebook more closely) is put back for such a game, so
        that its journal replays exactly; a game that sets the option itself keeps its own value.
        """
        return options

    SECRET_ACTION_KINDS: ClassVar[frozenset[str]] = frozenset()
    # Secret kinds that a table may still take back like a move: once played, what they did is in public
    # events, and they use no dice (Superstition's Whammy placed on the path). Still sent sealed.
    TAKE_BACK_KINDS: ClassVar[frozenset[str]] = frozenset()

    # What a player does with each kind of action, as the table's "waiting for" line says it
    # ("Ann to play: roll the dice or end the turn"); a kind missing here is said with spaces.
    ACTION_WORDS: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def action_words(cls, kind: str) -> str:
        return cls.ACTION_WORDS.get(kind) or kind.replace("_", " ")

    @classmethod
    def check_new_options(cls, options: Mapping[str, JSON]) -> None:
        """Checks only a new game's options must pass: :class:`BadGameData` for one that fails.

        :meth:`new` also rebuilds games a journal holds, so it keeps accepting what it once
        did; a check added later goes here, and the referee runs it before a new game only.
        """
        for option in ("board", "cards", "tiles"):
            if isinstance(options.get(option), Mapping):
                check_words(option, options[option], f"option {option!r}")

    @abstractmethod
    def apply(self, action: Action) -> list[Event]:
        """Validate and apply one action; raise :class:`IllegalAction` with state unchanged."""

    # ----- who and when ------------------------------------------------------
    @property
    @abstractmethod
    def players(self) -> list[str]:
        """Seat names, in seat order."""

    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat whose turn it is, or ``None`` once the game is over."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @property
    @abstractmethod
    def winners(self) -> list[int]:
        """Winning seats (more than one for a tie); empty while the game runs."""

    # ----- views ------------------------------------------------------------
    @abstractmethod
    def public_view(self) -> dict[str, JSON]:
        """Everything a spectator may see. Must contain no secret."""

    @abstractmethod
    def player_view(self, seat: int) -> dict[str, JSON]:
        """The public view plus what ``seat`` alone may see."""

    # ----- the physical board -------------------------------------------------
    def expects(self) -> list[Expectation]:
        """What the engine waits for from the physical board now (empty: nothing)."""
        return []

    def expected_board(self) -> dict[str, str]:
        """Sensor id -> the value the rules say the board shows when at rest."""
        return {}

    def describe(self, action: Action) -> str:
        """A short sentence for people, used by the CLI and the event log."""
        return action.to_text()

    def describe_event(self, event: Event, viewer: int | None = None) -> str:
        """One of this game's events in words ("Ann throws 5"), or "" for one the game does not word.

        Worded with the game as it stands (its board and names). A secret in the event is told only
        when ``viewer`` is the seat it belongs to.
        """
        return ""

    # ----- taking moves back (the referee's undo) -------------------------------
    # Event types that bring hidden information out (a card or tile drawn, a spook turned):
    # a step that caused one can never be taken back, or someone would see it again.
    DOOR_EVENTS: ClassVar[frozenset[str]] = frozenset()

    def closes_door(self, action: Action, events: Sequence[Event]) -> str | None:
        """Why the step ``action`` (which caused ``events``) may never be undone, or ``None``.

        The referee also closes the door on its own whenever the random state
        moved (:meth:`rng_state`), an event has a private part, or the action is
        a secret kind; a game adds what only it knows (:attr:`DOOR_EVENTS`).
        """
        for event in events:
            if event.type in self.DOOR_EVENTS:
                return f"hidden information came out ({event.type.replace('_', ' ')})"
        return None

    def rng_state(self) -> str | None:
        """The random-number state as text (``None``: the game has none); games override it cheaply."""
        rng = self.to_json().get("rng")
        return rng if isinstance(rng, str) else None

    def adopt_board(self, sensors: Mapping[str, str]) -> list[Event]:
        """Make the sensed ``sensors`` (id -> value) the game's truth, where the rules allow it.

        The referee's "trust the board" correction. Raise :class:`IllegalAction`
        saying why when the rules do not allow that position; the default allows none.
        """
        raise IllegalAction(f"{self.title} has no rule that lets the board's position become the game's")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_json() == self.to_json()

    __hash__ = None  # type: ignore[assignment]
