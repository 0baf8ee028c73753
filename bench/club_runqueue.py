"""How long the club bench's threads waited for a CPU: run beside ``bench_club.py``.

The kernel counts, for every thread, the time it was ready to run but not
running (``/proc/<pid>/task/<tid>/schedstat``: time on a CPU, time waiting on
a run queue, time slices). This samples the bench's process and all it
started (broker, panel, probes, the tables' workers) over a window and prints
each kind's CPU, its wait for a CPU, and the mean wait per time slice, which
is what a thread woken by an event pays before it can handle it.

Usage: ``python bench/club_runqueue.py BENCH_PID SECONDS`` (repeat it in a
loop for the length of a run; the number of ``club_tables.py`` workers alive
says which case is running).
"""

from __future__ import annotations

import os
import sys
import time

import psutil


def kind_of(proc: psutil.Process) -> str:
    cmd = " ".join(proc.cmdline())
    if "mosquitto" in cmd:
        return "broker"
    if "club_probes" in cmd:
        return "probe " + cmd.split("club_probes.py ", 1)[1].split()[0]
    if "club_tables" in cmd:
        return "tables"
    if "bench_club" in cmd:
        return "bench"
    return "panel"


def snapshot(root: psutil.Process) -> dict[tuple[int, str], tuple[str, int, int, int]]:
    """``(pid, tid) -> (kind, ns on a CPU, ns waiting for one, slices)`` for the bench and its children."""
    out = {}
    for proc in [root, *root.children(recursive=True)]:
        try:
            kind = kind_of(proc)
            for tid in os.listdir(f"/proc/{proc.pid}/task"):
                with open(f"/proc/{proc.pid}/task/{tid}/schedstat") as f:
                    run, wait, slices = map(int, f.read().split())
                out[(proc.pid, tid)] = (kind, run, wait, slices)
        except (psutil.Error, OSError, ValueError):
            continue  # a thread or process that ended between the listing and the read
    return out


def main() -> int:
    root, seconds = psutil.Process(int(sys.argv[1])), float(sys.argv[2])
    before = snapshot(root)
    time.sleep(seconds)  # the sampling window itself
    after = snapshot(root)
    totals: dict[str, list[int]] = {}
    for key, (kind, run, wait, slices) in after.items():
        if key in before:
            _, run0, wait0, slices0 = before[key]
            t = totals.setdefault(kind, [0, 0, 0])
            t[0] += run - run0
            t[1] += wait - wait0
            t[2] += slices - slices0
    workers = sum(1 for p in root.children(recursive=True) if "club_tables" in " ".join(p.cmdline()))
    print(time.strftime("%H:%M:%S UTC", time.gmtime()), "load", " ".join(f"{x:.1f}" for x in os.getloadavg()),
          f"workers {workers}")
    for kind, (run, wait, slices) in sorted(totals.items()):
        print(f"  {kind:12} CPU {run / 1e7 / seconds:6.1f} % of a core, waited for a CPU "
              f"{wait / 1e7 / seconds:6.1f} % of the window, {slices} slices, "
              f"mean wait per slice {wait / max(slices, 1) / 1e6:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
