"""A small seeded random-number generator whose whole state is one integer.

The rules engines keep it inside the game state, so that a seed plus the list of
accepted actions replays a game exactly and the state round-trips through JSON.
SplitMix64 is used because its state is a single 64-bit word and its output is
good enough for dice and shuffles.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from .errors import BadGameData

T = TypeVar("T")

_MASK = (1 << 64) - 1


class Rng:
    """SplitMix64; serialise with :meth:`to_json` (a hex string, safe for JavaScript)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = (_MASK + 1) - ((_MASK + 1) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``, both ends included (like a die)."""
        return low + self.below(high - low + 1)

    def die(self, sides: int = 6) -> int:
        return self.randint(1, sides)

    def choice(self, seq: Sequence[T]) -> T:
        if not seq:
            raise ValueError("choice() from an empty sequence")
        return seq[self.below(len(seq))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_json(self) -> str:
        return f"{self.state:016x}"

    @classmethod
    def from_json(cls, data: object) -> Rng:
        # A saved state that fails: BadGameData (a ValueError), as for every other part of a state.
        if not isinstance(data, str):
            raise BadGameData(f"rng state must be a hex string, got {type(data).__name__}")
        try:
            value = int(data, 16)
        except ValueError:
            raise BadGameData(f"rng state is not hexadecimal: {data!r}") from None
        rng = cls(0)
        rng.state = value & _MASK
        return rng

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    def __repr__(self) -> str:
        return f"Rng(state=0x{self.state:016x})"
