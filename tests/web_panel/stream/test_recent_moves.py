"""A table opened mid-game shows the current game's moves at once: the retained, signed ``recent`` topic.

Real Mosquitto, a real in-process Service with a simulated board playing
Superstition with nobody watching, then a panel that opens the table (API,
SSE stream, and a Chromium page).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.games.base import Action
from controller.mqtt.link import EVENT_KEYS
from controller.protocol.commands import dumps
from controller.protocol.publication import Publisher, open_publication
from controller.protocol.security import join_code
from controller.protocol.signing import signing_key
from controller.service.recent import MAX_BYTES, MAX_EVENTS, RecentEvents
from controller.service.service import Service
from controller.store.journal import public_body
from tests.support.broker import Broker
from tests.support.club import start_table
from tests.support.cut_proxy import CutProxy
from tests.support.mqtt import Subscriber
from tests.support.service import TOKEN
from tests.web_panel.club.test_convention_bridge import NOTIFY
from tests.web_panel.support.browser import check_phone_page, open_page
from tests.web_panel.support.sse_reader import SseReader
from web_panel import PanelSettings
from web_panel.server import PanelServer, start_panel

BASE = "gravekeeper"
MOVES = 8


def play(svc: Service, moves: int) -> None:
    """Make ``moves`` legal moves a person could command (the first the table offers each time)."""
    def step(s: Service) -> None:
        legal = s.referee.state()["legal"]
        assert legal, "the game offers no move"
        assert s.referee.act(Action.from_json(legal[0])).ok
    for _ in range(moves):
        svc.call(step)


def published_events(svc: Service, game_only: bool = True) -> list[dict[str, Any]]:
    """The events as published on ``<t>/events`` (the current game's, from its game_started on)."""
    events = [{k: e.get(k) for k in EVENT_KEYS} for e in svc.journal.events_after(0)]
    if game_only:
        starts = [i for i, e in enumerate(events) if e["type"] == "game_started"]
        events = events[starts[-1]:]
    return events


def retained_recent(broker: Broker, table: str, timeout: float = 5.0) -> bytes:
    """The retained ``recent`` payload, read by a plain subscriber."""
    got: list[bytes] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"peek-{uuid.uuid4().hex[:8]}")

    def on_message(c: Any, u: Any, msg: Any) -> None:
        if msg.retain:
            got.append(bytes(msg.payload))
            done.set()

    client.on_message = on_message
    client.on_connect = lambda c, u, f, r, p: c.subscribe(f"{BASE}/{table}/recent", 1)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        assert done.wait(timeout), "no retained recent topic"
        return got[0]
    finally:
        client.disconnect()
        client.loop_stop()


def wait_retained_recent(broker: Broker, table: str, ok: Any, timeout: float) -> Any:
    """``ok`` of the retained ``recent`` once it is truthy, or its last value when ``timeout`` runs out.

    The broker's copy is read again only when something new is published on the topic (``watch``
    hears it), instead of on a timer.
    """
    deadline = time.monotonic() + timeout
    with Subscriber(broker.host, broker.port, (f"{BASE}/{table}/recent",)) as watch:
        while True:
            seen = len(watch.messages)
            result = ok(retained_recent(broker, table))
            if result:
                return result
            try:
                watch.wait_for(lambda msgs, seen=seen: len(msgs) > seen, max(0.0, deadline - time.monotonic()))
            except AssertionError:
                return result


def wait_recent_seq(broker: Broker, svc: Service, timeout: float = 6.0) -> dict[str, Any]:
    """The retained ``recent`` once it holds everything the journal has (published at most once a second)."""
    last = svc.journal.last_seq()
    got: list[dict[str, Any]] = []

    def ok(payload: bytes) -> bool:
        got.append(open_publication(signing_key(TOKEN), svc.table, "recent", payload)[0])
        return bool(got[-1]["seq"] == last)

    wait_retained_recent(broker, svc.table, ok, timeout)
    return got[-1]


@pytest.fixture
def table(mosquitto: Broker, tmp_path: Path) -> Iterator[Service]:
    svc = start_table(mosquitto, tmp_path, f"rc{uuid.uuid4().hex[:6]}",
                      **{"mqtt.base_topic": BASE, "table.game": "superstition", "table.players": ["Ann", "Bo"]})
    assert svc.wait_online(10)
    yield svc
    svc.stop()


