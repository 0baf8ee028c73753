"""``gravekeeper panel``: the web panel alone, against a broker that tables already use.

It starts the panel exactly as ``gravekeeper run`` does, as a child process
(:mod:`controller.cli.panel_process`), so the command line imports nothing of
``web_panel``: the panel learns everything from the broker.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

from controller.cli import UsageError
from controller.cli.panel_process import PanelProcess, PanelSettingsRefused, PanelStopped


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
    parser.add_argument("--boards-dir", default=None, metavar="DIR",
                        help="where the board editor keeps owners' boards (default: no saving; docs/boards.md)")


def build_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The panel child's settings from the command line; the child checks each one."""
    tokens: dict[str, str] = {}
    for item in args.table_token:
        table, sep, tok = item.partition("=")
        if not sep or not table or not tok:
            raise UsageError(f"--table-token {item!r} must look like TABLE=TOKEN")
        tokens[table] = tok
    settings: dict[str, Any] = {
        "broker_url": args.broker,
        "base_topic": args.base_topic,
        "listen_host": args.host,
        "listen_port": args.port,
        "token": args.token or os.environ.get("GRAVEKEEPER_TOKEN") or None,
        "tokens": tokens,
    }
    if args.ca_file is not None:
        settings["broker_ca_file"] = args.ca_file
    if args.boards_dir is not None:
        settings["boards_dir"] = args.boards_dir
    return settings


# the start of a refused setting's message -> the option that sets it
_OPTION_OF = {"broker_": "--broker", "listen_port": "--port", "listen_host": "--host",
              "base_topic": "--base-topic", "tokens": "--table-token", "token": "--token",
              "boards_dir": "--boards-dir"}


def main(args: argparse.Namespace) -> int:
    settings = build_settings(args)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        panel = PanelProcess(settings, stop)
    except PanelStopped:
        return 0
    except PanelSettingsRefused as exc:
        name = next((opt for key, opt in _OPTION_OF.items() if str(exc).startswith(key)), "--broker")
        raise UsageError(f"{name}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"--port: {exc}") from None
    print(f"gravekeeper panel: {panel.url} (broker {args.broker}, "
          f"{'controls enabled' if settings['token'] or settings['tokens'] else 'read-only: no token'})", flush=True)
    status = 0
    try:
        while not stop.wait(0.5):
            code = panel.exited()
            if code is not None:
                print(f"gravekeeper panel: the panel process ended (status {code})", file=sys.stderr)
                status = 1
                break
    except KeyboardInterrupt:
        pass
    finally:
        panel.close()
    print("gravekeeper panel: stopped", file=sys.stderr)
    return status
