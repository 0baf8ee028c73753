"""The root of every error gravekeeper raises on purpose, in the way of gpiozero's ``exc.py``.

Every exception class of the product derives from :class:`GravekeeperError`, so a caller can
catch "anything gravekeeper refused" in one clause. Each also keeps the built-in base its
callers rely on (``ValueError`` for bad input, ``OSError`` for I/O, ``RuntimeError`` for a
state that cannot go on), as ``BadPinFactory(GPIOZeroError, ImportError)`` does.
"""

from __future__ import annotations

__all__ = ["GravekeeperError"]


class GravekeeperError(Exception):
    """Anything gravekeeper raises on purpose; the message says why, in words."""