@pytest.fixture
def open_panel(mosquitto: Broker) -> Iterator[Any]:
    panels: list[PanelServer] = []

    def start(tables: list[str], with_token: bool = True) -> PanelServer:
        tokens = {t: TOKEN for t in tables} if with_token else {}
        panel = start_panel(PanelSettings(broker_port=mosquitto.port, tokens=tokens, listen_port=0))
        panels.append(panel)
        view = panel.app.extensions["gravekeeper"]
        assert view.connected.wait(5)
        # The table is on the panel's list (its retained status), watched by nobody yet.
        assert view.wait_until(lambda: all(view.has_table(t) for t in tables), 5)
        assert view.watched() == []
        return panel

    yield start
    for panel in panels:
        panel.close()


def test_the_controller_keeps_the_current_games_latest_moves_retained_and_signed(
        mosquitto: Broker, table: Service) -> None:
    play(table, MOVES)
    data = wait_recent_seq(mosquitto, table)
    expected = published_events(table)
    assert data["seq"] == table.journal.last_seq()
    assert data["events"] == expected  # exactly as published, oldest first, from the game's start
    assert data["game"]["game_id"] == table.referee.game_id and data["game"]["players"] == ["Ann", "Bo"]
    assert data["game"]["title"] == "Superstition"
    # Byte for byte what encoding the decoded events again would give: each event's bytes are the
    # ones the events topic carried.
    retained = table.call(lambda s: s.link.retained(s.link.topics.recent))
    assert retained == dumps({"seq": data["seq"], "game": data["game"], "events": expected})
    bodies = [body for _, body in table.journal.public_after(expected[0]["seq"] - 1)]
    assert all(body in retained for body in bodies)

    # A new game, a new log: only its own events.
    assert table.call(lambda s: s.referee.new_game("superstition", ["Cy", "Di"]).ok)
    data = wait_recent_seq(mosquitto, table)
    assert [e["type"] for e in data["events"]][0] == "game_started"
    assert all(e["seq"] > expected[-1]["seq"] for e in data["events"])
    assert data["game"]["players"] == ["Cy", "Di"]


def test_a_restarted_controller_publishes_the_same_moves_again_from_its_journal(
        mosquitto: Broker, tmp_path: Path) -> None:
    table_id = f"rr{uuid.uuid4().hex[:6]}"
    options = {"mqtt.base_topic": BASE, "table.game": "superstition", "table.players": ["Ann", "Bo"]}
    svc = start_table(mosquitto, tmp_path, table_id, **options)
    try:
        assert svc.wait_online(10)
        play(svc, MOVES)
        before = wait_recent_seq(mosquitto, svc)
    finally:
        svc.stop()
    svc = start_table(mosquitto, tmp_path, table_id, **options)
    try:
        assert svc.wait_online(10)
        assert svc.link is not None
        run = svc.link.status.instance
        opened: list[Any] = []

        def own(payload: bytes) -> bool:  # the new run's own copy, not the one the broker kept from the last run
            opened.append(open_publication(signing_key(TOKEN), table_id, "recent", payload))
            return bool(opened[-1][1].run == run)

        wait_retained_recent(mosquitto, table_id, own, 6)
        after, stamp = opened[-1]
        assert stamp.run == run
        assert after["events"] == before["events"] == published_events(svc)
        assert after["game"] == before["game"]
    finally:
        svc.stop()


