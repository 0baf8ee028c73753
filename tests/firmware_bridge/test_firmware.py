"""The reference firmware's main.py and gkfw logic, run on CPython with a stand-in ``machine``."""

from __future__ import annotations

import ast
import importlib.util
import struct
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import gkfw
from firmware_bridge.framing import BadFrame, FrameDecoder
from tests.firmware_bridge import fake_machine

MAIN = Path(gkfw.__file__).with_name("main.py")


class Board:
    """main.py loaded against the stand-ins, plus a host-side decoder for what it sends."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, start_us: int = 0) -> None:
        self.machine = fake_machine.module()
        self.clock = fake_machine.Clock(start_us)
        monkeypatch.setitem(sys.modules, "machine", self.machine)
        monkeypatch.setitem(sys.modules, "gkfw", gkfw)
        monkeypatch.setattr(time, "ticks_us", self.clock.ticks_us, raising=False)
        monkeypatch.setattr(time, "ticks_diff", self.clock.ticks_diff, raising=False)
        spec = importlib.util.spec_from_file_location("gk_pico_main", MAIN)
        assert spec is not None and spec.loader is not None
        self.main: ModuleType = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.main)
        self.fw, self.uart = self.main.build()
        self.decoder = FrameDecoder()
        self.host_seq = 0

    def pin(self, n: int) -> fake_machine.Pin:
        return fake_machine.board.pins[n]

    def input_pin(self, channel: int) -> fake_machine.Pin:
        return self.pin(self.main.INPUT_PINS[channel])

    def loop(self, steps: int = 1) -> None:
        for _ in range(steps):
            n = self.uart.any()
            self.fw.poll(self.uart.read(n) if n else None)

    def send(self, msg: p.Message) -> None:
        self.uart.host_send(p.encode(msg, self.host_seq))
        self.host_seq += 1

    def received(self) -> list[p.Frame | BadFrame]:
        return self.decoder.feed(self.uart.take())

    def messages(self) -> list[p.Message]:
        items = self.received()
        assert not [i for i in items if isinstance(i, BadFrame)], items
        return [i.message for i in items if isinstance(i, p.Frame)]




def test_main_configures_pins_with_pull_ups_and_the_uart(board: Board) -> None:
    for n in board.main.INPUT_PINS:
        assert board.pin(n).mode == fake_machine.Pin.IN and board.pin(n).pull == fake_machine.Pin.PULL_UP
    for n in board.main.OUTPUT_PINS:
        assert board.pin(n).mode == fake_machine.Pin.OUT and board.pin(n).value() == 0
    assert board.uart.baudrate == 115200 and board.uart.kwargs["timeout"] == 0


def test_run_boots_with_a_hello_and_feeds_the_watchdog(board: Board) -> None:
    board.main.run(board.fw, board.uart, steps=3)
    raw = board.uart.take()
    assert raw.startswith(b"\x00")  # the boot delimiter
    frames = board.decoder.feed(raw)
    assert isinstance(frames[0], p.Frame) and frames[0].seq == 0
    hello = frames[0].message
    assert hello == p.HelloMsg(True, 16, 4, 0, gkfw.FIRMWARE_VERSION, "pico-e6614104032b5c2a")
    assert board.machine.board.wdt.feeds == 3


def test_the_main_loop_calls_the_firmware_only_when_an_input_moved_or_something_is_due(
        board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for name in ("scan", "tick"):
        method = getattr(board.fw, name)
        monkeypatch.setattr(board.fw, name, lambda *a, _m=method, _n=name: (calls.append(_n), _m(*a))[1])

    def close_switch_3() -> None:
        board.clock.advance(1500)
        board.input_pin(3).driven = 0
        board.pin(20).driven = 0  # an output's pin, no input: nothing to scan for

    actions = {10: close_switch_3, 20: lambda: board.clock.advance(499_999), 30: lambda: board.clock.advance(1)}
    passes = [0]
    uart_any = board.uart.any

    def any_bytes() -> int:  # the loop's first call on every pass: the script's hook
        action = actions.get(passes[0])
        passes[0] += 1
        if action is not None:
            action()
        return uart_any()

    monkeypatch.setattr(board.uart, "any", any_bytes)
    board.main.run(board.fw, board.uart, steps=40)
    assert board.messages()[1:] == [p.ChangeMsg(3, False, 1500), p.HeartbeatMsg(501_500)]
    assert calls == ["scan", "tick"]  # one scan for the edge, one tick for the heartbeat, 38 passes with neither
    assert board.machine.board.wdt.feeds == 40


def test_a_switch_closing_is_one_change_with_its_timestamp(board: Board) -> None:
    board.fw.boot()
    board.messages()
    board.clock.advance(1500)
    board.input_pin(3).driven = 0  # the switch pulls the input to ground
    board.loop()
    board.loop()  # still closed: no second report
    assert board.messages() == [p.ChangeMsg(3, False, 1500)]
    board.clock.advance(20)
    board.input_pin(3).driven = None
    board.loop()
    assert board.messages() == [p.ChangeMsg(3, True, 1520)]


def test_snapshot_ping_and_hello_requests_are_answered(board: Board) -> None:
    board.fw.boot()
    board.messages()
    board.input_pin(0).driven = 0
    board.input_pin(15).driven = 0
    board.loop()
    board.messages()
    board.clock.advance(77)
    board.send(p.GetSnapshotMsg())
    board.send(p.PingMsg(4242))
    board.send(p.GetHelloMsg())
    board.loop()
    snap, pong, hello = board.messages()
    assert isinstance(snap, p.SnapshotMsg) and snap.mcu_time_us == 77
    assert snap.levels() == {ch: ch not in (0, 15) for ch in range(16)}
    assert pong == p.PongMsg(4242, 77)
    assert isinstance(hello, p.HelloMsg) and not hello.boot


def test_set_output_drives_the_pin(board: Board) -> None:
    board.send(p.SetOutputMsg(2, 1))
    board.send(p.SetOutputMsg(0, 0))
    board.loop()
    assert board.pin(board.main.OUTPUT_PINS[2]).value() == 1
    assert board.pin(board.main.OUTPUT_PINS[0]).value() == 0
    assert board.fw.output_values == [0, 0, 1, 0]
    assert board.messages() == []  # outputs are not acknowledged; a NAK would mean refusal


@pytest.mark.parametrize(
    ("wire", "code"),
    [
        (lambda: p.encode(p.SetOutputMsg(9, 1), 5), p.NakCode.CHANNEL),
        (lambda: p.encode(p.HeartbeatMsg(1), 5), p.NakCode.TYPE),
        (lambda: gkfw.build_frame(gkfw.PING, 5, b"\x01"), p.NakCode.LENGTH),
        (lambda: p.encode(p.PingMsg(1), 5)[:-3] + b"\x55\x55\x00", p.NakCode.CRC),
        (lambda: b"\x09\x01\x00", p.NakCode.COBS),
        (lambda: b"\x01" * 40 + b"\x00", p.NakCode.OVERSIZE),
    ],
)
def test_bad_host_frames_are_refused_with_a_nak(board: Board, wire: object, code: p.NakCode) -> None:
    board.uart.host_send(wire())  # type: ignore[operator]
    board.loop()
    (nak,) = board.messages()
    assert isinstance(nak, p.NakMsg) and nak.code == code
    if code in (p.NakCode.CHANNEL, p.NakCode.TYPE, p.NakCode.LENGTH):
        assert nak.ref_seq == 5
    # The firmware recovers: the next good request is answered.
    board.send(p.PingMsg(7))
    board.loop()
    assert board.messages() == [p.PongMsg(7, 0)]


def test_wrong_protocol_version_is_refused(board: Board) -> None:
    board.uart.host_send(cobs.encode(p.encode_payload(p.PingMsg(1), 3, version=9)) + b"\x00")
    board.loop()
    assert board.messages() == [p.NakMsg(p.NakCode.VERSION, 3, 9)]


def test_heartbeat_when_idle_and_sequence_numbers_count_up(board: Board) -> None:
    board.fw.boot()
    board.clock.advance(499_999)
    board.loop()
    board.clock.advance(1)
    board.loop()
    board.clock.advance(100)
    board.loop()
    frames = [i for i in board.received() if isinstance(i, p.Frame)]
    assert [type(f.message) for f in frames] == [p.HelloMsg, p.HeartbeatMsg]
    assert [f.seq for f in frames] == [0, 1]
    assert frames[1].message == p.HeartbeatMsg(500_000)


def test_mcu_time_is_continuous_across_the_ticks_wrap(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board(monkeypatch, start_us=(1 << 30) - 100)
    board.fw.boot()
    board.messages()
    board.clock.advance(250)  # ticks_us wraps past 2**30 here
    board.input_pin(1).driven = 0
    board.loop()
    assert board.messages() == [p.ChangeMsg(1, False, 250)]


def test_sequence_wraps_after_65535(board: Board) -> None:
    board.fw.seq = 0xFFFF
    board.send(p.PingMsg(1))
    board.send(p.PingMsg(2))
    board.loop()
    assert [f.seq for f in board.received() if isinstance(f, p.Frame)] == [0xFFFF, 0]


def test_firmware_refuses_too_many_pins() -> None:
    class P:
        def value(self) -> int:
            return 1

    with pytest.raises(ValueError, match="at most 255"):
        gkfw.Firmware([P()] * 256, [], lambda b: None, lambda: 0, gkfw.ticks_diff_30, "x")


def _runtime_imports(tree: ast.AST) -> list[str]:
    """Modules imported when the file runs (imports under ``if TYPE_CHECKING:`` never run)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(node.module or "")
    return found


