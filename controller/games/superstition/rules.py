"""Superstition actions: the legal list, validation with reasons, and apply.

Phases of a turn (``game.phase``):

``opening``    each seat throws; the highest throw starts, ties throw again (rule 1)
``roll``       the seat throws the dice
``move``       the seat picks a direction (``move``/``charm_move``) or, blocked both ways, ``end_turn``
``tomb``       Part II: ``jump`` the Wizard's Tomb, ``trade_places`` with a pawn crossing the other way, or ``end_turn``
``challenge``  on a platform: ``pull_peg``
``outcome``    sensors only: ``challenge_result`` (the trap sprang or not)
``reset``      sensors only: ``reset_trap`` before play goes on
``relocate``   leaving, landed on a Whammy by exact count: ``relocate_whammy`` or ``leave_whammy``
``draw``       ``tokens: table`` only: ``draw_tokens`` names what was drawn from the real tomb
``over``       someone is home

``place_whammy`` is allowed at any time during one's own turn except while a
trap is being watched or reset.
"""

from __future__ import annotations

from typing import Any

from ..base import Action, Event
from ..errors import IllegalAction, MalformedAction
from ..words import listed
from .board import TRAP_NAMES
from .flow import HANDLERS, jump_block, trade_partner
from .moves import CHARM_NAMES, WHAMMY_NAMES
from .table import Superstition, Walk
from .words import DIRECTION_WORDS, in_words, space_words

# kind -> {param: type}; every param listed is required
PARAMS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "roll": {},
    "move": {"direction": str},
    "charm_move": {"direction": str},
    "end_turn": {},
    "jump": {},
    "trade_places": {},
    "pull_peg": {"trap": str, "peg": str},
    "challenge_result": {"trap": str, "zapped": bool},
    "reset_trap": {"trap": str},
    "place_whammy": {"space": str},
    "relocate_whammy": {"to": str},
    "leave_whammy": {},
    "draw_tokens": {"whammy": str, "charm": str},
}
PHASE_KINDS: dict[str, frozenset[str]] = {
    "opening": frozenset({"roll"}),
    "roll": frozenset({"roll", "place_whammy"}),
    "move": frozenset({"move", "charm_move", "end_turn", "place_whammy"}),
    "tomb": frozenset({"jump", "trade_places", "end_turn", "place_whammy"}),
    "challenge": frozenset({"pull_peg", "place_whammy"}),
    "outcome": frozenset({"challenge_result"}),
    "reset": frozenset({"reset_trap"}),
    "relocate": frozenset({"relocate_whammy", "leave_whammy", "place_whammy"}),
    "draw": frozenset({"draw_tokens"}),
    "over": frozenset(),
}
PHASE_HINTS: dict[str, str] = {
    "opening": "each seat throws to see who starts",
    "roll": "throw the dice",
    "move": "choose a direction to move",
    "tomb": "jump the Wizard's Tomb",
    "challenge": "pull one peg of the trap",
    "outcome": "waiting for the trap's outcome",
    "reset": "waiting for the trap to be reset",
    "relocate": "move the Whammy you landed on, or leave it",
    "draw": "enter the Whammy and Charm you drew from the tomb",
    "over": "the game is over",
}
DIRECTIONS = ("cw", "ccw", "in")
# What each action does, as a refusal says it: "you cannot place a Whammy now: ..."
KIND_WORDS: dict[str, str] = {
    "roll": "throw the dice",
    "move": "move",
    "charm_move": "move past a Whammy with your Charm",
    "end_turn": "end your turn",
    "jump": "jump the Wizard's Tomb",
    "trade_places": "trade places across the Wizard's Tomb",
    "pull_peg": "pull that peg",
    "challenge_result": "call the trap's outcome",
    "reset_trap": "reset that trap",
    "place_whammy": "place a Whammy there",
    "relocate_whammy": "move the Whammy there",
    "leave_whammy": "leave the Whammy",
    "draw_tokens": "enter those tokens",
}
# Building an Action canonicalises its params through JSON (tens of
# microseconds), and the same few hundred actions recur in every game. Actions
# are immutable and the set is bounded by kinds x seats x board spaces.
_ACTIONS: dict[tuple[Any, ...], Action] = {}


