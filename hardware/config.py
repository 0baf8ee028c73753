"""The hardware section of the config: which input feeds which logical sensor.

The config is plain data (parsed from TOML or JSON by the caller), validated
here into frozen dataclasses. Every error is a :class:`HardwareConfigError`
whose message starts with the full key path, e.g.
``hardware.sensors.tomb.wolf.end_a.pin: GPIO 40 is out of range (0-27)``.

Shape (all keys optional; see ``docs/wiring.md``)::

    [hardware]
    pin_map = "default"          # start from the documented map, or "none"
    debounce = { tomb = 15, tomb_settle = 250, peg = 20, sprung = 20, launcher = 20, chute = 15 }
    mcu = { port = "/dev/ttyUSB0", baudrate = 115200, start_timeout_s = 1.5 }

    [hardware.sensors.tomb.wolf]
    end_a = { pin = 11 }                       # gpio, pull-up, active low
    middle = { source = "mcu", channel = 3 }
    end_b = { pin = 6, pull = "down", active = "high" }
    settle_ms = 300

    [hardware.sensors.trap.ladder]
    peg_a = { pin = 18, debounce_ms = 25 }

    [hardware.sensors]
    "chute.left" = { pin = 2, active = "high" }   # dotted keys work too
    "trap.grave2" = false                         # not wired: drop it

    [hardware.outputs.alarm]
    kind = "buzzer"
    pin = 14
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gravekeeper.errors import GravekeeperError
from hardware.observation import ALL_SENSORS, TOMB_POSITIONS

SOURCES = ("gpio", "mcu", "sim")
PULLS = ("up", "down", "none")
LEVELS = ("low", "high")
OUTPUT_KINDS = ("led", "pwm_led", "buzzer")
# BCM numbers on the 40-pin header; 2 and 3 carry fixed 1.8 kOhm pull-ups.
GPIO_PINS = range(28)
FIXED_PULL_UP_PINS = (2, 3)
# The Pi's primary UART (the device names it goes by) is wired to GPIO 14 (TX) and 15 (RX).
PI_UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
PI_UART_PINS = {14: "TX", 15: "RX"}
MAX_WINDOW_MS = 1000.0
MAX_SETTLE_MS = 5000.0

# Stability windows by sensor kind, in ms. Each exceeds the 10 ms bounce
# bursts of the switches we expect, with margin; see docs/wiring.md.
DEFAULT_WINDOWS_MS: dict[str, float] = {
    "tomb": 15.0,
    "tomb_settle": 250.0,
    "peg": 20.0,
    "sprung": 20.0,
    "launcher": 20.0,
    "chute": 15.0,
}

# The documented default pin map (BCM numbers): 22 inputs on the header's
# free general-purpose pins, leaving I2C (2, 3) and the UART (14, 15) alone.
DEFAULT_PINS: dict[str, int] = {
    "tomb.mummy.end_a": 4, "tomb.mummy.middle": 17, "tomb.mummy.end_b": 27,
    "tomb.monster.end_a": 22, "tomb.monster.middle": 10, "tomb.monster.end_b": 9,
    "tomb.wolf.end_a": 11, "tomb.wolf.middle": 5, "tomb.wolf.end_b": 6,
    "launcher": 13,
    "trap.ladder.peg_a": 18, "trap.ladder.peg_b": 23, "trap.ladder.sprung": 24,
    "trap.mirror.peg_a": 25, "trap.mirror.peg_b": 8, "trap.mirror.sprung": 7,
    "trap.grave1.peg_a": 12, "trap.grave1.peg_b": 16, "trap.grave1.sprung": 20,
    "trap.grave2.peg_a": 21, "trap.grave2.peg_b": 19, "trap.grave2.sprung": 26,
}

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class HardwareConfigError(GravekeeperError, ValueError):
    """A bad hardware config value; the message starts with its key path."""


@dataclass(frozen=True)
class InputSpec:
    """One raw input. ``active_high`` says which electrical level means "closed"."""

    source: str
    pin: int | None = None
    channel: int | None = None
    pull: str | None = None
    active_high: bool = False

    def describe(self) -> str:
        if self.source == "gpio":
            return f"GPIO {self.pin}"
        if self.source == "mcu":
            return f"MCU channel {self.channel}"
        return "simulated"


@dataclass(frozen=True)
class SensorSpec:
    """A logical sensor: its kind, its inputs by role, and its timing (seconds)."""

    id: str
    kind: str  # tomb, peg, sprung, launcher, chute
    inputs: tuple[tuple[str, InputSpec], ...]  # (role, spec); role is the position for tombs, else "input"
    window: float
    settle: float = 0.0

    def input(self, role: str) -> InputSpec:
        for name, spec in self.inputs:
            if name == role:
                return spec
        raise KeyError(role)


@dataclass(frozen=True)
class OutputSpec:
    name: str
    kind: str
    source: str
    pin: int | None = None
    channel: int | None = None
    active_high: bool = True


@dataclass(frozen=True)
class McuConfig:
    port: str
    baudrate: int = 115200
    start_timeout: float = 1.5


@dataclass(frozen=True)
class HardwareConfig:
    """Validated hardware config: sensors in product order, outputs, the MCU port."""

    sensors: tuple[SensorSpec, ...]
    outputs: tuple[OutputSpec, ...] = ()
    mcu: McuConfig | None = None

    def sensor(self, sensor_id: str) -> SensorSpec:
        for spec in self.sensors:
            if spec.id == sensor_id:
                return spec
        raise KeyError(sensor_id)

    @property
    def sensor_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sensors)

    def uses(self, source: str) -> bool:
        return any(i.source == source for s in self.sensors for _, i in s.inputs) or any(
            o.source == source for o in self.outputs
        )


def _kind_of(sensor_id: str) -> str:
    parts = sensor_id.split(".")
    if parts[0] == "trap":
        return "peg" if parts[2] in ("peg_a", "peg_b") else "sprung"
    return parts[0]


def _sensor_layout() -> dict[str, tuple[str, ...]]:
    """Every configurable sensor id and its input roles, in product order."""
    return {sid: TOMB_POSITIONS if sid.startswith("tomb.") else ("input",) for sid in ALL_SENSORS}


LAYOUT = _sensor_layout()


def _err(path: str, message: str) -> HardwareConfigError:
    return HardwareConfigError(f"{path}: {message}")


def _expect_mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _err(path, f"expected a table, got {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise _err(path, f"keys must be strings, got {key!r}")
    return value


def _check_keys(data: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for key in data:
        if key not in allowed:
            raise _err(f"{path}.{key}", f"unknown key (expected one of: {', '.join(allowed)})")


def _number(value: Any, path: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise _err(path, f"expected a number of milliseconds, got {value!r}")
    if not lo <= value <= hi:
        raise _err(path, f"{value} is out of range ({lo:g} to {hi:g})")
    return float(value)


def _integer(value: Any, path: str, valid: range, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(path, f"expected an integer {what}, got {value!r}")
    if value not in valid:
        raise _err(path, f"{what} {value} is out of range ({valid.start}-{valid.stop - 1})")
    return value


def _choice(value: Any, path: str, options: tuple[str, ...]) -> str:
    if value not in options:
        raise _err(path, f"expected one of {', '.join(options)}, got {value!r}")
    return str(value)


def _nest(data: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Expand dotted keys (``"tomb.wolf"``) into nested tables, refusing clashes."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        parts = key.split(".")
        node = out
        for i, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise _err(f"{path}.{key}", f"clashes with {'.'.join(parts[: i + 1])!r}")
            node = child
        leaf = parts[-1]
        if isinstance(value, Mapping):
            value = _nest(_expect_mapping(value, f"{path}.{key}"), f"{path}.{key}")
        if leaf in node:
            _merge(node[leaf], value, f"{path}.{key}")
            continue
        node[leaf] = value
    return out


def _merge(into: Any, extra: Any, path: str) -> None:
    """Merge a second spelling of the same table (``"tomb.wolf"`` and ``tomb.wolf``); a key set twice is refused."""
    if not isinstance(into, dict) or not isinstance(extra, dict):
        raise _err(path, "given twice (once as a dotted key, once nested)")
    for key, value in extra.items():
        if key in into:
            _merge(into[key], value, f"{path}.{key}")
        else:
            into[key] = value


def _flatten_sensors(tree: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Map nested ``sensors`` tables to ``{sensor_id: spec or False}``."""
    found: dict[str, Any] = {}

    def walk(node: Any, prefix: str) -> None:
        if prefix in LAYOUT:
            found[prefix] = node
            return
        here = f"{path}.{prefix}" if prefix else path
        group = [sid for sid in LAYOUT if sid.startswith(f"{prefix}.")] if prefix else []
        if node is False and group:
            found.update({sid: False for sid in group})
            return
        if not isinstance(node, Mapping) or (prefix and not group):
            raise _err(here, "unknown sensor (expected tomb.<mummy|monster|wolf>, "
                       "trap.<ladder|mirror|grave1|grave2>.<peg_a|peg_b|sprung>, launcher, chute.<left|right>)")
        for key, child in node.items():
            walk(child, f"{prefix}.{key}" if prefix else key)

    walk(tree, "")
    return found


