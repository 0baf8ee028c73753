"""From the board to the screen: a settled sensor input to a player's page showing it, beside the MQTT event.

The target (issue 30): board-to-screen p99 at most the event's own p99 at an
outside MQTT subscriber plus one frame (16.7 ms), both measured on the same
samples in one run. Starts its own Mosquitto on a free loopback port, the real
controller service in this process (simulated board, Terror with four players,
mismatch grace 0, journal on disk as ``bench_edge_to_event.py`` has it), the
panel as ``gravekeeper panel`` in a process of its own (whatever server that
command runs), and Chromium (Playwright, ``/usr/bin/chromium``) with the
referee's page and eight player pages, each in its own browser context (two
phones for each of the four seats).

Each sample flips the Headless Ghost launcher; the referee calls a foul (or
clears it) and the event goes out. The outside subscriber (a process of its
own, ``bench_edge_to_event.Receiver``) stamps its arrival; on each player page
a MutationObserver stamps the moment the page shows or hides "The board does
not match the game", which the page does in the animation frame after the
stream brought the change (``web_panel/static/live.js`` draws in
``requestAnimationFrame``). Both are measured from the moment the debouncer
settled the input. Page stamps (``performance.timeOrigin + performance.now()``)
are put on this process's clock by round trips, taking the one of least delay.

The stages between, to see where the time goes: the table's new state at the
outside subscriber; the event at a raw reader of the table's stream (a process
of its own: the panel's hop alone), and the state there; the event and the state messages reaching
each player page (stamped as the page's ``EventSource`` hands them over); and,
per page, from its event message to the notice changed (the page's own part).

``--split-cpus`` keeps the table's side (the broker, the controller, the panel, the outside subscriber and
the raw reader) on the first CPU and the browser on the others, as at a table, where the phones are
machines of their own: it tells the table's own part of the time from the browser's share of one machine.

``--own-devices`` stands in for a table, where each phone is a device of its own: the table's side on the
first CPU (as ``--split-cpus``), and the referee's page and seven of the eight phones, once logged in and
joined in Chromium, go on as their streams only (each read, with its page's session, by a process on the
browser's CPUs: the panel serves all nineteen as before, with each seat's sealed view), so that one phone
page (``--device``: 1, the first seat's first phone, unless told) renders on a CPU that no other page draws
on. It measures what one phone at a
full table would see; it is not the target's own run, where all nine pages draw on one machine.

``--phones`` also runs the "many phones" case: ``bench_sse.py`` with that many
SSE clients spread over ``--phone-tables`` tables on a panel of their own
(event p99 target 100 ms, and the panel's memory per client).

Usage: ``python bench/bench_board_to_screen.py [--samples N] [--gap-ms MS] [--split-cpus | --own-devices]
[--phones N] [--phone-tables N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_sse  # noqa: E402 - after the path is set
from bench_edge_to_event import BenchService, Receiver, pct, start_mosquitto  # noqa: E402

from controller.config import load_config  # noqa: E402
from controller.mqtt.broker import BrokerChoice  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TABLE = "bench-screen"
TOKEN = "bench-screen-token"
FRAME_MS = 1000 / 60
PLAYERS = ["Ann", "Bob", "Cy", "Di"]
PHONES_PER_SEAT = 2
PHONE = {"width": 390, "height": 844}

# On every player page: the moments the mismatch notice is shown or hidden, on the page's clock.
STAMPER = """
(() => {
  window.__b2s = [];
  window.__b2sState = [];  // when each "state" message of the stream reached the page
  window.__b2sEvent = [];  // when each "event" message of the stream reached the page
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, listener, ...rest) {
    if (type === "state" || type === "event") {
      const inner = listener, into = type === "state" ? window.__b2sState : window.__b2sEvent;
      listener = function (e) {
        into.push(performance.timeOrigin + performance.now());
        return inner.call(this, e);
      };
    }
    return add.call(this, type, listener, ...rest);
  };
  const arm = () => {
    const el = document.getElementById("mismatch");
    if (!el) return;
    let shown = !el.hidden;
    new MutationObserver(() => {
      const now = performance.timeOrigin + performance.now();
      if (!el.hidden !== shown) { shown = !el.hidden; window.__b2s.push([shown, now]); }
    }).observe(el, {attributes: true, attributeFilter: ["hidden"]});
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", arm); else arm();
})();
"""


# The panel's hop alone: a raw reader of the table's public stream, in a process of its own (as the
# outside subscriber is), stamps each "event" message with the monotonic clock as it arrives.
SSE_READER = """
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s.sendall(("GET /t/" + sys.argv[2] + "/stream HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n").encode())
buf = b""
while True:
    chunk = s.recv(65536)
    now = time.monotonic()
    if not chunk:
        break
    buf += chunk
    while b"\\n\\n" in buf:
        block, buf = buf.split(b"\\n\\n", 1)
        for kind in (b"event", b"state"):  # after the chunk's length (the response is chunked)
            if b"event: " + kind + b"\\n" in block:
                print(kind.decode(), now, flush=True)
