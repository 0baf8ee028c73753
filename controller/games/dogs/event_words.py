"""Graveyard dogs' events in words: "Ann rolls 3 and 5", "the bat takes a red snack from Bo".

One wording for every reader: the terminal play, the history's step list and its readable export.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..base import Event, Game

TURNS = ("as printed", "turned a quarter clockwise", "turned upside down", "turned a quarter anticlockwise")


def _seat(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "a player"


def describe_event(game: Game, event: Event, viewer: int | None = None) -> str:
    """``event`` in words; an event this wording does not know is said by its name, in plain words."""
    d = event.data
    names = game.players
    who = _seat(names, d.get("seat"))
    kinds = {s["id"]: s["kind"] for s in game.public_view()["spooks"]}

    def token(kind: Any, ident: Any) -> str:
        return f"{_seat(names, ident)}'s dog" if kind == "dog" else f"the {kinds.get(ident, 'spook')}"

    texts: dict[str, Callable[[], str]] = {
        "tile_drawn": lambda: f"{who} draws a tile",
        "tile_placed": lambda: f"{who} places the tile, {TURNS[d.get('rotation', 0) % 4]}",
        "snack_placed": lambda: f"a {d['colour']} snack cube goes on a Jack-O-Lantern",
        "spook_placed": lambda: f"a {d['kind']} rises from a Gravestone",
        "dog_placed": lambda: f"{who}'s {d['colour']} dog comes into the graveyard",
        "turn_started": lambda: f"turn {d['turn']}: {who}",
        "dice_rolled": lambda: f"{who} rolls {d['dice'][0]} and {d['dice'][1]}"
        + (" (two Spook Actions: gargoyle)" if d.get("two_spook_actions") else ""),
        "die_chosen": lambda: (f"{who} uses the {d.get('value')} for the "
                               f"{str(d.get('action')).replace('_', ' ')} action"),
        "spook_action_skipped": lambda: "no spook is in the graveyard: the Spook Action is lost",
        "step_back": lambda: f"{who} takes the choice back",
        "dog_moved": lambda: f"{who}'s dog runs {d['steps']} squares",
        "snack_collected": lambda: f"{who} collects {', '.join(d['snacks'])}",
        "spook_picked": lambda: f"{who} picks the {d['kind']}",
        "spook_moved": lambda: f"the {d['kind']} glides on",
        "wrestled": lambda: f"wrestle: {d['rolls'][0]} against {d['rolls'][1]}"
        + (", a tie" if d.get("winner") is None else f", {_seat(names, d['winner'])} wins"
           + (f" a {d['snack']} snack" if d.get("snack") else " but there is nothing to take")),
        "attacked": lambda: f"{who} attacks the {d['kind']} and rolls {d['roll']}: "
        + ("captured!" if d.get("captured") else "it escapes"),
        "borked": lambda: f"{who} borks: {token(d.get('token'), d.get('id'))} jumps away",
        "bork_penalty": lambda: f"{who}'s Bork roll is {d['roll']}"
        + (f": a {d['lost']} snack is lost" if d.get("lost") else ""),
        "concern": lambda: f"{who}'s dog is concerned and rolls {d['roll']}"
        + (" and flees" if d.get("fled") or d.get("choosing") else ""),
        "dog_fled": lambda: f"{who}'s dog flees",
        "haunted": lambda: f"the {d['kind']} haunts {', '.join(_seat(names, s) for s in d.get('dogs', []))}",
        "haunt_missed": lambda: f"the {d['kind']} finds no dog to haunt",
        "haunt_refused": lambda: f"the {d.get('kind', 'spook')} cannot haunt: {d.get('reason', 'it has no room')}",
        "bat_robbed": lambda: f"the bat takes a {d.get('taken')} snack from {_seat(names, d.get('victim'))}",
        "special_skipped": lambda: f"{who} does nothing more",
        "attack_declined": lambda: f"{who} does not attack",
        # Not strict: an event without its scores still says the game is over.
        "game_over": lambda: "the game is over: " + ", ".join(
            f"{n} {s}" for n, s in zip(names, d.get("scores", []), strict=False)),
    }
    text = texts.get(event.type)
    try:
        return text() if text else event.type.replace("_", " ")
    except (KeyError, IndexError, TypeError):  # an event the engine reshaped: still say what it was
        return event.type.replace("_", " ")
