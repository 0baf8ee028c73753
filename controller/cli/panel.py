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
from controller.cli.panel_process import (
    PanelPortBusy,
    PanelProcess,
    PanelSettingsRefused,
    PanelStopped,
    busy_line,
    heartbeat_for,
    where_lines,
)
from controller.config import PANEL_HANG_TIMEOUT_RANGE, PANEL_HANG_TIMEOUT_S
from gravekeeper.signals import StopOnSignals


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL",
                        help="mqtt[s]://[user[:password]@]host[:port] (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, metavar="N",
                        help="HTTP port to listen on; 0 picks a free one (default: %(default)s)")
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on: 0.0.0.0, every interface, lets phones reach it; "
                             "127.0.0.1 this machine only (default: %(default)s)")
    parser.add_argument("--base-topic", default="gravekeeper", metavar="TOPIC",
                        help="MQTT base topic (default: %(default)s)")
    parser.add_argument("--token", default=None, metavar="T",
                        help="control token of every table (default: $GRAVEKEEPER_TOKEN; none: read-only)")
    parser.add_argument("--table-token", action="append", default=[], metavar="TABLE=T",
                        help="control token of one table (repeatable)")
    parser.add_argument("--ca-file", default=None, metavar="FILE", help="CA bundle for an mqtts:// broker")
    parser.add_argument("--table", default=None, metavar="ID",
                        help="the table whose join page the printed QR code opens (default: the table list)")
    parser.add_argument("--state-dir", default=None, metavar="DIR",
                        help="where the panel keeps its cookie key and sessions, so a restart logs nobody out "
                             "(default: $XDG_STATE_HOME/gravekeeper/panel)")
    parser.add_argument("--hang-timeout", type=_hang_timeout, default=PANEL_HANG_TIMEOUT_S, metavar="S",
                        help="seconds the panel may serve no page (hung) before it is stopped with status 1, for "
                             "its service manager to start again ({} to {}; default: %(default)s)"
                             .format(*PANEL_HANG_TIMEOUT_RANGE))
    parser.add_argument("--boards-dir", default=None, metavar="DIR",
                        help="where the board editor keeps owners' boards (default: no saving; docs/boards.md)")


def _hang_timeout(text: str) -> int:
    try:
        seconds = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    low, high = PANEL_HANG_TIMEOUT_RANGE
    if not low <= seconds <= high:
        raise argparse.ArgumentTypeError(f"{seconds} is not from {low} to {high} seconds")
    return seconds


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
        "state_dir": args.state_dir or _default_state_dir(),
        "heartbeat_s": heartbeat_for(args.hang_timeout),  # watched below: a panel that hangs is stopped
    }
    if args.table is not None:
        settings["home_table"] = args.table
    if args.ca_file is not None:
        settings["broker_ca_file"] = args.ca_file
    if args.boards_dir is not None:
        settings["boards_dir"] = args.boards_dir
    return settings


def _default_state_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "gravekeeper", "panel")


# the start of a refused setting's message -> the option that sets it
_OPTION_OF = {"broker_": "--broker", "listen_port": "--port", "listen_host": "--host",
              "base_topic": "--base-topic", "tokens": "--table-token", "token": "--token",
              "state_dir": "--state-dir", "home_table": "--table", "boards_dir": "--boards-dir"}


def main(args: argparse.Namespace) -> int:
    settings = build_settings(args)
    stop = threading.Event()
    with StopOnSignals(stop, (signal.SIGTERM,)):  # Ctrl-C stays a KeyboardInterrupt
        try:
            panel = PanelProcess(settings, stop)
        except PanelStopped:
            return 0
        except PanelSettingsRefused as exc:
            name = next((opt for key, opt in _OPTION_OF.items() if str(exc).startswith(key)), "--broker")
            raise UsageError(f"{name}: {exc}") from None
        except PanelPortBusy as exc:
            raise UsageError(f"--port: {busy_line(exc, args.port, '--port')}") from None
        except OSError as exc:
            raise UsageError(f"--port: {exc}") from None
        print(f"gravekeeper panel: {panel.url} (broker {args.broker}, "
              f"{'controls enabled' if settings['token'] or settings['tokens'] else 'read-only: no token'})",
              flush=True)
        for line in where_lines(panel, args.table)[1:]:
            print(line if "\n" in line else f"gravekeeper panel: {line}", flush=True)
        status = 0
        try:
            while not stop.wait(0.5):
                code = panel.exited()
                if code is not None:
                    print(f"gravekeeper panel: the panel process ended (status {code})", file=sys.stderr)
                    status = 1
                    break
                hung = panel.kill_if_hung(args.hang_timeout)
                if hung is not None:
                    # Hung, not dead: the phones would wait on it for ever. Stopped with status 1, so that
                    # its service manager (Restart=on-failure) starts it again, as for one that died.
                    print(f"gravekeeper panel: the panel {hung}; stopping it", file=sys.stderr)
                    status = 1
                    break
        except KeyboardInterrupt:
            pass
        finally:
            panel.close()
        print("gravekeeper panel: stopped", file=sys.stderr)
        return status
