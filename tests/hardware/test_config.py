from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hardware.config import (
    DEFAULT_PINS,
    HardwareConfigError,
    default_hardware_config,
    load_hardware_config,
)
from hardware.observation import ALL_SENSORS


def test_default_map_covers_every_required_sensor_on_distinct_free_pins() -> None:
    cfg = default_hardware_config()
    required = [s for s in ALL_SENSORS if not s.startswith("chute.")]
    assert list(cfg.sensor_ids) == required
    pins = [spec.pin for s in cfg.sensors for _, spec in s.inputs]
    assert len(pins) == len(set(pins)) == 22
    # I2C (2, 3), the UART (14, 15) and the HAT EEPROM pins (0, 1) stay free.
    assert not set(pins) & {0, 1, 2, 3, 14, 15}
    for s in cfg.sensors:
        for _, spec in s.inputs:
            assert (spec.source, spec.pull, spec.active_high) == ("gpio", "up", False)
    assert cfg.mcu is None and cfg.outputs == ()


def test_default_windows_by_kind_exceed_a_10ms_bounce() -> None:
    cfg = default_hardware_config()
    assert cfg.sensor("tomb.wolf").window == pytest.approx(0.015)
    assert cfg.sensor("tomb.wolf").settle == pytest.approx(0.25)
    assert cfg.sensor("trap.ladder.peg_a").window == pytest.approx(0.020)
    assert cfg.sensor("trap.ladder.sprung").window == pytest.approx(0.020)
    assert cfg.sensor("launcher").window == pytest.approx(0.020)
    assert all(s.window > 0.010 for s in cfg.sensors)


def test_none_means_default() -> None:
    assert load_hardware_config(None) == default_hardware_config()


def test_overrides_merge_over_the_default_map() -> None:
    cfg = load_hardware_config({
        "debounce": {"peg": 30, "tomb_settle": 400},
        "sensors": {
            "tomb": {"wolf": {"settle_ms": 300, "end_a": {"pin": 2}}},
            "trap.ladder.peg_a": {"pin": 18, "debounce_ms": 12.5},
            "chute.left": {"pin": 3, "active": "high"},
            "trap.grave2": False,
        },
    })
    wolf = cfg.sensor("tomb.wolf")
    assert wolf.settle == pytest.approx(0.3)
    assert wolf.input("end_a").pin == 2 and wolf.input("middle").pin == DEFAULT_PINS["tomb.wolf.middle"]
    assert cfg.sensor("tomb.mummy").settle == pytest.approx(0.4)
    assert cfg.sensor("trap.ladder.peg_a").window == pytest.approx(0.0125)
    assert cfg.sensor("trap.ladder.peg_b").window == pytest.approx(0.030)
    chute = cfg.sensor("chute.left").input("input")
    assert (chute.pin, chute.pull, chute.active_high) == (3, "up", True)
    assert not any(sid.startswith("trap.grave2") for sid in cfg.sensor_ids)
    # product order is kept whatever order the file uses
    assert cfg.sensor_ids.index("chute.left") == len(cfg.sensor_ids) - 1


def test_pin_map_none_with_mcu_and_sim_sources() -> None:
    cfg = load_hardware_config({
        "pin_map": "none",
        "mcu": {"port": "loop://", "baudrate": 1_000_000},
        "sensors": {
            "tomb.wolf": {"end_a": {"source": "mcu", "channel": 0},
                          "middle": {"source": "mcu", "channel": 1, "active": "high"},
                          "end_b": {"source": "sim"}},
            "launcher": {"source": "mcu", "channel": 7},
        },
        "outputs": {"eyes": {"kind": "pwm_led", "pin": 14}, "alarm": {"kind": "buzzer", "source": "mcu", "channel": 0}},
    })
    assert cfg.sensor_ids == ("tomb.wolf", "launcher")
    assert cfg.sensor("tomb.wolf").input("middle").active_high is True
    assert cfg.sensor("tomb.wolf").input("end_a").active_high is False
    assert cfg.mcu is not None and cfg.mcu.port == "loop://" and cfg.mcu.baudrate == 1_000_000
    assert [o.name for o in cfg.outputs] == ["eyes", "alarm"]


