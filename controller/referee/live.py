"""The referee: the engine, the sensed board and the journal, kept in agreement.

Every decision is made by :class:`~controller.referee.core.RefereeCore` from a
plain payload, written to the journal in one transaction with its events, and
only then reported. On start the journal is replayed into a fresh core, so
after ``kill -9`` the state is identical; the service then calls
:meth:`Referee.reconcile` with the sensors as they are now.

Not thread-safe by design: the service calls it from one thread at a time, under its decision lock.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.config import Config
from controller.games import get_game
from controller.games.base import Action, Expectation, Game
from controller.games.errors import BadGameData, IllegalAction
from controller.games.words import listed
from controller.protocol.security import game_seed
from controller.referee.board import check_board, sensed
from controller.referee.core import RULES_EDITION, RefereeCore, same_events, validate_sensors
from controller.referee.errors import Refused
from controller.store.journal import Journal, JournalError
from hardware.observation import Observation

__all__ = ["Outcome", "Referee", "Refused"]

log = logging.getLogger(__name__)

_RETRY_S = 1.0
# An edge reaches the referee a stability window (and a decision or two) after it happened, so
# a window's timeout waits this long past the window's end for edges that came before it.
WINDOW_LATE_MARGIN_S = 0.05
_EPS = 1e-6  # clock arithmetic in float seconds must not make a 300 ms grace last 300.0000001 ms


@dataclass
class Outcome:
    ok: bool
    events: list[dict[str, Any]]
    error: str | None = None
    data: dict[str, Any] | None = None


def board_options(game: str, config: Config) -> dict[str, Any]:
    """Engine options that follow the referee's config, unless the new_game command sets them.

    The outcome windows live in the engines' options (so they are in the journal
    with the game), and Superstition needs to know whether the traps are sensed.
    """
    ref = config.referee
    if game == "terror":
        return {"skull_window_ms": ref.skull_window_ms}
    if game == "superstition":
        challenge = "sensors" if ref.board == "sensors" else "digital"
        return {"challenge": challenge, "outcome_window_ms": ref.trap_window_ms}
    return {}


def _bad_data(exc: BadGameData) -> Outcome:
    """A new game refused for its board, deck or tiles. People read the loader's plain reason; its
    message, naming the file's entry as the file spells it, and where, stay in the data for scripts
    and whoever edits the file."""
    return Outcome(False, [], exc.plain, {"detail": str(exc), "at": exc.at})


class Referee:
    def __init__(
        self,
        journal: Journal,
        config: Config,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.journal = journal
        self.config = config
        self.clock = clock
        self.wall_clock = wall_clock
        self.core = RefereeCore()
        self._pending_since: float | None = None
        self._windows: dict[str, float] = {}  # expectation (as JSON text) -> monotonic time it opened
        self._retry_at = 0.0  # after a timer failed (disk full, engine refused): not before this
        # The timers as they were before the inputs not yet committed (see _restore).
        self._timers_before: tuple[float | None, dict[str, float]] | None = None
        windows = [spec.window for spec in getattr(config.hardware, "sensors", ())]
        self.window_late_s = max(windows, default=0.0) + WINDOW_LATE_MARGIN_S
        self.restore_divergence: str | None = None  # set when the journal no longer replays exactly
        # A sensor reading the journal could not store did not happen, but the board did change:
        # the service should reconcile with the sensors as they are once it can (see observe()).
        self.needs_reconcile = False
        self.paused_at: float | None = None  # when the game master paused the game (controller/referee/live_gm.py)
        # Told of every batch of events once it is durable (the effects player); set by the service
        # after the restore, so replaying the journal plays nothing.
        self.on_events: Callable[[list[dict[str, Any]]], None] | None = None
        # Called as soon as a decision is durable, before its events are copied for the caller:
        # the service hands them to the link there, so nothing else waits between commit and publish.
        self.on_committed: Callable[[], None] | None = None
        self._restore()
        if self.core.gm.paused is not None:
            self.paused_at = self.clock()  # paused before a restart: the windows restart at the resume
        if self.board == "manual" and self.core.mismatch is not None:
            # the last run sensed the board; this one does not, so nothing can fix that mismatch
            self._decide("reconcile", {"sensors": {}})

    # ----- what the service reads ---------------------------------------------------
    @property
    def board(self) -> str:
        return self.config.referee.board

    @property
    def game(self) -> Game | None:
        return self.core.game

    @property
    def game_id(self) -> str | None:
        return self.core.game_id

    @property
    def mismatch(self) -> dict[str, Any] | None:
        return self.core.mismatch

    # ----- restoring ---------------------------------------------------------------
    def _restore(self) -> None:
        """Replay the journal from the latest new game, which carries the board state before it.

        Older games cannot change the present, so a table that has run for a
        season still starts in milliseconds; ``gravekeeper replay --verify``
        replays everything and checks each carried state.
        """
        start = self.journal.last_input_id("new_game") or 0
        if start:
            first = next(self.journal.inputs(start), None)
            if first is None or "carry" not in first["payload"]:
                start = 0  # no carried state to begin from: replay it all
        core = RefereeCore()
        divergence: str | None = None
        for entry in self.journal.inputs(start):
            try:
                if entry["id"] == start:
                    core.load_board_state(entry["payload"]["carry"])
                produced = core.decide(entry["kind"], entry["payload"])
            except (ValueError, KeyError, TypeError) as exc:
                raise JournalError(
                    f"journal {self.journal.path}: input {entry['id']} ({entry['kind']}) cannot be replayed: {exc}"
                ) from None
            if divergence is None and not same_events(produced, entry["events"]):
                # the rules changed since this was played: keep going, but say so (the health topic shows it)
                divergence = f"journal input {entry['id']} ({entry['kind']}) replays to other events than recorded"
        self.core = core
        self.restore_divergence = divergence
        # After a decision that did not happen (the journal refused it, the engine failed), the
        # grace and the windows are those from before it, with their start; _sync_timers drops
        # what no longer applies. At start-up there are none.
        before, self._timers_before = self._timers_before, None
        self._pending_since, self._windows = before if before is not None else (None, {})
        self._sync_timers()

    # ----- deciding ----------------------------------------------------------------
    def _apply(self, kind: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
        """Decide one input on the core; not yet durable (see :meth:`_commit`)."""
        first = self._timers_before is None
        if first:
            self._timers_before = (self._pending_since, dict(self._windows))
        payload = {**payload, "time": self.wall_clock(), "board": self.board}
        try:
            events = self.core.decide(kind, payload)
        except (Refused, IllegalAction):
            if first:
                self._timers_before = None
            raise  # refused before anything changed
        except Exception:
            self._restore()  # an engine failed half-way: back to what the journal says
            raise
        self._sync_timers()
        return kind, payload, events

    def _commit(self, steps: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> list[dict[str, Any]]:
        """Journal decided inputs in one transaction: the core keeps them only if the journal took them."""
        try:
            stored = self.journal.record_many(steps, self.on_committed)
        except BaseException:
            self._restore()  # the decision is not durable, so it did not happen
            raise
        self._timers_before = None
        events = [event for batch in stored for event in batch]
        if self.on_events is not None and events:
            self.on_events(events)  # must not block: the effects player only queues them
        return events

    def _decide(self, kind: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """Decide, journal, report."""
        return self._commit([self._apply(kind, payload)])

    def _outcome(self, kind: str, payload: dict[str, Any], data: dict[str, Any] | None = None) -> Outcome:
        try:
            events = self._decide(kind, payload)
        except (Refused, IllegalAction) as exc:
            return Outcome(False, [], str(exc))
        except (JournalError, sqlite3.Error, OSError) as exc:
            # nothing happened (the referee is back to what the journal says); the caller may retry
            return Outcome(False, [], f"the journal could not record this, so it did not happen: {exc}")
        except ValueError as exc:
            if kind != "new_game":
                raise
            # An engine refusing its options or data files (BadGameData) is an answer, not a
            # failure: the game was never made, so the running one goes on untouched.
            if isinstance(exc, BadGameData):
                return _bad_data(exc)
            return Outcome(False, [], str(exc))
        return Outcome(True, events, None, data)

    def new_game(
        self,
        game: str,
        players: list[str],
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        *,
        command_id: str | None = None,
        setting_up: bool = False,
        keep_seats: bool = False,
    ) -> Outcome:
        """A new game. ``setting_up``: the table sets its (virtual) board up for this game right after, so
        what still differs gets the mismatch grace period instead of a mismatch at once. ``keep_seats``:
        each player of the game before who plays again under the same name keeps their seat's phone
        (the state's ``seats_from``, docs/panel.md "A new game with the same players")."""
        if command_id is not None and self.journal.has_command(command_id):
            return Outcome(False, [], f"command id {command_id!r} was already used")
        try:
            get_game(game)
        except ValueError as exc:
            return Outcome(False, [], str(exc))
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
            return Outcome(False, [], "players must be a list of names")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            return Outcome(False, [], f"seed must be an integer 0 or more, got {seed!r}")
        if options is not None and not isinstance(options, Mapping):
            return Outcome(False, [], "options must be an object")
        try:
            get_game(game).check_new_options(options or {})
        except BadGameData as exc:
            return _bad_data(exc)
        payload = {
            "game": game,
            "players": [p.strip() for p in players],
            # A chosen seed may have crossed the broker in clear: see security.game_seed.
            "seed": secrets.randbits(63) if seed is None else game_seed(self.config.table.token, seed),
            "options": {**board_options(game, self.config), **(options or {})},
            "game_id": secrets.token_hex(8),
            "command_id": command_id,
            "carry": self.core.board_state(),
            "rules": RULES_EDITION,
            **({"setting_up": True} if setting_up else {}),
        }
        kept = self._seats_from([p.strip() for p in players]) if keep_seats else None
        if kept is not None:
            payload["seats_from"] = kept
        return self._outcome("new_game", payload, {"game_id": payload["game_id"]})

    def _seats_from(self, players: list[str]) -> dict[str, Any] | None:
        """Which seat of the game now running each new player held, matched by name (case and spaces
        aside): only the game just before, so a phone of an older game is never carried."""
        game, game_id = self.core.game, self.core.game_id
        if game is None or game_id is None:
            return None
        before = [str(p).strip().casefold() for p in game.players]
        seats = [before.index(n) if n in before else None for n in (p.strip().casefold() for p in players)]
        return {"game_id": game_id, "seats": seats}

    def ensure_game(self) -> Outcome | None:
        """Start the configured game when the journal holds none (first start of a table)."""
        if self.core.game is not None:
            return None
        table = self.config.table
        return self.new_game(table.game, list(table.players), table.seed)

    def act(self, action: Action, *, command_id: str | None = None) -> Outcome:
        if command_id is not None and self.journal.has_command(command_id):
            return Outcome(False, [], f"command id {command_id!r} was already used")
        try:
            self.core.check_command(action, self.board)
        except Refused as exc:
            return Outcome(False, [], str(exc))
        try:
            text = self.core.game.describe(action) if self.core.game is not None else action.to_text()
        except Exception:
            log.exception("could not word %s; its raw text is shown instead", action.to_text())
            text = action.to_text()
        payload = {"action": action.to_json(), "command_id": command_id}
        outcome = self._outcome("command", payload, {"action": action.to_json(), "text": text})
        if outcome.ok and outcome.data is not None:
            outcome.data["events"] = outcome.events
        return outcome

    def rehearse(self) -> None:
        """Run what deciding an observation runs, changing nothing: the board check, the journal's write.

        Called under the service's decision lock just before a sensor window closes (see
        ``controller/service/service.py``, ``_rehearse``); the core is only read and the journal rolls back.
        """
        if self.board != "sensors":
            return
        game = self.core.game
        if game is not None and not game.is_over:
            check_board(game, dict(self.core.sensors), None)
        self.journal.rehearse()

    def observe(self, obs: Observation) -> Outcome:
        if self.board != "sensors":
            return Outcome(True, [], None, {"ignored": "referee.board is manual: sensors are not used"})
        payload = {
            "sensor": obs.sensor,
            "value": obs.value,
            "source": obs.source,
            "initial": obs.initial,
            "first_edge": obs.first_edge,
            "settled": obs.settled,
        }
        now = self.clock()
        steps: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = []
        try:
            # An outcome window is judged by when the edge happened, not when it arrived: a
            # window that ended before this edge began runs out first, in the same commit.
            # (No edge happened after now: a stamp from a drifting MCU clock cannot end a window early.)
            late = self._due_window(min(obs.first_edge, now)) if now >= self._retry_at else None
            if late is not None:
                self._timer_step(late, now, steps)
            try:
                steps.append(self._apply("observation", payload))
            except (Refused, IllegalAction):
                if steps:
                    self._commit(steps)  # the window's end stands on its own
                raise
            now = self.clock()  # after the observation started its grace
            due = self._due_timer(now)
            if due is not None:
                # A grace of 0 ms reports at once; the timeout stays an input of its own (replay
                # decides it as before) but shares the observation's commit: one fsync, not two.
                self._timer_step(due, now, steps)
            return Outcome(True, self._commit(steps))
        except (Refused, IllegalAction) as exc:
            return Outcome(False, [], str(exc))
        except (JournalError, sqlite3.Error, OSError) as exc:
            self.needs_reconcile = True  # the reading is gone; the board still shows it
            return Outcome(False, [], f"the journal could not record this, so it did not happen: {exc}")
        except Exception:
            if self._timers_before is not None:
                self._restore()  # decided but not committed (a bug between the two): it did not happen
            raise

    def _timer_step(self, payload: dict[str, Any], now: float,
                    steps: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> None:
        """Add a timeout to the inputs of one commit; if it fails, the others still stand."""
        try:
            steps.append(self._apply("timeout", payload))
        except (Refused, IllegalAction):
            self._retry_at = now + _RETRY_S  # as tick() does
        except Exception:
            # The engine failed on the timeout and the core went back to the journal, which
            # does not hold the inputs decided before it yet: decide them again, without it.
            log.exception("referee: a timer failed beside an observation; retried in %.0f s", _RETRY_S)
            self._retry_at = now + _RETRY_S
            steps[:] = [self._apply(kind, p) for kind, p, _ in steps]  # _apply stamps the time afresh

    def reconcile(self, sensors: Mapping[str, Any]) -> Outcome:
        if self.board != "sensors":
            return Outcome(True, [], None, {"ignored": "referee.board is manual: sensors are not used"})
        try:
            clean = validate_sensors(sensors)
        except ValueError as exc:
            return Outcome(False, [], str(exc))
        outcome = self._outcome("reconcile", {"sensors": clean})
        if outcome.ok:
            self.needs_reconcile = False
        return outcome

    # ----- time ----------------------------------------------------------------------
    def _open_windows(self) -> dict[str, tuple[Expectation, int]]:
        game = self.core.game
        if self.board != "sensors" or game is None or game.is_over:
            return {}
        out: dict[str, tuple[Expectation, int]] = {}
        for exp in game.expects():
            if exp.window_ms is not None and exp.on_timeout is not None and sensed(exp, self.core.sensors):
                out[repr(exp.to_json())] = (exp, exp.window_ms)
        return out

    def _sync_timers(self) -> None:
        now = self.clock()
        if self.core.pending:
            if self._pending_since is None:
                self._pending_since = now
        else:
            self._pending_since = None
        if self.core.mismatch is not None:
            self._windows = {}  # play holds; a window starts afresh once the board is right
            return
        # A reading within its grace does not hold play (docs/referee.md), so a window keeps
        # its start through it: restarting it would let a trap that sprang after its window,
        # past a slider nudged meanwhile, count as "zapped". (See _windows_deferred for when
        # it may not run out yet.)
        current = self._open_windows()
        self._windows = {key: self._windows.get(key, now) for key in current}

    def _windows_deferred(self) -> bool:
        """Whether a window that has ended must wait before it runs out.

        A reading within its grace that is not a slider on its way may be a foul (the
        second peg of the challenged trap): a window running out under it would decide
        the challenge and swallow the foul. So the window waits for that reading to go
        away (then it runs out at once, from its own start) or to become a mismatch
        (then play holds and the window starts afresh once the board is right).
        """
        return self.core.pending and not self.core.pending_moving_only

    def _grace_s(self) -> float:
        ref = self.config.referee
        return (ref.tomb_grace_ms if self.core.pending_moving_only else ref.mismatch_grace_ms) / 1000.0

    def next_deadline(self) -> float | None:
        """Seconds until :meth:`tick` has something to do (``None``: nothing is timed)."""
        now = self.clock()
        if self.core.gm.paused is not None:
            return None  # a paused game's timers stand still
        deadlines: list[float] = []
        if self._pending_since is not None:
            deadlines.append(self._pending_since + self._grace_s())
        if self._windows and not self._windows_deferred():
            current = self._open_windows()
            deadlines += [self._windows[k] + ms / 1000.0 + self.window_late_s
                          for k, (_, ms) in current.items() if k in self._windows]
        return max(0.0, min(deadlines) - now, self._retry_at - now) if deadlines else None

    def tick(self) -> Outcome | None:
        """Expire grace periods and outcome windows that are due; ``None`` when nothing was.

        A timer that cannot be taken (the journal refuses the write, the engine
        refuses the timeout action) is retried a second later, never in a loop.
        """
        now = self.clock()
        payload = self._due_timer(now)
        if payload is None:
            return None
        outcome = self._outcome("timeout", payload)
        if not outcome.ok:
            self._retry_at = now + _RETRY_S
        return outcome

    def _due_timer(self, now: float) -> dict[str, Any] | None:
        """The timeout input that is due at ``now``, if any (the grace first, then windows).

        A window runs out ``window_late_s`` after its end, the time an edge from
        just before the end may take to be settled and reach the referee.
        """
        if now < self._retry_at or self.core.gm.paused is not None:
            return None
        if self._pending_since is not None and now - self._pending_since >= self._grace_s() - _EPS:
            return {"timer": "grace"}
        return self._due_window(now - self.window_late_s)

    def _due_window(self, at: float) -> dict[str, Any] | None:
        """The timeout of a window that had ended by ``at`` (monotonic seconds), if any."""
        if not self._windows or self._windows_deferred() or self.core.gm.paused is not None:
            return None  # none running: skip asking the engine (on every observation's path)
        for key, (exp, ms) in self._open_windows().items():
            opened = self._windows.get(key)
            if opened is not None and at - opened >= ms / 1000.0 - _EPS and exp.on_timeout is not None:
                return {"timer": "window", "expectation": exp.kind, "action": exp.on_timeout.to_json()}
        return None

    # ----- views ---------------------------------------------------------------------
    def _waiting_for(self, game: Game | None, expectations: list[Expectation],
                     public: list[Action] | None = None) -> str:
        if self.core.mismatch is not None:
            return str(self.core.mismatch["guidance"])
        if game is None:
            return "Start a new game."
        if self.core.gm.paused is not None and not game.is_over:
            return "The game is paused: every timer has stopped until the referee resumes it."
        if game.is_over:
            names = " and ".join(game.players[s] for s in game.winners) or "nobody"
            return f"The game is over: {names} won."
        if expectations:
            return expectations[0].prompt
        seat = game.current_player
        if seat is None:
            return "Waiting."
        # Only public actions: naming a held card's action here would tell the table about it.
        kinds: dict[str, int] = {}
        for action in game.public_actions() if public is None else public:
            if action.player == seat:
                kinds[action.kind] = kinds.get(action.kind, 0) + 1
        if not kinds:
            return f"{game.players[seat]} to play."
        steps = [game.action_words(k) + (f" ({n} choices)" if n > 1 else "") for k, n in kinds.items()]
        choice = listed(steps, "or")
        return f"{game.players[seat]} to play: {choice}."

    def state(self) -> dict[str, Any]:
        """The retained public state (``docs/topics.md``, "State"). Never a secret."""
        game = self.core.game
        expectations = game.expects() if game is not None and not game.is_over else []
        mismatch = dict(self.core.mismatch) if self.core.mismatch is not None else None
        public = game.public_actions() if game is not None else []  # enumerated once per state
        grace = self._grace_view()
        state: dict[str, Any] = {
            "seq": self.journal.last_seq(),
            "table": self.config.table.id,
            "game": self.core.game_name,
            "game_id": self.core.game_id,
            "players": list(game.players) if game else [],
            "seats_from": self.core.seats_from,
            "current_player": game.current_player if game else None,
            "over": game.is_over if game else False,
            "winners": list(game.winners) if game else [],
            "view": game.public_view() if game else {},
            "legal": [a.to_json() for a in self.core.commandable(public, self.board)] if game else [],
            "expects": self._expects_view(expectations),
            "waiting_for": self._waiting_for(game, expectations, public),
            "mismatch": mismatch,
            "board": self.board,
            "gm": self.core.gm.public(game),  # undo, pause, out-of-service sensors (docs/referee.md)
            "grace": grace,
        }
        if grace is not None or any("left_ms" in e for e in state["expects"]):
            # A timer runs: the table's clock when this state was made, so a reader that gets it
            # later (a panel started mid-window, from the retained copy) knows how old ``left_ms`` is.
            state["time"] = self.wall_clock()
        return state

    def _expects_view(self, expectations: list[Expectation]) -> list[dict[str, Any]]:
        """The expectations as JSON; a window the referee is timing also says what is left of it.

        ``left_ms`` is what is left when the state is made, so a page opened in the middle of a
        window counts down from there, not from the whole window. While the game is paused it is
        what was left at the pause (it stands still, as the timer does; the resume's state has
        the same time left, since ``gm._shift_timers`` moves the window's start by the pause).
        """
        out = [e.to_json() for e in expectations]
        if not self._windows or self.core.mismatch is not None:
            return out  # no window running (play holds while a mismatch stands)
        now = self.paused_at if self.core.gm.paused is not None and self.paused_at is not None else self.clock()
        for exp, view in zip(expectations, out, strict=True):  # out is made from expectations, one for one
            if exp.window_ms is None:
                continue
            opened = self._windows.get(repr(view))
            if opened is None:
                continue
            left = opened + exp.window_ms / 1000.0 - now
            view["left_ms"] = max(0, min(exp.window_ms, round(left * 1000)))
        return out

    def _grace_view(self) -> dict[str, Any] | None:
        """A tomb on its way between positions: how long it may take before that is a mismatch.

        The panel counts it down like an outcome window (``countdown.js``). Only a moving
        tomb's grace is shown: the short grace of other readings is the sensors settling.
        """
        if self._pending_since is None or not self.core.pending_moving_only or self.core.gm.paused is not None:
            return None
        moving = sorted(s for s, v in self.core.sensors.items() if s.startswith("tomb.") and v == "moving")
        if not moving:
            return None
        left = round(max(0.0, self._pending_since + self._grace_s() - self.clock()) * 1000)
        # window_ms: what is left of the grace (as before); left_ms: the same, named as an outcome window's.
        return {"kind": "tomb_moving", "sensors": moving, "window_ms": left, "left_ms": left}

    def private_views(self) -> dict[int, dict[str, Any]]:
        """Seat -> its player view and legal actions; the service seals each before publishing."""
        game = self.core.game
        if game is None:
            return {}
        seq = self.journal.last_seq()
        return {
            seat: {
                "seq": seq,
                "seat": seat,
                "game_id": self.core.game_id,
                "view": game.player_view(seat),
                "legal": [a.to_json() for a in self.core.commandable(game.legal_actions_for(seat), self.board)],
            }
            for seat in range(len(game.players))
        }
