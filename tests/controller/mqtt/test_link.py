"""The MQTT link against a real Mosquitto: order, acknowledgement, outages, commands."""

from __future__ import annotations

import json
import queue
import shutil
import socket
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.config import MqttConfig
from controller.mqtt.link import (
    MAX_COMMAND_BYTES,
    Command,
    CommandChecker,
    CommandRefused,
    MqttLink,
)
from controller.protocol.signing import sign, signed_command, signing_key, verify_reply
from controller.store.journal import Journal
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until

TOKEN = "link-test-token"


def settings(**kw: Any) -> MqttConfig:
    base: dict[str, Any] = dict(url=None, host="127.0.0.1", port=1883, base_topic="gk", username=None, password=None,
                tls=False, ca_file=None, client_id=None, keepalive=10)
    base.update(kw)
    return MqttConfig(**base)


class Pump:
    """Plays the service's worker: the only thread that touches the link's outbox."""

    def __init__(self) -> None:
        self.q: queue.Queue[Any] = queue.Queue()
        self.link: MqttLink | None = None
        self.commands: list[Command] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self.q.put(None)

    def do(self, fn: Callable[[MqttLink], Any]) -> Any:
        done = threading.Event()
        box: list[Any] = []
        self.q.put((fn, box, done))
        # Generous: on a loaded machine the worker may still be flushing the link's outbox.
        assert done.wait(30), "the worker never ran the step"
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def _run(self) -> None:
        while True:
            try:
                item = self.q.get(timeout=0.05)
            except queue.Empty:
                item = None
            if item == "stop":
                return
            if isinstance(item, tuple):
                fn, box, done = item
                try:
                    box.append(fn(self.link))
                except Exception as exc:  # handed to the test's thread, which raises it
                    box.append(exc)
                done.set()
            if self.link is not None:
                self.link.flush()

    def stop(self) -> None:
        self.q.put("stop")
        self._thread.join(5)


def make_link(broker: Broker, journal: Journal, table: str, pump: Pump, **kw: Any) -> MqttLink:
    link = MqttLink(
        settings(), host=broker.host, port=broker.port, table=table, token=TOKEN, journal=journal,
        commands=("act", "resync"), on_command=pump.commands.append, on_wake=pump.wake, **kw,
    )
    pump.link = link
    return link


def record(journal: Journal, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        journal.record("observation", {"i": i}, [{"type": "tick", "data": {"i": i}}])




def seqs(events: list[dict[str, Any]]) -> list[int]:
    return [e["seq"] for e in events]


def test_events_go_out_in_order_and_the_cursor_follows_the_acks(mosquitto: Broker, tmp_path: Path,
                                                               pump: Pump) -> None:
    journal = Journal(tmp_path / "j.sqlite", table="lk1")
    record(journal, 30)
    with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk1/#",)) as sub:
        link = make_link(mosquitto, journal, "lk1", pump)
        link.start()
        assert link.wait_online(5)
        events = sub.wait_events("gk/lk1/events", 30)
        assert seqs(events) == list(range(1, 31))
        # The event's own fields, and the table's signature (controller.protocol.publication).
        assert set(events[0]) == {"seq", "table", "type", "time", "data", "pub", "auth"}
        record(journal, 5, 30)
        pump.wake()
        assert seqs(sub.wait_events("gk/lk1/events", 35)) == list(range(1, 36))
        pump.do(lambda lk: None)  # one more flush after the acks: the cursor is written down
        wait_until(lambda: journal.published_seq() == 35, 5, "the outbox cursor")
        status = sub.wait_latest("gk/lk1/status", lambda s: s["state"] == "online")
        assert status["table"] == "lk1" and "version" in status and "since" in status
        link.close()
        sub.wait_latest("gk/lk1/status", lambda s: s["state"] == "offline")
    journal.close()


def test_waiting_for_the_events_to_be_sent_ends_with_their_ack_or_a_timeout(fresh_mosquitto: Broker,
                                                                              tmp_path: Path, pump: Pump) -> None:
    import os
    import signal
    import time

    broker = fresh_mosquitto
    with Journal(tmp_path / "j.sqlite", table="lkw") as journal:
        link = make_link(broker, journal, "lkw", pump)
        link.start()
        assert link.wait_online(5)
        assert pump.do(lambda lk: lk.wait_events_sent(5)) is True  # nothing published: nothing to wait for
        record(journal, 2)

        def publish_and_wait(lk: MqttLink, timeout: float) -> tuple[int, bool, float]:
            t0 = time.monotonic()
            sent = lk.flush(events_only=True)
            return sent, lk.wait_events_sent(timeout), time.monotonic() - t0

        sent, acked, _ = pump.do(lambda lk: publish_and_wait(lk, 5))
        assert sent == 2 and acked is True
        assert broker.proc is not None
        os.kill(broker.proc.pid, signal.SIGSTOP)  # the broker hangs: no acknowledgement comes
        try:
            record(journal, 1, 2)
            sent, acked, waited = pump.do(lambda lk: publish_and_wait(lk, 0.3))
            assert sent == 1 and acked is False and 0.25 <= waited < 3  # bounded by its timeout
        finally:
            os.kill(broker.proc.pid, signal.SIGCONT)
        wait_until(lambda: journal.published_seq() == 3, 10, "the late acknowledgement")
        link.close()


def test_tcp_nodelay_is_set_on_the_client_socket(mosquitto: Broker, tmp_path: Path, pump: Pump) -> None:
    with Journal(tmp_path / "j.sqlite", table="lk2") as journal:
        link = make_link(mosquitto, journal, "lk2", pump)
        link.start()
        assert link.wait_online(5)
        sock: Any = link.client.socket()
        assert sock is not None
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        link.close()


def test_retained_topics_are_published_after_the_events_they_include(mosquitto: Broker, tmp_path: Path,
                                                                    pump: Pump) -> None:
    with Journal(tmp_path / "j.sqlite", table="lk3") as journal:
        record(journal, 3)
        link = make_link(mosquitto, journal, "lk3", pump)
        pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 3, "game_id": "g"}))
        with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk3/events", "gk/lk3/state")) as sub:
            link.start()
            sub.wait_for(lambda m: any(x.topic == "gk/lk3/state" for x in m))
            order = [m.topic for m in sub.messages]
            assert order == ["gk/lk3/events"] * 3 + ["gk/lk3/state"]
        # A late subscriber still gets the retained state.
        with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk3/state",)) as late:
            msg = late.wait_for(lambda m: len(m) >= 1)[0]
            assert msg.retain and msg.body() == {"seq": 3, "game_id": "g"}
        link.close()


