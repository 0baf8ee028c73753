"""The MCU checks: handshake and versions, heartbeat, ping round trip, frame error rate.

They need the :class:`~firmware_bridge.link.McuLink` itself (for ``ping`` and
its counters) next to the hub's view of the link (``health()["links"]["mcu"]``).
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from firmware_bridge.protocol import PROTOCOL_VERSION
from hardware.config import HardwareConfig
from hardware.selftest.report import CheckResult, Status

PING_COUNT = 30
PING_TIMEOUT_S = 0.1
PING_WARN_MS = 50.0
ERROR_RATE_FAIL = 0.01
HEARTBEAT_WAIT_S = 2.0  # the firmware's heartbeat is 0.5 s; the link gives up after 2 s


def _c(counters: dict[str, int], key: str) -> int:
    return int(counters.get(key, 0))


def check_mcu(config: HardwareConfig, hub: Any, link: Any) -> list[CheckResult]:
    """All MCU checks; ``link`` is the hub's McuLink (``None`` when it is not reachable from here)."""
    if config.mcu is None:
        return [CheckResult("mcu", "mcu", Status.SKIP, "no MCU configured (hardware.mcu): every input is on GPIO")]
    port = config.mcu.port
    health = hub.health()["links"]["mcu"]
    later = ("mcu.heartbeat", "mcu.ping", "mcu.errors")
    if health.get("state") != "online" or link is None or getattr(link, "hello", None) is None:
        reason = health.get("reason") or getattr(link, "last_error", "") or "no answer"
        if link is not None and not getattr(link, "connected", True):
            # The port itself would not open: absent, or held by a running controller.
            message = (f"cannot open the MCU's port {port} ({reason}): is it plugged in, or is "
                       "`gravekeeper run` using it? (use the panel's self-test page while it runs)")
        else:
            message = (f"dead MCU: no HELLO from the MCU on {port} within {config.mcu.start_timeout:g} s "
                       f"({reason}): check its power, its firmware and the USB cable")
        out = [CheckResult("mcu.handshake", "mcu", Status.FAIL, message, {"port": port})]
        return out + [CheckResult(cid, "mcu", Status.SKIP, "the MCU does not answer") for cid in later]
    hello = health.get("hello", {})
    out = [CheckResult("mcu.handshake", "mcu", Status.PASS,
                       f"firmware {hello.get('firmware')} on board {hello.get('board_id')!r}, "
                       f"{hello.get('channels')} inputs, protocol {hello.get('protocol')}", dict(hello))]
    start = dict(link.counters)
    problems = list(health.get("problems", []))
    if _c(start, "version_errors"):
        problems.append(f"{_c(start, 'version_errors')} frame(s) of another protocol version "
                        f"(this host speaks {PROTOCOL_VERSION}): update the firmware")
    if problems:
        out.append(CheckResult("mcu.protocol", "mcu", Status.FAIL, "; ".join(problems)))
    else:
        out.append(CheckResult("mcu.protocol", "mcu", Status.PASS,
                               f"protocol {PROTOCOL_VERSION}, every configured channel and output exists on the board"))

    rtts: list[float] = []
    lost = 0
    for _ in range(PING_COUNT):
        try:
            rtts.append(link.ping(PING_TIMEOUT_S) * 1000.0)
        except (TimeoutError, ConnectionError):
            lost += 1
    if not rtts:
        out.append(CheckResult("mcu.ping", "mcu", Status.FAIL, f"no PONG to {PING_COUNT} pings"))
    else:
        rtts.sort()
        p50, worst = statistics.median(rtts), rtts[-1]
        data = {"sent": PING_COUNT, "lost": lost, "p50_ms": round(p50, 3), "max_ms": round(worst, 3)}
        status = Status.WARN if lost or worst > PING_WARN_MS else Status.PASS
        lost_text = f", {lost} lost" if lost else ""
        out.append(CheckResult("mcu.ping", "mcu", status,
                               f"round trip median {p50:.1f} ms, worst {worst:.1f} ms over {PING_COUNT} pings"
                               f"{lost_text}", data))

    # Heartbeat: with the line idle, the firmware must still send a HEARTBEAT.
    # Other frames (a chattering input's CHANGEs, a late PONG) prove nothing
    # about the quiet board the link must tell from a dead one; they also
    # hold the firmware's heartbeat back, so a busy line cannot be judged.
    # A link without the counter is judged by any frame at all; a damaged
    # frame counts too, as it may have been the heartbeat.
    def counts() -> tuple[int, int]:
        counters = link.counters
        frames = _c(counters, "frames_ok") + _c(counters, "bad_frames")
        beats = _c(counters, "heartbeats") + _c(counters, "bad_frames") if "heartbeats" in counters else frames
        return beats, frames

    beats0, frames0 = counts()
    t0 = time.monotonic()
    pause = threading.Event()
    heard = None
    while time.monotonic() - t0 < HEARTBEAT_WAIT_S:
        if counts()[0] > beats0:
            heard = time.monotonic() - t0
            break
        pause.wait(0.01)
    end = dict(link.counters)
    busy = counts()[1] - frames0
    if heard is None and busy:
        out.append(CheckResult("mcu.heartbeat", "mcu", Status.WARN,
                               f"no heartbeat heard in {HEARTBEAT_WAIT_S:g} s, but the line was never idle "
                               f"({busy} other frames, e.g. an input that keeps changing): cannot judge",
                               {"frames": busy}))
    elif heard is None:
        out.append(CheckResult("mcu.heartbeat", "mcu", Status.FAIL,
                               f"no heartbeat from the MCU for {HEARTBEAT_WAIT_S:g} s: the firmware is hung, "
                               "or it does not send heartbeats (the link would drop it on a quiet board)"))
    elif _c(end, "heartbeat_timeouts") > _c(start, "heartbeat_timeouts"):
        out.append(CheckResult("mcu.heartbeat", "mcu", Status.WARN,
                               "the link lost the MCU's heartbeat during the test"))
    else:
        out.append(CheckResult("mcu.heartbeat", "mcu", Status.PASS,
                               f"heartbeat heard {heard * 1000:.0f} ms into an idle line", {"after_ms": heard * 1000}))

    bad = _c(end, "bad_frames") - _c(start, "bad_frames")
    good = _c(end, "frames_ok") - _c(start, "frames_ok")
    total = bad + good
    rate = bad / total if total else 0.0
    kinds = {k: _c(end, k) - _c(start, k) for k in ("crc_errors", "cobs_errors", "malformed", "oversize") if k in end}
    data = {"frames": total, "bad": bad, "rate": round(rate, 4), **{k: v for k, v in kinds.items() if v}}
    if total == 0:
        out.append(CheckResult("mcu.errors", "mcu", Status.FAIL, "no frame arrived during the sample", data))
    elif rate > ERROR_RATE_FAIL:
        out.append(CheckResult("mcu.errors", "mcu", Status.FAIL,
                               f"corrupting serial line: {bad} of {total} frames failed their CRC or framing "
                               f"({rate:.0%}): check the cable, its length, the ground and the baud rate", data))
    else:
        status = Status.WARN if bad else Status.PASS
        out.append(CheckResult("mcu.errors", "mcu", status,
                               f"{bad} bad frame(s) of {total} ({rate:.1%}) over the sample", data))
    for key, text in (("reconnects", "reconnected"), ("resets", "saw the MCU reset")):
        moved = _c(end, key) - _c(start, key)
        if moved:
            out.append(CheckResult(f"mcu.{key}", "mcu", Status.WARN,
                                   f"the link {text} {moved} time(s) during the test"))
    return out
