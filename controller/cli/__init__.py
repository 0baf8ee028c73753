"""The ``gravekeeper`` command line.

Each sub-command lives in its own module of this package (``run``, ``play``,
``replay``, ``selftest``, ``mcu_sim``, ``panel``), with two functions:
``add_arguments(parser)`` and ``main(args) -> int``. Modules are imported only
when their sub-command runs, so a slow import (Flask, paho) does not slow the
others.

Bad arguments or bad config exit with status 2 and one line naming the option
or key, which is what argparse does and what :class:`UsageError` is for.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from controller import __version__
from gravekeeper.errors import GravekeeperError

# sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("controller.cli.run", "run the controller and the panel"),
    "play": ("controller.cli.play", "play a game in the terminal, without hardware"),
    "replay": ("controller.cli.replay", "print or verify a game from its journal"),
    "selftest": ("controller.cli.selftest", "check the board's wiring and the service's parts"),
    "mcu-sim": ("controller.cli.mcu_sim", "run a virtual microcontroller on a pseudo-terminal"),
    "panel": ("controller.cli.panel", "run the web panel alone, against a broker"),
}


class UsageError(GravekeeperError):
    """A bad option or config key: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (the contract), not the usage text plus a line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gravekeeper",
        description="Companion controller and referee for three graveyard board games.",
    )
    parser.add_argument("--version", action="version", version=f"gravekeeper {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            p.set_defaults(_missing=True)
            continue
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_missing", False):
        print(f"gravekeeper: '{args.command}' is not available in this build", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.main(args) or 0)
    except UsageError as exc:
        print(f"gravekeeper {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``gravekeeper replay J | head``): not our error. Point stdout
        # at /dev/null so the interpreter's final flush does not raise a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
