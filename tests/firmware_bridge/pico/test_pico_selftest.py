"""``gravekeeper selftest`` against the emulated Pico on a pty: every automatic check passes, as with a real board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from firmware_bridge.pico_emulator.board import EmulatedPico
from firmware_bridge.pico_emulator.serial_port import FREE_RUN_CYCLE_SCALE, PicoSerialPort
from tests.support.broker import Broker

BOARD = """
[hardware]
pin_map = "none"
[hardware.mcu]
port = "{port}"
start_timeout_s = 60
[hardware.sensors.tomb.wolf]
end_a = {{ source = "mcu", channel = 0 }}
middle = {{ source = "mcu", channel = 1 }}
end_b = {{ source = "mcu", channel = 2 }}
[hardware.sensors]
launcher = {{ source = "mcu", channel = 3 }}
[hardware.outputs]
eyes = {{ kind = "led", source = "mcu", channel = 1 }}
"""


@pytest.mark.slow
def test_selftest_passes_every_automatic_check_on_the_emulated_pico(
        tmp_path: Path, mosquitto: Broker, capsys: pytest.CaptureFixture[str]) -> None:
    with EmulatedPico(cycle_scale=FREE_RUN_CYCLE_SCALE) as board, PicoSerialPort(board) as port:
        board.close_switch(0)  # the Wolf tomb at end A
        board.close_switch(3)  # the launcher armed
        config = tmp_path / "gk.toml"
        config.write_text(f'[table]\nid = "pico"\n[journal]\npath = "{tmp_path / "pico.journal"}"\n'
                          f'[mqtt]\nurl = "{mosquitto.url}"\n' + BOARD.format(port=port.path))
        code = main(["selftest", "--json", "--config", str(config)])
        out, err = capsys.readouterr()
    report = json.loads(out)
    statuses = {c["id"]: c["status"] for c in report["checks"]}
    assert code == 0 and report["ok"] is True, [c for c in report["checks"] if c["status"] != "pass"]
    not_passed = [c for c in report["checks"] if c["status"] != "pass"]
    # The round trips are wall-clock times (a PONG within 100 ms, the worst under
    # 50 ms) through an emulator that runs in software beside the rest of the
    # suite: on a loaded runner it falls behind the wall clock, and a third of
    # the pings came back late in a run at load average 15. The check passes on
    # a quiet machine; here PONGs must come back (the firmware answers PING),
    # while how late they come is the machine's doing, not the firmware's.
    ping = next(c for c in report["checks"] if c["id"] == "mcu.ping")
    if ping["status"] == "warn":
        assert ping["data"]["lost"] < ping["data"]["sent"], ping
        not_passed.remove(ping)
    assert {c["id"]: c["status"] for c in not_passed} == {"journal.integrity": "skip"}, not_passed
    assert {"mcu.handshake", "mcu.protocol", "mcu.heartbeat", "mcu.errors"} <= {
        cid for cid, status in statuses.items() if status == "pass"}
    handshake = next(c for c in report["checks"] if c["id"] == "mcu.handshake")
    assert "gkfw-1.0.0" in json.dumps(handshake)
