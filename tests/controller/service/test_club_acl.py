"""The club's broker ACL (deploy/mosquitto/club.acl) on a real Mosquitto with users and passwords.

Each table's controller logs in as its table id and may write only its own
topics; the panel user may write only commands; anonymous clients only read.
A publish the ACL denies is dropped by the broker: the tests check that a
subscriber to everything never receives it, ordered by a marker the same
broker delivers after it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from controller.protocol.signing import signed_command
from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.club import acl_broker, flip_launcher, start_table
from tests.support.mqtt import Message, Subscriber
from tests.support.service import TOKEN

BASE = "gravekeeper"  # the ACL file names the default base topic
USERS = {"t1": "pw-t1", "t2": "pw-t2", "panel": "pw-panel"}


@pytest.fixture
def club_broker(tmp_path: Path) -> Iterator[Broker]:
    broker = acl_broker(tmp_path, USERS)
    yield broker
    broker.stop()


def client(broker: Broker, user: str | None = None, password: str | None = None) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"acl-{uuid.uuid4().hex[:8]}")
    if user is not None:
        c.username_pw_set(user, password)
    c.connect(broker.host, broker.port)
    c.loop_start()
    return c


def close(c: mqtt.Client) -> None:
    c.disconnect()
    c.loop_stop()


def publish(c: mqtt.Client, topic: str, payload: str | bytes, retain: bool = False) -> None:
    # QoS 1: the PUBACK comes after the broker took (or dropped) the message, so what follows is later.
    info = c.publish(topic, payload, qos=1, retain=retain)
    info.wait_for_publish(5)
    assert info.is_published()


def got(sub: Subscriber, payload: str) -> list[Message]:
    return [m for m in sub.messages if m.payload == payload.encode()]


def test_each_controller_writes_only_its_own_table(club_broker: Broker, tmp_path: Path) -> None:
    with Subscriber(club_broker.host, club_broker.port, (f"{BASE}/#",)) as sub:
        tables: list[Service] = []
        try:
            for t in ("t1", "t2"):
                tables.append(start_table(club_broker, tmp_path, t, **{
                    "mqtt.base_topic": BASE, "mqtt.username": t, "mqtt.password": USERS[t]}))
            for svc in tables:
                assert svc.wait_online(10), "a controller with its own broker user did not come online"
            # Each runs its table under the ACL: its state, events and status reach a reader.
            for t in ("t1", "t2"):
                sub.wait_latest(f"{BASE}/{t}/status", lambda s: s["state"] == "online")
                sub.wait_latest(f"{BASE}/{t}/state", lambda s: s["game"] == "terror")
            flip_launcher(tables[0], True)
            sub.wait_for(lambda ms: any(m.topic == f"{BASE}/t1/events" and m.json()["type"] == "mismatch"
                                        for m in ms))

            # t1's login cannot write t2's topics, not even retained ones a panel would draw.
            forger = client(club_broker, "t1", USERS["t1"])
            try:
                for kind in ("state", "status", "events", "summary", "reply/act"):
                    publish(forger, f"{BASE}/t2/{kind}", f"forged-{kind}", retain=kind != "events")
                # Its own Home Assistant device config, yes; another table's, no.
                with Subscriber(club_broker.host, club_broker.port, ("homeassistant/#",)) as ha:
                    publish(forger, "homeassistant/device/gravekeeper_t2/config", "forged-ha")
                    publish(forger, "homeassistant/device/gravekeeper_t1/config", "ha-own")
                    ha.wait_for(lambda ms: any(m.payload == b"ha-own" for m in ms))
                    configs = [(m.topic, m.payload) for m in ha.messages]
                    # t1's own controller runs with discovery off, so it may remove the config that
                    # appeared on its topic (an empty retained message): allowed, it is t1's.
                    assert configs[0] == ("homeassistant/device/gravekeeper_t1/config", b"ha-own")
                    assert all(t == "homeassistant/device/gravekeeper_t1/config" and p in (b"ha-own", b"")
                               for t, p in configs), configs
                publish(forger, f"{BASE}/t1/forger-marker", "marker")
                sub.wait_for(lambda ms: bool(got(sub, "marker")))
                assert not [m for m in sub.messages if m.payload.startswith(b"forged")]
            finally:
                close(forger)
            # Nor was anything retained: a new reader of t2 gets only what t2 published.
            with Subscriber(club_broker.host, club_broker.port, (f"{BASE}/t2/#",)) as late:
                late.wait_latest(f"{BASE}/t2/status", lambda s: s["state"] == "online")
                late.wait_latest(f"{BASE}/t2/state", lambda s: s["table"] == "t2")
                assert not [m for m in late.messages if m.payload.startswith(b"forged")]
        finally:
            for svc in tables:
                svc.stop()


def test_anonymous_readers_cannot_write_and_the_panel_writes_only_commands(
        club_broker: Broker, tmp_path: Path) -> None:
    svc = start_table(club_broker, tmp_path, "t1", **{
        "mqtt.base_topic": BASE, "mqtt.username": "t1", "mqtt.password": USERS["t1"]})
    try:
        assert svc.wait_online(10)
        with Subscriber(club_broker.host, club_broker.port, (f"{BASE}/#",)) as sub:
            sub.wait_latest(f"{BASE}/t1/state", lambda s: s["game"] == "terror")
            anon = client(club_broker)
            panel = client(club_broker, "panel", USERS["panel"])
            wrong = client(club_broker, "t1", "not-the-password")  # refused: it never writes anything
            try:
                publish(anon, f"{BASE}/t1/state", "forged-anon", retain=True)
                publish(anon, f"{BASE}/t1/cmd/resync", "forged-anon-cmd")
                publish(panel, f"{BASE}/t1/state", "forged-panel", retain=True)
                wrong.publish(f"{BASE}/t1/state", "forged-wrong-password", qos=0, retain=True)
                # The panel's signed command goes through and the table answers it.
                body = signed_command(TOKEN, "t1", "resync", {"id": "acl-resync"})
                publish(panel, f"{BASE}/t1/cmd/resync", body)
                reply = sub.wait_latest(f"{BASE}/t1/reply/resync", lambda r: r.get("id") == "acl-resync")
                assert reply["ok"] is True
                assert not [m for m in sub.messages if m.payload.startswith(b"forged")]
            finally:
                for c in (anon, panel, wrong):
                    close(c)
    finally:
        svc.stop()


def test_the_clubs_broker_settings_run_on_a_real_mosquitto(tmp_path: Path) -> None:
    """``deploy/mosquitto/club.conf`` as shipped, but for its port and file paths: Mosquitto takes every line."""
    from tests.support.broker import free_port
    from tests.support.club import CLUB_ACL, mosquitto_passwd

    shipped = (CLUB_ACL.parent / "club.conf").read_text()
    assert "set_tcp_nodelay true" in shipped
    passwd = tmp_path / "club.passwd"
    mosquitto_passwd(passwd, USERS)
    port = free_port()
    lines = []
    for line in shipped.splitlines():
        key = line.split(" ", 1)[0]
        if key == "listener":
            line = f"listener {port} 127.0.0.1"
        elif key == "password_file":
            line = f"password_file {passwd}"
        elif key == "acl_file":
            line = f"acl_file {CLUB_ACL}"
        elif key == "persistence":
            line = f"persistence true\npersistence_location {tmp_path}/"
        lines.append(line)
    if os.geteuid() == 0:
        lines.append("user root")  # as acl_broker: Mosquitto's own user cannot enter pytest's directory
    conf = tmp_path / "club.conf"
    conf.write_text("\n".join(lines) + "\n")
    broker = Broker(port=port, conf=conf, log=tmp_path / "mosquitto.log")
    broker.start()
    try:
        c = client(broker, "panel", USERS["panel"])
        try:
            with Subscriber(broker.host, broker.port, (f"{BASE}/club-conf/#",)) as sub:
                publish(c, f"{BASE}/club-conf/cmd/roll", "from the panel")
                sub.wait_for(lambda m: bool(got(sub, "from the panel")))
        finally:
            close(c)
    finally:
        broker.stop()
    assert "Error" not in (tmp_path / "mosquitto.log").read_text()
