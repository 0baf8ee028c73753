"""Who may do what: server-side sessions, the CSRF check, tokens and joined seats.

The browser's cookie holds only a random session id (signed by Flask). The
control token a referee typed, and the seat a player joined, live here on
the server, so neither ever reaches the browser, a URL or a log line. With a
state folder (``web_panel.panel_state``) the sessions that hold a login or a
seat are also kept on disk, so a restarted panel still knows them.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
import time
from dataclasses import dataclass, field

from flask import abort, current_app, g, request, session

from controller.protocol.security import same_secret

from .settings import PanelSettings

SESSION_IDLE_SECONDS = 12 * 3600
MAX_SESSIONS = 5000
JOIN_FAILURES_ALLOWED = 8  # per session per window, so join codes cannot be guessed by brute force
JOIN_FAILURE_WINDOW = 60.0
# Per table, per client address, per window, over every session of that
# address: fresh cookies do not reset it. Never per table alone: a guesser must not lock out the
# people who hold the code or token (docs/panel.md gives the arithmetic against 32^6 join codes).
TABLE_JOIN_FAILURES_ALLOWED = 30
# A control token is chosen by people and may be short: the same limits keep guessing it slow.
LOGIN_FAILURES_ALLOWED = JOIN_FAILURES_ALLOWED
TABLE_LOGIN_FAILURES_ALLOWED = TABLE_JOIN_FAILURES_ALLOWED


@dataclass
class Seat:
    """A player's place: the seat of one game (a new game needs a new code)."""

    game_id: str
    seat: int


@dataclass
class PanelSession:
    sid: str
    csrf: str
    tokens: dict[str, str] = field(default_factory=dict)  # table -> control token
    seats: dict[str, Seat] = field(default_factory=dict)  # table -> joined seat
    # ("join"|"login", table) -> wrong guesses: per table, so guessing at one table of a club
    # does not lock this phone out of the table its owner really sits at.
    failures: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    last_used: float = field(default_factory=time.monotonic)

    def blocked(self, secret: str, table: str, now: float) -> bool:
        key = (secret, table)
        recent = [t for t in self.failures.get(key, []) if now - t < JOIN_FAILURE_WINDOW]
        if recent:
            self.failures[key] = recent
        else:
            self.failures.pop(key, None)  # a session that visits 50 tables keeps no empty lists
        return len(recent) >= _SESSION_GUESSES[secret]


_SESSION_GUESSES = {"join": JOIN_FAILURES_ALLOWED, "login": LOGIN_FAILURES_ALLOWED}
_WHAT = {"join": "join codes", "login": "control tokens"}


class Guessing:
    """One request that guesses a secret of a table (``"join"`` a join code, ``"login"`` its token).

    Made by :func:`guessing`, which refuses it (429) while this session, or
    every session of this client address together, has guessed wrong too often
    at this table in the last minute. Both counts are per table: abuse at one
    table of a club never locks another table, nor this phone out of another
    table; and never per table alone, so a guesser elsewhere locks nobody out.
    """

    def __init__(self, secret: str, where: tuple[str, str], sess: PanelSession, guard: JoinGuard,
                 now: float) -> None:
        self.secret, self.where, self.session, self._guard, self._now = secret, where, sess, guard, now

    def wrong(self) -> None:
        self.session.failures.setdefault((self.secret, self.where[0]), []).append(self._now)
        self._guard.failed(self.where, self._now)

    def succeeded(self) -> PanelSession:
        """The right code or token: the session gets a new id before it holds anything.

        An id that someone planted in this browser before (session fixation) then holds nothing.
        """
        self.session = renew_session(self.session)
        return self.session


def guessing(secret: str, table: str) -> Guessing:
    sess = current_session()
    assert sess is not None
    now = time.monotonic()
    guard: JoinGuard = current_app.extensions[f"gravekeeper_{secret}_guard"]
    where = (table, client_key(request.remote_addr))
    if sess.blocked(secret, table, now) or guard.blocked(where, now):
        abort(429, description=f"too many wrong {_WHAT[secret]} from this device; wait a minute and try again")
    return Guessing(secret, where, sess, guard, now)


def client_key(addr: str | None) -> str:
    """Who a request comes from, for limits: its address (an IPv4 one seen through IPv6 as itself).

    An IPv6 address counts alone, not its /64: on a home network every phone shares one /64, and
    one guesser there must not lock the others out (docs/panel.md weighs what that allows).
    """
    try:
        ip = ipaddress.ip_address(addr or "")
    except ValueError:
        return addr or "?"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


# This machine's own address is not held to the limits per device (server.py, stream_gate.StreamGate):
# it is the Pi's own screen, or a reverse proxy in front of the panel that speaks for every phone.
# Anything that runs here could stop the panel anyway. Other loopback addresses are held to them.
THIS_MACHINE = frozenset({"127.0.0.1", "::1"})


class JoinGuard:
    """Wrong join codes (or control tokens) per (table, client address), over every session of that address.

    New sessions do not reset the count, and another address's count never blocks this one.
    """

    MAX_KEYS = 10_000  # guesses from many addresses (IPv6 has plenty) must not grow this without bound

    def __init__(self, allowed: int = TABLE_JOIN_FAILURES_ALLOWED, window: float = JOIN_FAILURE_WINDOW) -> None:
        self.allowed, self.window = allowed, window
        self._lock = threading.Lock()
        self._failures: dict[tuple[str, str], list[float]] = {}

    def blocked(self, where: tuple[str, str], now: float) -> bool:
        with self._lock:
            recent = [t for t in self._failures.get(where, []) if now - t < self.window]
            if recent:
                self._failures[where] = recent
            else:
                self._failures.pop(where, None)
            return len(recent) >= self.allowed

    def failed(self, where: tuple[str, str], now: float) -> None:
        with self._lock:
            if len(self._failures) >= self.MAX_KEYS:
                for key in [k for k, v in self._failures.items() if not v or now - v[-1] >= self.window]:
                    del self._failures[key]
            self._failures.setdefault(where, []).append(now)


