"""The referee's refusal, in a module both the core and the game master's decisions import.

``core`` calls ``gm`` for the game master's inputs and both refuse with :class:`Refused`: kept
here, neither imports the other to name it.
"""

from __future__ import annotations

from gravekeeper.errors import GravekeeperError

__all__ = ["Refused"]


class Refused(GravekeeperError, ValueError):
    """A command the referee will not take now; the message says why. Nothing changed."""
