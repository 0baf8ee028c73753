"""The retained topics a running service keeps current: state, sealed private views, sensors, health, recent.

:class:`ServiceViews` is used only under the service's decision lock (the
worker after each change, ``stop()`` for the last views, and the command
handler), like the referee it reads; the one exception is
:meth:`ServiceViews.set_selftest_report`, which the self-test calls from its
own thread and which only stores the report and wakes the worker.

Health is published at most every ``HEALTH_EVERY_S`` (its counters move with
every message, so an idle table stays idle), but at once when the broker link
changes, the live monitor finds or clears something, or a self-test reports.
A hardware failure that holds play is shown as the state's ``mismatch``, so it
gets the same banner as a board that does not match the game.

The current game's latest events (``recent``, ``controller.service.recent``) are
published at most once a second, from the worker's round after a change's
events and views have gone out: off the decision's path.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from controller.protocol.commands import PRIVATE_SEATS
from controller.protocol.security import seal
from controller.service.context import TableContext, selftest_hooks
from controller.service.recent import RecentEvents
from controller.service.summary import build_summary

HEALTH_EVERY_S = 10.0


_ASCII = bytes(range(128))


def _public_size(state: bytes) -> int:
    """The bound a sealed view is padded to, from the state's bytes as they are published.

    Never below the state's length, and never below the length its JSON has with a space after
    each separator and every other character escaped to ASCII, the encoding a view has when it is
    sealed (a view may still be longer than its state: it is then padded by itself, docs/topics.md).
    Counted on the bytes already encoded instead of encoding a big board's state a second time:
    one space per ',' and ':' (those inside strings too, which only raises it) and at most two
    more bytes per byte of a character beyond ASCII (an escape takes 6 bytes, or 12 for two).
    """
    return len(state) + state.count(b",") + state.count(b":") + 2 * len(state.translate(None, _ASCII))


class ServiceViews:
    """The retained topics of ``table``; ``effects_health`` is the effects' part of the health topic."""

    def __init__(self, table: TableContext, effects_health: Callable[[], dict[str, Any]]) -> None:
        self._table = table
        self._effects_health = effects_health
        self._private_plain: dict[int, bytes] = {}
        # The seats whose private topics this run has set; None until the first refresh, which
        # clears every seat the game does not use (a run before may have left one retained).
        self._private_seats: set[int] | None = None
        self._last_health: bytes | None = None
        self._next_health = 0.0
        self._health_connected = False
        self._health_read_only = False  # whether the last health said the journal cannot be written
        self._health_due = False
        self._selftest_report: dict[str, Any] | None = None
        self._halt_shown: dict[str, Any] | None = None  # a hardware failure, shown as the mismatch
        self.recent = RecentEvents()

    # ----- the self-test report -------------------------------------------
    def set_selftest_report(self, report: Mapping[str, Any]) -> None:
        """Called by the self-test (any thread): the report goes on the retained health topic."""
        self._selftest_report = dict(report)
        self._health_due = True
        self._table.wake()

    def health_changed(self) -> None:
        """Publish health with the worker's next round, however recent the last one was."""
        self._health_due = True

    # ----- state, private views, sensors ------------------------------------
    def refresh(self) -> None:
        table = self._table
        link = table.link
        assert link is not None
        topics = link.topics
        link.set_status(game=table.game_name)
        state = table.referee.state()
        if state.get("mismatch") is None and self._halt_shown is not None:
            # A hardware failure holds play like a mismatch, so it shows where a mismatch shows.
            state["mismatch"] = self._halt_shown
        link.set_retained(topics.state, state)
        # Public, so the sealed views' lengths may follow it (security.seal): never a secret's.
        public_size = _public_size(link.retained(topics.state) or b"")
        views = table.referee.private_views()
        seq = table.journal.last_seq()
        for seat, view in views.items():
            plain = json.dumps(view, sort_keys=True).encode()
            if self._private_plain.get(seat) == plain:
                continue  # sealing is randomised: only reseal what really changed
            self._private_plain[seat] = plain
            sealed = seal(table.token, table.table, seat, view, public_size=public_size)
            link.set_retained(topics.private(seat), {"seq": seq, "seat": seat, "sealed": sealed})
        for seat in range(PRIVATE_SEATS):  # a seat the game does not use is cleared
            if seat not in views and (self._private_seats is None or seat in self._private_seats):
                self._private_plain.pop(seat, None)
                link.set_retained(topics.private(seat), None)
        self._private_seats = set(views)
        self.update_sensors()
        hub = table.hub
        sensed = {sensor: st.value for sensor, st in hub.snapshot().items()} if hub is not None else {}
        link.set_retained(topics.summary, build_summary(state, sensed))

    def update_sensors(self) -> None:
        hub, link = self._table.hub, self._table.link
        if hub is None or link is None:
            return
        sensors = {sensor: state.to_json() for sensor, state in hub.snapshot().items()}
        # "monotonic" is the clock of the sensors' "changed"/"seen", so a panel can age them exactly.
        link.set_retained(link.topics.sensors, {"time": time.time(), "monotonic": time.monotonic(),
                                                "sensors": sensors})

    # ----- the current game's latest events ----------------------------------
    def maybe_recent(self, now: float, force: bool = False) -> None:
        """Publish ``recent`` if the journal has new events and a second has passed (``force``: now)."""
        link, journal = self._table.link, self._table.journal
        if link is None or journal is None:
            return
        if force:
            self.recent.take(journal)
        elif not self.recent.due(journal, now):
            return
        link.set_retained_encoded(link.topics.recent, self.recent.payload(self._game()))

    def _game(self) -> dict[str, Any] | None:
        """Which game the events belong to, as a ``game_started`` event names it."""
        referee = self._table.referee
        game = referee.game if referee is not None else None
        if game is None or referee.game_id is None:
            return None
        return {"game_id": referee.game_id, "game": getattr(game, "name", None),
                "title": getattr(game, "title", None), "players": [str(p) for p in getattr(game, "players", [])]}

    # ----- health ------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        table = self._table
        assert table.link is not None
        links: dict[str, Any] = {"broker": table.link.health()}
        sensors: dict[str, Any] = {}
        warnings: list[Any] = []
        live: dict[str, Any] = {}
        if table.hub is not None:
            hub_health = table.hub.health()
            links.update(hub_health.get("links") or {})
            sensors = hub_health.get("sensors") or {}
            warnings.extend(hub_health.get("warnings") or [])
            live = selftest_hooks().live_health(table)  # the live monitor: findings, halt
            warnings.extend(live.pop("warnings", []))
        problem = table.journal.problem() if table.journal is not None else None
        if problem is not None:
            warnings.append(problem)  # moves are refused meanwhile (controller/store/journal.py)
        counters = {**table.counters, **table.link.counters()}
        config = table.config
        # Sensors the referee marked broken for this game (controller/referee/gm.py): out of service.
        out_of_service = table.referee.core.gm.public(None)["out_of_service"] if table.referee else []
        panel = {"panel": table.panel_health()} if table.panel_health is not None else {}
        return {"links": links, "counters": counters, "warnings": warnings, "selftest": self._selftest_report,
                "sensors": sensors, "board": config.referee.board, "simulate": config.simulate,
                "out_of_service": out_of_service, "effects": self._effects_health(), **live, **panel}

    def publish_health(self, force: bool = False) -> None:
        link = self._table.link
        assert link is not None
        body = self.health()
        halt = body.get("halt")
        if halt != self._halt_shown:
            self._halt_shown = halt
            self.refresh()
        key = json.dumps(body, sort_keys=True, default=str).encode()
        if force or key != self._last_health:
            self._last_health = key
            link.set_retained(link.topics.health, {"time": time.time(), **body}, force=force)

    def maybe_health(self, now: float) -> None:
        table = self._table
        assert table.link is not None
        connected = table.link.connected
        if table.hub is not None and selftest_hooks().tick(table, now):
            self._health_due = True  # a new or cleared finding of the live monitor is shown at once
        journal = table.journal
        read_only = journal is not None and journal.problem() is not None
        if read_only != self._health_read_only:
            self._health_read_only = read_only
            self._health_due = True  # a journal that cannot be written is told at once, and its end too
        if now >= self._next_health or connected != self._health_connected or self._health_due:
            self._health_connected = connected
            self._health_due = False
            self._next_health = now + HEALTH_EVERY_S
            self.publish_health()
