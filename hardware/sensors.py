"""Logical sensors: what a set of closed/open inputs means, and the state we publish.

Every input is read as "closed" (its active level) or "open". By kind:

=========  ===========================================  ==================
kind       closed means                                  values
=========  ===========================================  ==================
tomb       the tomb's magnet is at that position        one closed: its position;
                                                         none: ``moving``; two or
                                                         three: ``fault``
peg        the peg is in its hole                        ``in`` / ``pulled``
sprung     the cocked lid presses the switch             ``cocked`` / ``sprung``
launcher   the ghost sits on the launcher                ``armed`` / ``launched``
chute      the beam reaches its receiver                 ``clear`` / ``blocked``
=========  ===========================================  ==================

Open is the fail-visible side: a cut wire reads as a pulled peg, a sprung
trap, a launched ghost or a blocked beam, which the referee then questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.observation import TOMB_POSITIONS, sensor_values

_ALL_VALUES = frozenset(
    v
    for s in ("tomb.wolf", "trap.ladder.peg_a", "trap.ladder.sprung", "launcher", "chute.left")
    for v in sensor_values(s)
)

# kind -> (value when closed, value when open)
BINARY_VALUES: dict[str, tuple[str, str]] = {
    "peg": ("in", "pulled"),
    "sprung": ("cocked", "sprung"),
    "launcher": ("armed", "launched"),
    "chute": ("clear", "blocked"),
}


def tomb_value(closed: Mapping[str, bool]) -> str:
    """The tomb's position from its three inputs (role -> closed)."""
    active = [role for role in TOMB_POSITIONS if closed.get(role, False)]
    if not active:
        return "moving"
    if len(active) > 1:
        return "fault"
    return active[0]


def sensor_value(kind: str, closed: Mapping[str, bool]) -> str:
    if kind == "tomb":
        return tomb_value(closed)
    on, off = BINARY_VALUES[kind]
    return on if closed["input"] else off


def closed_for(kind: str, value: str, roles: Sequence[str], current: Mapping[str, bool]) -> dict[str, bool]:
    """Input states that make a sensor read ``value`` (used by the simulator).

    A tomb ``fault`` closes the middle and one end, as a magnet stuck between
    two reeds would; ``ValueError`` for a value the kind cannot take.
    """
    if kind == "tomb":
        if value in TOMB_POSITIONS:
            return {role: role == value for role in roles}
        if value == "moving":
            return {role: False for role in roles}
        if value == "fault":
            end = "end_b" if current.get("end_b") else "end_a"
            return {role: role in ("middle", end) for role in roles}
        raise ValueError(f"a tomb cannot be {value!r} (one of {', '.join((*TOMB_POSITIONS, 'moving', 'fault'))})")
    on, off = BINARY_VALUES[kind]
    if value not in (on, off):
        raise ValueError(f"a {kind} sensor cannot be {value!r} (one of {on}, {off})")
    return {"input": value == on}


@dataclass(frozen=True)
class SensorState:
    """What ``snapshot()`` reports for one logical sensor.

    ``changed`` is when the value last settled on something new, ``seen`` when
    it was last confirmed (a change, the start-up read or a reconnect
    snapshot); both are ``time.monotonic()`` seconds. ``online`` is false
    while the sensor's source (the MCU) is unreachable: the value is then the
    last one known.
    """

    value: str
    changed: float
    seen: float
    source: str
    online: bool = True

    def __post_init__(self) -> None:
        if self.value not in _ALL_VALUES:
            raise ValueError(f"{self.value!r} is not a sensor value")

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "changed": round(self.changed, 6),
            "seen": round(self.seen, 6),
            "source": self.source,
            "online": self.online,
        }


