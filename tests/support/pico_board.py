"""The board ``gravekeeper run`` reads on the emulated Pico: each game's sensors on the board's input channels,
and the config that says so (the whole-chain tests, ``tests/firmware_bridge/pico``)."""

from __future__ import annotations

from typing import Any

# Every switch closes to ground (active low, the firmware's pull-ups): a closed switch is a tomb at that
# stop, the ghost on its launcher, a peg in its hole, a trap's lid cocked.
TERROR_CHANNELS = {"tomb.mummy.end_a": 0, "tomb.mummy.middle": 1, "tomb.mummy.end_b": 2,
                   "tomb.monster.end_a": 3, "tomb.monster.middle": 4, "tomb.monster.end_b": 5,
                   "tomb.wolf.end_a": 6, "tomb.wolf.middle": 7, "tomb.wolf.end_b": 8,
                   "launcher": 9}
SUPERSTITION_CHANNELS = {f"trap.{trap}.{part}": 3 * i + j
                         for i, trap in enumerate(("ladder", "mirror", "grave1", "grave2"))
                         for j, part in enumerate(("peg_a", "peg_b", "sprung"))}


def hardware_toml(port: str, channels: dict[str, int]) -> str:
    """The config's ``[hardware]`` sections: no GPIO, the Pico on ``port``, each sensor input on its channel
    (a tomb's three stops under ``tomb.<name>``, settling in 40 ms rather than a hand's 250)."""
    tombs: dict[str, list[str]] = {}
    single: list[str] = []
    for label, channel in channels.items():
        if label.startswith("tomb."):
            sensor, _, stop = label.rpartition(".")
            tombs.setdefault(sensor, []).append(f'{stop} = {{ source = "mcu", channel = {channel} }}\n')
        else:
            single.append(f'"{label}" = {{ source = "mcu", channel = {channel} }}\n')
    return (f'[hardware]\npin_map = "none"\n[hardware.mcu]\nport = "{port}"\nstart_timeout_s = 60\n'
            + "".join(f"[hardware.sensors.{sensor}]\n" + "".join(stops) + "settle_ms = 40\n"
                      for sensor, stops in tombs.items())
            + "[hardware.sensors]\n" + "".join(single))


# What each kind of sensor reads while its switch is closed; any other value opens it.
CLOSED = {"launcher": "armed", "peg_a": "in", "peg_b": "in", "sprung": "cocked"}


def set_reading(board: Any, channels: dict[str, int], sensor: str, value: str) -> None:
    """Make ``sensor`` read ``value`` by its switches, as a hand would: a tomb leaves its stop before it
    reaches the next (it reads ``moving`` between), a peg is pulled or pushed in, a lid springs or is cocked."""
    if sensor.startswith("tomb."):
        stops = {label.rpartition(".")[2]: ch for label, ch in channels.items() if label.startswith(sensor + ".")}
        assert value in stops, f"{sensor} has no stop {value!r}"
        for stop, channel in stops.items():
            if stop != value:
                board.open_switch(channel)
        board.close_switch(stops[value])
        return
    part = sensor.rpartition(".")[2]
    if value == CLOSED[part]:
        board.close_switch(channels[sensor])
    else:
        board.open_switch(channels[sensor])


def set_board(board: Any, channels: dict[str, int], readings: dict[str, str]) -> None:
    """Every sensor of ``readings`` (a game's ``expected_board()``) as it says."""
    for sensor, value in readings.items():
        set_reading(board, channels, sensor, value)
