"""Taking moves back: which steps may be undone, and the game as it was before them.

Every engine action the referee applies (a command, a board reading, a
window that ran out, a correction) is one **step**. :class:`UndoLog` keeps the
steps since the last **door**: a step that let hidden information out (a card,
tile, Whammy or Charm drawn, a spook turned, a digital trap decided) or used
the game's random numbers (dice rolled by the engine, a shuffle). Undo never
goes back through a door, so nobody sees a secret twice and nobody rolls again
for a better result.

The log holds how the game was made and every action since; undoing replays
all but the last of them on a new game, which the engines' determinism makes
exactly the game as it was, random state included (and the steps since the
door used no random numbers at all). The log is part of the referee core's
state, rebuilt by replaying the journal like the rest of it.

Pure: no clock, no I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.games.base import Action, Event, Game
from controller.games.terror import Terror, place_at
from controller.referee.guidance import label
from controller.referee.place_words import dogs_square, superstition_space

log = logging.getLogger(__name__)

_POSITION = {"end_a": "end A", "middle": "the middle", "end_b": "end B"}


@dataclass
class Step:
    action: Action
    source: str  # "command" | "board" | "window" | "correction"
    at: float
    # The action in words (a step is never a secret: secret kinds close the door, and the few a table may take
    # back, ``Game.TAKE_BACK_KINDS``, are public once played). Filled when the
    # state is next drawn, off the decision's path; events word the step afresh (see describe_step).
    text: str | None = None


def door_reason(game: Game, action: Action, events: Sequence[Event], rng_before: str | None) -> str | None:
    """Why ``action`` closes the door behind it, or ``None`` (it may be taken back).

    The game's own reason first (it says it best), then three checks that do not
    depend on a game getting its list right.
    """
    if action.kind in type(game).SECRET_ACTION_KINDS and action.kind not in type(game).TAKE_BACK_KINDS:
        return "a secret move was played"
    own = game.closes_door(action, events)
    if own is not None:
        return own
    if any(e.private_to is not None or e.secret for e in events):
        return "hidden information came out"
    if game.rng_state() != rng_before:
        return "the game rolled dice or shuffled"
    return None


def describe_step(game: Game, action: Action) -> str:
    try:
        text = game.describe(action)  # the engine's own words: its squares and spaces named as players do
    except Exception:
        # The fallback is the action's raw text (ids, not plain words): say why in the log.
        log.exception("could not word a %s step in plain words", action.kind)
        text = action.to_text()
    who = ""
    players = game.players
    if action.player is not None and 0 <= action.player < len(players) and players[action.player] not in text:
        who = f"{players[action.player]}: "
    return who + text


class UndoLog:
    """The steps that may still be taken back, and where the last door closed.

    It keeps how the game was made and everything done to it since (actions,
    and a board position the referee trusted), so the game before the last
    step is rebuilt by replaying all but that step from the start: the engine
    is deterministic, so the copy is exact, dice and shuffles included. Nothing
    is copied on the way (a snapshot of the game at every door would cost more
    than the decision itself); the replay is paid only by an undo.
    """

    def __init__(self, game: Game | None = None, made: tuple[list[str], int, Any] | None = None) -> None:
        self.made = made  # (players, seed, options) as Game.new took them
        self.history: list[tuple[str, Any]] = []  # ("action", Action) | ("adopt", {sensor: value})
        self.steps: list[Step] = []
        self.door: str | None = "the start of the game" if game is not None else None
        self._door_action: Action | None = None  # the step that closed the door, worded with the state

    def record(self, game: Game, action: Action, events: Sequence[Event], rng_before: str | None,
               source: str, at: float) -> None:
        """After ``game`` applied ``action``: keep it as a step, or close the door."""
        self.history.append(("action", action))
        reason = door_reason(game, action, events, rng_before)
        if reason is not None:
            self.steps = []
            self.door = reason
            self._door_action = action
            return
        self.steps.append(Step(action, source, at))

    def adopted(self, readings: Mapping[str, str], door: str) -> None:
        """The game took the board's position (no action replays it): a door of its own."""
        self.history.append(("adopt", dict(readings)))
        self.steps = []
        self.door = door
        self._door_action = None

    @property
    def depth(self) -> int:
        return len(self.steps)

    def before_last(self, game: Game) -> Game:
        """A new game as it was before the last step (raises ``ValueError`` when there is none)."""
        if not self.steps or self.made is None:
            raise ValueError("there is no move to take back")
        players, seed, options = self.made
        restored = type(game).new(list(players), seed, options)
        for kind, what in self.history[:-1]:
            if kind == "action":
                restored.apply(what)
            else:
                restored.adopt_board(what)
        return restored

    def pop(self) -> Step:
        self.history.pop()
        return self.steps.pop()

    def stops_at(self, game: Game | None) -> str | None:
        """Where undo stops, in words that never name a secret."""
        action = self._door_action
        if action is None or game is None or self.door is None:
            return self.door
        if action.kind in type(game).SECRET_ACTION_KINDS:
            return f"a secret move: {self.door}"
        self.door = f"{describe_step(game, action)}: {self.door}"
        self._door_action = None
        return self.door

    def summary(self, game: Game | None = None) -> dict[str, Any]:
        """For the public state: how far back the referee can go, and why no further."""
        if game is not None:
            for step in self.steps:
                if step.text is None:
                    step.text = describe_step(game, step.action)
        return {
            "steps": len(self.steps),
            "last": self.steps[-1].text if self.steps else None,
            "last_seat": self.steps[-1].action.player if self.steps else None,
            "moves": [s.text for s in reversed(self.steps)][:10],
            "stops_at": self.stops_at(game),
        }


