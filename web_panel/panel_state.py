"""What the panel keeps on disk so that a restart logs nobody out: its secret key and its sessions.

Both live in the panel's state folder (``PanelSettings.state_dir``; ``gravekeeper
run`` puts it beside the journal), the folder mode 0700 and each file 0600:
the sessions file holds the control tokens referees typed, so it is exactly
as secret as the token file beside it. Only sessions that hold a login or a
seat are written, and only when one of those changes (a login, a join, a
logout, leaving), so a poller without cookies costs no disk writes.

The browser's cookie is unchanged: a session id signed with the secret key.
With the key kept, a cookie from before the restart is still valid, and the
id finds its session in the file.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from gravekeeper.errors import GravekeeperError

from .auth import SESSION_IDLE_SECONDS, PanelSession, Seat, SessionStore

log = logging.getLogger(__name__)

SECRET_FILE = "secret_key"
SESSIONS_FILE = "sessions.json"


class PanelStateError(GravekeeperError, ValueError):
    """The state folder cannot be used; the message names the path and why."""


def state_folder(path: str) -> Path:
    """The folder, made (0700) if missing; ``PanelStateError`` if it cannot be."""
    folder = Path(path).expanduser()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise PanelStateError(f"state_dir {str(folder)!r}: cannot create it ({exc.strerror})") from None
    if not folder.is_dir():
        raise PanelStateError(f"state_dir {str(folder)!r} is not a folder")
    return folder


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (a crash leaves the old file or the new one), mode 0600."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)  # a umask cannot widen it, but an old file of that name might have been
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def secret_key(folder: Path) -> str:
    """The key that signs session cookies: made once, then read at every start."""
    path = folder / SECRET_FILE
    try:
        key = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = ""
    except OSError as exc:
        raise PanelStateError(f"state_dir: cannot read {path} ({exc.strerror})") from None
    if len(key) < 32:  # missing, or cut short: a short key would make cookies guessable
        key = secrets.token_hex(32)
        try:
            write_private(path, key + "\n")
        except OSError as exc:
            raise PanelStateError(f"state_dir: cannot write {path} ({exc.strerror})") from None
    return key


class FileSessionStore(SessionStore):
    """Sessions in memory, those holding a login or a seat also in ``sessions.json``."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self._path = folder / SESSIONS_FILE
        self._save_lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError, RecursionError) as exc:  # RecursionError: nested past the parser's limit
            # A damaged file costs the logins, never the panel: people log in and join again.
            log.warning("panel sessions not restored from %s: %s", self._path, exc)
            return
        now_wall, now = time.time(), time.monotonic()
        for item in data.get("sessions", []) if isinstance(data, dict) else []:
            sess = _session_from(item, now_wall, now)
            if sess is not None:
                self._sessions[sess.sid] = sess

    def changed(self, sess: PanelSession) -> None:
        with self._save_lock:
            with self._lock:
                now_wall, now = time.time(), time.monotonic()
                kept = [_session_to(s, now_wall, now) for s in self._sessions.values()
                        if (s.tokens or s.seats) and now - s.last_used <= SESSION_IDLE_SECONDS]
            try:
                write_private(self._path, json.dumps({"version": 1, "sessions": kept}))
            except OSError as exc:
                log.warning("panel sessions not saved to %s: %s", self._path, exc)


def _session_to(sess: PanelSession, now_wall: float, now: float) -> dict[str, Any]:
    return {
        "sid": sess.sid, "csrf": sess.csrf, "tokens": dict(sess.tokens),
        "seats": {t: [s.game_id, s.seat] for t, s in sess.seats.items()},
        "last_used": now_wall - (now - sess.last_used),  # wall clock: the monotonic one restarts
    }


def _session_from(item: Any, now_wall: float, now: float) -> PanelSession | None:
    """A session read back, or ``None`` for one malformed or idle too long."""
    try:
        sid, csrf, last = item["sid"], item["csrf"], float(item["last_used"])
        tokens = {str(t): str(v) for t, v in dict(item["tokens"]).items()}
        seats = {str(t): Seat(game_id=str(g), seat=int(n)) for t, (g, n) in dict(item["seats"]).items()}
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(sid, str) or not isinstance(csrf, str) or len(sid) < 16 or len(csrf) < 16:
        return None
    idle = max(0.0, now_wall - last)
    if idle > SESSION_IDLE_SECONDS:
        return None
    return PanelSession(sid=sid, csrf=csrf, tokens=tokens, seats=seats, last_used=now - idle)
