"""Effects and Home Assistant discovery on a running table, against a real Mosquitto."""

from __future__ import annotations

import re
import threading
from typing import Any

from controller.effects.engine import QUEUE_BATCHES, Effects, EffectsPlayer
from controller.effects.pack import parse_pack
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic


def test_cues_of_a_game_reach_the_effects_topic_in_plain_words(mosquitto: Broker, make_service: MakeService) -> None:
    t = "fx-terror"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "effects"), topic(t, "summary"))) as sub:
        make_service(t, **{"table.game": "terror", "table.players": ["Ann", "Bo"]})
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            summary = sub.wait_latest(topic(t, "summary"), lambda s: s["game"] == "terror")
            assert summary["title"] == "Terror in the Graveyard" and summary["turn"] == "Ann"
            assert summary["tomb_wolf"] == "the middle" and summary["ghost"] == "on its launcher"
            cmd.ok("sim", {"sensor": "launcher", "value": "launched"})
            sub.wait_for(lambda m: any(x.topic == topic(t, "effects") and x.json()["event"] == "mismatch" for x in m))
            summary = sub.wait_latest(topic(t, "summary"), lambda s: s["ghost"] == "flown off")
            assert summary["mismatch"] is True and "Headless Ghost" in summary["mismatch_text"]
            cmd.call("sim", {"sensor": "launcher", "value": "armed"})
            sub.wait_latest(topic(t, "summary"), lambda s: s["mismatch"] is False)
            reply, opened = cmd.call_sealed(0, {"kind": "roll", "player": 0})
            assert reply["ok"] is True, opened
        finally:
            cmd.close()
        msgs = sub.wait_for(lambda m: any(x.topic == topic(t, "effects") and x.json()["event"] == "rolled" for x in m))
        cues = {x.json()["event"]: x.json() for x in msgs if x.topic == topic(t, "effects")}
        mismatch = cues["mismatch"]
        assert mismatch["table"] == t and mismatch["rules"] == ["a mismatch"]
        said = [c["value"] for c in mismatch["cues"] if c["kind"] == "say"]
        assert said and said[0].startswith("Check the board. The Headless Ghost")
        assert not re.search(r"tomb\.|trap\.|chute\.|seat \d|_", said[0])
        assert {"kind": "light", "value": "table_light", "pattern": "blink", "ms": 2000, "period_ms": 400} \
            in mismatch["cues"]
        assert [c["kind"] for c in cues["rolled"]["cues"]] == ["sound", "animate"]
        assert not any(x.retain for x in msgs if x.topic == topic(t, "effects"))
        assert "mismatch_cleared" in cues


def test_effects_can_be_turned_off(mosquitto: Broker, make_service: MakeService) -> None:
    t = "fx-off"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "effects"), topic(t, "events"))) as sub:
        svc = make_service(t, **{"table.game": "terror", "effects.enabled": False})
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            cmd.call("sim", {"sensor": "launcher", "value": "launched"})
            sub.wait_for(lambda m: any(x.topic == topic(t, "events") and x.json()["type"] == "mismatch" for x in m))
        finally:
            cmd.close()
        assert svc.effects.player is not None and svc.effects.player.drain(5)
        assert sub.on(topic(t, "effects")) == [] and svc.effects.player.counters["played"] == 0


def test_a_bad_owner_pack_plays_the_defaults_and_says_why_in_health(
        mosquitto: Broker, make_service: MakeService, tmp_path: Any) -> None:
    t = "fx-bad"
    pack = tmp_path / "mine.toml"
    pack.write_text("[[rule]]\nname = 'loud'\nwhen = 'rolled'\ncues = [{ sound = 'klaxon' }]\n", encoding="utf-8")
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "effects"), topic(t, "health"))) as sub:
        svc = make_service(t, **{"table.game": "terror", "effects.terror": str(pack)})
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            cmd.call("sim", {"sensor": "launcher", "value": "launched"})
            msgs = sub.wait_for(lambda m: any(x.topic == topic(t, "effects") for x in m))
        finally:
            cmd.close()
        assert [x.json()["rules"] for x in msgs if x.topic == topic(t, "effects")][0] == ["a mismatch"]
        error = svc.effects.health()["error"]
        assert error is not None and "rule 1 ('loud')" in error and "klaxon" in error


