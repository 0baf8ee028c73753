"""``gravekeeper panel``: the web panel alone, against a broker that tables already use."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING

from controller.cli import UsageError

if TYPE_CHECKING:
    from web_panel.settings import PanelSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL",
                        help="mqtt[s]://[user[:password]@]host[:port] (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, metavar="N",
                        help="HTTP port to listen on; 0 picks a free one (default: %(default)s)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 0.0.0.0 for every interface (default: %(default)s)")
    parser.add_argument("--base-topic", default="gravekeeper", metavar="TOPIC",
                        help="MQTT base topic (default: %(default)s)")
    parser.add_argument("--token", default=None, metavar="T",
                        help="control token of every table (default: $GRAVEKEEPER_TOKEN; none: read-only)")
    parser.add_argument("--table-token", action="append", default=[], metavar="TABLE=T",
                        help="control token of one table (repeatable)")
    parser.add_argument("--ca-file", default=None, metavar="FILE", help="CA bundle for an mqtts:// broker")


def build_settings(args: argparse.Namespace) -> PanelSettings:
    from web_panel.settings import PanelSettings, SettingsError, parse_broker_url

    tokens: dict[str, str] = {}
    for item in args.table_token:
        table, sep, tok = item.partition("=")
        if not sep or not table or not tok:
            raise UsageError(f"--table-token {item!r} must look like TABLE=TOKEN")
        tokens[table] = tok
    try:
        broker = parse_broker_url(args.broker)
        return PanelSettings(
            **broker,
            broker_ca_file=args.ca_file,
            base_topic=args.base_topic,
            listen_host=args.host,
            listen_port=args.port,
            token=args.token or os.environ.get("GRAVEKEEPER_TOKEN") or None,
            tokens=tokens,
        )
    except SettingsError as exc:
        option = {"broker_": "--broker", "listen_port": "--port", "listen_host": "--host",
                  "base_topic": "--base-topic", "tokens": "--table-token", "token": "--token"}
        name = next((opt for key, opt in option.items() if str(exc).startswith(key)), "--broker")
        raise UsageError(f"{name}: {exc}") from None


def main(args: argparse.Namespace) -> int:
    from web_panel.server import start_panel

    settings = build_settings(args)
    try:
        panel = start_panel(settings)
    except OSError as exc:
        raise UsageError(f"--port: cannot listen on {settings.listen_host}:{settings.listen_port}: {exc.strerror}") \
            from None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"gravekeeper panel: {panel.url} (broker {settings.broker_host}:{settings.broker_port}, "
          f"{'controls enabled' if settings.token or settings.tokens else 'read-only: no token'})", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        panel.close()
    print("gravekeeper panel: stopped", file=sys.stderr)
    return 0
