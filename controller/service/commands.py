"""The MQTT commands of the running controller: new_game, act, sim, resync, selftest.

Split from ``controller.service.service`` so that module keeps to its worker, views and
health. The handlers run where the service calls them: in its worker thread,
under its decision lock (see ``controller.service.service``).

``act`` comes in two forms (``docs/topics.md``). The sealed one carries
``seat`` and ``sealed`` (``controller.protocol.security.seal_command``): it is opened
here, its action must be that seat's, and its reply carries the error or data
sealed for that seat, so neither the action nor a refusal naming a card is
ever readable on the broker. A sealed body that cannot be opened is refused in
clear: nothing secret has been read at that point. The clear form (``action``)
stays for scripts, but an action of a kind the game keeps secret
(``Game.SECRET_ACTION_KINDS``) is refused in clear form: it has already crossed
the broker, so refusing protects nothing this time; it makes the mistake show
at once, in the caller's first test, instead of leaking every game.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from controller.protocol.commands import ENVELOPE, Command
from controller.protocol.payloads import check_players
from controller.protocol.security import SealError, seal_reply, unseal_command
from controller.service import gm_commands
from controller.service.context import TableContext, ViewHooks, selftest_hooks
from controller.service.gm_commands import GM_COMMANDS
from controller.store.journal import JournalError

if TYPE_CHECKING:  # the service imports the referee when it starts, not at import
    from controller.referee.live import Referee

log = logging.getLogger(__name__)

COMMANDS = ("new_game", "act", "sim", "resync", "selftest", *GM_COMMANDS)

# ok, error, reply data, and whether the game (so the views) may have changed.
# A field of the wrong type is bad input like any other: a ValueError, refused in words (the
# handler answers ValueError with a refusal, and anything else as an internal error).
Reply = tuple[bool, str | None, dict[str, Any] | None, bool]


class CommandHandler:
    """Answers the commands of :data:`COMMANDS` for one table, one at a time.

    ``views`` are refreshed by ``resync`` and given the self-test's report; ``flush_bounces``
    journals the sensors' bounce counts before a new game or a question about them.
    """

    def __init__(self, table: TableContext, views: ViewHooks, flush_bounces: Callable[[bool], None]) -> None:
        # The table's parts (referee, link, hub, journal) are read on each command:
        # they are created in start() and dropped in stop(), after this handler exists.
        self._table = table
        self._views = views
        self._flush_bounces = flush_bounces

    def handle(self, cmd: Command) -> bool:
        """Run ``cmd``, reply to its sender, and return whether the game may have changed."""
        table = self._table
        link = table.link
        assert link is not None
        seat: int | None = None
        run: Callable[[], Reply]
        try:
            # Spent before it runs, whatever comes of it: a capture replayed later, after a
            # restart too, finds the id taken (controller.protocol.commands, docs/topics.md).
            table.journal.use_command(cmd.id)
        except JournalError as exc:
            table.refused()
            link.reply(cmd.name, cmd.id, False,
                       error=f"the journal cannot be written, so the command was not taken: {exc}")
            return False
        stale = self._other_game(cmd) or self._moved_on(cmd)
        if stale is not None:
            table.refused()
            link.reply(cmd.name, cmd.id, False, error=stale)
            return False
        if cmd.name == "new_game" or (cmd.name == "history" and cmd.payload.get("op") == "sensors"):
            self._flush_bounces(True)  # the bounces so far: the game that ends, or the table asked for
        if cmd.name == "history":
            gm_commands.start_history(table, cmd)  # answered from its own thread (controller/service/gm_commands.py)
            return False
        try:
            if cmd.name == "act" and ({"seat", "sealed"} & set(cmd.payload)):
                seat, raw = self._open_sealed_act(cmd)
                run = functools.partial(self._act, cmd.id, raw, seat)
            elif cmd.name in GM_COMMANDS:
                run = functools.partial(gm_commands.handle, table, self._views, cmd)
            else:
                run = functools.partial(getattr(self, f"_cmd_{cmd.name}"), cmd)
        except ValueError as exc:
            # Refused before anything sealed was read, so the reason can go in clear.
            table.refused()
            link.reply(cmd.name, cmd.id, False, error=str(exc))
            return False
        try:
            ok, error, data, changed = run()
        except ValueError as exc:
            ok, error, data, changed = False, str(exc), None, False
        except Exception as exc:
            log.exception("%s command %s failed", cmd.name, cmd.id)
            # The referee restores itself from the journal when a decision fails half-way.
            ok, error, data, changed = False, f"internal error in {cmd.name}: {type(exc).__name__}", None, True
        if not ok:
            table.refused()
        if seat is None:
            link.reply(cmd.name, cmd.id, ok, error=error, data=data)
        else:
            # ok goes inside as well: the panel reads the verdict the seat's key vouches for.
            body: dict[str, Any] = {"ok": ok}
            if error is not None:
                body["error"] = error
            if data is not None:
                body["data"] = data
            link.reply(cmd.name, cmd.id, ok, sealed=seal_reply(table.token, table.table, seat, cmd.id, body))
        return changed

    def _other_game(self, cmd: Command) -> str | None:
        """Why ``cmd`` is refused for naming another game than the table's (``in_game``), or None.

        Anyone on the broker can keep a command from the table (by taking its client id for a
        moment) and publish it later: its id is unused and its time still fresh. The sender, seeing
        no answer, sends it again; then the held-back one would run too (a second new game over the
        one just started, a move from the game before). A command that names the game it was made
        in cannot run in any other. Clear-safe: nothing sealed has been read.
        """
        if "in_game" not in cmd.payload:
            return None
        named = cmd.payload["in_game"]
        if not isinstance(named, str) or not named:
            return f"{cmd.name}: 'in_game' must be the game_id of the game the command was made in (text)"
        current = self._table.referee.game_id
        if named == current:
            return None
        now = "no game" if current is None else "another game"
        return (f"{cmd.name}: this command was made for a game that is no longer on the table (it has {now} "
                "now): it was held back on the way, or sent from a page that had not caught up. Look at "
                "the table again and send it anew if it is still wanted")

    def _moved_on(self, cmd: Command) -> str | None:
        """Why ``cmd`` is refused for being made at another point of the game (``at_seq``), or None.

        An ``undo`` takes back the last step, whichever it is: held back and published after a
        retry, it took back the step before too. Made at the state the sender saw, it runs only there.
        """
        if "at_seq" not in cmd.payload:
            return None
        seen = cmd.payload["at_seq"]
        if isinstance(seen, bool) or not isinstance(seen, int) or seen < 0:
            return f"{cmd.name}: 'at_seq' must be the seq of the state the command was made at (0 or more)"
        last = self._table.journal.last_seq()
        if seen == last:
            return None
        if seen > last:
            return f"{cmd.name}: this command names a point of the game the table has not reached"
        more = last - seen
        return (f"{cmd.name}: the game went on since this command was made ({more} more "
                f"{'event' if more == 1 else 'events'}): it was held back on the way, or sent from a page "
                "that had not caught up. Look at the table again and send it anew if it is still wanted")

    def _open_sealed_act(self, cmd: Command) -> tuple[int, Any]:
        """The seat and the opened action of a sealed ``act``; ValueError (clear-safe text) if it is not one."""
        p = cmd.payload
        if "action" in p:
            raise ValueError("act: send either 'action' or 'seat' with 'sealed', not both")
        _only(p, {"seat", "sealed"}, "act")
        if "seat" not in p or "sealed" not in p:
            raise ValueError("act: a sealed act needs both 'seat' and 'sealed'")
        seat = p["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError(f"act: 'seat' must be a seat number, got {_json_type(seat)}")  # noqa: TRY004 - bad input, refused in words
        game = self._table.referee.game
        seats = len(game.players) if game is not None else 0
        if not 0 <= seat < seats:
            where = f"0 to {seats - 1}" if seats else "none: there is no game"
            raise ValueError(f"act: seat {seat} is not a seat of this game (seats: {where})")
        try:
            raw = unseal_command(self._table.token, self._table.table, seat, cmd.id, p["sealed"])
        except SealError as exc:
            raise ValueError(f"act: {exc}") from None
        return seat, raw

    def _cmd_act(self, cmd: Command) -> Reply:
        _only(cmd.payload, {"action"}, "act")
        if "action" not in cmd.payload:
            raise ValueError("act: missing 'action' ({\"kind\", \"player\", \"params\"}), "
                             "or 'seat' and 'sealed' for a sealed act")
        raw = cmd.payload["action"]
        game = self._table.referee.game
        kind = raw.get("kind") if isinstance(raw, dict) else None
        if game is not None and isinstance(kind, str) and kind in type(game).SECRET_ACTION_KINDS:
            raise ValueError(f"act: {kind!r} is a secret action: send it sealed ('seat' and 'sealed', "
                             "see docs/topics.md), never as a clear 'action'")
        return self._act(cmd.id, raw, None)

    def _act(self, command_id: str, raw: Any, seat: int | None) -> Reply:
        """Apply the action ``raw`` (from a clear or an opened sealed act) for ``seat`` if sealed."""
        from controller.games import Action

        table = self._table
        # Action.from_json is lenient for the terminal (text, empty params); a command is not:
        # a list where an object goes would otherwise be read as "no params" and played.
        if not isinstance(raw, dict):
            raise ValueError(f"act: 'action' must be an object {{\"kind\", \"player\", \"params\"}}, "  # noqa: TRY004 - bad input, refused in words
                             f"got {_json_type(raw)}")
        if raw.get("params") is not None and not isinstance(raw["params"], dict):
            raise ValueError(f"act: 'action.params' must be an object, got {_json_type(raw['params'])}")
        action = Action.from_json(raw)  # MalformedAction is a ValueError
        if seat is not None and action.player != seat:
            # The seat picks the key a player's page may use; it must also be whose move this is.
            raise ValueError(f"act: the action sealed for seat {seat} is for "
                             f"{'no seat' if action.player is None else f'seat {action.player}'}")
        held = selftest_hooks().halt(table) if table.hub is not None else None
        if held is not None:  # a hardware failure makes refereeing impossible (docs/selftest.md)
            return False, f"act: {held['message']}. {held['guidance']}", None, False
        outcome = table.referee.act(action, command_id=command_id)
        if not outcome.ok:
            return False, outcome.error, None, False
        data = dict(outcome.data or {})
        data["events"] = _public(outcome.events)
        return True, None, data, True

    def _cmd_new_game(self, cmd: Command) -> Reply:
        referee: Referee = self._table.referee  # typed here, so the call below is checked against it
        p = cmd.payload
        _only(p, {"game", "players", "seed", "options", "keep_seats"}, "new_game")
        game, players, seed, options = p.get("game"), p.get("players"), p.get("seed"), p.get("options")
        if not isinstance(game, str):
            raise ValueError("new_game: 'game' must be a game name")  # noqa: TRY004 - bad input, refused in words
        if not isinstance(players, list) or not all(isinstance(n, str) for n in players):
            raise ValueError("new_game: 'players' must be a list of names")
        problem = check_players(players)  # the rules of table.players: a name fits on the panel
        if problem is not None:
            raise ValueError(f"new_game: 'players' {problem}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError("new_game: 'seed' must be an integer 0 or more")
        if options is not None and not isinstance(options, dict):
            raise ValueError("new_game: 'options' must be an object")
        keep = p.get("keep_seats", False)
        if not isinstance(keep, bool):
            raise ValueError("new_game: 'keep_seats' must be true or false")
        virtual = self._table.config.simulate and self._table.hub is not None
        # The command id is journalled: a replayed new_game is refused.
        outcome = referee.new_game(game, players, seed, options,
                                   command_id=cmd.id, setting_up=virtual, keep_seats=keep)
        if not outcome.ok:
            # A refused board file: the data keeps the loader's message naming its entry, for scripts.
            return False, outcome.error, outcome.data, False
        if virtual:
            self._set_up_virtual_board()
        return True, None, {"game_id": referee.game_id, "events": _public(outcome.events)}, True

    def _set_up_virtual_board(self) -> None:
        """Under --simulate the virtual board is set up for the game just started, as players set up theirs.

        The last game's positions stayed, and a new game began with a mismatch. Each sensor the new game
        expects elsewhere is moved as a hand would (its observation comes back through the hub), inside the
        new game's grace period.
        """
        table = self._table
        game = table.referee.game
        hub = table.hub
        if game is None or hub is None:
            return
        now = {sensor: state.value for sensor, state in hub.snapshot().items()}
        for sensor, value in sorted(game.expected_board().items()):
            if sensor not in now or now[sensor] == value:
                continue
            try:
                hub.simulate(sensor, value)
            except (ValueError, RuntimeError) as exc:  # a sensor this board does not simulate: say so once
                log.warning("the virtual board could not set %s for the new game: %s", sensor, exc)

    def _cmd_sim(self, cmd: Command) -> Reply:
        table = self._table
        if not table.config.simulate or table.hub is None:
            return False, "sim: only available when the controller runs with --simulate", None, False
        _only(cmd.payload, {"sensor", "value"}, "sim")
        sensor, value = cmd.payload.get("sensor"), cmd.payload.get("value")
        if not isinstance(sensor, str) or not isinstance(value, str):
            raise ValueError("sim: 'sensor' and 'value' must be strings")  # noqa: TRY004 - bad input, refused in words
        from hardware.observation import sensor_values

        allowed = sensor_values(sensor)  # ValueError names an unknown sensor
        if value not in allowed:
            raise ValueError(f"sim: sensor {sensor!r} cannot be {value!r} (one of {', '.join(allowed)})")
        # The observation comes back through the hub's callback, like a real edge.
        table.hub.simulate(sensor, value)
        return True, None, None, False

    def _cmd_resync(self, cmd: Command) -> Reply:
        table = self._table
        assert table.link is not None
        _only(cmd.payload, set(), "resync")
        self._views.refresh()
        self._views.publish_health(force=True)
        table.link.refresh_all()
        return True, None, {"seq": table.journal.last_seq()}, False

    def _cmd_selftest(self, cmd: Command) -> Reply:
        try:
            module = importlib.import_module("hardware.selftest")
            run = module.run_for_service
        except (ImportError, AttributeError):
            return False, "selftest: the self-test is not available in this build", None, False
        payload = {k: v for k, v in cmd.payload.items() if k not in ENVELOPE}
        report = run(self._table.hub, payload, self._views.set_selftest_report)
        return True, None, report if isinstance(report, dict) else None, False


def _only(payload: Mapping[str, Any], allowed: set[str], name: str) -> None:
    unknown = sorted(set(payload) - allowed - ENVELOPE)
    if unknown:
        raise ValueError(f"{name}: unknown field(s): {', '.join(unknown)}")


def _json_type(value: Any) -> str:
    """The JSON name of a value's type, for a sender who wrote JSON, not Python."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _public(events: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    keep = ("seq", "table", "type", "time", "data")
    return [{k: e.get(k) for k in keep} for e in events or []]
