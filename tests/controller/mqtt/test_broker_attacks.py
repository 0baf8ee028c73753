"""A running ``gravekeeper run --simulate`` attacked from the broker, as any club member could.

Each test starts the real controller (a subprocess) on a real Mosquitto and publishes what an
outsider can: forgeries, replays of what it recorded, clearings. The threat model is in
``docs/deploy.md``; these are the attacks that once worked, or that no other test covers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from controller.protocol.publication import open_publication
from controller.protocol.signing import signing_key, verify_status
from tests.controller.cli.test_run import TOKEN, write_config
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until
from tests.support.run import RunProcess
from tests.support.service import TOKEN as SERVICE_TOKEN
from tests.support.service import MakeService

KEY = signing_key(TOKEN)


def outsider(broker: Broker) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"attacker-{time.monotonic_ns()}")
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


def retained(broker: Broker, topic: str, timeout: float = 5.0) -> bytes:
    """What the broker holds on ``topic`` now, as a subscriber that connects now gets it."""
    with Subscriber(broker.host, broker.port, (topic,)) as late:
        try:
            return late.wait_for(bool, timeout)[0].payload
        except AssertionError:  # the broker holds nothing on the topic
            return b""


def wait_retained(broker: Broker, topic: str, ok: object, timeout: float = 10.0) -> bytes:
    deadline = time.monotonic() + timeout
    # Anything published on the topic from now on reaches ``watch``: the broker's copy is read again
    # only once something new has arrived, instead of on a timer.
    with Subscriber(broker.host, broker.port, (topic,)) as watch:
        while True:
            seen = len(watch.messages)
            now = retained(broker, topic, timeout=1.0)
            if ok(now):  # type: ignore[operator]
                return now
            try:
                watch.wait_for(lambda msgs, seen=seen: len(msgs) > seen, max(0.0, deadline - time.monotonic()))
            except AssertionError:
                raise AssertionError(f"the broker still holds {now[:200]!r} on {topic}") from None


@pytest.fixture
def attacker(mosquitto: Broker) -> Iterator[mqtt.Client]:
    client = outsider(mosquitto)
    yield client
    client.disconnect()
    client.loop_stop()


def _table_summary(payload: bytes, table: str) -> bool:
    try:
        return open_publication(KEY, table, "summary", payload)[0].get("title") == "Terror in the Graveyard"
    except ValueError:
        return False


def _online(payload: bytes, table: str, token: str = TOKEN) -> bool:
    try:
        status = json.loads(payload)
    except (ValueError, RecursionError):
        return False
    return isinstance(status, dict) and status.get("state") == "online" and verify_status(token, table, payload)


def test_a_forged_retained_summary_is_put_back(mosquitto: Broker, tmp_path: Path,
                                                attacker: mqtt.Client) -> None:
    """Home Assistant reads ``summary`` and cannot check a signature: a forgery must not stay there."""
    table = "atk-sum"
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        topic = f"gravekeeper/{table}/summary"
        wait_retained(mosquitto, topic, lambda p: _table_summary(p, table))
        forged = json.dumps({"seq": 99, "game": "terror", "title": "FORGED", "players": "Mallory",
                             "turn": "Mallory", "over": True, "winners": "Mallory"})
        attacker.publish(topic, forged, qos=1, retain=True).wait_for_publish(5)
        wait_retained(mosquitto, topic, lambda p: _table_summary(p, table))
        attacker.publish(topic, b"", qos=1, retain=True).wait_for_publish(5)  # cleared: put back too
        wait_retained(mosquitto, topic, lambda p: _table_summary(p, table))
    finally:
        run.close()


def test_a_forged_cleared_or_replayed_status_is_put_back(mosquitto: Broker, tmp_path: Path,
                                                         attacker: mqtt.Client) -> None:
    """A retained "offline" in the table's name makes a panel (or Home Assistant) that starts later
    take a running table for gone: unsigned, empty, or a former run's own signed "offline"."""
    table = "atk-status"
    topic = f"gravekeeper/{table}/status"
    cfg = write_config(tmp_path, table)
    first = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    try:
        first.wait_line("online")
        wait_retained(mosquitto, topic, lambda p: _online(p, table))
        assert first.terminate() == 0
    finally:
        first.close()
    recorded = retained(mosquitto, topic)  # the first run's clean stop: signed, "offline"
    old = json.loads(recorded)
    assert old["state"] == "offline" and verify_status(TOKEN, table, recorded)

    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        wait_retained(mosquitto, topic, lambda p: _online(p, table))
        for payload in (recorded, json.dumps({"state": "offline", "table": table}).encode(), b""):
            attacker.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
            wait_retained(mosquitto, topic, lambda p: _online(p, table))
        assert run.proc.poll() is None  # and it still runs: none of them is a newer run's claim
    finally:
        run.close()


