"""Validation of a saved Superstition state (``Superstition.from_json``).

A journal or a hand-edited file may hold a state that parses but could never
arise in play; loading it would referee the rest of the game wrongly, so every
field is checked and the first bad one is named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import BadGameData
from .board import GRAVES, LADDER_MIRROR, TRAPS
from .moves import CHARM_FOR_WHAMMY
from .rules import PHASE_KINDS
from .table import Superstition

LEGS = ("in1", "in2", "tomb", "out1", "out2", "home")
# Where a pawn on each leg can stand: a space kind, or "ladder_mirror" for those
# two platforms. A pawn going in to a Grave (in2) may also stand on a Grave platform.
LEG_PLACES: dict[str, frozenset[str]] = {
    "in1": frozenset({"circle", "brick", "ladder_mirror"}),
    "in2": frozenset({"stone", "ladder_mirror"}),
    # A pawn that sneaked by a Grave while the space beside it (tomb leg) or in
    # front of it (out1) was taken waits on the Grave platform / beside the tomb.
    "tomb": frozenset({"tomb_side", "platform"}),
    "out1": frozenset({"stone", "ladder_mirror", "tomb_side"}),
    "out2": frozenset({"brick", "ladder_mirror"}),
    "home": frozenset({"circle"}),
}


def check_state(game: Superstition) -> None:
    n = len(game._players)

    def bad(entry: str, problem: str) -> BadGameData:
        return BadGameData(f"Superstition state: {entry} {problem}")

    if not 2 <= n <= 4:
        raise bad("players", f"must list 2 to 4 names, got {n}")
    if game.phase not in PHASE_KINDS:
        raise bad("phase", f"is {game.phase!r}, not a phase")
    if game.phase in ("opening", "over"):
        if game.turn is not None:
            raise bad("turn", f"must be null during phase {game.phase!r}")
    elif not _is_seat(game.turn, n):
        raise bad("turn", f"is {game.turn!r}, not a seat")
    for seat in game.opening["round"]:
        if not _is_seat(seat, n):
            raise bad("opening.round", f"holds {seat!r}, not a seat")
    if game.phase == "opening" and not game._opening_pending():
        raise bad("opening", "has no seat left to throw")
    if any(not 1 <= d <= 12 for d in game.dice):
        raise bad("dice", f"holds an impossible throw: {game.dice!r}")
    if game.phase == "move" and not game.dice:
        raise bad("dice", "are empty although a move is due")

    if len(game.pawns) != n:
        raise bad("pawns", f"must have one pawn a player ({n}), got {len(game.pawns)}")
    seen: dict[str, int] = {}
    for seat, pawn in enumerate(game.pawns):
        where = f"pawns[{seat}]"
        if set(pawn) != {"space", "leg", "zapped", "target"}:
            raise bad(where, f"must have space, leg, zapped, target; got {sorted(pawn)}")
        if not isinstance(pawn["space"], str) or pawn["space"] not in game.board.spaces:
            raise bad(f"{where}.space", f"is {pawn['space']!r}, not a space of the board")
        if pawn["space"] in seen:
            raise bad(f"{where}.space", f"is {pawn['space']!r}, shared with pawns[{seen[pawn['space']]}]")
        seen[pawn["space"]] = seat
        if not isinstance(pawn["leg"], str) or pawn["leg"] not in LEGS:
            raise bad(f"{where}.leg", f"is {pawn['leg']!r}, one of {', '.join(LEGS)} expected")
        if any(not isinstance(t, str) or t not in TRAPS for t in pawn["zapped"]):
            raise bad(f"{where}.zapped", f"names an unknown trap: {pawn['zapped']!r}")
        if pawn["leg"] == "tomb" and pawn["target"] not in GRAVES:
            raise bad(f"{where}.target", f"is {pawn['target']!r}; a pawn at the tomb targets a Grave")
        kind = game.board.kind(pawn["space"])
        if kind == "circle" and pawn["space"] != game.board.circles[game.colours[seat]]:
            raise bad(f"{where}.space", f"is another colour's circle ({pawn['space']!r})")
        platform = game.board.platform_at(pawn["space"])
        where_kind = "ladder_mirror" if platform is not None and platform.trap in LADDER_MIRROR else kind
        if where_kind not in LEG_PLACES[pawn["leg"]] and not (pawn["leg"] == "in2" and kind == "platform"):
            # Moves are worked out on the ring the leg travels: a pawn on the other
            # ring (or off both) would make every later turn fail.
            raise bad(f"{where}.space", f"is {pawn['space']!r}, where no pawn on leg {pawn['leg']!r} can be")

    if len(game.hands) != n:
        raise bad("hands", f"must have one hand a player ({n})")
    whammies_seen: list[str] = list(game.pools["whammies"]) + list(game.whammies.values())
    charms_seen: list[str] = list(game.pools["charms"])
    for seat, hand in enumerate(game.hands):
        if set(hand) != {"whammy", "charm", "drawn"} or not isinstance(hand["drawn"], bool):
            raise bad(f"hands[{seat}]", "must have whammy, charm and a true/false drawn")
        if hand["whammy"] is not None:
            whammies_seen.append(hand["whammy"])
        if hand["charm"] is not None:
            charms_seen.append(hand["charm"])
    # Checked before sorting: a number or null among the names cannot be sorted with them.
    for entry, names in (("whammies", whammies_seen), ("charms", charms_seen)):
        if not all(isinstance(name, str) for name in names):
            raise bad(entry, f"must all be names: {names!r}")
    if sorted(whammies_seen) != sorted(CHARM_FOR_WHAMMY):
        raise bad("whammies", f"are not the four Whammies once each: {sorted(whammies_seen)!r}")
    if sorted(charms_seen) != sorted(CHARM_FOR_WHAMMY.values()):
        raise bad("charms", f"are not the four Charms once each: {sorted(charms_seen)!r}")
    path = set(game.board.path_spaces())
    for space in game.whammies:
        if space not in path:
            raise bad(f"whammies[{space!r}]", "is not a brick or stone path space")

    for trap in TRAPS:
        state = game.traps[trap]
        if set(state) != {"live", "pulled", "sprung"}:
            raise bad(f"traps[{trap!r}]", "must have live, pulled, sprung")
        digital = game.options["challenge"] == "digital"
        if digital and state["live"] not in ("a", "b"):
            raise bad(f"traps[{trap!r}].live", "must be 'a' or 'b' in digital play")
        if not digital and state["live"] is not None:
            raise bad(f"traps[{trap!r}].live", "must be null when the sensors decide")
        if state["pulled"] not in (None, "a", "b") or not isinstance(state["sprung"], bool):
            raise bad(f"traps[{trap!r}]", "has a bad pulled/sprung value")
    needs_challenge = game.phase in ("challenge", "outcome", "reset")
    if needs_challenge and (not game.challenge or game.challenge.get("trap") not in TRAPS):
        raise bad("challenge", f"must name a trap during phase {game.phase!r}")
    if game.turn is not None and game.phase != "over":
        _check_turn_pawn(game, bad)
    if game.phase == "reset" and game.after_reset not in ("roll", "end", "draw"):
        raise bad("after_reset", "must be 'roll', 'end' or 'draw' while a trap is reset")
    if game.phase == "relocate" and game.relocate_from not in game.whammies:
        raise bad("relocate_from", "must be a space holding a Whammy")
    if game.winner is not None and (game.phase != "over" or not _is_seat(game.winner, n)):
        raise bad("winner", f"is {game.winner!r} but the game is not over")


def _check_turn_pawn(game: Superstition, bad: Callable[[str, str], BadGameData]) -> None:
    """The phase must fit where the pawn whose turn it is stands."""
    assert game.turn is not None
    pawn = game.pawns[game.turn]
    where = f"pawns[{game.turn}]"
    if game.phase == "tomb" and pawn["leg"] != "tomb":
        raise bad(f"{where}.leg", f"is {pawn['leg']!r}, but only a pawn at the tomb has phase 'tomb'")
    if game.phase in ("roll", "move") and pawn["leg"] not in ("in1", "in2", "out1", "out2"):
        raise bad(f"{where}.leg", f"is {pawn['leg']!r}, but a pawn there does not throw to move")
    if game.phase in ("challenge", "outcome") and game.challenge:
        platform = game.board.platforms[game.challenge["trap"]]
        beside = pawn["leg"] == "tomb" and pawn["space"] == platform.tomb_side
        if pawn["space"] != platform.space and not beside:
            raise bad(f"{where}.space", f"is {pawn['space']!r}, not at the {platform.trap} being challenged")


def _is_seat(value: Any, n: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n
