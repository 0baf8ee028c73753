"""The generated control token, kept beside the journal so that join codes survive a restart.

When the config sets no ``table.token``, the first ``gravekeeper run`` makes a
random one and writes it to ``<journal>.token`` (``t1.journal`` ->
``t1.token``), mode 0600 in a folder that only its owner can list when the
folder is new. Every later start reads it back: the join codes, which are
derived from the token, the table, the game and the seat, stay the same
across restarts. ``gravekeeper run --new-token`` replaces it on purpose,
which ends every join code and referee login.

The panel's own state (its cookie key and sessions) goes in the folder
:func:`panel_state_dir` names, beside the journal as well.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from gravekeeper.errors import GravekeeperError

TOKEN_BYTES = 18  # 24 URL-safe characters: out of reach of guessing, short enough to type


class TokenFileError(GravekeeperError, ValueError):
    """The token file cannot be read or written; the message names the file and why."""


def _beside(journal: str, suffix: str) -> Path:
    path = Path(journal)
    kept = path.with_suffix(suffix)
    return kept if kept != path else path.with_name(path.name + suffix)


def token_path(journal: str) -> Path:
    """Where the generated token of the table journaled at ``journal`` is kept."""
    return _beside(journal, ".token")


def panel_state_dir(journal: str) -> Path:
    """Where ``gravekeeper run``'s panel keeps its cookie key and sessions."""
    return _beside(journal, ".panel")


def read_token(path: Path) -> str | None:
    """The kept token, or ``None`` when there is none yet."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"journal.path: cannot read the token kept beside the journal, {path}: {exc} "
                             "(or set table.token)") from None
    return text or None


def make_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def write_token(path: Path, token: str) -> None:
    """Write ``token`` whole, mode 0600 (a crash leaves the old file or the new one)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as exc:
        # The place is the journal's (the token goes beside it): that is the key to change.
        raise TokenFileError(f"journal.path: cannot keep the generated token beside the journal, in {path}: "
                             f"{exc.strerror or exc} (or set table.token)") from None
