"""The hub's filtering engine: every input's debouncer, the tombs' settle stage, one timer heap.

It is single-threaded by design: only the hub's worker calls it (under the
hub's lock, so ``snapshot()`` and ``health()`` may read it from elsewhere).
It never calls out; what it decides is appended to an ``emitted`` list that
the worker delivers after releasing the lock.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from hardware.channels import GpioInput, McuClock, SimInput
from hardware.config import HardwareConfig, InputSpec, SensorSpec
from hardware.debounce import StableFilter
from hardware.observation import Observation
from hardware.sensors import SensorState, sensor_value
from hardware.words import capital, part

_LACKS = "the MCU's reading lacks"  # a problem the next full reading clears


@dataclass
class InputSlot:
    index: int
    sensor: SensorSlot
    role: str
    spec: InputSpec
    channel: GpioInput | SimInput | None = None  # None: an MCU channel
    filter: StableFilter[bool] | None = None  # None until first read

    @property
    def label(self) -> str:
        return self.sensor.spec.id if self.role == "input" else f"{self.sensor.spec.id}.{self.role}"

    @property
    def source(self) -> str:
        """``gpio`` (also on the simulator's mock pins), ``mcu``, or ``sim``."""
        return "sim" if isinstance(self.channel, SimInput) else self.spec.source


@dataclass
class SensorSlot:
    spec: SensorSpec
    inputs: list[InputSlot] = field(default_factory=list)
    settle: StableFilter[str] | None = None  # tombs only
    state: SensorState | None = None
    burst_start: float | None = None  # first raw edge since the last reported value
    last_source: str | None = None  # where the latest edge came from (a tomb may mix sources)
    observations: int = 0

    def closed(self) -> dict[str, bool]:
        return {i.role: bool(i.filter and i.filter.stable) for i in self.inputs}

    def ready(self) -> bool:
        return all(i.filter is not None for i in self.inputs)

    def idle(self) -> bool:
        return not any(i.filter and i.filter.pending for i in self.inputs) and not (
            self.settle and self.settle.pending
        )

    def uses_mcu(self) -> bool:
        return any(i.spec.source == "mcu" for i in self.inputs)


class Engine:
    def __init__(self, config: HardwareConfig) -> None:
        self.sensors: dict[str, SensorSlot] = {}
        self.inputs: list[InputSlot] = []
        self.by_channel: dict[int, InputSlot] = {}
        for spec in config.sensors:
            sensor = SensorSlot(spec)
            self.sensors[spec.id] = sensor
            for role, input_spec in spec.inputs:
                slot = InputSlot(len(self.inputs), sensor, role, input_spec)
                sensor.inputs.append(slot)
                self.inputs.append(slot)
                if input_spec.source == "mcu":
                    assert input_spec.channel is not None
                    self.by_channel[input_spec.channel] = slot
        self.output_channels = {o.name: o.channel for o in config.outputs
                                if o.source == "mcu" and o.channel is not None}
        self._heap: list[tuple[float, int, str, int]] = []
        self._seq = itertools.count()
        # MCU link state, as the listener reported it.
        self.link_state = "offline" if config.uses("mcu") else "absent"
        self.link_reason = ""
        self.hello: dict[str, Any] = {}
        self.problems: list[str] = []
        self.snapshots = 0
        self.unmapped_changes = 0
        self.ignored_changes = 0  # CHANGEs of a channel not read yet, or while the link is down
        self.first_snapshot = threading.Event()
        self._mcu_clock = McuClock()
        # True until the snapshot that follows a HELLO, an online or an offline:
        # only that one is a fresh reading. A snapshot fetched while the link
        # stayed up repairs a damaged frame and is fed through the debouncer.
        self._reading_due = True

    def next_deadline(self) -> float | None:
        """The earliest live deadline; entries superseded by a later edge are dropped here."""
        while self._heap:
            deadline, _, kind, index = self._heap[0]
            slot = self.inputs[index]
            live = slot.filter.deadline if kind == "input" and slot.filter else (
                slot.sensor.settle.deadline if kind == "settle" and slot.sensor.settle else None)
            if live == deadline:
                return deadline
            heapq.heappop(self._heap)
        return None

    # -- events ----------------------------------------------------------------
    def handle(self, kind: str, args: tuple[Any, ...], emitted: list[Observation]) -> bool:
        """Apply one queued event; True if the link's health changed."""
        if kind == "edge":
            index, closed, t = args
            # Replay in time order: a window that closed before this edge
            # happened is settled first, as if the worker had not lagged.
            self.fire_due(t, emitted)
            self._apply_edge(self.inputs[index], closed, t)
        elif kind == "init":
            readings, t = args
            for index, closed in readings.items():
                self.inputs[index].filter = StableFilter(closed, self.inputs[index].sensor.spec.window)
            for sensor in self.sensors.values():
                if sensor.ready():
                    self._report_reading(sensor, t, emitted)
        elif kind == "change":
            channel, level, mcu_us, received = args
            slot = self.by_channel.get(channel)
            if slot is None:
                self.unmapped_changes += 1
            elif slot.filter is not None and self.link_state == "online":
                t = self._mcu_clock.to_host(mcu_us, received)
                self.fire_due(t, emitted)
                self._apply_edge(slot, bool(level) == slot.spec.active_high, t)
            else:
                # Not read yet, or the link is down: the next snapshot covers it.
                self.ignored_changes += 1
        elif kind == "snapshot":
            levels, mcu_us, received = args
            if self._reading_due or self.link_state != "online":
                self._mcu_snapshot(levels, mcu_us, received, emitted)
            else:
                self._mcu_resync(levels, mcu_us, received, emitted)
            return True
        elif kind == "hello":
            self._reading_due = True
            self._mcu_hello(args[0])
            return True
        elif kind == "online":
            self._reading_due = True
            self.link_state, self.link_reason = "online", ""
            return True
        elif kind == "offline":
            self._reading_due = True
            self._mcu_offline(str(args[0]))
            return True
        return False

    def _apply_edge(self, slot: InputSlot, closed: bool, t: float) -> None:
        if slot.filter is None:
            return  # not read yet: the first reading will include this edge
        before = slot.filter.candidate
        deadline = slot.filter.feed(closed, t)
        slot.sensor.last_source = slot.source
        if slot.filter.candidate != before and slot.sensor.burst_start is None:
            slot.sensor.burst_start = t
        self._schedule(deadline, "input", slot.index)

    def _schedule(self, deadline: float | None, kind: str, index: int) -> None:
        if deadline is not None:
            heapq.heappush(self._heap, (deadline, next(self._seq), kind, index))

    def fire_due(self, now: float, emitted: list[Observation]) -> None:
        """Settle every window that has closed by ``now``; stale heap entries are skipped."""
        while self._heap and self._heap[0][0] <= now:
            _, _, kind, index = heapq.heappop(self._heap)
            slot = self.inputs[index]
            sensor = slot.sensor
            if kind == "input":
                if slot.filter is None:
                    continue
                change = slot.filter.due(now)
                if change is not None and sensor.ready():
                    value = sensor_value(sensor.spec.kind, sensor.closed())
                    if sensor.settle is None:
                        self._emit(sensor, value, now, slot.source, emitted)
                    else:
                        # The settle time counts from the last raw edge, overlapping the window.
                        self._schedule(sensor.settle.feed(value, change.last_edge), "settle", sensor.inputs[0].index)
            else:
                assert sensor.settle is not None
                settled = sensor.settle.due(now)
                if settled is not None:
                    self._emit(sensor, settled.value, now, sensor.last_source or sensor.inputs[0].source, emitted)
            if sensor.idle():
                sensor.burst_start = None

    def _emit(self, sensor: SensorSlot, value: str, now: float, source: str, emitted: list[Observation]) -> None:
        prev = sensor.state
        if prev is not None and prev.value == value:
            return
        first = sensor.burst_start if sensor.burst_start is not None else now
        emitted.append(Observation(sensor.spec.id, value, first, now, source))
        sensor.observations += 1
        sensor.state = SensorState(value, now, now, source, online=prev.online if prev else True)
        sensor.burst_start = None

    def _report_reading(self, sensor: SensorSlot, t: float, emitted: list[Observation], *,
                        only_changes: bool = False) -> None:
        """A fresh reading (start-up, reconnect): report it as ``initial``, bypassing the filters."""
        value = sensor_value(sensor.spec.kind, sensor.closed())
        if sensor.spec.kind == "tomb":
            if sensor.settle is None:
                sensor.settle = StableFilter(value, sensor.spec.settle)
            else:
                sensor.settle.reset(value)
        sensor.burst_start = None
        prev = sensor.state
        online = not (sensor.uses_mcu() and self.link_state != "online")
        source = sensor.inputs[0].source
        changed = prev is None or prev.value != value
        sensor.state = SensorState(value, t if prev is None or changed else prev.changed, t, source, online)
        if changed or not only_changes:
            emitted.append(Observation(sensor.spec.id, value, t, t, source, initial=True))
            sensor.observations += 1

    # -- the MCU -----------------------------------------------------------------
    def _mcu_hello(self, hello: Any) -> None:
        info = {k: getattr(hello, k) for k in ("firmware", "board_id", "channels", "outputs", "protocol")
                if hasattr(hello, k)}
        self.hello = {k: v if isinstance(v, (int, str, float)) else str(v) for k, v in info.items()}
        count = info.get("channels")
        self.problems = [
            f"{capital(part(slot.label))} uses MCU channel {ch}, but the board has only {count} channels"
            for ch, slot in sorted(self.by_channel.items()) if isinstance(count, int) and ch >= count
        ]
        # An output the board lacks would otherwise just never light up.
        outputs = info.get("outputs")
        self.problems += [
            f"output {name} uses MCU output {ch}, but the board has only {outputs} outputs"
            for name, ch in sorted(self.output_channels.items(), key=lambda item: item[1])
            if isinstance(outputs, int) and ch >= outputs
        ]

    def _mcu_snapshot(self, levels: dict[int, bool], mcu_us: int, received: float,
                      emitted: list[Observation]) -> None:
        # The MCU's clock may have restarted (a reset), so its offset is relearnt.
        self._mcu_clock.reset()
        self._mcu_clock.to_host(mcu_us, received)
        self.link_state, self.link_reason = "online", ""
        self.snapshots += 1
        touched: list[SensorSlot] = []
        for channel, slot in self._snapshot_slots(levels):
            closed = bool(levels[channel]) == slot.spec.active_high
            if slot.filter is None:
                slot.filter = StableFilter(closed, slot.sensor.spec.window)
            else:
                slot.filter.reset(closed)
            if slot.sensor not in touched:
                touched.append(slot.sensor)
        for sensor in touched:
            if sensor.ready():
                # Only real differences are reported; unchanged sensors are just "seen" again.
                self._report_reading(sensor, received, emitted, only_changes=True)
        self._reading_due = False
        self.first_snapshot.set()

    def _snapshot_slots(self, levels: dict[int, bool]) -> list[tuple[int, InputSlot]]:
        """The channels a snapshot holds; those it lacks are noted as a problem (and cleared once back)."""
        held = [(ch, slot) for ch, slot in self.by_channel.items() if ch in levels]
        missing = [f"{part(slot.label)} (channel {ch})" for ch, slot in self.by_channel.items() if ch not in levels]
        self.problems = [p for p in self.problems if not p.startswith(_LACKS)]
        if missing:
            self.problems.append(f"{_LACKS} {', '.join(missing)}")
        return held

    def _mcu_resync(self, levels: dict[int, bool], mcu_us: int, received: float,
                    emitted: list[Observation]) -> None:
        """A snapshot within one connection: each level is one more raw sample.

        The link fetches it when a frame was damaged or lost, which may have
        been a CHANGE. Resetting the filters to it would report a real move as
        a mere reading, and a level caught mid-bounce as a change, so a
        difference goes through the window like any edge, stamped with the
        snapshot's time (the lost edge happened at the latest then).
        """
        t = self._mcu_clock.to_host(mcu_us, received)
        self.snapshots += 1
        self.fire_due(t, emitted)
        for channel, slot in self._snapshot_slots(levels):
            if slot.filter is None:
                continue  # never read: only a fresh reading may introduce it
            self._apply_edge(slot, bool(levels[channel]) == slot.spec.active_high, t)
        for sensor in self.sensors.values():
            # Confirmed as it was: "seen" again, as a reconnect snapshot would.
            if sensor.state is not None and sensor.uses_mcu() and sensor.idle():
                st = sensor.state
                sensor.state = SensorState(st.value, st.changed, received, st.source, st.online)

    def _mcu_offline(self, reason: str) -> None:
        self.link_state, self.link_reason = "offline", reason
        for slot in self.by_channel.values():
            if slot.filter is not None:
                slot.filter.reset(slot.filter.stable)  # a half-seen burst must not settle later
        for sensor in self.sensors.values():
            if sensor.uses_mcu() and sensor.settle is not None and sensor.settle.pending:
                # A tomb on its way past a stop: its next reed's CHANGE may never
                # come, so letting the settle time run out would claim a stop
                # that did not happen. The reconnect snapshot tells where it is.
                sensor.settle.reset(sensor.settle.stable)
                sensor.burst_start = None
            if sensor.state is not None and sensor.uses_mcu():
                st = sensor.state
                sensor.state = SensorState(st.value, st.changed, st.seen, st.source, online=False)

    # -- reports -------------------------------------------------------------------
    def snapshot(self) -> dict[str, SensorState]:
        return {sid: s.state for sid, s in self.sensors.items() if s.state is not None}

    def sensors_health(self, now: float) -> dict[str, Any]:
        """Per sensor: value, observations, and per input its wire, level and filter statistics.

        ``burst_ms`` is how long the input has been chattering without settling
        (0 when quiet): a contact that never settles shows up here, not in ``changes``.
        """
        def burst(f: StableFilter[bool] | None) -> dict[str, float]:
            first = f.first_edge if f is not None else None
            return {"burst_ms": round(max(0.0, now - first) * 1000.0, 3) if first is not None else 0.0}

        return {
            sid: {
                "value": s.state.value if s.state else None,
                "online": s.state.online if s.state else False,
                "observations": s.observations,
                "inputs": {
                    i.role: {"wire": i.spec.describe(), "closed": i.filter.stable if i.filter else None,
                             **(i.filter.stats.to_json() if i.filter else {}), **burst(i.filter)}
                    for i in s.inputs
                },
            }
            for sid, s in self.sensors.items()
        }

    def mcu_health(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.link_state}
        if self.link_state != "absent":
            out.update(reason=self.link_reason, hello=dict(self.hello), snapshots=self.snapshots,
                       unmapped_changes=self.unmapped_changes, ignored_changes=self.ignored_changes,
                       problems=list(self.problems))
        return out
