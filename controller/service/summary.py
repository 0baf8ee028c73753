"""A table at a glance, in plain words: the retained ``gravekeeper/<t>/summary`` topic.

Built from the public state and the sensors only, so it holds no secret. Home
Assistant's entities read it (``controller.mqtt.homeassistant``), and so can any
dashboard that wants "Ann to play" rather than seat numbers and sensor ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.effects.words import TRAP_WORDS
from controller.games import game_title

TOMB_WORDS = {"end_a": "end A", "middle": "the middle", "end_b": "end B", "moving": "moving",
              "fault": "two positions at once (check the wiring)"}
TRAP_STATE_WORDS = {"cocked": "cocked", "sprung": "sprung"}
GHOST_WORDS = {"armed": "on its launcher", "launched": "flown off"}
TOMBS = ("mummy", "monster", "wolf")
TRAPS = ("ladder", "mirror", "grave1", "grave2")


def build_summary(state: Mapping[str, Any], sensors: Mapping[str, str]) -> dict[str, Any]:
    """``state`` is the retained public state; ``sensors`` maps sensor ids to their values."""
    game = state.get("game")
    players = [str(p) for p in state.get("players") or []]
    seat = state.get("current_player")
    turn = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None
    winners = [players[w] for w in state.get("winners") or [] if isinstance(w, int) and 0 <= w < len(players)]
    mismatch = state.get("mismatch")
    out: dict[str, Any] = {
        "seq": state.get("seq"),
        "game": game,
        "title": game_title(str(game), "No game") if game else "No game",
        "players": ", ".join(players),
        "turn": turn or "nobody",
        "waiting_for": state.get("waiting_for") or ("The game is over." if state.get("over") else "Nothing."),
        "over": bool(state.get("over")),
        "winners": " and ".join(winners) if winners else "nobody yet",
        "mismatch": mismatch is not None,
        "mismatch_text": (mismatch or {}).get("message") or "The board matches the game.",
        # The club list shows a paused table from its summary alone (it reads no state it does not show).
        "paused": bool(gm.get("paused")) if isinstance(gm := state.get("gm"), Mapping) else False,
    }
    if game == "terror":
        view = state.get("view") or {}
        tombs = view.get("tombs") if isinstance(view, Mapping) else None
        for tomb in TOMBS:
            sensed = sensors.get(f"tomb.{tomb}")
            ruled = tombs.get(tomb) if isinstance(tombs, Mapping) else None
            value = sensed if sensed is not None else ruled
            out[f"tomb_{tomb}"] = TOMB_WORDS.get(str(value), "unknown")
        out["ghost"] = GHOST_WORDS.get(sensors.get("launcher", ""), "unknown")
    elif game == "superstition":
        for trap in TRAPS:
            # Only whether it is sprung: which peg is live is a secret (DESIGN.md, hidden information).
            out[f"trap_{trap}"] = TRAP_STATE_WORDS.get(sensors.get(f"trap.{trap}.sprung", ""), "unknown")
    return out


__all__ = ["TRAP_WORDS", "build_summary"]
