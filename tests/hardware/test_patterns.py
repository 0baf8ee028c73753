"""Light and buzzer patterns: their steps, and their timing on gpiozero's mock pins."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.config import load_hardware_config
from hardware.hub import SensorHub
from hardware.patterns import Pattern, PatternError, PatternPlayer, steps

OUTPUTS = {"outputs": {"lamp": {"kind": "led", "pin": 14}, "eyes": {"kind": "pwm_led", "pin": 15},
                       "alarm": {"kind": "buzzer", "pin": 0, "active": "low"}}}


def test_steps_of_each_pattern() -> None:
    assert steps(Pattern("off"), dimmable=False) == [(0, 0.0)]
    assert steps(Pattern("on", ms=500), dimmable=True) == [(0, 1.0), (500, 0.0)]
    assert steps(Pattern("on", ms=500, level=0.3), dimmable=True) == [(0, 0.3), (500, 0.0)]
    assert steps(Pattern("on", ms=500, level=0.3), dimmable=False) == [(0, 1.0), (500, 0.0)]
    assert steps(Pattern("blink", ms=400, period_ms=200), dimmable=False) == \
        [(0, 1.0), (100, 0.0), (200, 1.0), (300, 0.0), (400, 0.0)]
    pulse = steps(Pattern("pulse", ms=200, period_ms=200), dimmable=True)
    levels = [lv for _, lv in pulse]
    assert levels[0] == 0.0 and max(levels) == 1.0 and levels[-1] == 0.0 and len(pulse) == 11
    assert steps(Pattern("pulse", ms=400, period_ms=200), dimmable=False) == \
        steps(Pattern("blink", ms=400, period_ms=200), dimmable=False)  # an on/off output blinks slowly
    a = steps(Pattern("flicker", ms=1000, period_ms=120), dimmable=True, seed=3)
    assert a == steps(Pattern("flicker", ms=1000, period_ms=120), dimmable=True, seed=3)
    assert a != steps(Pattern("flicker", ms=1000, period_ms=120), dimmable=True, seed=4)
    gaps = [b[0] - x[0] for x, b in zip(a, a[1:], strict=False)]
    assert all(0 < g <= 120 for g in gaps[:-1]) and len(set(gaps)) > 2 and a[-1] == (1000, 0.0)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"kind": "strobe"}, "pattern 'strobe'"), ({"kind": "on", "ms": 0}, "ms must be"),
    ({"kind": "blink", "period_ms": 5}, "period_ms must be"), ({"kind": "on", "level": 2}, "level must be"),
])
def test_a_bad_pattern_says_which_setting(kwargs: dict, words: str) -> None:
    with pytest.raises(PatternError, match=words):
        Pattern(**kwargs)


def _wait(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    done = threading.Event()
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        done.wait(0.005)


def test_blink_on_a_mock_pin_keeps_its_timing(make_hub: Callable[..., SensorHub], factory: MockFactory) -> None:
    """Each step comes at its planned time from the start, never early, and lateness does not add up.

    The machine running the tests is shared, so a step may come late; the steps are
    planned from the pattern's start, so the next one is on time again.
    """
    hub = make_hub(load_hardware_config(OUTPUTS), simulate=True)
    pin = factory.pin(14)
    pin.clear_states()
    hub.play_pattern("lamp", Pattern("blink", ms=600, period_ms=200))
    _wait(lambda: len(pin.states) >= 7)  # start, then on/off every 100 ms, then off
    assert [s.state for s in pin.states] == [0, 1, 0, 1, 0, 1, 0]
    since_first = [sum(s.timestamp for s in pin.states[2:i + 1]) for i in range(2, 7)]
    planned = [0.1, 0.2, 0.3, 0.4, 0.5]
    for got, want in zip(since_first, planned, strict=False):
        assert want - 0.005 <= got <= want + 0.15, (since_first, planned)


def test_a_new_pattern_replaces_the_running_one_and_everything_ends_off(
        make_hub: Callable[..., SensorHub], factory: MockFactory) -> None:
    hub = make_hub(load_hardware_config(OUTPUTS), simulate=True)
    eyes, alarm = factory.pin(15), factory.pin(0)
    hub.play_pattern("eyes", Pattern("blink", ms=10_000, period_ms=100))
    _wait(lambda: eyes.state == 1)
    hub.play_pattern("eyes", Pattern("on", ms=150, level=0.4))
    _wait(lambda: eyes.state == pytest.approx(0.4))
    _wait(lambda: eyes.state == 0)
    eyes.clear_states()
    done = threading.Event()
    assert not done.wait(0.25)  # the old blink (10 s) must not come back
    assert eyes.state == 0 and [s.state for s in eyes.states] == [0]
    hub.play_pattern("alarm", Pattern("on", ms=5000))
    _wait(lambda: alarm.state == 0)  # active low: on
    alarm.clear_states()
    hub.close()
    assert [s.state for s in alarm.states][:2] == [0, 1]  # closing turned the running buzzer off first


def test_pulse_fades_a_pwm_led(make_hub: Callable[..., SensorHub], factory: MockFactory) -> None:
    hub = make_hub(load_hardware_config(OUTPUTS), simulate=True)
    eyes = factory.pin(15)
    eyes.clear_states()
    hub.play_pattern("eyes", Pattern("pulse", ms=400, period_ms=200))
    _wait(lambda: len(eyes.states) > 5 and eyes.state == 0 and not hub._outputs._patterns.running("eyes"))  # type: ignore[union-attr]
    levels = {round(s.state, 2) for s in eyes.states}
    assert any(0 < lv < 1 for lv in levels) and 1.0 in levels


def test_a_failing_output_does_not_stop_the_others() -> None:
    seen: list[tuple[str, float]] = []

    def set_level(name: str, level: float) -> None:
        if name == "dead":
            raise OSError("the wire is cut")
        seen.append((name, level))

    player = PatternPlayer(set_level, dimmable=lambda n: False)
    try:
        player.play("dead", Pattern("on", ms=50))
        player.play("lamp", Pattern("on", ms=50))
        _wait(lambda: ("lamp", 0.0) in seen)
        assert player.failures == 2 and seen == [("lamp", 1.0), ("lamp", 0.0)]
    finally:
        player.close()


def test_unknown_output_is_a_clear_error(make_hub: Callable[..., SensorHub]) -> None:
    hub = make_hub(load_hardware_config(OUTPUTS), simulate=True)
    with pytest.raises(ValueError, match=r"unknown output 'siren' \(outputs: lamp, eyes, alarm\)"):
        hub.play_pattern("siren", Pattern("on"))
