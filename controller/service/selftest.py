"""The self-test's non-hardware checks, and the run that builds the whole report.

Checks here: the broker can be reached and accepts our credentials, the
journal is writable and passes SQLite's ``PRAGMA integrity_check``, and every
game's data files load through the engines' own validating loaders. The
hardware checks and the guided walk-through live in ``hardware.selftest``.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.config import Config, MqttConfig
from controller.service.context import TableContext
from hardware.selftest.faults import Fault, has
from hardware.selftest.guided import StepControl
from hardware.selftest.report import CheckResult, Report, Status
from hardware.selftest.runner import ActorFactory, run_hardware

BROKER_TIMEOUT_S = 3.0
JOURNAL_BUSY_MS = 2000

# data file -> (module, loader); each loader validates and raises BadGameData naming the bad entry
DATA_LOADERS: dict[str, tuple[str, str]] = {
    "terror_board": ("controller.games.terror", "load_board"),
    "terror_cards": ("controller.games.terror", "load_deck"),
    "superstition_board": ("controller.games.superstition", "load_board"),
    "dogs_tiles": ("controller.games.dogs", "load_tiles"),
}


def _closed_port() -> int:
    """A loopback port nobody listens on (the ``broker:down`` fault)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_broker(mqtt: MqttConfig, *, timeout: float = BROKER_TIMEOUT_S, down: bool = False) -> list[CheckResult]:
    """``broker.reachable`` and ``broker.auth``; ``down`` points at a closed port (the injected fault)."""
    host, port = ("127.0.0.1", _closed_port()) if down else (mqtt.host, mqtt.port)
    where = f"{host}:{port}"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        if mqtt.url is None and not down:
            # Nothing configured: `run` would start its embedded broker, which is fine.
            return [CheckResult("broker.reachable", "broker", Status.WARN,
                                f"no broker configured and none answers on {where} ({reason}): "
                                "`gravekeeper run` starts its own embedded broker"),
                    CheckResult("broker.auth", "broker", Status.SKIP, "no broker to authenticate with")]
        return [CheckResult("broker.reachable", "broker", Status.FAIL,
                            f"no broker: nothing answers at {where} ({reason}); check mqtt.url, that the broker "
                            "runs, and the firewall", {"host": host, "port": port}),
                CheckResult("broker.auth", "broker", Status.SKIP, "the broker cannot be reached")]
    reachable = CheckResult("broker.reachable", "broker", Status.PASS, f"a broker answers at {where}")
    return [reachable, _check_auth(mqtt, host, port, timeout)]


def _check_auth(mqtt: MqttConfig, host: str, port: int, timeout: float) -> CheckResult:
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    done = threading.Event()
    result: list[Any] = []
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"gravekeeper-selftest-{os.getpid()}")
    if mqtt.username:
        client.username_pw_set(mqtt.username, mqtt.password)
    who = f"user {mqtt.username!r}" if mqtt.username else "an anonymous client"
    try:
        if mqtt.tls:
            client.tls_set(ca_certs=mqtt.ca_file)
    except (OSError, ValueError) as exc:
        return CheckResult("broker.auth", "broker", Status.FAIL, f"mqtt.ca_file: cannot set up TLS: {exc}")

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        result.append(reason)
        done.set()

    def on_disconnect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not result:
            result.append(reason)
        done.set()

    client.on_connect = on_connect
    client.on_disconnect = on_disconnect
    try:
        client.connect(host, port, keepalive=10)
    except (OSError, ValueError) as exc:
        return CheckResult("broker.auth", "broker", Status.FAIL, f"cannot open an MQTT session at {host}:{port}: {exc}")
    client.loop_start()
    try:
        if not done.wait(timeout):
            return CheckResult("broker.auth", "broker", Status.FAIL,
                               f"the broker at {host}:{port} did not answer the MQTT CONNECT within {timeout:g} s "
                               "(is it an MQTT broker? TLS expected?)")
        reason = result[0]
        if getattr(reason, "is_failure", False):
            return CheckResult("broker.auth", "broker", Status.FAIL,
                               f"the broker refused {who}: {reason} (check mqtt.username and "
                               "mqtt.password, or the broker's password file)", {"reason": str(reason)})
        return CheckResult("broker.auth", "broker", Status.PASS,
                           f"connected as user {mqtt.username!r}" if mqtt.username else "connected anonymously")
    finally:
        client.disconnect()
        client.loop_stop()


