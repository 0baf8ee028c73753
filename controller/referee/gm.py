"""The game master's inputs, decided on the referee core: undo, corrections, pause.

Each is one journal input of kind ``gm`` (``{"op", "by", "reason", ...}``),
decided here from the payload alone, so a replay of the journal decides it
again the same way (``gravekeeper replay --verify``). Nothing is deleted from
the journal: an undo is a new input whose events say what was taken back.

Ops (``docs/referee.md``, "The game master"):

* ``undo``: take back the last step (see :mod:`controller.referee.undo`); on a sensed
  board the pieces it moved must go back before play goes on.
* ``undo_request`` / ``undo_decline``: a player asks to take back their own
  last move; the referee approves it (``undo`` with ``request``) or declines.
* ``pause`` / ``resume``: while paused no move is taken and no timer runs.
* ``declare``: what really happened on the board, applied as the board's own action.
* ``end_window``: a waiting window ends now, with the outcome the referee names.
* ``trust_board``: the board's position as it stands becomes the game's.
* ``broken``: a sensor is out of service for the rest of this game.

A refusal raises :class:`~controller.referee.errors.Refused` before anything changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from controller.games.base import Action, Event, Expectation, Game
from controller.games.errors import IllegalAction
from controller.referee.errors import Refused
from controller.referee.guidance import label
from controller.referee.undo import (
    UndoLog,
    describe_step,
    pieces_back,
    put_back,
    put_back_words,
)
from hardware.observation import sensor_values

OPS = ("undo", "undo_request", "undo_decline", "pause", "resume", "declare", "end_window", "trust_board", "broken")
CORRECTIONS = ("declare", "end_window", "trust_board", "broken")


@dataclass
class GmState:
    """What the game master changed in the current game (a new game starts it afresh)."""

    undo: UndoLog = field(default_factory=UndoLog)
    paused: dict[str, Any] | None = None  # {"since", "by", "reason"}
    broken: dict[str, dict[str, Any]] = field(default_factory=dict)  # sensor -> {"since", "by", "reason"}
    request: dict[str, Any] | None = None  # a player's pending undo request {"seat", "since", "move"}
    rewind: dict[str, str] = field(default_factory=dict)  # sensor -> value the board must go back to
    last_undo: dict[str, Any] | None = None  # the last undo's words, for the referee's guidance

    def public(self, game: Game | None) -> dict[str, Any]:
        """The ``gm`` part of the retained state: nothing secret (steps are never secret moves)."""
        request = None
        if self.request is not None and game is not None:
            seat = self.request["seat"]
            request = {**self.request, "player": game.players[seat] if 0 <= seat < len(game.players) else None}
        return {
            "paused": self.paused,
            "undo": self.undo.summary(game) if game is not None else None,
            "undo_request": request,
            "out_of_service": [{"sensor": s, "label": label(s), **v} for s, v in sorted(self.broken.items())],
            "last_undo": self.last_undo,
        }


class Core(Protocol):
    """What these decisions read and change of :class:`controller.referee.core.RefereeCore`.

    Written out here so that this module need not import the core, which imports it.
    """

    game: Game | None
    game_name: str | None
    sensors: dict[str, str]
    mismatch: dict[str, Any] | None
    pending: bool
    gm: GmState

    def _play(self, action: Action, at: float, source: str) -> list[dict[str, Any]]: ...

    def _settle(self, trigger: str | None, mode: str, at: float) -> list[dict[str, Any]]: ...

    def _clear(self, at: float) -> dict[str, Any]: ...


def _event(kind: str, data: dict[str, Any], at: float) -> dict[str, Any]:
    return {"type": kind, "data": data, "private_to": None, "secret": {}, "time": at}


def _refuse(message: str) -> NoReturn:
    raise Refused(message)


def _game(core: Core) -> Game:
    if core.game is None:
        _refuse("no game is running: start a new game first")
    return core.game


def _seat_name(game: Game, seat: Any) -> str:
    players = game.players
    return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else f"seat {seat!r}"


# ----- what the board may do now --------------------------------------------------------
def board_actions(game: Game) -> list[tuple[Expectation, Action, dict[str, str]]]:
    """Every action the board can cause now, with the readings that cause it."""
    out: list[tuple[Expectation, Action, dict[str, str]]] = []
    for exp in game.expects():
        for sensor, values in exp.accepts.items():
            for value, action in values.items():
                out.append((exp, action, {sensor: value}))
        if exp.action is not None and exp.requires:
            out.append((exp, exp.action, dict(exp.requires)))
    return out


def hand_entered(core: Core, action: Action) -> bool:
    """Whether ``action`` is a move of a sensor marked broken: the referee enters it as a command."""
    broken = core.gm.broken
    if not broken or core.game is None:
        return False
    for exp, candidate, readings in board_actions(core.game):
        if candidate == action and any(s in broken for s in readings):
            return True
        if exp.on_timeout == action and exp.window_ms is not None and any(s in broken for s in exp.sensors()):
            return True
    return False


def rewind_hold(core: Core, at: float) -> list[dict[str, Any]] | None:
    """After an undo on a sensed board: hold play until the pieces are back (``None``: nothing to wait for)."""
    gm = core.gm
    if not gm.rewind:
        return None
    todo = {s: (want, core.sensors[s]) for s, want in gm.rewind.items()
            if s in core.sensors and s not in gm.broken and core.sensors[s] != want}
    if not todo:
        gm.rewind = {}
        return None
    found = {
        "code": "undo",
        "message": "A move was taken back, so the board must go back too.",
        "guidance": " ".join(put_back_words(s, want) for s, (want, _) in sorted(todo.items())),
        "sensors": {s: {"expected": want, "actual": have} for s, (want, have) in sorted(todo.items())},
    }
    core.pending = False
    if core.mismatch is not None and all(core.mismatch.get(k) == found[k] for k in ("code", "message", "guidance")):
        core.mismatch["sensors"] = found["sensors"]  # a piece on its way back is not news
        return []
    core.mismatch = {**found, "since": core.mismatch["since"] if core.mismatch else at}
    return [_event("mismatch", found, at)]


# ----- deciding ------------------------------------------------------------------------------
def decide(core: Core, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    op = p.get("op")
    handler = _HANDLERS.get(op) if isinstance(op, str) else None
    if handler is None:
        raise ValueError(f"unknown game-master op {op!r} (one of {', '.join(OPS)})")
    return handler(core, p, float(p["time"]))


def _undo(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    gm = core.gm
    if gm.undo.depth == 0:
        why = gm.undo.stops_at(game) or "nothing has been played"
        _refuse(f"there is no move to take back: undo stops at {why}")
    request = p.get("request")
    if request is not None and (gm.request is None or gm.request["seat"] != request):
        _refuse(f"{_seat_name(game, request)} has no undo request waiting")
    before, view_now = game.expected_board(), game.public_view()
    restored = gm.undo.before_last(game)
    step = gm.undo.pop()
    text = describe_step(game, step.action)  # worded with the game just after it, live and in replay alike
    core.game = restored
    after = restored.expected_board()
    moved = put_back(before, after)
    by_hand = pieces_back(core.game_name, view_now, restored.public_view(), restored)
    sensed = p.get("board") == "sensors"
    if sensed:
        wanted = set(gm.rewind) | {s for s in moved if s in core.sensors}
        gm.rewind = {s: after[s] for s in wanted if s in after and s not in gm.broken}
    words = [put_back_words(s, v) for s, v in sorted(moved.items())] + by_hand
    data: dict[str, Any] = {
        "move": text,
        "seat": step.action.player,
        "by": p.get("by"),
        "reason": p.get("reason"),
        "steps_left": gm.undo.depth,
        "put_back": words,
    }
    if request is not None:
        data["requested_by"] = _seat_name(game, request)
    gm.request = None
    gm.last_undo = {"move": text, "put_back": words, "time": at}
    events = [_event("undone", data, at)]
    if sensed:
        events += core._settle("", "reconcile", at)
    elif core.mismatch is not None:
        events.append(core._clear(at))
    return events


def _undo_request(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    gm = core.gm
    seat = p.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(game.players):
        _refuse(f"undo_request: {seat!r} is not a seat of this game")
    if not gm.undo.steps:
        _refuse(f"there is no move to take back: undo stops at {gm.undo.stops_at(game) or 'the start'}")
    last = gm.undo.steps[-1]
    if last.action.player != seat:
        _refuse("only the last move can be taken back, and it is not yours")
    move = describe_step(game, last.action)
    gm.request = {"seat": seat, "since": at, "move": move}
    return [_event("undo_requested", {"seat": seat, "player": _seat_name(game, seat), "move": move}, at)]


def _undo_decline(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    gm = core.gm
    if gm.request is None:
        _refuse("no player has asked to take a move back")
    seat = gm.request["seat"]
    gm.request = None
    return [_event("undo_declined", {"seat": seat, "player": _seat_name(game, seat), "by": p.get("by"),
                                     "reason": p.get("reason")}, at)]


def _pause(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    _game(core)
    if core.gm.paused is not None:
        _refuse("the game is already paused")
    core.gm.paused = {"since": at, "by": p.get("by"), "reason": p.get("reason")}
    return [_event("paused", {"by": p.get("by"), "reason": p.get("reason")}, at)]


def _resume(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    paused = core.gm.paused
    if paused is None:
        _refuse("the game is not paused")
    core.gm.paused = None
    events = [_event("resumed", {"by": p.get("by"), "paused_s": round(max(0.0, at - float(paused["since"])), 1)},
                     at)]
    if p.get("board") == "sensors":
        # Whatever the board did meanwhile is judged now, as a whole picture.
        events += core._settle("", "reconcile", at)
    return events


def _correction(data: Mapping[str, Any], p: Mapping[str, Any], text: str, at: float) -> dict[str, Any]:
    return _event("corrected", {"op": p["op"], "by": p.get("by"), "reason": p.get("reason"), "text": text,
                                **data}, at)


def _action(p: Mapping[str, Any]) -> Action:
    try:
        return Action.from_json(p.get("action"))
    except ValueError as exc:
        _refuse(f"{p.get('op')}: {exc}")


def _apply_as_board(core: Core, game: Game, action: Action, readings: Mapping[str, str],
                    at: float) -> list[dict[str, Any]]:
    """Apply ``action`` as the board's own reading of ``readings`` would have."""
    try:
        events = core._play(action, at, "correction")
    except IllegalAction as exc:
        _refuse(f"the rules forbid it: {exc}")
    board = core.game.expected_board() if core.game is not None else {}
    for sensor in readings:
        if sensor in board and sensor not in core.gm.broken:
            # The sensor misread: until it reports again, the board is taken to be as declared.
            core.sensors[sensor] = board[sensor]
    return events