def _input(data: Any, path: str, *, allow_extra: tuple[str, ...] = ()) -> tuple[InputSpec, dict[str, Any]]:
    data = _expect_mapping(data, path)
    source = _choice(data.get("source", "gpio"), f"{path}.source", SOURCES)
    extra = {k: data[k] for k in allow_extra if k in data}
    if source == "gpio":
        _check_keys(data, ("source", "pin", "pull", "active", *allow_extra), path)
        if "pin" not in data:
            raise _err(f"{path}.pin", "required for a gpio input (a BCM number)")
        pin = _integer(data["pin"], f"{path}.pin", GPIO_PINS, "GPIO")
        pull = _choice(data.get("pull", "up"), f"{path}.pull", PULLS)
        if pin in FIXED_PULL_UP_PINS and pull != "up":
            raise _err(f"{path}.pull", f"GPIO {pin} has a fixed pull-up on the board; use pull = \"up\"")
        if "active" in data:
            active_high = _choice(data["active"], f"{path}.active", LEVELS) == "high"
        elif pull == "none":
            raise _err(f"{path}.active", "required when pull is \"none\" (\"low\" or \"high\")")
        else:
            active_high = pull == "down"
        return InputSpec("gpio", pin=pin, pull=pull, active_high=active_high), extra
    if source == "mcu":
        _check_keys(data, ("source", "channel", "active", *allow_extra), path)
        if "channel" not in data:
            raise _err(f"{path}.channel", "required for an mcu input")
        channel = _integer(data["channel"], f"{path}.channel", range(256), "channel")
        active_high = _choice(data.get("active", "low"), f"{path}.active", LEVELS) == "high"
        return InputSpec("mcu", channel=channel, active_high=active_high), extra
    _check_keys(data, ("source", *allow_extra), path)
    return InputSpec("sim"), extra