def test_recent_is_bounded_by_count_and_by_bytes() -> None:
    class Journal:
        def __init__(self) -> None:
            self.events: list[bytes] = []

        def last_seq(self) -> int:
            return len(self.events)

        def public_after(self, seq: int, limit: int | None = None) -> list[tuple[int, bytes]]:
            return list(enumerate(self.events, 1))[seq:]

        def add(self, kind: str, text: str = "") -> None:
            # The data may hold a "type" of its own: only the event's type starts a game.
            self.events.append(public_body(len(self.events) + 1, "t", kind, 1.0,
                                           dumps({"text": text, "type": "game_started"}).decode()))

    journal = Journal()
    journal.add("game_started")
    for _ in range(MAX_EVENTS + 50):
        journal.add("moved")
    recent = RecentEvents()
    assert recent.due(journal, 0.0)
    events = json.loads(recent.payload(None))["events"]
    assert len(events) == MAX_EVENTS and events[-1]["seq"] == journal.last_seq()
    assert [e["seq"] for e in events] == list(range(journal.last_seq() - MAX_EVENTS + 1, journal.last_seq() + 1))
    assert list(events[0]) == list(EVENT_KEYS)  # only what goes on the events topic
    assert not recent.due(journal, 0.5)  # nothing new, and not yet a second later either
    for _ in range(30):
        journal.add("moved", "x" * 4000)  # big events: the byte budget, not the count, bounds it
    assert not recent.due(journal, 0.5) and recent.due(journal, 1.0)
    payload = recent.payload(None)
    assert recent.bytes <= MAX_BYTES and len(payload) <= MAX_BYTES + 1024
    assert json.loads(payload)["events"][-1]["seq"] == journal.last_seq()
    journal.add("game_started")
    journal.add("moved")
    assert recent.due(journal, 2.0)
    assert [e["type"] for e in json.loads(recent.payload(None))["events"]] == ["game_started", "moved"]
    # A journal started afresh numbers from 1 again: the old numbers go.
    journal.events = []
    journal.add("game_started")
    assert recent.due(journal, 3.0)
    assert [e["seq"] for e in json.loads(recent.payload(None))["events"]] == [1]


def test_a_panel_opened_mid_game_shows_the_moves_so_far_once_and_in_order(
        mosquitto: Broker, table: Service, open_panel: Any) -> None:
    play(table, MOVES)  # nobody watches: no panel is even running
    expected = published_events(table)
    wait_recent_seq(mosquitto, table)
    panel = open_panel([table.table])
    client = panel.app.test_client()

    api = client.get(f"/api/t/{table.table}").get_json()
    assert [e["seq"] for e in api["events"]] == [e["seq"] for e in expected]
    assert [e["type"] for e in api["events"]] == [e["type"] for e in expected]
    assert all(e["context"]["game_id"] == table.referee.game_id for e in api["events"])
    assert not api["trust"]["refused"]

    # The stream's first snapshot has them; a live move comes after them, once.
    # The panel's close (the fixture) ends the stream.
    reader = SseReader(client.get(f"/t/{table.table}/stream", buffered=False))
    kind, snap = reader.next(timeout=5)
    assert kind == "snapshot" and [e["seq"] for e in snap["events"]] == [e["seq"] for e in expected]
    view = panel.app.extensions["gravekeeper"]
    taken = _recent_stamp(view, table)
    assert taken is not None
    play(table, 1)
    live = published_events(table)[len(expected):]
    seen: list[int] = []
    deadline = time.monotonic() + 5
    while live[-1]["seq"] not in seen and time.monotonic() < deadline:
        kind, data = reader.next(timeout=5)
        if kind == "event":
            seen.append(data["seq"])
    assert seen == [e["seq"] for e in live]
    # The next recent (at most a second later) holds the live move the panel has already: nothing twice.
    assert view.wait_until(lambda: (_recent_stamp(view, table) or taken) > taken, 5)
    seqs = [e["seq"] for e in view.snapshot(table.table)["events"]]
    assert seqs == sorted(set(seqs)) == [e["seq"] for e in published_events(table)]


def _recent_stamp(view: Any, svc: Service) -> Any:
    """The stamp of the newest ``recent`` the panel has taken of ``svc``'s table (None: none yet)."""
    fresh = view.vouching._fresh.get(svc.table)
    return fresh._newest.get("recent") if fresh is not None else None


def test_a_panel_opened_after_a_new_game_shows_only_the_new_games_moves(
        mosquitto: Broker, table: Service, open_panel: Any) -> None:
    play(table, MOVES)
    assert table.call(lambda s: s.referee.new_game("superstition", ["Cy", "Di"]).ok)
    play(table, 3)
    expected = published_events(table)
    assert wait_recent_seq(mosquitto, table)["seq"] == table.journal.last_seq()
    panel = open_panel([table.table])
    api = panel.app.test_client().get(f"/api/t/{table.table}").get_json()
    assert [e["seq"] for e in api["events"]] == [e["seq"] for e in expected]
    assert api["events"][0]["type"] == "game_started"
    assert {e["context"]["game_id"] for e in api["events"]} == {api["state"]["game_id"]}


