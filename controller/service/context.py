"""What the running table's parts share, instead of the service itself.

The command handler (``controller.service.commands`` and ``gm_commands``), the retained views
(``views``), the effects (``effects``) and the self-test's hooks (``selftest``) are each given
one :class:`TableContext`: the table's settings and secret, its counters, the live parts the
service makes in ``start()`` and drops when it closes, and the one way to have the worker run a
round. What one of them needs from another (the commands refresh the views, the views show the
effects' health) is handed to it as a narrow hook (:class:`ViewHooks`, a callable), so none of
these modules imports the service or another of them, and none reads another's private fields.

The context is read and changed where the service's module doc says: under its decision lock,
except ``wake``, which any thread may call, and the counters, which the health view only copies.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.config import Config
    from controller.mqtt.broker import BrokerChoice
    from controller.mqtt.link import MqttLink


def _counters() -> dict[str, int]:
    return {"observations": 0, "commands": 0, "refused": 0, "mismatches": 0}


@dataclass(eq=False)
class TableContext:
    """One running table as its parts see it (made by ``Service``; its parts filled in by ``start()``)."""

    config: Config
    broker: BrokerChoice  # where the service's link goes (the self-test's broker checks name it)
    token: str  # the control token: signs, seals and opens what the table and its phones exchange
    wake: Callable[[], None]  # any thread: the worker runs a round soon (flushes a reply, publishes health)
    # The health topic's counters (the link's own are added to them there).
    counters: dict[str, int] = field(default_factory=_counters)
    # The live parts, made in Service.start() and dropped when it closes: read them on each use,
    # never keep one. Untyped as the service has always held them (the hub is hardware's, and
    # absent on a manual board; the referee and journal are None before the start).
    referee: Any = None
    journal: Any = None
    hub: Any = None
    link: MqttLink | None = None
    # How the panel child fares, for the health topic: `gravekeeper run` sets it when it starts one.
    panel_health: Callable[[], dict[str, Any]] | None = None

    @property
    def table(self) -> str:
        """The table's id, as its topics and signatures name it."""
        return self.config.table.id

    @property
    def game_name(self) -> str | None:
        """The name of the game on the table (``terror``, ...), or None before there is one."""
        game = self.referee.game if self.referee is not None else None
        name = getattr(game, "name", None)
        return name if isinstance(name, str) else None

    def refused(self) -> None:
        """Count a command the table refused (health's ``refused``)."""
        self.counters["refused"] += 1


class ViewHooks(Protocol):
    """What the commands ask of the retained topics (``controller.service.views.ServiceViews``)."""

    def refresh(self) -> None: ...

    def publish_health(self, force: bool = False) -> None: ...

    def set_selftest_report(self, report: Mapping[str, Any]) -> None: ...

    def health_changed(self) -> None: ...


_hooks: ModuleType | None = None


def selftest_hooks() -> ModuleType:
    """The self-test's hooks (``controller.service.selftest``), imported when first needed.

    They pull in the sensor layer, which a table without sensors never loads. Imported once:
    every observation asks, and ``import_module`` is Python code each time.
    """
    global _hooks
    if _hooks is None:
        _hooks = importlib.import_module("controller.service.selftest")
    return _hooks
