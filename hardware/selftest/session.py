"""The self-test and the live monitor inside the running service, on the service's own hub.

The service calls four small hooks (``docs/selftest.md``, "In the service"):

* :func:`run_for_service` for the ``selftest`` MQTT command;
* :func:`observed` for every observation, so that a running walk-through
  sees the board, and its moves are held back from the referee (they are not
  game moves; the board is reconciled as a whole afterwards);
* :func:`tick` about once a second, which feeds the live monitor;
* :func:`live_health` for the health payload, and :func:`halt` to refuse
  game commands while a failure makes refereeing impossible.

State is kept per hub (a weak mapping), so several services in one process
(tests, a club running tables side by side) never share a run.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hardware.observation import Observation
from hardware.selftest.checks import Probe
from hardware.selftest.guided import Person, Step, StepControl, plan_steps, reported, run_steps
from hardware.selftest.monitor import Finding, HealthMonitor
from hardware.selftest.report import CheckResult, Report, Status, StepResult, StepStatus

log = logging.getLogger(__name__)

DEFAULT_STEP_TIMEOUT_S = 30.0
MAX_STEP_TIMEOUT_S = 600.0
TICK_EVERY_S = 0.5
Publish = Callable[[Mapping[str, Any]], None]
Forward = Callable[[Observation], None]


class HubHand:
    """The service's simulator moves each part (``hub.simulate``), for runs on a simulated board."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub

    def act(self, step: Step, probe: Probe, mark: int) -> None:
        for i, value in enumerate(step.values):
            self.hub.simulate(step.sensor, value, bounce_ms=2.0)
            if i + 1 < len(step.values):
                probe.wait(reported(step.sensor, value), 1.0, mark=mark)


class _Session:
    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.probe = Probe()
        self.probe.hub = hub
        self.monitor = HealthMonitor()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.control: StepControl | None = None
        self.skip: set[str] = set()
        self.current: str | None = None
        self.holding = False
        self.forward: Forward | None = None
        self.next_tick = 0.0
        self.live: dict[str, Any] = {}

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


_SESSIONS: weakref.WeakKeyDictionary[Any, _Session] = weakref.WeakKeyDictionary()
# hub -> the service's own checks (broker, journal, data), registered by the controller layer
_EXTRA: weakref.WeakKeyDictionary[Any, Callable[[], list[CheckResult]]] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def _session(hub: Any) -> _Session:
    with _GUARD:
        session = _SESSIONS.get(hub)
        if session is None:
            session = _SESSIONS[hub] = _Session(hub)
        return session


# -- hooks for the service ------------------------------------------------------
def add_checks(hub: Any, checks: Callable[[], list[CheckResult]]) -> None:
    """Checks the hardware layer cannot make itself (broker, journal, data): run after its own."""
    _EXTRA[hub] = checks


def observed(hub: Any, obs: Observation, forward: Forward) -> bool:
    """Every observation; True when a walk-through holds it back from the referee."""
    session = _session(hub)
    session.forward = forward
    if not session.running:
        return False
    session.probe.observe(obs)
    return session.holding


def tick(hub: Any, game: Any, now: float) -> bool:
    """Feed the live monitor (at most every 0.5 s); True when its findings changed."""
    session = _session(hub)
    if now < session.next_tick:
        return False
    session.next_tick = now + TICK_EVERY_S
    sensors = hub.health().get("sensors") or {}
    expected: dict[str, str] = {}
    waiting: set[str] = set()
    if game is not None and not getattr(game, "is_over", False):
        try:
            expected = dict(game.expected_board())
            waiting = {s for exp in game.expects() for s in exp.sensors()}
        except Exception:
            log.exception("live monitor: cannot read the game's expectations")
    before = {f.key for f in session.monitor.active}
    session.monitor.update(now, sensors, expected=expected, waiting=waiting)
    after = session.monitor.active
    # The monitor runs on the monotonic clock; people and the panel read wall-clock times.
    offset = time.time() - now
    live_sensors = session.monitor.sensors_json(sensors)
    for data in live_sensors.values():
        for key in ("last_change", "last_seen"):
            if data[key] is not None:
                data[key] = round(data[key] + offset, 3)
    findings = [{**f.to_json(), "since": round(f.since + offset, 3)} for f in after]
    session.live = {"findings": findings, "sensors": live_sensors}
    return before != {f.key for f in after}