def test_a_panel_without_the_token_shows_the_moves_too_and_says_it_cannot_vouch_for_them(
        mosquitto: Broker, table: Service, open_panel: Any) -> None:
    play(table, 4)
    expected = published_events(table)
    wait_recent_seq(mosquitto, table)
    api = open_panel([table.table], with_token=False).app.test_client().get(f"/api/t/{table.table}").get_json()
    assert [e["seq"] for e in api["events"]] == [e["seq"] for e in expected]
    assert api["trust"]["vouched"] is False


def test_a_forged_recent_is_refused_counted_and_shown_nowhere(
        mosquitto: Broker, table: Service, open_panel: Any) -> None:
    play(table, 3)
    wait_recent_seq(mosquitto, table)
    panel = open_panel([table.table])
    view = panel.app.extensions["gravekeeper"]
    client = panel.app.test_client()
    before = [e["seq"] for e in client.get(f"/api/t/{table.table}").get_json()["events"]]
    assert before
    forger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"forger-{uuid.uuid4().hex[:6]}")
    forger.connect("127.0.0.1", mosquitto.port)
    forger.loop_start()
    try:
        game = {"game_id": table.referee.game_id, "game": "superstition", "title": "Superstition",
                "players": ["Ann", "Bo"]}
        fake = {"seq": 900, "table": table.table, "type": "game_over", "time": 1.0, "data": {"winners": [1]}}
        body = json.dumps({"seq": 900, "game": game, "events": [fake]}).encode()
        topic = f"{BASE}/{table.table}/recent"
        # Signed with another token, then not signed at all; both retained, as a forger would.
        for payload in (Publisher("guess", table.table, "forger", time.time() + 9e6).sign("recent", body), body):
            forger.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
        assert view.wait_until(lambda: sum(view.vouching.describe(table.table)["refused"].values()) >= 2, 5)
        api = client.get(f"/api/t/{table.table}").get_json()
        assert 900 not in [e["seq"] for e in api["events"]]
        assert [e["seq"] for e in api["events"]] == before
        assert "refused 2 messages" in api["trust"]["text"]
    finally:
        forger.disconnect()
        forger.loop_stop()
    # The table puts its own back (it hears others publish in its name), so a panel opened later is shown
    # the genuine moves, not the forged ones.
    def genuine(payload: bytes) -> Any:
        try:
            return open_publication(signing_key(TOKEN), table.table, "recent", payload)[0]
        except ValueError:  # still the forged copy
            return None

    data = wait_retained_recent(mosquitto, table.table, genuine, 8)
    if data is None:
        pytest.fail("the table did not put its recent topic back")
    assert [e["seq"] for e in data["events"]] == before


@pytest.mark.browser
def test_the_table_page_opened_mid_game_lists_the_moves_in_words(
        mosquitto: Broker, table: Service, open_panel: Any, chromium: Any) -> None:
    play(table, MOVES)
    expected = published_events(table)
    wait_recent_seq(mosquitto, table)
    panel = open_panel([table.table])
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_page(page, f"{panel.url}t/{table.table}")
        page.wait_for_function("(n) => document.querySelectorAll('#log > li').length >= n", arg=len(expected))
        numbers = page.eval_on_selector_all("#log > li > span.n", "els => els.map(e => e.textContent)")
        assert numbers == [str(e["seq"]) for e in reversed(expected)]  # newest first, each once
        text = page.inner_text("#log")
        assert "Ann" in text and "Bo" in text
        check_phone_page(page, "a table page opened mid-game", errors)

        # Bo joins on a phone mid-game: the player's page lists the same moves.
        phone = context.new_page()
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        open_page(phone, f"{panel.url}t/{table.table}/join")
        phone.fill("#join-code", join_code(TOKEN, table.table, str(table.referee.game_id), 1))
        phone.click("button[type=submit]")
        phone.wait_for_function("(n) => document.querySelectorAll('#log > li').length >= n", arg=len(expected))
        numbers = phone.eval_on_selector_all("#log > li > span.n", "els => els.map(e => e.textContent)")
        assert numbers == [str(e["seq"]) for e in reversed(expected)]
        check_phone_page(phone, "a player's page opened mid-game", errors, accessibility=False)
    finally:
        context.close()
    assert errors == []


