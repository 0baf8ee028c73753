"""Superstition turn flow: what each accepted action does, and who plays next.

``rules`` validates an action first; the handlers here run only
for legal actions, so they mutate the state without checking again.
"""

from __future__ import annotations

from typing import Any

from ..base import Event
from .board import GRAVES
from .moves import CHARM_NAMES, LEAVING_LEGS, WHAMMY_NAMES
from .table import Superstition, Walk


def jump_block(game: Superstition, seat: int) -> str | None:
    """Why the pawn at the tomb cannot jump now (Part II rule 1), or None.

    Only a pawn on the far side of the tomb stops a jump. When that pawn wants
    to cross too, the two may trade places (``trade_places``): the note after
    rule 11 says "you may", so it is the player's choice, never automatic.
    """
    pawn = game.pawns[seat]
    platform = game.board.platforms[pawn["target"]]
    if pawn["space"] == platform.tomb_side:
        return "you are already beside the grave you must challenge"
    for other, q in enumerate(game.pawns):
        if other == seat or q["space"] != platform.tomb_side:
            continue
        if trade_partner(game, seat) == other:
            return (
                f"{game.seat_name(other)} is on the other side and wants to cross too: "
                "trade places with them or end your turn"
            )
        return f"{game.seat_name(other)} waits beside the {game.trap_name(platform.trap)}"
    return None


def trade_partner(game: Superstition, seat: int) -> int | None:
    """The seat this pawn may trade places with across the tomb, or None.

    Note after rule 11: "If you are on one side of the Wizard's Tomb, and an
    opponent is on the other side, both of you wanting to go to the opposite
    side, you may trade places."
    """
    pawn = game.pawns[seat]
    if pawn["leg"] != "tomb" or game.board.kind(pawn["space"]) != "tomb_side":
        return None
    side = game.board.platforms[pawn["target"]].tomb_side
    if side == pawn["space"]:
        return None
    for other, q in enumerate(game.pawns):
        if other != seat and q["space"] == side and q["leg"] == "tomb" \
                and game.board.platforms[q["target"]].tomb_side == pawn["space"]:
            return other
    return None


