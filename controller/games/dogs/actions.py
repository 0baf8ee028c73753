"""Graveyard Dogs actions: each handler checks one action completely, then applies it.

A handler raises :class:`IllegalAction` (or :class:`MalformedAction`) before
it changes anything, so a refused action leaves the state exactly as it was;
the game then runs the dice-only steps that follow (``rules.settle``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..base import Action, Event
from ..errors import IllegalAction, MalformedAction
from . import rules
from .board import Graveyard, Square
from .state import DogsState, Placement, Spook
from .tiles import GRAVE, JACK


class DogsGame(Protocol):
    """What the handlers read and change of a :class:`~controller.games.dogs.game.DogsGame`.

    Written out here so that this module need not import the game's, which imports it.
    """

    st: DogsState

    @property
    def geo(self) -> Graveyard: ...

    def placement_ok(self, x: int, y: int) -> bool: ...

    def dog_squares(self) -> list[Square]: ...

    def spook_ends(self, task: Mapping[str, Any]) -> list[Square]: ...

    def expect(self, action: Action, *steps: str) -> dict[str, Any]: ...

    def _name(self, seat: Any) -> str: ...

    def spook_text(self, ident: Any) -> str: ...


Handler = Callable[[DogsGame, Action], list[Event]]


def _ints(action: Action, *names: str, also: tuple[str, ...] = ()) -> list[int]:
    """The named integer params; any param not named here or in ``also`` is
    :class:`MalformedAction`."""
    params = action.params
    extra = set(params) - set(names) - set(also)
    if extra:
        raise MalformedAction(f"{action.kind}: unexpected param(s) {', '.join(sorted(extra))}")
    out = []
    for name in names:
        if name not in params:
            raise MalformedAction(f"{action.kind}: missing param {name!r}")
        value = params[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise MalformedAction(f"{action.kind}: param {name!r} must be an integer, got {value!r}")
        out.append(value)
    return out


def place_tile(game: DogsGame, action: Action) -> list[Event]:
    game.expect(action, "setup_tile", "place_tile")
    x, y, rotation = _ints(action, "x", "y", "rotation")
    if rotation not in (0, 1, 2, 3):
        raise IllegalAction(f"rotation must be 0-3 quarter turns, got {rotation}")
    if not game.placement_ok(x, y):
        if not game.st.placed:
            raise IllegalAction("the first tile goes in the middle of the table")
        raise IllegalAction(
            f"a tile must not overlap the graveyard and must line up with it along "
            f"at least {game.st.options.min_contact} squares"
        )
    st = game.st
    assert st.drawn is not None
    tile = st.tile(st.drawn)
    st.placed.append(Placement(tile.id, x, y, rotation))
    st.drawn = None
    events = [Event("tile_placed", {"seat": st.seat, "tile": tile.id, "x": x, "y": y, "rotation": rotation})]
    for dx, dy, ch in tile.features(rotation):
        sq = (x + dx, y + dy)
        if ch == JACK and st.tin:
            colour = st.tin.pop(0)
            st.board_snacks.setdefault(sq, []).append(colour)
            events.append(Event("snack_placed", {"x": sq[0], "y": sq[1], "colour": colour}))
        elif ch == GRAVE and st.pool:
            spook = Spook(len(st.spooks), st.pool.pop(0), sq)
            st.spooks.append(spook)
            events.append(Event("spook_placed", {"id": spook.id, "kind": spook.kind, "x": sq[0], "y": sq[1]}))
    st.phase = "setup_dog" if st.phase == "setup_tile" else "roll"
    return events


def place_dog(game: DogsGame, action: Action) -> list[Event]:
    game.expect(action, "setup_dog")
    x, y = _ints(action, "x", "y")
    if (x, y) not in game.dog_squares():
        raise IllegalAction(
            f"a dog starts on the tile just placed, not on a Gravestone, the Jack-O-Lantern or next to it; "
            f"({x}, {y}) is not such a square"
        )
    st = game.st
    st.dogs[st.seat] = (x, y)
    events = [Event("dog_placed", {"seat": st.seat, "colour": st.colours[st.seat], "x": x, "y": y})]
    st.setup_left -= 1
    nxt = (st.seat + 1) % len(st.players)
    if st.setup_left:
        st.seat = nxt
        st.phase = "setup_tile"
        rules.draw_tile(st, events)
    else:
        rules.start_turn(st, nxt, events)
    return events


def roll(game: DogsGame, action: Action) -> list[Event]:
    game.expect(action, "roll")
    _ints(action)
    st = game.st
    st.dice = [st.rng.die(), st.rng.die()]
    haunted = st.gargoyled[st.seat]
    st.gargoyled[st.seat] = False
    st.slots = ["spook", "spook"] if haunted else ["dog", "spook"]
    st.phase = "act"
    return [Event("dice_rolled", {"seat": st.seat, "dice": list(st.dice), "two_spook_actions": haunted})]


def choose(game: DogsGame, action: Action) -> list[Event]:
    game.expect(action, "act")
    extra = set(action.params) - {"die", "action"}
    if extra:
        raise MalformedAction(f"choose: unexpected param(s) {', '.join(sorted(extra))}")
    kind = action.params.get("action")
    die = action.params.get("die")
    if kind not in ("dog", "spook"):
        raise MalformedAction(f"choose: 'action' must be 'dog' or 'spook', got {kind!r}")
    if not isinstance(die, int) or isinstance(die, bool) or die not in (0, 1):
        raise MalformedAction(f"choose: 'die' must be 0 or 1, got {die!r}")
    st = game.st
    if st.dice_use[die] is not None:
        raise IllegalAction(f"that die is already used for the {st.dice_use[die]} action")
    if kind not in st.slots:
        raise IllegalAction(f"no {kind} action is left this turn")
    st.slots.remove(kind)
    st.dice_use[die] = kind
    assert st.dice is not None
    data = {"seat": st.seat, "die": die, "value": st.dice[die], "action": kind}
    if kind == "dog":
        st.tasks.append({"t": "move_dog", "die": die})
    elif st.spooks_on_board():
        st.tasks.append({"t": "pick_spook", "die": die})
    else:
        return [Event("die_chosen", data), Event("spook_action_skipped", {"seat": st.seat, "die": die})]
    return [Event("die_chosen", data)]


def back(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "move_dog", "pick_spook", "move_spook")
    _ints(action)
    st = game.st
    if task["t"] == "move_spook":
        st.tasks[0] = {"t": "pick_spook", "die": task["die"]}
    else:
        st.tasks.pop(0)
        kind = st.dice_use[task["die"]]
        assert kind is not None
        st.dice_use[task["die"]] = None
        st.slots = sorted([*st.slots, kind])
    return [Event("step_back", {"seat": st.seat, "step": task["t"]})]


def move_dog(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "move_dog")
    x, y = _ints(action, "x", "y")
    st = game.st
    start = st.dogs[st.seat]
    assert start is not None and st.dice is not None
    steps = st.dice[task["die"]]
    if not game.geo.contains(game.geo.exact_reach(start, steps), (x, y)):
        raise IllegalAction(f"the dog cannot end exactly {steps} orthogonal steps away at ({x}, {y})")
    st.dogs[st.seat] = (x, y)
    events = [Event("dog_moved", {"seat": st.seat, "steps": steps, "from": list(start), "x": x, "y": y})]
    if st.board_snacks.get((x, y)):
        # "If you end your action on a space with a Snack Cube, collect it": always, and
        # independently of the Wrestle and the Attack the same square may offer. A square
        # with a cube was not empty, so no Bork follows.
        rules.collect(st, st.seat, (x, y), events)
        opts = rules.special_options(st, game.geo)
        if opts["wrestle"] or opts["attack"]:
            st.tasks[0] = {"t": "special"}
        else:
            st.tasks.pop(0)
    else:
        st.tasks[0] = {"t": "special"}
    return events


def pick_spook(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "pick_spook")
    (ident,) = _ints(action, "spook")
    st = game.st
    if not 0 <= ident < len(st.spooks) or st.spooks[ident].pos is None:
        raise IllegalAction(f"{game.spook_text(ident)} is not in the graveyard")
    st.tasks[0] = {"t": "move_spook", "die": task["die"], "spook": ident}
    return [Event("spook_picked", {"seat": st.seat, "spook": ident, "kind": st.spooks[ident].kind})]


def move_spook(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "move_spook")
    x, y = _ints(action, "x", "y")
    st = game.st
    spook = st.spooks[task["spook"]]
    if (x, y) not in game.spook_ends(task):
        how = "orthogonal or diagonal" if spook.kind == "bat" else "orthogonal"
        raise IllegalAction(
            f"the {spook.kind} cannot end exactly {st.dice[task['die']] if st.dice else '?'} {how} steps away "
            f"at ({x}, {y})"
        )
    start = spook.pos
    assert start is not None
    spook.pos = (x, y)
    st.tasks.pop(0)
    rules.spook_landed(st, spook)
    return [Event("spook_moved", {"seat": st.seat, "spook": spook.id, "kind": spook.kind,
                                  "from": list(start), "x": x, "y": y})]


def special_check(game: DogsGame, action: Action) -> dict[str, Any]:
    task = game.expect(action, "special", "special_more")
    return rules.special_options(game.st, game.geo, task.get("may"))


def wrestle(game: DogsGame, action: Action) -> list[Event]:
    opts = special_check(game, action)
    (other,) = _ints(action, "dog")
    if other not in opts["wrestle"]:
        raise IllegalAction("you can wrestle only a dog on your square, and only when a dog there has "
                            f"snack cubes; {game._name(other)}'s dog is not one you can wrestle"
                            if other in range(len(game.st.players)) else
                            "you can wrestle only a dog on your square, and only when a dog there has snack cubes")
    st = game.st
    first = st.tasks.pop(0)["t"] == "special"
    events: list[Event] = []
    rules.wrestle(st, st.seat, other, events)
    if first:
        # "you may perform a Wrestle" and "you may perform an Attack" are separate clauses.
        rules.offer_more(st, game.geo, "attack")
    return events


def attack(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "special", "special_more", "bork_attack")
    (ident,) = _ints(action, "spook")
    st = game.st
    if task["t"] == "bork_attack":
        allowed = task["spooks"]
    else:
        allowed = rules.special_options(st, game.geo, task.get("may"))["attack"]
    if ident not in allowed:
        raise IllegalAction(f"{game.spook_text(ident)} is not on your dog's square")
    st.tasks.pop(0)
    events: list[Event] = []
    rules.attack(st, action.player if action.player is not None else st.seat, st.spooks[ident], events)
    if task["t"] == "special":
        rules.offer_more(st, game.geo, "wrestle")
    return events


def bork(game: DogsGame, action: Action) -> list[Event]:
    game.expect(action, "special")
    opts = special_check(game, action)
    token = action.params.get("token")
    if token not in ("dog", "spook"):
        raise MalformedAction(f"bork: 'token' must be 'dog' or 'spook', got {token!r}")
    ident, x, y = _ints(action, "id", "x", "y", also=("token",))
    if (token, ident, (x, y)) not in opts["bork"]:
        if not opts["bork"]:
            raise IllegalAction("you may bork only from an empty square, with a token in range")
        what = (f"{game._name(ident)}'s dog" if token == "dog" and ident in range(len(game.st.players))
                else game.spook_text(ident) if token == "spook" else "that")
        raise IllegalAction(
            f"cannot bork {what} to ({x}, {y}): it must be within {game.st.options.bork_range} "
            f"squares and move to an adjacent square"
        )
    game.st.tasks.pop(0)
    events: list[Event] = []
    rules.bork(game.st, game.geo, token, ident, (x, y), events)
    return events


def done(game: DogsGame, action: Action) -> list[Event]:
    special_check(game, action)
    _ints(action)
    game.st.tasks.pop(0)
    return [Event("special_skipped", {"seat": game.st.seat})]


def decline(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "bork_attack")
    _ints(action)
    game.st.tasks.pop(0)
    return [Event("attack_declined", {"seat": task["seat"]})]


def escape(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "escape")
    x, y = _ints(action, "x", "y")
    if [x, y] not in task["options"]:
        raise IllegalAction(f"({x}, {y}) is not an empty square next to your dog")
    st = game.st
    st.dogs[task["seat"]] = (x, y)
    st.tasks.pop(0)
    return [Event("dog_fled", {"seat": task["seat"], "x": x, "y": y})]


def bat_target(game: DogsGame, action: Action) -> list[Event]:
    task = game.expect(action, "bat_target")
    (dog,) = _ints(action, "dog")
    if dog not in task["options"]:
        raise IllegalAction("the bat can rob only a dog on its square with snack cubes; "
                            f"{game._name(dog)}'s dog is not one" if dog in range(len(game.st.players)) else
                            "the bat can rob only a dog on its square with snack cubes")
    st = game.st
    st.tasks.pop(0)
    spook = st.spooks[task["spook"]]
    return [Event("bat_robbed", {"spook": spook.id, **rules.bat_rob(st, spook, dog)})]


HANDLERS: dict[str, Handler] = {
    "place_tile": place_tile,
    "place_dog": place_dog,
    "roll": roll,
    "choose": choose,
    "back": back,
    "move_dog": move_dog,
    "pick_spook": pick_spook,
    "move_spook": move_spook,
    "wrestle": wrestle,
    "attack": attack,
    "bork": bork,
    "done": done,
    "decline": decline,
    "escape": escape,
    "bat_target": bat_target,
}