def _feed(view: Any, table: str, kind: str, data: dict[str, Any]) -> None:
    view.handle(f"{BASE}/{table}/{kind}", json.dumps(data).encode())


def _event(seq: int, kind: str = "moved") -> dict[str, Any]:
    return {"seq": seq, "table": "bar-1", "type": kind, "time": 1.0, "data": {"player": 0}}


def test_the_panel_merges_recent_by_seq_and_never_takes_an_older_games() -> None:
    """The merge itself, fed message by message (a panel with no token for the table checks no signature)."""
    from web_panel.mqtt import MqttView

    view = MqttView(PanelSettings(broker_port=9, listen_port=0, event_log_size=10))  # never connected
    game_a = {"game_id": "a", "game": "superstition", "title": "Superstition", "players": ["Ann", "Bo"]}
    game_b = {**game_a, "game_id": "b", "players": ["Cy", "Di"]}
    # The panel opens the table just after a new game began: the state is game B's, while the retained
    # recent (at most once a second) is still game A's. None of A's moves may enter B's log.
    _feed(view, "bar-1", "state", {"seq": 20, "game_id": "b", "game": "superstition", "players": ["Cy", "Di"]})
    _feed(view, "bar-1", "recent", {"seq": 19, "game": game_a, "events": [_event(18), _event(19)]})
    assert view.snapshot("bar-1")["events"] == []
    # A live move, then the new recent holding it and the one before it: in order, each once.
    _feed(view, "bar-1", "events", _event(21))
    _feed(view, "bar-1", "recent", {"seq": 21, "game": game_b,
                                     "events": [_event(20, "game_started"), _event(21)]})
    events = view.snapshot("bar-1")["events"]
    assert [e["seq"] for e in events] == [20, 21]
    assert all(e["context"]["game_id"] == "b" for e in events)
    _feed(view, "bar-1", "events", _event(22))
    _feed(view, "bar-1", "recent", {"seq": 22, "game": game_b,
                                     "events": [_event(20, "game_started"), _event(21), _event(22)]})
    assert [e["seq"] for e in view.snapshot("bar-1")["events"]] == [20, 21, 22]
    # A log full to event_log_size keeps its newest: older events are not pushed in again.
    for seq in range(23, 40):
        _feed(view, "bar-1", "events", _event(seq))
    _feed(view, "bar-1", "recent", {"seq": 39, "game": game_b, "events": [_event(s) for s in range(20, 40)]})
    assert [e["seq"] for e in view.snapshot("bar-1")["events"]] == list(range(30, 40))
    # Malformed: counted, nothing taken.
    bad = view.bad_messages
    _feed(view, "bar-1", "recent", {"seq": 40, "events": [_event(40)]})
    assert view.bad_messages == bad + 1 and view.snapshot("bar-1")["events"][-1]["seq"] == 39


def test_through_a_bridged_convention_broker_a_table_opened_mid_game_shows_its_moves(
        convention: tuple[Broker, Broker, CutProxy], tmp_path: Path) -> None:
    """The hall's table plays with nobody watching; a panel at the centre then opens it."""
    from web_panel.mqtt import MqttView

    central, hall, _ = convention
    notices = Subscriber(central.host, central.port, (NOTIFY,)).start()
    svc = start_table(hall, tmp_path, f"h{uuid.uuid4().hex[:6]}",
                      **{"mqtt.base_topic": BASE, "table.game": "superstition", "table.players": ["Ann", "Bo"]})
    view: MqttView | None = None
    try:
        notices.wait_for(lambda ms: bool(ms) and ms[-1].payload == b"1", timeout=30)  # the bridge is up
        assert svc.wait_online(10)
        play(svc, MOVES)
        expected = published_events(svc)
        wait_recent_seq(hall, svc)
        view = MqttView(PanelSettings(broker_port=central.port, tokens={svc.table: TOKEN}, listen_port=0))
        view.start(wait=5)
        assert view.wait_until(lambda: view.has_table(svc.table), 10)
        view.hold(svc.table)
        assert view.wait_until(lambda: [e["seq"] for e in view.snapshot(svc.table)["events"]]
                               == [e["seq"] for e in expected], 10), view.snapshot(svc.table)["events"]
        assert not view.vouching.describe(svc.table)["refused"]
    finally:
        if view is not None:
            view.close()
        svc.stop()
        notices.stop()
