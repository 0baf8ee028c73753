"""``gravekeeper mcu-sim`` as a user runs it: a subprocess, its printed path, commands on stdin."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import mcu_sim
from firmware_bridge.link import McuLink
from tests.firmware_bridge.recorder import Recorder, wait_until

ROOT = Path(__file__).resolve().parents[2]


def start_sim(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "mcu-sim", *args],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )


@pytest.fixture
def sim() -> Iterator[subprocess.Popen[str]]:
    proc = start_sim("--channels", "6", "--outputs", "2", "--heartbeat", "0.1")
    yield proc
    if proc.poll() is None:
        proc.terminate()  # SIGTERM lets it remove its device symlink and temp directory
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    proc.wait(5)


def command(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def test_sim_prints_its_path_and_obeys_commands(sim: subprocess.Popen[str]) -> None:
    assert sim.stdout is not None
    path = sim.stdout.readline().strip()
    assert path.endswith("/ttyMCU") and Path(path).is_symlink()
    rec = Recorder()
    with McuLink(path, rec, heartbeat_timeout=1.0, backoff=(0.02, 0.2)) as link:
        assert rec.wait_count("snapshot", 1)
        assert rec.levels == {ch: True for ch in range(6)}
        command(sim, "set 2 0 3 low")
        assert rec.wait_for(lambda: rec.levels[2] is False and rec.levels[3] is False)
        command(sim, "bounce 5 0 3 4")
        # 4 edges from high would end high: the sim adds a fifth to end low.
        assert rec.wait_for(lambda: len([c for c in rec.calls if c[:2] == ("change", 5)]) == 5)
        assert rec.levels[5] is False
        command(sim, "unplug")
        assert rec.wait_count("offline", 1)
        command(sim, "set 1 0")
        command(sim, "replug")
        assert rec.wait_count("online", 2)
        assert rec.wait_for(lambda: rec.levels[1] is False)
        command(sim, "hang")
        assert rec.wait_count("offline", 2)  # the heartbeat timeout
        command(sim, "resume")
        assert rec.wait_count("online", 3)
        snapshots = link.counters["snapshots"]
        command(sim, "reset")
        assert wait_until(lambda: link.counters["resets"] == 1)
        # The snapshot asked for at the HELLO comes after the outputs are sent again: once it is
        # in, nothing else will echo an "output" line ahead of the one below.
        assert wait_until(lambda: link.counters["snapshots"] > snapshots)
        link.set_output(1, 9)
        assert sim.stdout.readline().strip() == "output 1 9"
        command(sim, "status")
        assert sim.stdout.readline().strip() == "levels 100010"  # channels 1, 2, 3 and 5 are low
        assert sim.stdout.readline().strip() == "outputs 0 9"
        command(sim, "quit")
        assert sim.wait(5) == 0
    assert not Path(path).exists()


def test_bad_interactive_command_is_reported_and_the_sim_keeps_going(sim: subprocess.Popen[str]) -> None:
    assert sim.stdout is not None and sim.stderr is not None
    sim.stdout.readline()
    command(sim, "set 9 1")
    command(sim, "status")
    assert sim.stdout.readline().startswith("levels 111111")
    command(sim, "quit")
    assert sim.wait(5) == 0
    err = sim.stderr.read()
    assert "error: line 1: channel must be 0..5, got 9" in err


def test_script_runs_first_and_eof_ends_the_sim(tmp_path: Path) -> None:
    script = tmp_path / "moves.txt"
    script.write_text("# open a trap\nset 0 0\ncorrupt 2\nset 0 1 1 0  # two at once\nstatus\n")
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "mcu-sim", "--channels", "3", "--script", str(script)],
        cwd=ROOT, input="", capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == "levels 101"


@pytest.mark.parametrize(
    ("script", "needle"),
    [
        ("set 0 1\nfly away\n", "line 2: unknown command 'fly'"),
        ("set 0 maybe\n", "line 1: level must be one of"),
        ("bounce 0 1 5 0\n", "line 1: bounce edges must be 1..1000, got 0"),
        ("replug later\n", "line 1: 'replug' takes only the word 'reset'"),
    ],
)
def test_bad_script_exits_2_naming_the_line(tmp_path: Path, script: str, needle: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(script)
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "mcu-sim", "--script", str(path)],
        cwd=ROOT, input="", capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 2
    assert needle in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stdout == ""  # nothing was started


def test_bad_option_exits_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "mcu-sim", "--channels", "300"],
        cwd=ROOT, capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 2 and "--channels must be 1..255, got 300" in proc.stderr


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", None),
        ("  # note", None),
        ("SET 1 On", mcu_sim.Command("set", ((1, True),))),
        ("bounce 2 off", mcu_sim.Command("bounce", (2, False, 5.0, 6))),
        ("corrupt", mcu_sim.Command("corrupt", (1,))),
        ("replug reset", mcu_sim.Command("replug", (True,))),
        ("exit", mcu_sim.Command("quit")),
    ],
)
def test_parse_command(line: str, expected: mcu_sim.Command | None) -> None:
    assert mcu_sim.parse_command(line, 4) == expected


@pytest.mark.parametrize(
    ("line", "needle"),
    [("set 1", "pairs of CHANNEL LEVEL"), ("set x 1", "channel must be an integer, got 'x'"),
     ("reset now", "'reset' takes 0 arguments, got 1"), ("sleep -1", "sleep seconds must be 0..3600"),
     ("corrupt 0", "byte count must be 1..300, got 0")],
)
def test_parse_command_errors(line: str, needle: str) -> None:
    with pytest.raises(mcu_sim.McuSimCommandError, match=needle):
        mcu_sim.parse_command(line, 4)


def test_link_option_fixes_the_device_path(tmp_path: Path) -> None:
    link_path = tmp_path / "ttyGRAVE"
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "mcu-sim", "--link", str(link_path)],
        cwd=ROOT, input="status\n", capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == str(link_path)
    assert not link_path.exists() and not link_path.is_symlink()  # removed on exit


def test_link_option_refuses_to_replace_a_real_file(tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("keep me")
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "mcu-sim", "--link", str(precious)],
        cwd=ROOT, input="", capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 2 and "--link: path" in proc.stderr and "is not a symlink" in proc.stderr
    assert precious.read_text() == "keep me"


def test_without_stdin_sigterm_stops_it_and_removes_its_device() -> None:
    proc = start_sim("--channels", "2", "--no-stdin")
    try:
        assert proc.stdout is not None
        path = Path(proc.stdout.readline().strip())
        assert path.is_symlink()
        proc.terminate()
        assert proc.wait(10) == 0
        assert not path.exists() and not path.is_symlink()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
