"""``gravekeeper run``: the controller, its broker (found or embedded) and the panel.

Prints one line per part as it comes up: the broker, "online", the panel's
addresses (every one other devices can use) with a QR code of the players'
join page, and the control token when none was configured (made by the first
start and kept beside the journal, mode 0600, so join codes survive a
restart; ``--new-token`` replaces it). Stops cleanly on
SIGTERM or Ctrl-C: "offline" is published, the journal is closed, threads are
joined.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

from controller.cli import UsageError
from controller.cli.panel_process import (
    PanelPortBusy,
    PanelProcess,
    PanelStopped,
    PanelSupervisor,
    busy_line,
    heartbeat_for,
    where_lines,
)
from gravekeeper.signals import StopOnSignals

ONLINE_WAIT_S = 5.0
EXIT_TABLE_TAKEN = 3  # another controller runs this table id (docs/deploy.md: not restarted)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from controller.games import GAME_NAMES

    parser.add_argument("--config", metavar="FILE", help="TOML config file (docs/config.md)")
    parser.add_argument("--simulate", action="store_true", default=None,
                        help="simulated sensors: no GPIO or MCU needed (the `sim` command drives them)")
    parser.add_argument("--game", choices=GAME_NAMES, help="game to start when the journal holds none")
    parser.add_argument("--table", metavar="ID", help="table id (part of every MQTT topic)")
    parser.add_argument("--broker", metavar="URL", help="MQTT broker, e.g. mqtt://host:1883 or mqtts://host:8883")
    parser.add_argument("--host", metavar="ADDR",
                        help="panel address (config panel.host; default 0.0.0.0, every interface, so phones reach it)")
    parser.add_argument("--port", type=int, metavar="N", help="panel port (config panel.port; default 8080)")
    parser.add_argument("--new-token", action="store_true",
                        help="replace the kept control token with a new one (ends every join code and login)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="how much to log on stderr (default: info)")


def _say(text: str) -> None:
    print(f"gravekeeper: {text}", flush=True)


def main(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, load_config

    overrides = {"simulate": args.simulate, "table.game": args.game, "table.id": args.table, "mqtt.url": args.broker,
                  "panel.host": args.host, "panel.port": args.port}
    try:
        config = load_config(args.config, overrides=overrides)
    except ConfigError as exc:
        message = str(exc)
        for key, option in (("panel.host", "--host"), ("panel.port", "--port")):
            if message.startswith(key) and getattr(args, option[2:]) is not None:
                message = option + message[len(key):]
        raise UsageError(message) from None
    config, token_note = keep_token(config, renew=args.new_token)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from controller.mqtt.broker import BrokerError, choose_broker
    from controller.service.service import Service, ServiceError
    from controller.store.journal import JournalError

    stop = threading.Event()
    with StopOnSignals(stop):  # SIGTERM and Ctrl-C set it, whichever thread the kernel hands them to
        try:
            broker = choose_broker(config.mqtt)
        except BrokerError as exc:
            print(f"gravekeeper run: {exc}", file=sys.stderr)
            return 1
        panel: Any = None
        service = Service(config, broker)
        service.on_failure = lambda reason: stop.set()
        try:
            try:
                service.start()
            except ServiceError as exc:
                raise UsageError(str(exc)) from None
            except (JournalError, sqlite3.Error) as exc:
                # The journal opened but its inputs cannot be replayed (damaged pages, a
                # hand-edited input) or it refused the first write (a full disk): the
                # restore failed, and nothing was published yet.
                raise UsageError(f"journal.path: {exc}") from None
            mode = "simulated board" if config.simulate else f"board: {config.referee.board}"
            _say(f"table {config.table.id!r} ({mode}), journal {config.journal.path}")
            playing = service.call(lambda s: s.game_name)
            if args.game and playing != args.game:
                # The journal wins: a restart must never throw away a game in progress.
                _say(f"the journal holds a {playing} game, which goes on; --game {args.game} applies to a "
                     "new journal (start a new game from the panel or with cmd/new_game)")
            _say(f"MQTT: {broker.describe()}")
            if service.wait_online(ONLINE_WAIT_S):
                _say("online")
            else:
                problem = service.link.health()["last_error"] if service.link is not None else None
                reason = f" ({problem})" if problem else ""
                _say(f"waiting for the broker at {broker.url}{reason}; events are kept until it answers")
            if token_note:
                _say(token_note)
            panel = _start_panel(config, broker, stop, boards_dir(args.config, config.journal.path), service)
            while not stop.wait(3600):
                pass
            if service.failure is not None:
                print(f"gravekeeper run: {service.failure}", file=sys.stderr)
            _say("stopping")
        finally:
            if panel is not None:
                panel.close()
            service.stop()
            broker.close()
    return EXIT_TABLE_TAKEN if service.failure is not None else 0


def boards_dir(config_file: str | None, journal_path: str) -> str:
    """Where the panel keeps owners' boards: beside the config file, else beside the journal."""
    base = Path(config_file).resolve().parent if config_file else Path(journal_path).resolve().parent
    return str(base / "boards")


