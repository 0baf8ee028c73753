"""Bodies over the limit are refused before they are read: nothing is drained, nothing is kept.

Against the real panel process, on loopback: anonymous uploads announced at 1 GB, and a chunked
body to ``cmd/act`` that would go on to 64 MiB.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.panel_child import Browser, ChildPanel, wait_for_game

pytestmark = pytest.mark.timeout(120)
GIB = 1 << 30
MIB = 1 << 20


def _connect(panel: ChildPanel) -> socket.socket:
    s = socket.create_connection((panel.host, panel.port), timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)  # what the panel does not read stays here
    return s


def _status(s: socket.socket) -> int | None:
    """The status of the answer waiting on ``s``, or None when the panel did not answer within 10 s."""
    s.settimeout(10)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except (TimeoutError, ConnectionError):
        pass
    return int(data.split()[1]) if data.startswith(b"HTTP/1.") else None


def _closed_by_panel(s: socket.socket, within: float = 5.0) -> bool:
    """Whether the panel closes the connection by itself (it does not wait to drain the body)."""
    s.settimeout(within)
    try:
        while s.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


def test_a_gigabyte_announced_to_a_missing_page_is_refused_unread(mosquitto: Broker, token: str) -> None:
    with ChildPanel({"broker_port": mosquitto.port, "token": token}) as panel:
        head = (f"POST /nosuch HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\nContent-Type: application/octet-stream"
                f"\r\nContent-Length: {GIB}\r\n\r\n").encode()
        # One first, with no byte of its body sent: the answer comes from the length alone.
        with _connect(panel) as s:
            s.sendall(head)
            status = _status(s)
            closed = _closed_by_panel(s)
        assert status == 413, f"a 1 GB body was answered {status}, not refused from its Content-Length"
        assert closed, "the panel kept the connection open to read (drain) the body it refused"

        # Then twelve at once that do send: what the panel reads and keeps stays small.
        before = panel.rss()
        sent = [0] * 12
        block = b"\0" * (1 << 16)

        def upload(i: int) -> None:
            with _connect(panel) as s:
                s.sendall(head)
                deadline = time.monotonic() + 15
                try:
                    while sent[i] < 64 * MIB and time.monotonic() < deadline:
                        s.sendall(block)
                        sent[i] += len(block)
                except OSError:
                    pass  # the panel closed it: what we wanted

        threads = [threading.Thread(target=upload, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        grown = (panel.rss() - before) / MIB
    print(f"\ntwelve 1 GB uploads: sent before the panel cut them {[round(n / MIB, 1) for n in sent]} MiB; "
          f"the panel grew {grown:.1f} MiB")
    assert max(sent) < 16 * MIB, f"the panel went on reading a refused body: {max(sent) / MIB:.0f} MiB"
    assert grown < 16, f"twelve refused uploads left the panel {grown:.0f} MiB bigger"


def test_a_chunked_body_to_a_command_is_cut_off_at_the_limit(mosquitto: Broker, fake: FakeTable,
                                                             token: str) -> None:
    with ChildPanel({"broker_port": mosquitto.port, "token": token}) as panel:
        referee = Browser(panel)
        wait_for_game(referee, fake.table)
        assert referee.log_in(fake.table, token).status == 303
        csrf = referee.csrf(fake.table)
        head = (f"POST /t/{fake.table}/cmd/act HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n"
                f"Cookie: {referee.cookie}\r\nX-CSRF-Token: {csrf}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode()
        chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"  # 64 KiB of white space a chunk
        sent = 0
        with _connect(panel) as s:
            s.sendall(head)
            try:
                while sent < 64 * MIB:
                    s.sendall(chunk)
                    sent += 0x10000
                s.sendall(b"0\r\n\r\n")
            except OSError:
                pass
            status = _status(s)
    print(f"\nchunked body to cmd/act: {sent / MIB:.1f} MiB sent before the panel cut it off; answered {status}")
    assert sent < 16 * MIB, f"the panel read {sent / MIB:.0f} MiB of a body it refuses past 64 KiB"
    assert status in (413, None), f"answered {status}"
