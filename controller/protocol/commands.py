"""MQTT topic names and the checks every incoming command passes before the worker sees it.

Commands are checked in the network thread: size, UTF-8, JSON, id, name,
signature (``controller.protocol.signing``: it covers the command's exact bytes, the table
and the command's name), the signed time ``ts`` and replay. Each refusal becomes a reply
that names the problem; nothing reaches the referee. Past the rate of answered refusals
(``mqtt_link``), a command that cannot be signed (:meth:`CommandChecker.doomed`: too large,
an unknown name, nothing shaped like a signature) is refused without being decoded, so a
flood of forgeries costs a search of their bytes each, and none is kept or queued.

Replay: a command id that came with a valid signature is used for good. The
worker writes it to the journal before it runs the command
(``Journal.use_command``), whatever the outcome, so it stays used across
restarts and with no count limit; ids waiting for the worker are held here in
memory. A command signed more than ``COMMAND_WINDOW_S`` from this clock is
refused too, so a capture is dead after a few minutes even on a fresh journal.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from controller.protocol import signing
from controller.protocol.security import (
    COMMAND_WINDOW_S,
    MAX_DEPTH,
    loads_utf8,
    too_deep,
)
from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)

MAX_COMMAND_BYTES = 16 * 1024
PRIVATE_SEATS = 8  # seats 0..7 have a private topic; no game has more
MAX_ID_LENGTH = 200
MAX_NAME_SHOWN = 40  # characters of an unknown command's name a refusal repeats
# The fields every command may carry besides its own (docs/topics.md): its id, signed time and
# signature, and the game and point of the game it was made at. A handler never reads them as input.
ENVELOPE = frozenset({"id", "ts", "auth", "in_game", "at_seq"})
_MEMORY_S = 4 * COMMAND_WINDOW_S  # the worker has long written an id down by then (see the module doc)
# An oversized command up to this size still gets a correlated reply. Reading its id costs a whole
# JSON parse (about 15 ms for 250 KiB), so it is done only for a refusal that will be answered
# (mqtt_link: at most 20 a second), and only up to a few times the limit.
_ID_PEEK_BYTES = 4 * MAX_COMMAND_BYTES
# A lone UTF-16 surrogate can only come from a \uD800-\uDFFF escape (UTF-8 cannot encode one): a
# command without such an escape is not re-encoded to look for one, which cost as much as its parse.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# Where a signed command carries its signature (controller.protocol.signing): the last field,
# spelt exactly so. A command without it cannot be signed, so it is refused without being decoded.
_SIGNATURE_AT = slice(-signing.SUFFIX_LEN, -signing.SUFFIX_LEN + len(signing.MARK) + len(signing.TAG))
_DIGITS = re.compile(rb"[0-9a-f]{64}")


@dataclass(frozen=True)
class Topics:
    base: str
    table: str

    def _t(self, *parts: str) -> str:
        return "/".join((self.base, self.table, *parts))

    @property
    def status(self) -> str:
        return self._t("status")

    @property
    def state(self) -> str:
        return self._t("state")

    @property
    def events(self) -> str:
        return self._t("events")

    @property
    def sensors(self) -> str:
        return self._t("sensors")

    @property
    def health(self) -> str:
        return self._t("health")

    @property
    def effects(self) -> str:
        return self._t("effects")

    @property
    def summary(self) -> str:
        return self._t("summary")

    @property
    def recent(self) -> str:
        return self._t("recent")

    def private(self, seat: int) -> str:
        return self._t("private", str(seat))

    @property
    def moment(self) -> str:
        return self._t("moment")

    @property
    def unretained(self) -> tuple[str, ...]:
        """The table's topics it never publishes retained (``reply/+`` is a filter): a retained
        message there is always someone else's, and would reach every subscriber as it subscribes."""
        return (self.events, self.effects, self.moment, self.reply("+"))

    def is_unretained(self, topic: str) -> bool:
        head = self.reply("")
        return topic in (self.events, self.effects, self.moment) or (
            topic.startswith(head) and "/" not in topic[len(head):] and topic != head)

    def stray_private(self, topic: str) -> bool:
        """A topic under ``private/`` that no seat of any game has: only someone else publishes there."""
        head = self._t("private", "")
        if not topic.startswith(head):
            return False
        seat = topic[len(head):]
        return not (seat.isascii() and seat.isdigit() and str(int(seat)) == seat and int(seat) < PRIVATE_SEATS)

    @property
    def commands(self) -> str:
        return self._t("cmd", "+")

    def command(self, name: str) -> str:
        return self._t("cmd", name)

    def reply(self, name: str) -> str:
        return self._t("reply", name)


