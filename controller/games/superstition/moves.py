"""Superstition movement: where a throw can take a pawn, or why it cannot.

A pawn's *leg* says where it is in its trip (rulebook Part I and Part II):

========  ==========================================================
``in1``   on the brick path (or its start circle), heading for the Ladder or Mirror
``in2``   past the Ladder/Mirror, on the stone path, heading for a Grave
``tomb``  beside the Wizard's Tomb: Part II, jumping to challenge a Grave
``out1``  on the stone path, heading out for the Ladder or Mirror
``out2``  past the Ladder/Mirror, on the brick path, heading for its own circle
``home``  back on its own circle: the winner
========  ==========================================================

Every move walks one ring (brick or stone) in one direction for the full count
(rule 2); another pawn anywhere on the way blocks that direction (rule 3); on
the way in, reaching the entrance of a platform the pawn must challenge ends the
move on the platform, which counts as one space (rules 4 and 8); on the way out
a Whammy blocks passing unless the pawn's Charm matches it (Whammy rules 1, 2),
and the pawn's own circle is reached only by exact count (Winner).
"""

from __future__ import annotations

from typing import Any

from .board import GRAVES, LADDER_MIRROR, Board, Platform
from .table import Superstition, Walk
from .words import DIRECTION_WORDS

LEAVING_LEGS = frozenset({"tomb", "out1", "out2"})

# Each Charm passes exactly one Whammy (the table in "The Whammy").
CHARM_FOR_WHAMMY: dict[str, str] = {
    "the_raven": "wishbone",
    "witching_hour": "hex_sign",
    "mummys_curse": "rabbits_foot",
    "friday_13th": "four_leaf_clover",
}
WHAMMY_NAMES: dict[str, str] = {
    "the_raven": "The Raven",
    "witching_hour": "Witching Hour",
    "mummys_curse": "Mummy's Curse",
    "friday_13th": "Friday, 13th",
}
CHARM_NAMES: dict[str, str] = {
    "wishbone": "Wishbone",
    "hex_sign": "Hex Sign",
    "rabbits_foot": "Rabbit's Foot",
    "four_leaf_clover": "4-Leaf Clover",
}


def targets(pawn: dict[str, Any], kind: tuple[str, ...]) -> list[str]:
    """Traps of ``kind`` the pawn may challenge: not those that zapped it this leg.

    Zapped by both, it may try either one again (rules 12 and Part II 4).
    """
    left = [t for t in kind if t not in pawn["zapped"]]
    return left or list(kind)


def lane(board: Board, pawn: dict[str, Any]) -> tuple[str, dict[str, Platform]]:
    """The ring a pawn moves on, and the entrance spaces that force it onto a platform."""
    leg = pawn["leg"]
    if leg == "in1":
        return "brick", {board.platforms[t].brick or "": board.platforms[t] for t in LADDER_MIRROR}
    if leg == "in2":
        return "stone", {board.platforms[t].stone: board.platforms[t] for t in targets(pawn, GRAVES)}
    if leg == "out1":
        return "stone", {board.platforms[t].stone: board.platforms[t] for t in targets(pawn, LADDER_MIRROR)}
    return "brick", {}


def entry_block(game: Superstition, seat: int, platform: Platform) -> str | None:
    """Why the pawn cannot stop on ``platform`` now, or None.

    Only a pawn on the platform itself blocks it. A Grave whose tomb-side space
    is taken stays open: a pawn that sneaks by waits on the platform until that
    space frees (see ``flow._resolve``), so no rule the rulebook lacks closes it.
    """
    for other, pawn in enumerate(game.pawns):
        if other != seat and pawn["space"] == platform.space:
            return f"the {game.trap_name(platform.trap)} platform is taken by {game.seat_name(other)}"
    return None


def move_options(game: Superstition, seat: int, steps: int) -> dict[str, Walk | str]:
    """direction -> the walk without any Charm, or the reason that direction is blocked.

    With two dice (``dice: 2``) no throw is 1, so a Whammy on the very next space
    of a leaving pawn could never be landed on (The Whammy, rule 3) and may
    block that way for good. The rulebook allows no partial move (rule 4), so by
    default that way is simply blocked; a table that turns on the house rule
    ``whammy_stop`` lets the pawn stop on it instead (``short``).
    """
    options = _options(game, seat, steps, None)
    pawn = game.pawns[seat]
    if game.options["dice"] == 2 and game.options["whammy_stop"] and pawn["leg"] in LEAVING_LEGS:
        ring_name, forced = lane(game.board, pawn)
        for direction, found in options.items():
            if isinstance(found, Walk) or direction == "in":
                continue
            near = walk(game, seat, ring_name, forced, direction, 1, None)
            if isinstance(near, Walk) and near.destination in game.whammies:
                options[direction] = Walk(direction, near.path, short=True)
    return options


