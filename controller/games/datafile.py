"""Reading an owner's data file (board, cards, tiles): one place that says what is wrong with it.

A data file's path can come from the config or from a ``new_game`` command's
options, so it may name anything on the controller's disk. Only a regular file
of a sane size is read: a FIFO would block the referee for good, and
``/dev/zero`` would fill the memory.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import BadGameData

MAX_DATA_FILE_BYTES = 1 << 20  # the default boards and decks are a few KiB


def read_bytes(path: Path, what: str) -> bytes:
    """The bytes of ``path``; :class:`BadGameData` names ``what`` and the file if it cannot be read."""
    try:
        # Opened without blocking and checked on the descriptor: a FIFO put in the file's place
        # between a stat and an open would otherwise block the open itself.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise BadGameData(f"{what} {str(path)!r} cannot be read: it is not a regular file")
            if info.st_size > MAX_DATA_FILE_BYTES:
                raise BadGameData(f"{what} {str(path)!r} cannot be read: it is larger than "
                                  f"{MAX_DATA_FILE_BYTES // 1024} KiB")
            with os.fdopen(os.dup(fd), "rb") as f:
                raw = f.read(MAX_DATA_FILE_BYTES + 1)  # it may have grown since the fstat
        finally:
            os.close(fd)
    except OSError as exc:
        reason = exc.strerror or exc
        raise BadGameData(f"{what} {str(path)!r} cannot be read: {reason}") from None
    if len(raw) > MAX_DATA_FILE_BYTES:
        raise BadGameData(f"{what} {str(path)!r} cannot be read: it is larger than "
                          f"{MAX_DATA_FILE_BYTES // 1024} KiB")
    return raw


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of ``path``, checked as :func:`read_bytes` does."""
    try:
        return read_bytes(path, what).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadGameData(f"{what} {str(path)!r} cannot be read: {exc}") from None


def parse_json(text: str | bytes, what: str, path: Path | str) -> Any:
    """``text`` (read from ``path``) parsed; :class:`BadGameData` names ``what`` and the file if it cannot be.

    JSON nested deeper than Python's recursion limit raises RecursionError, not
    ValueError: a file of 100,000 ``[`` must still be a plain answer that names it.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise BadGameData(f"{what} {str(path)!r} is not valid JSON: it is nested too deeply") from None
    except ValueError as exc:
        raise BadGameData(f"{what} {str(path)!r} is not valid JSON: {exc}") from None


def read_json(path: Path, what: str) -> Any:
    """The parsed JSON of ``path``; :class:`BadGameData` names ``what`` and the file if it cannot be."""
    return parse_json(read_text(path, what), what, path)
