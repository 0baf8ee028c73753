"""McuLink against the virtual MCU on a real pseudo-terminal, through real pyserial."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from firmware_bridge.link import Hello, McuLink, _McuClock
from firmware_bridge.virtual_mcu import VirtualMcu
from tests.firmware_bridge.recorder import Recorder, wait_until

CHANNELS = 12


@pytest.fixture
def mcu() -> Iterator[VirtualMcu]:
    with VirtualMcu(CHANNELS, heartbeat_interval=0.1, board_id="bench-7", outputs=4) as m:
        yield m


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def link(mcu: VirtualMcu, rec: Recorder) -> Iterator[McuLink]:
    # A generous heartbeat timeout: a loaded test machine must not look like a dead MCU.
    with McuLink(mcu.path, rec, heartbeat_timeout=2.0, backoff=(0.02, 0.2)) as lk:
        assert rec.wait_count("snapshot", 1), rec.calls
        yield lk


def in_sync(rec: Recorder, mcu: VirtualMcu) -> bool:
    want = dict(enumerate(mcu.levels()))
    return rec.wait_for(lambda: rec.levels == want)


def test_start_reports_hello_online_then_the_full_state(mcu: VirtualMcu, rec: Recorder) -> None:
    mcu.set_channel(3, False)
    with McuLink(mcu.path, rec) as link:
        assert rec.wait_count("snapshot", 1)
        assert rec.names()[:3] == ["hello", "online", "snapshot"]
        assert link.online
        assert link.hello == Hello("gkfw-1.0.0", "bench-7", CHANNELS, 1, 4)
        levels = rec.of("snapshot")[0][1]
        assert levels == {ch: ch != 3 for ch in range(CHANNELS)}
        assert rec.count("change") == 0  # a snapshot is never turned into changes


def test_changes_arrive_in_order_with_rising_mcu_time(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    script = [(0, False), (1, False), (0, True), (5, False), (1, True)]
    for ch, level in script:
        mcu.set_channel(ch, level)
    assert rec.wait_count("change", len(script))
    changes = rec.of("change")
    assert [(c[1], c[2]) for c in changes] == script
    times = [c[3] for c in changes]
    assert times == sorted(times) and times[0] > rec.of("snapshot")[0][2]
    setting_unchanged = mcu.levels()
    mcu.set_channel(2, True)  # already high: no edge, so nothing must be reported
    link.ping()
    assert rec.count("change") == len(script)
    assert mcu.levels() == setting_unchanged


def test_a_bounce_burst_is_delivered_edge_by_edge(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    mcu.bounce(4, False, duration_ms=8, edges=6)  # 7 transitions to end low from high
    assert rec.wait_count("change", 7)
    edges = [c for c in rec.of("change") if c[1] == 4]
    assert [c[2] for c in edges] == [False, True, False, True, False, True, False]
    assert in_sync(rec, mcu)


def test_corrupt_bytes_are_counted_resynced_and_nothing_is_lost(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    before = link.counters
    mcu.corrupt_next(2)
    mcu.set_channel(7, False)
    assert in_sync(rec, mcu)
    assert wait_until(lambda: link.counters["bad_frames"] == before["bad_frames"] + 1)
    after = link.counters
    assert after["resyncs"] == before["resyncs"] + 1
    assert after["drops"] == before["drops"] + 1  # the damaged frame's sequence number is missing
    # Whatever was damaged (the CHANGE or a heartbeat), channel 7 moved once and nothing else did.
    assert [c[1:3] for c in rec.of("change")] in ([(7, False)], [])
    mcu.set_channel(8, False)
    assert rec.wait_for(lambda: ("change", 8, False) in [c[:3] for c in rec.of("change")])


def test_a_damaged_change_is_recovered_by_a_snapshot(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    mcu.hang()  # no heartbeat can slip in: the scan on resume sends the CHANGE first
    mcu.corrupt_next()
    mcu.set_channel(9, False)
    mcu.resume()
    assert rec.wait_for(lambda: rec.levels.get(9) is False)
    assert rec.count("change") == 0
    assert rec.count("snapshot") >= 2
    assert link.counters["crc_errors"] + link.counters["cobs_errors"] == 1


def test_unplug_and_replug_while_inputs_change(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    mcu.set_channel(0, False)
    assert rec.wait_count("change", 1)
    mcu.unplug()
    assert rec.wait_count("offline", 1)
    assert not link.online
    assert "port lost" in rec.of("offline")[0][1]
    # Inputs move while the cable is out; the MCU reports into the void.
    mcu.set_channel(1, False)
    mcu.set_channel(0, True)
    mcu.bounce(2, False, duration_ms=3, edges=4)
    assert wait_until(lambda: not link.connected)
    assert link.counters["reconnects"] == 0
    mcu.replug()
    assert rec.wait_count("online", 2)
    assert rec.wait_count("snapshot", 2)
    assert in_sync(rec, mcu)
    # The changes made while unplugged arrive only inside the snapshot, never invented as changes.
    assert [c[1:3] for c in rec.of("change")] == [(0, False)]
    assert rec.count("offline") == 1
    assert link.counters["reconnects"] == 1
    assert rec.names()[-3:] == ["hello", "online", "snapshot"]
    mcu.set_channel(11, False)
    assert rec.wait_for(lambda: rec.levels.get(11) is False)


def test_a_long_unplug_reports_offline_once_and_backs_off(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    mcu.unplug()
    assert rec.wait_count("offline", 1)
    assert not rec.wait_count("offline", 2, timeout=0.8)  # many failed opens meanwhile
    assert "cannot open" in link.last_error
    mcu.replug(reset=True)  # a board powered over USB reboots on replug
    assert rec.wait_count("online", 2)
    assert in_sync(rec, mcu)
    assert rec.count("offline") == 1


def test_a_reboot_while_unplugged_is_seen_by_the_mcu_clock(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    assert wait_until(lambda: (link._clock._last or 0) > 1_000_000)  # the MCU has run for a second
    link.set_output(0, 5)
    assert mcu.wait_output(0, 5)
    mcu.unplug()
    assert rec.wait_count("offline", 1)
    mcu.replug(reset=True)  # its boot HELLO goes out before the host has the port open
    assert rec.wait_count("online", 2)
    assert in_sync(rec, mcu)
    assert link.counters["resets"] == 1
    assert mcu.wait_output(0, 5)  # re-sent after the reboot that turned it off


def test_mcu_reset_is_detected_and_outputs_are_restored(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    history: list[tuple[int, int]] = []
    mcu.on_output = lambda ch, value: history.append((ch, value))
    link.set_output(1, 300)
    assert mcu.wait_output(1, 300)
    mcu.set_channel(6, False)
    assert rec.wait_count("change", 1)
    mcu.reset()
    # Dropped by the reboot, then re-sent by the link.
    assert wait_until(lambda: (1, 0) in history and history[-1] == (1, 300))
    assert max(i for i, h in enumerate(history) if h == (1, 0)) < len(history) - 1
    assert rec.wait_count("hello", 2)
    assert rec.wait_count("snapshot", 2)
    assert in_sync(rec, mcu)
    assert link.counters["resets"] == 1
    assert rec.count("offline") == 0  # a reset is not a loss of the link
    assert rec.count("change") == 1


def test_a_reset_whose_hello_is_lost_is_found_by_the_sequence_restart(
    mcu: VirtualMcu, rec: Recorder, link: McuLink
) -> None:
    mcu.hang()
    mcu.corrupt_next(3)  # the boot HELLO will be damaged
    mcu.reset()
    mcu.set_channel(10, False)
    assert wait_until(lambda: link.counters["resets"] == 1)
    assert rec.wait_count("hello", 2)  # asked for again
    assert in_sync(rec, mcu)
    assert link.counters["bad_frames"] == 1


def test_heartbeat_timeout_puts_the_mcu_offline(mcu: VirtualMcu, rec: Recorder) -> None:
    with McuLink(mcu.path, rec, heartbeat_timeout=0.5, backoff=(0.02, 0.2)) as link:
        assert rec.wait_count("snapshot", 1)
        mcu.hang()
        assert rec.wait_count("offline", 1, timeout=3)
        assert rec.of("offline")[0][1].startswith("heartbeat timeout")
        assert link.connected and not link.online
        with pytest.raises(TimeoutError, match="no PONG"):
            link.ping(timeout=0.2)
        mcu.set_channel(3, False)  # changes while hung: reported after it recovers
        mcu.resume()
        assert rec.wait_count("online", 2)
        assert in_sync(rec, mcu)
        assert link.counters["heartbeat_timeouts"] >= 1
        assert rec.count("offline") == link.counters["heartbeat_timeouts"]  # once per loss


def test_ping_measures_a_round_trip(link: McuLink) -> None:
    rtts = [link.ping() for _ in range(5)]
    assert all(0 < r < 1.0 for r in rtts)


def test_ping_without_a_port_is_a_clear_error(rec: Recorder, tmp_path: object) -> None:
    with (McuLink("/nonexistent/ttyMCU", rec, backoff=(0.01, 0.05)) as link,
          pytest.raises(ConnectionError, match="not connected")):
        link.ping()


def test_set_output_reaches_the_mcu_and_bad_values_are_refused(mcu: VirtualMcu, link: McuLink) -> None:
    link.set_output(2, 1)
    assert mcu.wait_output(2, 1)
    link.set_output(3, True)
    assert mcu.wait_output(3, 1)
    link.set_output(2, 65535)
    assert mcu.wait_output(2, 65535)
    with pytest.raises(ValueError, match="output channel 4 does not exist: the MCU has 4 outputs"):
        link.set_output(4, 1)
    with pytest.raises(ValueError, match="output 0 value must be an integer 0..65535, got 70000"):
        link.set_output(0, 70000)
    with pytest.raises(ValueError, match="output channel must be an integer 0..255, got -1"):
        link.set_output(-1, 0)
    link.ping()
    assert mcu.outputs == [0, 0, 65535, 1]


def test_output_set_while_offline_is_applied_on_reconnect(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    mcu.unplug()
    assert rec.wait_count("offline", 1)
    link.set_output(0, 42)
    mcu.replug()
    assert mcu.wait_output(0, 42)


def test_link_started_before_the_mcu_exists_connects_when_it_appears(rec: Recorder) -> None:
    mcu = VirtualMcu(4, heartbeat_interval=0.1)
    with McuLink(mcu.path, rec, backoff=(0.01, 0.05)) as link:
        assert not rec.wait_count("online", 1, timeout=0.2)
        assert rec.count("offline") == 0  # never online: nothing was lost
        with mcu:
            assert rec.wait_count("snapshot", 1)
            assert link.online and link.hello is not None and link.hello.channels == 4


def test_close_is_idempotent_and_reports_offline_once(mcu: VirtualMcu, rec: Recorder) -> None:
    link = McuLink(mcu.path, rec)
    link.start()
    assert rec.wait_count("online", 1)
    thread = link._thread
    link.close()
    link.close()
    assert thread is not None and not thread.is_alive()
    assert [c for c in rec.calls if c[0] == "offline"] == [("offline", "link closed")]
    with pytest.raises(RuntimeError, match="closed"):
        link.start()


def test_a_failing_listener_does_not_kill_the_link(mcu: VirtualMcu) -> None:
    class Broken(Recorder):
        def on_change(self, channel: int, level: bool, mcu_time_us: int) -> None:
            super().on_change(channel, level, mcu_time_us)
            raise RuntimeError("listener bug")

    rec = Broken()
    with McuLink(mcu.path, rec) as link:
        assert rec.wait_count("snapshot", 1)
        mcu.set_channel(0, False)
        mcu.set_channel(1, False)
        assert rec.wait_count("change", 2)
        assert link.counters["listener_errors"] == 2
        assert link.online


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"heartbeat_timeout": 0}, "heartbeat_timeout must be positive"),
        ({"backoff": (1.0, 0.5)}, "backoff must be"),
        ({"baudrate": 0}, "baudrate must be positive"),
    ],
)
def test_bad_link_settings_are_refused(rec: Recorder, kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        McuLink("/dev/null", rec, **kwargs)  # type: ignore[arg-type]


def test_mcu_clock_unwraps_32_bit_time_and_sees_restarts() -> None:
    clock = _McuClock()
    assert clock.extend(2**32 - 10) == 2**32 - 10
    assert clock.extend(5) == 2**32 + 5  # wrapped
    assert clock.extend(6) == 2**32 + 6
    assert not clock.restarted
    assert clock.extend(4) == 4  # a step back that is no wrap: the MCU restarted
    assert clock.restarted
    clock.reset()
    assert not clock.restarted and clock.extend(100) == 100


def test_split_frames_and_junk_on_the_wire(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    from firmware_bridge import protocol as p

    before = link.counters
    mcu.hang()  # hand-made frames only, with the sequence numbers and times the link expects next
    seq, t = mcu.fw.seq, mcu.fw.now() + 1000
    frame_a = p.encode(p.ChangeMsg(5, False, t), seq)
    frame_b = p.encode(p.ChangeMsg(5, True, t + 50), seq + 1)
    mcu.inject(frame_a[:4])
    mcu.inject(frame_a[4:] + b"noise\x00\x00")  # junk and idle fill after the first frame
    mcu.inject(frame_b[:1])
    mcu.inject(frame_b[1:])
    assert rec.wait_count("change", 2)
    assert [c[1:] for c in rec.of("change")][-2:] == [(5, False, t), (5, True, t + 50)]
    after = link.counters
    assert after["bad_frames"] == before["bad_frames"] + 1
    assert after["resyncs"] == before["resyncs"] + 1
    assert after["drops"] == before["drops"]
    mcu.resume()


def settle(link: McuLink, rec: Recorder, timeout: float = 10.0) -> None:
    """Return once the link is synced on a live connection with no snapshot outstanding.

    A PONG comes after every frame the MCU sent before it, so once a PING is
    answered while nothing is pending, everything sent earlier has been handled.
    """
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not rec.wait_for(lambda: link.online and link._synced, timeout=deadline - time.monotonic()):
            break
        try:
            link.ping(timeout=0.3)
        except (ConnectionError, TimeoutError):
            continue  # lost again meanwhile, or the PONG was the damaged frame
        if link.online and link._synced and link._snapshot_sent_at is None:
            return
        rec.wait_count("snapshot", rec.count("snapshot") + 1, timeout=0.5)
    raise AssertionError(f"link did not settle: {link.counters}")


def _is_subsequence(small: list[tuple[int, bool, int]], big: list[tuple[int, bool, int]]) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_sessions_lose_nothing_and_invent_nothing(seed: int) -> None:
    """Random edges, bounces, damage, unplugs and resets: the link ends in the MCU's true state,
    and every change it reported is one the MCU really sent, in the order sent."""
    import random

    rng = random.Random(seed)
    rec = Recorder()
    with VirtualMcu(8, heartbeat_interval=0.05, outputs=2, seed=seed) as mcu, McuLink(
        mcu.path, rec, heartbeat_timeout=0.5, backoff=(0.01, 0.05), hello_retry=0.1
    ) as link:
        assert rec.wait_count("snapshot", 1)
        for _ in range(40):
            op = rng.choices(["set", "bounce", "corrupt", "unplug", "reset"], weights=[10, 3, 3, 1, 1])[0]
            ch = rng.randrange(8)
            if op == "set":
                mcu.set_channel(ch, rng.random() < 0.5)
            elif op == "bounce":
                mcu.bounce(ch, rng.random() < 0.5, duration_ms=rng.uniform(0.5, 3), edges=rng.randint(1, 6))
            elif op == "corrupt":
                mcu.corrupt_next(rng.randint(1, 3))
            elif op == "unplug":
                mcu.unplug()
                for _ in range(rng.randint(0, 3)):
                    mcu.set_channel(rng.randrange(8), rng.random() < 0.5)
                mcu.replug(reset=rng.random() < 0.5)
            else:
                mcu.reset()
        truth = dict(enumerate(mcu.levels()))
        settle(link, rec)
        assert rec.levels == truth
        sent = list(mcu.sent_changes)
        reported = [(c[1], c[2], c[3] % 2**32) for c in rec.of("change")]
        assert _is_subsequence(reported, sent)
        assert link.counters["listener_errors"] == 0


def test_a_frame_of_another_protocol_version_is_refused_and_explained(
    mcu: VirtualMcu, rec: Recorder, link: McuLink
) -> None:
    from cobs import cobs

    from firmware_bridge import protocol as p

    mcu.hang()
    seq, t = mcu.fw.seq, mcu.fw.now() + 1000
    mcu.inject(cobs.encode(p.encode_payload(p.ChangeMsg(0, False, t), seq, version=2)) + b"\x00")
    mcu.inject(p.encode(p.ChangeMsg(1, False, t + 1), seq + 1))
    assert rec.wait_count("change", 1)
    assert [c[1:3] for c in rec.of("change")] == [(1, False)]
    assert link.counters["version_errors"] == 1
    assert link.last_error == "protocol version 2; this host speaks 1"


def test_a_silent_port_is_reopened_and_the_link_recovers(mcu: VirtualMcu, rec: Recorder) -> None:
    with McuLink(mcu.path, rec, heartbeat_timeout=0.2, reopen_after=0.4, backoff=(0.02, 0.1)) as link:
        assert rec.wait_count("snapshot", 1)
        mcu.hang()
        assert wait_until(lambda: link.counters["reopens"] >= 1)
        assert rec.count("offline") == 1  # the reopen is part of the same loss
        mcu.set_channel(2, False)
        mcu.resume()
        assert rec.wait_count("online", 2)
        assert in_sync(rec, mcu)
        assert link.counters["reconnects"] >= 1


def test_reopen_after_must_exceed_the_heartbeat_timeout(rec: Recorder) -> None:
    with pytest.raises(ValueError, match="reopen_after"):
        McuLink("/dev/null", rec, heartbeat_timeout=2.0, reopen_after=1.0)


def test_pyserial_url_handlers_work_and_host_messages_from_the_mcu_are_refused(rec: Recorder) -> None:
    """loop:// echoes what the host sends: host-only types must never be taken for MCU data."""
    with McuLink("loop://", rec, hello_retry=0.05) as link:
        assert wait_until(lambda: link.counters["unexpected"] >= 2)
        assert link.connected and not link.online and link.hello is None
        with pytest.raises(TimeoutError):
            link.ping(timeout=0.1)
    assert rec.calls == []


