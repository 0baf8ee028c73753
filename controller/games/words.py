"""Plain words shared by the data loaders' refusals, which the board editor shows to people."""

from __future__ import annotations


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0, "th")
    return f"{n}{suffix}"


def cap(text: str) -> str:
    """The sentence with its first letter upper case, the rest as written (str.capitalize lowers "Mummy")."""
    return text[:1].upper() + text[1:]
