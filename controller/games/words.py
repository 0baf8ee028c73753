"""Plain words shared by the engines: the data loaders' refusals (which the board editor shows to
people), and places counted as players count them ("the third brick after the gate")."""

from __future__ import annotations

from collections.abc import Sequence

_ORD = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0, "th")
    return f"{n}{suffix}"


def ordinal_word(n: int) -> str:
    """first, second, ... tenth, then 11th, 12th, 21st: how a player counts spaces along a path."""
    return _ORD[n] if 0 <= n < len(_ORD) else ordinal(n)


def listed(items: Sequence[str], last: str = "and") -> str:
    """Items in one phrase as a person says them: "A", "A and B", "A, B and C" (``last="or"``: "A, B or C")."""
    items = list(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1] if len(items) > 1 else "".join(items)


def cap(text: str) -> str:
    """The sentence with its first letter upper case, the rest as written (str.capitalize lowers "Mummy")."""
    return text[:1].upper() + text[1:]