def test_a_flood_of_unsigned_commands_is_answered_at_a_bounded_rate(mosquitto: Broker, tmp_path: Path,
                                                                    attacker: mqtt.Client) -> None:
    """Every refusal went to every panel (they read reply/+): 20,000 junk commands made 20,000 replies,
    and the broker dropped the panel's own messages. A flood now gets a few answers a second, and a
    signed command is still answered at once."""
    table = "atk-flood"
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    replies = Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/reply/+",)).start()
    cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
    try:
        run.wait_line("online")
        junk = 3000
        start = time.monotonic()
        for i in range(junk):
            attacker.publish(f"gravekeeper/{table}/cmd/resync",
                             json.dumps({"id": f"junk-{i}", "ts": 1, "auth": "0" * 64}), qos=0)
        attacker.publish(f"gravekeeper/{table}/cmd/resync", json.dumps({"id": "junk-last"}),
                         qos=1).wait_for_publish(10)
        cmd.ok("resync", {}, timeout=15)  # the table's own panel is still heard
        elapsed = time.monotonic() - start
        health = wait_health(mosquitto, table, lambda h: h["counters"].get("refusals_unanswered", 0) > 0)
        refused = [m for m in replies.messages if b'"ok":false' in m.payload]
        # The burst, then 20 a second over the time the flood took (and some slack for the health wait).
        assert len(refused) <= 40 + 20 * (elapsed + 12), (len(refused), elapsed)
        assert len(refused) < junk // 2
        assert health["counters"]["refusals_unanswered"] >= junk // 2
        assert run.proc.poll() is None
    finally:
        cmd.close()
        replies.stop()
        run.close()


def wait_health(broker: Broker, table: str, ok: object, timeout: float = 20.0) -> dict:
    """The table's signed health once ``ok(health)`` holds (asks for it with resync until then)."""
    cmd = Commander(broker.host, broker.port, "gravekeeper", table, TOKEN)
    try:
        deadline = time.monotonic() + timeout
        while True:
            cmd.call("resync", {})
            payload = retained(broker, f"gravekeeper/{table}/health")
            health = open_publication(KEY, table, "health", payload)[0] if payload else {}
            if health and ok(health):  # type: ignore[operator]
                return health
            if time.monotonic() > deadline:
                raise AssertionError(f"health never showed it: {health.get('counters')}")
    finally:
        cmd.close()


def test_a_forged_home_assistant_discovery_config_is_put_back(mosquitto: Broker, tmp_path: Path,
                                                             attacker: mqtt.Client) -> None:
    """Home Assistant takes any retained discovery config: a forged one could point the table's
    entities at an outsider's topics ("Whose turn: Mallory"). The controller puts its own back."""
    table = "atk-ha"
    cfg = write_config(tmp_path, table, extra="[homeassistant]\ndiscovery = true\n")
    topic = "homeassistant/device/gravekeeper_atk_ha/config"
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)

    def ours(payload: bytes) -> bool:
        try:
            config = json.loads(payload)
        except ValueError:
            return False
        return config.get("cmps", {}).get("turn", {}).get("state_topic") == f"gravekeeper/{table}/summary"

    try:
        run.wait_line("online")
        wait_retained(mosquitto, topic, ours)
        forged = {"dev": {"ids": ["gravekeeper_atk_ha"], "name": "atk-ha"}, "o": {"name": "gravekeeper"},
                  "cmps": {"turn": {"p": "sensor", "unique_id": "gravekeeper_atk_ha_turn",
                                    "state_topic": "mallory/turn"}}}
        for payload in (json.dumps(forged).encode(), b""):
            attacker.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
            wait_retained(mosquitto, topic, ours)
    finally:
        run.close()


