"""The hardware self-test: automatic checks, the guided walk-through, faults, and the live monitor.

``run_for_service`` and the other service hooks are in :mod:`hardware.selftest.session`;
the CLI's own run is :func:`hardware.selftest.runner.run_hardware`. See ``docs/selftest.md``.
"""

from hardware.selftest.session import (
    halt,
    live_health,
    observed,
    run_for_service,
    stop,
    tick,
)

__all__ = ["halt", "live_health", "observed", "run_for_service", "stop", "tick"]
