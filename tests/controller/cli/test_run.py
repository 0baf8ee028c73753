"""``gravekeeper run`` as a subprocess: options, config errors, start-up lines, SIGTERM, kill -9."""

from __future__ import annotations

import json
import random
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.protocol.security import unseal
from tests.support.broker import Broker, free_port
from tests.support.journal_damage import damage_the_inputs
from tests.support.mqtt import Commander, Subscriber
from tests.support.run import RunProcess, run_cli

TOKEN = "run-test-token"


def write_config(tmp_path: Path, table: str, *, board: str = "sensors", panel_port: int | None = None,
                 game: str = "terror", extra: str = "") -> Path:
    panel = f"enabled = true\nport = {panel_port}" if panel_port else "enabled = false"
    path = tmp_path / f"{table}.toml"
    path.write_text(
        f'[table]\nid = "{table}"\ntoken = "{TOKEN}"\ngame = "{game}"\nseed = 5\n'
        f'[journal]\npath = "{tmp_path / (table + ".journal")}"\n'
        f"[panel]\n{panel}\n"
        f'[referee]\nboard = "{board}"\nmismatch_grace_ms = 0\n'
        f"{extra}"
    )
    return path


# ----- bad options and config: exit 2, one line naming the culprit ------------------------
@pytest.mark.parametrize(
    ("args", "config", "needle"),
    [
        (["--game", "chess"], None, "--game"),
        (["--broker", "ftp://somewhere"], None, "mqtt.url"),
        (["--table", "has space"], None, "table.id"),
        ([], "[mqtt]\nport = 'x'\n", "mqtt.port"),
        ([], "[table]\ncolour = 'red'\n", "table.colour"),
        ([], "[table\n", "not valid TOML"),
    ],
)
def test_bad_options_and_config_exit_2_with_one_line_naming_them(tmp_path: Path, args: list[str],
                                                                 config: str | None, needle: str) -> None:
    if config is not None:
        path = tmp_path / "bad.toml"
        path.write_text(config)
        args = [*args, "--config", str(path)]
    result = run_cli(*args)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("gravekeeper run: ") and needle in lines[-1], result.stderr
    if config is not None or not needle.startswith("--"):
        assert len(lines) == 1, result.stderr  # argparse's own errors come after its usage text


def test_a_missing_config_file_exits_2(tmp_path: Path) -> None:
    result = run_cli("--config", str(tmp_path / "nope.toml"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("gravekeeper run: config: file not found")


# ----- a real run ------------------------------------------------------------------------
def test_run_prints_where_things_are_serves_the_panel_and_stops_cleanly_on_sigterm(
    mosquitto: Broker, tmp_path: Path
) -> None:
    table = "rn-life"
    panel_port = free_port()
    cfg = write_config(tmp_path, table, panel_port=panel_port)
    with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/#",)) as sub:
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
        try:
            run.wait_line("online")
            assert "mqtt://127.0.0.1:" in run.wait_line("MQTT:")
            panel_line = run.wait_line("panel:")
            if "not available" not in panel_line:  # the panel is another part of the product
                url = panel_line.split("panel: ", 1)[1].strip()
                assert str(panel_port) in url
                with urllib.request.urlopen(url, timeout=10) as resp:
                    assert resp.status == 200
            status = sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "online")
            assert status["table"] == table
            state = sub.wait_latest(f"gravekeeper/{table}/state", lambda s: s["game"] == "terror")
            assert state["board"] == "sensors" and state["mismatch"] is None
            assert all("control token" not in line for line in run.seen)  # configured, so not printed
            assert run.terminate() == 0
            sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "offline")
            assert "stopping" in run.wait_line("stopping")
        finally:
            run.close()


def test_a_generated_token_is_printed_and_works(mosquitto: Broker, tmp_path: Path) -> None:
    journal = tmp_path / "tok.journal"
    cfg = tmp_path / "tok.toml"
    cfg.write_text(f'[table]\nid = "rn-tok"\n[journal]\npath = "{journal}"\n[panel]\nenabled = false\n')
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url, "--game", "dogs")
    try:
        token = run.wait_line("control token:").split("control token: ", 1)[1].split()[0]
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", "rn-tok", token)
        try:
            cmd.ok("resync", {})
        finally:
            cmd.close()
        assert run.terminate() == 0
    finally:
        run.close()


# ----- kill -9 ------------------------------------------------------------------------------
def legal_now(sub: Subscriber, table: str) -> list[dict[str, Any]]:
    """Every action the current seat may take: the public list plus the seat's sealed one."""
    state = sub.latest(f"gravekeeper/{table}/state")
    actions = list(state["legal"])
    seat = state["current_player"]
    if seat is not None:
        sealed = sub.latest(f"gravekeeper/{table}/private/{seat}")
        if sealed:
            private = unseal(TOKEN, table, seat, sealed["sealed"])
            actions += [a for a in private["legal"] if a not in actions]
    return actions


def settle(sub: Subscriber, table: str, last_seq: int) -> dict[str, Any]:
    return sub.wait_latest(f"gravekeeper/{table}/state", lambda s: s["seq"] >= last_seq)


