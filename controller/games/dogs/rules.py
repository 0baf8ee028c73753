"""Graveyard Dogs rule effects: the steps that follow a move, and the turn cycle.

Effects that need a player's decision wait in ``state.tasks`` (a queue kept in
the saved state, so a game saved mid-Concern resumes exactly). Effects that
need only dice run straight away in :func:`settle`. Every die roll and random
pick uses the state's RNG.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import Event
from .board import Graveyard, Square
from .state import SKELETON_LOAD, DogsState, Spook

# Steps that wait for a player; the rest resolve with dice alone.
DECISIONS = frozenset(
    {"move_dog", "pick_spook", "move_spook", "special", "special_more", "escape", "bat_target", "bork_attack"}
)


def roll(st: DogsState, seat: int, purpose: str) -> int:
    value = st.rng.die()
    st.rolls.append({"seat": seat, "for": purpose, "value": value})
    return value


def take_random(st: DogsState, snacks: list[str]) -> str:
    return snacks.pop(st.rng.below(len(snacks)))


def is_empty(st: DogsState, sq: Square) -> bool:
    """No dog, spook or snack on the square (J and G squares count as empty when bare)."""
    return not st.board_snacks.get(sq) and sq not in st.dogs and not any(s.pos == sq for s in st.spooks)


def loose_snacks(st: DogsState) -> int:
    return sum(len(v) for v in st.board_snacks.values())


# ----- the end ------------------------------------------------------------------
def game_should_end(st: DogsState) -> bool:
    if st.deck or st.drawn is not None or len(st.placed) < len(st.tiles):
        return False  # "may not end until all 16 Tile Cards have been placed"
    spooks = st.spooks_on_board()
    if not spooks:
        return True
    snacks = loose_snacks(st)
    if st.options.carried_snacks_in_graveyard:
        snacks += sum(len(s.snacks) for s in spooks)
    return snacks == 0


def winners(st: DogsState) -> list[int]:
    if st.phase != "over":
        return []
    scores = [st.score(seat) for seat in range(len(st.players))]
    best = max(scores)
    return [seat for seat, s in enumerate(scores) if s == best]


def finish(st: DogsState, events: list[Event]) -> None:
    st.phase = "over"
    st.tasks.clear()
    scores = [st.score(seat) for seat in range(len(st.players))]
    won = winners(st)
    events.append(Event("game_over", {"scores": scores, "winners": won, "friends": len(won) > 1}))


# ----- the turn cycle ---------------------------------------------------------------
def draw_tile(st: DogsState, events: list[Event]) -> None:
    st.drawn = st.deck.pop(0)
    tile = st.tile(st.drawn)
    events.append(Event("tile_drawn", {"seat": st.seat, "tile": tile.id, "grid": list(tile.grid)}))


def start_turn(st: DogsState, seat: int, events: list[Event]) -> None:
    st.seat = seat
    st.turn += 1
    st.dice = None
    st.dice_use = [None, None]
    st.slots = []
    st.rolls = []
    events.append(Event("turn_started", {"seat": seat, "turn": st.turn}))
    if st.deck:
        st.phase = "place_tile"
        draw_tile(st, events)
    else:
        st.phase = "roll"


def settle(st: DogsState, geo: Callable[[], Graveyard], events: list[Event]) -> None:
    """Run dice-only steps until a player must decide, the turn ends, or the game ends.

    ``geo`` returns the graveyard's geometry. It is asked for only when a step
    needs it: right after a tile is placed the geometry is stale, and rebuilding
    it there would cost ``apply(place_tile)`` most of its time for nothing."""
    while st.phase != "over":
        if st.phase in ("place_tile", "roll", "act") and game_should_end(st):
            finish(st, events)
            return
        if st.tasks:
            task = st.tasks[0]
            if task["t"] == "special" and not special_has_choice(st, geo()):
                st.tasks.pop(0)
                continue
            if task["t"] in DECISIONS:
                return
            st.tasks.pop(0)
            AUTO[task["t"]](st, geo(), task, events)
            continue
        if st.phase == "act" and None not in st.dice_use:
            start_turn(st, (st.seat + 1) % len(st.players), events)
            continue
        return


# ----- after a dog moves --------------------------------------------------------------
def special_options(st: DogsState, geo: Graveyard, only: str | None = None) -> dict[str, Any]:
    """What the mover may do where their dog stopped (a snack cube there is already
    collected): Wrestle and/or Attack, or Bork from an empty square, or nothing.

    ``only`` ("wrestle" or "attack") is the second special action still open after
    the first one was done."""
    seat = st.seat
    sq = st.dogs[seat]
    assert sq is not None
    others = [d for d in st.dogs_at(sq) if d != seat]
    spooks = st.spooks_at(sq)
    # "Select one dog in the same space as you ... If no other dogs in the space have any snack
    # cubes, then you may not do a Wrestle": the cubes decide whether a Wrestle may happen at
    # all, not which dog is picked, so a dog without cubes may be picked beside one with cubes.
    wrestle = others if only in (None, "wrestle") and any(st.card_snacks[d] for d in others) else []
    out: dict[str, Any] = {
        "wrestle": wrestle,
        "attack": [s.id for s in spooks] if only in (None, "attack") else [],
        "bork": [],
    }
    if only is None and not others and not spooks and not st.board_snacks.get(sq):
        out["bork"] = bork_moves(st, geo, sq)
    return out


def offer_more(st: DogsState, geo: Graveyard, kind: str) -> None:
    """After a Wrestle, the Attack the square still offers (or after an Attack, the Wrestle)."""
    if special_options(st, geo, kind)[kind]:
        st.tasks.insert(0, {"t": "special_more", "may": kind})


def bork_moves(st: DogsState, geo: Graveyard, sq: Square) -> list[tuple[str, int, Square]]:
    """(token, id, destination) for every token within bork range of ``sq``.

    The token moves to a square next to itself, or with ``bork_to: "borker"``
    to a square next to the borking dog."""
    near = geo.within(sq, st.options.bork_range)
    beside_dog = geo.neighbours(sq) if st.options.bork_to == "borker" else None

    def dests(pos: Square) -> list[Square]:
        if beside_dog is None:
            return geo.neighbours(pos)
        return [d for d in beside_dog if d != pos]

    out: list[tuple[str, int, Square]] = []
    for seat, pos in enumerate(st.dogs):
        if pos is None or not geo.contains(near, pos):
            continue
        if seat == st.seat and not st.options.bork_own_dog:
            continue
        out.extend(("dog", seat, dest) for dest in dests(pos))
    for spook in st.spooks:
        if spook.pos is not None and geo.contains(near, spook.pos):
            out.extend(("spook", spook.id, dest) for dest in dests(spook.pos))
    return out


def special_has_choice(st: DogsState, geo: Graveyard) -> bool:
    opts = special_options(st, geo)
    return bool(opts["wrestle"] or opts["attack"] or opts["bork"])


def collect(st: DogsState, seat: int, sq: Square, events: list[Event]) -> None:
    snacks = st.board_snacks.pop(sq, [])
    st.card_snacks[seat].extend(snacks)
    events.append(Event("snack_collected", {"seat": seat, "x": sq[0], "y": sq[1], "snacks": snacks}))


def wrestle(st: DogsState, seat: int, other: int, events: list[Event]) -> None:
    mine, theirs = roll(st, seat, "wrestle"), roll(st, other, "wrestle")
    data: dict[str, Any] = {"seat": seat, "other": other, "rolls": [mine, theirs], "winner": None, "snack": None}
    if mine != theirs:
        winner, loser = (seat, other) if mine > theirs else (other, seat)
        data["winner"] = winner
        if st.card_snacks[loser]:
            snack = take_random(st, st.card_snacks[loser])
            st.card_snacks[winner].append(snack)
            data["snack"] = snack
    events.append(Event("wrestled", data))


def attack(st: DogsState, seat: int, spook: Spook, events: list[Event]) -> None:
    value = roll(st, seat, "attack")
    won = value >= st.options.attack_target
    data: dict[str, Any] = {"seat": seat, "spook": spook.id, "kind": spook.kind, "roll": value, "captured": won}
    if won:
        data["snacks"] = list(spook.snacks)
        st.card_snacks[seat].extend(spook.snacks)
        spook.snacks = []
        spook.pos = None
        spook.holder = seat
    events.append(Event("attacked", data))


def bork(st: DogsState, geo: Graveyard, token: str, ident: int, dest: Square, events: list[Event]) -> None:
    if token == "dog":
        st.dogs[ident] = dest
    else:
        st.spooks[ident].pos = dest
    events.append(Event("borked", {"seat": st.seat, "token": token, "id": ident, "x": dest[0], "y": dest[1]}))
    tasks: list[dict[str, Any]] = []
    if token == "spook" and st.dogs_at(dest):
        tasks.append({"t": "haunt", "spook": ident})
    if token == "dog":
        spooks = [s.id for s in st.spooks_at(dest)]
        if spooks:
            tasks.append({"t": "bork_attack", "seat": ident, "spooks": spooks})
    tasks.append({"t": "bork_penalty"})
    st.tasks[0:0] = tasks


def _bork_penalty(st: DogsState, geo: Graveyard, task: dict[str, Any], events: list[Event]) -> None:
    seat = st.seat
    value = roll(st, seat, "bork")
    data: dict[str, Any] = {"seat": seat, "roll": value, "lost": None}
    if value <= st.options.bork_penalty_max and st.card_snacks[seat]:
        snack = take_random(st, st.card_snacks[seat])
        st.removed.append(snack)
        data["lost"] = snack
    events.append(Event("bork_penalty", data))


# ----- after a spook moves -----------------------------------------------------------
def spook_landed(st: DogsState, spook: Spook) -> None:
    assert spook.pos is not None
    dogs = st.dogs_at(spook.pos)
    if dogs:
        st.tasks[0:0] = [{"t": "concern", "seat": d, "spook": spook.id} for d in dogs] + [
            {"t": "haunt", "spook": spook.id}
        ]


def _concern(st: DogsState, geo: Graveyard, task: dict[str, Any], events: list[Event]) -> None:
    seat = int(task["seat"])
    sq = st.dogs[seat]
    assert sq is not None
    value = roll(st, seat, "concern")
    data: dict[str, Any] = {"seat": seat, "roll": value, "fled": False}
    if value >= st.options.concern_escape:
        options = [n for n in geo.neighbours(sq) if is_empty(st, n)]
        if len(options) == 1:
            st.dogs[seat] = options[0]
            data.update(fled=True, x=options[0][0], y=options[0][1])
        elif options:
            st.tasks.insert(0, {"t": "escape", "seat": seat, "options": [list(o) for o in options]})
            data["choosing"] = True
    events.append(Event("concern", data))


def _haunt(st: DogsState, geo: Graveyard, task: dict[str, Any], events: list[Event]) -> None:
    spook = st.spooks[int(task["spook"])]
    if spook.pos is None:
        return
    dogs = st.dogs_at(spook.pos)
    data: dict[str, Any] = {"spook": spook.id, "kind": spook.kind, "dogs": dogs}
    if not dogs:
        events.append(Event("haunt_missed", data))
        return
    if spook.kind == "skeleton" and len(spook.snacks) >= SKELETON_LOAD:
        # "If a Skeleton is already carrying three snack cubes, they may not Haunt."
        events.append(Event("haunt_refused", {**data, "reason": "the skeleton already carries three snack cubes"}))
        return
    if spook.kind == "skeleton":
        data["taken"] = skeleton_haunt(st, spook, dogs)
    elif spook.kind == "gargoyle":
        for d in dogs:
            st.gargoyled[d] = True
    elif spook.kind == "ghoul":
        lost = {}
        for d in dogs:
            if st.card_snacks[d]:
                snack = take_random(st, st.card_snacks[d])
                st.removed.append(snack)
                lost[str(d)] = snack
        data["removed"] = lost
    else:
        victims = [d for d in dogs if st.card_snacks[d]]
        if len(victims) > 1:
            st.tasks.insert(0, {"t": "bat_target", "spook": spook.id, "options": victims})
            data["choosing"] = True
        elif victims:
            data.update(bat_rob(st, spook, victims[0]))
    events.append(Event("haunted", data))


def skeleton_haunt(st: DogsState, spook: Spook, dogs: list[int]) -> dict[str, str]:
    taken: dict[str, str] = {}
    if len(spook.snacks) >= SKELETON_LOAD:
        return taken  # "already carrying three snack cubes, they may not Haunt"
    victims = [d for d in dogs if st.card_snacks[d]]
    if st.options.skeleton_haunt == "one" and victims:
        # one cube drawn from all the haunted dogs' cubes together
        pooled = [(d, i) for d in victims for i in range(len(st.card_snacks[d]))]
        d, i = pooled[st.rng.below(len(pooled))]
        snack = st.card_snacks[d].pop(i)
        spook.snacks.append(snack)
        taken[str(d)] = snack
        return taken
    room = SKELETON_LOAD - len(spook.snacks)
    if len(victims) > room:
        # Short of room: the dogs that lose a cube are drawn at random ("at random"),
        # not taken in seat order.
        victims = sorted(victims.pop(st.rng.below(len(victims))) for _ in range(room))
    for d in victims:
        snack = take_random(st, st.card_snacks[d])
        spook.snacks.append(snack)
        taken[str(d)] = snack
    return taken


def bat_rob(st: DogsState, spook: Spook, seat: int) -> dict[str, Any]:
    snack = take_random(st, st.card_snacks[seat])
    returned = spook.snacks.pop() if spook.snacks else None
    if returned is not None:
        st.card_snacks[seat].append(returned)
    spook.snacks.append(snack)
    return {"victim": seat, "taken": snack, "returned": returned}


AUTO = {"concern": _concern, "haunt": _haunt, "bork_penalty": _bork_penalty}
