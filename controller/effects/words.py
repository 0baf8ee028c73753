"""The plain words a spoken line is filled with: "Ann's girl", "the Wolf tomb", "the Ladder".

Each word is taken from an event's public ``data`` only (never its secret), and
is ``None`` when the event does not carry it, so that a line that needs a word
the event lacks is not spoken at all rather than spoken with a hole in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.games import game_title
from controller.games.terror import POSITION_WORDS
from controller.games.words import listed

TRAP_WORDS = {"ladder": "the Ladder", "mirror": "the Mirror", "grave1": "the first Grave",
              "grave2": "the second Grave"}
PAWN_WORDS = {"girl": "girl", "boy": "boy"}


def name_of(players: Sequence[str], seat: Any) -> str | None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(players):
        return None
    return players[seat]


def seat_of(data: Mapping[str, Any]) -> int | None:
    """The seat an event is about: ``seat`` in Terror and Dogs, ``player`` in Superstition."""
    for key in ("seat", "player"):
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _pawn(players: Sequence[str], ref: Any) -> str | None:
    """``{"seat": 0, "label": "girl"}`` -> "Ann's girl"."""
    if not isinstance(ref, Mapping):
        return None
    owner = name_of(players, ref.get("seat"))
    label = PAWN_WORDS.get(str(ref.get("label")))
    return f"{owner}'s {label}" if owner and label else None


def _title(value: Any) -> str | None:
    if isinstance(value, Mapping):
        title = value.get("title")
        return str(title) if isinstance(title, str) else None
    return None


def _spoken_id(value: Any) -> str | None:
    """"the_raven" -> "The Raven" (a Whammy's or Charm's id, when its name is not in the event)."""
    if not isinstance(value, str) or not value:
        return None
    return " ".join(w.capitalize() for w in value.split("_"))


def fields(game: str, event_type: str, data: Mapping[str, Any], players: Sequence[str]) -> dict[str, str | None]:
    """Every word of :data:`controller.effects.pack.SAY_FIELDS` for one event, or ``None`` where it has none."""
    seat = seat_of(data)
    out: dict[str, str | None] = {key: None for key in (
        "player", "pawn", "tomb", "position", "trap", "peg", "whammy", "charm", "card", "spook", "other",
        "winners", "scores", "sensor", "what", "number")}
    out["game"] = game_title(game)
    out["player"] = name_of(players, seat)
    if "label" in data:
        out["pawn"] = _pawn(players, {"seat": seat, "label": data.get("label")})
    elif isinstance(data.get("to"), Mapping):  # ring_stolen, monster_reversed: "to" is a pawn
        out["pawn"] = _pawn(players, data.get("to"))
    if isinstance(data.get("tomb"), str):
        out["tomb"] = f"the {str(data['tomb']).title()} tomb"
    if isinstance(data.get("to"), str) and data.get("to") in POSITION_WORDS:
        out["position"] = POSITION_WORDS[str(data["to"])]
    if isinstance(data.get("trap"), str):
        out["trap"] = TRAP_WORDS.get(str(data["trap"]))
    if isinstance(data.get("peg"), str):
        out["peg"] = f"peg {str(data['peg']).upper()}"
    if event_type.startswith("whammy") or "whammy" in data:
        out["whammy"] = data.get("name") if isinstance(data.get("name"), str) else _spoken_id(data.get("whammy"))
    if "charm" in data:
        out["charm"] = _title(data.get("charm")) or _spoken_id(data.get("charm"))
    out["card"] = _title(data.get("card"))
    if isinstance(data.get("kind"), str) and game == "dogs":
        out["spook"] = str(data["kind"])
    out["other"] = name_of(players, data.get("other"))
    winners = data.get("seats") if "seats" in data else data.get("winners")
    if isinstance(winners, list):
        names = [n for n in (name_of(players, w) for w in winners) if n]
        out["winners"] = listed(names) if names else None
    elif event_type == "won":
        out["winners"] = out["player"]
    scores = data.get("scores")
    if isinstance(scores, list) and all(isinstance(s, int) for s in scores):
        parts = [f"{name_of(players, i) or 'a player'} {s}" for i, s in enumerate(scores)]
        out["scores"] = listed(parts)
    if isinstance(data.get("message"), str):
        out["what"] = str(data["message"])
    number = data.get("number", data.get("total"))
    if isinstance(number, int) and not isinstance(number, bool):
        out["number"] = str(number)
    return out
