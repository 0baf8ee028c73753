"""``gravekeeper selftest``: is the board wired right, and are the service's parts healthy?

Text for people (each check on one line as it finishes), JSON with
``--json`` (``docs/selftest.md``). Exit status: 0 when nothing failed, 1 when
a check or step failed or timed out, 2 with one line for a bad option or
config, 3 when nothing failed but a guided step was skipped or the
walk-through was stopped early (the verdict "incomplete", which names the
steps not tested). ``--guided`` walks a person through every moving part; at each
step, ``s`` + Enter skips it and ``q`` + Enter stops the walk-through (the
remaining steps are reported as skipped). On a simulated board, Enter alone
lets the simulator make the move.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any, TextIO

from controller.cli import UsageError
from hardware.words import reading

MAX_STEP_TIMEOUT_S = 600.0
EXIT_INCOMPLETE = 3  # nothing failed, but not every part was tested: not an OK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="TOML config file (docs/config.md)")
    parser.add_argument("--simulate", action="store_true", default=None,
                        help="test a simulated board (with --fault to inject wiring faults)")
    parser.add_argument("--guided", action="store_true",
                        help="walk through every moving part, one step at a time (s + Enter skips a step)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (docs/selftest.md)")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND:TARGET",
                        help="with --simulate: inject a fault, e.g. stuck_high:trap.ladder.peg_a, "
                             "crossed:tomb.wolf.end_a,tomb.wolf.end_b, chatter:launcher, mcu:dead, "
                             "serial:corrupt, broker:down (repeatable)")
    parser.add_argument("--step-timeout", type=float, default=20.0, metavar="S",
                        help="seconds a guided step waits for its movement (default 20)")


class TerminalPerson:
    """The person at the terminal: ``s`` skips the current step, ``q`` stops, Enter (simulated board) moves it."""

    def __init__(self, stream: TextIO, board: Any, control: Any, announce: Any) -> None:
        self.board = board
        self.control = control
        self.announce = announce
        self._current: tuple[Any, Any, int] | None = None
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(stream,), name="selftest-keys", daemon=True).start()

    def act(self, step: Any, probe: Any, mark: int) -> None:
        with self._lock:
            self._current = (step, probe, mark)
        # The prompt is shown only now, so a key typed after it always meets this step.
        self.announce()

    def _read(self, stream: TextIO) -> None:
        # Keys are read on their own thread, so a step's wait never blocks on the terminal.
        for line in stream:
            key = line.strip().lower()
            if key == "s":
                self.control.skip()
            elif key == "q":
                self.control.stop()
            elif key == "" and self.board is not None:
                with self._lock:
                    current = self._current
                if current is not None:
                    from hardware.selftest.guided import SimHand

                    SimHand(self.board).act(*current)


def main(args: argparse.Namespace) -> int:
    import warnings

    from gpiozero import PinFactoryFallback  # type: ignore[import-untyped]  # gpiozero ships no types

    from controller.config import ConfigError, load_config
    from controller.service.selftest import run_selftest
    from hardware.selftest.faults import FaultError, parse_faults
    from hardware.selftest.guided import StepControl
    from hardware.selftest.report import CheckResult

    # gpiozero explains each pin library it could not load; hardware.open already says what matters.
    warnings.simplefilter("ignore", PinFactoryFallback)
    if not 0 < args.step_timeout <= MAX_STEP_TIMEOUT_S:
        raise UsageError(f"--step-timeout: must be more than 0 and at most {MAX_STEP_TIMEOUT_S:g} seconds, "
                         f"got {args.step_timeout:g}")
    try:
        config = load_config(args.config, overrides={"simulate": args.simulate})
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.fault and not config.simulate:
        raise UsageError("--fault: faults are injected into the simulated board only; add --simulate")
    try:
        faults = parse_faults(args.fault, config.hardware)
    except FaultError as exc:
        raise UsageError(str(exc)) from None

    out = sys.stdout
    control = StepControl.new()

    shown: list[dict[str, Any]] = []

    def announce() -> None:
        event = shown[-1]
        keys = "Enter: simulate it, s: skip, q: stop" if config.simulate else "s + Enter: skip, q + Enter: stop"
        # With --json the prompts go to stderr, so that stdout stays one JSON document.
        print(f"\n[{event['done']}/{event['total']} done, {event['left']} left] {event['prompt']} "
              f"({event['timeout_s']:g} s; {keys})", file=sys.stderr if args.json else out, flush=True)

    def actor(board: Any) -> Any:
        return TerminalPerson(sys.stdin, board, control, announce)

    def on_check(item: CheckResult) -> None:
        if not args.json:
            print(f"[{item.status.value.upper()}] {item.id}: {item.message}", file=out, flush=True)

    def on_progress(event: dict[str, Any]) -> None:
        if event["kind"] == "step":
            shown.append(event)  # printed by the person's act(), once the step watches the board
        elif not args.json:
            r = event["result"]
            lead = "  -> " if args.guided else f"[{r['status'].upper()}] step {r['id']}: "
            print(f"{lead}{r['status'].upper() + ': ' if args.guided else ''}{r['message']}", file=out, flush=True)

    if args.guided and not args.json:
        # The tombs' stop in the words of every step and page (hardware.words), not a word of its own.
        print("Guided self-test: do each movement when asked; the board should start at rest "
              f"(tombs {reading('end_a')}, pegs in, traps cocked, the Headless Ghost on its launcher).",
              file=out, flush=True)
    report = run_selftest(config, faults=faults, guided=args.guided, step_timeout=args.step_timeout,
                          actor=actor if args.guided else None, control=control,
                          on_progress=on_progress, on_check=on_check)
    data = report.to_json()
    note = _publish(config, data, faults)
    if args.json:
        json.dump(data, out, indent=2)
        out.write("\n")
        print(note, file=sys.stderr)
    else:
        print(note, file=out)
        # The verdict, after the steps not tested (by name), when some were skipped or never reached.
        tail = 2 if report.skipped_steps else 1
        print("\n".join(report.to_text().splitlines()[-tail:]), file=out)
    out.flush()
    return {"failed": 1, "incomplete": EXIT_INCOMPLETE}.get(report.verdict, 0)


def _publish(config: Any, data: dict[str, Any], faults: Any) -> str:
    """The last report goes on the retained health topic, when the broker let the self-test in."""
    from controller.service.selftest import publish_report
    from hardware.selftest.faults import has

    auth = next((c for c in data["checks"] if c["id"] == "broker.auth"), None)
    if has(faults, "broker") or auth is None or auth["status"] != "pass":
        return "report not published: the broker check did not pass"
    try:
        topic = publish_report(config.mqtt, config.table.id, data)
    except (OSError, ValueError) as exc:
        return f"report not published: {exc}"
    return f"report published retained on {topic}"
