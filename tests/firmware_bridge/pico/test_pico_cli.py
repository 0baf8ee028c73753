"""``python -m firmware_bridge.pico_emulator``: the emulated Pico on a pty, opened like a real board's port."""

from __future__ import annotations

import subprocess
import sys

import pytest

from firmware_bridge.link import McuLink

from ..recorder import Recorder

WAIT_S = 120.0


@pytest.mark.slow
def test_cli_serves_the_board_on_a_port_the_link_opens() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge.pico_emulator"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        path = proc.stdout.readline().strip()
        assert path, proc.stderr.read() if proc.stderr else ""
        recorder = Recorder()
        with McuLink(path, recorder, heartbeat_timeout=30.0) as link:
            link.start()
            assert recorder.wait_for(lambda: len(recorder.levels) == 16, WAIT_S), recorder.calls
            hello = recorder.of("hello")[0][1]
            assert (hello.firmware, hello.channels, hello.outputs) == ("gkfw-1.0.0", 16, 4)
        proc.stdin.close()  # end of stdin ends the board
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def test_cli_refuses_a_link_path_that_is_not_a_symlink(tmp_path: object) -> None:
    from pathlib import Path
    target = Path(str(tmp_path)) / "taken"
    target.write_text("")
    proc = subprocess.run([sys.executable, "-m", "firmware_bridge.pico_emulator", "--link", str(target)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "not a symlink" in proc.stderr
