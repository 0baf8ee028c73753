"""The club load generator stays runnable: a tiny club's events reach the outside subscriber and the phones."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("procs", [0, 2])
def test_bench_club_small_run_times_events_at_both_observers(procs: int) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_club.py"), "--tables", "3", "--seconds", "2",
         "--one-seconds", "2", "--pace", "0.25", "--warmup", "1", "--phones", "1", "--open", "2",
         "--switch-ms", "0.5", "--freeze-gc", "--procs", str(procs),
         # One table in a worker: its stamps cross a process; two rounds: the cases' samples are pooled.
         *(["--stages"] if procs else ["--rounds", "2", "--tcp-nodelay"])],
        capture_output=True, text=True, timeout=240, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # A table that failed to decide logs it and plays on: the figures would be of a broken club.
    assert "Traceback" not in proc.stderr, proc.stderr
    one, many = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (one["tables"], many["tables"]) == (1, 3)
    assert (one["open"], many["open"]) == (1, 2)  # the panel watches the open tables only
    assert (one["procs"], many["procs"]) == (1, max(procs, 1))
    for case in (one, many):
        assert case["events"] > 0 and case["sse_events"] > 0, case
        assert case["sse_streams"] == case["open"] + 1  # one phone a table whose page is open, and the club list
        assert case["list_lines"] > 0  # the club list got one line per change
        assert case["counts"]["events"] == case["events"]
        assert case["gc_collections"] >= 0 and case["gc_longest_ms"] >= 0
        assert case["flips"] > 0 and case["controller_cpu_pct_per_table"] > 0 and case["rss_peak_mib"] > 0
    assert "event p99 at an outside subscriber" in proc.stdout and "load average" in proc.stdout
    assert "GIL switch interval 0.5 ms, gc.freeze on" in proc.stdout
    assert ("2 worker processes" if procs else "tables in this process") in proc.stdout
    if procs:  # the events the subscriber timed were matched with their stamps from the tables' processes
        matched = re.search(r"3 tables: stages of (\d+) events", proc.stdout)
        assert matched and int(matched.group(1)) > 0 and "publish -> written" in proc.stdout
    else:
        assert "2 rounds alternated" in proc.stdout and one["rounds"] == many["rounds"] == 2
        assert "broker set_tcp_nodelay true" in proc.stdout
