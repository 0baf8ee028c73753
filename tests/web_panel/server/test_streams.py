"""A device's live pages are counted while they are open, and no longer: a phone that reloads gets its streams."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.panel_child import Browser, ChildPanel, close_all, wait_for_game

pytestmark = pytest.mark.timeout(120)


def _open_streams(panel: ChildPanel, table: str, count: int) -> tuple[list[socket.socket], list[int]]:
    socks, statuses = [], []
    for _ in range(count):
        s = socket.create_connection((panel.host, panel.port), timeout=10, source_address=("127.0.0.2", 0))
        s.sendall(f"GET /t/{table}/stream HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n\r\n".encode())
        head = s.recv(64)
        statuses.append(int(head.split()[1]) if head.startswith(b"HTTP/1.") else 0)
        socks.append(s)
    return socks, statuses


def test_a_device_that_closes_its_pages_gets_them_again_at_once(mosquitto: Broker, fake: FakeTable,
                                                               token: str) -> None:
    from web_panel.server import STREAMS_PER_CLIENT

    with ChildPanel({"broker_port": mosquitto.port, "token": token}) as panel:
        wait_for_game(Browser(panel), fake.table)
        socks, statuses = _open_streams(panel, fake.table, STREAMS_PER_CLIENT + 1)
        assert statuses == [200] * STREAMS_PER_CLIENT + [429], statuses
        close_all(socks)  # the phone reloads: every page's streams close, and open again
        pause = threading.Event()
        # Each stream asks every 2 s whether its client has gone (web_panel/sse.py); a loaded machine
        # stretches that, so the bound is generous, while a count that never drops still fails.
        deadline = time.monotonic() + 30
        while True:
            socks, statuses = _open_streams(panel, fake.table, STREAMS_PER_CLIENT)
            if statuses == [200] * STREAMS_PER_CLIENT or time.monotonic() > deadline:
                break
            close_all(socks)
            pause.wait(0.5)
        took = 30 - (deadline - time.monotonic())
        try:
            assert statuses == [200] * STREAMS_PER_CLIENT, f"the closed streams still count: {statuses}"
            assert took < 20, f"the closed streams were counted for {took:.1f} s"
            # Closed streams cost no CPU meanwhile (their end of file is not polled for again and again).
            close_all(socks)
            before = panel.cpu_seconds()
            pause.wait(2.0)
            assert panel.cpu_seconds() - before < 0.5
        finally:
            close_all(socks)