def test_a_broker_outage_keeps_events_and_refreshes_retained_topics(fresh_mosquitto: Broker, tmp_path: Path,
                                                                     pump: Pump) -> None:
    broker = fresh_mosquitto  # no persistence: whatever was retained is gone after the restart
    journal = Journal(tmp_path / "j.sqlite", table="lk4")
    link = make_link(broker, journal, "lk4", pump)
    def retain_both(lk: MqttLink) -> None:
        lk.set_retained(lk.topics.state, {"seq": 0})
        lk.set_retained(lk.topics.sensors, {"s": 1})

    pump.do(retain_both)
    link.start()
    with Subscriber(broker.host, broker.port, ("gk/lk4/events",)) as sub:
        record(journal, 5)
        pump.wake()
        assert seqs(sub.wait_events("gk/lk4/events", 5)) == [1, 2, 3, 4, 5]
        wait_until(lambda: journal.published_seq() == 5, 5, "the acknowledgements")
        broker.stop()
        wait_until(lambda: not link.connected, 5, "the link to notice the outage")
        record(journal, 10, 5)  # decisions go on while the broker is away
        pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 15}))
        assert journal.published_seq() == 5  # nothing is marked that the broker did not take
        broker.start()
        wait_until(lambda: journal.published_seq() == 15, 15, "the broker to acknowledge the backlog")
    # Only the link can have put these back: the broker forgot everything.
    with Subscriber(broker.host, broker.port, ("gk/lk4/state", "gk/lk4/sensors", "gk/lk4/status")) as late:
        late.wait_for(lambda m: len(m) >= 3)
        assert late.latest_body("gk/lk4/state") == {"seq": 15}
        assert late.latest_body("gk/lk4/sensors") == {"s": 1}
        assert late.latest("gk/lk4/status")["state"] == "online"
    assert link.health()["disconnects"] == 1 and link.health()["connects"] == 2
    link.close()
    journal.close()


