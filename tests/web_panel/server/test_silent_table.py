"""A table that stops answering: its commands must not hold every worker of the panel.

A command waits for the table's answer (at most ``panel.command_timeout``) on one of the panel's request
workers (web_panel/workers.py). A controller that hangs while its players keep tapping held one worker
per tap, and with the pool full, every other table's referee waited behind them. Now at most
``WAITING_PER_TABLE`` commands wait on one table, and once one has waited in vain, one at a time until
the table answers again (``web_panel/mqtt/_command_sender.py``).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from controller.protocol.signing import signed_reply
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.panel_child import Answer, Browser, ChildPanel, referee_timings, wait_for_game
from web_panel.app import create_app
from web_panel.fanout import Subscriber
from web_panel.mqtt import CommandTimeout, MqttView, TableBusy
from web_panel.mqtt._command_sender import WAITING_PER_TABLE
from web_panel.server import REQUEST_THREADS

ONE_SECOND = 1.0
TAPS = 40  # more than the panel's request workers (REQUEST_THREADS)
PHONES = 5  # the taps come from five phones at the hung table, each within its device's limit of connections


def view_without_broker() -> MqttView:
    view: MqttView = create_app({"START_MQTT": False}).extensions["gravekeeper"]
    return view


def waiting(view: MqttView, table: str, count: int) -> bool:
    """Until ``count`` commands for ``table`` wait for their answer."""
    return view.wait_until(lambda: len(view.commands.waiting(table)) >= count, 5)


def answer_all(view: MqttView, table: str) -> int:
    """Answer, signed, every command waiting for ``table``; how many there were."""
    pending = view.commands.waiting(table)
    for cmd_id, name in pending:
        view.handle(f"gravekeeper/{table}/reply/{name}", signed_reply("tok", table, name, {"id": cmd_id, "ok": True}))
    return len(pending)


def test_no_more_than_a_tables_worth_of_commands_wait_on_one_table() -> None:
    view = view_without_broker()
    with ThreadPoolExecutor(WAITING_PER_TABLE) as pool:
        held = [pool.submit(view.command, "slow", "act", {}, "tok", 5.0) for _ in range(WAITING_PER_TABLE)]
        assert waiting(view, "slow", WAITING_PER_TABLE)
        started = time.monotonic()
        with pytest.raises(TableBusy, match="still answering the moves sent before"):
            view.command("slow", "act", {}, "tok", 5.0)
        assert time.monotonic() - started < ONE_SECOND  # refused at once, not after the timeout
        assert len(view.commands.waiting()) == WAITING_PER_TABLE  # the refused one was never sent
        # Another table's commands are not held back by the slow one's.
        other = threading.Thread(target=lambda: view.command("other", "act", {}, "tok", 5.0))
        other.start()
        assert waiting(view, "other", 1)
        assert answer_all(view, "other") == 1
        other.join(5)
        # Nor those signed with another token (a visitor who typed one the panel could not check):
        # such commands wait for the table's unsigned refusal, and take no place of the right token's.
        with pytest.raises(CommandTimeout):  # it was sent, and waited: not refused as busy
            view.command("slow", "act", {}, "typed", 0.1)
        assert len(view.commands.waiting()) == WAITING_PER_TABLE
        assert answer_all(view, "slow") == WAITING_PER_TABLE
        assert all(f.result(5)["ok"] is True for f in held)
    assert view.commands.places_held() == 0  # every place given back


def told(sub: Subscriber) -> list[dict[str, Any]]:
    """What the table's live pages were told of its answering, so far."""
    out = []
    while True:
        try:
            item = sub.get(0.01)
        except queue.Empty:
            return out
        if item is not None and item.kind == "answering":
            out.append(item.data)


