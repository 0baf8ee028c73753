"""Each table's past games, from its journal: the list, a step-by-step replay, exports, sensor statistics.

Everything here is public: it goes out as a command reply on the broker,
which anyone may read. So a step shows what a spectator saw then: the public
events and the public view of the board. A secret move (a card played from a
hand) is told by its public events, never by the action as it was sent. Hands
are shown only for a finished game, and only when the table's setting
``table.reveal_hands`` says so.

A game is replayed from its own ``new_game`` input (which carries the board
state before it), so one game costs the inputs of that game only. Finished
games never change, so their summaries are cached by game id. The journal only
grows, so what was read of it is kept too: which game each ``new_game`` input
began (read once per game), the sensor counts of every input read so far
(each call reads only the inputs that landed since), and the steps of the last
few games asked for (a game replayed and worded once, until an input lands in it:
a game of 450 events took 25 to 140 ms a request on a busy two-core desktop, kept under 1 ms).
What is kept is kept per journal file: the service opens the journal anew for each request.
"""

from __future__ import annotations

import json
import os
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.games.base import Action, Game
from controller.referee.core import RefereeCore
from controller.referee.guidance import label
from controller.referee.replay import describe_event, describe_input
from controller.store.journal import Journal
from gravekeeper.errors import GravekeeperError

MAX_EXPORT_CHARS = 900_000  # a reply stays under the panel's 1 MiB message limit
STEPS_KEPT = 8  # games whose steps are kept (a long game's are a few hundred KiB)
_REFEREE_EVENTS = {"game_started", "mismatch", "mismatch_cleared", "undone", "undo_requested", "undo_declined",
                   "paused", "resumed", "corrected"}


class HistoryError(GravekeeperError, ValueError):
    """A history request that cannot be answered (an unknown game, a step out of range)."""


@dataclass
class _Game:
    game_id: str
    start: int  # its new_game input id
    end: int | None  # the next game's new_game input id (exclusive), None: the latest game
    started: float


@dataclass
class Step:
    n: int
    input_id: int
    time: float
    kind: str
    text: str
    events: list[dict[str, Any]] = field(default_factory=list)


def _games(journal: Journal) -> list[_Game]:
    starts = journal.input_ids("new_game")
    out: list[_Game] = []
    for i, (input_id, at) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else None
        out.append(_Game(game_id="", start=input_id, end=end, started=at))
    return out


def _inputs(journal: Journal, game: _Game) -> Iterator[dict[str, Any]]:
    for entry in journal.inputs(game.start):
        if game.end is not None and entry["id"] >= game.end:
            return
        yield entry


def _file_of(journal: Journal) -> tuple[str, str, int, int]:
    """Which journal file and table ``journal`` reads: another file at the same path is another journal."""
    st = os.stat(journal.path)
    return str(journal.path.resolve()), journal.table, st.st_dev, st.st_ino


def _core_for(entry: dict[str, Any]) -> RefereeCore:
    core = RefereeCore()
    carry = entry["payload"].get("carry")
    if carry is not None:
        core.load_board_state(carry)
    return core


def _public_event(e: dict[str, Any], game: Game | None) -> dict[str, Any]:
    """The event as anyone may see it, with its words (``text``) for the readable record."""
    public = {k: e.get(k) for k in ("seq", "type", "time", "data")}
    public["text"] = describe_event(public, game)
    return public


def _step_text(core: RefereeCore, entry: dict[str, Any]) -> str:
    """The step in words, as a spectator may read it (worded with the game just before it)."""
    kind, payload = entry["kind"], entry["payload"]
    if kind == "command" and core.game is not None:
        try:
            action = Action.from_json(payload.get("action"))
        except ValueError:
            return "a move"
        if action.kind in type(core.game).SECRET_ACTION_KINDS:
            # The action as sent may name a held card; what it did is in its public events.
            seat = action.player
            players = core.game.players
            who = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "a player"
            return f"{who} plays a secret move"  # what it did is told by its public events
    return describe_input(core, kind, payload)


def _trouble(row: dict[str, Any]) -> tuple[int, int, int, str, str]:
    """Most trouble first: the game master looks for the switch to mend, not for a sensor's id.

    A sensor marked broken comes first, then the most bounces and mismatches together (each is a
    reading the game could not take as it came); ties by name, so the order is the same each time.
    """
    return (-row["broken"], -(row["bounces"] + row["mismatches"]), -row["bounces"], row["label"], row["sensor"])