def test_a_fault_in_handling_a_disconnect_does_not_end_the_links_connection(
        fresh_mosquitto: Broker, tmp_path: Path, pump: Pump, caplog: pytest.LogCaptureFixture) -> None:
    """paho ends its network thread on an exception out of a callback: the table would referee on, deaf to
    commands and publishing nothing, with nothing said. The fault is logged, and the link comes back."""
    broker = fresh_mosquitto
    with Journal(tmp_path / "j.sqlite", table="lk-fault") as journal:
        link = make_link(broker, journal, "lk-fault", pump)
        link.start()
        try:
            assert link.wait_online(5)

            def fault() -> None:
                raise RuntimeError("a fault in the controller's own code")

            link.status.forget_former = fault  # type: ignore[method-assign]  # the first step of on_disconnect
            broker.stop()
            wait_until(lambda: not link.client.is_connected(), 5, "the link to notice the outage")
            broker.start()
            wait_until(lambda: link.health()["connects"] == 2, 15,
                       "the link to connect again after a fault in a callback")
            assert "handling on_disconnect failed" in caplog.text
            assert "a fault in the controller's own code" in caplog.text
        finally:
            pump.stop()  # the link's caller from here on is this thread
            link.close()


def test_a_restart_does_not_resend_what_the_broker_already_has(mosquitto: Broker, tmp_path: Path,
                                                              pump: Pump) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path, table="lk5") as journal:
        record(journal, 4)
    # A copy whose outbox cursor is still 0: as if kill -9 came before the acks were written down.
    shutil.copy(path, tmp_path / "crashed.sqlite")
    with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk5/events",)) as sub:
        with Journal(path, table="lk5") as journal:
            link = make_link(mosquitto, journal, "lk5", pump)
            pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 4, "game_id": "G1"}))
            link.start()
            sub.wait_events("gk/lk5/events", 4)
            link.close()
        with Journal(tmp_path / "crashed.sqlite", table="lk5") as journal:
            record(journal, 1, 4)
            link = make_link(mosquitto, journal, "lk5", pump)
            pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 5, "game_id": "G1"}))
            link.start()
            events = sub.wait_events("gk/lk5/events", 5)
            pump.do(lambda lk: None)
            assert seqs(events) == [1, 2, 3, 4, 5]  # 1-4 not doubled, 5 sent
            wait_until(lambda: journal.published_seq() == 5, 5, "the outbox cursor")
            link.close()


def test_a_retained_state_of_another_game_is_not_trusted(mosquitto: Broker, tmp_path: Path, pump: Pump) -> None:
    with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk6/events",)) as sub:
        with Journal(tmp_path / "old.sqlite", table="lk6") as old:
            record(old, 3)
            link = make_link(mosquitto, old, "lk6", pump)
            pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 3, "game_id": "OLD"}))
            link.start()
            sub.wait_events("gk/lk6/events", 3)
            link.close()
            pump.link = None  # else the pump may flush this link once its journal is closed, and die
        with Journal(tmp_path / "new.sqlite", table="lk6") as new:  # a new journal, a new game
            record(new, 3)
            link = make_link(mosquitto, new, "lk6", pump)
            pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": 3, "game_id": "NEW"}))
            link.start()
            assert seqs(sub.wait_events("gk/lk6/events", 6)) == [1, 2, 3, 1, 2, 3]
            link.close()
            pump.link = None


# ----- commands ---------------------------------------------------------------
def checker(used: set[str] | None = None) -> CommandChecker:
    return CommandChecker(TOKEN, ("act", "resync"), lambda cid: cid in (used or set()), table="chk")


def refusal(name: str, raw: bytes, used: set[str] | None = None) -> CommandRefused:
    with pytest.raises(CommandRefused) as info:
        checker(used).check(name, raw)
    return info.value


def body(name: str = "act", **kw: Any) -> bytes:
    return signed_command(TOKEN, "chk", name, {"id": "x1", **kw})


def test_checker_accepts_a_signed_command() -> None:
    cmd = checker().check("act", body(action={"kind": "roll", "player": 0}))
    assert cmd.name == "act" and cmd.id == "x1" and cmd.payload["action"]["kind"] == "roll"