def _declare(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    if game.is_over:
        _refuse("the game is over")
    action = _action(p)
    found = next(((exp, r) for exp, a, r in board_actions(game) if a == action), None)
    if found is None:
        prompts = " ".join(e.prompt for e in game.expects() if e.prompt)
        _refuse(f"the board cannot do that now (it waits for: {prompts or 'nothing from the board'})")
    text = game.describe(action)
    events = _apply_as_board(core, game, action, found[1], at)
    head = _correction({"sensors": sorted(found[1])}, p, text, at)
    return [head, *events, *_settle_after(core, p, at)]


def _end_window(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    action = _action(p)
    windows = [e for e in game.expects() if e.window_ms is not None] if not game.is_over else []
    if not windows:
        _refuse("no waiting window is open")
    for exp in windows:
        outcomes = {a: {s: v} for s, vals in exp.accepts.items() for v, a in vals.items()}
        if exp.on_timeout is not None:
            outcomes.setdefault(exp.on_timeout, {})
        if action in outcomes:
            text = game.describe(action)
            events = _apply_as_board(core, game, action, outcomes[action], at)
            head = _correction({"window": exp.kind, "sensors": sorted(exp.sensors())}, p, text, at)
            return [head, *events, *_settle_after(core, p, at)]
    choices = "; ".join(game.describe(a) for e in windows for a in
                        [*(a for vals in e.accepts.values() for a in vals.values()), e.on_timeout] if a is not None)
    _refuse(f"that is not an outcome of the open window (choose: {choices})")


def _trust_board(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    game = _game(core)
    if not game.expected_board() and not any(e.sensors() for e in game.expects()):
        # The dogs' game: no sensor reads any of its pieces, so the board has no position to take.
        _refuse(f"no piece of {game.title} is read by a sensor: there is no sensed position to take; "
                "every move of it is entered by hand")
    mismatch = core.mismatch
    if mismatch is None:
        _refuse("the board matches the game: there is nothing to take from it")
    if mismatch.get("code") == "ambiguous":
        _refuse("the board shows two outcomes at once: declare the one that happened")
    if mismatch.get("code") == "undo":
        _refuse("a move was taken back: put the board back, or undo no further")
    readings = {s: v["actual"] for s, v in (mismatch.get("sensors") or {}).items()}
    try:
        engine_events = game.adopt_board(readings)
    except IllegalAction as exc:
        _refuse(f"the rules do not allow the board as it stands: {exc}")
    core.gm.undo.adopted(readings, "the board's position was taken as the game's")
    events = [_event(e.type, dict(e.data), at) if not e.secret else _private(e, at) for e in engine_events]
    head = _correction({"sensors": sorted(readings)}, p, "the board as it stands is now the game's", at)
    return [head, *events, *_settle_after(core, p, at)]


def _private(e: Event, at: float) -> dict[str, Any]:
    return {"type": e.type, "data": dict(e.data), "private_to": e.private_to, "secret": dict(e.secret), "time": at}


def _broken(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    _game(core)
    sensor = p.get("sensor")
    if not isinstance(sensor, str):
        _refuse("broken: 'sensor' must be a sensor id such as tomb.wolf")
    try:
        sensor_values(sensor)
    except ValueError:
        # Only a script can name a sensor that does not exist; its id goes back in the reply's data.
        _refuse("there is no such sensor on this board")
    if sensor in core.gm.broken:
        _refuse(f"{label(sensor)} is already out of service")
    core.gm.broken[sensor] = {"since": at, "by": p.get("by"), "reason": p.get("reason")}
    core.sensors.pop(sensor, None)
    core.gm.rewind.pop(sensor, None)
    head = _correction({"sensor": sensor, "label": label(sensor)}, p,
                       f"{label(sensor)} is out of service for the rest of this game", at)
    return [head, *_settle_after(core, p, at)]


def _settle_after(core: Core, p: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    if p.get("board") == "sensors":
        return core._settle("", "reconcile", at)
    return [core._clear(at)] if core.mismatch is not None else []


_HANDLERS = {
    "undo": _undo,
    "undo_request": _undo_request,
    "undo_decline": _undo_decline,
    "pause": _pause,
    "resume": _resume,
    "declare": _declare,
    "end_window": _end_window,
    "trust_board": _trust_board,
    "broken": _broken,
}