"""


# The other devices at the table (``--own-devices``): each stream a page had open, read with that page's
# session and thrown away. Prints each stream's HTTP status line once its head is read.
DEVICES_READER = """
import json, selectors, socket, sys
port, streams = int(sys.argv[1]), json.loads(sys.argv[2])
sel = selectors.DefaultSelector()
heads = {}
for path, cookie in streams:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("GET " + path + " HTTP/1.1\\r\\nHost: 127.0.0.1:" + str(port) + "\\r\\nCookie: " + cookie
               + "\\r\\nAccept: text/event-stream\\r\\n\\r\\n").encode())
    heads[s] = b""
    sel.register(s, selectors.EVENT_READ)
while sel.get_map():
    for key, _ in sel.select():
        s = key.fileobj
        data = s.recv(65536)
        if not data:
            sel.unregister(s)
            continue
        if s in heads:
            heads[s] += data
            if b"\\r\\n" in heads[s]:
                print(heads.pop(s).split(b"\\r\\n", 1)[0].decode(errors="replace"), flush=True)
"""


class DevicesReader:
    """``DEVICES_READER`` in a process of its own: ``statuses`` of the streams it holds, as they answer."""

    def __init__(self, port: int, streams: list[tuple[str, str]]) -> None:
        self.statuses: list[str] = []
        self.answered = threading.Event()
        self.proc = subprocess.Popen([sys.executable, "-c", DEVICES_READER, str(port), json.dumps(streams)],
                                     stdout=subprocess.PIPE, text=True)

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.statuses.append(line.strip())
                if len(self.statuses) == len(streams):
                    self.answered.set()

        threading.Thread(target=read, name="devices-reader", daemon=True).start()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


class SseReader:
    """The table's public stream read by ``SSE_READER``: ``arrivals`` of its event and state messages."""

    def __init__(self, port: int, table: str) -> None:
        self.arrivals: dict[str, list[float]] = {"event": [], "state": []}
        self.proc = subprocess.Popen([sys.executable, "-c", SSE_READER, str(port), table],
                                     stdout=subprocess.PIPE, text=True)

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                kind, at = line.split()
                self.arrivals[kind].append(float(at))

        threading.Thread(target=read, name="sse-reader", daemon=True).start()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def wall_minus_mono() -> float:
    """time.time() - time.monotonic(), read where the two reads are closest together."""
    best = None
    for _ in range(50):
        a = time.monotonic()
        w = time.time()
        b = time.monotonic()
        if best is None or b - a < best[0]:
            best = (b - a, w - (a + b) / 2)
    assert best is not None
    return best[1]


def page_offset(page: Any) -> tuple[float, float]:
    """(page clock - this process's wall clock in ms, the round trip it was read in, ms)."""
    best = None
    for _ in range(15):
        t0 = time.time()
        at = page.evaluate("performance.timeOrigin + performance.now()")
        t1 = time.time()
        if best is None or t1 - t0 < best[1]:
            best = (at - (t0 + t1) / 2 * 1000, (t1 - t0) * 1000)
    assert best is not None
    return best


def start_panel(port: int, hport: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "controller", "panel", "--broker", f"mqtt://127.0.0.1:{port}",
                             "--host", "127.0.0.1", "--port", str(hport), "--token", TOKEN], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bench_sse.wait_port(hport, 20)
    return proc


STREAMS: dict[Any, list[str]] = {}  # page -> the paths of the live streams it opened


def note_streams(page: Any) -> None:
    STREAMS[page] = []
    page.on("request", lambda r: STREAMS[page].append("/" + r.url.split("/", 3)[3])
            if r.url.split("?")[0].endswith("/stream") else None)