@pytest.mark.slow
def test_kill_9_at_several_points_loses_and_doubles_nothing(mosquitto: Broker, tmp_path: Path) -> None:
    table = "rn-kill"
    cfg = write_config(tmp_path, table, board="manual")
    args = ("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    rnd = random.Random(2)
    events_topic = f"gravekeeper/{table}/events"
    with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/#",)) as sub:
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
        run = RunProcess(*args)
        try:
            run.wait_line("online")
            sub.wait_latest(f"gravekeeper/{table}/state", lambda s: s["game"] == "terror")
            accepted: list[str] = []
            for point in range(4):
                # Play a few moves, waiting for each reply.
                for _ in range(3 + point):
                    actions = legal_now(sub, table)
                    if not actions:
                        break
                    reply = cmd.call("act", {"action": rnd.choice(actions)})
                    if reply["ok"]:
                        accepted.append(reply["id"])
                        settle(sub, table, reply["data"]["events"][-1]["seq"] if reply["data"]["events"] else 0)
                if point % 2 == 0:
                    # A quiet moment: the restarted controller must show exactly the same state.
                    before = settle(sub, table, max(e["seq"] for e in sub.events(events_topic)))
                    run.kill9()
                else:
                    # Mid-decision: a command is on its way when the process dies.
                    actions = legal_now(sub, table)
                    before = None
                    if actions:
                        cmd.send("act", {"action": rnd.choice(actions)})
                    run.kill9()
                sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "offline")
                run.close()
                run = RunProcess(*args)
                run.wait_line("online")
                after = sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "online")
                assert after["state"] == "online"
                state = sub.wait_latest(f"gravekeeper/{table}/state",
                                        lambda s, before=before: s["seq"] >= (before["seq"] if before else 0))
                if before is not None:
                    # The same state; only the signature's stamp names the new run (controller.protocol.publication).
                    unsigned = ("pub", "auth")
                    assert {k: v for k, v in state.items() if k not in unsigned} == \
                        {k: v for k, v in before.items() if k not in unsigned}
            # Every event once, in order, from the first to the last the journal holds.
            last = sub.latest(f"gravekeeper/{table}/state")["seq"]
            seqs = [e["seq"] for e in sub.events(events_topic)]
            assert seqs == list(range(1, last + 1)), seqs
            assert len(accepted) >= 6
            assert run.terminate() == 0
        finally:
            cmd.close()
            run.close()


def test_sigterm_closes_the_journal_so_replay_can_read_it(mosquitto: Broker, tmp_path: Path) -> None:
    table = "rn-journal"
    cfg = write_config(tmp_path, table, board="manual")
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        assert run.terminate() == 0
    finally:
        run.close()
    from controller.store.journal import Journal

    with Journal(tmp_path / f"{table}.journal", table=table, create=False) as journal:
        assert journal.integrity_check() == "ok"
        assert journal.published_seq() == journal.last_seq() >= 1  # everything reached the broker
        assert json.dumps(next(iter(journal.inputs()))["payload"]["game"]) == '"terror"'


def test_with_no_broker_yet_it_waits_then_comes_online_and_takes_commands(tmp_path: Path) -> None:
    from tests.support.broker import make_broker

    table = "rn-late"
    port = free_port()
    cfg = write_config(tmp_path, table)
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", f"mqtt://127.0.0.1:{port}")
    broker = None
    try:
        line = run.wait_line("waiting for the broker")
        assert f"mqtt://127.0.0.1:{port}" in line
        broker = make_broker(tmp_path, port=port)
        with Subscriber(broker.host, broker.port, (f"gravekeeper/{table}/#",)) as sub:
            sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "online", timeout=15)
            state = sub.wait_latest(f"gravekeeper/{table}/state", lambda s: s["game"] == "terror")
            cmd = Commander(broker.host, broker.port, "gravekeeper", table, TOKEN)
            try:
                cmd.ok("act", {"action": {"kind": "roll", "player": 0}})
            finally:
                cmd.close()
        assert state["seq"] >= 1
        run.proc.send_signal(signal.SIGINT)  # Ctrl-C stops as cleanly as SIGTERM
        assert run.proc.wait(15) == 0
    finally:
        run.close()
        if broker is not None:
            broker.stop()


def test_sensors_that_cannot_start_exit_2_with_one_line_and_a_way_out(mosquitto: Broker, tmp_path: Path) -> None:
    cfg = write_config(tmp_path, "rn-nohw")
    # A pin library that cannot load, on any machine (a Pi included).
    result = run_cli("--config", str(cfg), "--broker", mosquitto.url, env={"GPIOZERO_PIN_FACTORY": "nosuchlib"})
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gravekeeper run: hardware: cannot start the sensors")
    assert "nosuchlib" in lines[0] and "--simulate" in lines[0] and 'referee.board = "manual"' in lines[0]
    # ...and it left nothing behind: no retained topic makes a phantom table on every panel.
    assert retained_topics(mosquitto, "gravekeeper/rn-nohw/#") == []