def test_a_table_that_did_not_answer_gets_one_command_at_a_time_until_it_answers() -> None:
    view = view_without_broker()
    page = view.subscribe("hung")
    assert view.commands.answering("hung") == {"answering": True}
    before = time.time()
    with pytest.raises(CommandTimeout):
        view.command("hung", "act", {}, "tok", 0.05)
    assert view.commands.silent("hung")
    quiet = view.commands.answering("hung")
    assert quiet["answering"] is False and before <= quiet["since"] <= time.time()
    assert told(page) == [quiet]  # the pages are told once, with the moment it stopped answering
    with pytest.raises(CommandTimeout):  # another in vain: nothing new to tell, the same moment
        view.command("hung", "act", {}, "tok", 0.05)
    assert told(page) == [] and view.commands.answering("hung") == quiet
    with ThreadPoolExecutor(1) as pool:
        probe = pool.submit(view.command, "hung", "act", {}, "tok", 5.0)
        assert waiting(view, "hung", 1)
        with pytest.raises(TableBusy, match="has not answered the last move"):
            view.command("hung", "act", {}, "tok", 5.0)
        # Someone on the broker answers for it, unsigned: that is not the table answering.
        ((cmd_id, _),) = view.commands.waiting("hung")
        view.handle("gravekeeper/hung/reply/act", json.dumps({"id": cmd_id, "ok": True}).encode())
        assert view.commands.silent("hung")
        assert answer_all(view, "hung") == 1  # the table itself, signed
        assert probe.result(5)["ok"] is True
    assert not view.commands.silent("hung")
    assert told(page) == [{"answering": True}]
    with ThreadPoolExecutor(2) as pool:  # answering again, it takes commands side by side once more
        both = [pool.submit(view.command, "hung", "act", {}, "tok", 5.0) for _ in range(2)]
        assert waiting(view, "hung", 2)
        assert answer_all(view, "hung") == 2
        assert all(f.result(5)["ok"] is True for f in both)


def test_the_tables_late_answer_to_a_command_that_waited_in_vain_says_it_answers_again() -> None:
    """A controller that stalled, then took the commands queued for it: its answer comes after the command's
    timeout. Nobody may have anything left to tap, so that answer, signed, is what ends the mark; a forged
    one, a copy's, or one on another table's topic does not."""
    view = view_without_broker()
    page = view.subscribe("hung")
    with ThreadPoolExecutor(1) as pool:
        sent = pool.submit(view.command, "hung", "act", {}, "tok", 0.3)
        assert waiting(view, "hung", 1)
        ((cmd_id, name),) = view.commands.waiting("hung")
        with pytest.raises(CommandTimeout):
            sent.result(5)
    assert view.commands.silent("hung") and [a["answering"] for a in told(page)] == [False]
    view.handle("gravekeeper/hung/reply/act", json.dumps({"id": cmd_id, "ok": True}).encode())  # not signed
    view.handle("gravekeeper/other/reply/act", signed_reply("tok", "other", name, {"id": cmd_id, "ok": True}))
    view.handle("gravekeeper/hung/reply/undo", signed_reply("tok", "hung", "undo", {"id": cmd_id, "ok": True}))
    view.handle("gravekeeper/hung/reply/act", signed_reply("tok", "hung", name, {"id": cmd_id, "ok": False,
                                                                                 "copy": True}))
    assert view.commands.silent("hung") and told(page) == []
    view.handle("gravekeeper/hung/reply/act", signed_reply("tok", "hung", name, {"id": cmd_id, "ok": True}))
    assert not view.commands.silent("hung") and told(page) == [{"answering": True}]


def tap(browser: Browser, table: str, csrf: str) -> Answer:
    body = json.dumps({"action": {"kind": "roll", "player": 0}}).encode()
    return browser.request("POST", f"/t/{table}/cmd/act", body,
                           {"Content-Type": "application/json", "X-CSRF-Token": csrf})


