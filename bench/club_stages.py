"""Where a club's slow events spend their time (``bench_club.py --stages``).

In a table's process, :func:`stamp_service` wraps a started ``Service``'s parts
to stamp each event on its way, on the system-wide monotonic clock (the same
in every process of the machine), the way ``bench_edge_to_event.py --stages``
does for one table:

* ``settled``: the debouncer decided the contact is at rest;
* ``callback``: the hub's thread hands the observation to the service;
* ``decide``: the referee starts on it (in the hub's thread, or in the worker
  when something was ahead of it);
* ``commit`` / ``committed``: the journal's write and its fsync;
* ``publish``: the event handed to paho;
* ``written``: paho's network thread writes the next bytes to the socket;
* ``arrival``: the outside subscriber has it (stamped in the probe).

Beside each stage's wall time it keeps the thread's CPU time over the decision
(``decide`` to ``committed``): wall minus CPU there is time the thread was
ready but not running (the interpreter lock held by another thread of the
process, or the CPU run queue), or waiting on the disk. Garbage-collector
pauses are kept with their start, so a slow event can be matched with one.

:func:`report` joins the stamps with the arrivals and compares the slowest
events with all of them, stage by stage.
"""

from __future__ import annotations

import threading
import time
from typing import Any

ORDER = ["settled", "callback", "decide", "commit", "committed", "publish", "written", "arrival"]


def stamp_service(svc: Any) -> dict[int, dict[str, Any]]:
    """Wrap ``svc``'s decision path; returns ``{seq: stamps}``, filled as its events go out."""
    by_seq: dict[int, dict[str, Any]] = {}
    cur: dict[str, Any] = {}
    unwritten: list[dict[str, Any]] = []
    hub, referee, journal, link = svc.hub, svc.referee, svc.journal, svc.link
    events_topic = link.topics.events
    observe, record_many, publish = referee.observe, journal.record_many, link._publish
    sock_send = link.client._sock_send
    on_obs = hub._on_observation if hasattr(hub, "_on_observation") else None

    def timed_on_observation(obs: Any) -> Any:
        if not getattr(obs, "initial", True):
            cur.clear()
            cur.update(settled=obs.settled, callback=time.monotonic())
        assert on_obs is not None
        return on_obs(obs)

    def timed_observe(obs: Any) -> Any:
        cur["decide"], cur["cpu_decide"] = time.monotonic(), time.thread_time()
        cur["inline"] = threading.current_thread().name != "gk-worker"
        return observe(obs)

    def timed_record_many(entries: Any, on_commit: Any = None) -> Any:
        cur["commit"] = time.monotonic()

        def committed() -> None:  # the journal's call once the commit returned: the events go to paho here
            cur["committed"], cur["cpu_committed"] = time.monotonic(), time.thread_time()
            on_commit()

        try:
            return record_many(entries) if on_commit is None else record_many(entries, committed)
        finally:
            if "committed" not in cur:
                cur["committed"], cur["cpu_committed"] = time.monotonic(), time.thread_time()

    def timed_publish(topic: str, data: bytes, retain: bool, seq: int | None) -> None:
        if topic == events_topic and seq is not None and "committed" in cur:
            stamps = {**cur, "publish": time.monotonic()}
            by_seq[seq] = stamps
            unwritten.append(stamps)
        publish(topic, data, retain, seq)

    def timed_send(data: Any) -> int:
        now = time.monotonic()
        while unwritten:
            unwritten.pop().setdefault("written", now)
        return int(sock_send(data))

    if on_obs is not None:
        hub._on_observation = timed_on_observation
    referee.observe = timed_observe
    journal.record_many = timed_record_many
    link._publish = timed_publish
    link.client._sock_send = timed_send
    return by_seq


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def report(name: str, arrivals: list[list[Any]], stamps: dict[str, dict[str, dict[str, Any]]],
           gc_pauses: list[list[float]], slow_share: float = 0.02) -> list[str]:
    """Lines comparing the slowest ``slow_share`` of events (decision to arrival) with all of them."""
    joined = []
    for table, seq, arrival, latency in arrivals:
        s = stamps.get(table, {}).get(str(seq))
        if s is not None:
            joined.append({**s, "arrival": arrival, "latency": latency, "table": table})
    if not joined:
        return [f"{name}: no event could be matched with its stamps"]
    joined.sort(key=lambda e: e["latency"])
    k = max(1, int(round(len(joined) * slow_share)))
    slow = joined[-k:]
    lines = [f"{name}: stages of {len(joined)} events; the slowest {k} (latency >= {slow[0]['latency']:.1f} ms) "
             "against all, ms (median of each group)"]
    for a, b in zip(ORDER, ORDER[1:], strict=False):
        def gap(e: dict[str, Any], a: str = a, b: str = b) -> float | None:
            return (e[b] - e[a]) * 1000 if a in e and b in e else None
        every = [g for e in joined if (g := gap(e)) is not None]
        worst = [g for e in slow if (g := gap(e)) is not None]
        lines.append(f"  {a:>9} -> {b:<9} all p50 {pct(every, 50):7.2f}  p99 {pct(every, 99):7.2f}   "
                     f"slowest p50 {pct(worst, 50):7.2f}  max {max(worst, default=float('nan')):7.2f}")
    cpu = [(e["cpu_committed"] - e["cpu_decide"]) * 1000 for e in slow if "cpu_committed" in e]
    wall = [(e["committed"] - e["decide"]) * 1000 for e in slow if "committed" in e]
    lines.append(f"  decision+commit of the slowest: wall p50 {pct(wall, 50):.2f} ms, its thread's CPU p50 "
                 f"{pct(cpu, 50):.2f} ms; decided in the hub's thread: {sum(1 for e in slow if e.get('inline'))}/{k}")
    pauses = sorted(gc_pauses)
    hit = 0
    for e in slow:
        t0, t1 = e.get("decide", e["arrival"]), e["arrival"]
        if any(p0 < t1 and p0 + ms / 1000 > t0 for p0, ms in pauses):
            hit += 1
    lines.append(f"  slowest events overlapping a garbage-collector pause in some table's process: {hit}/{k}")
    # Bunching: how many other events were decided within 20 ms before a slow one, anywhere in the club.
    decided = sorted(e["decide"] for e in joined if "decide" in e)

    def crowd(t: float) -> int:
        return sum(1 for d in decided if t - 0.020 <= d < t)
    lines.append(f"  events decided in the 20 ms before: slowest p50 "
                 f"{pct([crowd(e['decide']) for e in slow if 'decide' in e], 50):.0f}, "
                 f"all p50 {pct([crowd(e['decide']) for e in joined if 'decide' in e], 50):.0f}")
    for e in slow[-5:]:
        parts = ", ".join(f"{b} +{(e[b] - e[a]) * 1000:.1f}" for a, b in zip(ORDER, ORDER[1:], strict=False)
                          if a in e and b in e)
        lines.append(f"  {e['latency']:.1f} ms ({e['table']}): {parts}")
    return lines
