"""Settings, the served panel, and ``gravekeeper panel``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from controller.cli import main as cli_main
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, SettingsError
from web_panel.server import start_panel
from web_panel.settings import broker_settings

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(("url", "expected"), [
    ("mqtt://localhost", {"broker_host": "localhost", "broker_port": 1883, "broker_tls": False}),
    ("mqtts://pi.local", {"broker_host": "pi.local", "broker_port": 8883, "broker_tls": True}),
    ("mqtt://ann:s%40cret@10.0.0.2:1999", {"broker_host": "10.0.0.2", "broker_port": 1999, "broker_tls": False,
                                           "broker_username": "ann", "broker_password": "s@cret"}),
])
def test_broker_urls(url: str, expected: dict) -> None:
    assert broker_settings(url) == expected


@pytest.mark.parametrize(("url", "words"), [
    ("localhost:1883", "must look like"), ("http://x", "scheme"), ("mqtt://x:99999", "port"),
    ("mqtt://:1883", "no host"), ("mqtt://x/topic", "path"),
])
def test_bad_broker_urls_name_the_problem(url: str, words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        broker_settings(url)


@pytest.mark.parametrize(("fields", "words"), [
    ({"broker_port": 0}, "broker_port"), ({"listen_port": 70000}, "listen_port"),
    ({"base_topic": "a/#"}, "base_topic"), ({"base_topic": "/x"}, "base_topic"),
    ({"token": ""}, "token"), ({"tokens": {"bad id": "x"}}, "tokens"), ({"tokens": {"t1": ""}}, "tokens.t1"),
    ({"broker_password": "p"}, "broker_password needs"), ({"broker_ca_file": "ca.pem"}, "broker_ca_file"),
    ({"command_timeout": 0}, "command_timeout"), ({"event_log_size": 0}, "event_log_size"),
])
def test_bad_settings_name_the_field(fields: dict, words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        PanelSettings(**fields)


def test_one_token_for_all_tables_or_one_per_table() -> None:
    s = PanelSettings(token="common", tokens={"t2": "own"})
    assert (s.token_for("t1"), s.token_for("t2")) == ("common", "own")
    assert PanelSettings().token_for("t1") is None
    assert s.with_broker_url("mqtts://b:1").broker_tls is True


def test_start_panel_serves_and_closes_idempotently(mosquitto: Broker, fake: FakeTable, token: str) -> None:
    panel = start_panel(PanelSettings(broker_port=mosquitto.port, listen_port=0, token=token))
    try:
        assert panel.url == f"http://127.0.0.1:{panel.port}/" and panel.port > 0
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        with urllib.request.urlopen(panel.url + "api/tables", timeout=5) as r:
            tables = json.load(r)["tables"]
        assert fake.table in [t["table"] for t in tables]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(panel.url + "t/nosuch", timeout=5)
        assert err.value.code == 404
    finally:
        panel.close()
        panel.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", panel.port), timeout=1).close()


def test_a_taken_port_is_an_oserror(mosquitto: Broker) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(OSError):
            start_panel(PanelSettings(broker_port=mosquitto.port, listen_port=s.getsockname()[1]))


@pytest.mark.parametrize(("argv", "words"), [
    (["--broker", "http://x"], "--broker"), (["--port", "70000"], "--port"),
    (["--table-token", "nope"], "--table-token"), (["--base-topic", "a/+"], "--base-topic"),
])
def test_cli_bad_options_exit_2_with_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["panel", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_cli_panel_runs_until_sigterm(mosquitto: Broker, fake: FakeTable, tmp_path: Path) -> None:
    env = {**os.environ, "GRAVEKEEPER_TOKEN": "from-env", "XDG_STATE_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "panel", "--broker", mosquitto.url, "--port", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("gravekeeper panel: http://127.0.0.1:") and "controls enabled" in line
        url = line.split()[2]
        with urllib.request.urlopen(url, timeout=5) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_options_become_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from controller.cli import panel as panel_cli

    parser = argparse.ArgumentParser()
    panel_cli.add_arguments(parser)
    monkeypatch.delenv("GRAVEKEEPER_TOKEN", raising=False)
    args = parser.parse_args(["--broker", "mqtts://u:p@b.club:9883", "--port", "0", "--host", "0.0.0.0",
                              "--base-topic", "club/gk", "--table-token", "t1=one", "--table-token", "t2=two",
                              "--ca-file", "/etc/ca.pem"])
    from web_panel.child import settings_from

    s = settings_from(panel_cli.build_settings(args))
    assert (s.broker_host, s.broker_port, s.broker_tls, s.broker_username, s.broker_password) == \
        ("b.club", 9883, True, "u", "p")
    assert (s.listen_host, s.listen_port, s.base_topic, s.broker_ca_file) == ("0.0.0.0", 0, "club/gk", "/etc/ca.pem")
    assert s.token is None and s.tokens == {"t1": "one", "t2": "two"}
    monkeypatch.setenv("GRAVEKEEPER_TOKEN", "env-token")
    assert settings_from(panel_cli.build_settings(parser.parse_args([]))).token == "env-token"


def test_the_heartbeat_asked_of_the_child_is_taken_out_of_its_settings_and_checked() -> None:
    from web_panel.child import heartbeat_from, settings_from
    from web_panel.settings import SettingsError

    data = {"listen_port": 0, "heartbeat_s": 5}
    assert settings_from(data).listen_port == 0 and data["heartbeat_s"] == 5  # the panel's settings, the rest kept
    assert heartbeat_from(data) == 5.0 and "heartbeat_s" not in data
    assert heartbeat_from({"listen_port": 0}) is None  # ``gravekeeper panel``: nobody listens for it
    for bad in (0, -1, 601, True, "5", None):
        with pytest.raises(SettingsError, match="heartbeat_s must be a number of seconds"):
            heartbeat_from({"heartbeat_s": bad})
        with pytest.raises(SettingsError, match="heartbeat_s must be a number of seconds"):
            settings_from({"heartbeat_s": bad})


def test_a_client_that_stops_reading_is_dropped_and_others_go_on(
        mosquitto: Broker, fake: FakeTable, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A phone asleep with its stream open keeps the TCP window shut: the panel's write then blocks.

    Its thread must give up after the send timeout (and take its queue with it), not hang forever,
    and a client that reads must get every event meanwhile.
    """
    from web_panel import server as server_module

    monkeypatch.setattr(server_module, "SEND_TIMEOUT_S", 0.5)
    panel = start_panel(PanelSettings(broker_port=mosquitto.port, listen_port=0, token=token, event_log_size=50))
    stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window fills quickly
    try:
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        stuck.connect(("127.0.0.1", panel.port))
        stuck.sendall(f"GET /t/{fake.table}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        deadline = time.monotonic() + 5
        while view.subscriber_count() < 1 and time.monotonic() < deadline:
            view.wait_until(lambda: view.subscriber_count() >= 1, 0.1)
        assert view.subscriber_count() == 1
        reader = urllib.request.urlopen(panel.url + f"t/{fake.table}/stream", timeout=10)
        assert reader.readline().startswith(b"retry:")
        deadline = time.monotonic() + 5
        while view.subscriber_count() < 2 and time.monotonic() < deadline:
            view.wait_until(lambda: view.subscriber_count() >= 2, 0.1)
        pad = "x" * 20000
        last = None
        # Far more than the socket buffers hold, so the stuck client's writer must block.
        for _ in range(400):
            last = fake.event("padding", {"pad": pad})
        assert last is not None
        seen = b""
        while f'"seq":{last["seq"]},'.encode() not in seen:
            line = reader.readline()
            assert line, "the reading client's stream ended"
            if line.startswith(b"data:"):
                seen = line
        deadline = time.monotonic() + 15
        while view.subscriber_count() > 1 and time.monotonic() < deadline:
            view.wait_until(lambda: view.subscriber_count() <= 1, 0.2)
        assert view.subscriber_count() == 1, "the stuck client's stream still holds its thread and queue"
        reader.close()
    finally:
        stuck.close()
        panel.close()
