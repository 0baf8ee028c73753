"""The sensor hub: raw channels in, settled timestamped observations out.

Every raw edge (from a gpiozero callback thread, the MCU link's reader thread
or the simulator) is timestamped and queued. One worker thread owns all
filter state: it applies edges in order, keeps one timer heap for every
pending window, and calls ``on_observation`` outside its lock. There is no
thread per edge and no timer object per window.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from gpiozero import BadPinFactory, Device, Factory, GPIOZeroError
from gpiozero.pins.mock import MockFactory, MockPWMPin

from gravekeeper.errors import GravekeeperError
from hardware.channels import GpioInput, McuListener, SimInput
from hardware.config import HardwareConfig
from hardware.engine import Engine, InputSlot
from hardware.observation import Observation
from hardware.outputs import Outputs
from hardware.patterns import Pattern
from hardware.sensors import SensorState, closed_for
from hardware.simulator import bounce_trace
from hardware.words import parts

log = logging.getLogger(__name__)

MAX_SIM_BOUNCE_MS = 1000.0
# Where the simulator puts each kind of sensor at start: a board ready to play.
SIM_REST = {"tomb": "end_a", "peg": "in", "sprung": "cocked", "launcher": "armed", "chute": "clear"}
_STOP = object()
WINDOW_LEAD_S = 0.002  # see SensorHub: how long before a window closes on_window_closing runs


class HardwareError(GravekeeperError, RuntimeError):
    """The hardware could not be opened (no GPIO on this machine, a pin in use...)."""


def _hint(exc: GPIOZeroError) -> str:
    return "; on a machine without GPIO, run with --simulate" if isinstance(exc, BadPinFactory) else ""


class SensorHub:
    """Reads the configured sensors and reports settled :class:`Observation` s.

    ``on_observation`` is called from the hub's worker thread, one call at a
    time and in order. Edges keep being queued while it runs, but no window
    is judged until it returns, so an observation that comes due meanwhile is
    settled (and stamped) when it does. The service decides an observation
    right there when its referee is idle (a commit and the event's
    acknowledgement: a millisecond or two), and queues it otherwise; anything
    slower should queue it. ``on_health``,
    if given, receives ``health()`` whenever the MCU link changes state.

    ``on_window_closing``, if given, is called from the worker thread once per
    pending window, ``window_lead`` seconds before it closes (a window closer
    than that is left alone): the service rehearses the decision that may
    follow, so that its code and data are warm when the observation comes
    (``docs/performance.md``, "Sensor edge to MQTT event"). It must change
    nothing and return quickly; an error it raises is logged and counted.

    ``pin_factory`` is the gpiozero factory for GPIO inputs and outputs
    (default: gpiozero's own choice, lgpio on a Pi). ``simulate=True`` uses a
    ``MockFactory`` instead and runs MCU channels on a virtual MCU behind the
    real link. ``mcu_link_factory(url, listener, baudrate=...)`` replaces
    ``firmware_bridge.link.McuLink``, for tests. ``clock`` stamps edges and
    times windows: monotonic seconds.
    """

    def __init__(self, config: HardwareConfig, *, on_observation: Callable[[Observation], None],
                 pin_factory: Factory | None = None, simulate: bool = False,
                 mcu_link_factory: Callable[..., Any] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 on_health: Callable[[dict[str, Any]], None] | None = None,
                 on_window_closing: Callable[[], None] | None = None,
                 window_lead: float = WINDOW_LEAD_S) -> None:
        if not isinstance(config, HardwareConfig):
            raise TypeError(f"config must be a HardwareConfig (see load_hardware_config), got {type(config).__name__}")
        self.config = config
        self._on_observation = on_observation
        self._on_health = on_health
        self._on_window_closing = on_window_closing
        self._window_lead = window_lead
        self._rehearsed: float | None = None  # the deadline on_window_closing last ran before
        self._rehearsals = 0
        self._rehearsal_errors = 0
        self._simulate = simulate
        if simulate and pin_factory is None and config.uses("gpio"):
            pin_factory = MockFactory(pin_class=MockPWMPin)
        self._factory = pin_factory
        self._clock = clock
        # Under the simulator, MCU channels live on a virtual MCU (the reference
        # firmware on a pseudo-terminal) behind the real link, unless the
        # caller hands us a link factory of its own.
        self._link_factory = mcu_link_factory
        self._link: Any | None = None
        self._vmcu: Any | None = None
        self._engine = Engine(config)
        self._sensors = self._engine.sensors
        self._inputs = self._engine.inputs
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()  # guards the engine between the worker and readers
        self._worker: threading.Thread | None = None
        self._worker_errors = 0
        self._read_error: BaseException | None = None  # the start-up read failed on the worker
        self._stop = threading.Event()
        self._outputs: Outputs | None = None
        self._started = False
        self._closed = False
        self._sim_lock = threading.Lock()
        self._sim_stamp = threading.local()
        self._rng = random.Random()

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> SensorHub:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> None:
        """Open every input, read it now and report it (``initial=True``); idempotent."""
        if self._closed:
            raise RuntimeError("this SensorHub is closed")
        if self._started:
            return
        self._started = True
        try:
            self._open_inputs()
            if self._simulate:
                self._sim_rest()
            self._outputs = Outputs(self.config.outputs, self._factory, lambda: self._link)
            self._worker = threading.Thread(target=self._run, name="sensor-hub", daemon=True)
            self._worker.start()
            done = threading.Event()
            # The worker reads the pins itself when it reaches this item: an edge
            # that lands just after the read is then queued behind it and applied,
            # where a read here could be overtaken by that edge, which the
            # worker would drop as "not read yet" and lose for good.
            self._queue.put(("read", ()))
            self._queue.put(("done", (done,)))
            if not done.wait(5.0):
                raise HardwareError("the sensor worker did not take the first reading within 5 s")
            if self._read_error is not None:
                raise self._read_error
            if self.config.uses("mcu"):
                self._start_link()
        except GPIOZeroError as exc:
            self.close()
            raise HardwareError(f"{exc}{_hint(exc)}") from exc
        except BaseException:
            self.close()  # nothing half-open is left behind: pins, worker, link
            raise

    def _open_inputs(self) -> None:
        for inp in self._inputs:
            spec = inp.spec
            try:
                if spec.source == "gpio":
                    inp.channel = GpioInput(inp.index, spec, self._factory, self._edge, self._edge_time)
                elif spec.source == "sim":
                    inp.channel = SimInput(inp.index, self._edge, self._edge_time)
            except GPIOZeroError as exc:
                raise HardwareError(f"cannot open {spec.describe()} for {inp.label}: {exc}{_hint(exc)}") from exc

    def _sim_rest(self) -> None:
        """A simulated board starts at rest, not with every contact open."""
        for sensor in self._sensors.values():
            roles = [i.role for i in sensor.inputs]
            target = closed_for(sensor.spec.kind, SIM_REST[sensor.spec.kind], roles, {})
            for inp in sensor.inputs:
                if inp.channel is not None and inp.channel.read() != target[inp.role]:
                    inp.channel.drive(target[inp.role])  # before the first read: no edge is reported

    def _start_link(self) -> None:
        assert self.config.mcu is not None
        port = self.config.mcu.port
        factory = self._link_factory
        if factory is None:
            from firmware_bridge.link import (
                McuLink,  # imports point down; loaded only when used
            )

            factory = McuLink
            if self._simulate:
                port = self._start_virtual_mcu()
        listener = McuListener(lambda kind, args: self._queue.put((kind, args)), self._clock)
        self._link = factory(port, listener, baudrate=self.config.mcu.baudrate)
        self._link.start()
        self._engine.first_snapshot.wait(self.config.mcu.start_timeout)

    def _start_virtual_mcu(self) -> str:
        """The simulator's MCU, with its inputs at rest; returns its device path."""
        from firmware_bridge.virtual_mcu import VirtualMcu

        channels = max([8, *(ch + 1 for ch in self._engine.by_channel)])
        outputs = max([1, *((o.channel or 0) + 1 for o in self.config.outputs if o.source == "mcu")])
        self._vmcu = VirtualMcu(channels, outputs=outputs, board_id="simulated")
        self._vmcu.start()
        for sensor in self._sensors.values():
            mcu_inputs = [i for i in sensor.inputs if i.spec.source == "mcu"]
            if mcu_inputs:
                target = closed_for(sensor.spec.kind, SIM_REST[sensor.spec.kind], [i.role for i in sensor.inputs], {})
                for inp in mcu_inputs:
                    assert inp.spec.channel is not None
                    self._vmcu.set_channel(inp.spec.channel, target[inp.role] == inp.spec.active_high)
        return str(self._vmcu.path)

    def close(self) -> None:
        """Stop the link, release the pins, stop the worker; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._link is not None:
            try:
                self._link.close()
            except Exception:
                log.exception("closing the MCU link failed")
        if self._vmcu is not None:
            try:
                self._vmcu.close()
            except Exception:
                log.exception("closing the virtual MCU failed")
        for inp in self._inputs:
            if inp.channel is not None:
                try:
                    inp.channel.close()
                except Exception:
                    log.exception("closing %s failed", inp.label)
        if self._outputs is not None:
            self._outputs.close()
        if self._worker is not None:
            self._stop.set()
            self._queue.put(_STOP)  # wakes the worker if it is waiting on the queue
            # Closed from a callback, close() runs on the worker itself, which
            # stops on its own once the callback returns.
            if self._worker is not threading.current_thread():
                self._worker.join(timeout=2.0)
                if self._worker.is_alive():
                    log.error("the sensor worker did not stop within 2 s")

    # ------------------------------------------------------------------ reading
    def snapshot(self) -> dict[str, SensorState]:
        """Every configured sensor that has been read, by id, in product order."""
        with self._lock:
            return self._engine.snapshot()

    @property
    def rehearsals(self) -> tuple[int, int]:
        """How many times ``on_window_closing`` ran, and how many of those raised."""
        return self._rehearsals, self._rehearsal_errors

    def health(self) -> dict[str, Any]:
        """Link states (gpio, mcu: online/offline/absent), MCU counters, per-input edge statistics."""
        with self._lock:
            mcu = self._engine.mcu_health()
            sensors = self._engine.sensors_health(self._clock())
        if mcu["state"] != "absent":
            assert self.config.mcu is not None
            counters = getattr(self._link, "counters", None)
            mcu.update(port=self.config.mcu.port, counters=dict(counters) if isinstance(counters, dict) else {},
                       simulated=self._vmcu is not None)
        gpio_used = any(i.spec.source == "gpio" for i in self._inputs)
        factory = self._factory if self._factory is not None else Device.pin_factory
        gpio = {
            "state": "absent" if not gpio_used else "online" if self._started and not self._closed else "offline",
            "backend": type(factory).__name__ if factory is not None else None,
            "simulated": self._simulate,
        }
        warnings = list(mcu.get("problems", []))
        if self._worker_errors:
            errors = "1 internal error" if self._worker_errors == 1 else f"{self._worker_errors} internal errors"
            warnings.append(f"the sensor worker hit {errors}; see the log")
        if mcu["state"] == "offline":
            warnings.append(f"MCU offline: {mcu['reason'] or 'not answering'}")
        unread = [sid for sid, s in sensors.items() if s["value"] is None]
        if unread and self._started:
            warnings.append(f"not read yet (waiting for the MCU): {parts(unread)}")
        return {"links": {"gpio": gpio, "mcu": mcu}, "sensors": sensors, "warnings": warnings}

    def sync(self, timeout: float = 2.0) -> bool:
        """Wait until every event queued so far has been applied; False on timeout.

        Edges are applied by the worker thread; a caller that has just moved a
        pin and wants ``health()`` to include it calls this first.
        """
        if not self._started or self._closed:
            return False
        done = threading.Event()
        self._queue.put(("done", (done,)))
        return done.wait(timeout)

    def set_output(self, name: str, value: bool | float) -> None:
        if self._outputs is None:
            raise RuntimeError("start() the SensorHub before driving outputs")
        self._outputs.set(name, value)

    @property
    def output_names(self) -> tuple[str, ...]:
        return self._outputs.names if self._outputs is not None else ()

    def play_pattern(self, name: str, pattern: Pattern, *, seed: int = 0) -> None:
        """A light or buzzer pattern on a configured output, in the background (``hardware.patterns``)."""
        if self._outputs is None:
            raise RuntimeError("start() the SensorHub before driving outputs")
        self._outputs.play(name, pattern, seed=seed)

    # ------------------------------------------------------------------ simulator
    def simulate(self, sensor: str, value: str, *, bounce_ms: float = 0.0) -> None:
        """Move a sensor as a hand would, through the real debounce path.

        Each input that changes gets a bounce burst of ``bounce_ms`` on its
        mock pin (or virtual MCU channel). Mock-pin bursts are delivered at
        once, each edge stamped with its planned time, so a busy machine
        cannot stretch a 10 ms burst into two actions; the observation still
        comes from the worker, one window after the burst's planned end.
        """
        s = self._sensors.get(sensor)
        if s is None:
            raise ValueError(f"unknown sensor {sensor!r} (configured: {', '.join(self._sensors)})")
        if isinstance(bounce_ms, bool) or not isinstance(bounce_ms, (int, float)) \
                or not 0 <= bounce_ms <= MAX_SIM_BOUNCE_MS:
            raise ValueError(f"bounce_ms must be 0 to {MAX_SIM_BOUNCE_MS:g}, got {bounce_ms!r}")
        if not all(isinstance(i.channel, SimInput) or (self._simulate and i.channel is not None)
                   or (i.spec.source == "mcu" and self._vmcu is not None) for i in s.inputs):
            raise RuntimeError(f"{sensor} is real hardware; simulate() needs simulate=True")
        if not self._started or self._closed:
            raise RuntimeError("simulate() needs a started, open SensorHub")
        current = {i.role: self._sim_read(i) for i in s.inputs}
        target = closed_for(s.spec.kind, value, [i.role for i in s.inputs], current)
        # Open contacts first, then close, so a tomb jump passes "moving", not "fault".
        order = sorted((i for i in s.inputs if current[i.role] != target[i.role]), key=lambda i: target[i.role])
        with self._sim_lock:
            start = self._clock()
            for inp in order:
                if inp.channel is not None:
                    trace = bounce_trace(target[inp.role], bounce_ms / 1000.0, self._rng)
                    try:
                        for offset, closed in trace:
                            self._sim_stamp.t = start + offset
                            inp.channel.drive(closed)
                    finally:
                        self._sim_stamp.t = None
                    start += bounce_ms / 1000.0
                    continue
                assert self._vmcu is not None and inp.spec.channel is not None
                level = target[inp.role] == inp.spec.active_high
                if bounce_ms > 0:
                    self._vmcu.bounce(inp.spec.channel, level, duration_ms=bounce_ms, edges=self._rng.randint(2, 12))
                else:
                    self._vmcu.set_channel(inp.spec.channel, level)

    def _edge_time(self) -> float:
        """The clock for channel callbacks: the planned time while simulate() drives a pin."""
        t = getattr(self._sim_stamp, "t", None)
        return self._clock() if t is None else t

    def _sim_read(self, inp: InputSlot) -> bool:
        if inp.channel is not None:
            return inp.channel.read()
        assert self._vmcu is not None and inp.spec.channel is not None
        return bool(self._vmcu.levels()[inp.spec.channel]) == inp.spec.active_high

    # ------------------------------------------------------------------ worker
    def _read_all(self) -> tuple[dict[int, bool], float]:
        """Every local input's level now, and when (on the worker, in queue order)."""
        readings = {i.index: i.channel.read() for i in self._inputs if i.channel is not None}
        return readings, self._clock()

    def _edge(self, index: int, closed: bool, t: float) -> None:
        self._queue.put(("edge", (index, closed, t)))

    def _next_item(self, deadline: float | None) -> Any:
        """The next queued event, or None once ``deadline`` has passed."""
        timeout = None if deadline is None else max(0.0, deadline - self._clock())
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def _next_item_rehearsing(self, deadline: float | None) -> Any:
        """:meth:`_next_item`, but first, once per window, ``on_window_closing`` just before it closes."""
        if deadline is not None and self._on_window_closing is not None and self._rehearsed != deadline:
            early = deadline - self._window_lead
            if early - self._clock() > self._window_lead / 4:  # closer: it could run into the window's end
                item = self._next_item(early)
                if item is not None:
                    return item  # an edge first: the window may move, and is looked at again
                self._rehearsed = deadline
                self._rehearsals += 1
                try:
                    self._on_window_closing()
                except Exception:
                    self._rehearsal_errors += 1
                    if self._rehearsal_errors == 1:
                        log.exception("the rehearsal before a sensor window closes failed (logged once)")
        return self._next_item(deadline)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                try:
                    deadline = self._engine.next_deadline()
                except Exception:
                    self._worker_errors += 1
                    log.exception("sensor worker failed reading its timers")
                    deadline = self._clock() + 0.01  # look again soon rather than sleep on the queue
            item = self._next_item_rehearsing(deadline)
            # Take every queued event before judging any deadline: if this thread
            # was held up, a later edge of the same burst may already be waiting.
            items = []
            while item is not None:
                if item is _STOP:
                    return
                items.append(item)
                try:
                    item = self._queue.get_nowait() if len(items) < 10_000 else None
                except queue.Empty:
                    item = None
            emitted: list[Observation] = []
            health_changed = False
            done: list[threading.Event] = []
            with self._lock:
                for kind, args in items:
                    if kind == "done":
                        done.append(args[0])
                        continue
                    if kind == "read":
                        try:
                            kind, args = "init", self._read_all()
                        except Exception as exc:  # start() raises it to its caller
                            self._read_error = exc
                            continue
                    try:
                        health_changed = self._engine.handle(kind, args, emitted) or health_changed
                    except Exception:  # one bad event must not stop every sensor
                        self._worker_errors += 1
                        log.exception("sensor worker failed on %s %r", kind, args)
                try:
                    self._engine.fire_due(self._clock(), emitted)
                except Exception:  # the worker outlives a bug; the window is judged again next round
                    self._worker_errors += 1
                    log.exception("sensor worker failed settling windows")
            for obs in emitted:
                try:
                    self._on_observation(obs)
                except Exception:
                    log.exception("on_observation failed for %s", obs)
            for event in done:
                event.set()
            if health_changed and self._on_health is not None:
                try:
                    self._on_health(self.health())
                except Exception:
                    log.exception("on_health failed")
