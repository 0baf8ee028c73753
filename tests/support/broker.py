"""A real Mosquitto on a free port, for the suite's broker fixtures (``tests/conftest.py``).

Mosquitto is required, not optional: if it cannot be started the fixture fails
(it never skips), so a missing broker cannot hide behind a skipped test.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

MOSQUITTO_CANDIDATES = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A free port below the kernel's ephemeral range.

    Port 0 hands out a port from the ephemeral range, the same range every outgoing
    connection takes its local port from: a broker stopped and started again on its port
    (the outage tests) was seen to find it taken by some client's connection meanwhile.
    """
    rng = random.SystemRandom()
    high = min(_ephemeral_low(), 65536) - 1
    for _ in range(200):
        port = rng.randint(20000, high)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and the ephemeral range")


def mosquitto_binary() -> str:
    for path in MOSQUITTO_CANDIDATES:
        if Path(path).exists():
            return path
    found = shutil.which("mosquitto")
    if found:
        return found
    pytest.fail("mosquitto is not installed: run the README's test command, which installs it")


@dataclass
class Broker:
    """A Mosquitto process on 127.0.0.1:``port``; ``stop()``/``start()`` simulate an outage."""

    port: int
    conf: Path
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.proc = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.log, "ab"),  # noqa: SIM115 - handed to the child
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"mosquitto exited at start: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)  # polling a port that has no event to wait on
        pytest.fail(f"mosquitto did not listen on {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


def make_broker(tmp: Path, port: int | None = None, extra_conf: str = "") -> Broker:
    port = port or free_port()
    conf = tmp / f"mosquitto-{port}.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\n"
        "allow_anonymous true\n"
        "persistence false\n"
        "max_queued_messages 10000\n"
        f"{extra_conf}"
    )
    broker = Broker(port=port, conf=conf, log=tmp / f"mosquitto-{port}.log")
    broker.start()
    return broker