def test_pull_down_defaults_to_active_high() -> None:
    cfg = load_hardware_config({"sensors": {"launcher": {"pin": 13, "pull": "down"}}})
    assert cfg.sensor("launcher").input("input").active_high is True


BAD: list[tuple[dict[str, Any], str]] = [
    ({"sensors": {"tomb": {"wolf": {"end_a": {"pin": 40}}}}},
     "hardware.sensors.tomb.wolf.end_a.pin: GPIO 40 is out of range (0-27)"),
    ({"sensors": {"tomb": {"wolf": {"end_a": {"pin": "17"}}}}},
     "hardware.sensors.tomb.wolf.end_a.pin: expected an integer GPIO, got '17'"),
    ({"sensors": {"tomb": {"wolf": {"end_a": {"pin": True}}}}},
     "hardware.sensors.tomb.wolf.end_a.pin: expected an integer GPIO"),
    ({"sensors": {"tomb.wolf": {"end_a": {}}}}, "hardware.sensors.tomb.wolf.end_a.pin: required"),
    ({"sensors": {"trap.ladder.peg_a": {"pin": 4}}},
     "hardware.sensors.trap.ladder.peg_a.pin: GPIO 4 is already used by tomb.mummy.end_a"),
    ({"sensors": {"tomb": {"dragon": {}}}}, "hardware.sensors.tomb.dragon: unknown sensor"),
    ({"sensors": {"launcher": {"pin": 13, "colour": "red"}}},
     "hardware.sensors.launcher.colour: unknown key"),
    ({"sensors": {"launcher": {"pin": 13, "pull": "sideways"}}},
     "hardware.sensors.launcher.pull: expected one of up, down, none, got 'sideways'"),
    ({"sensors": {"launcher": {"pin": 13, "pull": "none"}}}, "hardware.sensors.launcher.active: required"),
    ({"sensors": {"chute.left": {"pin": 2, "pull": "down"}}},
     "hardware.sensors.chute.left.pull: GPIO 2 has a fixed pull-up"),
    ({"sensors": {"launcher": {"source": "mcu", "channel": 1}}},
     "hardware.mcu.port: required because sensors.launcher"),
    ({"mcu": {"port": ""}}, "hardware.mcu.port: expected a serial device"),
    ({"mcu": {"port": "/dev/ttyACM0", "baudrate": -5}}, "hardware.mcu.baudrate: expected a positive integer"),
    ({"debounce": {"peg": -1}}, "hardware.debounce.peg: -1 is out of range"),
    ({"debounce": {"pegs": 10}}, "hardware.debounce.pegs: unknown key"),
    ({"sensors": {"tomb.wolf": {"settle_ms": "long"}}}, "hardware.sensors.tomb.wolf.settle_ms: expected a number"),
    ({"sensors": {"tomb.wolf": {"debounce_ms": float("nan")}}},
     "hardware.sensors.tomb.wolf.debounce_ms: expected a number"),
    ({"pin_map": "mine"}, "hardware.pin_map: expected one of default, none"),
    ({"sensor": {}}, "hardware.sensor: unknown key"),
    ({"sensors": []}, "hardware.sensors: expected a table, got list"),
    ({"sensors": {"launcher": 13}}, "hardware.sensors.launcher: expected a table or false, got 13"),
    ({"pin_map": "none", "sensors": {"tomb.wolf": {"end_a": {"pin": 5}, "middle": {"pin": 6}}}},
     "hardware.sensors.tomb.wolf.end_b: required"),
    ({"outputs": {"eyes": {"kind": "laser", "pin": 14}}},
     "hardware.outputs.eyes.kind: expected one of led, pwm_led, buzzer"),
    ({"outputs": {"eyes": {"kind": "led", "pin": 17}}},
     "hardware.outputs.eyes.pin: GPIO 17 is already used by tomb.mummy.middle"),
    ({"outputs": {"Eyes!": {"kind": "led", "pin": 14}}}, "hardware.outputs.Eyes!: output names"),
    ({"mcu": {"port": "loop://"}, "sensors": {"launcher": {"source": "mcu", "channel": 1},
                                              "chute.left": {"source": "mcu", "channel": 1}}},
     "hardware.sensors.chute.left.channel: MCU channel 1 is already used by launcher"),
    ({"mcu": {"port": "loop://"}, "sensors": {"launcher": {"source": "mcu", "channel": 1, "pull": "up"}}},
     "hardware.sensors.launcher.pull: unknown key"),
    ({"sensors": {"tomb.wolf": {"settle_ms": 1}, "tomb": {"wolf": {"settle_ms": 2}}}},
     "hardware.sensors.tomb.wolf.settle_ms: given twice"),
    ({"sensors": {"trap.ladder.peg_a": False, "trap": {"ladder": False}}}, "hardware.sensors.trap.ladder: given twice"),
    ({"sensors": {"tomb": 5, "tomb.wolf": {}}}, "hardware.sensors.tomb.wolf: clashes with 'tomb'"),
    ("not a table", "hardware: expected a table, got str"),  # type: ignore[list-item]
]