def publish_report(mqtt: MqttConfig, table: str, report: Mapping[str, Any], *,
                   timeout: float = BROKER_TIMEOUT_S) -> str:
    """Put ``report`` under ``selftest`` in the retained ``<base>/<table>/health``; returns the topic.

    The retained health payload already there (from a controller that ran) is
    kept and only its ``selftest`` key replaced. ``OSError`` when the broker
    cannot be reached or does not confirm the publish in time.
    """
    import json

    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    topic = f"{mqtt.base_topic}/{table}/health"
    current: list[dict[str, Any]] = []
    got = threading.Event()
    connected = threading.Event()
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"gravekeeper-selftest-{os.getpid()}")
    if mqtt.username:
        client.username_pw_set(mqtt.username, mqtt.password)
    if mqtt.tls:
        client.tls_set(ca_certs=mqtt.ca_file)

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not getattr(reason, "is_failure", False):
            connected.set()
            c.subscribe(topic, qos=1)

    def on_message(c: Any, userdata: Any, msg: Any) -> None:
        if msg.retain:
            try:
                body = json.loads(msg.payload)
            except (ValueError, RecursionError):  # anyone may retain anything here: out of paho's thread, it ends it
                body = None
            if isinstance(body, dict):
                current.append(body)
        got.set()

    client.on_connect = on_connect
    client.on_message = on_message
    client.connect(mqtt.host, mqtt.port, keepalive=10)
    client.loop_start()
    try:
        if not connected.wait(timeout):
            raise OSError(f"the broker at {mqtt.host}:{mqtt.port} did not accept the session")
        got.wait(min(1.0, timeout))  # a retained payload arrives at once; none means there is none
        body = {**(current[0] if current else {}), "time": time.time(), "selftest": dict(report)}
        info = client.publish(topic, json.dumps(body, sort_keys=True), qos=1, retain=True)
        info.wait_for_publish(timeout)
        if not info.is_published():
            raise OSError(f"the broker did not confirm the report on {topic} within {timeout:g} s")
    finally:
        client.disconnect()
        client.loop_stop()
    return topic


def check_journal(path: str | Path, table: str, *, busy_ms: int = JOURNAL_BUSY_MS) -> list[CheckResult]:
    """``journal.writable`` (the write lock can be taken) and ``journal.integrity``; nothing is written."""
    from controller.store.journal import Journal, JournalError

    path = Path(path)
    if not path.exists():
        folder = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
        try:
            if folder is None or not folder.is_dir():
                raise OSError(f"no existing folder above {path}")
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".gk-selftest-"):
                pass
        except OSError as exc:
            return [CheckResult("journal.writable", "journal", Status.FAIL,
                                f"journal.path: cannot create {path}: {getattr(exc, 'strerror', None) or exc}"),
                    CheckResult("journal.integrity", "journal", Status.SKIP, "there is no journal yet")]
        return [CheckResult("journal.writable", "journal", Status.PASS,
                            f"no journal yet at {path}; its folder is writable (the first run creates it)"),
                CheckResult("journal.integrity", "journal", Status.SKIP, "there is no journal yet")]
    # Asked of the kernel first: in the controller's process SQLite shares the running journal's mapped
    # -shm file, and writing it once the file may not change is SIGBUS (controller/store/journal.py).
    locked = next((f"{path.name}{suffix}" for suffix in ("", "-wal", "-shm")
                   if os.path.lexists(f"{path}{suffix}") and not os.access(f"{path}{suffix}", os.W_OK)), None)
    if locked is not None:
        return [CheckResult("journal.writable", "journal", Status.FAIL,
                            f"journal.path: {path} is read-only ({locked} cannot be written)"),
                CheckResult("journal.integrity", "journal", Status.SKIP, "the journal cannot be opened for writing")]
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
            db.execute("BEGIN IMMEDIATE")  # the write lock, as a decision would take it
            db.execute("ROLLBACK")
        finally:
            db.close()
    except sqlite3.Error as exc:
        return [CheckResult("journal.writable", "journal", Status.FAIL,
                            f"journal.path: {path} cannot be written: {exc}"),
                CheckResult("journal.integrity", "journal", Status.SKIP, "the journal cannot be opened for writing")]
    writable = CheckResult("journal.writable", "journal", Status.PASS, f"{path} is writable")
    try:
        with Journal(path, table=table, create=False) as journal:
            verdict = journal.integrity_check()
    except JournalError as exc:
        return [writable, CheckResult("journal.integrity", "journal", Status.FAIL, str(exc))]
    if verdict != "ok":
        return [writable, CheckResult("journal.integrity", "journal", Status.FAIL,
                                      f"{path} is damaged: {verdict} (keep a copy, then see docs/deploy.md)")]
    return [writable, CheckResult("journal.integrity", "journal", Status.PASS,
                                  "the journal passes SQLite's integrity check")]