def test_retained_junk_on_a_command_topic_is_deleted_unanswered(mosquitto: Broker, tmp_path: Path,
                                                                attacker: mqtt.Client) -> None:
    """A retained message on ``cmd/<name>`` came back to the controller on every connection (and to
    anyone who subscribed), answered each time. Commands are never retained: the controller deletes
    it without running or answering it."""
    table = "atk-retcmd"
    junk_topic = f"gravekeeper/{table}/cmd/new_game"
    attacker.publish(junk_topic, json.dumps({"id": "junk", "game": "dogs", "players": ["M", "N"]}),
                     qos=1, retain=True).wait_for_publish(5)
    replies = Subscriber(mosquitto.host, mosquitto.port, (f"gravekeeper/{table}/reply/+",)).start()
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        wait_retained(mosquitto, junk_topic, lambda p: p == b"")
        health = wait_health(mosquitto, table, lambda h: h["counters"].get("retained_commands_cleared", 0) >= 1)
        assert health["counters"]["retained_commands_cleared"] == 1
        # Published retained while the table runs: deleted at once too (before: it was taken for a live
        # command, refused, and stayed at the broker until the table's next connection).
        attacker.publish(junk_topic, json.dumps({"id": "junk-live", "game": "dogs", "players": ["M", "N"]}),
                         qos=1, retain=True).wait_for_publish(5)
        wait_retained(mosquitto, junk_topic, lambda p: p == b"")
        health = wait_health(mosquitto, table, lambda h: h["counters"].get("retained_commands_cleared", 0) >= 2)
        assert health["counters"]["retained_commands_cleared"] == 2
        assert not [m for m in replies.messages if b'"junk' in m.payload]
    finally:
        replies.stop()
        run.close()


def test_a_former_runs_status_replayed_does_not_stop_a_run_whose_clock_is_behind(
        mosquitto: Broker, tmp_path: Path, attacker: mqtt.Client) -> None:
    """A Pi without a real-time clock may start with a clock behind the run it replaces. The former
    run's own signed status, captured from the broker and published again live, then looked like a
    newer run's claim: the controller stopped with status 3, and systemd does not restart that."""
    from controller.protocol.signing import signed_status

    table = "atk-clock"
    topic = f"gravekeeper/{table}/status"
    ahead = time.time() + 3600  # the former run's clock was an hour ahead of this one's
    former_online = signed_status(TOKEN, table, {
        "state": "online", "table": table, "version": "0.1.0", "since": ahead, "instance": "0123456789abcdef",
        "host": "pi"})
    former_offline = signed_status(TOKEN, table, {
        "state": "offline", "table": table, "instance": "0123456789abcdef", "since": ahead})
    # The former run stopped (its last will or clean stop): its "offline" is what the broker holds.
    attacker.publish(topic, former_offline, qos=1, retain=True).wait_for_publish(5)
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        wait_retained(mosquitto, topic, lambda p: _online(p, table))
        for recorded in (former_online, former_offline):  # recorded while the former run ran, and at its end
            attacker.publish(topic, recorded, qos=1, retain=False).wait_for_publish(5)
        attacker.publish(topic, former_online, qos=1, retain=True).wait_for_publish(5)
        wait_retained(mosquitto, topic, lambda p: _online(p, table) and b"0123456789abcdef" not in p)
        # still running, and still serving: a command is answered
        cmd = Commander(mosquitto.host, mosquitto.port, "gravekeeper", table, TOKEN)
        try:
            cmd.ok("resync", {})
        finally:
            cmd.close()
        assert run.proc.poll() is None
    finally:
        run.close()


