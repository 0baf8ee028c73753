"""The panel's own check that it can still serve (``PanelServer.stuck``, its heartbeat's question): a deadlock
among the threads of its live pages and commands counts, not only a hung loop or busy workers."""

from __future__ import annotations

import threading

from tests.web_panel.support.fake_table import FakeTable
from web_panel.mqtt import MqttView
from web_panel.server import start_panel
from web_panel.settings import PanelSettings


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
