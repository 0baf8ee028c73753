"""The simulated board the self-test runs against with ``--simulate``, faults included.

It plays the physical side only: contacts on mock GPIO pins and the channels
of a virtual MCU on a pseudo-terminal. The sensor hub on top of it is the
real one, opened with this board's pin factory and MCU link, so every check
and guided step goes through the same debounce, engine and link code as on
a real board.

A contact is modelled as a switch to the active level: closed, it forces the
pin to that level; open, the pull decides. A stuck wire ignores its contact,
crossed wires swap which pin a contact reaches, and a chattering contact is
flipped every 1-4 ms by a thread, never holding long enough to settle.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
from collections.abc import Sequence
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.link import McuLink
from firmware_bridge.virtual_mcu import VirtualMcu
from hardware.config import HardwareConfig, InputSpec
from hardware.hub import SIM_REST
from hardware.selftest.faults import Fault, input_specs
from hardware.sensors import closed_for

log = logging.getLogger(__name__)

CORRUPT_EVERY = 3  # the corrupting line damages one frame in this many
CHATTER_GAP_S = (0.001, 0.004)  # far shorter than any stability window


class SimPin(MockPWMPin):  # type: ignore[misc]  # gpiozero ships no type information
    """A mock pin whose level is its contact's, its pull's, or a stuck wire's."""

    def __init__(self, factory: Any, info: Any) -> None:
        self._contact: bool | None = None  # the level a closed contact forces; None while open
        self._pull_level = False
        super().__init__(factory, info)
        self._apply()

    @property
    def bcm(self) -> int:
        return int(self.info.name[4:])

    def drive_high(self) -> None:  # gpiozero drives an input to its pull this way
        self._pull_level = True
        self._apply()

    def drive_low(self) -> None:
        self._pull_level = False
        self._apply()

    def set_contact(self, level: bool | None) -> None:
        self._contact = level
        self._apply()

    def _apply(self) -> None:
        stuck = getattr(self.factory, "stuck", {}).get(self.bcm)
        level = stuck if stuck is not None else self._contact if self._contact is not None else self._pull_level
        if level:
            super().drive_high()
        else:
            super().drive_low()


class SimFactory(MockFactory):  # type: ignore[misc]  # gpiozero ships no type information
    def __init__(self) -> None:
        super().__init__(pin_class=SimPin)
        self.stuck: dict[int, bool] = {}


class CorruptingMcu(VirtualMcu):
    """The reference firmware behind a line that damages every ``every``-th frame."""

    def __init__(self, *args: Any, every: int = CORRUPT_EVERY, **kwargs: Any) -> None:
        self._every = every
        self._frames = 0
        super().__init__(*args, **kwargs)

    def _write(self, frame: bytes) -> None:
        if self._every and len(frame) > 1:
            self._frames += 1
            if self._frames % self._every == 0:
                # A RuntimeError: the boot HELLO, written before the MCU thread runs.
                with contextlib.suppress(RuntimeError):
                    self.corrupt_next(1)  # on the MCU thread this takes effect at once
        super()._write(frame)


