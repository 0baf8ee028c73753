"""Injectable faults for the simulated board (``gravekeeper selftest --simulate --fault KIND:TARGET``).

A fault is given as ``KIND:TARGET``:

==============================  ===============================================
``stuck_high:<input>``          the input's wire is held at the high level
``stuck_low:<input>``           the input's wire is held at the low level
``chatter:<input>``             the input's contact chatters without ever settling
``crossed:<input>,<input>``     the two inputs' wires are swapped
``mcu:dead``                    the serial port is there, nothing answers on it
``serial:corrupt``              the serial line damages one frame in three
``broker:down``                 nothing listens where the broker should be
==============================  ===============================================

``<input>`` is an input label: a sensor id (``trap.ladder.peg_a``,
``launcher``) or, for a tomb, the sensor id and a position
(``tomb.wolf.end_a``). Parsing is pure and checked against the hardware
config, so a typo is a clear error (exit status 2), never a silently clean run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gravekeeper.errors import GravekeeperError
from hardware.config import HardwareConfig, InputSpec

PIN_FAULTS = ("stuck_high", "stuck_low", "chatter")
FIXED_TARGETS = {"mcu": ("dead",), "serial": ("corrupt",), "broker": ("down",)}
KINDS = (*PIN_FAULTS, "crossed", *FIXED_TARGETS)


class FaultError(GravekeeperError, ValueError):
    """A ``--fault`` value that names an unknown kind or input, or cannot apply to this config."""


@dataclass(frozen=True)
class Fault:
    kind: str
    targets: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"{self.kind}:{','.join(self.targets)}"


def input_specs(config: HardwareConfig) -> dict[str, InputSpec]:
    """Every configured input by label (``trap.ladder.peg_a``, ``tomb.wolf.end_a``)."""
    out: dict[str, InputSpec] = {}
    for sensor in config.sensors:
        for role, spec in sensor.inputs:
            out[sensor.id if role == "input" else f"{sensor.id}.{role}"] = spec
    return out


def parse_fault(text: str, config: HardwareConfig) -> Fault:
    """One ``KIND:TARGET``; :class:`FaultError` names what is wrong with it."""
    if not isinstance(text, str) or ":" not in text:
        raise FaultError(f"--fault {text!r}: expected KIND:TARGET (kinds: {', '.join(KINDS)})")
    kind, _, target = text.partition(":")
    kind, target = kind.strip(), target.strip()
    if kind not in KINDS:
        raise FaultError(f"--fault {text!r}: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    if kind in FIXED_TARGETS:
        if target not in FIXED_TARGETS[kind]:
            raise FaultError(f"--fault {text!r}: the target of {kind} is {' or '.join(FIXED_TARGETS[kind])}")
        if kind in ("mcu", "serial") and config.mcu is None:
            raise FaultError(f"--fault {text!r}: the config has no MCU (hardware.mcu), so there is no serial line")
        return Fault(kind, (target,))
    labels = [t.strip() for t in target.split(",")]
    wanted = 2 if kind == "crossed" else 1
    if len(labels) != wanted or not all(labels):
        shape = "two inputs, INPUT,INPUT" if wanted == 2 else "one input"
        raise FaultError(f"--fault {text!r}: {kind} takes {shape}")
    known = input_specs(config)
    for label in labels:
        if label not in known:
            raise FaultError(f"--fault {text!r}: {label!r} is not a configured input "
                             f"(e.g. {', '.join(list(known)[:3])})")
    if kind == "crossed":
        a, b = (known[label] for label in labels)
        if labels[0] == labels[1]:
            raise FaultError(f"--fault {text!r}: an input cannot be crossed with itself")
        if a.source != b.source:
            raise FaultError(f"--fault {text!r}: a GPIO wire cannot be crossed with an MCU channel")
    return Fault(kind, tuple(labels))


def parse_faults(texts: Iterable[str], config: HardwareConfig) -> list[Fault]:
    faults = [parse_fault(t, config) for t in texts]
    seen: dict[str, str] = {}
    for fault in faults:
        if fault.kind in PIN_FAULTS or fault.kind == "crossed":
            for label in fault.targets:
                if label in seen:
                    raise FaultError(f"--fault {fault.text}: {label} already has the fault {seen[label]}")
                seen[label] = fault.text
    return faults


def has(faults: Sequence[Fault], kind: str) -> bool:
    return any(f.kind == kind for f in faults)
