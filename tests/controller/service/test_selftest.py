"""The non-hardware checks: broker reachable and authenticating, journal, data files."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.config import MqttConfig, load_config
from controller.service.selftest import check_broker, check_data, check_journal
from controller.store.journal import Journal
from hardware.selftest.report import CheckResult, Status
from tests.support.broker import Broker, free_port, make_broker


@pytest.fixture
def password_broker(tmp_path: Path) -> Iterator[Broker]:
    """A Mosquitto that only lets ``keeper``/``s3cret`` in (via mosquitto_passwd).

    Started as root, Mosquitto drops to its own user, which cannot enter pytest's
    private temp folders: the password file goes in a folder it can read.
    """
    folder = Path(tempfile.mkdtemp(prefix="gk-passwd-"))
    folder.chmod(0o755)
    passwd = folder / "passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "keeper", "s3cret"], check=True,
                   capture_output=True)
    passwd.chmod(0o644)
    broker = make_broker(tmp_path, extra_conf=f"allow_anonymous false\npassword_file {passwd}\n")
    yield broker
    broker.stop()
    shutil.rmtree(folder, ignore_errors=True)


def mqtt(url: str | None) -> MqttConfig:
    return load_config(None, overrides={"mqtt.url": url}).mqtt


def statuses(results: list[CheckResult]) -> dict[str, Status]:
    return {r.id: r.status for r in results}


def test_reachable_broker_accepts_an_anonymous_session(mosquitto: Broker) -> None:
    results = check_broker(mqtt(mosquitto.url))
    assert statuses(results) == {"broker.reachable": Status.PASS, "broker.auth": Status.PASS}
    assert results[1].message == "connected anonymously"


def test_password_broker_accepts_the_right_credentials_and_names_wrong_ones(password_broker: Broker) -> None:
    good = check_broker(mqtt(f"mqtt://keeper:s3cret@127.0.0.1:{password_broker.port}"))
    assert statuses(good) == {"broker.reachable": Status.PASS, "broker.auth": Status.PASS}
    assert good[1].message == "connected as user 'keeper'"
    bad = check_broker(mqtt(f"mqtt://keeper:wrong@127.0.0.1:{password_broker.port}"))
    assert statuses(bad) == {"broker.reachable": Status.PASS, "broker.auth": Status.FAIL}
    assert "refused user 'keeper': Not authorized" in bad[1].message and "mqtt.password" in bad[1].message
    anonymous = check_broker(mqtt(password_broker.url))
    assert anonymous[1].status is Status.FAIL and "refused an anonymous client" in anonymous[1].message
    assert "s3cret" not in json.dumps([r.to_json() for r in good + bad])


def test_no_broker_fails_and_names_the_address() -> None:
    port = free_port()
    results = check_broker(mqtt(f"mqtt://127.0.0.1:{port}"))
    assert statuses(results) == {"broker.reachable": Status.FAIL, "broker.auth": Status.SKIP}
    assert f"no broker: nothing answers at 127.0.0.1:{port}" in results[0].message


def test_injected_broker_fault_fails_even_with_a_live_broker(mosquitto: Broker) -> None:
    results = check_broker(mqtt(mosquitto.url), down=True)
    assert results[0].status is Status.FAIL and "no broker" in results[0].message


def test_something_that_is_not_a_broker_times_out_the_session(tmp_path: Path) -> None:
    import socket
    import threading

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        accepted: list[socket.socket] = []
        threading.Thread(target=lambda: accepted.append(server.accept()[0]), daemon=True).start()
        results = check_broker(mqtt(f"mqtt://127.0.0.1:{port}"), timeout=0.5)
        for conn in accepted:
            conn.close()
    assert statuses(results)["broker.auth"] is Status.FAIL
    assert "did not answer the MQTT CONNECT within 0.5 s" in results[1].message


def test_journal_fine_missing_and_damaged(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    missing = check_journal(path, "t")
    assert statuses(missing) == {"journal.writable": Status.PASS, "journal.integrity": Status.SKIP}
    assert not path.exists()  # the self-test never creates the journal
    with Journal(path, table="t") as journal:
        journal.record("new_game", {"game": "dogs"}, [{"type": "started"}])
    assert statuses(check_journal(path, "t")) == {"journal.writable": Status.PASS, "journal.integrity": Status.PASS}

    damaged = tmp_path / "bad.journal"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4096)
    results = check_journal(damaged, "t")
    assert Status.FAIL in statuses(results).values()
    assert "bad.journal" in " ".join(r.message for r in results)


def test_journal_whose_write_lock_is_held_elsewhere_is_not_writable(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "t.journal"
    with Journal(path, table="t"):
        pass
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a second writer (a stuck process) holds the lock
    try:
        results = check_journal(path, "t", busy_ms=100)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert results[0].id == "journal.writable" and results[0].status is Status.FAIL
    assert results[0].message.startswith("journal.path: ") and "locked" in results[0].message
    assert results[1].status is Status.SKIP


def test_every_shipped_data_file_validates_and_a_bad_one_is_named(tmp_path: Path) -> None:
    results = check_data()
    assert statuses(results) == {f"data.{n}": Status.PASS
                                 for n in ("terror_board", "terror_cards", "superstition_board", "dogs_tiles")}
    bad = tmp_path / "cards.json"
    bad.write_text(json.dumps({"cards": [{"id": "x", "effect": "nonsense"}]}))
    by_id = {r.id: r for r in check_data({"terror_cards": bad})}
    assert by_id["data.terror_cards"].status is Status.FAIL
    assert "nonsense" in by_id["data.terror_cards"].message
    assert by_id["data.dogs_tiles"].status is Status.PASS


def test_published_report_keeps_the_rest_of_the_retained_health(mosquitto: Broker) -> None:
    import paho.mqtt.client as paho

    from controller.service.selftest import publish_report
    from tests.support.mqtt import Subscriber

    topic = "gravekeeper/st-merge/health"
    old = paho.Client(paho.CallbackAPIVersion.VERSION2)
    old.connect(mosquitto.host, mosquitto.port)
    old.loop_start()
    old.publish(topic, json.dumps({"links": {"mcu": {"state": "absent"}}, "selftest": None}), qos=1,
                retain=True).wait_for_publish(5)
    old.disconnect()
    old.loop_stop()
    report = {"schema": "gravekeeper.selftest/1", "ok": True}
    assert publish_report(mqtt(mosquitto.url), "st-merge", report) == topic
    with Subscriber(mosquitto.host, mosquitto.port, (topic,)) as sub:
        health = sub.wait_latest(topic, lambda h: h.get("selftest") is not None)
    assert health["selftest"] == report and health["links"] == {"mcu": {"state": "absent"}}
    with pytest.raises(OSError):
        publish_report(mqtt(f"mqtt://127.0.0.1:{free_port()}"), "st-merge", report)


def test_a_report_is_published_over_a_retained_health_nested_too_deep_to_read(mosquitto: Broker) -> None:
    """Anyone on the broker may retain anything on the health topic: one nested past the JSON parser's
    limit is dropped, not read, and the report goes out (a RecursionError in paho's thread ended it)."""
    import paho.mqtt.client as paho

    from controller.service.selftest import publish_report
    from tests.support.mqtt import Subscriber

    topic = "gravekeeper/st-deep/health"
    old = paho.Client(paho.CallbackAPIVersion.VERSION2)
    old.connect(mosquitto.host, mosquitto.port)
    old.loop_start()
    old.publish(topic, b"[" * 100_000, qos=1, retain=True).wait_for_publish(5)
    old.disconnect()
    old.loop_stop()
    report = {"schema": "gravekeeper.selftest/1", "ok": True}
    assert publish_report(mqtt(mosquitto.url), "st-deep", report, timeout=5) == topic
    with Subscriber(mosquitto.host, mosquitto.port, (topic,)) as sub:
        health = sub.wait_latest(topic, lambda h: h.get("selftest") is not None)
    assert health["selftest"] == report and set(health) == {"time", "selftest"}


def test_service_checks_report_every_documented_check_even_without_a_broker(tmp_path: Path) -> None:
    """docs/selftest.md lists broker.reachable and broker.auth; a disconnected service must not drop one."""
    from types import SimpleNamespace

    from controller.service.selftest import service_checks

    link = SimpleNamespace(connected=False, health=lambda: {"state": "offline"})
    journal = SimpleNamespace(integrity_check=lambda: "ok")
    service = SimpleNamespace(link=link, broker=SimpleNamespace(host="127.0.0.1", port=1), journal=journal,
                              config=SimpleNamespace(journal=SimpleNamespace(path=tmp_path / "j.sqlite")), table="t1")
    by_id = {c.id: c for c in service_checks(service)}
    assert by_id["broker.reachable"].status is Status.FAIL
    assert by_id["broker.auth"].status is Status.SKIP
    assert {"journal.writable", "journal.integrity"} <= set(by_id)