def live_health(hub: Any) -> dict[str, Any]:
    """The monitor's part of the health payload: ``{"monitor": ..., "warnings": [...], "halt": ...}``."""
    session = _session(hub)
    findings = session.monitor.active
    stop = halt(hub)
    return {"monitor": dict(session.live), "warnings": [f"{f.message}: {f.guidance}" for f in findings],
            "halt": stop}


def halt(hub: Any) -> dict[str, Any] | None:
    """A mismatch-style hold while a failure makes refereeing impossible, else None."""
    failures = _session(hub).monitor.failures
    if not failures:
        return None
    return _halt_json(failures)


def _halt_json(failures: Iterable[Finding]) -> dict[str, Any]:
    items = list(failures)
    return {"code": "hardware_failure", "sensors": sorted({f.sensor for f in items}),
            "message": "; ".join(f.message for f in items),
            "guidance": "Play is held until the board can be read again: " + "; ".join(f.guidance for f in items),
            "since": min(f.since for f in items)}


# -- the selftest command ---------------------------------------------------------
def _flag(payload: Mapping[str, Any], key: str) -> bool:
    value = payload.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"selftest: {key} must be true or false")
    return value


def _names(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    raise ValueError("selftest: skip must be true, a step or check name, or a list of them")


def run_for_service(hub: Any, payload: Mapping[str, Any], publish: Publish) -> dict[str, Any]:
    """Start a run, or skip in the running one; the report is published as it grows.

    ``{"guided": bool, "step_timeout": s, "skip": [names]}`` starts a run
    (names skip steps or checks by id or id prefix); during a run,
    ``{"skip": true}`` skips the current step, ``{"skip": "all"}`` stops the
    walk-through, and ``{"skip": names}`` skips those steps when they come.
    """
    unknown = sorted(set(payload) - {"guided", "skip", "step_timeout"})
    if unknown:
        raise ValueError(f"selftest: unknown field(s): {', '.join(unknown)}")
    guided = _flag(payload, "guided")
    timeout = payload.get("step_timeout", DEFAULT_STEP_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_STEP_TIMEOUT_S:
        raise ValueError(f"selftest: step_timeout must be seconds, more than 0 and at most {MAX_STEP_TIMEOUT_S:g}")
    if hub is None:
        report = Report(guided=False)
        report.add(CheckResult("hardware", "hardware", Status.SKIP, "no sensors: referee.board is manual"))
        report.finished = time.time()
        publish({**report.to_json(), "running": False, "current": None})
        return {"running": False, "ok": True}
    session = _session(hub)
    skip = payload.get("skip")
    with session.lock:
        if session.running:
            if skip is None:
                raise ValueError("selftest: a self-test is already running (send skip to skip a step, "
                                 "or skip \"all\" to stop it)")
            assert session.control is not None
            if skip is True or (isinstance(skip, str) and skip == session.current):
                session.control.skip()
            elif skip == "all":
                session.control.stop()
            elif skip is not False:
                session.skip |= _names(skip)
                if session.current is not None and _skipped(session.current, session.skip):
                    session.control.skip()
            return {"running": True, "current": session.current}
        if skip is True:
            raise ValueError("selftest: no self-test is running, so there is no step to skip")
        session.skip = _names(skip) if skip not in (None, False) else set()
        session.control = StepControl.new()
        session.thread = threading.Thread(target=_run, args=(session, guided, float(timeout), publish),
                                          name="selftest", daemon=True)
        session.thread.start()
    return {"running": True, "guided": guided}


def stop(hub: Any, timeout: float = 5.0) -> bool:
    """Stop a running self-test (the service is closing) and wait for it; False if it outlived ``timeout``.

    The walk-through ends at once (the rest is reported skipped) and the
    final report is published; automatic checks already under way finish
    first, which takes a few seconds at most.
    """
    with _GUARD:
        session = _SESSIONS.get(hub)
    if session is None:
        return True
    with session.lock:
        thread, control = session.thread, session.control
        if thread is None or not thread.is_alive():
            return True
        if control is not None:
            control.stop()
    thread.join(timeout)
    return not thread.is_alive()


def _skipped(name: str, names: set[str]) -> bool:
    return any(name == n or name.startswith(f"{n}.") for n in names)


def _run(session: _Session, guided: bool, timeout: float, publish: Publish) -> None:
    from hardware.selftest.runner import (  # the MCU checks pull in the link
        automatic_checks,
        sim_step_timeout,
    )

    hub = session.hub
    report = Report(guided=guided)
    state: dict[str, Any] = {"current": None}

    def send() -> None:
        try:
            publish({**report.to_json(), "running": session.running and state.get("running", True),
                     "current": state["current"]})
        except Exception:
            log.exception("selftest: publishing the report failed")

    def on_check(item: CheckResult) -> None:
        report.add(item if not _skipped(item.id, session.skip) else
                   CheckResult(item.id, item.group, Status.SKIP, f"skipped on request ({item.message})"))
        send()

    def on_progress(event: dict[str, Any]) -> None:
        if event["kind"] == "step":
            session.current = event["id"]
            state["current"] = {k: event[k] for k in ("id", "prompt", "done", "left", "total", "timeout_s")}
            if _skipped(event["id"], session.skip) and session.control is not None:
                session.control.skip()
        else:
            state["current"] = None
            session.current = None
            r = event["result"]
            report.steps.append(StepResult(r["id"], r["prompt"], StepStatus(r["status"]), r["message"], r["sensor"],
                                           r["expected"], tuple(r["answered"]), tuple(r["crossed"]), r["bounces"],
                                           r["settle_ms"], r["latency_ms"]))
        send()

    try:
        send()
        link = getattr(hub, "_link", None)  # the hub keeps its MCU link private; ping needs it
        automatic_checks(hub.config, session.probe, link, on_check=on_check)
        extra = _EXTRA.get(hub)
        for item in extra() if extra is not None else []:
            on_check(item)
        simulated = bool(hub.health().get("links", {}).get("gpio", {}).get("simulated"))
        actor: Any = Person() if guided else HubHand(hub) if simulated else None
        if actor is not None:
            noisy = frozenset(c.id.removeprefix("noise.") for c in report.checks
                              if c.group == "noise" and c.status is Status.FAIL)
            session.holding = True
            start = {sensor: reading.value for sensor, reading in hub.snapshot().items()}
            run_steps(hub.config, session.probe, plan_steps(hub.config, start), actor,
                      timeout=timeout if guided else sim_step_timeout(hub.config), control=session.control,
                      on_progress=on_progress,
                      person=guided, noisy=noisy)
    except Exception as exc:
        log.exception("selftest run failed")
        report.add(CheckResult("selftest.error", "selftest", Status.FAIL, f"the self-test stopped: {exc}"))
    finally:
        report.finished = time.time()
        state["current"] = None
        state["running"] = False
        if session.holding:
            session.holding = False
            _release(session)
        send()


def _release(session: _Session) -> None:
    """The board after a walk-through goes to the referee as a fresh reading, to be reconciled as a whole."""
    forward = session.forward
    if forward is None:
        return
    now = time.monotonic()
    for sensor, state in session.hub.snapshot().items():
        forward(Observation(sensor, state.value, now, now, state.source, initial=True))