def to_devices(pages: list[Any], port: int) -> DevicesReader:
    """``--own-devices``: the pages' streams read by a process, each with its page's session, and the pages
    closed (a page's streams are its stream requests, the last of each path: the ones open now)."""
    streams: list[tuple[str, str]] = []
    for page in pages:
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
        streams += [(path, cookie) for path in dict.fromkeys(STREAMS[page])]
    for page in pages:
        page.context.close()
    devices = DevicesReader(port, streams)
    if not devices.answered.wait(20) or any(" 200 " not in f"{s} " for s in devices.statuses):
        raise SystemExit(f"the other devices' streams were not all served: {devices.statuses}")
    print(f"the other devices: {len(streams)} streams of {len(pages)} pages, read with their sessions")
    return devices


def open_pages(browser: Any, url: str) -> tuple[Any, list[Any]]:
    """The referee's page, logged in, and two player pages per seat, each joined with the seat's code."""
    # Playwright's waits are eval()ed strings, which the panel's CSP refuses.
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    referee = ctx.new_page()
    note_streams(referee)
    referee.set_default_timeout(30000)
    referee.goto(f"{url}/t/{TABLE}")
    referee.fill("#login-token", TOKEN)
    referee.click("#login-submit")
    referee.wait_for_selector("#controls")
    referee.wait_for_function("document.querySelectorAll('#codes li code').length >= 4")
    codes = [c.strip() for c in referee.locator("#codes li code").all_inner_texts()]
    players = []
    for code in codes:
        for _ in range(PHONES_PER_SEAT):
            pctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)
            pctx.add_init_script(STAMPER)
            page = pctx.new_page()
            note_streams(page)
            page.set_default_timeout(30000)
            page.goto(f"{url}/t/{TABLE}/join")
            page.fill("#join-code", code)
            page.click("#join-form button[type=submit]")
            page.wait_for_url(f"**/t/{TABLE}/me")
            page.wait_for_function("document.getElementById('live-state').textContent === 'live'")
            players.append(page)
    return referee, players


def row(name: str, data: list[float]) -> str:
    if not data:
        return f"| {name} | 0 | - | - | - |"
    return f"| {name} | {len(data)} | {pct(data, 50):.1f} | {pct(data, 99):.1f} | {max(data):.1f} |"


def cpu_split(split: bool) -> tuple[set[int], set[int]] | None:
    """(the table's CPUs, the browser's) for ``--split-cpus``: the first CPU this process may use, and the rest."""
    if not split:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit(f"--split-cpus needs two CPUs or more; this process may use {len(cpus)}")
    return {cpus[0]}, set(cpus[1:])


