"""Replaying a journal: every input again through a fresh referee core, in words.

Used by ``gravekeeper replay``: to print a game as people read it, and to
verify that the recorded inputs reproduce every recorded event (same type,
data, private part and seq). A divergence means the journal was edited, or the
rules changed since the game was played.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.games import get_game
from controller.games.base import Action, Event, Game
from controller.games.words import listed
from controller.referee.core import RefereeCore, same_events
from controller.referee.guidance import label
from controller.store.journal import Journal
from hardware.words import capital, reading


@dataclass
class ReplayStep:
    id: int
    kind: str
    time: float
    text: str
    events: list[dict[str, Any]]
    divergence: str | None = None
    produced: list[dict[str, Any]] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # each recorded event in words, worded with the game after it


def _action_text(core: RefereeCore, data: Any) -> str:
    try:
        action = Action.from_json(data)
    except ValueError:
        return "a move that could not be read"
    game = core.game
    who = ""
    if game is not None and action.player is not None and 0 <= action.player < len(game.players):
        who = game.players[action.player]
    try:
        text = game.describe(action) if game is not None else action.to_text()
    except Exception:  # noqa: BLE001 - a description must never stop a replay
        text = action.to_text()
    if who and who not in text:
        return f"{who}: {text}"
    return capital(text)


def _game_title(name: Any) -> str:
    try:
        return get_game(str(name)).title
    except ValueError:
        return "a game"


def describe_input(core: RefereeCore, kind: str, payload: dict[str, Any]) -> str:
    """One line for a recorded input, in the live log's words, worded with the game just before it."""
    if kind == "new_game":
        return f"A new game of {_game_title(payload.get('game'))} for {listed(list(payload.get('players') or []))}"
    if kind == "command":
        return _action_text(core, payload.get("action"))
    if kind == "observation":
        first = ", as the board stood at the start" if payload.get("initial") else ""
        return capital(f"{label(str(payload.get('sensor')))} reads {reading(str(payload.get('value')))}{first}")
    if kind == "reconcile":
        n = len(payload.get("sensors") or {})
        return f"The whole board is read ({n} sensor{'' if n == 1 else 's'})"
    if kind == "gm":
        return describe_gm(core, payload)
    if kind == "timeout":
        if payload.get("timer") == "window":
            return "Time is up: " + _action_text(core, payload.get("action"))
        return "The time to put the board right runs out"
    return capital(kind.replace("_", " "))


def describe_gm(core: RefereeCore, payload: dict[str, Any]) -> str:
    """A game-master input in words: who did what, and why."""
    op = payload.get("op")
    by = _who(payload.get("by"))
    why = f" ({payload['reason']})" if payload.get("reason") else ""
    if op in ("declare", "end_window"):
        verb = "declares" if op == "declare" else "ends the wait with"
        return f"{by} {verb}: {_action_text(core, payload.get('action'))}{why}"
    if op == "undo_request":
        return f"{_seat(core, payload.get('seat'))} asks to take their last move back"
    words = {"undo": "takes the last move back", "undo_decline": "keeps the move a player asked to take back",
             "pause": "pauses the game", "resume": "resumes the game",
             "trust_board": "takes the board as it stands",
             "broken": f"marks {label(str(payload.get('sensor')))} out of service"}
    return f"{by} {words.get(str(op), str(op).replace('_', ' '))}{why}"


def _who(by: Any) -> str:
    return capital("the referee" if not by or by == "referee" else f"the {by}")


def _seat(core: RefereeCore, seat: Any) -> str:
    game = core.game
    if game is not None and isinstance(seat, int) and 0 <= seat < len(game.players):
        return game.players[seat]
    return "A player"


def describe_event(event: dict[str, Any], game: Game | None = None) -> str:
    """A recorded event in the live log's words, worded with ``game`` (as it stood just after the event).

    Never an id, a seat number or a coordinate: the event's own data stays in the JSON export for machines.
    """
    data = event.get("data") or {}
    kind = str(event.get("type"))
    why = f" ({data['reason']})" if data.get("reason") else ""
    by = _who(data.get("by"))
    referee: dict[str, Callable[[], str]] = {
        "mismatch": lambda: f"The board does not match the game: {data.get('message')} {data.get('guidance')}",
        "mismatch_cleared": lambda: "The board matches the game again",
        "game_started": lambda: f"{data.get('title') or _game_title(data.get('game'))} starts for "
                                f"{listed(list(data.get('players') or []))}",
        "undone": lambda: f"{by} took back: {data.get('move')}{why}"
                          + (" " + " ".join(data.get("put_back") or []) if data.get("put_back") else ""),
        "undo_requested": lambda: f"{data.get('player') or 'A player'} asks to take back: {data.get('move')}",
        "undo_declined": lambda: f"{by} kept {data.get('player') or 'a player'}'s move{why}",
        "paused": lambda: f"{by} paused the game{why}",
        "resumed": lambda: f"{by} resumed the game",
        "corrected": lambda: f"Correction by {by[0].lower() + by[1:]}: {data.get('text')}{why}",
    }
    said = ""
    try:
        if kind in referee:
            said = referee[kind]()
        elif game is not None:
            said = game.describe_event(Event(kind, dict(data)))
    except Exception:  # noqa: BLE001 - an event reshaped since it was recorded is still said, in general words
        said = ""
    said = (said or kind.replace("_", " ")).strip()
    said = capital(said)
    return said if said.endswith((".", "!", "?")) else said + "."


def replay(journal: Journal) -> Iterator[ReplayStep]:
    """Every input of ``journal`` decided again; each step says whether it reproduced its events."""
    core = RefereeCore()
    next_seq = 1
    for entry in journal.inputs():
        kind, payload, recorded = entry["kind"], entry["payload"], entry["events"]
        step = ReplayStep(entry["id"], kind, entry["time"], describe_input(core, kind, payload), recorded)
        carried = payload.get("carry") if kind == "new_game" else None
        if carried is not None and carried != core.board_state():
            # a restart begins at the latest new game with this state: it must be what replay reaches
            step.divergence = f"input {entry['id']} (new_game): the board state it carries is not the replayed one"
        try:
            step.produced = core.decide(kind, payload)
        except Exception as exc:  # noqa: BLE001 - any failure is a divergence to report, not a crash
            step.divergence = f"input {entry['id']} ({kind}) cannot be replayed: {exc}"
        seqs = [e["seq"] for e in recorded]
        if step.divergence is None and seqs != list(range(next_seq, next_seq + len(seqs))):
            step.divergence = f"input {entry['id']}: events have seq {seqs}, expected from {next_seq}"
        if step.divergence is None and not same_events(step.produced, recorded):
            got = [e["type"] for e in step.produced]
            want = [e["type"] for e in recorded]
            step.divergence = (
                f"input {entry['id']} ({kind}): replay gives {got or 'no events'}, "
                f"the journal has {want or 'no events'}"
                if got != want
                else f"input {entry['id']} ({kind}): replay gives the same event types with different data"
            )
        next_seq += len(seqs)
        step.said = [describe_event(e, core.game) for e in recorded]
        yield step