@pytest.mark.timeout(120)
@pytest.mark.alone
def test_a_hung_table_tapped_40_times_leaves_another_tables_referee_answered(mosquitto: Broker, fake: FakeTable,
                                                                            token: str) -> None:
    assert TAPS > REQUEST_THREADS
    hung = FakeTable(mosquitto.port, fake.table + "h", token)
    try:
        hung.online()
        hung.state()
        hung.silent = True  # it takes commands and answers none: a controller that hangs
        with ChildPanel({"broker_port": mosquitto.port, "token": token}) as panel:
            referee = Browser(panel)
            wait_for_game(referee, fake.table)
            wait_for_game(referee, hung.table)
            assert referee.log_in(fake.table, token).status == 303
            phones = [Browser(panel, f"127.0.0.{10 + i}") for i in range(PHONES)]
            for phone in phones:  # the hung table's referee, logged in on each (commands need a place)
                assert phone.log_in(hung.table, token).status == 303
            csrfs = [phone.csrf(hung.table) for phone in phones]
            with ThreadPoolExecutor(TAPS) as pool:
                taps = [pool.submit(tap, phones[i % PHONES], hung.table, csrfs[i % PHONES]) for i in range(TAPS)]
                hung.wait_command(WAITING_PER_TABLE)  # the hung table has them: they wait for it
                pages, commands = referee_timings(referee, fake.table, tries=3)
                answers: list[Answer] = [f.result(60) for f in taps]
        by_status: dict[int, list[Answer]] = {}
        for a in answers:
            by_status.setdefault(a.status, []).append(a)
        print(f"\nwith a hung table tapped {TAPS} times: the other referee's page {pages}, command {commands}; "
              f"the taps answered {[(s, len(v)) for s, v in sorted(by_status.items())]}")
        assert max(pages) < ONE_SECOND, f"the other table's referee waited {pages} s for the page"
        assert max(commands) < ONE_SECOND, f"the other table's referee waited {commands} s for a command"
        assert len(hung.commands) == WAITING_PER_TABLE, "more commands than allowed went to the hung table"
        assert len(by_status.get(504, [])) == WAITING_PER_TABLE
        refused = by_status.get(503, [])
        assert len(refused) == TAPS - WAITING_PER_TABLE
        said: Any = refused[0].json()
        assert "still answering" in said["error"] and hung.table not in said["error"], said
        # Refused at once: well under the 5 s a command waits for its table.
        assert max(a.seconds for a in refused) < 4.0, [round(a.seconds, 2) for a in refused]
    finally:
        hung.clear()
        hung.close()


def test_a_table_started_again_answers_again_and_a_copy_of_its_status_does_not_say_so() -> None:
    view = view_without_broker()  # it holds no token: it takes a status as the broker brings it

    def status(state: str, run: str) -> None:
        view.handle("gravekeeper/hung/status", json.dumps({"state": state, "table": "hung", "instance": run,
                                                          "since": 0}).encode(), retained=True)

    status("online", "run-1")
    page = view.subscribe("hung")
    with pytest.raises(CommandTimeout):
        view.command("hung", "act", {}, "tok", 0.05)
    assert [a["answering"] for a in told(page)] == [False]
    status("online", "run-1")  # its retained status, again (a new subscription)
    status("offline", "run-1")
    assert view.commands.silent("hung") and told(page) == []
    status("online", "run-2")  # started again
    assert not view.commands.silent("hung") and told(page) == [{"answering": True}]


def test_the_panel_hears_a_table_start_again_from_the_broker(mosquitto: Broker, fake: FakeTable, token: str) -> None:
    from web_panel import PanelSettings

    app = create_app({"PANEL_SETTINGS": PanelSettings(broker_port=mosquitto.port, token=token), "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: view.has_table(fake.table) and view.connected.is_set(), 5)
        fake.silent = True
        with pytest.raises(CommandTimeout):
            view.command(fake.table, "act", {"action": {"kind": "roll", "player": 0}}, token, 0.2)
        assert (view.snapshot(fake.table) or {})["answering"]["answering"] is False
        fake.silent = False
        fake.publish("status", {"state": "online", "table": fake.table, "game": "terror", "version": "test",
                                "since": 1, "instance": "started-again"})
        assert view.wait_until(lambda: not view.commands.silent(fake.table), 5)
        assert (view.snapshot(fake.table) or {})["answering"] == {"answering": True}
    finally:
        view.close()
