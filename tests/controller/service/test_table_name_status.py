"""The table's name (``table.name``) rides in its signed ``status``, online and in its last word offline."""

from __future__ import annotations

from controller.protocol.signing import verify_status
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber
from tests.support.service import TOKEN, MakeService, topic


def test_the_status_carries_the_configured_name_signed(mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-named"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "status"),)) as sub:
        svc = make_service(t, **{"table.name": "  The kitchen table "})
        online = sub.wait_latest(topic(t, "status"), lambda s: s["state"] == "online")
        assert online["name"] == "The kitchen table" and verify_status(TOKEN, t, sub.latest_bytes(topic(t, "status")))
        svc.stop()
        offline = sub.wait_latest(topic(t, "status"), lambda s: s["state"] == "offline")
        assert offline["name"] == "The kitchen table" and verify_status(TOKEN, t, sub.latest_bytes(topic(t, "status")))


def test_an_unnamed_table_announces_the_name_made_from_its_id(mosquitto: Broker,
                                                               make_service: MakeService) -> None:
    t = "back-room_t3"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "status"),)) as sub:
        make_service(t)
        online = sub.wait_latest(topic(t, "status"), lambda s: s["state"] == "online")
    assert online["name"] == "Back room table 3" and verify_status(TOKEN, t, sub.latest_bytes(topic(t, "status")))
