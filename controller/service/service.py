"""The running controller: config -> journal -> referee -> sensors -> MQTT.

The :class:`~controller.referee.live.Referee` is single-threaded by design: it is
used only under the service's decision lock (``_lock``), by one thread at a
time. A worker thread takes everything that can change the game from one
queue: observations from the sensor hub, commands from MQTT, calls, and
"wake" requests from the MQTT link (connected, acknowledgements while a
backlog drains). It blocks on the queue until the next input or the referee's
next deadline (``Referee.next_deadline``: an outcome window or the grace of a
moving slider), whichever comes first, so timers expire on time and an idle
table costs next to no CPU.

A sensor observation that finds the referee idle is decided at once in the
hub's thread, and its events are handed to the link there: waking the worker
would cost a thread switch on the way from the edge to the event. Every
decision's events go to the link as soon as the journal commits
(``Referee.on_committed``); the hub's thread then waits for the broker's
acknowledgement (at most ``HUB_YIELD_S``), so paho's thread can take the
interpreter lock and write the event before the rest of the decision runs. It never
overtakes an input still in the queue (``_inputs_in``/``_inputs_out`` count
them), and the worker is then woken to build the views, off that path.

After every change the worker hands the link the new retained payloads (state,
sealed private views, sensors, health, and at most once a second the current game's latest
events: ``controller.service.views``) and calls :meth:`MqttLink.flush`, which
publishes events first and retained topics after them. Events, retained
topics and replies are published only under the decision lock, which is what
keeps them in order (the link's own status message is independent of them).

Commands are answered by ``controller.service.commands``, called from the
worker. The ``selftest`` command is routed to
``hardware.selftest.run_for_service(hub, payload, publish)``, looked up when
the command arrives; its report goes on the retained health topic. The
self-test's live monitor is fed through the hooks of ``controller.service.selftest``
(imported when first needed): every observation (a guided walk-through holds
its moves back from the referee), a tick with the health checks, its findings
in the health payload, and a halt that refuses moves while the board cannot be
read.

The command handler, the views, the effects and the self-test's hooks never see
the service: each is given the table's :class:`~controller.service.context.TableContext`
(settings, token, counters, the live parts, ``wake``) and the narrow hooks it
needs from another part, so none of them imports this module.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from controller.config import Config
from controller.mqtt.broker import BrokerChoice
from controller.mqtt.link import MqttLink
from controller.protocol.commands import Command
from controller.service.commands import COMMANDS, CommandHandler
from controller.service.context import TableContext, selftest_hooks
from controller.service.effects import TableEffects
from controller.service.views import ServiceViews
from controller.store.bounce_ledger import BounceLedger
from gravekeeper.errors import GravekeeperError

log = logging.getLogger(__name__)

MAX_WAIT_S = 1.0
SIM_SETUP_TIMEOUT_S = 10.0
TIMER_SLACK_S = 0.001  # wake just after a deadline, not just before it
EVENTS_SENT_WAIT_S = 0.005  # see _run: the events reach the broker before the views are computed
HUB_YIELD_S = 0.002  # see _events_committed: at most this long a decision holds up the sensors
_STOP = object()


class ServiceError(GravekeeperError, RuntimeError):
    """The service cannot start (journal, hardware); the message says what to fix."""


@dataclass(frozen=True)
class _Obs:
    obs: Any


@dataclass(frozen=True)
class _Cmd:
    command: Command


@dataclass(frozen=True)
class _Wake:
    pass


@dataclass(frozen=True)
class _Decided:
    """An observation was decided in the hub's thread: the worker refreshes the views."""


@dataclass(frozen=True)
class _Call:
    """Run ``fn(service)`` in the worker thread (tests, the self-test hook)."""

    fn: Callable[[Service], Any]
    done: threading.Event
    box: list[Any]