@pytest.mark.parametrize(
    ("name", "raw", "message", "cid"),
    [
        ("act", b"{not json", "bad JSON", None),
        ("act", b"\xff\xfe", "bad JSON", None),
        ("act", b"[1, 2]", "must be a JSON object", None),
        ("act", b"[" * 5000, "nested too deeply", None),
        ("act", json.dumps({"auth": "x"}).encode(), "missing or bad 'id'", None),
        ("act", json.dumps({"id": True}).encode(), "missing or bad 'id'", None),
        ("fly", body("fly"), "unknown command 'fly'", "x1"),
        ("act", json.dumps({"id": "x1"}).encode(), "not authorised: the command has no 'auth'", "x1"),
        ("act", signed_command("wrong-token", "chk", "act", {"id": "x1"}), "not authorised: bad signature", "x1"),
        ("act", signed_command(TOKEN, "chk", "act", {"id": "x1", "n": 1}).replace(b'"n":1', b'"n":2'),
         "not authorised: bad signature", "x1"),
        ("act", json.dumps({**json.loads(signed_command(TOKEN, "chk", "act", {"id": "x1"})), "extra": 1}).encode(),
         "not authorised", "x1"),
    ],
)
def test_checker_refuses_with_a_message_naming_the_problem(name: str, raw: bytes, message: str, cid: Any) -> None:
    refused = refusal(name, raw)
    assert message in str(refused)
    assert refused.command_id == cid


def test_checker_refuses_oversized_payloads_and_still_names_their_id() -> None:
    refused = refusal("act", body(pad="x" * MAX_COMMAND_BYTES))
    assert "payload too large" in str(refused) and "16384" in str(refused)
    assert refused.command_id == "x1"
    assert refusal("act", b"{" * (MAX_COMMAND_BYTES + 1)).command_id is None


@pytest.mark.parametrize("ts", [None, "1", 1.5, True, -1, 2**53, 10**400])
def test_checker_refuses_a_ts_that_is_not_a_time_by_name(ts: Any) -> None:
    fields = {} if ts is None else {"ts": ts}
    raw = signed_command(TOKEN, "chk", "act", {"id": "x1", **fields})
    if ts is None:  # signed_command fills ts in: sign the command without it
        raw = sign(signing_key(TOKEN), "command", "chk", "act", b'{"id":"x1"}')
    refused = refusal("act", raw)
    assert "missing or bad 'ts'" in str(refused) and refused.command_id == "x1"


def test_checker_refuses_a_replayed_id_from_the_journal_and_from_memory() -> None:
    assert "replayed command id 'x1'" in str(refusal("act", body(), used={"x1"}))
    c = checker()
    c.check("act", body())
    with pytest.raises(CommandRefused, match="replayed"):
        c.check("act", body())


def test_bad_commands_get_a_reply_on_the_broker_and_never_reach_the_worker(mosquitto: Broker, tmp_path: Path,
                                                                          pump: Pump) -> None:
    with Journal(tmp_path / "j.sqlite", table="lk7") as journal:
        link = make_link(mosquitto, journal, "lk7", pump)
        link.start()
        assert link.wait_online(5)
        cmd = Commander(mosquitto.host, mosquitto.port, "gk", "lk7", TOKEN)
        try:
            cmd.send_raw("act", b"{oops")
            cmd.send_raw("act", b"x" * (MAX_COMMAND_BYTES + 1))
            wrong = cmd.send("act", {"action": {}}, token="nope")
            unknown = cmd.send("dance", {})
            replies = cmd.sub.wait_for(lambda m: len(m) >= 4)
            by_topic = [(m.topic, m.json()) for m in replies]
            # every reply is signed by the table, for its own reply topic
            assert all(verify_reply(TOKEN, "lk7", m.topic.rsplit("/", 1)[1], m.payload) for m in replies)
            for _, body in by_topic:
                del body["auth"]
            assert ("gk/lk7/reply/act", {"id": None, "ok": False, "error": by_topic[0][1]["error"]}) == by_topic[0]
            assert by_topic[0][1]["error"].startswith("bad JSON")
            assert by_topic[1][1]["error"].startswith("payload too large")
            assert by_topic[2] == ("gk/lk7/reply/act", {"id": wrong, "ok": False,
                                                         "error": by_topic[2][1]["error"]})
            assert by_topic[2][1]["error"].startswith("not authorised: bad signature (wrong control token")
            assert by_topic[3][0] == "gk/lk7/reply/dance" and by_topic[3][1]["id"] == unknown
            good = cmd.send("act", {"action": {"kind": "roll"}})
            wait_until(lambda: len(pump.commands) == 1, 5, "the command to reach the worker")
            assert pump.commands[0].id == good
            cmd.send_raw("act", cmd.last_raw)
            assert "replayed" in cmd.reply("act", good)["error"]
            assert len(pump.commands) == 1
        finally:
            cmd.close()
            link.close()


