"""Reading an owner's data file (board, tiles): one place that says what is wrong with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .base import BadGameData


def read_json(path: Path, what: str) -> Any:
    """The parsed JSON of ``path``; :class:`BadGameData` names ``what`` and the file if it cannot be."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise BadGameData(f"{what} {str(path)!r} cannot be read: {reason}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadGameData(f"{what} {str(path)!r} is not valid JSON: {exc}") from None