def check_data(sources: Mapping[str, str | Path | None] | None = None) -> list[CheckResult]:
    """Every game's data file through its engine's loader (``sources`` overrides a file by name)."""
    import importlib

    from controller.games import BadGameData

    out = []
    for name, (module_name, loader_name) in DATA_LOADERS.items():
        source = (sources or {}).get(name)
        loader = getattr(importlib.import_module(module_name), loader_name)
        try:
            loader(source) if source is not None else loader()
        except (BadGameData, ValueError) as exc:
            out.append(CheckResult(f"data.{name}", "data", Status.FAIL, str(exc)))
            continue
        out.append(CheckResult(f"data.{name}", "data", Status.PASS, "loads and validates"
                               + (f" ({source})" if source is not None else "")))
    return out


def software_checks(config: Config, *, faults: Sequence[Fault] = (), journal: bool = True,
                    data_sources: Mapping[str, str | Path | None] | None = None) -> list[CheckResult]:
    out = check_broker(config.mqtt, down=has(faults, "broker"))
    if journal:
        out += check_journal(config.journal.path, config.table.id)
    out += check_data(data_sources)
    return out


def run_selftest(config: Config, *, faults: Sequence[Fault] = (), guided: bool = False, step_timeout: float = 20.0,
                 actor: ActorFactory | None = None, control: StepControl | None = None,
                 on_progress: Callable[[dict[str, Any]], None] | None = None,
                 on_check: Callable[[CheckResult], None] | None = None, quiet_s: float | None = None,
                 data_sources: Mapping[str, str | Path | None] | None = None) -> Report:
    """The whole self-test as the CLI runs it: hardware (own hub), then broker, journal and data."""
    report = Report(guided=guided)
    kwargs: dict[str, Any] = {} if quiet_s is None else {"quiet_s": quiet_s}
    checks, steps = run_hardware(config.hardware, simulate=config.simulate, faults=faults, guided=guided,
                                 step_timeout=step_timeout, actor=actor, control=control,
                                 on_progress=on_progress, on_check=on_check, **kwargs)
    report.add(checks)
    for item in software_checks(config, faults=faults, data_sources=data_sources):
        report.add(item)
        if on_check is not None:
            on_check(item)
    report.steps = list(steps)
    report.finished = time.time()
    return report


# -- hooks the service calls (docs/selftest.md, "In the service") -------------------
def service_checks(table: TableContext) -> list[CheckResult]:
    """The non-hardware checks inside the running service, on its own link and journal."""
    link = table.link
    if link is not None and link.connected:
        out = [CheckResult("broker.reachable", "broker", Status.PASS,
                           f"the service is connected to {table.broker.host}:{table.broker.port}"),
               CheckResult("broker.auth", "broker", Status.PASS, "the broker accepted the service's session")]
    else:
        out = [CheckResult("broker.reachable", "broker", Status.FAIL,
                           f"no broker: the service is not connected ({link.health() if link else 'no link'})"),
               CheckResult("broker.auth", "broker", Status.SKIP, "the broker cannot be reached")]
    journal = table.journal
    verdict = journal.integrity_check() if journal is not None else "no journal is open"
    out += check_journal(table.config.journal.path, table.table)[:1]
    out.append(CheckResult("journal.integrity", "journal", Status.PASS if verdict == "ok" else Status.FAIL,
                           "the journal passes SQLite's integrity check" if verdict == "ok"
                           else f"the journal is damaged: {verdict}"))
    return out + check_data()


def observed(table: TableContext, obs: Any, forward: Callable[[Any], None]) -> bool:
    """True when a running walk-through holds this observation back from the referee.

    ``forward`` takes it on to the referee when the walk-through lets it go.
    """
    global _hold
    if _hold is None:  # once: every observation comes here, on its way to the referee
        from hardware.selftest.session import observed as hold

        _hold = hold
    return _hold(table.hub, obs, forward)


_hold: Callable[[Any, Any, Callable[[Any], None]], bool] | None = None


def tick(table: TableContext, now: float) -> bool:
    """Feed the live monitor; True when its findings changed (the service then publishes health)."""
    from hardware.selftest import session

    session.add_checks(table.hub, lambda: service_checks(table))
    game = table.referee.game if table.referee is not None else None
    return session.tick(table.hub, game, now)


def live_health(table: TableContext) -> dict[str, Any]:
    from hardware.selftest.session import live_health as live

    return live(table.hub)


def stop(table: TableContext, timeout: float = 5.0) -> bool:
    """End a running self-test before the service closes its sensors; False if it did not stop in time."""
    from hardware.selftest.session import stop as end

    return end(table.hub, timeout) if table.hub is not None else True


def halt(table: TableContext) -> dict[str, Any] | None:
    from hardware.selftest.session import halt as held

    return held(table.hub)
