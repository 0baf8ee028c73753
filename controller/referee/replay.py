"""Replaying a journal: every input again through a fresh referee core, in words.

Used by ``gravekeeper replay``: to print a game as people read it, and to
verify that the recorded inputs reproduce every recorded event (same type,
data, private part and seq). A divergence means the journal was edited, or the
rules changed since the game was played.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.games.base import Action
from controller.referee.core import RefereeCore, same_events
from controller.referee.guidance import label
from controller.store.journal import Journal


@dataclass
class ReplayStep:
    id: int
    kind: str
    time: float
    text: str
    events: list[dict[str, Any]]
    divergence: str | None = None
    produced: list[dict[str, Any]] = field(default_factory=list)


def _action_text(core: RefereeCore, data: Any) -> str:
    try:
        action = Action.from_json(data)
    except ValueError:
        return repr(data)
    game = core.game
    who = ""
    if game is not None and action.player is not None and 0 <= action.player < len(game.players):
        who = f"{game.players[action.player]}: "
    try:
        text = game.describe(action) if game is not None else action.to_text()
    except Exception:  # noqa: BLE001 - a description must never stop a replay
        text = action.to_text()
    return who + text


def describe_input(core: RefereeCore, kind: str, payload: dict[str, Any]) -> str:
    """One line for a recorded input, worded with the game as it was just before it."""
    if kind == "new_game":
        return f"new game of {payload.get('game')} for {', '.join(payload.get('players') or [])}"
    if kind == "command":
        return "command: " + _action_text(core, payload.get("action"))
    if kind == "observation":
        first = " (read at start)" if payload.get("initial") else ""
        return f"sensor: {label(str(payload.get('sensor')))} is {payload.get('value')}{first}"
    if kind == "reconcile":
        return f"board read: {len(payload.get('sensors') or {})} sensors"
    if kind == "gm":
        return describe_gm(core, payload)
    if kind == "timeout":
        if payload.get("timer") == "window":
            return "window over: " + _action_text(core, payload.get("action"))
        return "grace period over"
    return kind


def describe_gm(core: RefereeCore, payload: dict[str, Any]) -> str:
    """A game-master input in words: who did what, and why."""
    op = payload.get("op")
    by = payload.get("by") or "the referee"
    why = f" ({payload['reason']})" if payload.get("reason") else ""
    if op in ("declare", "end_window"):
        verb = "declares" if op == "declare" else "ends the window with"
        return f"{by} {verb}: {_action_text(core, payload.get('action'))}{why}"
    if op == "undo_request":
        game = core.game
        seat = payload.get("seat")
        name = game.players[seat] if game is not None and isinstance(seat, int) and 0 <= seat < len(game.players) \
            else f"seat {seat}"
        return f"{name} asks to take their last move back"
    words = {"undo": "takes the last move back", "undo_decline": "declines the undo request",
             "pause": "pauses the game", "resume": "resumes the game",
             "trust_board": "takes the board as it stands", "broken": f"marks {payload.get('sensor')} broken"}
    return f"{by} {words.get(str(op), str(op))}{why}"


def describe_event(event: dict[str, Any]) -> str:
    data = event.get("data") or {}
    if event["type"] == "mismatch":
        return f"mismatch: {data.get('message')} {data.get('guidance')}"
    if event["type"] == "mismatch_cleared":
        return "mismatch cleared: the board matches the game again"
    if event["type"] == "game_started":
        return f"{data.get('title', data.get('game'))} started for {', '.join(data.get('players') or [])}"
    details = ", ".join(f"{k}={v}" for k, v in sorted(data.items()))
    return f"{event['type']} ({details})" if details else event["type"]


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
        yield step
