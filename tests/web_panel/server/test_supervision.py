"""``gravekeeper run`` keeps its panel running: a panel that dies is started again, and the table goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.support.broker import Broker, free_port
from tests.support.mqtt import Subscriber
from tests.support.run import ROOT, RunProcess

pytestmark = pytest.mark.timeout(120)


def _panel_child(run: RunProcess) -> psutil.Process:
    children = [p for p in psutil.Process(run.proc.pid).children() if "web_panel.child" in " ".join(p.cmdline())]
    assert len(children) == 1, f"expected one panel child, found {children}"
    return children[0]


def _answers(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as r:
        return int(r.status)


def test_a_panel_that_dies_is_started_again_and_the_health_says_so(mosquitto: Broker, tmp_path: Path) -> None:
    table = "rr-supervised"
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "{table}"\ntoken = "sup-token"\ngame = "dogs"\n'
                   f'[journal]\npath = "{tmp_path / "t.journal"}"\n'
                   f'[panel]\nhost = "127.0.0.1"\nport = {free_port()}\n')
    health = f"gravekeeper/{table}/health"
    with Subscriber(mosquitto.host, mosquitto.port, (health, f"gravekeeper/{table}/status")) as sub:
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
        try:
            url = run.wait_line("panel: http").split("panel: ", 1)[1].strip()
            assert "open-file limit" in run.wait_line("open-file limit")
            assert _answers(url) == 200
            sub.wait_latest(health, lambda h: (h.get("panel") or {}).get("state") == "running", 15)

            first = _panel_child(run)
            first.send_signal(signal.SIGKILL)
            line = run.wait_line("panel: it stopped")
            assert "killed by signal SIGKILL" in line and "again in 1 s" in line
            run.wait_line("(restart 1)", 30)
            assert _answers(url) == 200
            last = sub.wait_latest(health, lambda h: (h.get("panel") or {}).get("restarts") == 1
                                   and h["panel"]["state"] == "running", 15)
            assert last["panel"]["last_exit"] == "killed by signal SIGKILL"

            # Dying again soon after waits longer; the controller stays online all along.
            _panel_child(run).send_signal(signal.SIGKILL)
            assert "again in 2 s" in run.wait_line("starting it again in 2 s")
            run.wait_line("(restart 2)", 30)
            assert run.proc.poll() is None
            status = sub.latest(f"gravekeeper/{table}/status")
            assert status is not None and status.get("state") == "online"
            assert run.terminate() == 0
        finally:
            run.close()


HANG_TIMEOUT = 4  # panel.hang_timeout: seconds serving no page before it is started again (30 by default)


def test_a_panel_that_hangs_is_killed_and_started_again(mosquitto: Broker, tmp_path: Path) -> None:
    """A panel stopped (SIGSTOP: what a deadlock or a wedged loop looks like from outside) has not died, yet
    serves no page: the phones would wait forever. It is killed and started again; one that answers is not."""
    table = "rr-hung"
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "{table}"\ntoken = "sup-token"\ngame = "dogs"\n'
                   f'[journal]\npath = "{tmp_path / "t.journal"}"\n'
                   f'[panel]\nhost = "127.0.0.1"\nport = {free_port()}\nhang_timeout = {HANG_TIMEOUT}\n')
    health = f"gravekeeper/{table}/health"
    with Subscriber(mosquitto.host, mosquitto.port, (health,)) as sub:
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
        try:
            url = run.wait_line("panel: http").split("panel: ", 1)[1].strip()
            first = _panel_child(run)
            # Twice the timeout with a panel that answers: nothing is killed.
            with pytest.raises(AssertionError, match="no line with 'panel: it stopped'"):
                run.wait_line("panel: it stopped", 2 * HANG_TIMEOUT)
            assert first.is_running() and _answers(url) == 200
            first.send_signal(signal.SIGSTOP)
            line = run.wait_line("panel: it stopped", 6 * HANG_TIMEOUT)
            assert "it served no page for" in line and "again in 1 s" in line, line
            run.wait_line("(restart 1)", 30)
            assert not first.is_running() or first.status() == psutil.STATUS_ZOMBIE
            assert _panel_child(run).pid != first.pid
            assert _answers(url) == 200
            last = sub.wait_latest(health, lambda h: (h.get("panel") or {}).get("restarts") == 1
                                   and h["panel"]["state"] == "running", 15)
            assert last["panel"]["last_exit"].startswith("it served no page for")
            assert run.proc.poll() is None
            assert run.terminate() == 0
        finally:
            run.close()


def test_a_club_panel_that_hangs_stops_with_status_1_for_its_service_manager(mosquitto: Broker,
                                                                              tmp_path: Path) -> None:
    """``gravekeeper panel`` on its own starts nothing again (systemd's ``Restart=on-failure`` does, for one
    that dies): one that hangs is stopped too, with status 1 and a line that says why."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "panel", "--broker", mosquitto.url, "--host", "127.0.0.1",
         "--port", "0", "--hang-timeout", str(HANG_TIMEOUT)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("gravekeeper panel: ", 1)[1].split()[0]
        assert _answers(url) == 200
        (child,) = [p for p in psutil.Process(proc.pid).children() if "web_panel.child" in " ".join(p.cmdline())]
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(2 * HANG_TIMEOUT)  # a panel that answers is left alone
        child.send_signal(signal.SIGSTOP)
        assert proc.wait(6 * HANG_TIMEOUT) == 1
        assert proc.stderr is not None
        said = proc.stderr.read()
        assert "gravekeeper panel: the panel served no page for" in said and "stopping it" in said, said
        assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