def test_offer_never_blocks_even_when_playing_is_stuck() -> None:
    """A stalled broker or output must not slow the referee: offer() queues, the oldest batch goes."""
    gate = threading.Event()
    published: list[dict[str, Any]] = []

    def stuck_publish(body: dict[str, Any]) -> None:
        gate.wait(10)
        published.append(body)

    pack = parse_pack("[[rule]]\nname = 'r'\nwhen = 'rolled'\ncues = [{ sound = 'roll' }]\n")
    player = EffectsPlayer("t", effects=lambda: Effects("terror", pack), players=lambda: ["Ann"],
                           publish=stuck_publish, clock=lambda: 0.0)
    player.start()
    try:
        offered = threading.Event()

        def offer_many() -> None:
            for i in range(QUEUE_BATCHES * 3):
                player.offer([{"seq": i, "time": 0.0, "type": "rolled", "data": {"seat": 0}}])
            offered.set()

        threading.Thread(target=offer_many, daemon=True).start()
        assert offered.wait(5), "offer() blocked behind a stuck publisher"
        assert player.counters["dropped"] >= QUEUE_BATCHES * 3 - QUEUE_BATCHES - 1
        gate.set()
        assert player.drain(10)
        seqs = [b["seq"] for b in published]
        assert seqs == sorted(seqs) and seqs[-1] == QUEUE_BATCHES * 3 - 1  # the newest are kept, in order
    finally:
        gate.set()
        player.close()


def test_a_backlog_after_an_outage_plays_nothing() -> None:
    published: list[dict[str, Any]] = []
    pack = parse_pack("[[rule]]\nname = 'r'\nwhen = 'rolled'\ncues = [{ sound = 'roll' }]\n")
    player = EffectsPlayer("t", effects=lambda: Effects("terror", pack), players=lambda: ["Ann"],
                           publish=published.append, clock=lambda: 1000.0)
    player.start()
    try:
        player.offer([{"seq": 1, "time": 900.0, "type": "rolled", "data": {}},
                      {"seq": 2, "time": 999.5, "type": "rolled", "data": {}}])
        assert player.drain(5)
        assert [b["seq"] for b in published] == [2] and player.counters["stale"] == 1
    finally:
        player.close()


def test_the_effects_player_gets_a_decisions_events_only_after_they_are_published(
        mosquitto: Broker, make_service: MakeService) -> None:
    # Offering wakes the effects thread: between the commit and the publish it would compete
    # with paho's thread for the interpreter on the event's way to the broker.
    t = "fx-order"
    svc = make_service(t, **{"table.game": "terror"})
    player = svc.effects.player
    assert player is not None and svc.link is not None
    link = svc.link
    seen: list[tuple[int, int]] = []  # (highest seq offered, highest seq the link had handed to paho)
    offered = threading.Event()
    real_offer = player.offer

    def offer(events: Any) -> None:
        seen.append((max(int(e["seq"]) for e in events), link._sent_seq))
        offered.set()
        real_offer(events)

    player.offer = offer  # type: ignore[method-assign]
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "events"),)) as sub:
        svc.hub.simulate("launcher", "launched")  # decided in the hub's thread
        sub.wait_for(lambda m: any(x.json()["type"] == "mismatch" for x in m))
        assert offered.wait(5)
        offered.clear()
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            cmd.ok("sim", {"sensor": "launcher", "value": "armed"})
        finally:
            cmd.close()
        sub.wait_for(lambda m: any(x.json()["type"] == "mismatch_cleared" for x in m))
        assert offered.wait(5)
    assert seen and all(offered_seq <= sent for offered_seq, sent in seen), seen