def test_retained_junk_on_topics_the_table_never_retains_is_deleted(mosquitto: Broker, tmp_path: Path,
                                                                    attacker: mqtt.Client) -> None:
    """The table publishes ``events``, ``effects``, ``moment`` and ``reply/<name>`` unretained, so a
    subscriber takes what comes there as live. A retained message there stayed at the broker and
    reached every panel, page and Home Assistant as it subscribed: an old signed cue played again at
    every page load, a "game_won" trigger fired at every Home Assistant restart. The controller now
    deletes it, whether it was there before it started or published while it runs."""
    table = "atk-junk"
    base = f"gravekeeper/{table}"
    junk = {f"{base}/events": json.dumps({"seq": 1, "table": table, "type": "game_won", "data": {}}).encode(),
            f"{base}/effects": json.dumps({"table": table, "cues": [{"sound": "scream"}]}).encode(),
            f"{base}/moment": b"game_won",
            f"{base}/reply/act": json.dumps({"id": "x", "ok": False, "error": "not authorised"}).encode()}
    for topic, payload in junk.items():  # before the table starts
        attacker.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    run = RunProcess("--config", str(write_config(tmp_path, table)), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        for topic in junk:
            wait_retained(mosquitto, topic, lambda p: p == b"")
        for topic, payload in junk.items():  # while it runs
            attacker.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
        for topic in junk:
            wait_retained(mosquitto, topic, lambda p: p == b"")
        health = wait_health(mosquitto, table, lambda h: h["counters"].get("retained_junk_cleared", 0) >= 8)
        assert health["counters"]["retained_junk_cleared"] == 8
        assert health["counters"]["retained_restored"] == 0  # none of the table's own topics was touched
        assert run.proc.poll() is None
    finally:
        run.close()


def test_a_flood_of_home_assistant_birth_messages_or_configs_gets_a_few_answers_a_second(
        mosquitto: Broker, tmp_path: Path, attacker: mqtt.Client) -> None:
    """Anyone can publish "online" on ``homeassistant/status``: the controller answered each one with
    its retained discovery config, so 400 of them made 400 configs, to every Home Assistant and
    every subscriber of ``homeassistant/#``. With discovery off, each config published on the
    table's config topic was answered with a removal the same way. Now a flood gets at most four
    answers a second, and its last message is still answered."""
    table = "atk-birth"
    cfg = write_config(tmp_path, table, extra="[homeassistant]\ndiscovery = true\n")
    topic = "homeassistant/device/gravekeeper_atk_birth/config"
    run = RunProcess("--config", str(cfg), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        wait_retained(mosquitto, topic, bool)
        with Subscriber(mosquitto.host, mosquitto.port, (topic,)) as configs:
            configs.wait_for(bool)  # the retained one
            start = time.monotonic()
            for _ in range(399):
                attacker.publish("homeassistant/status", b"online", qos=0)
            attacker.publish("homeassistant/status", b"online", qos=1).wait_for_publish(5)
            elapsed = time.monotonic() - start
            # The last birth message is answered by the worker's next round: wait for the answers to settle.
            answers = len(configs.wait_quiet(1.5)) - 1
        assert 1 <= answers <= 4 * (elapsed + 1.5) + 2, (answers, elapsed)
    finally:
        run.close()

    off = "atk-birth-off"
    topic = "homeassistant/device/gravekeeper_atk_birth_off/config"
    run = RunProcess("--config", str(write_config(tmp_path, off)), "--simulate", "--broker", mosquitto.url)
    try:
        run.wait_line("online")
        with Subscriber(mosquitto.host, mosquitto.port, (topic,)) as seen:
            start = time.monotonic()
            for n in range(400):
                attacker.publish(topic, json.dumps({"n": n}), qos=1, retain=True)
            attacker.publish(topic, b'{"last": true}', qos=1, retain=True).wait_for_publish(5)
            elapsed = time.monotonic() - start
            wait_retained(mosquitto, topic, lambda p: p == b"")  # the last one is removed too
            removals = sum(1 for m in seen.messages if m.payload == b"")
        assert removals <= 4 * (elapsed + 2) + 2, (removals, elapsed)
        assert run.proc.poll() is None
    finally:
        run.close()



def test_a_status_nested_just_under_the_parsers_limit_is_refused_like_any_forgery(
        mosquitto: Broker, make_service: MakeService, attacker: mqtt.Client) -> None:
    """Checking a status's signature encodes it one level deeper than it was read: a status nested
    a few levels under the JSON parser's limit (977 to 979 in one run) raised there, so the
    controller logged a traceback for each one, did not count it, and never put its own status
    back: the forgery stayed retained in the table's name."""
    table = "atk-deepstatus"
    topic = f"gk/{table}/status"
    svc = make_service(table, **{"referee.board": "manual"})
    assert svc.link is not None
    link = svc.link
    for depth in range(940, 1000):  # the failing depths move with the stack: try each around them
        before = link.status.refused
        junk = b'{"state":"offline","auth":"' + b"0" * 64 + b'","x":' + b"[" * depth + b"]" * depth + b"}"
        attacker.publish(topic, junk, qos=1, retain=True).wait_for_publish(5)
        wait_until(lambda before=before: link.status.refused > before, 5, f"the status nested {depth} deep refused")
    wait_retained(mosquitto, topic, lambda p: _online(p, table, SERVICE_TOKEN))
