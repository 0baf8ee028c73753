"""What the hardware layer hands the referee: a settled, timestamped sensor value.

Logical sensor ids and their values are the product's vocabulary, shared by the
hardware layer, the engines' expectations, MQTT and the panel:

=========================  ===================================================
sensor id                  values
=========================  ===================================================
``tomb.<mummy|monster|wolf>``  ``end_a``, ``middle``, ``end_b`` (settled);
                           ``moving`` (no input active); ``fault`` (two active)
``trap.<ladder|mirror|grave1|grave2>.peg_a``  ``in``, ``pulled``
``trap.<...>.peg_b``       ``in``, ``pulled``
``trap.<...>.sprung``      ``cocked``, ``sprung``
``launcher``               ``armed`` (ghost on the launcher), ``launched``
``chute.<left|right>``     ``clear``, ``blocked`` (skull in the beam)
=========================  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass

TOMBS = ("mummy", "monster", "wolf")
TOMB_POSITIONS = ("end_a", "middle", "end_b")
TRAPS = ("ladder", "mirror", "grave1", "grave2")
CHUTES = ("left", "right")


def sensor_values(sensor: str) -> tuple[str, ...]:
    """The values a logical sensor may report; ``ValueError`` for an unknown id."""
    known = _VALUES.get(sensor)  # every observation asks: a look-up, not a parse
    return known if known is not None else _parse_values(sensor)


def _parse_values(sensor: str) -> tuple[str, ...]:
    parts = sensor.split(".")
    if parts[0] == "tomb" and len(parts) == 2 and parts[1] in TOMBS:
        return (*TOMB_POSITIONS, "moving", "fault")
    if parts[0] == "trap" and len(parts) == 3 and parts[1] in TRAPS:
        if parts[2] in ("peg_a", "peg_b"):
            return ("in", "pulled")
        if parts[2] == "sprung":
            return ("cocked", "sprung")
    if sensor == "launcher":
        return ("armed", "launched")
    if parts[0] == "chute" and len(parts) == 2 and parts[1] in CHUTES:
        return ("clear", "blocked")
    raise ValueError(f"unknown sensor id {sensor!r}")


ALL_SENSORS: tuple[str, ...] = (
    *(f"tomb.{t}" for t in TOMBS),
    *(f"trap.{t}.{p}" for t in TRAPS for p in ("peg_a", "peg_b", "sprung")),
    "launcher",
    *(f"chute.{c}" for c in CHUTES),
)
_VALUES: dict[str, tuple[str, ...]] = {sensor: _parse_values(sensor) for sensor in ALL_SENSORS}


@dataclass(frozen=True)
class Observation:
    """A logical sensor settled on a new value.

    ``first_edge`` and ``settled`` are ``time.monotonic()`` seconds: the first
    raw edge of the physical action and the moment the debouncer accepted it.
    ``source`` is ``gpio``, ``mcu`` or ``sim``. ``initial`` marks the reading
    taken at start-up or after a reconnect, which is not a change.
    """

    sensor: str
    value: str
    first_edge: float
    settled: float
    source: str
    initial: bool = False

    def __post_init__(self) -> None:
        allowed = sensor_values(self.sensor)
        if self.value not in allowed:
            raise ValueError(f"sensor {self.sensor!r} cannot be {self.value!r} (one of {', '.join(allowed)})")