def test_a_failing_output_is_reported_once_and_the_rest_still_plays(caplog: Any) -> None:
    """A dead light (an unplugged board) must not flood the log or silence the other cues and lights."""
    published: list[dict[str, Any]] = []
    lit: list[str] = []

    def lights(output: str, cue: Any) -> None:
        if output == "dead_light":
            raise OSError("the output board does not answer")
        lit.append(output)

    def home_assistant(event: Any) -> None:
        raise RuntimeError("device trigger failed")

    pack = parse_pack("[[rule]]\nname = 'r'\nwhen = 'rolled'\n"
                      "cues = [{ light = 'dead_light' }, { light = 'good_light' }, { sound = 'roll' }]\n")
    player = EffectsPlayer("t", effects=lambda: Effects("terror", pack), players=lambda: ["Ann"],
                           publish=published.append, lights=lights, also=home_assistant, clock=lambda: 0.0)
    player.start()
    try:
        with caplog.at_level("INFO", logger="controller.effects.engine"):
            for i in range(5):
                player.offer([{"seq": i, "time": 0.0, "type": "rolled", "data": {"seat": 0}}])
                assert player.drain(5)
        assert [b["seq"] for b in published] == [0, 1, 2, 3, 4]  # Home Assistant failing stops no cue
        assert lit == ["good_light"] * 5  # the light after the dead one still lights
        errors = [r for r in caplog.records if r.levelname in ("ERROR", "WARNING")]
        assert len(errors) == 2, [r.getMessage() for r in errors]  # one for the light, one for Home Assistant
        messages = " ".join(r.getMessage() for r in errors)
        assert "dead_light" in messages and "Home Assistant" in messages
        assert player.counters["failed"] == 10
    finally:
        player.close()


def test_an_output_that_works_again_is_said_once() -> None:
    broken = threading.Event()
    broken.set()

    def lights(output: str, cue: Any) -> None:
        if broken.is_set():
            raise OSError("no answer")

    pack = parse_pack("[[rule]]\nname = 'r'\nwhen = 'rolled'\ncues = [{ light = 'lamp' }]\n")
    player = EffectsPlayer("t", effects=lambda: Effects("terror", pack), players=lambda: ["Ann"],
                           publish=lambda body: None, lights=lights, clock=lambda: 0.0)
    player.start()
    try:
        player.offer([{"seq": 1, "time": 0.0, "type": "rolled", "data": {}}])
        assert player.drain(5)
        assert "lamp" in " ".join(player.faults)
        broken.clear()
        player.offer([{"seq": 2, "time": 0.0, "type": "rolled", "data": {}}])
        assert player.drain(5)
        assert player.faults == []
    finally:
        player.close()


def test_a_missing_or_bad_owner_pack_is_reported_when_the_table_starts(
        mosquitto: Broker, make_service: MakeService, tmp_path: Any, caplog: Any) -> None:
    """The owner sees the mistake at once, not only when the first event of that game plays."""
    missing = tmp_path / "my-terror.toml"  # a typo in the config: no such file
    broken = tmp_path / "my-dogs.toml"
    broken.write_text("[[rule]\nname = 'x'\n", encoding="utf-8")
    with caplog.at_level("ERROR", logger="controller.effects.engine"):
        svc = make_service("fx-start", **{"table.game": "terror", "effects.terror": str(missing),
                                          "effects.dogs": str(broken)})
        error = svc.effects.health()["error"]
    assert error is not None and str(missing) in error and "No such file" in error
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert str(missing) in logged and str(broken) in logged and "not valid TOML" in logged


def test_health_says_what_is_failing_in_words(mosquitto: Broker, make_service: MakeService) -> None:
    svc = make_service("fx-faults", **{"table.game": "terror"})
    assert svc.effects.health()["faults"] == []


def test_an_owner_pack_lighting_an_output_the_pi_lacks_says_so_at_start(
        mosquitto: Broker, make_service: MakeService, tmp_path: Any, caplog: Any) -> None:
    """A typo in a light's name would otherwise light nothing and say nothing."""
    pack = tmp_path / "mine.toml"
    pack.write_text("[[rule]]\nname = 'flash'\nwhen = 'rolled'\ncues = [{ light = 'tabel_light' }]\n",
                    encoding="utf-8")
    with caplog.at_level("WARNING", logger="controller.service.effects"):
        svc = make_service("fx-outputs", **{"table.game": "terror", "effects.terror": str(pack)})
    assert svc.hub is not None and "tabel_light" not in svc.hub.output_names
    lines = [r.getMessage() for r in caplog.records if "tabel_light" in r.getMessage()]
    assert len(lines) == 1 and str(pack) in lines[0] and "[hardware.outputs]" in lines[0], lines
    assert svc.effects.health()["error"] is None  # still a good pack: the light may be home automation's
