"""How old the panel's copy of a table's state is, when it shows a running timer (``MqttView.aged_state``).

A page opened in the middle of an outcome window counts down from the state's ``left_ms`` less its
``age_ms`` (``countdown.js``). A state published while the panel listens is as old as the time since
it arrived; a retained copy the broker sends at (re)subscription may be older, and the table's own
stamp (``time``) says by how much, unless the two clocks plainly disagree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from web_panel import PanelSettings
from web_panel.mqtt import MqttView


@pytest.fixture
def view() -> Iterator[MqttView]:
    v = MqttView(PanelSettings())  # fed directly: no broker, no token (nothing to verify)
    yield v
    v.close()


def state(**extra: Any) -> bytes:
    return json.dumps({"seq": 3, "game": "terror", "game_id": "g1", "players": ["Ann", "Bo"], "expects": [
        {"kind": "skull_outcome", "window_ms": 8000, "left_ms": 6000}], **extra}).encode()


def age_ms(view: MqttView) -> Any:
    snap = view.snapshot("t1")
    assert snap is not None
    return snap["state"].get("age_ms")


def test_a_state_without_a_timer_is_shown_as_published(view: MqttView) -> None:
    view.handle("gravekeeper/t1/state", json.dumps({"seq": 1, "game_id": "g1", "expects": []}).encode())
    snap = view.snapshot("t1")
    assert snap is not None and snap["state"] == {"seq": 1, "game_id": "g1", "expects": []}


def test_a_live_state_ages_from_when_it_arrived(view: MqttView, monkeypatch: pytest.MonkeyPatch) -> None:
    view.handle("gravekeeper/t1/state", state(time=time.time() - 30))  # a slow wall clock does not matter
    first = age_ms(view)
    assert 0 <= first < 200
    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() + 0.25)  # a quarter second goes by, without waiting
    assert age_ms(view) >= first + 200


def test_a_retained_copy_ages_by_the_tables_stamp(view: MqttView) -> None:
    view.handle("gravekeeper/t1/state", state(time=time.time() - 5), retained=True)
    assert 4900 <= age_ms(view) < 5300


@pytest.mark.parametrize("off_by", [-60.0, 3600.0])
def test_a_retained_copy_from_a_clock_that_disagrees_ages_from_its_arrival(view: MqttView, off_by: float) -> None:
    view.handle("gravekeeper/t1/state", state(time=time.time() - off_by), retained=True)
    assert 0 <= age_ms(view) < 200


def test_the_stream_gets_the_aged_copy_too(view: MqttView) -> None:
    sub = view.subscribe("t1")
    try:
        view.handle("gravekeeper/t1/state", state(time=time.time() - 5), retained=True)
        item = sub.get(1)
        assert item is not None and item.kind == "state" and 4900 <= item.data["age_ms"] < 5300
    finally:
        view.unsubscribe(sub)
