"""Twenty tables on one broker, each a real Service with a simulated board, in one process.

Every table's events arrive gap-free and in order, at a subscriber to that
table and at one subscriber to every table; a subscriber to one table never
receives a message of another (by topic, and by the table id inside).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.club import flip_launcher, start_table
from tests.support.mqtt import Message, Subscriber
from tests.support.service import BASE

TABLES = 20
ROUNDS = 8  # launcher flips a table: each one a mismatch or mismatch_cleared event


@pytest.fixture
def club(mosquitto: Broker, tmp_path: Path) -> Iterator[dict[str, Service]]:
    run = uuid.uuid4().hex[:6]
    # Ids that are prefixes of each other (c1, c10): a sloppy topic filter would mix them up.
    ids = [f"{run}c{i}" for i in range(1, TABLES + 1)]
    services: dict[str, Service] = {}
    try:
        for t in ids:
            services[t] = start_table(mosquitto, tmp_path, t)
        for t, svc in services.items():
            assert svc.wait_online(10), f"table {t} did not come online"
        yield services
    finally:
        for svc in services.values():
            svc.stop()


def events_of(messages: list[Message], table: str) -> list[dict]:  # type: ignore[type-arg]
    return [m.json() for m in messages if m.topic == f"{BASE}/{table}/events"]


def test_twenty_tables_on_one_broker_stay_gap_free_and_apart(mosquitto: Broker, club: dict[str, Service]) -> None:
    ids = list(club)
    everything = Subscriber(mosquitto.host, mosquitto.port, tuple(f"{BASE}/{t}/#" for t in ids)).start()
    own = {t: Subscriber(mosquitto.host, mosquitto.port, (f"{BASE}/{t}/#",)).start() for t in ids}
    try:
        for sub in (everything, *own.values()):
            for t in ids if sub is everything else [sub.topics[0].split("/")[1]]:
                sub.wait_latest(f"{BASE}/{t}/state", lambda s: s["game"] == "terror")
        # Every table plays at once: each round moves every launcher, then waits for every event.
        start = {t: (everything.latest_body(f"{BASE}/{t}/state") or {})["seq"] for t in ids}
        for r in range(1, ROUNDS + 1):
            for t in ids:
                flip_launcher(club[t], launched=r % 2 == 1)
            everything.wait_for(lambda ms, r=r: all(
                sum(1 for e in events_of(ms, t) if e["seq"] > start[t]) >= r for t in ids), timeout=30)
        for t in ids:
            own[t].wait_for(lambda ms, t=t: sum(1 for e in events_of(ms, t) if e["seq"] > start[t]) >= ROUNDS)

        for t in ids:
            for seen in (events_of(everything.messages, t), events_of(own[t].messages, t)):
                seqs = [e["seq"] for e in seen]
                # Gap-free and in order from the first one received, and nothing twice.
                assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"{t}: {seqs}"
                assert seqs[-1] == start[t] + ROUNDS
                assert [e["type"] for e in seen if e["seq"] > start[t]] == \
                    ["mismatch", "mismatch_cleared"] * (ROUNDS // 2)
                assert {e["table"] for e in seen} == {t}
            # A subscriber to one table received that table's messages only.
            mine = own[t].messages
            assert mine and all(m.topic.startswith(f"{BASE}/{t}/") for m in mine), \
                {m.topic for m in mine if not m.topic.startswith(f"{BASE}/{t}/")}
            for m in mine:
                if m.topic.rsplit("/", 1)[-1] in ("state", "status", "events"):
                    assert m.json().get("table") == t
            other_ids = [o for o in ids if o != t]
            assert not [m for m in mine if any(f'"{o}"'.encode() in m.payload for o in other_ids)]
    finally:
        everything.stop()
        for sub in own.values():
            sub.stop()
