"""Taking moves back: which steps may be undone, and the game as it was before them.

Every engine action the referee applies (a command, a board reading, a
window that ran out, a correction) is one **step**. :class:`UndoLog` keeps the
steps since the last **door**: a step that let hidden information out (a card,
tile, Whammy or Charm drawn, a spook turned, a digital trap decided) or used
the game's random numbers (dice rolled by the engine, a shuffle). Undo never
goes back through a door, so nobody sees a secret twice and nobody rolls again
for a better result.

The log holds the game as it was just after the door (its JSON) and the
actions since; undoing replays all but the last of them on a fresh copy. The
steps since a door use no random numbers, so the copy is exactly the game as
it was, random state included. The log is part of the referee core's state,
rebuilt by replaying the journal like the rest of it.

Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.games.base import Action, Event, Game
from controller.referee_guidance import label

MAX_UNDO = 50  # steps kept since the last door; older ones are out of reach (a memory bound)

_POSITION = {"end_a": "end A", "middle": "the middle", "end_b": "end B"}


@dataclass(frozen=True)
class Step:
    action: Action
    source: str  # "command" | "board" | "window" | "correction"
    text: str  # the action in words (a step is never a secret: secret kinds close the door)
    at: float


def door_reason(game: Game, action: Action, events: Sequence[Event], rng_before: str | None) -> str | None:
    """Why ``action`` closes the door behind it, or ``None`` (it may be taken back).

    The game's own reason first (it says it best), then three checks that do not
    depend on a game getting its list right.
    """
    if action.kind in type(game).SECRET_ACTION_KINDS:
        return "a secret move was played"
    own = game.closes_door(action, events)
    if own is not None:
        return own
    if any(e.private_to is not None or e.secret for e in events):
        return "hidden information came out"
    if game.rng_state() != rng_before:
        return "the game rolled dice or shuffled"
    return None


def _describe(game: Game, action: Action) -> str:
    try:
        text = game.describe(action)
    except Exception:  # noqa: BLE001 - words must never stop a move
        text = action.to_text()
    who = ""
    players = game.players
    if action.player is not None and 0 <= action.player < len(players) and players[action.player] not in text:
        who = f"{players[action.player]}: "
    return who + text


class UndoLog:
    """The steps that may still be taken back, and where the last door closed."""

    def __init__(self, game: Game | None = None) -> None:
        self.base: dict[str, Any] | None = game.to_json() if game is not None else None
        self.steps: list[Step] = []
        self.door: str | None = "the game has just started" if game is not None else None

    def reset(self, game: Game, door: str) -> None:
        """A door closed (or the game was changed in a way no action replays): start again from here."""
        self.base = game.to_json()
        self.steps = []
        self.door = door

    def record(self, game: Game, action: Action, events: Sequence[Event], rng_before: str | None,
               source: str, at: float) -> None:
        """After ``game`` applied ``action``: keep it as a step, or close the door."""
        reason = door_reason(game, action, events, rng_before)
        if reason is not None:
            text = "a secret move" if action.kind in type(game).SECRET_ACTION_KINDS else _describe(game, action)
            self.reset(game, f"{text}: {reason}")
            return
        self.steps.append(Step(action, source, _describe(game, action), at))
        if len(self.steps) > MAX_UNDO:
            # Keep the log bounded: the oldest step becomes the new starting point.
            oldest = self.steps.pop(0)
            trial = type(game).from_json(self.base or {})
            trial.apply(oldest.action)
            self.base = trial.to_json()
            self.door = f"only the last {MAX_UNDO} moves can be taken back"

    @property
    def depth(self) -> int:
        return len(self.steps)

    def before_last(self, game: Game) -> Game:
        """A new game as it was before the last step (raises ``ValueError`` when there is none)."""
        if not self.steps or self.base is None:
            raise ValueError("there is no move to take back")
        restored = type(game).from_json(self.base)
        for step in self.steps[:-1]:
            restored.apply(step.action)
        return restored

    def pop(self) -> Step:
        return self.steps.pop()

    def summary(self) -> dict[str, Any]:
        """For the public state: how far back the referee can go, and why no further."""
        return {
            "steps": len(self.steps),
            "last": self.steps[-1].text if self.steps else None,
            "last_seat": self.steps[-1].action.player if self.steps else None,
            "moves": [s.text for s in reversed(self.steps)][:10],
            "stops_at": self.door,
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


def _cell(pos: Any) -> str:
    if isinstance(pos, (list, tuple)) and len(pos) == 2:
        return f"row {pos[0]}, column {pos[1]}"
    return "its place"


def pieces_back(game: str | None, now: Mapping[str, Any], restored: Mapping[str, Any]) -> list[str]:
    """What to move back by hand, from the public view as it is (``now``) and after the undo.

    The pieces no sensor sees (pawns, Whammies, dogs, spooks): the sensed ones are
    :func:`put_back`'s. A sentence a piece, worded for people.
    """
    out: list[str] = []
    if game == "terror":
        for seat_now, seat_then in zip(now.get("players") or [], restored.get("players") or []):
            for pawn_now, pawn_then in zip(seat_now.get("pawns") or [], seat_then.get("pawns") or []):
                if pawn_now.get("pos") != pawn_then.get("pos"):
                    out.append(f"Move {seat_then.get('name')}'s {pawn_then.get('label')} pawn back to "
                               f"{_cell(pawn_then.get('pos'))}.")
    elif game == "superstition":
        for p_now, p_then in zip(now.get("players") or [], restored.get("players") or []):
            if p_now.get("space") != p_then.get("space"):
                out.append(f"Move {p_then.get('name')}'s pawn back to {p_then.get('space')}.")
        spaces_now = {w.get("space") for w in now.get("whammies") or []}
        spaces_then = {w.get("space") for w in restored.get("whammies") or []}
        out += [f"Take the Whammy off {space}." for space in sorted(spaces_now - spaces_then, key=str)]
        out += [f"Put the Whammy back on {space}." for space in sorted(spaces_then - spaces_now, key=str)]
    elif game == "dogs":
        names = list(restored.get("players") or [])
        dogs_now = {d.get("seat"): (d.get("x"), d.get("y")) for d in now.get("dogs") or []}
        for dog in restored.get("dogs") or []:
            if dogs_now.get(dog.get("seat")) != (dog.get("x"), dog.get("y")):
                seat = dog.get("seat")
                name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "the"
                out.append(f"Move {name}'s dog back to ({dog.get('x')}, {dog.get('y')}).")
        spooks_now = {sp.get("id"): (sp.get("x"), sp.get("y")) for sp in now.get("spooks") or []}
        for spook in restored.get("spooks") or []:
            if spooks_now.get(spook.get("id")) != (spook.get("x"), spook.get("y")):
                out.append(f"Move the {spook.get('kind')} back to ({spook.get('x')}, {spook.get('y')}).")
    return out