class SimBoard:
    """Contacts, faults and a virtual MCU for one self-test run; :meth:`close` releases them."""

    def __init__(self, config: HardwareConfig, faults: Sequence[Fault] = (), *, seed: int = 0) -> None:
        self.config = config
        self.faults = list(faults)
        self.factory = SimFactory()
        self.link: McuLink | None = None
        self.mcu: VirtualMcu | None = None
        self._specs = input_specs(config)
        self._rng = random.Random(seed)
        self._crossed: dict[str, str] = {}
        self._stuck: dict[str, bool] = {}
        self._chatter: list[str] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._contacts: dict[str, bool] = {}
        self._dead_fds: tuple[int, int] | None = None
        self.mcu_path: str | None = None
        for fault in self.faults:
            if fault.kind in ("stuck_high", "stuck_low"):
                self._stuck[fault.targets[0]] = fault.kind == "stuck_high"
            elif fault.kind == "chatter":
                self._chatter.append(fault.targets[0])
            elif fault.kind == "crossed":
                a, b = fault.targets
                self._crossed[a], self._crossed[b] = b, a
        for label, level in self._stuck.items():
            spec = self._specs[label]
            if spec.source == "gpio":
                assert spec.pin is not None
                self.factory.stuck[spec.pin] = level
        if config.mcu is not None:
            self._start_mcu()
        self.rest()
        self._hold_stuck_channels()

    # -- the MCU ---------------------------------------------------------------
    def _start_mcu(self) -> None:
        channels = max([8, *((s.channel or 0) + 1 for s in self._specs.values() if s.source == "mcu")])
        outputs = max([1, *((o.channel or 0) + 1 for o in self.config.outputs if o.source == "mcu")])
        if any(f.kind == "mcu" for f in self.faults):
            # A powered-off board behind a present USB adapter: the port opens, nothing answers.
            master, slave = os.openpty()
            self._dead_fds = (master, slave)
            self.mcu_path = os.ttyname(slave)
            return
        every = CORRUPT_EVERY if any(f.kind == "serial" for f in self.faults) else 0
        self.mcu = CorruptingMcu(channels, outputs=outputs, board_id="simulated", every=every)
        self.mcu.start()
        self.mcu_path = str(self.mcu.path)

    def link_factory(self, port: str, listener: Any, *, baudrate: int = 115200) -> McuLink:
        """For ``SensorHub(mcu_link_factory=...)``: the real link, to this board's MCU."""
        assert self.mcu_path is not None
        self.link = McuLink(self.mcu_path, listener, baudrate=baudrate)
        return self.link

    # -- moving parts ----------------------------------------------------------
    def rest(self) -> None:
        """Every part where a board ready to play has it (tombs at end_a, pegs in...)."""
        for sensor in self.config.sensors:
            roles = [role for role, _ in sensor.inputs]
            target = closed_for(sensor.kind, SIM_REST[sensor.kind], roles, {})
            for role in roles:
                self.set_input(sensor.id if role == "input" else f"{sensor.id}.{role}", target[role])

    def move(self, sensor_id: str, value: str, *, bounces: int = 0) -> None:
        """Move a part as a hand would; each contact that changes bounces ``bounces`` times first."""
        sensor = self.config.sensor(sensor_id)
        roles = [role for role, _ in sensor.inputs]
        current = {role: self.contact(self._label(sensor_id, role)) for role in roles}
        target = closed_for(sensor.kind, value, roles, current)
        # Open contacts first, so a tomb passes through "moving" and never reads "fault".
        for role in sorted((r for r in roles if current[r] != target[r]), key=lambda r: target[r]):
            label = self._label(sensor_id, role)
            for _ in range(bounces):
                self.set_input(label, target[role])
                self.set_input(label, not target[role])
            self.set_input(label, target[role])

    def contact(self, label: str) -> bool:
        with self._lock:
            return self._contacts.get(label, False)

    def set_input(self, label: str, closed: bool) -> None:
        """Close or open the contact of ``label``; crossed and stuck wires apply here."""
        with self._lock:
            self._contacts[label] = closed
        wire = self._crossed.get(label, label)
        if wire in self._stuck:
            return
        spec = self._specs[wire]
        self._drive(spec, closed)

    def _drive(self, spec: InputSpec, closed: bool) -> None:
        if spec.source == "gpio":
            assert spec.pin is not None
            pin = self.factory.pin(spec.pin)
            assert isinstance(pin, SimPin)
            if closed:
                pin.set_contact(spec.active_high)
            else:
                pin.set_contact(None if spec.pull in ("up", "down") else not spec.active_high)
        elif spec.source == "mcu" and self.mcu is not None:
            assert spec.channel is not None
            self.mcu.set_channel(spec.channel, closed == spec.active_high)

    @staticmethod
    def _label(sensor_id: str, role: str) -> str:
        return sensor_id if role == "input" else f"{sensor_id}.{role}"

    # -- life cycle ------------------------------------------------------------
    def _hold_stuck_channels(self) -> None:
        """Stuck MCU channels take their level before the link's first snapshot."""
        if self.mcu is None:
            return
        for label, level in self._stuck.items():
            spec = self._specs[label]
            if spec.source == "mcu":
                assert spec.channel is not None
                self.mcu.set_channel(spec.channel, level)

    def start_chatter(self) -> None:
        for label in self._chatter:
            thread = threading.Thread(target=self._chatter_loop, args=(label,), name=f"chatter {label}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _chatter_loop(self, label: str) -> None:
        spec = self._specs[label]
        closed = self.contact(label)
        rng = random.Random(label)
        while not self._stop.wait(rng.uniform(*CHATTER_GAP_S)):
            closed = not closed
            try:
                self._drive(spec, closed)
            except (RuntimeError, TimeoutError, ValueError):
                return  # the board is closing

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2.0)
        if self.mcu is not None:
            self.mcu.close()
        if self._dead_fds is not None:
            for fd in self._dead_fds:
                os.close(fd)
            self._dead_fds = None
        self.factory.reset()