def _windows(data: Any, path: str) -> dict[str, float]:
    windows = dict(DEFAULT_WINDOWS_MS)
    if data is None:
        return windows
    data = _expect_mapping(data, path)
    _check_keys(data, tuple(DEFAULT_WINDOWS_MS), path)
    for key, value in data.items():
        hi = MAX_SETTLE_MS if key == "tomb_settle" else MAX_WINDOW_MS
        windows[key] = _number(value, f"{path}.{key}", 0.0, hi)
    return windows


def _sensor(sensor_id: str, data: Any, path: str, windows: Mapping[str, float]) -> SensorSpec:
    kind = _kind_of(sensor_id)
    if kind == "tomb":
        data = _expect_mapping(data, path)
        _check_keys(data, (*TOMB_POSITIONS, "debounce_ms", "settle_ms"), path)
        inputs = []
        for role in TOMB_POSITIONS:
            if role not in data:
                raise _err(f"{path}.{role}", "required: a tomb needs end_a, middle and end_b inputs")
            spec, _ = _input(data[role], f"{path}.{role}")
            inputs.append((role, spec))
        window = windows["tomb"] if "debounce_ms" not in data else _number(
            data["debounce_ms"], f"{path}.debounce_ms", 0.0, MAX_WINDOW_MS)
        settle = windows["tomb_settle"] if "settle_ms" not in data else _number(
            data["settle_ms"], f"{path}.settle_ms", 0.0, MAX_SETTLE_MS)
        return SensorSpec(sensor_id, kind, tuple(inputs), window / 1000.0, settle / 1000.0)
    spec, extra = _input(data, path, allow_extra=("debounce_ms",))
    window = windows[kind] if "debounce_ms" not in extra else _number(
        extra["debounce_ms"], f"{path}.debounce_ms", 0.0, MAX_WINDOW_MS)
    return SensorSpec(sensor_id, kind, (("input", spec),), window / 1000.0)


