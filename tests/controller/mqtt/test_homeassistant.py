"""Home Assistant MQTT discovery against a real Mosquitto: a checking subscriber validates every payload."""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.mqtt.put_right import EVERY_S
from controller.protocol.names import default_name
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic

PLATFORMS = {"sensor", "binary_sensor", "event", "device_automation"}


def config_topic(table: str) -> str:
    return f"homeassistant/device/gravekeeper_{table.replace('-', '_')}/config"


def check_discovery(config: dict[str, Any], retained: dict[str, Any]) -> None:
    """What Home Assistant needs of a device discovery payload, and that each topic exists and carries data."""
    assert config["dev"]["ids"] and config["dev"]["name"] and config["o"]["name"]
    avail = config["availability"]
    assert avail and all(a["topic"] in retained for a in avail)
    assert config["payload_available"] == "online" and config["payload_not_available"] == "offline"
    cmps = config["cmps"]
    assert cmps
    ids = [c["unique_id"] for c in cmps.values() if c["p"] != "device_automation"]
    assert len(ids) == len(set(ids)), "unique ids must be unique"
    for key, c in cmps.items():
        assert c["p"] in PLATFORMS, key
        if c["p"] == "device_automation":
            assert c["automation_type"] == "trigger" and c["topic"] and c["type"] and c["subtype"] and c["payload"]
            continue
        assert c["name"] and c["unique_id"].startswith(config["dev"]["ids"][0])
        state_topic = c["state_topic"]
        if c["p"] == "event":
            assert c["event_types"] and "event_type" in c["value_template"]
            continue
        assert state_topic in retained, f"{key}: {state_topic} carries no data"
        payload = retained[state_topic]
        for field in re.findall(r"value_json\.(\w+)", c["value_template"]):
            assert field in payload, f"{key}: {state_topic} has no {field}"


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_discovery_is_valid_and_points_at_live_topics(mosquitto: Broker, make_service: MakeService, game: str) -> None:
    t = f"ha-{game}"
    with Subscriber(mosquitto.host, mosquitto.port, ("homeassistant/#", topic(t, "#"))) as sub:
        make_service(t, **{"table.game": game, "homeassistant.discovery": True})
        msgs = sub.wait_for(lambda m: any(x.topic == config_topic(t) for x in m)
                            and any(x.topic == topic(t, "summary") for x in m))
        config = next(x.json() for x in msgs if x.topic == config_topic(t))
        retained = {x.topic: x.json() for x in msgs if x.payload and x.topic.startswith(BASE)
                    and not x.topic.endswith("/events")}
        check_discovery(config, retained)
        assert config["dev"]["mdl"] != game  # the game's title, not its id
        assert config["dev"]["name"] == default_name(t)  # the table's name people read, not "Game table <id>"
        wanted = {"terror": {"tomb_wolf", "ghost"}, "superstition": {"trap_ladder", "trap_grave2"}, "dogs": set()}
        assert wanted[game] <= set(config["cmps"])
        # Nothing secret: the summary holds only these public fields (never a live peg, a hand or a charm).
        public = {"seq", "game", "title", "players", "turn", "waiting_for", "over", "winners", "mismatch",
                  "mismatch_text", "tomb_mummy", "tomb_monster", "tomb_wolf", "ghost", "trap_ladder",
                  "trap_mirror", "trap_grave1", "trap_grave2", "paused"}
        signature = {"pub", "auth"}  # the table's signature (controller.protocol.publication)
        assert set(retained[topic(t, "summary")]) <= public | signature
        words = {k: v for k, v in retained[topic(t, "summary")].items() if k not in signature}
        assert not re.search(r"peg|charm|whammy|hand|ring", str(words).lower())


def test_discovery_again_when_home_assistant_restarts(mosquitto: Broker, make_service: MakeService) -> None:
    t = "ha-birth"
    with Subscriber(mosquitto.host, mosquitto.port, (config_topic(t),)) as sub:
        make_service(t, **{"table.game": "terror", "homeassistant.discovery": True})
        sub.wait_for(lambda m: len(m) >= 1)
        before = len(sub.messages)
        ha = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        ha.connect(mosquitto.host, mosquitto.port)
        ha.loop_start()
        try:
            ha.publish("homeassistant/status", b"online", qos=1).wait_for_publish(5)
            sub.wait_for(lambda m: len(m) > before)
            ha.publish("homeassistant/status", b"offline", qos=1).wait_for_publish(5)
        finally:
            ha.loop_stop()
            ha.disconnect()
        assert sub.messages[-1].json()["cmps"]


