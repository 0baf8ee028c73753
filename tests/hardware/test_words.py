"""Every part of the board and every reading has words: no id reaches a message a person reads."""

from __future__ import annotations

import re

import pytest

from hardware.config import load_hardware_config
from hardware.observation import ALL_SENSORS, sensor_values
from hardware.words import capital, part, parts, reading


def _labels() -> list[str]:
    config = load_hardware_config(None)  # the default board: every sensor, every input
    return [*ALL_SENSORS, *(f"{s.id}.{role}" for s in config.sensors for role, _ in s.inputs if role != "input")]


@pytest.mark.parametrize("label", _labels())
def test_every_part_is_named_in_words(label: str) -> None:
    name = part(label)
    assert name.startswith("the ") and not re.search(r"[._]", name), name


def test_parts_read_as_one_phrase() -> None:
    assert part("tomb.wolf.end_b") == "the Wolf tomb's end B switch"
    assert part("trap.grave1.sprung") == "the first Grave trap's spring switch"
    assert parts(["launcher"]) == "the Ghost launcher"
    assert parts(["launcher", "chute.left",
                  "tomb.mummy"]) == "the Ghost launcher, the left Crypt window and the Mummy tomb"
    assert capital(part("chute.right")) == "The right Crypt window"


def test_an_unknown_id_is_still_said_without_dots() -> None:
    assert part("tomb.dragon") == "tomb dragon"


@pytest.mark.parametrize("value", sorted({v for s in ALL_SENSORS for v in sensor_values(s)}))
def test_every_reading_is_in_words(value: str) -> None:
    assert "_" not in reading(value)
