"""The automatic hardware checks: each returns :class:`CheckResult` s with one line for people.

They read a started :class:`~hardware.hub.SensorHub` through its public
``snapshot()`` and ``health()`` only, so the same checks run in the CLI (on a
hub of their own) and inside the running service (on its hub).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from hardware.config import HardwareConfig, InputSpec
from hardware.observation import Observation
from hardware.selftest.faults import input_specs
from hardware.selftest.report import CheckResult, Status
from hardware.words import capital, part, reading, switch

# Binary sensors' value on a board at rest (tombs may rest at any position).
REST_VALUES = {"peg": "in", "sprung": "cocked", "launcher": "armed", "chute": "clear"}
CHATTER_EDGES = 8  # this many edges on an untouched input within the quiet window is chatter


class Probe:
    """Collects a hub's observations (thread-safe) and reads its per-input counters."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.hub: Any = None
        self.clock = clock
        self._cond = threading.Condition()
        self._items: list[tuple[Observation, float]] = []

    def observe(self, obs: Observation) -> None:
        with self._cond:
            self._items.append((obs, self.clock()))
            self._cond.notify_all()

    def mark(self) -> int:
        with self._cond:
            return len(self._items)

    def since(self, mark: int) -> list[tuple[Observation, float]]:
        """Observations and when they reached us, from ``mark`` on.

        Fresh readings count too: after a reconnect the hub reports what
        moved meanwhile as a reading.
        """
        with self._cond:
            return list(self._items[mark:])

    def wait(self, pred: Callable[[list[tuple[Observation, float]]], bool], timeout: float, *,
             mark: int = 0, cancel: threading.Event | None = None) -> bool:
        """Wait until ``pred(observations since mark)`` holds; False on timeout or once ``cancel`` is set."""
        deadline = self.clock() + timeout
        with self._cond:
            while True:
                if pred(self._items[mark:]):
                    return True
                left = deadline - self.clock()
                if left <= 0 or (cancel is not None and cancel.is_set()):
                    return False
                # Short waits so that a skip (cancel) is noticed promptly.
                self._cond.wait(min(left, 0.05))

    def inputs(self) -> dict[str, dict[str, Any]]:
        """Per input label: wire, closed, edges, changes, bounces (from ``hub.health()``)."""
        out: dict[str, dict[str, Any]] = {}
        for sid, sensor in self.hub.health().get("sensors", {}).items():
            for role, data in sensor.get("inputs", {}).items():
                out[sid if role == "input" else f"{sid}.{role}"] = dict(data)
        return out


def _level(spec: InputSpec, closed: bool) -> str:
    return "high" if closed == spec.active_high else "low"


def check_channels(config: HardwareConfig, probe: Probe) -> list[CheckResult]:
    """Every configured input has been read (an MCU input needs the MCU's snapshot)."""
    inputs = probe.inputs()
    out = []
    for sensor in config.sensors:
        unread = [(label, data.get("wire")) for label, data in inputs.items()
                  if (label == sensor.id or label.startswith(f"{sensor.id}.")) and data.get("closed") is None]
        if unread:
            # The ids stay in the data for scripts; the message names the parts.
            named = ", ".join(f"{part(label)} ({wire})" for label, wire in unread)
            out.append(CheckResult(f"channel.{sensor.id}", "channels", Status.FAIL, f"cannot read {named}",
                                   {"unread": [f"{label} ({wire})" for label, wire in unread]}))
        else:
            wires = ", ".join(spec.describe() for _, spec in sensor.inputs)
            out.append(CheckResult(f"channel.{sensor.id}", "channels", Status.PASS,
                                   f"{capital(part(sensor.id))}: read on {wires}"))
    return out