class RulesMixin:
    def cached_action(self, kind: str, player: int, **params: Any) -> Action:
        key = (kind, player, *params.items())
        action = _ACTIONS.get(key)
        if action is None:
            action = _ACTIONS[key] = Action(kind, player, params)
        return action

    # ----- enumeration -----------------------------------------------------------
    def legal_actions(self: Superstition) -> list[Action]:
        p = self.current_player
        if p is None:
            return []
        phase = self.phase
        out: list[Action] = []
        act = self.cached_action
        if phase in ("opening", "roll"):
            out.extend(_roll_actions(self, p))
        elif phase == "move":
            plain = False
            for direction, walk in self.options_for(p).items():
                if isinstance(walk, Walk):
                    out.append(act("move", p, direction=direction))
                    plain = True
            out.extend(act("charm_move", p, direction=d) for d in self.charm_options_for(p))
            if not plain:
                out.append(act("end_turn", p))
        elif phase == "tomb":
            if jump_block(self, p) is None:
                out.append(act("jump", p))
            else:
                if trade_partner(self, p) is not None:
                    out.append(act("trade_places", p))
                out.append(act("end_turn", p))
        elif phase == "challenge":
            assert self.challenge is not None
            out.extend(act("pull_peg", p, trap=self.challenge["trap"], peg=peg) for peg in "ab")
        elif phase == "outcome":
            assert self.challenge is not None
            trap = self.challenge["trap"]
            out.extend(act("challenge_result", p, trap=trap, zapped=z) for z in (True, False))
        elif phase == "reset":
            assert self.challenge is not None
            out.append(act("reset_trap", p, trap=self.challenge["trap"]))
        elif phase == "draw":
            out.extend(
                act("draw_tokens", p, whammy=w, charm=c)
                for w in self.pools["whammies"]
                for c in self.pools["charms"]
            )
        elif phase == "relocate":
            out.extend(act("relocate_whammy", p, to=s) for s in _free_path_spaces(self))
            out.append(act("leave_whammy", p))
        if "place_whammy" in PHASE_KINDS[phase] and self.hands[p]["whammy"] is not None:
            out.extend(act("place_whammy", p, space=s) for s in _free_path_spaces(self))
        return out

    # ----- validation --------------------------------------------------------
    def check(self: Superstition, action: Action) -> None:
        """Raise :class:`IllegalAction` saying why ``action`` is not legal now."""
        if not isinstance(action, Action):
            raise MalformedAction(f"expected an Action, got {type(action).__name__}")
        spec = PARAMS.get(action.kind)
        if spec is None:
            raise MalformedAction(f"unknown action kind {action.kind!r} (one of: {', '.join(PARAMS)})")
        params = dict(action.params)
        if action.kind == "roll" and self.options["dice_source"] == "table":
            spec = {"value": int}
        extra = sorted(set(params) - set(spec))
        if extra:
            raise MalformedAction(f"{action.kind}: unexpected parameter {extra[0]!r}")
        for key, typ in spec.items():
            if key not in params:
                raise MalformedAction(f"{action.kind}: missing parameter {key!r}")
            value = params[key]
            if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
                raise MalformedAction(f"{action.kind}: parameter {key!r} has the wrong type ({value!r})")
        if self.phase == "over":
            raise IllegalAction("the game is over")
        p = action.player
        if p is None or not 0 <= p < len(self._players):
            raise IllegalAction("there is no such player in this game")
        actor = self.current_player
        assert actor is not None
        if p != actor:
            raise IllegalAction(f"it is {self.seat_name(actor)}'s turn, not {self.seat_name(p)}'s")
        doing = KIND_WORDS.get(action.kind, action.kind)
        if action.kind not in PHASE_KINDS[self.phase]:
            raise IllegalAction(f"you cannot {doing} now: {PHASE_HINTS[self.phase]}")
        reason = _reason(self, action)
        if reason is not None:
            # People read it (the player's own page): spaces by their landmarks, not their ids.
            raise IllegalAction(f"you cannot {doing}: {self.in_words(reason)}")

    def in_words(self: Superstition, text: str) -> str:
        """``text`` with the board's space ids named as players do (the panel's words too)."""
        return in_words(self._places(), text)

    def _places(self: Superstition) -> dict[str, Any]:
        """What :func:`space_words` reads: the board's paths and landmarks, and the traps' names."""
        return {"board": self.board.geometry(), "traps": {t: {"name": n} for t, n in TRAP_NAMES.items()}}

    # ----- apply -------------------------------------------------------------
    def apply(self: Superstition, action: Action) -> list[Event]:
        self.check(action)
        p = action.player
        assert p is not None
        return HANDLERS[action.kind](self, p, dict(action.params))

    def describe(self: Superstition, action: Action) -> str:
        """``action`` in a player's words: spaces by their landmarks, traps by their names, never an id
        (the JSON action keeps those). A refused action's params may be any JSON."""
        seat = action.player
        who = self.seat_name(seat) if seat is not None and 0 <= seat < len(self._players) else "?"
        params = action.params
        if action.kind in ("place_whammy", "relocate_whammy"):
            # Only these name a space: the board's landmarks are read for them alone (a menu words every action).
            where = space_words(self._places(), params.get("space" if action.kind == "place_whammy" else "to"))
            verb = "places a Whammy on" if action.kind == "place_whammy" else "moves the Whammy to"
            return f"{who} {verb} {where}"
        text = {
            "roll": f"{who} throws the dice" + (f" ({params['value']})" if "value" in params else ""),
            "move": f"{who} moves {_direction_words(params.get('direction'))}",
            "charm_move": f"{who} moves {_direction_words(params.get('direction'))}, passing a Whammy with a Charm",
            "end_turn": f"{who} is blocked and ends the turn",
            "jump": f"{who} jumps the Wizard's Tomb",
            "trade_places": f"{who} trades places across the Wizard's Tomb",
            "pull_peg": f"{who} pulls {_peg(params.get('peg'))} of the {_trap(params.get('trap'))}",
            "challenge_result": f"the {_trap(params.get('trap'))} "
            + ("springs: zapped!" if params.get("zapped") else "stays still: sneaked by"),
            "reset_trap": f"the {_trap(params.get('trap'))} is reset",
            "leave_whammy": f"{who} leaves the Whammy where it is",
            "draw_tokens": f"{who} enters the Whammy and Charm drawn from the tomb",
        }
        return text.get(action.kind, f"{who} does something this game does not have")


