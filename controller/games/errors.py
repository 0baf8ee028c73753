"""The games' refusals, in a module of their own.

``base`` (the shape of an engine) and ``owner_words`` (the checks of an owner's new file) both
raise them, and ``base`` calls ``owner_words``: with the errors here, neither imports the other
just to name an error. Each keeps ``ValueError`` as a base, because callers catch bad input so,
and :class:`~gravekeeper.errors.GravekeeperError`, the root of every refusal of the product.
"""

from __future__ import annotations

from typing import Any

from gravekeeper.errors import GravekeeperError

__all__ = ["BadGameData", "IllegalAction", "MalformedAction"]


class IllegalAction(GravekeeperError, ValueError):
    """The rules forbid this action now. The message says why; state is unchanged."""


class MalformedAction(IllegalAction):
    """The action is not even well-formed (bad JSON, missing or mistyped field)."""


class BadGameData(GravekeeperError, ValueError):
    """A data file (board, deck, tiles) or a saved state failed validation.

    The message names the bad entry, so an owner can fix their own file.
    ``at`` says where, for an editor that shows the reason beside the entry:
    ``{"cell": [row, col]}`` for a Terror board cell, ``{"tile": n, "square":
    [row, col]}`` for a dogs tile (``n`` from 0), ``{"entry": "..."}`` for a
    named entry such as a Superstition platform. ``None`` when the whole file
    is wrong.

    ``reason`` is the same problem in a person's words, for the board editor's
    status line and the note at the cell: no entry names, ids or
    coordinates (the outline in the editor shows where). The message keeps
    the entry's name, for logs, the terminal and whoever edits the file by
    hand. Without a reason, :attr:`plain` falls back to the message.
    """

    def __init__(self, message: str, at: dict[str, Any] | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.at = at
        self.reason = reason

    @property
    def plain(self) -> str:
        return self.reason or str(self)

    def __reduce__(self) -> tuple[type[BadGameData], tuple[str, dict[str, Any] | None, str | None]]:
        # Pickling (a process pool's worker sends the refusal back) must keep ``at`` and ``reason``.
        return (type(self), (str(self), self.at, self.reason))