def check_wiring(config: HardwareConfig, probe: Probe) -> list[CheckResult]:
    """Pulls and active levels that hide a cut wire, and parts not at rest."""
    out = []
    for label, spec in input_specs(config).items():
        if spec.source != "gpio":
            continue
        if spec.pull == "none":
            out.append(CheckResult(f"wiring.{label}", "wiring", Status.WARN,
                                   f"{capital(part(label))} ({spec.describe()}) has no pull resistor: "
                                   "it floats unless the board has its own"))
        elif (spec.pull == "up") == spec.active_high:
            hidden = "high" if spec.pull == "up" else "low"
            out.append(CheckResult(f"wiring.{label}", "wiring", Status.WARN,
                                   f"{capital(part(label))} ({spec.describe()}) pulls {spec.pull} "
                                   f"and is active {hidden}: a cut wire would read as closed and hide the fault "
                                   "(use the pull's opposite level as active)"))
    if not out:
        out.append(CheckResult("wiring.pulls", "wiring", Status.PASS,
                               "every GPIO input's pull makes a cut wire read as open"))
    snapshot = probe.hub.snapshot()
    inputs = probe.inputs()
    for sensor in config.sensors:
        state = snapshot.get(sensor.id)
        if state is None:
            continue
        rest = REST_VALUES.get(sensor.kind)
        if sensor.kind == "tomb" and state.value == "moving":
            out.append(CheckResult(f"idle.{sensor.id}", "idle", Status.WARN,
                                   f"{capital(part(sensor.id))} reads no position: "
                                   "slide it to a stop, or check its wires"))
        elif rest is not None and state.value != rest:
            levels = ", ".join(f"{spec.describe()} is {_level(spec, bool(inputs.get(sensor.id, {}).get('closed')))}"
                               for _, spec in sensor.inputs)
            out.append(CheckResult(f"idle.{sensor.id}", "idle", Status.WARN,
                                   f"{capital(part(sensor.id))} reads {reading(state.value)} at rest "
                                   f"(expected {reading(rest)}; {levels}): "
                                   "put the part back, else the wire may be cut or stuck", {"value": state.value}))
    if not any(c.group == "idle" for c in out):
        out.append(CheckResult("idle.board", "idle", Status.PASS, "every part reads as on a board ready to play"))
    return out


def check_impossible(config: HardwareConfig, probe: Probe) -> list[CheckResult]:
    """Readings no real board can give: two tomb positions, a sprung trap with both pegs in."""
    snapshot = probe.hub.snapshot()
    inputs = probe.inputs()
    out = []
    for sensor in config.sensors:
        state = snapshot.get(sensor.id)
        if sensor.kind == "tomb" and state is not None and state.value == "fault":
            closed = [f"{role} ({spec.describe()})" for role, spec in sensor.inputs
                      if inputs.get(f"{sensor.id}.{role}", {}).get("closed")]
            named = " and ".join(f"its {switch(role)} ({spec.describe()})" for role, spec in sensor.inputs
                                 if inputs.get(f"{sensor.id}.{role}", {}).get("closed"))
            out.append(CheckResult(f"impossible.{sensor.id}", "impossible", Status.FAIL,
                                   f"{capital(part(sensor.id))} is at two positions at once ({named} are closed): "
                                   "a reed stuck closed, a wire shorted to ground, or two wires crossed",
                                   {"closed": closed}))
    traps = sorted({s.id.split(".")[1] for s in config.sensors if s.id.startswith("trap.")})
    for trap in traps:
        values = {part: snapshot[f"trap.{trap}.{part}"].value for part in ("peg_a", "peg_b", "sprung")
                  if f"trap.{trap}.{part}" in snapshot}
        if values == {"peg_a": "in", "peg_b": "in", "sprung": "sprung"}:
            out.append(CheckResult(f"impossible.trap.{trap}", "impossible", Status.FAIL,
                                   f"{capital(part(f'trap.{trap}'))} reads sprung with both pegs in: "
                                   "check its spring switch "
                                   f"({config.sensor(f'trap.{trap}.sprung').inputs[0][1].describe()}) and the pegs"))
    if not out:
        out.append(CheckResult("impossible.none", "impossible", Status.PASS, "no impossible reading"))
    return out


def quiet_counts(probe: Probe, before: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[int, int]]:
    """Per input: (edges, settled changes) since ``before`` (a :meth:`Probe.inputs` result)."""
    now = probe.inputs()
    out = {}
    for label, data in now.items():
        old = before.get(label, {})
        out[label] = (int(data.get("edges", 0)) - int(old.get("edges", 0)),
                      int(data.get("changes", 0)) - int(old.get("changes", 0)))
    return out


def check_noise(config: HardwareConfig, counts: Mapping[str, tuple[int, int]], window: float) -> list[CheckResult]:
    """Edges on inputs nobody touched during the quiet window: chatter, or a stray touch."""
    specs = input_specs(config)
    out = []
    for label, (edges, changes) in counts.items():
        if edges <= 0 or label not in specs:
            continue
        wire = specs[label].describe()
        if edges >= CHATTER_EDGES:
            out.append(CheckResult(f"noise.{label}", "noise", Status.FAIL,
                                   f"{capital(part(label))} ({wire}) chatters: {edges} edges in {window:.1f} s "
                                   f"and {changes} settled change(s) while nobody touched it: "
                                   "a loose contact, a bad joint or noise",
                                   {"edges": edges, "changes": changes, "window_s": window}))
        else:
            out.append(CheckResult(f"noise.{label}", "noise", Status.WARN,
                                   f"{capital(part(label))} ({wire}) moved {edges} time(s) "
                                   "while the board should be still (a touch, or the start of a loose contact)",
                                   {"edges": edges, "changes": changes}))
    if not out:
        out.append(CheckResult("noise.quiet", "noise", Status.PASS,
                               f"no input moved during a {window:.1f} s quiet window"))
    return out
