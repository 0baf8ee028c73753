"""Checking the game master's commands from the browser before they are signed (see ``commands.py``).

The table checks them again and is the judge; this check gives a malformed
form a precise reason at once, and keeps the panel from signing what it does
not understand. ``history`` is asked for by the history pages
(``views/history.py``); a token holder's script may send it too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from controller.games import Action, MalformedAction
from controller.protocol.payloads import sensor_values
from gravekeeper.errors import GravekeeperError

GM_COMMANDS = ("undo", "undo_request", "undo_answer", "pause", "resume", "correct", "history")
HISTORY_OPS = ("games", "steps", "board", "export", "sensors")
CORRECTIONS = ("declare", "end_window", "trust_board", "broken")
MAX_REASON = 200


class GmCommandError(GravekeeperError, ValueError):
    """A malformed game-master command; the message names the field."""


def _no_extra(name: str, body: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise GmCommandError(f"{name}: unknown field(s): {', '.join(extra)}")


def _reason(name: str, body: Mapping[str, Any], required: bool) -> dict[str, Any]:
    reason = body.get("reason")
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        if required:
            raise GmCommandError(f"{name}: say why in a few words: every correction is recorded with its reason")
        return {}
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise GmCommandError(f"{name}: the reason must be text of at most {MAX_REASON} characters")
    return {"reason": reason.strip()}


def _seat(name: str, value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 8:
        raise GmCommandError(f"{name}: seat must be a seat number, got {value!r}")
    return value


def _undo(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("undo", body, {"reason"})
    return _reason("undo", body, False)


def _undo_request(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("undo_request", body, {"seat"})
    return {"seat": _seat("undo_request", body.get("seat"))}


def _undo_answer(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("undo_answer", body, {"seat", "approve", "reason"})
    approve = body.get("approve")
    if not isinstance(approve, bool):
        raise GmCommandError("undo_answer: approve must be true or false")
    return {"seat": _seat("undo_answer", body.get("seat")), "approve": approve,
            **_reason("undo_answer", body, False)}


def _pause(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("pause", body, {"reason"})
    return _reason("pause", body, False)


def _resume(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("resume", body, set())
    return {}


def _correct(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("correct", body, {"op", "reason", "action", "sensor"})
    op = body.get("op")
    if op not in CORRECTIONS:
        raise GmCommandError(f"correct: op must be one of {', '.join(CORRECTIONS)}, got {op!r}")
    out: dict[str, Any] = {"op": op, **_reason("correct", body, True)}
    if op in ("declare", "end_window"):
        try:
            out["action"] = Action.from_json(body.get("action")).to_json()
        except MalformedAction as exc:
            raise GmCommandError(f"correct: {exc}") from None
    elif "action" in body:
        raise GmCommandError(f"correct: {op} takes no action")
    if op == "broken":
        sensor = body.get("sensor")
        try:
            sensor_values(sensor if isinstance(sensor, str) else "")
        except ValueError:
            raise GmCommandError(f"correct: sensor must be a sensor id such as tomb.wolf, got {sensor!r}") from None
        out["sensor"] = sensor
    elif "sensor" in body:
        raise GmCommandError(f"correct: {op} takes no sensor")
    return out


def _history(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("history", body, {"op", "game_id", "step", "format"})
    if body.get("op") not in HISTORY_OPS:
        raise GmCommandError(f"history: op must be one of {', '.join(HISTORY_OPS)}")
    out: dict[str, Any] = {"op": body["op"]}
    if "game_id" in body:
        if not isinstance(body["game_id"], str) or not 0 < len(body["game_id"]) <= 64:
            raise GmCommandError("history: game_id must be a game's id")
        out["game_id"] = body["game_id"]
    if "step" in body:
        step = body["step"]
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise GmCommandError("history: step must be a whole number 0 or more")
        out["step"] = step
    if "format" in body:
        if body["format"] not in ("jsonl", "text"):
            raise GmCommandError("history: format must be jsonl or text")
        out["format"] = body["format"]
    return out


GM_CHECKS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "undo": _undo, "undo_request": _undo_request, "undo_answer": _undo_answer,
    "pause": _pause, "resume": _resume, "correct": _correct, "history": _history,
}
