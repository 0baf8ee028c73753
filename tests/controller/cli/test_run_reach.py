"""Reaching the table from phones: ``--host``/``--port``, the printed addresses and QR code,
a taken port, and the control token kept beside the journal (mode 0600, ``--new-token``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.broker import Broker, free_port
from tests.support.mqtt import Commander
from tests.support.run import ROOT, RunProcess, run_cli
from web_panel.reach import ipv4_addresses, qr_terminal


def write_config(tmp_path: Path, table: str, *, token: str | None = None, panel: str = "") -> Path:
    path = tmp_path / f"{table}.toml"
    token_line = f'token = "{token}"\n' if token else ""
    path.write_text(f'[table]\nid = "{table}"\n{token_line}game = "dogs"\n'
                    f'[journal]\npath = "{tmp_path / (table + ".journal")}"\n'
                    f"[panel]\n{panel}\n")
    return path


def lan_addresses() -> list[str]:
    return [a for a in ipv4_addresses() if not a.startswith("127.")]


def test_host_and_port_override_the_config_and_every_address_is_printed_with_a_qr_code(
        mosquitto: Broker, tmp_path: Path) -> None:
    table = "rr-reach"
    port = free_port()
    cfg = write_config(tmp_path, table, token="reach-token", panel=f'host = "127.0.0.1"\nport = {free_port()}')
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url,
                     "--host", "0.0.0.0", "--port", str(port))
    try:
        local = run.wait_line("panel: http").split("panel: ", 1)[1].strip()
        assert local == f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(local, timeout=10) as resp:
            assert resp.status == 200
        others = lan_addresses()
        assert others, "this machine shows no network interface but loopback"
        for address in others:
            assert f"http://{address}:{port}/" in run.wait_line(f"panel from other devices: http://{address}:")
        join = f"http://{others[0]}:{port}/t/{table}/join"
        assert join in run.wait_line("players join table")
        # The code drawn is segno's own for that address, row for row.
        rows = qr_terminal(join).rstrip("\n").splitlines()
        for row in rows:
            run.wait_line(row)
        assert run.terminate() == 0
    finally:
        run.close()


def test_a_local_only_panel_says_phones_cannot_reach_it(mosquitto: Broker, tmp_path: Path) -> None:
    cfg = write_config(tmp_path, "rr-local", token="local-token")
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url,
                     "--host", "127.0.0.1", "--port", str(free_port()))
    try:
        assert "--host 0.0.0.0" in run.wait_line("only this machine can open it")
        assert run.terminate() == 0
        assert not any("players join" in line for line in run.seen)
    finally:
        run.close()


def test_the_default_host_is_every_interface() -> None:
    from controller.config import load_config

    assert load_config(overrides={"journal.path": "/nonexistent/x.journal", "table.token": "t"}).panel.host == "0.0.0.0"
    from controller.cli import build_parser

    assert build_parser().parse_args(["panel"]).host == "0.0.0.0"


def test_a_taken_port_is_named_with_the_next_free_one(mosquitto: Broker, tmp_path: Path) -> None:
    cfg = write_config(tmp_path, "rr-busy", token="busy-token")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url,
                         "--host", "127.0.0.1", "--port", str(port))
        try:
            line = run.wait_line("already in use", timeout=30)
            assert f"cannot listen on port {port}: it is already in use" in line
            free = int(line.split("is free: try --port ", 1)[1].split()[0])
            assert free > port  # the next one up that could be bound (others on this machine may take it since)
            assert "runs without the panel" in line
            assert run.terminate() == 0
        finally:
            run.close()


def test_panel_alone_refuses_a_taken_port_naming_a_free_one(mosquitto: Broker, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "controller", "panel", "--broker", mosquitto.url, "--host", "127.0.0.1",
             "--port", str(port)],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 2, result
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"gravekeeper panel: --port: cannot listen on port {port}: it is already in use"), line
    assert "is free: try --port" in line, line


def _token_of(run: RunProcess) -> tuple[str, str]:
    line = run.wait_line("control token:")
    return line.split("control token: ", 1)[1].split()[0], line


def test_the_generated_token_is_kept_0600_beside_the_journal_and_replaced_on_purpose(
        mosquitto: Broker, tmp_path: Path) -> None:
    table = "rr-token"
    cfg = write_config(tmp_path, table, panel="enabled = false")
    kept = tmp_path / f"{table}.token"

    def start(*extra: str) -> tuple[str, str]:
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url, *extra)
        try:
            token, line = _token_of(run)
            run.wait_line("online")
            cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, token)
            try:
                cmd.ok("resync", {})  # the printed token is the table's
            finally:
                cmd.close()
            assert run.terminate() == 0
            return token, line
        finally:
            run.close()

    first, line = start()
    assert str(kept) in line and "(made now and kept in" in line
    assert kept.stat().st_mode & 0o777 == 0o600
    assert kept.read_text().strip() == first
    again, line = start()
    assert again == first and "since the first start" in line  # join codes (made from it) survive the restart
    new, line = start("--new-token")
    assert new != first and "(new, kept in" in line and "every join code has changed" in line
    assert kept.read_text().strip() == new and kept.stat().st_mode & 0o777 == 0o600
    assert start()[0] == new


def test_new_token_is_refused_when_the_config_sets_one(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, "rr-set", token="configured", panel="enabled = false")
    result = run_cli("--config", str(cfg), "--simulate", "--new-token")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == \
        "gravekeeper run: --new-token: the config sets table.token; change it there"
    assert not (tmp_path / "rr-set.token").exists()


@pytest.mark.parametrize(("args", "needle"), [(["--port", "0"], "--port: must be an integer 1-65535"),
                                              (["--host", ""], "--host: must be a non-empty string")])
def test_bad_host_or_port_name_the_option(tmp_path: Path, args: list[str], needle: str) -> None:
    result = run_cli("--config", str(write_config(tmp_path, "rr-bad", token="x")), *args)
    assert result.returncode == 2
    assert needle in result.stderr.strip().splitlines()[-1], result.stderr