@dataclass(frozen=True)
class Command:
    """A command that passed every check the link can make; the worker does the rest."""

    name: str
    id: str
    payload: dict[str, Any]


class CommandRefused(GravekeeperError, ValueError):
    """A command refused before it reached the worker. ``id`` is None when unreadable."""

    def __init__(self, message: str, command_id: Any = None, *, copy: bool = False) -> None:
        super().__init__(message)
        self.command_id = command_id
        self.copy = copy  # the id was already taken: this answers a copy, never the original


def dumps(obj: Any) -> bytes:
    # JSON may carry a lone UTF-16 surrogate ("\\ud800"), which UTF-8 cannot encode; written back
    # as its escape it stays valid JSON, so echoing a sender's id can never raise.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "backslashreplace")


def _has_surrogate(obj: Any) -> bool:
    """Whether any text in ``obj`` (keys included) holds an unpaired UTF-16 surrogate."""
    try:
        json.dumps(obj, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    return False


def _usable_id(cid: Any) -> Any:
    if isinstance(cid, bool) or not isinstance(cid, (str, int)) or cid == "":
        return None
    if isinstance(cid, str) and (len(cid) > MAX_ID_LENGTH or _has_surrogate(cid)):
        return None
    return cid


def _id_of(raw: bytes) -> Any:
    """The command's id if it can be read (for the reply), else None."""
    try:
        payload = loads_utf8(raw)
    except (ValueError, RecursionError):
        return None
    return _usable_id(payload.get("id")) if isinstance(payload, dict) else None


class CommandChecker:
    """Size, JSON, id, name, signature and replay checks of one incoming command."""

    def __init__(self, token: str, names: Collection[str], used: Callable[[str], bool], *, table: str,
                 spend: Callable[[str], None] | None = None, clock: Callable[[], float] = time.time) -> None:
        self._key = signing.signing_key(token)
        self._table = table
        self._names = frozenset(names)
        self._used = used  # the journal: was this id ever taken (Journal.command_used)
        self._spend = spend  # the journal: take this id for good (Journal.use_command)
        self._clock = clock
        self._seen: dict[str, float] = {}  # ids passed on, perhaps not yet written down -> monotonic time
        self._lock = threading.Lock()

    def doomed(self, name: str, raw: bytes) -> bool:
        """Whether :meth:`check` is sure to refuse ``raw``, told without decoding it (microseconds).

        True only when it cannot be a signed command: too large, an unknown name, or no version 2
        signature where the scheme puts it (an old panel's command included: refused unread only
        past the rate of answered refusals, otherwise answered why). False proves nothing:
        :meth:`check` decides.
        """
        if len(raw) > MAX_COMMAND_BYTES or name not in self._names:
            return True
        return len(raw) <= signing.SUFFIX_LEN or raw[_SIGNATURE_AT] != signing.MARK + signing.TAG \
            or not raw.endswith(b'"}') or _DIGITS.fullmatch(raw, len(raw) - 2 - 64, len(raw) - 2) is None

    def check(self, name: str, raw: bytes) -> Command:
        if len(raw) > MAX_COMMAND_BYTES:
            raise CommandRefused(f"payload too large: {len(raw)} bytes (the limit is {MAX_COMMAND_BYTES})",
                                 _id_of(raw) if len(raw) <= _ID_PEEK_BYTES else None)
        if too_deep(raw):
            # Before decoding (controller.protocol.security.MAX_DEPTH): no command of the contract nests so
            # deep, and one just under the parser's limit broke the signature check further down.
            raise CommandRefused(f"bad JSON: nested too deeply (more than {MAX_DEPTH} levels)")
        try:
            payload = loads_utf8(raw)
        except ValueError as exc:
            raise CommandRefused(f"bad JSON: {exc}") from None
        except RecursionError:  # not reached past too_deep; kept so that a parser change cannot crash us
            raise CommandRefused("bad JSON: nested too deeply") from None
        if not isinstance(payload, dict):
            raise CommandRefused(f"a command must be a JSON object, got {type(payload).__name__}")
        try:
            surrogate = _SURROGATE_ESCAPE.search(raw) is not None and _has_surrogate(payload)
        except RecursionError:
            raise CommandRefused("bad JSON: nested too deeply") from None
        if surrogate:
            # Not text in any encoding: it cannot be signed the way the sender signed it.
            raise CommandRefused("bad JSON: a string holds an unpaired UTF-16 surrogate (\\ud800-\\udfff)",
                                 _usable_id(payload.get("id")))
        cid = payload.get("id")
        if isinstance(cid, bool) or not isinstance(cid, (str, int)) or cid == "":
            raise CommandRefused("missing or bad 'id': it must be a non-empty string or an integer")
        if isinstance(cid, str) and len(cid) > MAX_ID_LENGTH:
            raise CommandRefused(f"'id' is longer than {MAX_ID_LENGTH} characters")
        if name not in self._names:
            known = ", ".join(sorted(self._names))
            # A topic level may be 64 KiB long: echoed whole, every refusal sent the name back doubled.
            shown = name if len(name) <= MAX_NAME_SHOWN else name[:MAX_NAME_SHOWN] + "…"
            raise CommandRefused(f"unknown command {shown!r} (known: {known})", cid)
        if "auth" not in payload:
            raise CommandRefused("not authorised: the command has no 'auth' signature", cid)
        try:
            signing.check(self._key, "command", self._table, name, raw)
        except signing.SignatureError as exc:
            if exc.kind == "forged":
                raise CommandRefused("not authorised: bad signature (wrong control token, or signed for another "
                                     "table or command, or altered; see docs/topics.md for what is signed)",
                                     cid) from None
            raise CommandRefused(f"not authorised: {exc}", cid) from None
        key = str(cid)
        now = time.monotonic()
        with self._lock:
            try:
                used = key in self._seen or self._used(key)
            except (ValueError, sqlite3.Error, OSError) as exc:  # JournalError is a ValueError
                # Without the journal an old id cannot be told from a new one; refuse, with the id.
                raise CommandRefused(f"the journal cannot be read, so the command was not taken: {exc}",
                                     cid) from None
            if used:
                raise CommandRefused(f"replayed command id {key!r}: that id was already used", cid, copy=True)
            self._seen[key] = now
            late = self._late(payload.get("ts"))
            if late is not None:
                # Signed, so spent too: a clock set right later must not make this capture valid.
                # Written here, not by the worker (which never sees it); once per id, and rare.
                if self._spend is not None:
                    try:
                        self._spend(key)
                    except (ValueError, sqlite3.Error, OSError) as exc:
                        log.warning("could not write down the refused command id %r: %s", key, exc)
                raise CommandRefused(late, cid)
            if len(self._seen) % 256 == 0:
                self._seen = {k: t for k, t in self._seen.items() if now - t < _MEMORY_S}
        return Command(name, key, payload)

    def taken(self, command_id: Any) -> bool:
        """Whether a command that passed every check already took ``command_id`` (False if unknown).

        A refusal of another message with that id answers a copy: whoever saw the command go by
        (anyone on the broker) published it again, exactly or altered, on any command topic.
        """
        key = str(command_id)
        with self._lock:
            if key in self._seen:
                return True
            try:
                return bool(self._used(key))
            except (ValueError, sqlite3.Error, OSError):  # JournalError is a ValueError
                return False

    def _late(self, ts: Any) -> str | None:
        """Why the signed time ``ts`` is refused, or None when it is within the window."""
        if isinstance(ts, bool) or not isinstance(ts, int) or not 0 <= ts < 2**53:  # 2**53: exact as a float
            return ("missing or bad 'ts': a signed command carries the time it was signed, "
                    "in integer milliseconds since 1970 (see docs/topics.md)")
        off = ts / 1000 - self._clock()
        if abs(off) <= COMMAND_WINDOW_S:
            return None
        way = "ahead of" if off > 0 else "behind"
        return (f"the command was signed {abs(off):.0f} s {way} this table's clock; commands more "
                f"than {COMMAND_WINDOW_S} s away are refused, so a captured one cannot be "
                "replayed later (if both are live, check the clocks of the sender and the controller)")
