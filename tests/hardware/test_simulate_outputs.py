"""``simulate=True`` (mock pins behind the gpio source), the ``sim`` source, and outputs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.config import load_hardware_config
from hardware.hub import SensorHub
from tests.hardware.support import Recorder

REST = {"tomb": "end_a", "peg_a": "in", "peg_b": "in", "sprung": "cocked", "launcher": "armed"}


def test_simulated_board_starts_at_rest(make_hub: Callable[..., SensorHub], recorder: Recorder) -> None:
    hub = make_hub(load_hardware_config(None), simulate=True)
    values = {o.sensor: o.value for o in recorder.items}
    assert len(values) == 16 and all(o.initial and o.source == "gpio" for o in recorder.items)
    for sensor, value in values.items():
        assert value == REST[sensor.split(".")[-1] if sensor.startswith("trap") else sensor.split(".")[0]]
    assert hub.health()["links"]["gpio"] == {"state": "online", "backend": "MockFactory", "simulated": True}


@pytest.mark.parametrize(("sensor", "moves"), [
    ("tomb.monster", ["middle", "end_b", "moving", "fault", "end_a"]),
    ("trap.grave1.peg_b", ["pulled", "in"]),
    ("trap.mirror.sprung", ["sprung", "cocked"]),
    ("launcher", ["launched", "armed"]),
])
def test_simulate_goes_through_the_debouncer(make_hub: Callable[..., SensorHub], recorder: Recorder,
                                              sensor: str, moves: list[str]) -> None:
    cfg = load_hardware_config({"debounce": {"tomb_settle": 40}})
    hub = make_hub(cfg, simulate=True)
    for n, value in enumerate(moves, start=1):
        hub.simulate(sensor, value, bounce_ms=6)
        got = recorder.wait_count(n, sensor)
        assert got[-1].value == value
    assert recorder.stays_at(len(moves), 0.08)
    assert hub.snapshot()[sensor].value == moves[-1]
    inputs = hub.health()["sensors"][sensor]["inputs"].values()
    assert sum(i["edges"] for i in inputs) > len(moves)  # the bursts really bounced


def test_simulating_the_current_value_changes_nothing(make_hub: Callable[..., SensorHub], recorder: Recorder) -> None:
    hub = make_hub(load_hardware_config(None), simulate=True)
    hub.simulate("launcher", "armed", bounce_ms=5)
    assert recorder.stays_at(0, 0.06)


def test_bad_simulate_requests_are_refused_and_change_nothing(make_hub: Callable[..., SensorHub],
                                                              recorder: Recorder) -> None:
    hub = make_hub(load_hardware_config(None), simulate=True)
    before = hub.snapshot()
    with pytest.raises(ValueError, match=r"unknown sensor 'tomb\.dragon' \(configured: tomb\.mummy, "):
        hub.simulate("tomb.dragon", "end_a")
    with pytest.raises(ValueError, match=r"unknown sensor 'chute\.left'"):
        hub.simulate("chute.left", "clear")  # a real sensor id, but not configured
    with pytest.raises(ValueError, match=r"a tomb cannot be 'open' \(one of end_a, middle, end_b, moving, fault\)"):
        hub.simulate("tomb.wolf", "open")
    with pytest.raises(ValueError, match=r"a peg sensor cannot be 'sprung' \(one of in, pulled\)"):
        hub.simulate("trap.ladder.peg_a", "sprung")
    for bad in (-1, 5000, True, "10"):
        with pytest.raises(ValueError, match="bounce_ms must be 0 to 1000"):
            hub.simulate("launcher", "launched", bounce_ms=bad)  # type: ignore[arg-type]
    assert recorder.stays_at(0, 0.05)
    assert hub.snapshot() == before


def test_simulate_refuses_real_hardware(make_hub: Callable[..., SensorHub]) -> None:
    hub = make_hub(load_hardware_config(None))  # mock pins, but not a simulator
    with pytest.raises(RuntimeError, match="launcher is real hardware"):
        hub.simulate("launcher", "launched")


def test_sim_source_without_the_simulator(make_hub: Callable[..., SensorHub], recorder: Recorder) -> None:
    cfg = load_hardware_config({"pin_map": "none", "sensors": {"chute.left": {"source": "sim"},
                                                               "launcher": {"pin": 13}}})
    hub = make_hub(cfg)
    assert {o.sensor: (o.value, o.source) for o in recorder.items} == {
        "chute.left": ("blocked", "sim"), "launcher": ("launched", "gpio")}
    hub.simulate("chute.left", "clear", bounce_ms=4)
    got = recorder.wait_count(1, "chute.left")
    assert (got[0].value, got[0].source) == ("clear", "sim")


def test_gpio_outputs(make_hub: Callable[..., SensorHub], factory: MockFactory) -> None:
    cfg = load_hardware_config({"outputs": {"lamp": {"kind": "led", "pin": 14},
                                            "eyes": {"kind": "pwm_led", "pin": 15},
                                            "alarm": {"kind": "buzzer", "pin": 0, "active": "low"}}})
    hub = make_hub(cfg, simulate=True)
    assert factory.pin(14).state == 0 and factory.pin(0).state == 1  # all off at start
    hub.set_output("lamp", True)
    hub.set_output("eyes", 0.25)
    hub.set_output("alarm", True)
    assert factory.pin(14).state == 1 and factory.pin(15).state == pytest.approx(0.25) and factory.pin(0).state == 0
    hub.set_output("lamp", 0)
    hub.set_output("alarm", False)
    assert factory.pin(14).state == 0 and factory.pin(0).state == 1
    for name, bad in (("lamp", 0.5), ("eyes", 1.5), ("eyes", "on"), ("lamp", None)):
        with pytest.raises(ValueError, match=f"output '{name}'"):
            hub.set_output(name, bad)  # type: ignore[arg-type]
    assert factory.pin(15).state == pytest.approx(0.25)
    with pytest.raises(ValueError, match=r"unknown output 'siren' \(outputs: lamp, eyes, alarm\)"):
        hub.set_output("siren", True)


def test_outputs_need_a_started_hub() -> None:
    hub = SensorHub(load_hardware_config(None), on_observation=lambda o: None, simulate=True)
    with pytest.raises(RuntimeError, match="start"):
        hub.set_output("lamp", True)
    hub.close()


def test_an_output_pin_in_use_is_a_clear_error_and_releases_the_inputs(factory: MockFactory) -> None:
    from gpiozero import LED

    from hardware.hub import HardwareError

    squatter = LED(14, pin_factory=factory)
    cfg = load_hardware_config({"outputs": {"lamp": {"kind": "led", "pin": 14}}})
    hub = SensorHub(cfg, on_observation=lambda o: None, pin_factory=factory)
    with pytest.raises(HardwareError, match=r"cannot open GPIO 14 for output lamp"):
        hub.start()
    squatter.close()
    # the failed start closed every input it had opened: another hub can take them all
    with SensorHub(cfg, on_observation=lambda o: None, pin_factory=factory) as again:
        assert len(again.snapshot()) == 16


def test_no_gpio_on_this_machine_says_to_simulate(monkeypatch: pytest.MonkeyPatch) -> None:
    from hardware.hub import HardwareError

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-backend")  # whatever machine runs the tests
    hub = SensorHub(load_hardware_config(None), on_observation=lambda o: None)
    with pytest.raises(HardwareError, match=r"^cannot open GPIO 4 for tomb\.mummy\.end_a: .*run with --simulate$"):
        hub.start()
    assert hub.health()["links"]["gpio"]["state"] == "offline"


def test_config_must_be_validated_first() -> None:
    with pytest.raises(TypeError, match="config must be a HardwareConfig"):
        SensorHub({"sensors": {}}, on_observation=lambda o: None)  # type: ignore[arg-type]
