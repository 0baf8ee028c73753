"""The referee's decisions as a pure state machine: an input in, events out.

:class:`RefereeCore` knows no clock, no journal and no config. Every input it
takes is a plain JSON payload (the one the journal stores), so feeding it the
journal's inputs again reproduces the same state and the same events: that is
how a restart after ``kill -9`` restores the game and how ``gravekeeper replay
--verify`` checks a journal. Everything time-dependent (grace periods, outcome
windows) is decided outside and arrives here as a recorded ``timeout`` input.

Checks that depend on the moment (a command refused during a mismatch, a board
move sent as a command in sensors mode) are in :meth:`RefereeCore.check_command`
and are not repeated on replay: a recorded input was accepted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from controller.games import get_game
from controller.games.base import Action, Event, Game
from controller.games.errors import IllegalAction
from controller.referee import gm as gm_core
from controller.referee.board import (
    BoardCheck,
    board_kinds,
    catch_up_explains,
    check_board,
    explains,
    is_foul,
)
from controller.referee.errors import Refused
from controller.referee.guidance import describe
from controller.referee.undo import UndoLog
from hardware.observation import sensor_values

MAX_STEPS = 16  # board actions one input may set off; a guard against an engine that loops
# The journal's input kinds and the method that decides each.
# The edition of the rules a new game is played under, written into its journalled ``new_game`` input by the
# live referee. Edition 2 (2026-12-06): Superstition's stop on a Whammy beside a pawn became a house rule,
# off by default; a journal without it was written under edition 1 and replays under edition 1's options.
RULES_EDITION = 2

_HANDLERS = {"new_game": "new_game", "command": "command", "observation": "observation",
             "reconcile": "reconcile", "timeout": "timeout", "gm": "game_master"}


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form (tuples become lists), so live events equal the journal's and a replay's."""
    out: dict[str, Any] = json.loads(json.dumps(dict(data)))
    return out


def _event(ev: Event, at: float) -> dict[str, Any]:
    return {
        "type": ev.type,
        "data": _plain(ev.data),
        "private_to": ev.private_to,
        "secret": _plain(ev.secret),
        "time": at,
    }


def _referee_event(kind: str, data: dict[str, Any], at: float) -> dict[str, Any]:
    return {"type": kind, "data": data, "private_to": None, "secret": {}, "time": at}


