"""Matching events against a pack, and playing the cues off the referee's path.

:class:`Effects` turns one journalled event into the cues of every rule that
matches it, with spoken lines filled in plain words from the event's public
data. :class:`EffectsPlayer` does the playing in a thread of its own: the
referee hands it events with :meth:`EffectsPlayer.offer`, which never blocks
(a full queue drops the oldest batch and counts it), so a slow output, a dead
speaker or a stalled broker can never delay a decision or lose an event. The
player publishes every cue on ``gravekeeper/<t>/effects`` and runs light
patterns on the Pi's own outputs.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import string
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.effects.pack import BadPack, Pack, Rule, default_pack_path, load_pack
from controller.effects.words import fields, seat_of

log = logging.getLogger(__name__)

QUEUE_BATCHES = 256
STALE_S = 10.0  # an event older than this (a backlog after an outage) plays nothing
# The player waits for the referee to be quiet for QUIET_S before it plays (it shares the interpreter
# with the decisions), but never holds a cue back more than MAX_DELAY_S: sound and light within 50 ms
# still feel instant. It plays at most SLICE events before it looks again.
QUIET_S = 0.003
MAX_DELAY_S = 0.04
SLICE = 4


@dataclass(frozen=True)
class Played:
    """The cues of one event, as published."""

    seq: int | None
    event: str
    rules: tuple[str, ...]
    cues: tuple[dict[str, Any], ...]
    # The seat the event is about (its turn, its pawn), or None: a player's phone at a table with a
    # speaker speaks only these of its own (docs/effects.md, "In the panel").
    seat: int | None = None

    def to_json(self, table: str) -> dict[str, Any]:
        return {"table": table, "seq": self.seq, "event": self.event, "seat": self.seat, "rules": list(self.rules),
                "cues": list(self.cues)}


class Effects:
    """One game's pack, and the words to fill its spoken lines."""

    def __init__(self, game: str, pack: Pack) -> None:
        self.game = game
        self.pack = pack

    def cues_for(self, event: Mapping[str, Any], players: Sequence[str]) -> Played | None:
        event_type = str(event.get("type", ""))
        data = event.get("data") or {}
        if not isinstance(data, Mapping):
            return None
        rules = self.pack.rules_for(event_type, data)
        if not rules:
            return None
        words = fields(self.game, event_type, data, players)
        seat = seat_of(data)
        cues: list[dict[str, Any]] = []
        for rule in rules:
            cues.extend(c for c in (_render(cue.to_json(), words, seat) for cue in rule.cues) if c is not None)
        if not cues:
            return None
        seq = event.get("seq")
        return Played(seq if isinstance(seq, int) else None, event_type, tuple(r.name for r in rules), tuple(cues),
                      seat if seat is not None and 0 <= seat < len(players) else None)


def _render(cue: dict[str, Any], words: Mapping[str, str | None], seat: int | None) -> dict[str, Any] | None:
    if cue["kind"] == "say":
        needed = [f for _, f, _, _ in string.Formatter().parse(cue["value"]) if f]
        if any(words.get(f) is None for f in needed):
            return None  # a line with a hole in it is worse than silence
        cue["value"] = cue["value"].format(**{f: words[f] for f in needed})
    elif cue["kind"] == "vibrate" and cue["value"] == "player":
        if seat is None:
            return None
        cue["seat"] = seat
    return cue


def load_effects(game: str, path: str | Path | None) -> tuple[Effects, str | None]:
    """The game's pack: ``path`` if given and good, else the shipped default; plus the error, if any.

    A bad owner's pack must not stop the table: it runs on the defaults and the
    error (one line naming the rule and the key) is logged and shown in health.
    """
    error: str | None = None
    if path is not None:
        try:
            return Effects(game, load_pack(path)), None
        except BadPack as exc:
            error = str(exc)
            log.error("%s; playing the default effects instead", error)
    return Effects(game, load_pack(default_pack_path(game))), error