# ----- reasons ---------------------------------------------------------------------
def _reason(game: Superstition, action: Action) -> str | None:
    p = action.player
    assert p is not None
    params = action.params
    kind = action.kind
    if kind == "roll" and "value" in params:
        low, high = game.options["dice"], 6 * game.options["dice"]
        if not low <= params["value"] <= high:
            return f"a throw of {game.options['dice']} dice is {low}..{high}, not {params['value']}"
    if kind in ("move", "charm_move"):
        direction = params["direction"]
        if direction not in DIRECTIONS:
            return "there is no such way to move"
        walk = game.options_for(p).get(direction)
        charmed = game.charm_options_for(p).get(direction)
        if walk is None:
            return f"the way {DIRECTION_WORDS[direction]} is not open from {game.pawns[p]['space']}"
        if kind == "move" and isinstance(walk, str):
            if charmed is not None:
                return "that way passes a Whammy; pass it with your Charm"
            return walk
        if kind == "charm_move" and charmed is None:
            if isinstance(walk, Walk) and walk.short:
                # Two dice: the plain move stops on a Whammy the throw would have to pass.
                return "you hold no Charm that passes the Whammy that way; you may stop on it instead"
            return "that way passes no Whammy; move without the Charm" if isinstance(walk, Walk) else walk
    if kind == "end_turn":
        if game.phase == "move":
            walks = [w for w in game.options_for(p).values() if isinstance(w, Walk)]
            full = [DIRECTION_WORDS[w.direction] for w in walks if not w.short]
            short = [DIRECTION_WORDS[w.direction] for w in walks if w.short]
            if full and not short:
                return f"you can still move {listed(full, 'or')}; the full count must be moved"
            if short:
                # Two dice: the stop on the Whammy next to the pawn is a move, and the only one
                # that way; "the full count" would name a move the pawn does not have.
                stop = f"stop on the Whammy on the next space {listed(short, 'or')} (two dice never throw 1)"
                return f"you can still move {listed(full, 'or')} or {stop}" if full else f"you can still {stop}"
        elif jump_block(game, p) is None:
            return "you can jump the Wizard's Tomb"
    if kind == "jump":
        return jump_block(game, p)
    if kind == "trade_places" and trade_partner(game, p) is None:
        return "nobody on the other side of the tomb wants to cross to your side"
    if kind in ("pull_peg", "challenge_result", "reset_trap"):
        assert game.challenge is not None
        if params["trap"] != game.challenge["trap"]:
            other = TRAP_NAMES.get(params["trap"]) if isinstance(params["trap"], str) else None
            return (f"the trap being challenged is the {game.trap_name(game.challenge['trap'])}, "
                    f"not {'the ' + other if other else 'that one'}")
        if kind == "pull_peg" and params["peg"] not in ("a", "b"):
            return "a trap has peg A and peg B only"
    if kind == "place_whammy":
        if game.hands[p]["whammy"] is None:
            return "you hold no Whammy"
        return _space_block(game, params["space"])
    if kind == "relocate_whammy":
        return _space_block(game, params["to"])
    if kind == "draw_tokens":
        if params["whammy"] not in game.pools["whammies"]:
            left = ", ".join(WHAMMY_NAMES.get(w, w) for w in game.pools["whammies"])
            return f"that Whammy is not in the tomb (left: {left})"
        if params["charm"] not in game.pools["charms"]:
            left = ", ".join(CHARM_NAMES.get(c, c) for c in game.pools["charms"])
            return f"that Charm is not in the tomb (left: {left})"
    return None