def _start_panel(config: Any, broker: Any, stop: threading.Event, boards: str, service: Any) -> Any:
    if not config.panel.enabled:
        _say("panel: disabled (panel.enabled = false)")
        return None
    from controller.store.token_file import panel_state_dir

    mqtt = config.mqtt
    settings = {
        "broker_host": broker.host, "broker_port": broker.port, "broker_username": mqtt.username,
        "broker_password": mqtt.password, "broker_tls": broker.tls, "broker_ca_file": mqtt.ca_file,
        "base_topic": mqtt.base_topic, "listen_host": config.panel.host, "listen_port": config.panel.port,
        "token": config.table.token, "home_table": config.table.id,
        "broker_mqtt5": broker.embedded is None,  # amqtt speaks MQTT 3.1.1 only
        # Beside the journal: the panel's cookie key and sessions, so a restart logs nobody out.
        "state_dir": str(panel_state_dir(config.journal.path)),
        "boards_dir": boards,
        "public_names": list(config.panel.public_names),
        "heartbeat_s": heartbeat_for(config.panel.hang_timeout),  # the supervisor restarts one that hangs
    }
    try:
        panel = PanelProcess(settings, stop)
    except PanelStopped:
        return None
    except PanelPortBusy as exc:
        _say(f"panel: {busy_line(exc, config.panel.port, '--port')} (or panel.port in the config). "
             "The controller runs without the panel")
        return None
    except OSError as exc:
        _say(f"panel: {exc}; set panel.port to a free port. The controller runs without it")
        return None
    for line in where_lines(panel, config.table.id):
        if "\n" in line:  # the QR code: drawn as it is, with no prefix to break its rows
            print(line, flush=True)
        else:
            _say(line)
    # A panel that dies is started again; the controller shows how it fares in its health.
    supervisor = PanelSupervisor(panel, settings, _say, on_change=lambda: _publish_health(service),
                                 hung_after=config.panel.hang_timeout)
    service.panel_health = supervisor.health  # the health topic says how the panel child fares
    _publish_health(service)
    return supervisor


def _publish_health(service: Any) -> None:
    # The controller busy (TimeoutError): its next periodic health says it.
    with contextlib.suppress(TimeoutError):
        service.call(lambda s: s.views.publish_health())


def keep_token(config: Any, *, renew: bool) -> tuple[Any, str | None]:
    """The config with its generated token kept beside the journal; and the line to print about it.

    A configured ``table.token`` is used as it is (and ``--new-token`` is refused: change it there).
    """
    from dataclasses import replace

    from controller.store.token_file import TokenFileError, make_token, write_token

    table = config.table
    if not table.token_generated:
        if renew:
            raise UsageError("--new-token: the config sets table.token; change it there")
        return config, None
    assert table.token_file is not None
    path = Path(table.token_file)
    token = make_token() if renew else table.token
    if renew or not table.token_kept:
        try:
            write_token(path, token)
        except TokenFileError as exc:
            raise UsageError(str(exc)) from None
    if renew:
        how = f"new, kept in {path}: every join code has changed, and referees log in with it"
    elif table.token_kept:
        how = f"kept in {path} since the first start, so join codes survive a restart; --new-token makes a new one"
    else:
        how = f"made now and kept in {path}, so join codes survive a restart; --new-token makes a new one"
    note = f"control token: {token}  ({how})"
    return replace(config, table=replace(table, token=token, token_kept=True)), note