def test_a_large_backlog_drains_in_order_through_the_window(mosquitto: Broker, tmp_path: Path, pump: Pump) -> None:
    from controller.mqtt.link import WINDOW

    with Journal(tmp_path / "j.sqlite", table="lk8") as journal:
        journal_events = 2 * WINDOW + 37
        for i in range(journal_events):  # one transaction per decision, as the referee does
            journal.record("observation", {"i": i}, [{"type": "tick", "data": {"i": i}}])
        with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk8/events", "gk/lk8/state")) as sub:
            link = make_link(mosquitto, journal, "lk8", pump)
            pump.do(lambda lk: lk.set_retained(lk.topics.state, {"seq": journal_events}))
            link.start()
            sub.wait_for(lambda m: any(x.topic == "gk/lk8/state" for x in m), 20)
            assert seqs(sub.events("gk/lk8/events")) == list(range(1, journal_events + 1))
            assert [m.topic for m in sub.messages][-1] == "gk/lk8/state"  # after every event it includes
            wait_until(lambda: journal.published_seq() == journal_events, 5, "the outbox cursor")
            link.close()


def test_username_and_password_are_used_and_a_refusal_is_reported(tmp_path: Path, pump: Pump) -> None:
    import os
    import subprocess

    from tests.support.broker import make_broker

    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "table", "s3cret"], check=True)
    stay = "user root\n" if os.geteuid() == 0 else ""
    broker = make_broker(tmp_path, extra_conf=f"allow_anonymous false\npassword_file {passwd}\n{stay}")
    try:
        with Journal(tmp_path / "j.sqlite", table="lk9") as journal:
            for password, ok in (("s3cret", True), ("wrong", False)):
                link = MqttLink(settings(username="table", password=password), host=broker.host,
                                port=broker.port, table="lk9", token=TOKEN, journal=journal, commands=("act",),
                                on_command=pump.commands.append, on_wake=pump.wake)
                pump.link = link
                link.start()
                if ok:
                    assert link.wait_online(5)
                else:
                    wait_until(lambda link=link: link.health()["last_error"] is not None, 5, "the refusal")
                    assert not link.connected
                    assert "refused" in link.health()["last_error"]
                    assert "authori" in link.health()["last_error"].lower()
                link.close()
    finally:
        broker.stop()


def _make_tls_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gravekeeper test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = (tmp_path / "ca.pem", tmp_path / "server.pem", tmp_path / "server.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    for p in paths:
        p.chmod(0o644)
    return paths


def test_tls_with_a_ca_file_connects_and_a_wrong_ca_is_refused(tmp_path: Path, pump: Pump) -> None:
    import os

    from tests.support.broker import free_port, make_broker

    ca, cert, key = _make_tls_files(tmp_path)
    (tmp_path / "other").mkdir()
    other_ca, _, _ = _make_tls_files(tmp_path / "other")
    tls_port = free_port()
    stay = "user root\n" if os.geteuid() == 0 else ""
    broker = make_broker(tmp_path, extra_conf=(f"listener {tls_port} 127.0.0.1\ncafile {ca}\ncertfile {cert}\n"
                                               f"keyfile {key}\n{stay}"))
    try:
        with Journal(tmp_path / "j.sqlite", table="lk10") as journal:
            for ca_file, ok in ((ca, True), (other_ca, False)):
                link = MqttLink(settings(tls=True, ca_file=str(ca_file)), host="127.0.0.1", port=tls_port,
                                table="lk10", token=TOKEN, journal=journal, commands=("act",),
                                on_command=pump.commands.append, on_wake=pump.wake)
                pump.link = link
                link.start()
                assert link.wait_online(5 if ok else 1.5) is ok  # a CA that did not sign: never online
                if ok:
                    sock: Any = link.client.socket()
                    assert sock.version() is not None  # an SSL socket, with NODELAY set through it
                    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
                link.close()
    finally:
        broker.stop()


def test_a_disk_that_refuses_the_outbox_cursor_does_not_stop_the_link_or_its_close(
    mosquitto: Broker, tmp_path: Path, pump: Pump, monkeypatch: pytest.MonkeyPatch
) -> None:
    from controller.store.journal import JournalError

    journal = Journal(tmp_path / "j.sqlite", table="lk-full")
    record(journal, 3)
    with Subscriber(mosquitto.host, mosquitto.port, ("gk/lk-full/#",)) as sub:
        link = make_link(mosquitto, journal, "lk-full", pump)
        refused = threading.Event()

        def full(seq: int) -> None:
            refused.set()
            raise JournalError("database or disk is full")  # what the journal raises for a failed write

        monkeypatch.setattr(journal, "mark_published", full)
        link.start()
        assert link.wait_online(5)
        assert seqs(sub.wait_events("gk/lk-full/events", 3)) == [1, 2, 3]
        record(journal, 2, 3)
        pump.wake()
        # The cursor cannot be written, yet events keep flowing: it only saves resending after a restart.
        assert seqs(sub.wait_events("gk/lk-full/events", 5)) == [1, 2, 3, 4, 5]
        pump.stop()  # the link's caller from here on is this thread
        link.close()  # must not raise: the service still has the journal and the sensors to close
        assert refused.is_set()
        sub.wait_latest("gk/lk-full/status", lambda s: s["state"] == "offline")
        assert not link.client.is_connected()
    monkeypatch.undo()
    assert journal.published_seq() == 0  # nothing was written; the next start resends from the journal
    journal.close()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "\\ud800"}',  # an id that is a lone UTF-16 surrogate: valid JSON, not encodable text
        b'{"id": "s1", "action": {"kind": "\\udfff"}, "auth": "00"}',
        b'{"\\ud800": 1, "id": "s2"}',
    ],
)
def test_unpaired_surrogates_are_refused_and_never_stop_the_network_thread(
    mosquitto: Broker, tmp_path: Path, pump: Pump, raw: bytes
) -> None:
    table = f"lk-sur-{zlib.crc32(raw)}"  # a table of its own for each payload
    with Journal(tmp_path / "j.sqlite", table=table) as journal:
        link = make_link(mosquitto, journal, table, pump)
        link.start()
        assert link.wait_online(5)
        cmd = Commander(mosquitto.host, mosquitto.port, "gk", table, TOKEN)
        try:
            cmd.send_raw("act", raw)
            first = cmd.sub.wait_for(lambda m: len(m) >= 1)[0]
            answer = first.json()  # the reply itself is valid JSON in UTF-8
            assert answer["ok"] is False and "surrogate" in answer["error"], answer
            # The link still reads commands: a spectator cannot make the controller deaf.
            good = cmd.send("act", {"action": {"kind": "roll"}})
            wait_until(lambda: len(pump.commands) == 1, 5, "the next command to reach the worker")
            assert pump.commands[0].id == good and link.connected
        finally:
            cmd.close()
            link.close()


