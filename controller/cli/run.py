"""``gravekeeper run``: the controller, its broker (found or embedded) and the panel.

Prints one line per part as it comes up: the broker, "online", the panel's
address, and the control token when none was configured (it is made afresh at
each start, so the person at the panel needs to see it). Stops cleanly on
SIGTERM or Ctrl-C: "offline" is published, the journal is closed, threads are
joined.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sqlite3
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from controller.cli import UsageError
from controller.cli.panel_process import PanelProcess, PanelStopped

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
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="how much to log on stderr (default: info)")


def _say(text: str) -> None:
    print(f"gravekeeper: {text}", flush=True)


def main(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, load_config

    overrides = {"simulate": args.simulate, "table.game": args.game, "table.id": args.table, "mqtt.url": args.broker}
    try:
        config = load_config(args.config, overrides=overrides)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from controller.broker import BrokerError, choose_broker
    from controller.journal import JournalError
    from controller.service import Service, ServiceError

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
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
            playing = service.call(lambda s: s._game_name())
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
            if config.table.token_generated:
                _say(f"control token: {config.table.token}  (made for this run; set table.token to keep one)")
            panel = _start_panel(config, broker, stop, boards_dir(args.config, config.journal.path))
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
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return EXIT_TABLE_TAKEN if service.failure is not None else 0


def boards_dir(config_file: str | None, journal_path: str) -> str:
    """Where the panel keeps owners' boards: beside the config file, else beside the journal."""
    base = Path(config_file).resolve().parent if config_file else Path(journal_path).resolve().parent
    return str(base / "boards")


def _start_panel(config: Any, broker: Any, stop: threading.Event, boards: str) -> Any:
    if not config.panel.enabled:
        _say("panel: disabled (panel.enabled = false)")
        return None
    mqtt = config.mqtt
    settings = dict(
        broker_host=broker.host, broker_port=broker.port, broker_username=mqtt.username,
        broker_password=mqtt.password, broker_tls=broker.tls, broker_ca_file=mqtt.ca_file,
        base_topic=mqtt.base_topic, listen_host=config.panel.host, listen_port=config.panel.port,
        token=config.table.token,
        broker_mqtt5=broker.embedded is None,  # amqtt speaks MQTT 3.1.1 only
        boards_dir=boards,
    )
    try:
        panel = PanelProcess(settings, stop)
    except PanelStopped:
        return None
    except OSError as exc:
        _say(f"panel: {exc}; set panel.port to a free port. The controller runs without it")
        return None
    _say(f"panel: {panel.url}")
    return panel