class SessionStore:
    """In-memory sessions; ``panel_state.FileSessionStore`` also keeps them across restarts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, PanelSession] = {}

    def get(self, sid: str | None) -> PanelSession | None:
        if not isinstance(sid, str):
            return None
        with self._lock:
            sess = self._sessions.get(sid)
            if sess is None:
                return None
            now = time.monotonic()
            if now - sess.last_used > SESSION_IDLE_SECONDS:
                del self._sessions[sid]
                return None
            sess.last_used = now
            return sess

    def create(self) -> PanelSession:
        sess = PanelSession(sid=secrets.token_urlsafe(24), csrf=secrets.token_urlsafe(24))
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                self._prune()
            self._sessions[sess.sid] = sess
        return sess

    def renew(self, sess: PanelSession) -> PanelSession:
        """``sess`` under a new id; the old id is forgotten (it finds nothing any more).

        The CSRF token stays: the person's other open pages of the panel hold it in their forms,
        and a token known to whoever planted the old id is no use without the new id's cookie,
        which a page of another site cannot send (SameSite=Strict) nor read.
        """
        fresh = PanelSession(sid=secrets.token_urlsafe(24), csrf=sess.csrf, tokens=sess.tokens,
                             seats=sess.seats, failures=sess.failures)
        with self._lock:
            self._sessions.pop(sess.sid, None)
            self._sessions[fresh.sid] = fresh
        return fresh

    def changed(self, sess: PanelSession) -> None:
        """``sess`` logged in or out, joined or left: a store that keeps sessions writes it down."""

    def _prune(self) -> None:
        # Idle sessions go first, then those that hold nothing: a poller without cookies makes one per
        # request, while a referee watching the live page touches theirs only when they act.
        now = time.monotonic()
        for sid in [s for s, v in self._sessions.items() if now - v.last_used > SESSION_IDLE_SECONDS]:
            del self._sessions[sid]
        if len(self._sessions) < MAX_SESSIONS:
            return
        oldest = sorted(self._sessions.values(), key=lambda v: (bool(v.tokens or v.seats), v.last_used))
        for v in oldest[: len(oldest) // 2]:
            del self._sessions[v.sid]

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)


def store() -> SessionStore:
    return current_app.extensions["gravekeeper_sessions"]


def remember(sess: PanelSession) -> None:
    """Call after changing a session's tokens or seats, so that a restarted panel still has them."""
    store().changed(sess)


def renew_session(sess: PanelSession) -> PanelSession:
    """This request's session under a new id: call when it logs in or out, joins or leaves.

    The cookie is set anew with the response; the caller then changes the returned session.
    """
    fresh = store().renew(sess)
    session["sid"] = fresh.sid
    session.permanent = True
    g.panel_session = fresh
    return fresh


def current_session(create: bool = True) -> PanelSession | None:
    """This request's session; a new one is made (and its id set in the cookie) if asked."""
    if g.get("panel_session") is not None or ("panel_session" in g and not create):
        return g.panel_session
    sess = store().get(session.get("sid"))
    if sess is None and create:
        sess = store().create()
        session["sid"] = sess.sid
        session.permanent = True
    g.panel_session = sess
    return sess


def csrf_token() -> str:
    sess = current_session()
    assert sess is not None
    return sess.csrf


def check_csrf() -> None:
    """Abort with 403 unless the request carries this session's CSRF token."""
    sess = current_session(create=False)
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
    if sess is None or not same_secret(sent, sess.csrf):
        abort(403, description="missing or wrong CSRF token: reload the page and try again")


def control_token(table: str) -> str | None:
    """The token this session may sign ``table``'s commands with, or ``None`` (read-only)."""
    sess = current_session(create=False)
    if sess is None:
        return None
    typed = sess.tokens.get(table)
    configured = current_app.extensions["gravekeeper_settings"].token_for(table)
    if typed is not None and configured is not None and not same_secret(typed, configured):
        return None  # a login kept from before the token was replaced (``--new-token``) no longer counts
    return typed


def holds_place(table: str, game_id: str | None) -> bool:
    """Whether this session has a place at ``table`` that the panel checked itself: logged in with the
    token the panel holds for it, or joined a seat of its current game (``game_id``) with a code made
    from that token. A token typed on a panel that holds none is not checked here, so it counts for nothing.
    """
    sess = current_session(create=False)
    if sess is None:
        return False
    return checked_login(sess, table, current_app.extensions["gravekeeper_settings"]) or \
        joined_seat(table, game_id) is not None


def checked_login(sess: PanelSession, table: str, settings: PanelSettings) -> bool:
    """Whether ``sess`` logged in at ``table`` with the token the panel holds for it. A token typed on a
    panel that holds none is kept (the table refuses it if wrong) but cannot be checked here."""
    typed = sess.tokens.get(table)
    configured = settings.token_for(table)
    return configured is not None and typed is not None and same_secret(typed, configured)


def joined_seat(table: str, game_id: str | None) -> int | None:
    """The seat this session joined on ``table``, if it is a seat of the current game."""
    sess = current_session(create=False)
    if sess is None or game_id is None:
        return None
    seat = sess.seats.get(table)
    if seat is None or seat.game_id != game_id:
        return None
    return seat.seat