def _output(name: str, data: Any, path: str) -> OutputSpec:
    if not _NAME.match(name):
        raise _err(path, "output names are lower-case letters, digits and _")
    data = _expect_mapping(data, path)
    kind = _choice(data.get("kind"), f"{path}.kind", OUTPUT_KINDS)
    source = _choice(data.get("source", "gpio"), f"{path}.source", ("gpio", "mcu"))
    active_high = _choice(data.get("active", "high"), f"{path}.active", LEVELS) == "high"
    if source == "gpio":
        _check_keys(data, ("kind", "source", "pin", "active"), path)
        if "pin" not in data:
            raise _err(f"{path}.pin", "required for a gpio output")
        pin = _integer(data["pin"], f"{path}.pin", GPIO_PINS, "GPIO")
        return OutputSpec(name, kind, "gpio", pin=pin, active_high=active_high)
    _check_keys(data, ("kind", "source", "channel", "active"), path)
    if "channel" not in data:
        raise _err(f"{path}.channel", "required for an mcu output")
    channel = _integer(data["channel"], f"{path}.channel", range(256), "channel")
    return OutputSpec(name, kind, "mcu", channel=channel, active_high=active_high)


def _mcu(data: Any, path: str) -> McuConfig:
    data = _expect_mapping(data, path)
    _check_keys(data, ("port", "baudrate", "start_timeout_s"), path)
    port = data.get("port")
    if not isinstance(port, str) or not port.strip():
        raise _err(f"{path}.port", f"expected a serial device or pyserial URL, got {port!r}")
    baudrate = data.get("baudrate", 115200)
    if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate <= 0:
        raise _err(f"{path}.baudrate", f"expected a positive integer, got {baudrate!r}")
    timeout = data.get("start_timeout_s", 1.5)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout <= 60:
        raise _err(f"{path}.start_timeout_s", f"expected seconds between 0 and 60, got {timeout!r}")
    return McuConfig(port.strip(), baudrate, float(timeout))


def _check_unique(sensors: list[SensorSpec], outputs: list[OutputSpec], where: str) -> None:
    pins: dict[int, str] = {}
    channels: dict[int, str] = {}
    for sensor in sensors:
        for role, spec in sensor.inputs:
            label = sensor.id if role == "input" else f"{sensor.id}.{role}"
            path = f"{where}.sensors.{label}"
            if spec.source == "gpio":
                assert spec.pin is not None
                if spec.pin in pins:
                    raise _err(f"{path}.pin", f"GPIO {spec.pin} is already used by {pins[spec.pin]}")
                pins[spec.pin] = label
            elif spec.source == "mcu":
                assert spec.channel is not None
                if spec.channel in channels:
                    user = channels[spec.channel]
                    raise _err(f"{path}.channel", f"MCU channel {spec.channel} is already used by {user}")
                channels[spec.channel] = label
    out_channels: dict[int, str] = {}
    for out in outputs:
        path = f"{where}.outputs.{out.name}"
        if out.source == "gpio":
            assert out.pin is not None
            if out.pin in pins:
                raise _err(f"{path}.pin", f"GPIO {out.pin} is already used by {pins[out.pin]}")
            pins[out.pin] = f"output {out.name}"
        else:
            assert out.channel is not None
            if out.channel in out_channels:
                user = out_channels[out.channel]
                raise _err(f"{path}.channel", f"MCU output {out.channel} is already used by {user}")
            out_channels[out.channel] = out.name