class Service:
    """Start with :meth:`start`, stop with :meth:`stop` (idempotent)."""

    def __init__(
        self,
        config: Config,
        broker: BrokerChoice,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.broker = broker
        self.table = config.table.id
        # What the commands, views and effects see of this table (controller/service/context.py).
        self._table = TableContext(config, broker, config.table.token, wake=self._wake)
        self._pin_factory = pin_factory
        self._clock = clock
        self._queue: queue.Queue[Any] = queue.Queue()
        self._wake_pending = threading.Event()
        self._lock = threading.Lock()  # the decision lock: the referee and publishing (see the module doc)
        # Game inputs queued (observations, commands, calls: any thread, under _inputs_lock) and
        # handled (under the decision lock): an observation is decided at once only when equal.
        self._inputs_in = 0
        self._inputs_lock = threading.Lock()
        self._inputs_out = 0
        self._inline = False  # decisions in the hub's thread: on once the worker runs
        self._reconcile_pending = False
        self._worker: threading.Thread | None = None
        self._stopped = threading.Event()
        self.effects = TableEffects(self._table)  # cues and Home Assistant, in a thread of their own
        # The retained topics: state, private views, sensors, health.
        self.views = ServiceViews(self._table, effects_health=self.effects.health)
        self._commands = CommandHandler(self._table, self.views, flush_bounces=self.flush_bounces)
        self.bounces = BounceLedger()  # the hub's bounce counts, journalled per game (store/bounce_ledger.py)
        # Why the service cannot go on (another controller runs this table), and who to tell.
        self.failure: str | None = None
        self.on_failure: Callable[[str], None] | None = None

    # ----- the table's parts (made by start(), dropped when it closes) ------
    @property
    def journal(self) -> Any:
        return self._table.journal

    @property
    def referee(self) -> Any:
        """The live referee: not thread-safe, so read it in :meth:`call` (the worker)."""
        return self._table.referee

    @property
    def hub(self) -> Any:
        return self._table.hub

    @property
    def link(self) -> MqttLink | None:
        return self._table.link

    @property
    def panel_health(self) -> Callable[[], dict[str, Any]] | None:
        """How the panel child fares, for the health topic (``gravekeeper run`` sets it)."""
        return self._table.panel_health

    @panel_health.setter
    def panel_health(self, health: Callable[[], dict[str, Any]] | None) -> None:
        self._table.panel_health = health

    @property
    def game_name(self) -> str | None:
        """The name of the game on the table (``terror``, ...); read it in :meth:`call`, like the referee."""
        return self._table.game_name

    @property
    def counters(self) -> dict[str, int]:
        """A copy of the health topic's own counters (observations, commands, refused, mismatches)."""
        return dict(self._table.counters)

    # ----- lifecycle ------------------------------------------------------
    def start(self) -> None:
        from controller.referee.live import Referee
        from controller.store.journal import Journal, JournalError

        cfg = self.config
        table = self._table
        try:
            table.journal = Journal(cfg.journal.path, table=self.table)
        except Exception as exc:
            raise ServiceError(f"journal.path: cannot open {cfg.journal.path!r}: {exc}") from exc
        try:
            try:
                table.referee = Referee(table.journal, cfg, clock=self._clock)
            except (JournalError, sqlite3.Error) as exc:  # the restore read a damaged journal
                raise ServiceError(f"journal.path: {exc}") from exc
            # Sensors first: a table whose hardware cannot start must fail before it puts a
            # game in the journal or anything retained on the broker (no phantom tables).
            table.hub = self._make_hub()
            self._maybe_first_game()
            table.link = link = MqttLink(
                cfg.mqtt,
                host=self.broker.host,
                port=self.broker.port,
                table=self.table,
                token=table.token,
                journal=table.journal,
                commands=COMMANDS,
                on_command=lambda c: self._enqueue(_Cmd(c)),
                on_wake=self._wake,
                # "name": what people read for the table (table.name), signed with the rest of the status.
                status={"game": table.game_name, "simulate": cfg.simulate, "name": cfg.table.name},
                on_conflict=self._on_conflict,
                # The embedded broker (amqtt) speaks MQTT 3.1.1 only: skip the MQTT 5 attempt it refuses.
                mqtt5_protocol=getattr(self.broker, "embedded", None) is None,
                # After the journal's previous run, whatever this clock says (controller.protocol.status).
                since=self.journal.begin_run(time.time()),
            )
            # Every decision's events go to paho as soon as they are durable (see _events_committed).
            table.referee.on_committed = self._events_committed
            # Retained payloads exist before the first connection: the link compares its own
            # state with the broker's retained one to avoid resending events after a kill -9.
            self.views.refresh()
            self.views.maybe_recent(0.0, force=True)  # the current game's moves, for a panel opened mid-game
            link.start()
            self.effects.start()
            self._set_up_simulated_board()
        except BaseException:
            self._close_parts()
            raise
        self._worker = threading.Thread(target=self._run, name="gk-worker", daemon=True)
        self._worker.start()
        self._inline = True

    def wait_online(self, timeout: float) -> bool:
        return self._table.link is not None and self._table.link.wait_online(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._worker is not None:
            self._stop_selftest()  # while the worker runs: the self-test's last report goes out
            self._queue.put(_STOP)
            self._worker.join(timeout)
            if self._worker.is_alive():
                log.error("worker thread did not stop within %.1f s", timeout)
            # A decision the hub's thread began before the stop ends first; its views go out
            # with the link's last flush, since the worker that would build them is gone.
            if self._lock.acquire(timeout=timeout):
                try:
                    self._inline = False
                    self.flush_bounces(force=True)  # the last counts, before the sensors close
                    if self._table.link is not None and not self._worker.is_alive():
                        self.views.refresh()
                        self.views.maybe_recent(0.0, force=True)
                except Exception:
                    log.exception("could not build the last views")
                finally:
                    self._lock.release()
            else:
                log.error("a decision did not end within %.1f s of the stop", timeout)
        self._close_parts()

    def _stop_selftest(self) -> None:
        # A guided walk-through still running would wait (minutes a step) on closed sensors.
        if self._table.hub is None or "hardware.selftest.session" not in sys.modules:
            return  # no self-test ever ran here: nothing to stop, nothing to import
        try:
            if not selftest_hooks().stop(self._table):
                log.warning("a running self-test did not stop in time")
        except Exception as exc:  # noqa: BLE001 - keep closing the rest
            log.warning("the running self-test did not stop cleanly: %s", exc)

    def _on_conflict(self, reason: str) -> None:
        # The link's network thread: the owner (``gravekeeper run``) stops the service.
        self.failure = reason
        if self.on_failure is not None:
            self.on_failure(reason)

    def _close_parts(self) -> None:
        hub, link, journal = self._table.hub, self._table.link, self._table.journal
        self.effects.close()
        self._stop_selftest()
        self._table.hub = None  # closed once, even when stop() follows a failed start()
        if hub is not None:
            try:
                hub.close()
            except Exception as exc:  # noqa: BLE001 - keep closing the rest
                log.warning("sensor hub did not close cleanly: %s", exc)
        if link is not None:
            link.close()
        if journal is not None:
            journal.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call(self, fn: Callable[[Service], Any], timeout: float = 5.0) -> Any:
        """Run ``fn(self)`` in the worker thread and return its result (the referee is not thread-safe)."""
        done = threading.Event()
        box: list[Any] = []
        self._enqueue(_Call(fn, done, box))
        if not done.wait(timeout):
            raise TimeoutError("the worker did not answer in time")
        if box and isinstance(box[0], BaseException):
            raise box[0]
        return box[0] if box else None

    # ----- set-up helpers -------------------------------------------------
    def _maybe_first_game(self) -> None:
        """A table whose journal holds no game starts the configured one, so the panel shows a board."""
        outcome = self._table.referee.ensure_game()
        if outcome is not None and not outcome.ok:
            table = self.config.table
            # The operator edits the file: the loader's message names the entry as the file spells it.
            detail = (outcome.data or {}).get("detail")
            why = f"{outcome.error} (in the file: {detail})" if detail else outcome.error
            raise ServiceError(f"table.game: cannot start {table.game!r}: {why}")

    def _make_hub(self) -> Any:
        cfg = self.config
        if not cfg.simulate and cfg.referee.board == "manual":
            return None  # no sensors at all: every move arrives as a command
        from hardware.hub import SensorHub

        # gpiozero warns once per pin library it cannot load before it gives up; keep those
        # for the log when the sensors start, and out of the one-line error when they do not.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                hub = SensorHub(cfg.hardware, on_observation=self._on_observation, simulate=cfg.simulate,
                                pin_factory=self._pin_factory, on_window_closing=self._rehearse)
                hub.start()
            except Exception as exc:
                hint = "" if "--simulate" in str(exc) else " (use --simulate to try it without hardware)"
                raise ServiceError(
                    f"hardware: cannot start the sensors: {exc}{hint}; "
                    'set referee.board = "manual" to play without sensors'
                ) from exc
        for w in caught:
            log.warning("hardware: %s", w.message)
        return hub

    def _set_up_simulated_board(self) -> None:
        """A simulated board is put where the game expects it, as a person would set up a real one.

        The hub's simulator starts every sensor at rest (tombs at one end), while a
        game may start with the tombs in the middle; without this a fresh ``run
        --simulate`` would open on a mismatch. The set-up moves are not game
        input: they are dropped, and the board is reconciled as a whole.
        """
        game = self._table.referee.game
        if not self.config.simulate or self._table.hub is None or game is None or game.is_over:
            return
        snapshot = self._table.hub.snapshot()
        moves = {s: v for s, v in game.expected_board().items() if s in snapshot and snapshot[s].value != v}
        for sensor, value in moves.items():
            self._table.hub.simulate(sensor, value)
        deadline = time.monotonic() + SIM_SETUP_TIMEOUT_S
        pause = threading.Event()
        while any(self._table.hub.snapshot()[s].value != v for s, v in moves.items()):
            if time.monotonic() > deadline:
                raise ServiceError(f"hardware: the simulated board did not settle within {SIM_SETUP_TIMEOUT_S:g} s")
            pause.wait(0.01)
        # The snapshot shows a move before the hub has handed its observation on: wait for the
        # hub's worker to finish what it holds, or a set-up move would reach the referee later.
        if not self._table.hub.sync():
            raise ServiceError("hardware: the sensor hub did not hand on the simulated set-up in time")
        self._drop_queued_observations()
        self._reconcile_pending = True

    def _drop_queued_observations(self) -> None:
        """Forget the observations in the queue (before the worker runs): the board is reconciled instead."""
        kept = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Obs):
                self._inputs_out += 1
            else:
                kept.append(item)  # commands and wakes that came in meanwhile
        for item in kept:
            self._queue.put(item)

    # ----- inputs from other threads --------------------------------------
    def _on_observation(self, obs: Any) -> None:
        try:
            if self._table.hub is not None and selftest_hooks().observed(self._table, obs, self._on_observation):
                return  # a self-test walk-through holds the board: its moves are not game moves
        except Exception:
            log.exception("self-test hook failed on %s", obs)
        if not obs.initial and self._decide_here(obs):
            return
        self._enqueue(_Obs(obs))

    def _enqueue(self, item: _Obs | _Cmd | _Call) -> None:
        with self._inputs_lock:
            self._inputs_in += 1
            self._queue.put(item)

    def _decide_here(self, obs: Any) -> bool:
        """Decide ``obs`` in the calling (hub) thread if nothing is ahead of it; False: queue it."""
        if not self._inline or not self._lock.acquire(blocking=False):
            return False  # the worker is busy (a decision, the views): the queue keeps the order
        try:
            if (self._inputs_in != self._inputs_out or self._reconcile_pending or self._table.referee.needs_reconcile
                    or self._stopped.is_set()):
                return False  # the worker first (a reading the journal refused: it compares the board)
            assert self._table.link is not None
            try:
                self._table.counters["observations"] += 1
                # Its events were handed to the link by the commit itself (_events_committed).
                self._note(self._table.referee.observe(obs))
            except Exception:
                log.exception("error while deciding %r", obs)
        finally:
            self._lock.release()
        self._queue.put(_Decided())
        return True

    def _rehearse(self) -> None:
        """Just before a sensor window closes (the hub's thread): warm the decision that may follow.

        An observation is decided 20 ms or more after the last decision, and in that time the
        views, the broker and everything else on the machine have taken the CPU's caches: the same
        code runs several times slower cold than warm. Here the hub's thread runs it once more,
        changing nothing (the referee only reads the board check, the journal rolls its write back,
        the link hashes a sample), inside the window the debouncer waits anyway. Skipped when
        the worker holds the referee: the observation then waits for it, and is decided there.
        """
        if not self._inline or self._stopped.is_set() or not self._lock.acquire(blocking=False):
            return
        try:
            self._table.referee.rehearse()
        finally:
            self._lock.release()
        if self._table.link is not None:
            self._table.link.rehearse()

    def _events_committed(self) -> None:
        """The referee's decision is durable: hand its events to paho now, before anything else runs.

        Called by the referee under the decision lock (the only place it decides), right after the
        journal's commit and before the events are copied for the referee's caller. The views follow
        from the worker, as before.
        """
        assert self._table.link is not None
        self._table.link.flush(events_only=True, persist=False)
        if threading.current_thread() is not self._worker:
            # The hub's thread: paho's thread needs the interpreter lock to write the event, which
            # this one would keep for the rest of the decision (copies, the worker's wake-up).
            self._table.link.wait_events_sent(HUB_YIELD_S)

    def _wake(self) -> None:
        if not self._wake_pending.is_set():
            self._wake_pending.set()
            self._queue.put(_Wake())

    # ----- the worker -----------------------------------------------------
    def _run(self) -> None:
        assert self._table.link is not None
        while True:
            # Sleep until the referee has a grace period or window to expire (or MAX_WAIT_S,
            # for health and the outbox cursor): no fixed tick keeps an idle table awake.
            with self._lock:
                deadline = self._table.referee.next_deadline()
            wait = MAX_WAIT_S if deadline is None else min(MAX_WAIT_S, deadline + TIMER_SLACK_S)
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                item = None
            if item is _STOP:
                break
            if isinstance(item, _Decided):
                # The hub's thread has just handed paho an event: let paho's thread write it
                # before this one wakes up and takes the interpreter lock for the views.
                self._table.link.wait_events_sent(EVENTS_SENT_WAIT_S)
            with self._lock:
                changed = self._work(item)
            if changed:
                # Paho's network thread writes the events, but needs the GIL, which the views (a
                # millisecond of pure Python) would otherwise hold: let it go first. Outside the
                # lock, so a slow acknowledgement never holds up the next decision.
                self._table.link.wait_events_sent(EVENTS_SENT_WAIT_S)
            with self._lock:
                self._publish_views(changed, item)

    def _work(self, item: Any) -> bool:
        """Decide ``item`` and whatever timers are due, and hand their events to the link."""
        assert self._table.link is not None
        changed = False
        try:
            if item is not None:
                changed = self._handle(item)
            if self._table.referee.needs_reconcile:  # a reading the journal refused: the board moved anyway
                self._reconcile_pending = True
            if self._reconcile_pending and self._queue.empty():
                changed = self._reconcile() or changed
            while (outcome := self._table.referee.tick()) is not None:
                changed = True
                if not outcome.ok:
                    log.error("referee: a timer could not be applied: %s", outcome.error)
                    break
            if changed:
                self._table.link.flush(events_only=True, persist=False)  # events first, views after
        except Exception:
            log.exception("worker: error while handling %r", item)
            changed = True  # the referee may have restored itself from the journal: show it
        return changed

    def _publish_views(self, changed: bool, item: Any) -> None:
        assert self._table.link is not None
        try:
            # The effects player gets the decided events here, once paho has sent them (see _run):
            # waking its thread sooner would compete with paho's for the interpreter lock.
            self.effects.hand_over()
            if changed:
                self.views.refresh()
            now = time.monotonic()
            self.views.maybe_health(now)
            self.views.maybe_recent(now)  # at most once a second, after the events it holds went out
            self.flush_bounces()
            self.effects.tick()
            self._table.link.flush(persist=self._queue.empty())
        except Exception:
            log.exception("worker: error while publishing after %r", item)

    def _handle(self, item: Any) -> bool:
        if isinstance(item, _Wake):
            self._wake_pending.clear()
            return False
        if isinstance(item, _Decided):
            return True
        if isinstance(item, (_Obs, _Cmd, _Call)):
            self._inputs_out += 1
        if isinstance(item, _Obs):
            self._table.counters["observations"] += 1
            if item.obs.initial:
                # A start-up or reconnect reading: compare the whole board once the burst is in.
                self._reconcile_pending = True
                return True  # the sensors topic changes even if the game does not
            # The decision first; the sensors topic is refreshed with the other views after it.
            self._note(self._table.referee.observe(item.obs))
            return True
        if isinstance(item, _Cmd):
            self._table.counters["commands"] += 1
            return self._commands.handle(item.command)
        if isinstance(item, _Call):
            try:
                item.box.append(item.fn(self))
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                item.box.append(exc)
            item.done.set()
            return True
        raise TypeError(f"unknown work item {item!r}")

    def _note(self, outcome: Any) -> bool:
        if outcome is None:
            return False
        if any(e.get("type") == "mismatch" for e in (outcome.events or [])):
            self._table.counters["mismatches"] += 1
            self.bounces.due = True  # a maker looks at the sensors now: their bounces go in the journal
        return True

    def flush_bounces(self, force: bool = False) -> None:
        """Journal the hub's new bounce counts against the running game (under the decision lock)."""
        if self._table.hub is None or self._table.journal is None or self._table.referee is None:
            return
        try:
            if force:
                self.bounces.flush(self._table.hub, self._table.journal, self._table.referee.game_id)
            else:
                self.bounces.maybe_flush(self._table.hub, self._table.journal, self._table.referee.game_id)
        except Exception:
            log.exception("could not journal the sensors' bounce counts")

    def _reconcile(self) -> bool:
        self._reconcile_pending = False
        if self._table.hub is None:
            return False
        values = {sensor: state.value for sensor, state in self._table.hub.snapshot().items()}
        return self._note(self._table.referee.reconcile(values))
