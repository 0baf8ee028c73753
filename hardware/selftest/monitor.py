"""Live health during games: chatter, flapping, stuck and offline sensors (pure logic).

Fed every second or so with the hub's ``health()["sensors"]`` (per-input edge
and change counters, value, online) and what the game says the board shows
(``Game.expected_board()``) and waits for (the sensors of ``Game.expects()``).
It keeps short histories and reports *findings*:

* ``chatter`` (warning): an input made ``chatter_edges`` or more raw edges
  within ``window_s`` with (next to) no settled change, at most one per ten
  edges: a loose contact or noise.
* ``flapping`` (warning): a sensor settled ``flap_changes`` or more times
  within ``window_s``: it keeps changing back and forth.
* ``stuck`` (warning): the game says a part moved (its expected value
  changed), the sensor still reads otherwise, and not one edge came from its
  inputs for ``stuck_after_s``.
* ``offline`` (failure once it lasts ``fail_after_s``): a sensor the game
  needs cannot be read (its MCU is offline).
* ``chatter`` becomes a failure when it lasts ``fail_after_s`` on a sensor
  the game is waiting for: no move of that part can ever settle.

A warning never stops a game; a failure means refereeing is impossible, and
the service holds play with the finding's guidance until it clears.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hardware.words import capital, part, reading

WARNING = "warning"
FAILURE = "failure"


@dataclass(frozen=True)
class Finding:
    level: str
    code: str
    sensor: str
    message: str
    guidance: str
    since: float

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.level, self.code, self.sensor)

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "code": self.code, "sensor": self.sensor, "message": self.message,
                "guidance": self.guidance, "since": round(self.since, 3)}


@dataclass
class _Input:
    samples: deque[tuple[float, int, int]] = field(default_factory=deque)  # (time, edges, changes)
    chatter_since: float | None = None


@dataclass
class _Sensor:
    changes: deque[float] = field(default_factory=deque)
    last_change: float | None = None
    last_seen: float | None = None
    value: str | None = None
    observations: int = 0
    expected: str | None = None
    expected_at: float = 0.0
    expected_edges: int = 0
    expected_known: bool = False
    moved_by_game: bool = False  # the expected value changed while we watched (not just at start)
    offline_since: float | None = None


class HealthMonitor:
    def __init__(self, *, window_s: float = 2.0, chatter_edges: int = 12, flap_changes: int = 6,
                 stuck_after_s: float = 5.0, fail_after_s: float = 5.0) -> None:
        if window_s <= 0 or stuck_after_s <= 0 or fail_after_s < 0 or chatter_edges < 2 or flap_changes < 2:
            raise ValueError("monitor thresholds must be positive (chatter_edges and flap_changes at least 2)")
        self.window_s = window_s
        self.chatter_edges = chatter_edges
        self.flap_changes = flap_changes
        self.stuck_after_s = stuck_after_s
        self.fail_after_s = fail_after_s
        self._inputs: dict[str, _Input] = {}
        self._sensors: dict[str, _Sensor] = {}
        self._active: dict[tuple[str, str, str], Finding] = {}

    # -- feeding --------------------------------------------------------------
    def update(self, now: float, sensors: Mapping[str, Mapping[str, Any]], *,
               expected: Mapping[str, str] | None = None, waiting: Iterable[str] = ()) -> list[Finding]:
        """Take a health reading; returns the findings that are new since the last call."""
        expected = expected or {}
        waiting = set(waiting)
        found: dict[tuple[str, str, str], Finding] = {}
        for sid, data in sensors.items():
            sensor = self._sensors.setdefault(sid, _Sensor())
            value = data.get("value")
            online = bool(data.get("online", True)) and value is not None
            observations = int(data.get("observations", 0))
            if observations != sensor.observations or value != sensor.value:
                if sensor.value is not None and value != sensor.value:
                    sensor.last_change = now
                    sensor.changes.append(now)
                sensor.observations, sensor.value = observations, value
            if online:
                sensor.last_seen = now
            while sensor.changes and sensor.changes[0] < now - self.window_s:
                sensor.changes.popleft()
            total_edges = 0
            chattering = []
            for role, counters in (data.get("inputs") or {}).items():
                label = sid if role == "input" else f"{sid}.{role}"
                edges, changes = int(counters.get("edges", 0)), int(counters.get("changes", 0))
                total_edges += edges
                inp = self._inputs.setdefault(label, _Input())
                inp.samples.append((now, edges, changes))
                while len(inp.samples) > 1 and inp.samples[1][0] <= now - self.window_s:
                    inp.samples.popleft()
                t0, e0, c0 = inp.samples[0]
                # "No settled change" allows one in ten: a loaded machine can stall a burst long enough to settle.
                if edges - e0 >= self.chatter_edges and (changes - c0) * 10 <= edges - e0:
                    inp.chatter_since = inp.chatter_since if inp.chatter_since is not None else t0
                    chattering.append((label, edges - e0, str(counters.get("wire", "?"))))
                elif edges == e0:
                    inp.chatter_since = None
            for label, n, wire in chattering:
                began = self._inputs[label].chatter_since
                since = now if began is None else began
                level = FAILURE if sid in waiting and now - since >= self.fail_after_s else WARNING
                self._add(found, Finding(level, "chatter", sid,
                                         f"{capital(part(label))} ({wire}) chatters: "
                                         f"{n} edges in {self.window_s:g} s, no settled change",
                                         f"check the contact and the solder joints of {part(label)} ({wire})",
                                         since))
            if len(sensor.changes) >= self.flap_changes:
                self._add(found, Finding(WARNING, "flapping", sid,
                                         f"{capital(part(sid))} changed {len(sensor.changes)} times "
                                         f"in {self.window_s:g} s",
                                         "check that the part is not loose or half-way", sensor.changes[0]))
            self._stuck(now, sid, sensor, value, expected.get(sid), total_edges, data, found)
            needed = sid in waiting or sid in expected
            if not online:
                sensor.offline_since = sensor.offline_since if sensor.offline_since is not None else now
                if needed:
                    late = now - sensor.offline_since >= self.fail_after_s
                    self._add(found, Finding(FAILURE if late else WARNING, "offline", sid,
                                             f"{capital(part(sid))} cannot be read: its source is offline",
                                             "check the MCU's power and its USB cable", sensor.offline_since))
            else:
                sensor.offline_since = None
        new = [f for k, f in found.items() if k not in self._active]
        self._active = found
        return new

    def _stuck(self, now: float, sid: str, sensor: _Sensor, value: Any, want: str | None, edges: int,
               data: Mapping[str, Any], found: dict[tuple[str, str, str], Finding]) -> None:
        if not sensor.expected_known or want != sensor.expected:
            sensor.moved_by_game = sensor.expected_known
            sensor.expected_known = True
            sensor.expected, sensor.expected_at, sensor.expected_edges = want, now, edges
        if want is None or value is None or value == want or not sensor.moved_by_game:
            return
        if edges != sensor.expected_edges:
            return  # the part is being moved: not stuck, perhaps only not there yet
        if now - sensor.expected_at >= self.stuck_after_s:
            wires = ", ".join(f"{v.get('wire', '?')}" for v in (data.get("inputs") or {}).values())
            self._add(found, Finding(WARNING, "stuck", sid,
                                     f"the game says {part(sid)} is now {reading(want)}, but its sensor still says "
                                     f"{reading(str(value))} and has not changed in {now - sensor.expected_at:.0f} s",
                                     f"put the part {reading(want)}; if it is there, check the sensor on {wires}",
                                     sensor.expected_at))

    @staticmethod
    def _add(found: dict[tuple[str, str, str], Finding], finding: Finding) -> None:
        found[finding.key] = finding

    # -- reading ---------------------------------------------------------------
    @property
    def active(self) -> list[Finding]:
        return list(self._active.values())

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self._active.values() if f.level == FAILURE]

    def sensors_json(self, sensors: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """Per sensor: last change, last seen (monitor clock), and edge and bounce counters summed over inputs."""
        out = {}
        for sid, data in sensors.items():
            s = self._sensors.get(sid, _Sensor())
            inputs = (data.get("inputs") or {}).values()
            out[sid] = {"last_change": s.last_change, "last_seen": s.last_seen,
                        "edges": sum(int(i.get("edges", 0)) for i in inputs),
                        "bounces": sum(int(i.get("bounces", 0)) for i in inputs)}
        return out
