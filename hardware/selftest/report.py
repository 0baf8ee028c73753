"""The self-test report: checks, guided steps, and their text and JSON forms.

The JSON form is a contract (``docs/selftest.md``); ``SCHEMA`` names its
version and ``validate_report`` checks a dict against it, so the panel, the
health topic and the tests all agree on one shape.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SCHEMA = "gravekeeper.selftest/1"


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


class StepStatus(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class CheckResult:
    """One automatic check: its id (``group.subject``), outcome and one line for people."""

    id: str
    group: str
    status: Status
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "group": self.group,
            "status": self.status.value,
            "message": self.message,
            "data": dict(self.data),
        }


@dataclass(frozen=True)
class StepResult:
    """One guided step: what the person was asked, and what the board answered."""

    id: str
    prompt: str
    status: StepStatus
    message: str
    sensor: str
    expected: str
    answered: tuple[str, ...] = ()
    crossed: tuple[str, ...] = ()
    bounces: int = 0
    settle_ms: float | None = None
    latency_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "prompt": self.prompt,
            "status": self.status.value,
            "message": self.message,
            "sensor": self.sensor,
            "expected": self.expected,
            "answered": list(self.answered),
            "crossed": list(self.crossed),
            "bounces": self.bounces,
            "settle_ms": self.settle_ms,
            "latency_ms": self.latency_ms,
        }


@dataclass
class Report:
    checks: list[CheckResult] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    finished: float | None = None
    guided: bool = False

    def add(self, results: CheckResult | Iterable[CheckResult]) -> None:
        if isinstance(results, CheckResult):
            self.checks.append(results)
        else:
            self.checks.extend(results)

    @property
    def failed(self) -> bool:
        return any(c.status is Status.FAIL for c in self.checks) or any(
            s.status in (StepStatus.FAIL, StepStatus.TIMEOUT) for s in self.steps
        )

    @property
    def skipped_steps(self) -> list[StepResult]:
        """The guided steps that were not tested (skipped one by one, or left when the walk-through stopped)."""
        return [s for s in self.steps if s.status is StepStatus.SKIPPED]

    @property
    def verdict(self) -> str:
        """``failed`` when something failed; ``incomplete`` when nothing failed but a guided step was not
        tested (nobody can call a board OK whose parts were not all moved); else ``ok``."""
        if self.failed:
            return "failed"
        return "incomplete" if self.skipped_steps else "ok"

    def summary(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Status}
        for c in self.checks:
            counts[c.status.value] += 1
        steps = {s.value: 0 for s in StepStatus}
        for st in self.steps:
            steps[st.status.value] += 1
        return {**counts, **{f"steps_{k}": v for k, v in steps.items()}}

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ok": not self.failed,
            "verdict": self.verdict,
            "started": self.started,
            "finished": self.finished,
            "guided": self.guided,
            "summary": self.summary(),
            "checks": [c.to_json() for c in self.checks],
            "steps": [s.to_json() for s in self.steps],
        }

    def to_text(self) -> str:
        marks = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "SKIP"}
        lines = []
        for c in self.checks:
            lines.append(f"[{marks[c.status.value]}] {c.id}: {c.message}")
        for s in self.steps:
            extra = []
            if s.bounces:
                extra.append(f"{s.bounces} bounce(s)")
            if s.settle_ms is not None:
                extra.append(f"settled in {s.settle_ms:.1f} ms")
            if s.latency_ms is not None:
                extra.append(f"latency {s.latency_ms:.1f} ms")
            tail = f" ({', '.join(extra)})" if extra else ""
            lines.append(f"[{s.status.value.upper()}] step {s.id}: {s.message}{tail}")
        summ = self.summary()
        skipped = self.skipped_steps
        if skipped:
            lines.append("not tested: " + "; ".join(s.prompt for s in skipped))
        lines.append(
            f"{self.verdict.upper()}: {summ['pass']} passed, {summ['warn']} warned, "
            f"{summ['fail']} failed, {summ['skip']} skipped"
            + (
                f"; steps {summ['steps_pass']} passed, {summ['steps_fail']} failed, "
                f"{summ['steps_timeout']} timed out, {summ['steps_skipped']} skipped"
                if self.steps
                else ""
            )
        )
        return "\n".join(lines)


_CHECK_KEYS = {"id": str, "group": str, "status": str, "message": str, "data": dict}
_STEP_KEYS = {
    "id": str,
    "prompt": str,
    "status": str,
    "message": str,
    "sensor": str,
    "expected": str,
    "answered": list,
    "crossed": list,
    "bounces": int,
}


def validate_report(data: Any) -> None:
    """Raise ``ValueError`` naming the first field that breaks the documented schema."""
    if not isinstance(data, dict):
        raise ValueError("report: must be an object")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"report.schema: must be {SCHEMA!r}")
    for key, typ in (("ok", bool), ("started", (int, float)), ("guided", bool), ("summary", dict)):
        if not isinstance(data.get(key), typ):
            raise ValueError(f"report.{key}: missing or of the wrong type")
    if data.get("finished") is not None and not isinstance(data["finished"], (int, float)):
        raise ValueError("report.finished: must be a number or null")
    # Reports the service publishes while a run goes on also say so, and which step is current.
    if "running" in data and not isinstance(data["running"], bool):
        raise ValueError("report.running: must be true or false")
    if data.get("current") is not None and not isinstance(data["current"], dict):
        raise ValueError("report.current: must be an object or null")
    for list_key, keys, statuses in (
        ("checks", _CHECK_KEYS, {s.value for s in Status}),
        ("steps", _STEP_KEYS, {s.value for s in StepStatus}),
    ):
        items = data.get(list_key)
        if not isinstance(items, list):
            raise ValueError(f"report.{list_key}: must be a list")
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise ValueError(f"report.{list_key}[{i}]: must be an object")
            for key, wanted in keys.items():
                value = item.get(key)
                # bool is an int to Python, not a count to a JSON reader
                if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
                    raise ValueError(f"report.{list_key}[{i}].{key}: missing or of the wrong type")
            if item["status"] not in statuses:
                raise ValueError(f"report.{list_key}[{i}].status: {item['status']!r} is not one of {sorted(statuses)}")
        if list_key == "steps":
            for i, item in enumerate(items):
                for key in ("settle_ms", "latency_ms"):
                    if item.get(key) is not None and not isinstance(item[key], (int, float)):
                        raise ValueError(f"report.steps[{i}].{key}: must be a number or null")
    expected_ok = not any(c["status"] == "fail" for c in data["checks"]) and not any(
        s["status"] in ("fail", "timeout") for s in data["steps"]
    )
    if data["ok"] != expected_ok:
        raise ValueError("report.ok: disagrees with the checks and steps")
    if "verdict" in data:  # newer reports; older retained ones may lack it
        skipped = any(s["status"] == "skipped" for s in data["steps"])
        expected = "failed" if not expected_ok else ("incomplete" if skipped else "ok")
        if data["verdict"] != expected:
            raise ValueError(f"report.verdict: {data['verdict']!r} disagrees with the checks and steps")
    counts = {s.value: 0 for s in Status} | {f"steps_{s.value}": 0 for s in StepStatus}
    for c in data["checks"]:
        counts[c["status"]] += 1
    for st in data["steps"]:
        counts[f"steps_{st['status']}"] += 1
    summary = data["summary"]
    for key in summary:
        if key not in counts:
            raise ValueError(f"report.summary.{key}: not a documented count")
    for key, n in counts.items():
        if key not in summary:
            raise ValueError(f"report.summary.{key}: missing")
        if summary[key] != n or isinstance(summary[key], bool):
            raise ValueError(f"report.summary.{key}: {summary[key]!r} disagrees with the checks and steps ({n})")