def test_close_from_inside_a_callback(mcu: VirtualMcu) -> None:
    holder: list[McuLink] = []

    class Closer(Recorder):
        def on_change(self, channel: int, level: bool, mcu_time_us: int) -> None:
            super().on_change(channel, level, mcu_time_us)
            holder[0].close()

    rec = Closer()
    link = McuLink(mcu.path, rec)
    holder.append(link)
    link.start()
    assert rec.wait_count("snapshot", 1)
    mcu.set_channel(0, False)
    assert rec.wait_count("offline", 1)
    assert rec.of("offline") == [("offline", "link closed")]
    assert link._thread is not None
    link._thread.join(2)
    assert not link._thread.is_alive() and not link.connected
    mcu.set_channel(1, False)
    assert not rec.wait_count("change", 2, timeout=0.3)  # nothing after close


def test_low_latency_on_a_port_without_it_warns_and_still_works(
    mcu: VirtualMcu, rec: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("WARNING", logger="firmware_bridge.link"), McuLink(mcu.path, rec, low_latency=True) as link:
        assert rec.wait_count("snapshot", 1)
        assert link.online
    assert any("low_latency is not available" in r.getMessage() for r in caplog.records)


def test_close_wakes_the_reader_at_once_and_works_unstarted(mcu: VirtualMcu, rec: Recorder) -> None:
    import time

    with McuLink(mcu.path, rec, heartbeat_timeout=30.0) as link:  # a long read timeout would not matter
        assert rec.wait_count("snapshot", 1)
        mcu.hang()  # nothing arrives: the reader sits in read()
        start = time.monotonic()
        link.close()
        assert time.monotonic() - start < 1.5
    never_started = McuLink(mcu.path, Recorder())
    never_started.close()
    assert not never_started.online and never_started.counters["frames_out"] == 0


def test_a_host_frame_damaged_on_the_way_is_naked_and_the_outputs_resent(
    mcu: VirtualMcu, rec: Recorder, link: McuLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    import firmware_bridge.link as link_module
    from firmware_bridge import protocol as p

    damaged: list[bytes] = []

    def encode_once_damaged(msg: p.Message, seq: int) -> bytes:
        frame = p.encode(msg, seq)
        if not damaged and type(msg).__name__ == "SetOutputMsg":
            frame = frame[:2] + bytes([frame[2] ^ 0x40]) + frame[3:]
            damaged.append(frame)
        return frame

    monkeypatch.setattr(link_module, "encode", encode_once_damaged)
    link.set_output(1, 7)
    assert mcu.wait_output(1, 7)  # arrived on the second try, after the NAK
    assert damaged and link.counters["naks"] == 1
    assert mcu.fw.rx_errors == 1


def test_health_summary_is_json_ready_and_tracks_the_state(mcu: VirtualMcu, rec: Recorder, link: McuLink) -> None:
    import json

    h = link.health()
    assert h["state"] == "online" and h["board_id"] == "bench-7" and h["channels"] == CHANNELS
    assert isinstance(h["counters"], dict) and h["counters"]["frames_ok"] >= 2
    json.dumps(h)
    mcu.unplug()
    assert rec.wait_count("offline", 1)
    assert wait_until(lambda: link.health()["state"] == "offline")
    assert "port lost" in str(link.health()["last_error"]) or "cannot open" in str(link.health()["last_error"])


def test_a_path_that_is_no_serial_port_keeps_retrying_with_a_clear_error(rec: Recorder) -> None:
    with McuLink("/dev/null", rec, backoff=(0.01, 0.02)) as link:
        assert wait_until(lambda: link.last_error.startswith("cannot open /dev/null"))
        assert not link.online and not link.connected
    assert rec.calls == []


def test_a_full_255_channel_board_syncs_and_reports_its_last_channel() -> None:
    rec = Recorder()
    with VirtualMcu(255, heartbeat_interval=0.1, outputs=0) as mcu, McuLink(mcu.path, rec) as link:
        assert rec.wait_count("snapshot", 1)
        assert len(rec.levels) == 255 and all(rec.levels.values())
        mcu.set_channel(254, False)
        assert rec.wait_for(lambda: rec.levels[254] is False)
        with pytest.raises(ValueError, match="the MCU has 0 outputs"):
            link.set_output(0, 1)


def test_an_output_set_before_the_mcu_answers_that_it_lacks_is_logged_not_lost_silently(
        rec: Recorder, caplog: pytest.LogCaptureFixture) -> None:
    mcu = VirtualMcu(4, heartbeat_interval=0.1, outputs=2)
    with McuLink(mcu.path, rec, backoff=(0.01, 0.05)) as link:
        link.set_output(1, 7)
        link.set_output(5, 1)  # nobody to ask yet: recorded
        with caplog.at_level("WARNING", logger="firmware_bridge.link"), mcu:
            assert rec.wait_count("snapshot", 1)
            assert mcu.wait_output(1, 7)
            assert wait_until(lambda: any("output 5" in r.getMessage() for r in caplog.records))
        dropped = [r.getMessage() for r in caplog.records if "output 5" in r.getMessage()]
        assert len(dropped) == 1 and "has 2 outputs" in dropped[0]


def test_an_unexpected_error_in_the_port_driver_does_not_kill_the_reader(
        mcu: VirtualMcu, rec: Recorder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """pyserial and USB drivers can raise more than SerialException/OSError (a TypeError on a
    half-closed fd, say); the reader must treat it as a lost port, not die silently."""
    real_open = McuLink._open
    opened: list[int] = []

    def open_(self: McuLink) -> object:
        port = real_open(self)
        opened.append(1)
        if len(opened) == 1:
            def broken(n: int = 1) -> bytes:
                raise TypeError("driver bug")
            port.read = broken  # type: ignore[method-assign]
        return port

    monkeypatch.setattr(McuLink, "_open", open_)
    with caplog.at_level("ERROR", logger="firmware_bridge.link"), \
            McuLink(mcu.path, rec, backoff=(0.01, 0.05)) as link:
        assert rec.wait_count("snapshot", 1), (rec.calls, link.last_error)
        assert link._thread is not None and link._thread.is_alive()
        assert len(opened) >= 2 and link.counters["disconnects"] >= 1
        assert "driver bug" in caplog.text and "driver bug" in link.last_error


def test_ping_from_a_listener_callback_is_refused_at_once(mcu: VirtualMcu) -> None:
    """The PONG is read by the very thread that would wait for it: waiting can only time out."""
    holder: list[McuLink] = []
    outcome: list[BaseException | float] = []

    class Pinger(Recorder):
        def on_online(self) -> None:
            super().on_online()
            start = time.monotonic()
            try:
                holder[0].ping(timeout=1.0)
            except BaseException as exc:  # noqa: BLE001 - recorded for the test
                outcome.append(exc)
            outcome.append(time.monotonic() - start)

    rec = Pinger()
    link = McuLink(mcu.path, rec)
    holder.append(link)
    with link:
        assert rec.wait_count("snapshot", 1)
    assert isinstance(outcome[0], RuntimeError) and "reader thread" in str(outcome[0])
    assert isinstance(outcome[1], float) and outcome[1] < 0.5


def test_a_reset_with_a_lost_hello_late_in_the_sequence_is_a_reset_not_thousands_of_drops(
        mcu: VirtualMcu, rec: Recorder) -> None:
    """After 40,000 frames (about six hours of heartbeats) a reboot takes the sequence from
    40,000 to 1: less than half the range forward, which alone would read as 25,000 lost frames."""
    mcu._do(lambda: setattr(mcu.fw, "seq", 40_000))
    with McuLink(mcu.path, rec, heartbeat_timeout=2.0, backoff=(0.02, 0.2)) as link:
        assert rec.wait_count("snapshot", 1)
        mcu.hang()
        mcu.corrupt_next(3)  # the boot HELLO will be damaged
        mcu.reset()
        mcu.set_channel(10, False)
        assert wait_until(lambda: link.counters["resets"] == 1)
        assert rec.wait_count("hello", 2)
        assert in_sync(rec, mcu)
        assert link.counters["resets"] == 1 and link.counters["drops"] == 0, link.counters