def retained_topics(broker: Broker, pattern: str) -> list[str]:
    """Every retained topic under ``pattern``: a probe published after subscribing marks the end of them."""
    import threading

    import paho.mqtt.client as mqtt

    seen: list[str] = []
    done, subscribed = threading.Event(), threading.Event()
    probe = f"probe/{random.getrandbits(32)}"

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic == probe:
            done.set()
        else:
            seen.append(msg.topic)

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_message = on_message
    client.on_subscribe = lambda *a: subscribed.set()
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        client.subscribe([(pattern, 1), (probe, 1)])
        assert subscribed.wait(5)
        client.publish(probe, b"end", qos=1)
        assert done.wait(5), "the probe never came back"
    finally:
        client.loop_stop()
        client.disconnect()
    return seen


def test_a_busy_panel_port_is_reported_and_the_controller_runs_on(mosquitto: Broker, tmp_path: Path) -> None:
    import socket

    table = "rn-busy"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cfg = write_config(tmp_path, table, panel_port=taken.getsockname()[1])
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
        try:
            line = run.wait_line("panel:")
            if "not available" not in line:
                assert "cannot listen" in line and "panel.port" in line
            cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
            try:
                cmd.ok("resync", {})  # the controller itself is fine
            finally:
                cmd.close()
            assert run.terminate() == 0
        finally:
            run.close()


def test_game_option_never_replaces_a_game_in_progress(mosquitto: Broker, tmp_path: Path) -> None:
    table = "rn-game"
    cfg = write_config(tmp_path, table, board="manual")
    for game, expect_note in (("terror", False), ("dogs", True)):
        run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url, "--game", game)
        try:
            run.wait_line("online")
            notes = [line for line in run.seen if "the journal holds a" in line]
            assert bool(notes) is expect_note, run.seen
            if expect_note:
                assert "terror game, which goes on" in notes[0] and "--game dogs" in notes[0]
            assert run.terminate() == 0
        finally:
            run.close()


def _damage_a_played_journal(tmp_path: Path, table: str) -> Path:
    """A journal with a game in it whose input pages were then overwritten (a bad SD card)."""
    from controller.store.journal import Journal

    path = tmp_path / f"{table}.journal"
    with Journal(path, table=table) as journal:
        for n in range(40):
            journal.record("observation", {"n": n, "pad": "x" * 300}, [])
    damage_the_inputs(path)
    return path


@pytest.mark.parametrize("damage", ["pages", "foreign", "input"])
def test_a_journal_that_cannot_be_restored_exits_2_with_one_line(mosquitto: Broker, tmp_path: Path,
                                                                 damage: str) -> None:
    import sqlite3

    from controller.store.journal import Journal

    table = f"rn-bad-{damage}"
    cfg = write_config(tmp_path, table, board="manual")
    path = tmp_path / f"{table}.journal"
    if damage == "pages":
        _damage_a_played_journal(tmp_path, table)
    elif damage == "foreign":  # journal.path points at another program's database
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (x)")
    else:  # a recorded input that no longer parses
        with Journal(path, table=table) as journal:
            journal.record("observation", {"n": 1}, [])
        with sqlite3.connect(path) as db:
            db.execute("UPDATE inputs SET payload = '{\"n\": '")
    result = run_cli("--config", str(cfg), "--broker", mosquitto.url)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gravekeeper run: journal.path: ") and str(path) in lines[0], lines[0]
    assert retained_topics(mosquitto, f"gravekeeper/{table}/#") == []


def test_a_config_file_that_is_not_utf8_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes("[table]\nplayers = ['Zo\u00eb', 'Bo']\n".encode("latin-1"))
    result = run_cli("--config", str(path))
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"gravekeeper run: config: {path} is not valid TOML: it is not UTF-8 text "
                     "(byte 0xeb at offset 22)"], result.stderr


def test_a_second_controller_for_the_same_table_stops_the_first_with_exit_3(mosquitto: Broker,
                                                                            tmp_path: Path) -> None:
    table = "rn-twice"
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    first = RunProcess("--config", str(write_config(first_dir, table, board="manual")), "--broker", mosquitto.url)
    second: RunProcess | None = None
    try:
        first.wait_line("online")
        with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/status",)) as sub:
            mine = sub.wait_latest(f"gravekeeper/{table}/status", lambda s: s["state"] == "online")["instance"]
            second = RunProcess("--config", str(write_config(second_dir, table, board="manual")),
                                "--broker", mosquitto.url)
            second.wait_line("online")
            # The first is pushed off (one client id), comes back, finds the second's "online": it stops.
            assert first.proc.wait(20) == 3
            err = first.stderr_tail()
            assert "another controller" in err and f"table {table!r}" in err and "share a table id" in err
            assert "Traceback" not in err
            # The second comes back too (the first pushed it off once) and stays.
            status = sub.wait_latest(f"gravekeeper/{table}/status",
                                     lambda s: s["instance"] != mine and s["state"] == "online")
        assert second.proc.poll() is None  # the second goes on, with its status intact
        with Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/status",)) as late:
            assert late.wait_latest(f"gravekeeper/{table}/status", lambda s: True) == status
        assert second.terminate() == 0
    finally:
        first.close()
        if second is not None:
            second.close()
