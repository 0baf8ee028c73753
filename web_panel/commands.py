"""Checking a command from the browser before it is signed and sent to a table.

The controller checks every command again (and is the judge of the rules);
this check exists so that a malformed form gets a precise reason at once,
and so that the panel never signs something it does not understand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from controller.games import GAME_NAMES, Action, MalformedAction
from controller.protocol.payloads import check_players, sensor_values
from gravekeeper.errors import GravekeeperError

from .gm_commands import GM_CHECKS, GM_COMMANDS, GmCommandError
from .house_rules import HouseRuleError, check_house_rules

COMMANDS = ("new_game", "act", "sim", "resync", "selftest", *GM_COMMANDS)
MAX_BODY = 16 * 1024  # the controller refuses bigger commands too
MAX_PLAYERS = 8
# ASCII digits only: str.isdigit() also passes superscripts, which int() refuses, and a doubled minus.
_INT_TEXT = re.compile(r"-?[0-9]{1,30}", re.ASCII)


class PanelCommandError(GravekeeperError, ValueError):
    """A command from the browser is malformed; the message names the bad field."""


def _no_extra(name: str, body: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise PanelCommandError(f"{name}: unknown field(s): {', '.join(extra)}")


def _int(value: Any, what: str) -> int:
    """An integer from JSON or from a form field (which arrives as text)."""
    if isinstance(value, bool):
        raise PanelCommandError(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    raise PanelCommandError(f"{what} must be a whole number, got {value!r}")


def _new_game(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("new_game", body, {"game", "players", "seed", "options", "keep_seats"})
    game = body.get("game")
    if game not in GAME_NAMES:
        raise PanelCommandError(f"new_game: game must be one of {', '.join(GAME_NAMES)}, got {game!r}")
    players = body.get("players")
    if isinstance(players, str):
        players = [p.strip() for p in players.replace("\n", ",").split(",") if p.strip()]
    if not isinstance(players, list) or not players:
        raise PanelCommandError("new_game: players must be a non-empty list of names")
    if len(players) > MAX_PLAYERS:
        raise PanelCommandError(f"new_game: at most {MAX_PLAYERS} players, got {len(players)}")
    names = [p.strip() if isinstance(p, str) else p for p in players]
    problem = check_players(names)  # the table's own rule (config and command), checked before signing
    if problem is not None:
        raise PanelCommandError(f"new_game: players {problem}")
    out: dict[str, Any] = {"game": game, "players": names}
    seed = body.get("seed")
    if seed is not None and seed != "":
        seed = _int(seed, "new_game: seed")
        if not 0 <= seed < 2**63:
            raise PanelCommandError("new_game: seed must be from 0 to 2^63 - 1")
        out["seed"] = seed
    options = body.get("options")
    if options is not None:
        if not isinstance(options, dict):
            raise PanelCommandError("new_game: options must be an object")
        try:
            check_house_rules(game, options)
        except HouseRuleError as exc:
            raise PanelCommandError(f"new_game: {exc}") from None
        out["options"] = options
    keep = body.get("keep_seats")
    if keep is not None:
        if not isinstance(keep, bool):
            raise PanelCommandError("new_game: keep_seats must be true or false")
        if keep:
            out["keep_seats"] = True  # the same players stay on their phones (docs/panel.md)
    return out


def _act(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("act", body, {"action"})
    if "action" not in body:
        raise PanelCommandError("act: the action is missing")
    try:
        action = Action.from_json(body["action"])
    except MalformedAction as exc:
        raise PanelCommandError(f"act: {exc}") from None
    if action.player is not None and not 0 <= action.player < MAX_PLAYERS:
        raise PanelCommandError(f"act: player must be a seat from 0 to {MAX_PLAYERS - 1}, got {action.player}")
    return {"action": action.to_json()}


def _sim(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("sim", body, {"sensor", "value"})
    sensor, value = body.get("sensor"), body.get("value")
    if not isinstance(sensor, str):
        raise PanelCommandError("sim: sensor must be a sensor id such as tomb.wolf")
    try:
        allowed = sensor_values(sensor)
    except ValueError as exc:
        raise PanelCommandError(f"sim: {exc}") from None
    if value not in allowed:
        raise PanelCommandError(f"sim: sensor {sensor!r} cannot be {value!r} (one of {', '.join(allowed)})")
    return {"sensor": sensor, "value": value}


def _resync(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("resync", body, set())
    return {}


def _selftest(body: Mapping[str, Any]) -> dict[str, Any]:
    _no_extra("selftest", body, {"guided", "skip"})
    out: dict[str, Any] = {}
    if "guided" in body:
        if not isinstance(body["guided"], bool):
            raise PanelCommandError("selftest: guided must be true or false")
        out["guided"] = body["guided"]
    if "skip" in body:
        skip = body["skip"]
        # The panel signs only what it understands: a list holds names, nothing else.
        if not isinstance(skip, (bool, str, list)) or (
                isinstance(skip, list) and not all(isinstance(n, str) for n in skip)):
            raise PanelCommandError("selftest: skip must be true, a check name or a list of check names")
        out["skip"] = skip
    return out


_CHECKS = {"new_game": _new_game, "act": _act, "sim": _sim, "resync": _resync, "selftest": _selftest, **GM_CHECKS}


def validate(name: str, body: Any) -> dict[str, Any]:
    """The fields to sign and send for command ``name``; ``PanelCommandError`` if malformed."""
    check = _CHECKS.get(name)
    if check is None:
        raise PanelCommandError(f"unknown command {name!r} (one of {', '.join(COMMANDS)})")
    if not isinstance(body, Mapping):
        raise PanelCommandError(f"{name}: the command must be a JSON object")
    try:
        return check(body)
    except GmCommandError as exc:
        raise PanelCommandError(str(exc)) from None
