"""The self-test inside the running service: the MQTT command, the retained health report, the live monitor."""

from __future__ import annotations

from typing import Any

from hardware.selftest import session as st_session
from hardware.selftest.monitor import FAILURE, Finding
from hardware.selftest.report import validate_report
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic


def commander(broker: Broker, table: str) -> Commander:
    return Commander(broker.host, broker.port, BASE, table, TOKEN)


def finished(health: Any) -> bool:
    report = (health or {}).get("selftest") or {}
    return report.get("running") is False and report.get("finished") is not None


def test_selftest_command_runs_on_the_simulated_board_and_publishes_the_report(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "st-auto"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
        make_service(t, **{"table.game": "terror"})
        cmd = commander(mosquitto, t)
        try:
            sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror" and s["mismatch"] is None)
            reply = cmd.call("selftest", {})
            assert reply["ok"] is True and reply["data"] == {"running": True, "guided": False}
            busy = cmd.call("selftest", {})
            assert busy["ok"] is False and "already running" in busy["error"]
            health = sub.wait_latest(topic(t, "health"), finished, timeout=30)
        finally:
            cmd.close()
        report = health["selftest"]
        validate_report(report)
        assert report["ok"] is True, [c for c in report["checks"] if c["status"] == "fail"]
        ids = {c["id"]: c["status"] for c in report["checks"]}
        assert ids["broker.reachable"] == ids["journal.integrity"] == ids["data.terror_cards"] == "pass"
        assert ids["impossible.none"] == "pass" and ids["mcu"] == "skip"
        # the service's simulator walked every part, away and back
        assert report["steps"] and all(s["status"] == "pass" for s in report["steps"])
        # progress was published step by step while it ran
        running = [m.json()["selftest"] for m in sub.on(topic(t, "health"))
                   if (m.json() or {}).get("selftest", {}) and m.json()["selftest"].get("running")]
        assert any(r["current"] for r in running)
        # the walk-through's moves were not game moves: the board is back and reconciled, no mismatch
        state = sub.wait_latest(topic(t, "state"), lambda s: True)
        assert state["mismatch"] is None


def test_guided_run_from_mqtt_with_a_skip_a_simulated_move_and_a_stop(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "st-guided"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
        make_service(t, **{"table.game": "superstition"})
        cmd = commander(mosquitto, t)
        try:
            sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "superstition")
            assert cmd.call("selftest", {"skip": True})["error"].startswith("selftest: no self-test is running")
            cmd.ok("selftest", {"guided": True, "step_timeout": 20})

            def at(index: int) -> Any:
                return lambda h: ((h or {}).get("selftest") or {}).get("current", {}) and \
                    h["selftest"]["current"]["done"] == index

            first = sub.wait_latest(topic(t, "health"), at(0), timeout=20)["selftest"]["current"]
            assert first["total"] > 2 and first["left"] == first["total"] and first["prompt"].startswith("Slide")
            cmd.ok("selftest", {"skip": True})
            second = sub.wait_latest(topic(t, "health"), at(1))["selftest"]["current"]
            sensor, value = second["id"].rsplit(".", 1)
            # the person at the panel makes the move with the simulator
            cmd.ok("sim", {"sensor": sensor, "value": value})
            sub.wait_latest(topic(t, "health"), at(2))
            cmd.ok("selftest", {"skip": "all"})
            report = sub.wait_latest(topic(t, "health"), finished, timeout=10)["selftest"]
        finally:
            cmd.close()
    validate_report(report)
    steps = report["steps"]
    assert [s["status"] for s in steps[:3]] == ["skipped", "pass", "skipped"]
    assert all(s["status"] == "skipped" and "stopped" in s["message"] for s in steps[3:])
    assert report["guided"] is True and report["ok"] is True


def test_live_monitor_failure_holds_play_and_shows_on_the_health_strip(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "st-halt"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
        svc = make_service(t, **{"table.game": "dogs", "table.players": ["Ann", "Bob"]})
        cmd = commander(mosquitto, t)
        try:
            state = sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "dogs" and s["legal"])
            action = state["legal"][0]
            failure = Finding(FAILURE, "offline", "trap.mirror.sprung", "trap.mirror.sprung cannot be read: its "
                              "source is offline", "check the MCU's power and its USB cable", 1.0)

            class Failing:
                active = [failure]
                failures = [failure]

                def update(self, *args: Any, **kwargs: Any) -> list[Finding]:
                    return []

                def sensors_json(self, sensors: Any) -> dict[str, Any]:
                    return {}

            st_session._session(svc.hub).monitor = Failing()  # type: ignore[assignment]
            refused = cmd.call("act", {"action": action})
            assert refused["ok"] is False and "trap.mirror.sprung cannot be read" in refused["error"]
            assert "Play is held" in refused["error"]
            cmd.ok("resync", {})  # forces a health publish
            health = sub.wait_latest(topic(t, "health"), lambda h: h.get("halt") is not None)
            assert health["halt"]["code"] == "hardware_failure" and health["halt"]["sensors"] == ["trap.mirror.sprung"]
            assert any("MCU's power" in w for w in health["warnings"])
            # ...and the hold shows where every panel shows a hold: the state's mismatch.
            held = sub.wait_latest(topic(t, "state"), lambda s: s.get("mismatch") is not None)
            assert held["mismatch"]["code"] == "hardware_failure"
            assert "Play is held" in held["mismatch"]["guidance"]
        finally:
            cmd.close()


def test_a_chattering_sensor_during_a_game_is_a_live_warning_on_the_health_topic(
        mosquitto: Broker, tmp_path: Any) -> None:
    import threading

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from controller.mqtt.broker import choose_broker
    from controller.service.service import Service
    from tests.support.service import service_config

    t = "st-chatter"
    factory = MockFactory(pin_class=MockPWMPin)
    cfg = service_config(mosquitto, tmp_path, t, **{"table.game": "terror"})
    svc = Service(cfg, choose_broker(cfg.mqtt), pin_factory=factory)
    stop = threading.Event()
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "health"),)) as sub:
        svc.start()
        try:
            assert svc.wait_online(5)
            pin = factory.pin(13)  # the launcher, on the default pin map

            def chatter() -> None:
                high = True
                while not stop.wait(0.002):  # far inside the 20 ms window: it never settles
                    high = not high
                    pin.drive_high() if high else pin.drive_low()

            thread = threading.Thread(target=chatter)
            thread.start()
            health = sub.wait_latest(topic(t, "health"), lambda h: any(
                f["code"] == "chatter" for f in (h.get("monitor") or {}).get("findings", [])), timeout=20)
            stop.set()
            thread.join()
            finding = next(f for f in health["monitor"]["findings"] if f["code"] == "chatter")
            assert finding["sensor"] == "launcher" and finding["level"] == "warning"
            assert any("The Ghost launcher (GPIO 13) chatters" in w for w in health["warnings"])
            assert health["halt"] is None  # a warning never stops the game
            assert health["monitor"]["sensors"]["launcher"]["edges"] > 12
            # once the contact is quiet the warning clears, and that is published at once too
            sub.wait_latest(topic(t, "health"), lambda h: not (h.get("monitor") or {}).get("findings"), timeout=10)
        finally:
            stop.set()
            svc.stop()
            factory.reset()


def test_a_guided_run_still_waiting_when_the_service_stops_ends_and_reports_it(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "st-stop-guided"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
        svc = make_service(t, **{"table.game": "superstition"})
        hub = svc.hub
        cmd = commander(mosquitto, t)
        try:
            sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "superstition")
            cmd.ok("selftest", {"guided": True, "step_timeout": 600})
            sub.wait_latest(topic(t, "health"), lambda h: bool(((h or {}).get("selftest") or {}).get("current")),
                            timeout=20)
        finally:
            cmd.close()
        thread = st_session._SESSIONS[hub].thread
        assert thread is not None and thread.is_alive()  # waiting for a person, up to 600 s
        svc.stop()
        assert not thread.is_alive()  # stop() ended it: it no longer waits on closed sensors
        report = sub.wait_latest(topic(t, "health"), finished, timeout=10)["selftest"]
    validate_report(report)
    steps = report["steps"]
    assert all(s["status"] == "skipped" for s in steps)  # the step it waited on, then the rest
    assert steps[1:] and all("stopped" in s["message"] for s in steps[1:])