def test_a_reply_with_text_that_cannot_be_encoded_is_still_valid_json() -> None:
    from controller.protocol.commands import dumps

    assert json.loads(dumps({"id": "a\ud800b", "ok": False})) == {"id": "a\ud800b", "ok": False}
    assert dumps({"id": "\u00e9"}) == '{"id":"\u00e9"}'.encode()


def test_a_journal_that_cannot_be_read_refuses_the_command_with_its_id() -> None:
    import sqlite3

    from controller.store.journal import JournalError

    def damaged(cid: str) -> bool:
        raise JournalError("journal /x cannot be read: database disk image is malformed")

    c = CommandChecker(TOKEN, ("act",), damaged, table="chk")
    with pytest.raises(CommandRefused, match="the journal cannot be read") as info:
        c.check("act", body())
    assert info.value.command_id == "x1"  # the sender can still match the answer to its command

    def locked(cid: str) -> bool:
        raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(CommandRefused, match="disk I/O error"):
        CommandChecker(TOKEN, ("act",), locked, table="chk").check("act", body())


def test_a_sealed_reply_carries_only_the_id_ok_and_the_sealed_text(mosquitto: Broker, tmp_path: Path,
                                                                   pump: Pump) -> None:
    with Journal(tmp_path / "j.sqlite", table="lks") as journal, \
            Subscriber(mosquitto.host, mosquitto.port, ("gk/lks/reply/#",)) as sub:
        link = make_link(mosquitto, journal, "lks", pump)
        link.start()
        try:
            assert link.wait_online(5)
            with pytest.raises(ValueError, match="inside 'sealed' only"):
                link.reply("act", "s0", False, error="card ring-3 is not yours", sealed="QUJD")
            with pytest.raises(ValueError, match="inside 'sealed' only"):
                link.reply("act", "s0", True, data={"action": {}}, sealed="QUJD")
            pump.do(lambda lk: lk.reply("act", "s1", False, sealed="QUJD"))
            sub.wait_for(lambda m: any(x.json().get("id") == "s1" for x in m))
            (message,) = sub.on("gk/lks/reply/act")
            reply = message.json()
            assert verify_reply(TOKEN, "lks", "act", message.payload) and reply.pop("auth")
            assert reply == {"id": "s1", "ok": False, "sealed": "QUJD"}
        finally:
            link.close()
