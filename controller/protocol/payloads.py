"""What a command's payload may carry, checked the same way by the panel and by the table.

The panel refuses a form the table would refuse, before it is sent; both sides call these.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from hardware.observation import sensor_values

__all__ = ["check_players", "sensor_values"]


def check_players(v: Any) -> str | None:
    """The complaint about a list of seat names, or None; also used for the new_game command."""
    if not isinstance(v, (list, tuple)) or not v:
        return "must be a list of player names"
    if not all(isinstance(p, str) and p.strip() and len(p) <= 40 for p in v):
        return "must be a list of non-empty names of at most 40 characters"
    if any(unicodedata.category(ch) == "Cc" for p in v for ch in p):  # emoji joiners are fine
        return "must be names without control characters (tabs, new lines)"
    if len({p.strip().casefold() for p in v}) != len(v):
        return "must not repeat a name (two players have the same name)"
    return None