def put_back(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, str]:
    """Sensor -> value for what the physical board must change when the game goes from ``before`` to ``after``."""
    return {s: v for s, v in after.items() if before.get(s) != v}


def put_back_words(sensor: str, value: str) -> str:
    """One sentence telling a person how to set ``sensor`` back to ``value``."""
    parts = sensor.split(".")
    if parts[0] == "tomb" and len(parts) == 2:
        return f"Slide the {parts[1].capitalize()} tomb back to {_POSITION.get(value, value)}."
    if sensor == "launcher":
        return ("Put the Headless Ghost back on its launcher." if value == "armed"
                else "Knock the Headless Ghost off its launcher again.")
    if parts[0] == "trap" and len(parts) == 3:
        name = label(sensor)
        if parts[2] == "sprung":
            return f"Re-cock {name}." if value == "cocked" else f"Set {name} off again."
        return f"Push {name} back in." if value == "in" else f"Pull {name} out again."
    return f"Set {label(sensor)} back to {value}."


def pieces_back(game: str | None, now: Mapping[str, Any], restored: Mapping[str, Any],
                restored_game: Game | None = None) -> list[str]:
    """What to move back by hand, from the public view as it is (``now``) and after the undo.

    The pieces no sensor sees (pawns, Whammies, dogs, spooks): the sensed ones are
    :func:`put_back`'s. A sentence a piece, worded for people. A Terror pawn's space is named the
    way a player finds it on the board as it stands after the undo, which needs ``restored_game``.
    """

    def cell(pos: Any) -> str:
        return place_at(restored_game, pos) if isinstance(restored_game, Terror) else "its place"

    out: list[str] = []
    if game == "terror":
        # strict=False here and below: the views are read as loosely as the rest of this function
        # reads them (``or []``); one short of a seat or a pawn leaves less to compare, not an error mid-undo.
        for seat_now, seat_then in zip(now.get("players") or [], restored.get("players") or [], strict=False):
            for pawn_now, pawn_then in zip(seat_now.get("pawns") or [], seat_then.get("pawns") or [], strict=False):
                if pawn_now.get("pos") != pawn_then.get("pos"):
                    out.append(f"Move {seat_then.get('name')}'s {pawn_then.get('label')} pawn back to "
                               f"{cell(pawn_then.get('pos'))}.")
    elif game == "superstition":
        for p_now, p_then in zip(now.get("players") or [], restored.get("players") or [], strict=False):
            if p_now.get("space") != p_then.get("space"):
                out.append(f"Move {p_then.get('name')}'s pawn back to "
                           f"{superstition_space(restored, p_then.get('space'))}.")
        spaces_now = {w.get("space") for w in now.get("whammies") or []}
        spaces_then = {w.get("space") for w in restored.get("whammies") or []}
        out += [f"Take the Whammy off {superstition_space(now, space)}."
                for space in sorted(spaces_now - spaces_then, key=str)]
        out += [f"Put the Whammy back on {superstition_space(restored, space)}."
                for space in sorted(spaces_then - spaces_now, key=str)]
    elif game == "dogs":
        names = list(restored.get("players") or [])
        dogs_now = {d.get("seat"): (d.get("x"), d.get("y")) for d in now.get("dogs") or []}
        for dog in restored.get("dogs") or []:
            if dogs_now.get(dog.get("seat")) != (dog.get("x"), dog.get("y")):
                seat = dog.get("seat")
                name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "the"
                out.append(f"Move {name}'s dog back to {dogs_square(restored, dog.get('x'), dog.get('y'))}.")
        spooks_now = {sp.get("id"): (sp.get("x"), sp.get("y")) for sp in now.get("spooks") or []}
        for spook in restored.get("spooks") or []:
            if spooks_now.get(spook.get("id")) != (spook.get("x"), spook.get("y")):
                out.append(f"Move the {spook.get('kind')} back to "
                           f"{dogs_square(restored, spook.get('x'), spook.get('y'))}.")
    return out