def same_events(produced: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> bool:
    """Whether a replay gave the recorded events (type, data and private part; not time or seq)."""

    def key(e: Mapping[str, Any]) -> tuple[Any, ...]:
        return (e["type"], e.get("data") or {}, e.get("private_to"), e.get("secret") or {})

    return [key(e) for e in produced] == [key(e) for e in recorded]


def validate_sensors(sensors: Mapping[str, Any]) -> dict[str, str]:
    """Sensor id -> value, accepting plain strings, ``{"value": ...}`` or objects with ``.value``."""
    out: dict[str, str] = {}
    for sensor, raw in sensors.items():
        if isinstance(raw, str):
            value: Any = raw
        else:
            value = raw.get("value") if isinstance(raw, Mapping) else getattr(raw, "value", None)
        if not isinstance(value, str) or value not in sensor_values(sensor):
            raise ValueError(f"sensor {sensor!r} cannot be {value!r}")
        out[sensor] = value
    return out


def _seats_from(raw: Any, players: int) -> dict[str, Any] | None:
    """A journalled ``seats_from`` as the state shows it; ``None`` for a game that carried no seats
    (every journal written before this field, and a new game whose referee did not ask for it)."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("game_id"), str):
        return None
    seats = raw.get("seats")
    if not isinstance(seats, list) or len(seats) != players:
        return None
    kept = [s if isinstance(s, int) and not isinstance(s, bool) else None for s in seats]
    return {"game_id": raw["game_id"], "seats": kept}


class RefereeCore:
    def __init__(self) -> None:
        self.game: Game | None = None
        self.game_name: str | None = None
        self.game_id: str | None = None
        # The seats of the game before that this game's players held, as the referee's new_game chose
        # (``seats_from_last_game``): a panel carries those players' phones over, and nobody else's.
        self.seats_from: dict[str, Any] | None = None
        self.sensors: dict[str, str] = {}
        self.mismatch: dict[str, Any] | None = None
        self.pending = False  # an unexplained reading inside its grace period
        self.pending_moving_only = False
        self.setup = False  # a new game whose board has not yet matched it: differences are set-up work
        self.gm = gm_core.GmState()  # undo, pause, corrections of the current game (controller/referee/gm.py)

    # ----- what a new game carries over -------------------------------------------
    def board_state(self) -> dict[str, Any]:
        """Everything but the game: recorded with each new game so a restart can begin there."""
        return {
            "sensors": dict(self.sensors),
            "mismatch": self.mismatch,
            "pending": self.pending,
            "pending_moving_only": self.pending_moving_only,
        }

    def load_board_state(self, data: Mapping[str, Any]) -> None:
        self.sensors = validate_sensors(data["sensors"])
        self.mismatch = dict(data["mismatch"]) if data["mismatch"] is not None else None
        self.pending = bool(data["pending"])
        self.pending_moving_only = bool(data["pending_moving_only"])

    # ----- inputs ---------------------------------------------------------------
    def decide(self, kind: str, payload: Mapping[str, Any]) -> list[dict[str, Any]]:
        name = _HANDLERS.get(kind)  # a table of names: no dict of bound methods built per input
        if name is None:
            raise ValueError(f"unknown input kind {kind!r}")
        handler: Callable[[Mapping[str, Any]], list[dict[str, Any]]] = getattr(self, name)
        return handler(payload)

    def new_game(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        cls = get_game(p["game"])
        options = p.get("options") or None
        if p.get("rules") != RULES_EDITION:
            # Journalled before new games named their rules' edition: the game goes on under the options
            # it was played with then, so that it replays exactly (Game.options_of_first_edition).
            options = cls.options_of_first_edition(options)
        game = cls.new(list(p["players"]), int(p["seed"]), options)
        at = float(p["time"])
        self.game, self.game_name, self.game_id = game, p["game"], p["game_id"]
        self.seats_from = _seats_from(p.get("seats_from"), len(game.players))
        self.pending, self.setup = False, True
        self.gm = gm_core.GmState(undo=UndoLog(game, (list(p["players"]), int(p["seed"]), options)))
        events = [
            _referee_event(
                "game_started",
                {"game": cls.name, "title": cls.title, "game_id": self.game_id, "players": list(game.players)},
                at,
            )
        ]
        if p.get("board") == "sensors":
            # A board the table is setting up for this game (the virtual one, under --simulate) gets the grace
            # period a change gets: it is being put right, not found wrong.
            events += self._settle(None, "observe" if p.get("setting_up") else "reconcile", at)
        elif self.mismatch is not None:
            events.append(self._clear(at))
        return events

    def command(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self.game is None:
            raise Refused("no game is running: start a new game first")
        at = float(p["time"])
        action = Action.from_json(p["action"])
        events = self._play(action, at, "command")
        self.setup = False
        if p.get("board") == "sensors":
            events += self._settle("", "reconcile", at)
        return events

    def observation(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        sensor, value = p["sensor"], p["value"]
        clean = validate_sensors({sensor: value})
        if sensor in self.gm.broken:
            return []  # out of service for this game: the referee enters its moves by hand
        self.sensors.update(clean)
        # A reading taken at start-up gets the same grace as a change: the hub reports every
        # sensor one by one, and a trap's "sprung" may come before the peg that fired it.
        return self._settle(sensor, "observe", float(p["time"]))

    def reconcile(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        at = float(p["time"])
        if p.get("board") == "manual":
            # no sensors: the board cannot disagree; a mismatch from a sensed past is dropped
            return [self._clear(at)] if self.mismatch is not None else []
        self.sensors = {s: v for s, v in validate_sensors(p["sensors"]).items() if s not in self.gm.broken}
        return self._settle(None, "reconcile", at)

    def timeout(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        at = float(p["time"])
        if p["timer"] == "grace":
            return self._settle("", "expire", at)
        if p["timer"] == "window":
            if self.game is None:
                raise Refused("no game is running")
            events = self._play(Action.from_json(p["action"]), at, "window")
            self.setup = False
            return events + self._settle("", "reconcile", at)
        raise ValueError(f"unknown timer {p['timer']!r}")

    def game_master(self, p: Mapping[str, Any]) -> list[dict[str, Any]]:
        return gm_core.decide(self, p)

    def _play(self, action: Action, at: float, source: str) -> list[dict[str, Any]]:
        """Apply one engine action and keep it as a step the referee may take back (controller/referee/undo.py)."""
        assert self.game is not None
        rng_before = self.game.rng_state()
        engine_events = self.game.apply(action)
        self.gm.undo.record(self.game, action, engine_events, rng_before, source, at)
        self.gm.request = None  # a request was for the move before this one
        self.gm.last_undo = None
        return [_event(e, at) for e in engine_events]

    # ----- live checks ------------------------------------------------------------
    def check_command(self, action: Action, board: str) -> None:
        """Refuse a command that must not be taken now (raises :class:`Refused`)."""
        if self.game is None:
            raise Refused("no game is running: start a new game first")
        if self.game.is_over:
            raise Refused("the game is over: start a new game to play again")
        if self.gm.paused is not None:
            raise Refused("the game is paused: the referee resumes it")
        if board != "sensors":
            return
        expectations = self.game.expects()
        is_board_move = action.kind in board_kinds(expectations, self.sensors)
        if self.mismatch is not None:
            if is_board_move and explains(self.game, action, self.sensors):
                return  # an override that makes the game agree with the board
            raise Refused(f"play holds: {self.mismatch['message']} {self.mismatch['guidance']}")
        if is_board_move and not gm_core.hand_entered(self, action):
            todo = " ".join(e.prompt for e in expectations if e.prompt)
            # People read it (a player's page): what to do on the board, not the action's id.
            raise Refused(
                f"the table's sensors report this move: {todo or 'make it on the board'} "
                "(a table without sensors is set to a manual board in its settings)"
            )

    def commandable(self, actions: list[Action], board: str) -> list[Action]:
        """The subset of ``actions`` :meth:`check_command` would let through (without trial runs)."""
        if self.game is None or self.game.is_over or self.gm.paused is not None:
            return []
        if board != "sensors":
            return actions
        if self.mismatch is not None:
            return []
        kinds = board_kinds(self.game.expects(), self.sensors)
        return [a for a in actions if a.kind not in kinds or gm_core.hand_entered(self, a)]

    # ----- comparing the board ------------------------------------------------------
    def _settle(self, trigger: str | None, mode: str, at: float) -> list[dict[str, Any]]:
        """Compare the board with the game until nothing more follows.

        ``mode``: ``observe`` (an unexplained reading gets its grace period),
        ``reconcile`` (it is reported at once, except a tomb between positions)
        or ``expire`` (grace is over: report everything).
        """
        events: list[dict[str, Any]] = []
        if self.gm.paused is not None and self.game is not None and not self.game.is_over:
            return events  # nothing on the board is judged while the game is paused (resume judges it)
        held = gm_core.rewind_hold(self, at)
        if held is not None:
            return held  # a move was taken back: its pieces go back first
        for _ in range(MAX_STEPS):
            game = self.game
            if game is None or game.is_over:
                self.pending = False
                if self.mismatch is not None:
                    events.append(self._clear(at))
                break
            check = check_board(game, self.sensors, trigger)
            if check.unexplained:
                if len(check.accepted) == 1 and not self._has_foul(check):
                    action = check.accepted[0][2]
                    if catch_up_explains(game, action, self.sensors, trigger):
                        events += self._apply(action, at)
                        continue
                events += self._hold(check, mode, at)
                break
            self.setup = False  # the board has matched the game once: from now on a difference is a move
            step = check.accepted[0][2] if check.accepted else check.requires_met
            if step is not None:
                try:
                    applied = self._apply(step, at)
                except IllegalAction:
                    # the engine refused what its own expectation offered: report it, never guess
                    if not check.accepted:
                        break
                    sensor, have, _ = check.accepted[0]
                    check.unexplained[sensor] = (check.expected.get(sensor), have)
                    events += self._hold(check, "expire", at)
                    break
                self.pending = False
                if self.mismatch is not None:
                    events.append(self._clear(at))
                events += applied
                continue
            self.pending = False
            if self.mismatch is not None:
                events.append(self._clear(at))
            break
        return events

    def _has_foul(self, check: BoardCheck) -> bool:
        return any(is_foul(s, have, self.sensors) for s, (_, have) in check.unexplained.items())

    def _apply(self, action: Action, at: float) -> list[dict[str, Any]]:
        assert self.game is not None
        events = self._play(action, at, "board")
        self.setup = False
        return events

    def _hold(self, check: BoardCheck, mode: str, at: float) -> list[dict[str, Any]]:
        assert self.game is not None
        if self.mismatch is None and (mode == "observe" or (mode == "reconcile" and check.moving_only)):
            self.pending = True
            self.pending_moving_only = check.moving_only
            return []
        self.pending = False
        unexplained = check.unexplained
        if self.mismatch is not None and mode != "expire":
            # while a player fixes the board, a tomb sliding between positions is not news
            settled = {s: wh for s, wh in unexplained.items() if wh[1] != "moving"}
            if settled:
                unexplained = settled
            elif set(self.mismatch["sensors"]) <= set(unexplained):
                return []  # the very parts of the mismatch are on their way back
        ambiguous = [s for s in check.ambiguous if s in unexplained]
        found = describe(unexplained, self.sensors, self.game.expects(), setup=self.setup, ambiguous=ambiguous)
        if self.mismatch is not None and all(self.mismatch[k] == found[k] for k in found):
            return []
        self.mismatch = {**found, "since": self.mismatch["since"] if self.mismatch else at}
        return [_referee_event("mismatch", found, at)]

    def _clear(self, at: float) -> dict[str, Any]:
        assert self.mismatch is not None
        code = self.mismatch["code"]
        self.mismatch = None
        return _referee_event("mismatch_cleared", {"code": code, "message": "The board matches the game again."}, at)
