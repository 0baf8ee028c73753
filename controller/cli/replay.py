"""``gravekeeper replay JOURNAL``: print a game from its journal, or verify it.

Exit status: 0 when everything replays (or the journal is printed), 1 when a
recorded event is not reproduced (with ``--verify``), 2 with one line for a
missing or unreadable journal or a bad ``--table``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from typing import Any

from controller.cli import UsageError
from controller.referee.replay import replay
from controller.store.journal import Journal, JournalError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", metavar="JOURNAL", help="the journal file (see journal.path in docs/config.md)")
    parser.add_argument(
        "--verify", action="store_true", help="check that replaying the inputs reproduces every recorded event"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--table", metavar="ID", help="the table to replay, when the file holds several")


def _open(path: str, table: str | None) -> Journal:
    journal = Journal(path, table=table or "", create=False)
    tables = journal.tables()
    if table is None:
        if len(tables) > 1:
            journal.close()
            raise UsageError(f"{path} holds several tables ({', '.join(tables)}): choose one with --table")
        journal.table = tables[0] if tables else ""
    elif table not in tables:
        journal.close()
        raise UsageError(f"--table: {path} holds no table {table!r} (it has: {', '.join(tables) or 'none'})")
    return journal


def _clock(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def main(args: argparse.Namespace) -> int:
    try:
        journal = _open(args.journal, args.table)
    except JournalError as exc:
        raise UsageError(str(exc)) from None
    steps: list[dict[str, Any]] = []
    divergences: list[str] = []
    n_inputs = n_events = 0
    quiet = args.verify or args.json  # verifying prints only what diverged
    with journal:
        try:
            for step in replay(journal):
                n_inputs += 1
                n_events += len(step.events)
                if step.divergence:
                    divergences.append(step.divergence)
                if args.json and not args.verify:
                    public = [{k: e[k] for k in ("seq", "type", "time", "data")} for e in step.events]
                    steps.append(
                        {"id": step.id, "kind": step.kind, "time": step.time, "text": step.text,
                         "events": public, "divergence": step.divergence}
                    )
                if not quiet:
                    print(f"{_clock(step.time)}  {step.text}")
                    for event, said in zip(step.events, step.said, strict=True):
                        print(f"    #{event['seq']} {said}")
                if step.divergence and not args.json:
                    print(f"!! {step.divergence}")
        except (JournalError, sqlite3.DatabaseError) as exc:
            raise UsageError(f"{args.journal}: cannot be read to the end: {exc}") from None
    ok = not divergences
    if args.json:
        report: dict[str, Any] = {
            "table": journal.table, "inputs": n_inputs, "events": n_events, "ok": ok, "divergences": divergences,
        }
        if not args.verify:
            report["steps"] = steps
        print(json.dumps(report, indent=None if args.verify else 2))
    elif n_inputs == 0:
        # Silence would look like a failure (or a hang); say why there is nothing to show.
        whose = f" for table {journal.table!r}" if journal.table else ""
        print(f"{args.journal}: nothing recorded yet{whose}")
    elif args.verify:
        if ok:
            print(f"verified: {n_inputs} inputs reproduce all {n_events} recorded events")
        else:
            print(f"diverged: {len(divergences)} of {n_inputs} inputs do not reproduce their events")
    return 1 if args.verify and not ok else 0