class EffectsPlayer:
    """Plays cues in its own thread; :meth:`offer` never blocks the caller."""

    def __init__(
        self,
        table: str,
        effects: Callable[[], Effects | None],
        players: Callable[[], Sequence[str]],
        publish: Callable[[dict[str, Any]], None],
        lights: Callable[[str, Mapping[str, Any]], None] | None = None,
        also: Callable[[Mapping[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._table = table
        self._effects = effects
        self._players = players
        self._publish = publish
        self._lights = lights
        self._also = also  # told of every event that is not stale (Home Assistant's device triggers)
        self._clock = clock
        self._queue: collections.deque[tuple[float, list[Mapping[str, Any]]]] = collections.deque(maxlen=QUEUE_BATCHES)
        self._last_offer = 0.0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._busy = False  # a batch is being played (drain waits for it)
        self.counters = {"events": 0, "played": 0, "dropped": 0, "stale": 0, "failed": 0}
        # What is failing now ("the light 'lamp'", "Home Assistant's device triggers") -> the first error:
        # logged once when it starts failing and once when it works again, not once per cue.
        self._faults: dict[str, str] = {}

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="gk-effects", daemon=True)
            self._thread.start()

    def offer(self, events: Sequence[Mapping[str, Any]]) -> None:
        """Queue events to play (any thread, never blocks); the oldest batch goes when it is full."""
        if not events or self._stop.is_set():
            return
        batch = list(events)  # the journal's own copies: the player only reads them
        now = time.monotonic()
        with self._cond:
            if len(self._queue) == self._queue.maxlen:
                self.counters["dropped"] += len(self._queue[0][1])
            self._queue.append((now, batch))
            self._last_offer = now
            self._cond.notify()

    def drain(self, timeout: float = 2.0) -> bool:
        """Wait until every queued event has been played (tests, stop)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread; idempotent. What is still queued is not played."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("the effects thread did not stop within %.1f s", timeout)

    def _run(self) -> None:
        pending: collections.deque[Mapping[str, Any]] = collections.deque()
        while not self._stop.is_set():
            with self._cond:
                while not self._queue and not pending and not self._stop.is_set():
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait()
                # A quiet moment first: decisions often come in bursts (a tomb slide and its pawns).
                while not self._stop.is_set():
                    now = time.monotonic()
                    oldest = self._queue[0][0] if self._queue else now
                    quiet = now - self._last_offer
                    if quiet >= QUIET_S or now - oldest >= MAX_DELAY_S or (pending and not self._queue):
                        break
                    self._cond.wait(min(QUIET_S - quiet, MAX_DELAY_S - (now - oldest)))
                if self._stop.is_set():
                    return
                if not pending and self._queue:
                    pending.extend(self._queue.popleft()[1])  # one batch at a time: the queue's bound holds
                self._busy = True
            for _ in range(min(SLICE, len(pending))):
                event = pending.popleft()
                with self._guard(f"the cues of {event.get('type')!s}"):
                    self._play(event)

    @property
    def faults(self) -> list[str]:
        """What is failing now, in words (health)."""
        return sorted(f"{what}: {error}" for what, error in self._faults.items())

    @contextlib.contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        """Run one part of playing; a failure is counted, and logged only when ``what`` starts failing."""
        try:
            yield
        except Exception as exc:
            self.counters["failed"] += 1
            if what not in self._faults:
                self._faults[what] = str(exc) or type(exc).__name__
                log.exception("effects: %s failed; the other cues still play, and this is not logged again "
                              "until it works", what)
        else:
            if what in self._faults:
                del self._faults[what]
                log.info("effects: %s works again", what)

    def _play(self, event: Mapping[str, Any]) -> None:
        self.counters["events"] += 1
        at = event.get("time")
        if isinstance(at, (int, float)) and self._clock() - at > STALE_S:
            self.counters["stale"] += 1  # a backlog after an outage: the moment has passed
            return
        if self._also is not None:
            with self._guard("Home Assistant's device triggers"):
                self._also(event)
        effects = self._effects()
        if effects is None:
            return
        played = effects.cues_for(event, self._players())
        if played is None:
            return
        self.counters["played"] += 1
        with self._guard("publishing on the effects topic"):
            self._publish(played.to_json(self._table))
        if self._lights is not None:
            for cue in played.cues:
                if cue["kind"] == "light":
                    with self._guard(f"the light {cue['value']!r}"):
                        self._lights(cue["value"], cue)


__all__ = ["Effects", "EffectsPlayer", "Played", "Rule", "load_effects"]