def _space_block(game: Superstition, space: str) -> str | None:
    if space not in game.ring_index["brick"] and space not in game.ring_index["stone"]:
        return "a Whammy goes on a space of the brick or stone path"
    if space in game.whammies:
        return f"{space} already has a Whammy"
    if any(p["space"] == space for p in game.pawns):
        return f"{space} has a pawn on it"
    return None


def _free_path_spaces(game: Superstition) -> list[str]:
    taken = {p["space"] for p in game.pawns} | set(game.whammies)
    return [s for s in game.board.path_spaces() if s not in taken]


def _roll_actions(game: Superstition, p: int) -> list[Action]:
    if game.options["dice_source"] == "engine":
        return [game.cached_action("roll", p)]
    n = game.options["dice"]
    return [game.cached_action("roll", p, value=v) for v in range(n, 6 * n + 1)]


# describe() also words refused actions, whose params may be any JSON: what is not a known value
# is said in general words, never as it was sent.
def _direction_words(direction: Any) -> str:
    return DIRECTION_WORDS.get(direction, "a way the board does not have") if isinstance(direction, str) \
        else "a way the board does not have"


def _trap(trap: Any) -> str:
    return TRAP_NAMES.get(trap, "trap") if isinstance(trap, str) else "trap"


def _peg(peg: Any) -> str:
    return f"peg {peg.upper()}" if peg in ("a", "b") else "a peg"


__all__ = ["PARAMS", "PHASE_KINDS", "RulesMixin"]