class History:
    """History of one table's journal. Not thread-safe: one request at a time (the service's history thread)."""

    def __init__(self, reveal_hands: bool = False) -> None:
        self.reveal_hands = reveal_hands
        self._journal: tuple[str, str, int, int] | None = None  # the journal file everything below was read from
        self._summaries: dict[int, dict[str, Any]] = {}  # finished games, by new_game input id
        self._game_ids: dict[int, str] = {}  # new_game input id -> the id of the game it began
        self._starts: dict[str, int] = {}  # the other way round
        self._sensor_rows: dict[str, dict[str, Any]] = {}  # per sensor, counted from the inputs read
        self._sensors_next = 0  # the first input id sensors() has not counted yet
        # new_game input id -> (the journal's last input id when read, None: the game is over and a
        # later one began; the steps answer), the game asked for last at the end.
        self._steps: OrderedDict[int, tuple[int | None, dict[str, Any]]] = OrderedDict()

    def _bind(self, journal: Journal) -> None:
        """Forget what was read of another journal (the caches hold only what one journal file said)."""
        file = _file_of(journal)
        if file != self._journal:
            self._journal = file
            self._summaries.clear()
            self._game_ids.clear()
            self._starts.clear()
            self._sensor_rows.clear()
            self._sensors_next = 0
            self._steps.clear()

    # ----- the list ---------------------------------------------------------------------
    def games(self, journal: Journal) -> list[dict[str, Any]]:
        """Every game of the table, newest first."""
        self._bind(journal)
        return list(reversed([self._cached_summary(journal, game) for game in _games(journal)]))

    def _cached_summary(self, journal: Journal, game: _Game) -> dict[str, Any]:
        """The game's summary, kept once the game can no longer change (over, or a later game began)."""
        cached = self._summaries.get(game.start)
        if cached is None:
            cached = self._summary(journal, game)
            if cached["over"] or game.end is not None:
                self._summaries[game.start] = cached
        return cached

    def _summary(self, journal: Journal, game: _Game) -> dict[str, Any]:
        core: RefereeCore | None = None
        last = game.started
        counts = {"mismatches": 0, "corrections": 0, "undos": 0, "moves": 0}
        for entry in _inputs(journal, game):
            if core is None:
                core = _core_for(entry)
            core.decide(entry["kind"], entry["payload"])
            last = entry["time"]
            types = [e["type"] for e in entry["events"]]
            counts["mismatches"] += types.count("mismatch")
            counts["corrections"] += types.count("corrected")
            counts["undos"] += types.count("undone")
            if any(t not in _REFEREE_EVENTS for t in types) and entry["kind"] != "new_game":
                counts["moves"] += 1
        assert core is not None and core.game is not None
        g = core.game
        return {
            "game_id": core.game_id,
            "game": core.game_name,
            "title": g.title,
            "players": list(g.players),
            "started": game.started,
            "last": last,
            "length_s": round(last - game.started, 1),
            "over": g.is_over,
            "in_progress": not g.is_over and game.end is None,
            "winners": [g.players[s] for s in g.winners],
            **counts,
        }

    def _find(self, journal: Journal, game_id: str) -> _Game:
        self._bind(journal)
        games = _games(journal)  # the new_game inputs, from their index: a new game shows at once
        for summary_start, summary in self._summaries.items():
            self._remember(summary_start, summary["game_id"])
        start = self._starts.get(game_id)
        if start is None:
            # Newest first: the game in progress is the one asked for most. Each game's first input
            # is read once, ever: which game an input began never changes.
            for game in reversed(games):
                if game.start not in self._game_ids:
                    first = next(iter(journal.inputs(game.start)), None)
                    self._remember(game.start, first["payload"].get("game_id") if first is not None else None)
                    if game.start == self._starts.get(game_id):
                        break
            start = self._starts.get(game_id)
        found = next((g for g in games if g.start == start), None) if start is not None else None
        if found is None:
            raise HistoryError(f"no game {game_id!r} in this table's history")
        found.game_id = game_id
        return found

    def _remember(self, start: int, game_id: Any) -> None:
        if isinstance(game_id, str) and start not in self._game_ids:
            self._game_ids[start] = game_id
            self._starts.setdefault(game_id, start)

    # ----- one game, step by step ----------------------------------------------------------
    def steps(self, journal: Journal, game_id: str) -> dict[str, Any]:
        """The game's steps in words (only inputs that changed something), with their public events.

        Kept until an input lands in the game (a game a later one followed never changes). The
        answer's parts are shared with what is kept: read them, never change them.
        """
        game = self._find(journal, game_id)
        # Read before the replay: an input landing during it makes the next request replay again.
        at = None if game.end is not None else journal.last_input_id()
        kept = self._steps.get(game.start)
        if kept is not None and kept[0] == at:
            self._steps.move_to_end(game.start)
            return dict(kept[1])
        steps, core = self._replay(journal, game, None)
        assert core.game is not None
        data = {"game_id": game_id, "game": core.game_name, "title": core.game.title,
                "players": list(core.game.players), "over": core.game.is_over,
                "steps": [s.__dict__ for s in steps]}
        self._steps[game.start] = (at, data)
        self._steps.move_to_end(game.start)
        while len(self._steps) > STEPS_KEPT:
            self._steps.popitem(last=False)
        return dict(data)

    def board_at(self, journal: Journal, game_id: str, n: int) -> dict[str, Any]:
        """What the table showed after step ``n`` (0: the game as it started): enough to draw the board."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HistoryError(f"step must be a whole number 0 or more, got {n!r}")
        game = self._find(journal, game_id)
        steps, core = self._replay(journal, game, n)
        if n >= len(steps):
            raise HistoryError(f"this game has steps 0 to {len(steps) - 1}, not {n}")
        g = core.game
        assert g is not None
        out: dict[str, Any] = {
            "game_id": game_id, "game": core.game_name, "step": n,
            "text": steps[n].text, "time": steps[n].time,
            "players": list(g.players), "current_player": g.current_player, "over": g.is_over,
            "winners": list(g.winners), "view": g.public_view(), "mismatch": core.mismatch,
            "legal": [], "expects": [], "hands": None,
        }
        if self.reveal_hands and self._final_over(journal, game):  # the whole game's replay: only when it can matter
            public = g.public_view()
            out["hands"] = [{"seat": s, "player": name,
                             "hand": {k: v for k, v in g.player_view(s).items() if public.get(k) != v}}
                            for s, name in enumerate(g.players)]
        return out

    def _final_over(self, journal: Journal, game: _Game) -> bool:
        return bool(self._cached_summary(journal, game)["over"])

    def _replay(self, journal: Journal, game: _Game, upto: int | None) -> tuple[list[Step], RefereeCore]:
        core: RefereeCore | None = None
        steps: list[Step] = []
        for entry in _inputs(journal, game):
            if core is None:
                core = _core_for(entry)
            text = _step_text(core, entry)  # never a secret move's action as sent
            core.decide(entry["kind"], entry["payload"])
            if entry["events"] or entry["kind"] in ("new_game", "gm"):
                steps.append(Step(len(steps), entry["id"], entry["time"], entry["kind"], text,
                                  [_public_event(e, core.game) for e in entry["events"]]))
                if upto is not None and len(steps) > upto:
                    break
        assert core is not None
        return steps, core

    # ----- exports ---------------------------------------------------------------------------
    def export(self, journal: Journal, game_id: str, fmt: str) -> dict[str, Any]:
        """The game as JSON lines (one step a line) or as a readable record."""
        data = self.steps(journal, game_id)
        if fmt == "jsonl":
            head = {k: data[k] for k in ("game_id", "game", "title", "players", "over")}
            lines = [json.dumps({"record": "game", **head}, sort_keys=True)]
            lines += [json.dumps({"record": "step", **s}, sort_keys=True) for s in data["steps"]]
            text = "\n".join(lines) + "\n"
            name = f"{data['game']}-{game_id}.jsonl"
        elif fmt == "text":
            lines = [f"{data['title']}: {', '.join(data['players'])}"]
            for s in data["steps"]:
                stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s["time"]))
                lines.append(f"{s['n']:>4}  {stamp}  {s['text']}")
                lines += [f"        {e.get('text') or describe_event(e)}" for e in s["events"]]
            text = "\n".join(lines) + "\n"
            name = f"{data['game']}-{game_id}.txt"
        else:
            raise HistoryError(f"export format must be jsonl or text, got {fmt!r}")
        if len(text) > MAX_EXPORT_CHARS:
            raise HistoryError(f"this game's record is {len(text)} characters, too long to send; "
                               "use `gravekeeper replay` on the journal")
        return {"name": name, "format": fmt, "content": text}

    # ----- sensors --------------------------------------------------------------------------
    def sensors(self, journal: Journal) -> dict[str, Any]:
        """Per sensor, across every game: readings, mismatches, corrections, times marked broken, and bounces.

        Bounces are journalled per game by the running controller (``controller/store/bounce_ledger.py``):
        ``bounces`` is their sum over every game, ``bounce_games`` how many games saw any.
        The list is in order of trouble (:func:`_trouble`), the worst first.
        """
        self._bind(journal)
        counted = self._sensor_rows

        def row(stats: dict[str, dict[str, Any]], sensor: str) -> dict[str, Any]:
            return stats.setdefault(sensor, {"sensor": sensor, "label": label(sensor), "readings": 0,
                                             "mismatches": 0, "corrections": 0, "broken": 0,
                                             "bounces": 0, "bounce_games": 0})

        # Only the inputs that landed since the last call: the ones before are counted already.
        for entry in journal.inputs(self._sensors_next):
            if entry["kind"] == "observation":
                row(counted, str(entry["payload"].get("sensor")))["readings"] += 1
            for e in entry["events"]:
                data = e.get("data") or {}
                if e["type"] == "mismatch":
                    for sensor in data.get("sensors") or {}:
                        row(counted, sensor)["mismatches"] += 1
                elif e["type"] == "corrected":
                    if data.get("op") == "broken" and isinstance(data.get("sensor"), str):
                        row(counted, data["sensor"])["broken"] += 1
                    for sensor in data.get("sensors") or []:
                        row(counted, sensor)["corrections"] += 1
            self._sensors_next = entry["id"] + 1

        # Bounces are journalled apart from the inputs, and a game's are rewritten as it goes: read each time.
        stats = {sensor: dict(counts) for sensor, counts in counted.items()}
        for _game_id, sensor, bounces in journal.sensor_counts():
            bounced = row(stats, sensor)
            bounced["bounces"] += bounces
            bounced["bounce_games"] += 1
        return {"sensors": sorted(stats.values(), key=_trouble)}
