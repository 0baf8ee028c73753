"""Commands to a table: signed, published, and their replies waited for.

Every command is signed with the table's token (``controller.protocol.security``)
and carries a fresh id; the table answers on ``reply/<name>`` with the same id,
signed. An ``act`` for a seat is sent sealed for that seat and its reply opened
here, so a spectator on the broker never reads a player's move, nor the reason
the table refused it. Anyone on the broker can publish on ``reply/``: only the
answer the table signed, on its own topic, for this command, answers it.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from controller.protocol.security import SealError, seal_command, unseal_reply
from controller.protocol.signing import signed_command, verify_reply
from gravekeeper.errors import GravekeeperError
from gravekeeper.locks import comes_free

from ..settings import PanelSettings

__all__ = ["CommandSender", "CommandTimeout", "TableBusy"]

log = logging.getLogger(__name__)

RESYNC_MIN_INTERVAL = 2.0
# Each command waiting for its table's answer holds one of the panel's request workers (web_panel/workers.py)
# until the answer comes or panel.command_timeout passes. A table that hangs while its people keep tapping
# must not hold them all: at most this many wait on one table, and once one has waited in vain, one at a
# time until the table answers again. A table answers in milliseconds; eight is a table of people at once.
# The places are counted per token: a visitor who logged in with a token the panel could not check (it
# holds none for that table) waits on the table's unsigned refusal, and must not take the places of the
# people who hold the right one.
WAITING_PER_TABLE = 8
WAITING_PER_SILENT_TABLE = 1
# The commands that waited in vain, kept so that the table's late answer to one (a controller that stalled,
# then took the commands queued for it) says that it answers again: after a stall nobody may have anything
# to tap, and its people would read "the table is not answering" until someone did. The newest few only.
LATE_KEPT = 64
# Commands that change the game: each names the game it was made in (``in_game``), so the table
# runs it in no other one. Reading ones (resync, selftest, history) are not bound.
GAME_BOUND = frozenset({"new_game", "act", "sim", "undo", "undo_request", "undo_answer", "pause", "resume",
                        "correct"})
# ... and these also name the point of the game they were made at (``at_seq``): an undo takes back
# the last step, whichever it is, so a held-back one published after a retry took back one more.
SEQ_BOUND = frozenset({"undo"})

Publish = Callable[[str, bytes], object]  # (topic, payload): sent at QoS 1, not retained


class CommandTimeout(GravekeeperError, TimeoutError):
    """The table did not answer a command in time."""


class TableBusy(GravekeeperError, RuntimeError):
    """A command not sent: as many as allowed already wait for that table's answer (``WAITING_PER_TABLE``).

    The message is for the people at the table, who read it on their phones: no table id, no command.
    """


class CommandSender:
    """Signs and publishes commands, and matches each reply to the command that waits for it.

    ``state(table)`` is the table's last state (a game-changing command is bound to its game), and
    ``status(table)`` its last status (which run of the controller answers);
    ``holding(table)`` keeps the table's traffic subscribed while a command waits for its reply;
    ``notify()`` wakes whoever waits on the panel's picture (a test waits for a command to be sent);
    ``told(table, answering)`` hears when a table stops answering commands and when it answers again,
    under this object's lock (so in order): it must not block, nor call back in.
    """

    def __init__(self, settings: PanelSettings, publish: Publish, *,
                 state: Callable[[str], dict[str, Any] | None],
                 status: Callable[[str], dict[str, Any] | None] = lambda table: None,
                 holding: Callable[[str], AbstractContextManager[None]],
                 notify: Callable[[], None],
                 told: Callable[[str, dict[str, Any]], None] = lambda table, answering: None) -> None:
        self.settings = settings
        self.base = settings.base_topic
        self._publish = publish
        self._state = state
        self._status = status
        self._holding = holding
        self._notify = notify
        self._told = told
        self._lock = threading.Lock()
        # command id -> (answered, the answer, token, an unsigned refusal kept aside, the command's name, the table)
        self._pending: dict[str, tuple[threading.Event, list[dict[str, Any]], str, list[dict[str, Any]], str, str]] = {}
        self._last_resync: dict[str, float] = {}
        self._waiting: dict[tuple[str, str], int] = {}  # (table, token) -> its commands waiting for an answer now
        # Tables whose last command waited in vain, until one answers: since when (wall clock, for people),
        # and the run of the controller that stopped answering (``_run_of``). One command at a time goes to them.
        self._silent: dict[str, tuple[float, Any]] = {}
        self._late: OrderedDict[str, tuple[str, str, str]] = OrderedDict()  # id -> (token, name, table): waited in vain

    def request_resync(self, table: str) -> bool:
        """Ask the table to republish its retained topics after a gap (needs its token)."""
        token = self.settings.token_for(table)
        now = time.monotonic()
        with self._lock:
            if token is None or now - self._last_resync.get(table, -1e9) < RESYNC_MIN_INTERVAL:
                return False
            self._last_resync[table] = now
        self.publish_command(table, "resync", {}, token)
        return True

    def publish_command(self, table: str, name: str, fields: dict[str, Any], token: str) -> str:
        """Sign and publish ``cmd/<name>`` without waiting; returns the command id."""
        cmd_id = uuid.uuid4().hex
        payload = signed_command(token, table, name, {"id": cmd_id, **fields})
        self._publish(f"{self.base}/{table}/cmd/{name}", payload)
        return cmd_id

    def command(self, table: str, name: str, fields: dict[str, Any], token: str,
                timeout: float | None = None) -> dict[str, Any]:
        """Send a signed command and wait for the reply with the same id.

        Raises :class:`CommandTimeout` when no reply comes within ``timeout``.
        """
        return self._command(table, name, lambda cmd_id: fields, token, timeout)

    def act(self, table: str, action: dict[str, Any], token: str,
            timeout: float | None = None) -> dict[str, Any]:
        """Send ``action`` sealed for its seat and return the reply opened: ``{"id", "ok", "error"?, "data"?}``.

        An action of no seat has nothing of a player's to hide and goes in clear.
        """
        seat = action.get("player")
        if isinstance(seat, bool) or not isinstance(seat, int):
            return self.command(table, "act", {"action": action}, token, timeout)

        def fields(cmd_id: str) -> dict[str, Any]:
            return {"seat": seat, "sealed": seal_command(token, table, seat, cmd_id, action)}

        reply = self._command(table, "act", fields, token, timeout)
        if "sealed" not in reply:
            # Refused before it was opened (a bad signature, say): the reason is in clear.
            return {k: reply[k] for k in ("id", "ok", "error", "data") if k in reply}
        try:
            opened = unseal_reply(token, table, seat, str(reply.get("id")), reply["sealed"])
        except SealError as exc:
            return {"id": reply.get("id"), "ok": False,
                    "error": f"the table's reply could not be opened: {exc}"}
        if not isinstance(opened, dict) or not isinstance(opened.get("ok"), bool):
            return {"id": reply.get("id"), "ok": False, "error": "the table's sealed reply has no answer in it"}
        # The verdict is read from the sealed part, which only a holder of the seat's key can make.
        return {"id": reply.get("id"), **{k: opened[k] for k in ("ok", "error", "data") if k in opened}}

    def _command(self, table: str, name: str, build: Callable[[str], dict[str, Any]], token: str,
                 timeout: float | None) -> dict[str, Any]:
        """Publish the signed fields ``build(id)`` under a new id and wait for that id's reply."""
        place = (table, token)
        self._take_place(place)
        try:
            with self._holding(table):  # its replies come on its own topics
                return self._command_held(table, name, build, token, timeout)
        finally:
            with self._lock:
                left = self._waiting.get(place, 1) - 1
                if left > 0:
                    self._waiting[place] = left
                else:
                    self._waiting.pop(place, None)

    def _take_place(self, place: tuple[str, str]) -> None:
        """Count one more command waiting on ``place`` (table, token), or raise :class:`TableBusy`."""
        with self._lock:
            waiting = self._waiting.get(place, 0)
            silent = place[0] in self._silent
            if waiting < (WAITING_PER_SILENT_TABLE if silent else WAITING_PER_TABLE):
                self._waiting[place] = waiting + 1
                return
        if silent:
            raise TableBusy("the table has not answered the last move sent to it (it may be busy or stuck), and "
                            "the panel is waiting for it to answer another; look at the board and try again "
                            "in a moment")
        raise TableBusy("the table is still answering the moves sent before this one; try again in a moment")

    def waiting(self, table: str | None = None) -> list[tuple[str, str]]:
        """The commands waiting for their answer now (on ``table``, or on any), as (command id, name)."""
        with self._lock:
            return [(cmd_id, p[4]) for cmd_id, p in self._pending.items() if table is None or p[5] == table]

    def places_held(self) -> int:
        """How many places (``WAITING_PER_TABLE``) commands hold now, over every table and token."""
        with self._lock:
            return sum(self._waiting.values())

    def comes_free(self, timeout: float) -> bool:
        """Whether the lock every command and every reply takes comes free within ``timeout`` seconds."""
        return comes_free(self._lock, timeout)

    def silent(self, table: str) -> bool:
        """Whether ``table``'s last command waited in vain and none has been answered since."""
        with self._lock:
            return table in self._silent

    def answering(self, table: str) -> dict[str, Any]:
        """What the pages show of it: ``{"answering": True}``, or False and ``since`` (seconds since the epoch)."""
        with self._lock:
            silent = self._silent.get(table)
        return {"answering": True} if silent is None else {"answering": False, "since": silent[0]}

    def _command_held(self, table: str, name: str, build: Callable[[str], dict[str, Any]], token: str,
                      timeout: float | None) -> dict[str, Any]:
        cmd_id = uuid.uuid4().hex
        done = threading.Event()
        box: list[dict[str, Any]] = []
        unsigned: list[dict[str, Any]] = []
        with self._lock:
            self._pending[cmd_id] = (done, box, token, unsigned, name, table)
        self._notify()
        try:
            fields = build(cmd_id)
            state = self._state(table) or {}
            game_id, seq = state.get("game_id"), state.get("seq")
            if name in GAME_BOUND and isinstance(game_id, str) and game_id:
                # Bound to the game the page showed: held back on the broker and published after
                # a retry has started a new game, it runs in no other (docs/topics.md, Replay).
                fields = {**fields, "in_game": game_id}
            if name in SEQ_BOUND and isinstance(seq, int) and not isinstance(seq, bool):
                fields = {**fields, "at_seq": seq}
            payload = signed_command(token, table, name, {"id": cmd_id, **fields})
            self._publish(f"{self.base}/{table}/cmd/{name}", payload)
            wait = self.settings.command_timeout if timeout is None else timeout
            if not done.wait(wait):
                with self._lock:
                    refusal = unsigned[0] if unsigned else None
                if refusal is not None:
                    return refusal  # no signed answer came: the table's own refusal of our token, likely
                run = _run_of(self._status(table))  # read before the lock: the store has a lock of its own
                with self._lock:  # told under the lock, so that the pages hear the changes in their order
                    self._late[cmd_id] = (token, name, table)
                    while len(self._late) > LATE_KEPT:
                        self._late.popitem(last=False)
                    if table not in self._silent:
                        since = time.time()
                        self._silent[table] = (since, run)
                        self._told(table, {"answering": False, "since": since})
                log.warning("table %s did not answer %s within %g s: one command at a time goes to it until "
                            "it answers", table, name, wait)
                raise CommandTimeout(f"table {table!r} did not answer {name!r} within {wait:g} s")
            return box[0]
        finally:
            with self._lock:
                self._pending.pop(cmd_id, None)

    def on_reply(self, table: str, name: str, data: dict[str, Any], raw: bytes) -> None:
        """Take a reply the broker brought on ``<table>/reply/<name>``, if it answers a waiting command."""
        cmd_id = data.get("id")
        if not isinstance(cmd_id, str):
            return
        with self._lock:
            pending = self._pending.get(cmd_id)
            late = self._late.get(cmd_id)
        if pending is None:
            if late is not None:
                self._late_answer(cmd_id, late, table, name, data, raw)
            return
        done, box, token, unsigned, sent_as, sent_to = pending
        if not _on_its_own_topic(table, name, data, sent_to, sent_as):
            return
        # Anyone on the broker can publish on reply/: only the table holds the token to sign. A
        # table that refuses the signature itself cannot sign with the token the sender got wrong,
        # so that refusal cannot be checked. Anyone who sees the command's id can send it too, and
        # faster than the table: taken at once, it would show a move the table made as refused (and
        # the player would make it again). So it is kept aside and shown only if no signed answer
        # comes before the command's timeout.
        if not verify_reply(token, table, name, raw):
            if data.get("ok") is False and str(data.get("error", "")).startswith("not authorised"):
                with self._lock:
                    if not unsigned:
                        unsigned.append({k: v for k, v in data.items() if k != "auth"})
                return
            log.warning("ignored a reply to command %s that the table did not sign", cmd_id)
            return
        if not done.is_set():
            box.append({k: v for k, v in data.items() if k != "auth"})
            done.set()
        with self._lock:
            # It answers again (signed, for this table): commands go as before.
            self._answers_again(table)

    def _late_answer(self, cmd_id: str, late: tuple[str, str, str], table: str, name: str, data: dict[str, Any],
                     raw: bytes) -> None:
        """A reply to a command that waited in vain: nobody waits for it now, but if the table signed it, on
        that command's own topic and not for a copy (see ``on_reply``), the table answers commands again."""
        token, sent_as, sent_to = late
        if not _on_its_own_topic(table, name, data, sent_to, sent_as) or not verify_reply(token, table, name, raw):
            return
        log.info("table %s answered %s late: commands go to it as before", table, name)
        with self._lock:
            self._late.pop(cmd_id, None)
            self._answers_again(table)

    def on_status(self, table: str, status: dict[str, Any]) -> None:
        """Take a status the panel took for ``table``: a new run online answers again, as far as anyone knows.

        A hung controller publishes nothing; one started again (after a crash, a restart) announces a new
        run, and its commands are no longer held to one at a time. The same run's status again (a retained
        copy delivered on a new subscription) changes nothing.
        """
        run = _run_of(status)
        with self._lock:
            silent = self._silent.get(table)
            if status.get("state") == "online" and silent is not None and silent[1] != run:
                self._answers_again(table)

    def _answers_again(self, table: str) -> None:
        """Forget that ``table`` stopped answering, and tell the pages if it had (under the lock)."""
        if self._silent.pop(table, None) is not None:
            self._told(table, {"answering": True})


def _on_its_own_topic(table: str, name: str, data: dict[str, Any], sent_to: str, sent_as: str) -> bool:
    """Whether a reply came where the answer to a command sent to ``sent_to`` as ``sent_as`` comes (its
    signature is checked apart).

    Anyone can publish a copy of the command on another table's topic: that table refuses it (signed for
    another table) and, when one token serves both, signs the refusal with it. Anyone who sees the command
    go by can publish it again with its id, exactly or altered, on any command topic, and the table answers
    that copy too (signed: "replayed command id", "not authorised", "unknown command"), often before the
    command itself, which waits for the journal. Such an answer is marked a copy's, or comes on another
    command's reply topic: never the answer to this command, which ran (or not) all the same.
    """
    return table == sent_to and name == sent_as and data.get("copy") is not True


def _run_of(status: dict[str, Any] | None) -> Any:
    """Which run of the controller a status names: its ``instance`` (``since`` from one that names none)."""
    return None if status is None else status.get("instance", status.get("since"))