def _check_uart_pins(sensors: list[SensorSpec], outputs: list[OutputSpec], port: str, where: str) -> None:
    """An MCU on the Pi's own UART owns GPIO 14 and 15: an input or output there would fight it."""
    used = [(f"{where}.sensors.{s.id if role == 'input' else f'{s.id}.{role}'}.pin", spec.pin)
            for s in sensors for role, spec in s.inputs if spec.source == "gpio"]
    used += [(f"{where}.outputs.{o.name}.pin", o.pin) for o in outputs if o.source == "gpio"]
    for path, pin in used:
        if pin in PI_UART_PINS:
            raise _err(path, f"GPIO {pin} is the UART's {PI_UART_PINS[pin]}, which the MCU link uses ({port}); "
                       "pick another pin, or connect the MCU over USB")


def _default_tree() -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for sensor_id, roles in LAYOUT.items():
        if roles == ("input",):
            if sensor_id in DEFAULT_PINS:
                tree[sensor_id] = {"pin": DEFAULT_PINS[sensor_id]}
        else:
            tree[sensor_id] = {role: {"pin": DEFAULT_PINS[f"{sensor_id}.{role}"]} for role in roles}
    return tree


def load_hardware_config(data: Mapping[str, Any] | None, *, where: str = "hardware") -> HardwareConfig:
    """Validate the ``hardware`` table; ``None`` gives the default pin map."""
    if data is None:
        data = {}
    data = _expect_mapping(data, where)
    _check_keys(data, ("pin_map", "debounce", "sensors", "outputs", "mcu"), where)
    base = _choice(data.get("pin_map", "default"), f"{where}.pin_map", ("default", "none"))
    windows = _windows(data.get("debounce"), f"{where}.debounce")

    chosen: dict[str, Any] = _default_tree() if base == "default" else {}
    if "sensors" in data:
        tree = _nest(_expect_mapping(data["sensors"], f"{where}.sensors"), f"{where}.sensors")
        for sensor_id, spec in _flatten_sensors(tree, f"{where}.sensors").items():
            path = f"{where}.sensors.{sensor_id}"
            if spec is False:
                chosen.pop(sensor_id, None)
            elif not isinstance(spec, Mapping):
                raise _err(path, f"expected a table or false, got {spec!r}")
            elif _kind_of(sensor_id) == "tomb" and sensor_id in chosen:
                # A partial tomb table (say, only settle_ms) keeps the other keys.
                chosen[sensor_id] = {**chosen[sensor_id], **spec}
            else:
                chosen[sensor_id] = spec

    sensors = [
        _sensor(sensor_id, chosen[sensor_id], f"{where}.sensors.{sensor_id}", windows)
        for sensor_id in LAYOUT
        if sensor_id in chosen
    ]
    outputs: list[OutputSpec] = []
    if "outputs" in data:
        table = _expect_mapping(data["outputs"], f"{where}.outputs")
        outputs = [_output(name, spec, f"{where}.outputs.{name}") for name, spec in table.items()]
    _check_unique(sensors, outputs, where)

    mcu = _mcu(data["mcu"], f"{where}.mcu") if "mcu" in data else None
    if mcu is not None and mcu.port in PI_UART_PORTS:
        _check_uart_pins(sensors, outputs, mcu.port, where)
    config = HardwareConfig(tuple(sensors), tuple(outputs), mcu)
    if mcu is None and config.uses("mcu"):
        user = next(
            (f"sensors.{s.id}" for s in sensors for _, i in s.inputs if i.source == "mcu"),
            next((f"outputs.{o.name}" for o in outputs if o.source == "mcu"), "?"),
        )
        raise _err(f"{where}.mcu.port", f"required because {user} uses source \"mcu\"")
    return config


def default_hardware_config() -> HardwareConfig:
    """The documented default pin map: every required sensor on a GPIO pin."""
    return load_hardware_config(None)