def test_firmware_source_avoids_cpython_only_features() -> None:
    """MicroPython lacks these; the board would fail at import."""
    for path in (MAIN, Path(gkfw.__file__)):
        source = path.read_text()
        tree = ast.parse(source)
        assert set(_runtime_imports(tree)) <= {"struct", "machine", "time", "gkfw"}, path.name
        for node in ast.walk(tree):
            assert not isinstance(node, ast.JoinedStr), f"{path.name}: f-string"
            assert not isinstance(node, ast.NamedExpr | ast.Match), f"{path.name}: walrus or match"
            if isinstance(node, ast.ClassDef) and node.name != "InputPin":
                assert not node.decorator_list, f"{path.name}: decorated class {node.name}"
        assert gkfw.TYPE_CHECKING is False


def test_change_body_layout(board: Board) -> None:
    board.input_pin(2).driven = 0
    board.clock.advance(0x01020304)
    board.loop()
    payload = cobs.decode(board.uart.take()[:-1])
    assert payload[1] == gkfw.CHANGE
    assert struct.unpack(">BBI", payload[4:10]) == (2, 0, 0x01020304)


class _Pin:
    def __init__(self) -> None:
        self.v = 1

    def value(self, v: int | None = None) -> int:
        if v is not None:
            self.v = v
        return self.v


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=8))
def test_firmware_never_raises_on_arbitrary_host_bytes(chunks: list[bytes]) -> None:
    """Line noise towards the board is refused frame by frame and the board keeps answering."""
    sent = bytearray()
    fw = gkfw.Firmware([_Pin() for _ in range(4)], [_Pin()], sent.extend, lambda: 0, gkfw.ticks_diff_30, "fz")
    for chunk in chunks:
        fw.feed(chunk)
    fw.feed(b"\x00" + p.encode(p.PingMsg(321), 1))
    dec = FrameDecoder()
    frames = [i for i in dec.feed(bytes(sent)) if isinstance(i, p.Frame)]
    assert frames and frames[-1].message == p.PongMsg(321, 0)
    assert all(type(f.message) in (p.NakMsg, p.HelloMsg, p.SnapshotMsg, p.PongMsg) for f in frames)


def test_long_non_ascii_names_are_cut_to_32_bytes_not_32_characters() -> None:
    """docs/protocol.md: firmware and board_id are UTF-8, at most 32 bytes each."""
    sent: list[bytes] = []
    fw = gkfw.Firmware([], [], sent.append, lambda: 0, gkfw.ticks_diff_30, "Gruft-Tisch-Nr-ä" * 3,
                       version="v" + "é" * 40)
    fw.boot()
    (frame,) = [f for f in FrameDecoder().feed(b"".join(sent)) if isinstance(f, p.Frame)]
    hello = frame.message
    assert isinstance(hello, p.HelloMsg)
    assert len(hello.board_id.encode()) <= 32 and len(hello.firmware.encode()) <= 32
    assert ("Gruft-Tisch-Nr-ä" * 3).startswith(hello.board_id) and hello.board_id.startswith("Gruft-Tisch-Nr-ä")
    assert hello.firmware == "v" + "é" * 15