def test_moments_fire_device_triggers(mosquitto: Broker, make_service: MakeService) -> None:
    t = "ha-moment"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "moment"),)) as sub:
        make_service(t, **{"table.game": "terror", "homeassistant.discovery": True})
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            cmd.call("sim", {"sensor": "launcher", "value": "launched"})
            msgs = sub.wait_for(lambda m: any(x.payload == b"mismatch" for x in m))
        finally:
            cmd.close()
        assert not any(x.retain for x in msgs)


def test_turning_discovery_off_removes_the_device(mosquitto: Broker, make_service: MakeService) -> None:
    t = "ha-off"
    svc = make_service(t, **{"table.game": "terror", "homeassistant.discovery": True})
    with Subscriber(mosquitto.host, mosquitto.port, (config_topic(t),)) as sub:
        sub.wait_for(lambda m: any(x.payload for x in m))
        svc.stop()
        make_service(t, **{"table.game": "terror", "homeassistant.discovery": False})
        # the retained config, then the empty one that tells Home Assistant to remove the device
        sub.wait_for(lambda m: bool(m) and m[-1].payload == b"" and m[-1].topic == config_topic(t))
    with Subscriber(mosquitto.host, mosquitto.port, (config_topic(t),)) as late:
        with contextlib.suppress(AssertionError):
            late.wait_for(lambda m: bool(m), timeout=1.0)  # a retained config would arrive with the SUBACK
        assert late.messages == []


def test_a_table_that_never_used_discovery_writes_nothing_under_the_prefix(
        mosquitto: Broker, make_service: MakeService) -> None:
    # (other tests' tables share this broker: watch only what this table could write)
    with Subscriber(mosquitto.host, mosquitto.port, (config_topic("ha-never"), topic("ha-never", "moment"))) as sub:
        make_service("ha-never", **{"table.game": "dogs"})
        with contextlib.suppress(AssertionError):
            sub.wait_for(lambda m: bool(m), timeout=1.5)
        assert sub.messages == []


def test_a_listener_added_between_connecting_and_being_ready_still_hears_its_topic(
        mosquitto: Broker, make_service: MakeService) -> None:
    """The race a loaded machine showed: on_connect had subscribed before the listener existed,
    and the link was not yet ready, so nobody subscribed it."""
    import threading

    import paho.mqtt.client as mqtt

    svc = make_service("ha-race", **{"table.game": "dogs"})
    link = svc.link
    assert link is not None
    with link._lock:  # connected, but as if the resubscription were not yet acknowledged
        link._ready = False
    heard = threading.Event()
    link.listen("gk/ha-race/probe", lambda payload, retained: heard.set() if payload == b"hello" else None)
    with link._lock:
        link._ready = True
    other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    other.connect(mosquitto.host, mosquitto.port)
    other.loop_start()
    try:
        other.publish("gk/ha-race/probe", b"hello", qos=1, retain=True).wait_for_publish(5)
        assert heard.wait(5)
    finally:
        other.publish("gk/ha-race/probe", b"", qos=1, retain=True).wait_for_publish(5)
        other.loop_stop()
        other.disconnect()


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_the_event_entity_lists_every_event_type_the_engine_emits(game: str) -> None:
    """Home Assistant drops an event whose type is not listed: the list must follow the engine."""
    from pathlib import Path

    import controller.games
    from controller.mqtt.homeassistant import GAME_EVENTS

    package = Path(controller.games.__file__).parent / game
    source = "\n".join(p.read_text(encoding="utf-8") for p in package.glob("*.py"))
    emitted = set(re.findall(r'Event\(\s*"([a-z_]+)"', source))
    assert emitted and emitted <= set(GAME_EVENTS[game]), sorted(emitted - set(GAME_EVENTS[game]))


def test_a_flood_of_forged_discovery_configs_is_put_right_a_few_times_and_ends_with_ours(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "ha-forged"
    with Subscriber(mosquitto.host, mosquitto.port, (config_topic(t),)) as sub:
        svc = make_service(t, **{"table.game": "terror", "homeassistant.discovery": True})
        ours = sub.wait_for(lambda m: any(x.payload for x in m))[-1].payload
        forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        forger.connect(mosquitto.host, mosquitto.port)
        forger.loop_start()
        try:
            started = time.monotonic()
            for n in range(40):
                forger.publish(config_topic(t), b'{"forged": %d}' % n, qos=1, retain=True).wait_for_publish(5)
            flood_s = time.monotonic() - started
        finally:
            forger.loop_stop()
            forger.disconnect()
        # The last word is ours again: the flood's last forgery is put right by a later round.
        sub.wait_for(lambda m: m[-1].payload == ours and any(x.payload.startswith(b'{"forged": 39') for x in m))
    restored = svc.effects.config_restored
    assert 1 <= restored <= 2 + flood_s / EVERY_S, (restored, flood_s)
    assert svc.effects.health()["discovery_restored"] == restored
