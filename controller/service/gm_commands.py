"""The game master's MQTT commands: undo, undo_request, undo_answer, pause, resume, correct, history.

Signed and checked like every command (``controller.protocol.commands``); the
handlers run in the service's worker under its decision lock, except
``history``, which reads the journal through a connection of its own in a
thread of its own, so a long replay never holds up a sensor reading. Fields
are in ``docs/topics.md``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from controller.protocol.commands import ENVELOPE, Command, dumps
from controller.referee.gm import CORRECTIONS
from controller.referee.history import History, HistoryError
from controller.referee.live_gm import game_master
from controller.service.context import TableContext, ViewHooks
from controller.store.journal import Journal, JournalError

log = logging.getLogger(__name__)

GM_COMMANDS = ("undo", "undo_request", "undo_answer", "pause", "resume", "correct", "history")
# A history reply must stay under the packet size the panel announces (controller/protocol/mqtt5.py), with room
# for the reply's own fields and signature: the broker would drop a bigger one without a word.
MAX_HISTORY_REPLY_BYTES = 900 * 1024
HISTORY_OPS = ("games", "steps", "board", "export", "sensors")

Reply = tuple[bool, str | None, dict[str, Any] | None, bool]


def _only(payload: Mapping[str, Any], allowed: set[str], name: str) -> dict[str, Any]:
    unknown = sorted(set(payload) - allowed - ENVELOPE)
    if unknown:
        raise ValueError(f"{name}: unknown field(s): {', '.join(unknown)}")
    return {k: v for k, v in payload.items() if k in allowed}  # never the envelope


def _public(events: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    keep = ("seq", "table", "type", "time", "data")
    return [{k: e.get(k) for k in keep} for e in events or []]


def handle(table: TableContext, views: ViewHooks, cmd: Command) -> Reply:
    """Answer one game-master command (not ``history``: see :func:`start_history`)."""
    name, p = cmd.name, cmd.payload
    if name == "undo":
        op, fields = "undo", _only(p, {"reason"}, name)
    elif name == "undo_request":
        op, fields = "undo_request", _only(p, {"seat"}, name)
    elif name == "undo_answer":
        fields = _only(p, {"seat", "approve", "reason"}, name)
        if not isinstance(fields.get("approve"), bool):
            raise ValueError("undo_answer: 'approve' must be true or false")
        seat = fields.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError("undo_answer: 'seat' must be the seat that asked")
        if fields.pop("approve"):
            op, fields = "undo", {"request": fields.pop("seat"), **fields}
        else:
            op = "undo_decline"
            fields.pop("seat")
    elif name in ("pause", "resume"):
        op, fields = name, _only(p, {"reason"} if name == "pause" else set(), name)
    elif name == "correct":
        fields = _only(p, {"op", "reason", "action", "sensor"}, name)
        op = fields.pop("op", None)
        if op not in CORRECTIONS:
            raise ValueError(f"correct: 'op' must be one of {', '.join(CORRECTIONS)}")
    else:
        raise ValueError(f"unknown command {name!r}")
    by = "referee"
    if op == "undo_request":
        by = "a player"
    outcome = game_master(table.referee, op, fields, by=by, command_id=cmd.id)
    if not outcome.ok:
        # The refusal is in words; the sensor it was about stays in the data for the script that asked.
        sensor = fields.get("sensor") if op == "broken" else None
        about = {"op": op, "sensor": sensor} if isinstance(sensor, str) else None
        return False, outcome.error, about, False
    if op == "broken":
        views.health_changed()  # the health topic shows the sensor out of service at once
    return True, None, {"op": op, "events": _public(outcome.events)}, True


# ----- history ------------------------------------------------------------------------------
_history_lock = threading.Lock()  # one history request at a time per process: they are rare and heavy
_histories: dict[str, History] = {}


def start_history(table: TableContext, cmd: Command) -> None:
    """Answer ``history`` from a thread of its own; the reply goes out with the worker's next flush."""
    try:
        fields = _only(cmd.payload, {"op", "game_id", "step", "format"}, "history")
        if fields.get("op") not in HISTORY_OPS:
            raise ValueError(f"history: 'op' must be one of {', '.join(HISTORY_OPS)}")
    except ValueError as exc:
        _reply(table, cmd, False, str(exc), None)
        return
    threading.Thread(target=_run_history, args=(table, cmd, fields), name="gk-history", daemon=True).start()


def _run_history(table: TableContext, cmd: Command, fields: dict[str, Any]) -> None:
    try:
        with _history_lock:
            history = _histories.setdefault(table.table, History(table.config.table.reveal_hands))
            with Journal(table.config.journal.path, table=table.table, create=False) as journal:
                data = answer(history, journal, fields)
        size = len(dumps(data))
        if size > MAX_HISTORY_REPLY_BYTES:
            raise HistoryError(f"the answer is {size // 1024} KiB, too big to send over the broker; "
                               "read this game with `gravekeeper replay` on the journal")
        _reply(table, cmd, True, None, data)
    except (HistoryError, JournalError, ValueError) as exc:
        _reply(table, cmd, False, f"history: {exc}", None)
    except Exception as exc:
        log.exception("history command %s failed", cmd.id)
        _reply(table, cmd, False, f"internal error in history: {type(exc).__name__}", None)


def answer(history: History, journal: Any, fields: Mapping[str, Any]) -> dict[str, Any]:
    op = fields["op"]
    if op == "games":
        return {"games": history.games(journal)}
    if op == "sensors":
        return history.sensors(journal)
    game_id = fields.get("game_id")
    if not isinstance(game_id, str) or not game_id:
        raise HistoryError(f"{op}: 'game_id' is missing")
    if op == "steps":
        return history.steps(journal, game_id)
    if op == "board":
        return history.board_at(journal, game_id, fields.get("step", 0))
    return history.export(journal, game_id, str(fields.get("format") or "jsonl"))


def _reply(table: TableContext, cmd: Command, ok: bool, error: str | None, data: dict[str, Any] | None) -> None:
    link = table.link
    if link is None:
        return
    if not ok:
        table.refused()
    link.reply(cmd.name, cmd.id, ok, error=error, data=data)
    table.wake()  # the worker flushes the reply