def board_to_screen(args: argparse.Namespace, tmp: Path) -> bool:
    from playwright.sync_api import sync_playwright

    split = cpu_split(args.split_cpus or args.own_devices)
    if split is not None:
        # Set before anything starts: the broker, the controller's threads, the panel and the readers inherit it.
        os.sched_setaffinity(0, split[0])
    broker, port = start_mosquitto(tmp)
    hport = bench_sse.free_port()
    panel = svc = receiver = reader = devices = None
    topic = f"gravekeeper/{TABLE}/events"
    state_topic = f"gravekeeper/{TABLE}/state"
    try:
        receiver = Receiver(port, [topic, state_topic])
        cfg = load_config(None, overrides={
            "simulate": True, "table.id": TABLE, "table.token": TOKEN, "table.game": "terror",
            "table.players": PLAYERS,
            "journal.path": str(tmp / "bench.journal"), "mqtt.url": f"mqtt://127.0.0.1:{port}",
            "referee.mismatch_grace_ms": 0, "panel.enabled": False,
        })
        svc = BenchService(cfg, BrokerChoice("127.0.0.1", port, False))
        svc.observed = []
        svc.start()
        if not svc.wait_online(10):
            raise SystemExit("controller did not come online")
        receiver.wait_count(topic, 1)  # game_started
        panel = start_panel(port, hport)
        if split is not None:
            os.sched_setaffinity(0, split[1])  # Playwright's driver, and the browser it starts, inherit this
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            if split is not None:
                os.sched_setaffinity(0, split[0])
            try:
                referee, players = open_pages(browser, f"http://127.0.0.1:{hport}")
                if args.own_devices:
                    assert split is not None
                    os.sched_setaffinity(0, split[1])  # the devices' reader stands in for other machines
                    drawn = players[args.device - 1]
                    devices = to_devices([referee, *(p for p in players if p is not drawn)], hport)
                    os.sched_setaffinity(0, split[0])
                    referee, players = None, [drawn]
                reader = SseReader(hport, TABLE)
                hidden = sum(bool(p.evaluate("document.hidden")) for p in [referee, *players] if p is not None)
                shift = wall_minus_mono()
                before = [page_offset(p) for p in players]
                value = ["armed"]
                pause = threading.Event()
                gap = args.gap_ms / 1000
                outside: list[float] = []
                outside_state: list[float] = []
                settled_monos: list[float] = []
                settled_walls: list[float] = []
                looks: list[bool] = []
                screen: list[list[float]] = [[] for _ in players]
                for i in range(args.samples + args.warmup):
                    n = len(receiver.arrivals[topic])
                    k = len(svc.observed)
                    value[0] = "armed" if value[0] == "launched" else "launched"
                    svc.hub.simulate("launcher", value[0])
                    receiver.wait_count(topic, n + 1)
                    settled = svc.observed[k][1]
                    if i >= args.warmup:
                        outside.append((receiver.arrivals[topic][n] - settled) * 1000)
                        settled_walls.append((settled + shift) * 1000)
                        settled_monos.append(settled)
                        looks.append(value[0] == "launched")  # the notice shown after a foul, hidden after
                    pause.wait(gap)
                after = [page_offset(p) for p in players]
                raw: dict[str, list[float]] = {"event": [], "state": []}
                for kind, into in raw.items():
                    came = sorted(reader.arrivals[kind])
                    for mono in settled_monos:
                        later = [t for t in came if t >= mono]
                        if later:
                            into.append((later[0] - mono) * 1000)
                with receiver.cond:
                    states = sorted(receiver.arrivals[state_topic])
                for settled_ms in settled_walls:
                    mono = settled_ms / 1000 - shift
                    later = [t for t in states if t >= mono]
                    if later:
                        outside_state.append((later[0] - mono) * 1000)
                sse_state: list[float] = []
                sse_event: list[float] = []
                on_page: list[float] = []
                misses = 0
                for j, page in enumerate(players):
                    offset = (before[j][0] + after[j][0]) / 2
                    # Each sample takes the first change, after it settled, to the look it causes: a page
                    # that fell behind and drew two changes in one frame shows the later one only, and
                    # the sample before it is counted as missed, not matched to another sample's change.
                    stamps = [(shown, at - offset) for shown, at in page.evaluate("window.__b2s")]
                    events_in = sorted(t - offset for t in page.evaluate("window.__b2sEvent"))
                    at = 0
                    for settled_ms, look in zip(settled_walls, looks, strict=True):
                        while at < len(stamps) and (stamps[at][1] < settled_ms or stamps[at][0] != look):
                            at += 1
                        if at == len(stamps):
                            misses += 1
                            continue
                        screen[j].append(stamps[at][1] - settled_ms)
                        came = [t for t in events_in if settled_ms <= t <= stamps[at][1]]
                        if came:  # the page's own part: from the event message to the notice changed
                            on_page.append(stamps[at][1] - came[0])
                        at += 1
                    for name, into in (("__b2sState", sse_state), ("__b2sEvent", sse_event)):
                        arrived = sorted(t - offset for t in page.evaluate(f"window.{name}"))
                        for settled_ms in settled_walls:
                            later = [t for t in arrived if t >= settled_ms]
                            if later:
                                into.append(later[0] - settled_ms)
            finally:
                browser.close()
    finally:
        if panel is not None:
            panel.send_signal(signal.SIGTERM)
            try:
                panel.wait(10)
            except subprocess.TimeoutExpired:
                panel.kill()
        if reader is not None:
            reader.close()
        if devices is not None:
            devices.close()
        if svc is not None:
            svc.stop()
        if receiver is not None:
            receiver.close()
        broker.terminate()
        broker.wait(5)
        if split is not None:
            os.sched_setaffinity(0, split[0] | split[1])  # the many-phones case after this has every CPU
    pooled = [x for page in screen for x in page]
    drift = max(abs(a[0] - b[0]) for a, b in zip(before, after, strict=True))
    rtt = max(b[1] for b in before + after)
    target = pct(outside, 99) + FRAME_MS
    met = bool(pooled) and misses == 0 and pct(pooled, 99) <= target
    where = "" if split is None else (f"; the table's side on CPU {sorted(split[0])}, the browser on CPUs "
                                      f"{sorted(split[1])}")
    if args.own_devices:
        print(f"own devices: player page {args.device} in Chromium, the referee's page and seven phones as their "
              f"streams, {hidden} hidden; {args.samples} samples, {args.gap_ms:g} ms apart{where}\n")
    else:
        print(f"referee's page and {len(players)} player pages ({PHONES_PER_SEAT} per seat) in Chromium, "
              f"{hidden} hidden; {args.samples} samples, {args.gap_ms:g} ms apart{where}\n")
    print("| settled input -> | samples | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(row("the event at an outside MQTT subscriber", outside))
    print(row("the table's new state at the outside subscriber", outside_state))
    print(row("the event at a raw reader of the table's stream (the panel's hop)", raw["event"]))
    print(row("the state at that raw reader", raw["state"]))
    print(row(f"the event message reaching a player page's stream ({len(players)} pooled)", sse_event))
    print(row(f"the state message reaching a player page's stream ({len(players)} pooled)", sse_state))
    print(row(f"a player's page showing it ({len(players)} pages pooled)", pooled))
    print(row("(on the page alone: its event message -> showing it)", on_page))
    for j, page_lat in enumerate(screen):
        print(row(f"player page {j + 1}", page_lat))
    print(f"\npage clocks: read in round trips of at most {rtt:.2f} ms, drifted at most {drift:.2f} ms "
          f"over the run; changes a page never showed (drawn over by a later one): {misses}")
    print(f"board to screen p99 {pct(pooled, 99):.1f} ms vs the event's p99 {pct(outside, 99):.1f} ms + one frame "
          f"({FRAME_MS:.1f} ms) = {target:.1f} ms (target: {'met' if met else 'MISSED'})")
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200, help="launcher flips measured (default 200)")
    ap.add_argument("--warmup", type=int, default=10, help="flips before the measured ones (default 10)")
    ap.add_argument("--gap-ms", type=float, default=250.0, help="pause after each flip (default 250 ms)")
    ap.add_argument("--split-cpus", action="store_true",
                    help="the table's side on the first CPU, the browser on the others (phones are other machines)")
    ap.add_argument("--own-devices", action="store_true",
                    help="as --split-cpus, and only one phone draws: the other pages go on as their streams")
    ap.add_argument("--device", type=int, default=1, choices=range(1, len(PLAYERS) * PHONES_PER_SEAT + 1),
                    metavar="N", help="with --own-devices: which phone draws, 1 to 8 (two a seat, in seat order)")
    ap.add_argument("--phones", type=int, default=500, help="SSE clients of the many-phones case (0: skip it)")
    ap.add_argument("--phone-tables", type=int, default=10, help="tables the phones are spread over")
    ap.add_argument("--phone-events", type=int, default=200, help="events of the many-phones case")
    ap.add_argument("--dir", help="directory for the journal (default: a temp dir under /tmp)")
    args = ap.parse_args()
    if args.samples < 1:
        ap.error("--samples must be at least 1")
    if args.split_cpus and args.own_devices:
        ap.error("--own-devices splits the CPUs itself: give one of --split-cpus and --own-devices")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is needed for this benchmark (apt install chromium)")
    tmp = Path(tempfile.mkdtemp(prefix="gk-bench-screen-", dir=args.dir))
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} "
          f"at the start")
    mode = " --split-cpus" if args.split_cpus else f" --own-devices --device {args.device}" if args.own_devices else ""
    print(f"command: python bench/bench_board_to_screen.py --samples {args.samples} --gap-ms {args.gap_ms:g}"
          f"{mode} --phones {args.phones} --phone-tables {args.phone_tables}\n")
    ok = board_to_screen(args, tmp)
    if args.phones > 0:
        print(f"\nmany phones: {args.phones} SSE clients over {args.phone_tables} tables on one panel "
              "(bench_sse.py; target: event p99 <= 100 ms)\n")
        sys.stdout.flush()
        ok = bench_sse.main(["--clients", str(args.phones), "--tables", str(args.phone_tables),
                             "--events", str(args.phone_events), "--rate", "20"]) == 0 and ok
    print(f"load average {os.getloadavg()[0]:.2f} after the run")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
