"""A flood of requests: 1,000 connections that ask for a page again as soon as each is answered.

The attack tests of test_exhaustion.py hold connections and streams open; these connections work.
Spread over 110 devices, each within its limit of connections, they keep the panel busy answering them.
The referee's page and commands must still answer within a second: requests run on a pool of their own,
a few dozen at once, and those of a session with a place at a table go first (web_panel/workers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from controller.cli.panel_process import BEATS_PER_HANG_TIMEOUT
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.panel_child import (
    Browser,
    ChildPanel,
    median,
    raise_own_file_limit,
    referee_timings,
    stream_status,
    wait_for_game,
)

FLOOD = 1000
DEVICES = 110
ONE_SECOND = 1.0
HEARTBEAT_S = 0.5  # a tenth of gravekeeper run's (its hang_timeout, 30 s, over BEATS_PER_HANG_TIMEOUT)
pytestmark = [pytest.mark.timeout(180), pytest.mark.xdist_group("panel-load"), pytest.mark.alone]


class Flood:
    """``FLOOD`` connections over ``DEVICES`` loopback addresses, each asking for ``path`` again and again."""

    def __init__(self, panel: ChildPanel, path: str) -> None:
        self.panel, self.path = panel, path
        self.held = 0  # live pages let in, kept open until the flood stops
        self.answered: dict[str, int] = {}
        self.started = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._all()), name="flood", daemon=True)
        self._thread.start()

    async def _all(self) -> None:
        await asyncio.gather(*(self._one(i) for i in range(FLOOD)))

    async def _one(self, i: int) -> None:
        device = f"127.0.{2 + (i % DEVICES) // 250}.{1 + (i % DEVICES) % 250}"
        ask = f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.panel.port}\r\n\r\n".encode()
        while not self._stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.panel.host, self.panel.port,
                                                               local_addr=(device, 0))
                writer.write(ask)
                await writer.drain()
                status = (await reader.read(64))[9:12].decode(errors="replace") or "closed"
                if status == "200" and self.path.endswith("/stream"):  # a live page let in: held open
                    self.held += 1
                    while not self._stop.is_set():
                        await asyncio.sleep(0.2)
                    writer.close()
                    return
                while await reader.read(65536):
                    pass
                writer.close()
            except OSError as exc:
                status = type(exc).__name__
                await asyncio.sleep(0.05)
            self.answered[status] = self.answered.get(status, 0) + 1
            if sum(self.answered.values()) >= 2 * FLOOD:  # every connection has come round twice
                self.started.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


@contextlib.contextmanager
def flooded(mosquitto: Broker, fake: FakeTable, token: str, path: str,
            **settings: Any) -> Iterator[tuple[ChildPanel, Browser, Flood]]:
    """The panel, its referee logged in, and a flood asking for ``path`` that has got going."""
    raise_own_file_limit(FLOOD + 512)
    with ChildPanel({"broker_port": mosquitto.port, "token": token, **settings}) as panel:
        referee = Browser(panel)
        wait_for_game(referee, fake.table)
        assert referee.log_in(fake.table, token).status == 303
        flood = Flood(panel, path)
        try:
            assert flood.started.wait(60), f"the flood did not get going: {flood.answered}"
            yield panel, referee, flood
        finally:
            flood.stop()


def test_1000_connections_asking_for_pages_leave_the_referee_answered(mosquitto: Broker, fake: FakeTable,
                                                                      token: str) -> None:
    with flooded(mosquitto, fake, token, f"/t/{fake.table}", heartbeat_s=HEARTBEAT_S) as (panel, referee, flood):
        began = time.monotonic()
        pages, commands = referee_timings(referee, fake.table)
        # Long enough under the flood for a silence that would get the panel killed to show.
        assert panel.wait_said(began, 2 * BEATS_PER_HANG_TIMEOUT, 8 * BEATS_PER_HANG_TIMEOUT * HEARTBEAT_S), \
            f"the panel said nothing for long under the flood: {panel.said[-3:]}"
        during = dict(flood.answered)
        ended = time.monotonic()
    # What gravekeeper run watches (controller/cli/panel_process.py): the flood must not make the panel look
    # hung, or it would be killed and every phone's live page with it.
    silence = panel.longest_silence(began, ended)
    stuck = [said["stuck"] for _, said in panel.said if "stuck" in said]
    print(f"\nunder {FLOOD} connections from {DEVICES} devices asking for pages ({during}): "
          f"page {pages}, command {commands}; the panel said it serves pages at most {silence:.1f} s apart "
          f"over {ended - began:.1f} s ({len(stuck)} checks late: {stuck[:2]})")
    assert silence < BEATS_PER_HANG_TIMEOUT * HEARTBEAT_S, f"silent {silence:.1f} s under the flood: {stuck}"
    assert during.get("200", 0) >= FLOOD, f"the flood was not answered: {during}"
    assert median(pages) < ONE_SECOND, f"the referee's page took {pages} s"
    assert median(commands) < ONE_SECOND, f"the referee's command took {commands} s"


def test_1000_connections_asking_for_live_pages_leave_the_referee_answered(mosquitto: Broker, fake: FakeTable,
                                                                           token: str) -> None:
    """Live pages asked for again as soon as each is refused: those the watchers may hold are let in and held,
    the rest refused on the request pool in their turn (web_panel/workers.py), not on hundreds of workers."""
    from web_panel.server import capacity

    room = capacity(1024)
    with flooded(mosquitto, fake, token, f"/t/{fake.table}/stream") as (panel, referee, flood):
        live = {"the referee's table page": stream_status(panel, referee, f"/t/{fake.table}/stream"),
                "the referee's cues": stream_status(panel, referee, f"/t/{fake.table}/effects/stream")}
        pages, commands = referee_timings(referee, fake.table)
        during, held = dict(flood.answered), flood.held
    print(f"\nunder {FLOOD} connections from {DEVICES} devices asking for live pages ({during}, {held} held): "
          f"{live}; page {pages}, command {commands}")
    assert held == room.streams - room.kept, f"the watchers hold {held} live pages"
    assert during.get("503", 0) >= FLOOD, f"the flood was not refused: {during}"
    assert live == {"the referee's table page": 200, "the referee's cues": 200}, live
    assert median(pages) < ONE_SECOND, f"the referee's page took {pages} s"
    assert median(commands) < ONE_SECOND, f"the referee's command took {commands} s"
