"""The panel's own check that it can still serve (``PanelServer.stuck``, its heartbeat's question): a deadlock
among the threads of its live pages and commands counts, not only a hung loop or busy workers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from web_panel.mqtt import MqttView
from web_panel.server import start_panel
from web_panel.settings import PanelSettings

T = TypeVar("T")


def test_a_panel_whose_tables_store_stays_locked_says_it_is_stuck_and_why(settings: PanelSettings,
                                                                        fake: FakeTable) -> None:
    """Its pages would still be served, but no message would reach a live page nor a snapshot a new one: the
    heartbeat says so, in words, and the parent ends the panel once that lasts its hang timeout."""
    panel = start_panel(settings)
    try:
        view: MqttView = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        assert panel.stuck(5) is None
        held, let_go = threading.Event(), threading.Event()

        def hold() -> None:
            with view.changed:  # the store's own lock, as a thread caught in a deadlock would hold it
                held.set()
                let_go.wait(30)

        holder = threading.Thread(target=hold, name="test-deadlock")
        holder.start()
        try:
            assert held.wait(5)
            assert panel.stuck(0.5) == "the tables' store stayed locked for 0.5 s"
        finally:
            let_go.set()
            holder.join(5)
        assert panel.stuck(5) is None  # once it is free, the panel is well again
    finally:
        panel.close()


def test_a_panel_whose_broker_thread_is_held_in_a_message_says_it_is_stuck(settings: PanelSettings,
                                                                         fake: FakeTable) -> None:
    """paho's one network thread takes every message: held in one (a handler that never returns), no other
    reaches a page, though every lock is free. The heartbeat says so; it is well again once the thread is."""
    panel = start_panel(settings)
    try:
        view: MqttView = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        entered, let_go, handled = threading.Event(), threading.Event(), threading.Event()
        real = view.handle

        def held(topic: str, payload: bytes, *, retained: bool = False) -> None:
            entered.set()
            let_go.wait(30)
            real(topic, payload, retained=retained)
            handled.set()

        view.handle = held  # type: ignore[method-assign]
        try:
            fake.online()  # the table's status again: a message the panel always takes
            assert entered.wait(5)
            # Held for more than 0.2 s is a matter of time passing: no event says it, so it is looked for.
            said = until(lambda: panel.stuck(0.2), 5)
            assert said == "its broker connection stayed on one message for more than 0.2 s"
        finally:
            let_go.set()
        assert handled.wait(5)
        assert panel.stuck(5) is None  # out of the message, or in it far less than 5 s
    finally:
        panel.close()


def test_a_fault_in_handling_a_disconnect_does_not_end_the_panels_broker_connection(
        fresh_mosquitto: Broker, caplog: pytest.LogCaptureFixture) -> None:
    """paho ends its network thread on an exception out of a callback: the panel would serve pages that
    never move again, and say nothing. The fault is logged, and the panel connects again to a broker back."""
    broker = fresh_mosquitto
    view = MqttView(PanelSettings(broker_port=broker.port, listen_port=0))
    try:
        view.start(wait=5)
        assert view.connected.is_set()

        def fault() -> None:
            raise RuntimeError("a fault in the panel's own code")

        view.subscriptions.disconnected = fault  # type: ignore[method-assign]
        broker.stop()
        assert until(lambda: not view.connected.is_set(), 5)
        broker.start()
        assert view.connected.wait(10), "the panel never connected again after a fault in a callback"
        assert view.stuck(5) is None
        assert "handling on_disconnect failed" in caplog.text and "a fault in the panel's own code" in caplog.text
    finally:
        view.close()


def until(look: Callable[[], T], timeout: float) -> T:
    """``look()`` once it is truthy, or its last falsy value after ``timeout`` s: for a condition no event
    announces (time passing inside the panel)."""
    deadline = time.monotonic() + timeout
    while True:
        got = look()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.05)
