"""The game master on the running referee: checks each request, journals it, keeps the timers right.

The decisions themselves are in :mod:`controller.referee.gm` (pure, replayed from
the journal). What depends on the moment is here: a correction's reason is
required, a command id is single-use, and a pause stops every timer of the
referee (an outcome window, a grace period) where it stood, so a resume
starts them again with the time they had left.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controller.referee.gm import CORRECTIONS, OPS
from gravekeeper.errors import GravekeeperError

if TYPE_CHECKING:
    from controller.referee.live import Outcome, Referee

MAX_REASON = 200
MAX_BY = 40
# Fields each op takes besides "reason" (and "by", which the command path sets).
OP_FIELDS: dict[str, frozenset[str]] = {
    "undo": frozenset({"request"}),
    "undo_request": frozenset({"seat"}),
    "undo_decline": frozenset(),
    "pause": frozenset(),
    "resume": frozenset(),
    "declare": frozenset({"action"}),
    "end_window": frozenset({"action"}),
    "trust_board": frozenset(),
    "broken": frozenset({"sensor"}),
}


class GmRefused(GravekeeperError, ValueError):
    """A game-master request that is malformed; nothing was journalled."""


def clean_reason(op: str, reason: Any) -> str | None:
    """The reason as journalled; every correction needs one (a few words: why the board was wrong)."""
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        if op in CORRECTIONS:
            raise GmRefused(f"{op}: say why in a few words ('reason'): every correction is recorded with its reason")
        return None
    if not isinstance(reason, str):
        raise GmRefused(f"{op}: 'reason' must be text")
    words = " ".join(reason.split())
    if len(words) > MAX_REASON:
        raise GmRefused(f"{op}: 'reason' is longer than {MAX_REASON} characters")
    return words


def payload_for(op: str, fields: Mapping[str, Any], by: str) -> dict[str, Any]:
    """The journal payload of ``op`` (raises :class:`GmRefused` for a malformed request)."""
    if op not in OPS:
        raise GmRefused(f"unknown game-master op {op!r} (one of {', '.join(OPS)})")
    extra = sorted(set(fields) - OP_FIELDS[op] - {"reason"})
    if extra:
        raise GmRefused(f"{op}: unknown field(s): {', '.join(extra)}")
    if not isinstance(by, str) or not by.strip() or len(by) > MAX_BY:
        raise GmRefused(f"{op}: who did it must be a short name")
    payload: dict[str, Any] = {"op": op, "by": by.strip(), "reason": clean_reason(op, fields.get("reason"))}
    for key in OP_FIELDS[op]:
        if key in fields:
            payload[key] = fields[key]
    if op in ("declare", "end_window") and not isinstance(fields.get("action"), dict):
        raise GmRefused(f"{op}: 'action' must be an object {{\"kind\", \"player\", \"params\"}}")
    if op == "broken" and not isinstance(fields.get("sensor"), str):
        raise GmRefused("broken: 'sensor' must be a sensor id such as tomb.wolf")
    for key in ("seat", "request"):
        value = payload.get(key)
        if key in payload and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise GmRefused(f"{op}: '{key}' must be a seat number")
    if op == "undo_request" and "seat" not in payload:
        raise GmRefused("undo_request: 'seat' is missing")
    return payload


def game_master(referee: Referee, op: str, fields: Mapping[str, Any], *, by: str = "referee",
                command_id: str | None = None) -> Outcome:
    """Decide one game-master request on ``referee``; an :class:`Outcome` like ``act``'s."""
    from controller.referee.live import Outcome

    if command_id is not None and referee.journal.has_command(command_id):
        return Outcome(False, [], f"command id {command_id!r} was already used")
    try:
        payload = payload_for(op, fields, by)
    except GmRefused as exc:
        return Outcome(False, [], str(exc))
    payload["command_id"] = command_id
    now = referee.clock()
    stood = dict(referee._windows)  # the windows that stood still while paused
    outcome = referee._outcome("gm", payload, {"op": op})
    if outcome.ok:
        if op == "pause":
            referee.paused_at = now
        elif op == "resume":
            _shift_timers(referee, referee.clock(), stood)
        if outcome.data is not None:
            outcome.data["events"] = outcome.events
    return outcome


def _shift_timers(referee: Referee, now: float, stood: dict[str, float]) -> None:
    """Resume: every timer that stood still while paused goes on with the time it had left."""
    paused_at, referee.paused_at = referee.paused_at, None
    if paused_at is None:
        return  # never paused by this referee (cannot happen: a restart while paused sets it)
    shift = max(0.0, now - paused_at)
    referee._windows = {k: opened + shift if stood.get(k) == opened else opened
                        for k, opened in referee._windows.items()}
    if referee._pending_since is not None:
        referee._pending_since += shift
