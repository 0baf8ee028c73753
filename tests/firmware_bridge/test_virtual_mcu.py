"""The virtual MCU seen through raw pyserial: the bytes it sends and its pty life cycle."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
import serial

from firmware_bridge import protocol as p
from firmware_bridge.framing import BadFrame, FrameDecoder
from firmware_bridge.virtual_mcu import VirtualMcu

M = TypeVar("M")

Items = list[p.Frame | BadFrame]


class Wire:
    """A raw host end: writes requests and collects decoded frames."""

    def __init__(self, path: str) -> None:
        self.port = serial.serial_for_url(path, baudrate=115200, timeout=0.05)
        self.decoder = FrameDecoder()
        self.items: list[p.Frame | BadFrame] = []
        self.seq = 0

    def send(self, msg: p.Message) -> None:
        self.port.write(p.encode(msg, self.seq))
        self.seq += 1

    def read_until(self, predicate: Callable[[Items], bool], limit: int = 100) -> Items:
        for _ in range(limit):
            self.items += self.decoder.feed(self.port.read(self.port.in_waiting or 1))
            if predicate(self.items):
                return self.items
        raise AssertionError(f"condition not met; got {self.items}")

    def messages(self, kind: type[M]) -> list[M]:
        return [i.message for i in self.items if isinstance(i, p.Frame) and isinstance(i.message, kind)]


@pytest.fixture
def mcu() -> Iterator[VirtualMcu]:
    with VirtualMcu(10, heartbeat_interval=5.0, outputs=2) as m:
        yield m


@pytest.fixture
def wire(mcu: VirtualMcu) -> Iterator[Wire]:
    w = Wire(mcu.path)
    yield w
    w.port.close()


def has(kind: type, n: int = 1) -> Callable[[Items], bool]:
    return lambda items: sum(1 for i in items if isinstance(i, p.Frame) and type(i.message) is kind) >= n


def test_path_is_a_symlink_to_the_current_pty(mcu: VirtualMcu) -> None:
    assert os.path.islink(mcu.path)
    assert mcu.pty_path is not None and os.path.realpath(mcu.path) == os.path.realpath(mcu.pty_path)
    assert mcu.pty_path.startswith("/dev/pts/")


def test_unplug_removes_the_path_and_replug_restores_it(mcu: VirtualMcu) -> None:
    mcu.unplug()
    assert not os.path.lexists(mcu.path) and not mcu.plugged and mcu.pty_path is None
    with pytest.raises(serial.SerialException):
        serial.serial_for_url(mcu.path)
    mcu.replug()
    assert mcu.plugged and os.path.islink(mcu.path)
    w = Wire(mcu.path)
    w.send(p.GetHelloMsg())
    w.read_until(has(p.HelloMsg))
    w.port.close()


def test_an_open_port_sees_eof_when_unplugged(mcu: VirtualMcu, wire: Wire) -> None:
    mcu.unplug()
    # in_waiting fails with EIO, or read() reports the hang-up; SerialException is an OSError.
    with pytest.raises(OSError):
        for _ in range(20):
            wire.port.read(wire.port.in_waiting or 1)


def test_requests_are_answered_by_the_firmware_logic(mcu: VirtualMcu, wire: Wire) -> None:
    mcu.set_channel(4, False)
    wire.send(p.GetSnapshotMsg())
    wire.send(p.PingMsg(99))
    wire.read_until(has(p.PongMsg))
    (snap,) = wire.messages(p.SnapshotMsg)
    assert isinstance(snap, p.SnapshotMsg) and snap.levels() == {ch: ch != 4 for ch in range(10)}
    assert [m.token for m in wire.messages(p.PongMsg)] == [99]
    wire.send(p.SetOutputMsg(1, 1234))
    assert mcu.wait_output(1, 1234)
    wire.send(p.SetOutputMsg(5, 1))
    wire.read_until(has(p.NakMsg))
    assert wire.messages(p.NakMsg) == [p.NakMsg(p.NakCode.CHANNEL, 3, 5)]


def test_bounce_sends_every_edge_and_ends_at_the_final_level(mcu: VirtualMcu, wire: Wire) -> None:
    mcu.bounce(2, False, duration_ms=4, edges=4)  # 4 edges would end high: one more is added
    wire.read_until(has(p.ChangeMsg, 5))
    changes = wire.messages(p.ChangeMsg)
    assert [(c.channel, c.level) for c in changes] == [(2, False), (2, True), (2, False), (2, True), (2, False)]
    times = [c.mcu_time_us for c in changes]
    assert times == sorted(times) and times[-1] - times[0] <= 4_000 + 3_000
    assert mcu.levels()[2] is False


def test_corrupt_next_damages_exactly_one_frame(mcu: VirtualMcu, wire: Wire) -> None:
    wire.send(p.PingMsg(1))  # a first good frame, so the damaged one is not the leading chunk
    wire.read_until(has(p.PongMsg))
    mcu.corrupt_next(3)
    mcu.set_channel(0, False)
    mcu.set_channel(1, False)
    wire.read_until(has(p.ChangeMsg))
    bad = [i for i in wire.items if isinstance(i, BadFrame)]
    assert len(bad) == 1
    assert [(c.channel, c.level) for c in wire.messages(p.ChangeMsg)] == [(1, False)]


def test_reset_restarts_the_sequence_with_a_boot_hello(mcu: VirtualMcu, wire: Wire) -> None:
    mcu.set_channel(0, False)
    wire.read_until(has(p.ChangeMsg))
    wire.send(p.SetOutputMsg(0, 7))
    assert mcu.wait_output(0, 7)
    mcu.reset()
    wire.read_until(has(p.HelloMsg))
    hello = [i for i in wire.items if isinstance(i, p.Frame) and type(i.message) is p.HelloMsg][-1]
    assert hello.seq == 0 and isinstance(hello.message, p.HelloMsg) and hello.message.boot
    assert mcu.outputs == [0, 0]
    assert mcu.levels()[0] is False  # the inputs are physical: a reboot does not move them


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda m: m.set_channel(10, True), "channel must be 0..9, got 10"),
        (lambda m: m.bounce(0, True, duration_ms=0), "duration_ms must be in"),
        (lambda m: m.bounce(0, True, edges=0), "edges must be 1..1000"),
        (lambda m: m.corrupt_next(0), "positive integer"),
        (lambda m: m.inject("text"), "inject takes bytes"),
    ],
)
def test_bad_commands_name_the_bad_value(mcu: VirtualMcu, call: object, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        call(mcu)  # type: ignore[operator]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"channels": 0}, "channels must be 1..255"), ({"channels": 256}, "channels must be 1..255"),
     ({"heartbeat_interval": 0}, "heartbeat_interval"), ({"board_id": "x" * 40}, "board_id is longer"),
     ({"outputs": -1}, "outputs must be 0..255")],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        VirtualMcu(**kwargs)  # type: ignore[arg-type]


def test_close_is_idempotent_and_cleans_up() -> None:
    m = VirtualMcu(2)
    m.start()
    path = m.path
    m.close()
    m.close()
    assert not os.path.lexists(path) and not os.path.exists(os.path.dirname(path))
    with pytest.raises(RuntimeError, match="not running"):
        m.set_channel(0, True)