def charm_options(game: Superstition, seat: int, steps: int) -> dict[str, Walk]:
    """direction -> a walk that passes a Whammy with the seat's matching Charm (The Whammy, rule 2)."""
    held = game.hands[seat]["charm"]
    if held is None or game.pawns[seat]["leg"] not in LEAVING_LEGS:
        return {}
    return {d: w for d, w in _options(game, seat, steps, held).items() if isinstance(w, Walk) and w.charm}


def _options(game: Superstition, seat: int, steps: int, held: str | None) -> dict[str, Walk | str]:
    pawn = game.pawns[seat]
    ring_name, forced = lane(game.board, pawn)
    here = pawn["space"]
    options: dict[str, Walk | str] = {}
    if here in forced:
        platform = forced[here]
        block = entry_block(game, seat, platform)
        options["in"] = block or Walk("in", (platform.space,))
        # Standing on an entrance it must challenge, the pawn goes in (rule 4). It may
        # walk on instead only if the platform is blocked (rule 3: go another way) or
        # if that very trap put it back here (zapped at both: "try either one").
        put_back = bool(pawn["zapped"]) and pawn["zapped"][-1] == platform.trap
        if block is None and not put_back:
            return options
    for direction in ("cw", "ccw"):
        options[direction] = walk(game, seat, ring_name, forced, direction, steps, held)
    return options


def walk(
    game: Superstition,
    seat: int,
    ring_name: str,
    forced: dict[str, Platform],
    direction: str,
    steps: int,
    held: str | None,
) -> Walk | str:
    """The walk of ``steps`` counted spaces, passing only Whammies the Charm ``held`` matches."""
    board = game.board
    pawn = game.pawns[seat]
    ring = board.ring(ring_name)
    index = game.ring_index[ring_name]
    occupied = {p["space"]: q for q, p in enumerate(game.pawns) if q != seat}
    home = board.circles[game.colours[seat]]
    leaving = pawn["leg"] in LEAVING_LEGS
    step = 1 if direction == "cw" else -1

    def blocked(space: str) -> str:
        return f"{game.seat_name(occupied[space])} on {space} blocks the way {DIRECTION_WORDS[direction]}"

    path: list[str] = []
    pos = pawn["space"]
    remaining = steps
    kind = board.kind(pos)
    placed = kind == "tomb_side"  # the first space is a placement, not a step (below)
    if kind in ("circle", "platform", "tomb_side"):
        free = False  # whether the first space is stepped onto without counting it
        if kind == "circle":
            first = board.gate
        elif kind == "platform":
            platform = board.platform_at(pos)
            assert platform is not None
            first = platform.stone if ring_name == "stone" else platform.brick or ""
            # ``step_off`` is Part I rule 6 ("Step off the platform, throw the dice and
            # move onto the stone path"). On the return trip the platform is a space
            # like any other (rule 4: "The circle on the platform counts as one
            # space"), so stepping off it is the first space of the throw: only then
            # can a move end on that space and land on a Whammy there (The Whammy,
            # rule 3) instead of being blocked for good by it.
            free = game.options["step_off"] == "free" and not leaving
        else:
            # Leaving from beside the tomb: a pawn that sneaked by while the space in
            # front of the Grave was taken. Part II rule 1 places it in front without
            # a throw, so that step is never counted; and, as when the engine places
            # it there at once, a Whammy on that space is stood on, not passed.
            first = next(p.stone for p in board.platforms.values() if p.tomb_side == pos)
            free = True
        if first in occupied:
            return blocked(first)
        path.append(first)
        if not free:
            remaining -= 1
        pos = first
    while remaining > 0:
        if leaving and pos == board.gate and remaining == 1:  # noqa: SIM108  the last step home reads as its own case
            nxt = home
        else:
            nxt = ring[(index[pos] + step) % len(ring)]
        if nxt in occupied:
            return blocked(nxt)
        path.append(nxt)
        remaining -= 1
        pos = nxt
        if nxt in forced and remaining > 0:
            block = entry_block(game, seat, forced[nxt])
            if block is not None:
                return block
            path.append(forced[nxt].space)
            break
    charm = False
    if leaving:
        # Every space entered before the last is passed, the step off a platform
        # included: step_off decides counting, never passing (The Whammy, rule 2).
        for i, space in enumerate(path[:-1]):
            whammy = game.whammies.get(space) if i or not placed else None
            if whammy is None:
                continue
            if held != CHARM_FOR_WHAMMY[whammy]:
                return f"the Whammy {WHAMMY_NAMES[whammy]} on {space} blocks the way {DIRECTION_WORDS[direction]}"
            charm = True
    return Walk(direction, tuple(path), charm)
