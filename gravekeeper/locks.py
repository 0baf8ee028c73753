"""Whether a lock comes free: the panel's heartbeat asks it of the locks its live pages and commands take."""

from __future__ import annotations

from typing import Protocol

__all__ = ["comes_free"]


class _Lock(Protocol):
    def acquire(self, blocking: bool = ..., timeout: float = ...) -> bool: ...

    def release(self) -> None: ...


def comes_free(lock: _Lock, timeout: float) -> bool:
    """Whether ``lock`` can be taken within ``timeout`` seconds (it is given back at once): a deadlock holds a
    lock for ever, a busy moment for a few milliseconds."""
    if not lock.acquire(timeout=timeout):
        return False
    lock.release()
    return True