# ----- handlers --------------------------------------------------------------------
def _roll(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    dice = [params["value"]] if "value" in params else [game.rng.die() for _ in range(game.options["dice"])]
    if game.phase == "opening":
        game.opening["rolls"][p] = sum(dice)
        events = [Event("opening_roll", {"player": p, "dice": dice, "total": sum(dice)})]
        if game._opening_pending():
            return events
        rolls = game.opening["rolls"]
        best = max(rolls.values())
        top = [s for s in game.opening["round"] if rolls[s] == best]
        if len(top) > 1:
            game.opening = {"round": top, "rolls": {}}
            events.append(Event("opening_tie", {"players": top, "total": best}))
            return events
        events.append(Event("first_player", {"player": top[0], "total": best}))
        return events + _start_turn(game, top[0])
    game.dice = dice
    game.phase = "move"
    return [Event("rolled", {"player": p, "dice": dice, "total": sum(dice)})]


def _move(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    return _walk(game, p, game.options_for(p)[params["direction"]])


def _charm_move(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    return _walk(game, p, game.charm_options_for(p)[params["direction"]])


def _walk(game: Superstition, p: int, walk: Walk | str) -> list[Event]:
    assert isinstance(walk, Walk)
    pawn = game.pawns[p]
    origin = pawn["space"]
    pawn["space"] = walk.destination
    data: dict[str, Any] = {
        "player": p, "from": origin, "to": walk.destination, "path": list(walk.path),
        "direction": walk.direction, "roll": sum(game.dice),
    }
    if walk.charm:
        data["charm"] = game.hands[p]["charm"]
    if walk.short:
        data["short"] = True  # two dice: stopped on the Whammy next to it
    events = [Event("moved", data)]
    game.dice = []
    platform = game.board.platform_at(walk.destination)
    if platform is not None:
        return events + _open_challenge(game, p, platform.trap)
    if walk.destination == game.board.circles[game.colours[p]]:
        pawn["leg"] = "home"
        game.winner = p
        game.phase = "over"
        game.turn = None
        return events + [Event("won", {"player": p})]
    if pawn["leg"] in LEAVING_LEGS and walk.destination in game.whammies:
        game.phase = "relocate"
        game.relocate_from = walk.destination
        return events + [Event("landed_on_whammy", {"player": p, "space": walk.destination})]
    return events + _end_turn(game)


def _end_turn_action(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    events = [Event("turn_passed", {"player": p, "reason": "blocked"})]
    return events + _end_turn(game)


def _jump(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    pawn = game.pawns[p]
    side = game.board.platforms[pawn["target"]].tomb_side
    origin = pawn["space"]
    pawn["space"] = side
    events = [Event("jumped_tomb", {"player": p, "from": origin, "to": side})]
    return events + _open_challenge(game, p, pawn["target"])


def _trade_places(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    other = trade_partner(game, p)
    assert other is not None
    pawn, q = game.pawns[p], game.pawns[other]
    origin, side = pawn["space"], q["space"]
    pawn["space"], q["space"] = side, origin
    events = [
        Event("traded_places", {"players": [p, other], "spaces": [origin, side]}),
        Event("jumped_tomb", {"player": p, "from": origin, "to": side}),
    ]
    return events + _open_challenge(game, p, pawn["target"])


def _pull_peg(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    trap, peg = params["trap"], params["peg"]
    assert game.challenge is not None
    game.challenge["peg"] = peg
    events = [Event("peg_pulled", {"player": p, "trap": trap, "peg": peg})]
    if game.options["challenge"] == "sensors":
        game.traps[trap]["pulled"] = peg
        game.phase = "outcome"
        return events
    zapped = game.traps[trap]["live"] == peg
    events += _resolve(game, p, trap, zapped)
    # Secret reset: a fresh live peg, drawn after the outcome so it reveals nothing.
    game.traps[trap]["live"] = "ab"[game.rng.below(2)]
    events.append(Event("trap_reset", {"trap": trap}))
    return events + _continue(game)


def _challenge_result(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    trap = params["trap"]
    game.traps[trap]["sprung"] = params["zapped"]
    events = _resolve(game, p, trap, params["zapped"])
    game.phase = "reset"
    return events


def _reset_trap(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    trap = params["trap"]
    game.traps[trap].update(pulled=None, sprung=False)
    return [Event("trap_reset", {"trap": trap})] + _continue(game)


def _place_whammy(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    whammy = game.hands[p]["whammy"]
    game.hands[p]["whammy"] = None
    game.whammies[params["space"]] = whammy
    data = {"player": p, "space": params["space"], "whammy": whammy, "name": WHAMMY_NAMES[whammy]}
    return [Event("whammy_placed", data)]


def _relocate_whammy(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    origin = game.relocate_from
    assert origin is not None
    whammy = game.whammies.pop(origin)
    game.whammies[params["to"]] = whammy
    game.relocate_from = None
    event = Event("whammy_moved", {"player": p, "from": origin, "to": params["to"], "whammy": whammy})
    return [event] + _end_turn(game)


def _leave_whammy(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    game.relocate_from = None
    return _end_turn(game)


def _draw_tokens_action(game: Superstition, p: int, params: dict[str, Any]) -> list[Event]:
    return _take_tokens(game, p, params["whammy"], params["charm"]) + _end_turn(game)


HANDLERS = {
    "draw_tokens": _draw_tokens_action,
    "roll": _roll,
    "move": _move,
    "charm_move": _charm_move,
    "end_turn": _end_turn_action,
    "jump": _jump,
    "trade_places": _trade_places,
    "pull_peg": _pull_peg,
    "challenge_result": _challenge_result,
    "reset_trap": _reset_trap,
    "place_whammy": _place_whammy,
    "relocate_whammy": _relocate_whammy,
    "leave_whammy": _leave_whammy,
}


# ----- turn flow -------------------------------------------------------------------
def _open_challenge(game: Superstition, p: int, trap: str) -> list[Event]:
    game.phase = "challenge"
    game.challenge = {"trap": trap, "peg": None}
    return [Event("challenge_begins", {"player": p, "trap": trap})]


def _resolve(game: Superstition, p: int, trap: str, zapped: bool) -> list[Event]:
    """Apply a challenge's consequence (rules 6, 7, 10, 11, 12; Part II 1, 2, 4)."""
    board = game.board
    pawn = game.pawns[p]
    platform = board.platforms[trap]
    leg = pawn["leg"]
    peg = game.challenge.get("peg") if game.challenge else None
    data: dict[str, Any] = {"player": p, "trap": trap, "peg": peg, "zapped": zapped}
    events = [Event("challenge_resolved", data)]
    then = "end"
    if leg == "in1":
        if zapped:
            pawn.update(space=board.circles[game.colours[p]], zapped=[])
        else:
            pawn.update(leg="in2", zapped=[])
            then = "roll"
    elif leg == "in2":
        if zapped:
            pawn.update(space=platform.stone, zapped=_add_zap(pawn["zapped"], trap))
        else:
            other = GRAVES[1 - GRAVES.index(trap)]
            # Rule 11 puts the pawn beside the tomb; while someone stands there it
            # waits on the Grave's platform and jumps from there next turn.
            side = platform.tomb_side if not _taken(game, p, platform.tomb_side) else platform.space
            pawn.update(space=side, leg="tomb", target=other, zapped=[])
            if game.options["tokens"] == "engine":
                events += _draw_tokens(game, p)
            elif not game.hands[p]["drawn"]:
                then = "draw"  # the player says what they drew from the real tomb
    elif leg == "tomb":
        if zapped:
            pawn["target"] = GRAVES[1 - GRAVES.index(trap)]
        else:
            # Part II rule 1 puts it in front of the Grave; while that space is taken it
            # waits beside the tomb and steps in front as the first, uncounted step of
            # its next move.
            front = platform.stone if not _taken(game, p, platform.stone) else pawn["space"]
            pawn.update(space=front, leg="out1", target=None, zapped=[])
    elif leg == "out1":
        if zapped:
            pawn.update(space=platform.stone, zapped=_add_zap(pawn["zapped"], trap))
        else:
            pawn.update(leg="out2", zapped=[])
            then = "roll"
    data["to"] = pawn["space"]
    game.after_reset = then
    return events


def _taken(game: Superstition, seat: int, space: str | None) -> bool:
    return any(q["space"] == space for other, q in enumerate(game.pawns) if other != seat)


def _add_zap(zapped: list[str], trap: str) -> list[str]:
    return [t for t in zapped if t != trap] + [trap]


def _draw_tokens(game: Superstition, p: int) -> list[Event]:
    hand = game.hands[p]
    if hand["drawn"]:
        return []
    whammies, charms = game.pools["whammies"], game.pools["charms"]
    return _take_tokens(game, p, whammies[game.rng.below(len(whammies))], charms[game.rng.below(len(charms))])


def _take_tokens(game: Superstition, p: int, whammy: str, charm: str) -> list[Event]:
    game.pools["whammies"].remove(whammy)
    game.pools["charms"].remove(charm)
    game.hands[p].update(whammy=whammy, charm=charm, drawn=True)
    secret = {"whammy": whammy, "whammy_name": WHAMMY_NAMES[whammy], "charm": charm, "charm_name": CHARM_NAMES[charm]}
    return [Event("drew_tokens", {"player": p}, private_to=p, secret=secret)]


def _continue(game: Superstition) -> list[Event]:
    then = game.after_reset
    game.after_reset = None
    game.challenge = None
    assert game.turn is not None
    if then == "roll":
        game.phase = "roll"
        return [Event("second_throw", {"player": game.turn})]
    if then == "draw":
        game.phase = "draw"
        return [Event("draw_due", {"player": game.turn})]
    return _end_turn(game)


def _end_turn(game: Superstition) -> list[Event]:
    assert game.turn is not None
    return _start_turn(game, (game.turn + 1) % len(game._players))


def _start_turn(game: Superstition, seat: int) -> list[Event]:
    game.turn = seat
    game.turns += 1
    game.dice = []
    game.challenge = None
    pawn = game.pawns[seat]
    game.phase = "roll"
    if pawn["leg"] == "tomb":
        platform = game.board.platforms[pawn["target"]]
        game.phase = "tomb"
        if pawn["space"] == platform.tomb_side:
            # Put here by a trade: the jump is made, the challenge is due (Part II 1).
            events = [Event("turn_started", {"player": seat})]
            return events + _open_challenge(game, seat, platform.trap)
    return [Event("turn_started", {"player": seat})]
