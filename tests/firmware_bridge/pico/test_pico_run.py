"""``gravekeeper run`` with its sensors on the emulated Pico: a tomb slid and the launcher fired by setting pins.

The controller opens the board's pty exactly as it would a real Pico's serial
port (``hardware.mcu.port``); the readings it publishes on MQTT must follow
the pins, each once and in the order they were moved.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.pico_emulator.board import EmulatedPico
from tests.support.broker import Broker, free_port
from tests.support.mqtt import Subscriber
from tests.support.pico_board import TERROR_CHANNELS, hardware_toml

# The free-running boards under ``gravekeeper run`` share one worker (test_pico_chain.py too): two on two
# cores would starve each other and every other test.
pytestmark = pytest.mark.xdist_group("pico-run")

ROOT = Path(__file__).resolve().parents[3]
WAIT_S = 120.0
CHANNELS = TERROR_CHANNELS


def config_text(tmp: Path, broker: Broker, port: str) -> str:
    return (f'[table]\nid = "pico"\ntoken = "tok-pico"\ngame = "terror"\nplayers = ["Ann", "Bo"]\nseed = 1\n'
            f'[mqtt]\nurl = "{broker.url}"\n[journal]\npath = "{tmp / "pico.journal"}"\n'
            f"[panel]\nport = {free_port()}\n" + hardware_toml(port, CHANNELS))


@pytest.fixture
def running(tmp_path: Path, mosquitto: Broker,
            free_pico: tuple[EmulatedPico, str]) -> Iterator[tuple[EmulatedPico, Subscriber]]:
    board, port = free_pico
    for tomb in ("tomb.mummy", "tomb.monster", "tomb.wolf"):
        board.close_switch(CHANNELS[f"{tomb}.end_a"])  # every tomb at end A
    board.close_switch(CHANNELS["launcher"])  # the launcher armed
    config = tmp_path / "pico.toml"
    config.write_text(config_text(tmp_path, mosquitto, port))
    with Subscriber(mosquitto.host, mosquitto.port, ("gravekeeper/pico/sensors",)) as sub:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config),
                                 "--log-level", "warning"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        lines: list[str] = []
        assert proc.stdout is not None
        out = proc.stdout
        threading.Thread(target=lambda: lines.extend(out), daemon=True).start()
        try:
            yield board, sub
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def readings(sub: Subscriber) -> list[dict[str, Any]]:
    """Every published sensors payload's values, oldest first."""
    return [{k: v["value"] for k, v in m.json()["sensors"].items()} for m in sub.on("gravekeeper/pico/sensors")
            if m.payload]


@pytest.mark.slow
def test_run_follows_the_emulated_pico_pins(running: tuple[EmulatedPico, Subscriber]) -> None:
    board, sub = running

    def latest_is(**want: str) -> bool:
        got = readings(sub)
        return bool(got) and all(got[-1].get(k.replace("_", ".", 1)) == v for k, v in want.items())

    sub.wait_for(lambda _: latest_is(tomb_wolf="end_a", launcher="armed"), WAIT_S)
    sources = sub.on("gravekeeper/pico/sensors")[-1].json()["sensors"]["tomb.wolf"]
    assert sources["source"] == "mcu"
    # The Wolf's tomb slides from end A to end B, then the ghost is launched.
    board.open_switch(CHANNELS["tomb.wolf.end_a"])
    board.close_switch(CHANNELS["tomb.wolf.end_b"])
    sub.wait_for(lambda _: latest_is(tomb_wolf="end_b"), WAIT_S)
    board.open_switch(CHANNELS["launcher"])
    sub.wait_for(lambda _: latest_is(launcher="launched"), WAIT_S)
    # Each reading once, in order: the wolf reached end B before the launcher fired, and nothing else moved.
    wolf = [r["tomb.wolf"] for r in readings(sub)]
    launcher = [r["launcher"] for r in readings(sub)]
    assert [v for i, v in enumerate(wolf) if i == 0 or v != wolf[i - 1]][-2:] in (["end_a", "end_b"],
                                                                                 ["moving", "end_b"])
    first_launched = launcher.index("launched")
    assert wolf[first_launched] == "end_b"
    assert all(r["tomb.mummy"] == "end_a" and r["tomb.monster"] == "end_a" for r in readings(sub))