@pytest.mark.parametrize(("data", "message"), BAD)
def test_bad_config_names_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(HardwareConfigError) as info:
        load_hardware_config(data)
    assert str(info.value).startswith(message), str(info.value)
    assert isinstance(info.value, ValueError)


def test_where_prefixes_the_path() -> None:
    with pytest.raises(HardwareConfigError, match=r"^board\.hw\.sensors\.launcher\.pin: "):
        load_hardware_config({"sensors": {"launcher": {"pin": 99}}}, where="board.hw")


def test_wiring_doc_table_matches_the_default_map() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "wiring.md").read_text()
    rows = re.findall(r"^\| `([a-z0-9_.]+)` \| ([a-z_-]+) \| (\d+) \| (\d+) \|", doc, re.MULTILINE)
    documented = {(sid if role == "-" else f"{sid}.{role}"): int(bcm) for sid, role, bcm, _ in rows}
    assert documented == DEFAULT_PINS
    header = {4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33, 19: 35, 26: 37,
              18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32, 16: 36, 20: 38, 21: 40}
    assert all(header[int(bcm)] == int(phys) for _, _, bcm, phys in rows)


def test_every_toml_example_in_the_docs_loads() -> None:
    import tomllib

    import hardware.config

    root = Path(__file__).resolve().parents[2]
    blocks = re.findall(r"```toml\n(.*?)```", (root / "docs" / "wiring.md").read_text(), re.DOTALL)
    module_doc = hardware.config.__doc__ or ""
    blocks.append(module_doc[module_doc.index("[hardware]"):])
    assert len(blocks) >= 5
    for block in blocks:
        data = tomllib.loads(block)
        cfg = load_hardware_config(data["hardware"])
        assert cfg.sensors  # every example leaves a usable board


@pytest.mark.parametrize("port", ["/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"])
def test_the_pis_own_uart_pins_are_refused_when_the_mcu_uses_that_uart(port: str) -> None:
    """GPIO 14/15 are the UART's TX/RX; a sensor or output there would fight the MCU link."""
    with pytest.raises(HardwareConfigError, match=re.escape(
            f"hardware.outputs.eyes.pin: GPIO 14 is the UART's TX, which the MCU link uses ({port})")):
        load_hardware_config({"mcu": {"port": port}, "outputs": {"eyes": {"kind": "led", "pin": 14}}})
    with pytest.raises(HardwareConfigError, match=re.escape(
            f"hardware.sensors.chute.left.pin: GPIO 15 is the UART's RX, which the MCU link uses ({port})")):
        load_hardware_config({"mcu": {"port": port}, "sensors": {"chute.left": {"pin": 15}}})
    # over USB the pins are free
    load_hardware_config({"mcu": {"port": "/dev/ttyACM0"}, "outputs": {"eyes": {"kind": "led", "pin": 14}}})
