"""Graveyard Dogs: a complete, pure rules engine (``dogs``).

Rule interpretations and options are documented in ``docs/rules/dogs.md``.
The state lives in :class:`~controller.games.dogs_state.DogsState`; effects in
:mod:`controller.games.dogs_rules`; this module checks actions, lists legal
ones and builds the views.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from . import register
from .base import Action, BadGameData, Event, Game, IllegalAction, MalformedAction
from .dogs_board import Graveyard, Square
from .dogs_options import COLOURS, parse_options
from .dogs_rules import (
    attack, bat_rob, bork, collect, draw_tile, settle, special_options, spook_landed, start_turn, winners,
    wrestle,
)
from .dogs_state import SNACKS_PER_COLOUR, SPOOK_KINDS, DogsState, Placement, Spook
from .dogs_tiles import GRAVE, JACK, SPOOK_COUNT, dog_start_squares, load_tiles
from .dogs_views import public_view
from .rng import Rng

Handler = Callable[["DogsGame", Action], list[Event]]


def _act(kind: str, player: int, params: dict[str, Any] | None = None) -> Action:
    """Build an Action from params the engine made itself (already plain, canonical JSON).

    ``Action()`` round-trips params through ``json`` to canonicalise them, which
    costs about 10 microseconds; a full graveyard lists hundreds of placements,
    so the engine skips that for values it built. Tests compare these with
    ``Action(...)`` built the normal way.
    """
    action = object.__new__(Action)
    action.__dict__.update(kind=kind, player=player, params=params if params is not None else {})
    return action


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


@register
class DogsGame(Game):
    name = "dogs"
    title = "Graveyard Dogs"
    min_players = 2
    max_players = 4

    def __init__(self, state: DogsState) -> None:
        self.st = state
        self._geo: Graveyard | None = None
        self._geo_tiles = -1

    # ----- construction and persistence ---------------------------------------
    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> Self:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise IllegalAction("players must be a list of names")
        names = list(players)
        if not cls.min_players <= len(names) <= cls.max_players:
            raise IllegalAction(f"Graveyard Dogs takes {cls.min_players} to {cls.max_players} players, got {len(names)}")
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                raise IllegalAction(f"player {i} needs a non-empty name, got {name!r}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise IllegalAction(f"seed must be an integer, got {seed!r}")
        if options is not None and not isinstance(options, Mapping):
            raise IllegalAction("options must be an object")
        opts = parse_options(options, len(names))
        tiles = load_tiles(opts.tiles)
        if opts.min_contact > tiles[0].size:
            raise IllegalAction(
                f"option 'min_contact' is {opts.min_contact} but a tile edge has only {tiles[0].size} squares"
            )
        rng = Rng(seed)
        if opts.colours == "seat":
            colours = list(COLOURS[: len(names)])
        elif opts.colours == "random":
            shuffled = list(COLOURS)
            rng.shuffle(shuffled)
            colours = shuffled[: len(names)]
        else:
            colours = list(opts.colours)
        deck = [t.id for t in tiles]
        rng.shuffle(deck)
        tin = [c for c in COLOURS for _ in range(SNACKS_PER_COLOUR)]
        rng.shuffle(tin)
        pool = [k for k in SPOOK_KINDS for _ in range(SPOOK_COUNT // len(SPOOK_KINDS))]
        rng.shuffle(pool)
        n = len(names)
        st = DogsState(
            players=names, colours=colours, options=opts, tiles=tiles, rng=rng, deck=deck, tin=tin, pool=pool,
            dogs=[None] * n, card_snacks=[[] for _ in range(n)], gargoyled=[False] * n,
            phase="setup_tile", seat=opts.first_player, setup_left=n,
        )
        draw_tile(st, [])
        return cls(st)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.name, **self.st.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        if not isinstance(data, Mapping):
            raise BadGameData("saved dogs state must be a JSON object")
        if data.get("game") != cls.name:
            raise BadGameData(f"saved state is for game {data.get('game')!r}, not 'dogs'")
        game = cls(DogsState.from_json({k: v for k, v in data.items() if k != "game"}))
        squares = game.geo.features
        for seat, pos in enumerate(game.st.dogs):
            if pos is not None and pos not in squares:
                raise BadGameData(f"saved dogs state: dog {seat} is off the graveyard at {list(pos)}")
        for spook in game.st.spooks:
            if spook.pos is not None and spook.pos not in squares:
                raise BadGameData(f"saved dogs state: spook {spook.id} is off the graveyard at {list(spook.pos)}")
        return game

    # ----- geometry -------------------------------------------------------------
    @property
    def geo(self) -> Graveyard:
        """The placed tiles as squares; rebuilt only when a tile is added."""
        if self._geo is None or self._geo_tiles != len(self.st.placed):
            features: dict[Square, str] = {}
            tiles = {t.id: t for t in self.st.tiles}
            for p in self.st.placed:
                x, y = p.x, p.y
                for dx, dy, ch in tiles[p.tile].features(p.rotation):
                    features[(x + dx, y + dy)] = ch
            self._geo = Graveyard(features, self.st.tiles[0].size)
            self._geo_tiles = len(self.st.placed)
        return self._geo

    def _placement_ok(self, x: int, y: int) -> bool:
        if not self.st.placed:
            return (x, y) == (0, 0)
        overlaps, touching = self.geo.contacts(x, y)
        return not overlaps and touching >= self.st.options.min_contact

    def _dog_squares(self) -> list[Square]:
        p = self.st.placed[-1]
        grid = self.st.tile(p.tile).rotated(p.rotation)
        return [(p.x + dx, p.y + dy) for dx, dy in dog_start_squares(grid)]

    # ----- who decides -------------------------------------------------------------
    def _decider(self) -> int | None:
        st = self.st
        if st.phase == "over":
            return None
        if st.tasks and st.tasks[0]["t"] in ("escape", "bork_attack"):
            return int(st.tasks[0]["seat"])
        return st.seat

    def _step(self) -> str:
        """The name of what the game waits for (a phase, or the pending step)."""
        return str(self.st.tasks[0]["t"]) if self.st.tasks else self.st.phase

    # ----- legal actions -------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        st = self.st
        seat = st.seat
        step = self._step()
        if step in ("setup_tile", "place_tile"):
            # the same list until a tile is placed, which builds a new graveyard
            key = ("place_tile", seat, st.options.min_contact)
            cached = self.geo.memo.get(key)
            if cached is None:
                spots = self.geo.placements(st.options.min_contact)
                cached = [_act("place_tile", seat, {"rotation": r, "x": x, "y": y}) for x, y in spots for r in range(4)]
                self.geo.memo[key] = cached
            return list(cached)  # type: ignore[call-overload]
        if step == "setup_dog":
            return [_act("place_dog", seat, {"x": x, "y": y}) for x, y in self._dog_squares()]
        if step == "roll":
            return [_act("roll", seat)]
        if step == "act":
            return [
                _act("choose", seat, {"action": kind, "die": die})
                for die in (0, 1) if st.dice_use[die] is None
                for kind in sorted(set(st.slots))
            ]
        task = st.tasks[0] if st.tasks else {}
        if step == "move_dog":
            dog = st.dogs[seat]
            assert dog is not None and st.dice is not None
            ends = self.geo.squares(self.geo.exact_reach(dog, st.dice[task["die"]]))
            return [_act("move_dog", seat, {"x": x, "y": y}) for x, y in ends] + [_act("back", seat)]
        if step == "pick_spook":
            return [_act("pick_spook", seat, {"spook": s.id}) for s in st.spooks_on_board()] + [_act("back", seat)]
        if step == "move_spook":
            ends = self._spook_ends(task)
            return [_act("move_spook", seat, {"x": x, "y": y}) for x, y in ends] + [_act("back", seat)]
        if step == "special":
            return self._special_actions()
        if step == "escape":
            return [_act("escape", task["seat"], {"x": x, "y": y}) for x, y in task["options"]]
        if step == "bat_target":
            return [_act("bat_target", seat, {"dog": d}) for d in task["options"]]
        if step == "bork_attack":
            who = task["seat"]
            return [_act("attack", who, {"spook": s}) for s in task["spooks"]] + [_act("decline", who)]
        return []

    def _spook_ends(self, task: Mapping[str, Any]) -> list[Square]:
        spook = self.st.spooks[task["spook"]]
        assert spook.pos is not None and self.st.dice is not None
        bits = self.geo.exact_reach(spook.pos, self.st.dice[task["die"]], diagonal=spook.kind == "bat")
        return self.geo.squares(bits)

    def _special_actions(self) -> list[Action]:
        seat = self.st.seat
        opts = special_options(self.st, self.geo)
        out = [_act("collect", seat)] if opts["collect"] else []
        out += [_act("wrestle", seat, {"dog": d}) for d in opts["wrestle"]]
        out += [_act("attack", seat, {"spook": s}) for s in opts["attack"]]
        out += [_act("bork", seat, {"id": i, "token": t, "x": x, "y": y}) for t, i, (x, y) in opts["bork"]]
        if not opts["collect"]:
            out.append(_act("done", seat))
        return out

    # ----- apply -----------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        if not isinstance(action, Action):
            raise MalformedAction(f"expected an Action, got {type(action).__name__}")
        if self.st.phase == "over":
            raise IllegalAction("the game is over")
        handler = _HANDLERS.get(action.kind)
        if handler is None:
            raise IllegalAction(f"unknown action {action.kind!r} for Graveyard Dogs")
        decider = self._decider()
        if action.player != decider:
            raise IllegalAction(
                f"it is {self.st.players[decider]} (seat {decider}) who acts now, not seat {action.player}"
                if decider is not None else "nobody acts now"
            )
        events = handler(self, action)
        settle(self.st, self.geo, events)
        return events

    def _expect(self, action: Action, *steps: str) -> dict[str, Any]:
        step = self._step()
        if step not in steps:
            raise IllegalAction(f"cannot {action.kind} now: the game waits for {step.replace('_', ' ')}")
        return self.st.tasks[0] if self.st.tasks else {}

    def _place_tile(self, action: Action) -> list[Event]:
        self._expect(action, "setup_tile", "place_tile")
        x, y, rotation = _ints(action, "x", "y", "rotation")
        if rotation not in (0, 1, 2, 3):
            raise IllegalAction(f"rotation must be 0-3 quarter turns, got {rotation}")
        if not self._placement_ok(x, y):
            if not self.st.placed:
                raise IllegalAction("the first tile goes in the middle, at x=0, y=0")
            raise IllegalAction(
                f"a tile at ({x}, {y}) must not overlap the graveyard and must line up with it along "
                f"at least {self.st.options.min_contact} squares"
            )
        st = self.st
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

    def _place_dog(self, action: Action) -> list[Event]:
        self._expect(action, "setup_dog")
        x, y = _ints(action, "x", "y")
        if (x, y) not in self._dog_squares():
            raise IllegalAction(
                f"a dog starts on the tile just placed, not on a Gravestone, the Jack-O-Lantern or next to it; "
                f"({x}, {y}) is not such a square"
            )
        st = self.st
        st.dogs[st.seat] = (x, y)
        events = [Event("dog_placed", {"seat": st.seat, "colour": st.colours[st.seat], "x": x, "y": y})]
        st.setup_left -= 1
        nxt = (st.seat + 1) % len(st.players)
        if st.setup_left:
            st.seat = nxt
            st.phase = "setup_tile"
            draw_tile(st, events)
        else:
            start_turn(st, nxt, events)
        return events

    def _roll(self, action: Action) -> list[Event]:
        self._expect(action, "roll")
        _ints(action)
        st = self.st
        st.dice = [st.rng.die(), st.rng.die()]
        haunted = st.gargoyled[st.seat]
        st.gargoyled[st.seat] = False
        st.slots = ["spook", "spook"] if haunted else ["dog", "spook"]
        st.phase = "act"
        return [Event("dice_rolled", {"seat": st.seat, "dice": list(st.dice), "two_spook_actions": haunted})]

    def _choose(self, action: Action) -> list[Event]:
        self._expect(action, "act")
        extra = set(action.params) - {"die", "action"}
        if extra:
            raise MalformedAction(f"choose: unexpected param(s) {', '.join(sorted(extra))}")
        kind = action.params.get("action")
        die = action.params.get("die")
        if kind not in ("dog", "spook"):
            raise MalformedAction(f"choose: 'action' must be 'dog' or 'spook', got {kind!r}")
        if die not in (0, 1) or isinstance(die, bool):
            raise MalformedAction(f"choose: 'die' must be 0 or 1, got {die!r}")
        st = self.st
        if st.dice_use[die] is not None:
            raise IllegalAction(f"die {die} is already used for the {st.dice_use[die]} action")
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

    def _back(self, action: Action) -> list[Event]:
        task = self._expect(action, "move_dog", "pick_spook", "move_spook")
        _ints(action)
        st = self.st
        if task["t"] == "move_spook":
            st.tasks[0] = {"t": "pick_spook", "die": task["die"]}
        else:
            st.tasks.pop(0)
            kind = st.dice_use[task["die"]]
            assert kind is not None
            st.dice_use[task["die"]] = None
            st.slots = sorted([*st.slots, kind])
        return [Event("step_back", {"seat": st.seat, "step": task["t"]})]

    def _move_dog(self, action: Action) -> list[Event]:
        task = self._expect(action, "move_dog")
        x, y = _ints(action, "x", "y")
        st = self.st
        start = st.dogs[st.seat]
        assert start is not None and st.dice is not None
        steps = st.dice[task["die"]]
        if not self.geo.contains(self.geo.exact_reach(start, steps), (x, y)):
            raise IllegalAction(f"the dog cannot end exactly {steps} orthogonal steps away at ({x}, {y})")
        st.dogs[st.seat] = (x, y)
        st.tasks[0] = {"t": "special"}
        return [Event("dog_moved", {"seat": st.seat, "steps": steps, "from": list(start), "x": x, "y": y})]

    def _pick_spook(self, action: Action) -> list[Event]:
        task = self._expect(action, "pick_spook")
        (ident,) = _ints(action, "spook")
        st = self.st
        if not 0 <= ident < len(st.spooks) or st.spooks[ident].pos is None:
            raise IllegalAction(f"spook {ident} is not in the graveyard")
        st.tasks[0] = {"t": "move_spook", "die": task["die"], "spook": ident}
        return [Event("spook_picked", {"seat": st.seat, "spook": ident, "kind": st.spooks[ident].kind})]

    def _move_spook(self, action: Action) -> list[Event]:
        task = self._expect(action, "move_spook")
        x, y = _ints(action, "x", "y")
        st = self.st
        spook = st.spooks[task["spook"]]
        if (x, y) not in self._spook_ends(task):
            how = "orthogonal or diagonal" if spook.kind == "bat" else "orthogonal"
            raise IllegalAction(
                f"the {spook.kind} cannot end exactly {st.dice[task['die']] if st.dice else '?'} {how} steps away "
                f"at ({x}, {y})"
            )
        start = spook.pos
        assert start is not None
        spook.pos = (x, y)
        st.tasks.pop(0)
        spook_landed(st, spook)
        return [Event("spook_moved", {"seat": st.seat, "spook": spook.id, "kind": spook.kind,
                                      "from": list(start), "x": x, "y": y})]

    def _special_check(self, action: Action) -> dict[str, Any]:
        self._expect(action, "special")
        return special_options(self.st, self.geo)

    def _collect(self, action: Action) -> list[Event]:
        opts = self._special_check(action)
        _ints(action)
        if not opts["collect"]:
            raise IllegalAction("there is no snack cube under your dog")
        st = self.st
        st.tasks.pop(0)
        events: list[Event] = []
        sq = st.dogs[st.seat]
        assert sq is not None
        collect(st, st.seat, sq, events)
        return events

    def _wrestle(self, action: Action) -> list[Event]:
        opts = self._special_check(action)
        (other,) = _ints(action, "dog")
        if other not in opts["wrestle"]:
            raise IllegalAction(f"you can wrestle only a dog on your square that has snack cubes; seat {other} is not one")
        self.st.tasks.pop(0)
        events: list[Event] = []
        wrestle(self.st, self.st.seat, other, events)
        return events

    def _attack(self, action: Action) -> list[Event]:
        task = self._expect(action, "special", "bork_attack")
        (ident,) = _ints(action, "spook")
        st = self.st
        allowed = special_options(st, self.geo)["attack"] if task["t"] == "special" else task["spooks"]
        if ident not in allowed:
            raise IllegalAction(f"spook {ident} is not on your dog's square")
        st.tasks.pop(0)
        events: list[Event] = []
        attack(st, action.player if action.player is not None else st.seat, st.spooks[ident], events)
        return events

    def _bork(self, action: Action) -> list[Event]:
        opts = self._special_check(action)
        token = action.params.get("token")
        if token not in ("dog", "spook"):
            raise MalformedAction(f"bork: 'token' must be 'dog' or 'spook', got {token!r}")
        ident, x, y = _ints(action, "id", "x", "y", also=("token",))
        if (token, ident, (x, y)) not in opts["bork"]:
            if not opts["bork"]:
                raise IllegalAction("you may bork only from an empty square, with a token in range")
            raise IllegalAction(
                f"cannot bork {token} {ident} to ({x}, {y}): it must be within {self.st.options.bork_range} "
                f"squares and move to an adjacent square"
            )
        self.st.tasks.pop(0)
        events: list[Event] = []
        bork(self.st, self.geo, token, ident, (x, y), events)
        return events

    def _done(self, action: Action) -> list[Event]:
        opts = self._special_check(action)
        _ints(action)
        if opts["collect"]:
            raise IllegalAction("a snack cube is under your dog: collect it (or take another action)")
        self.st.tasks.pop(0)
        return [Event("special_skipped", {"seat": self.st.seat})]

    def _decline(self, action: Action) -> list[Event]:
        task = self._expect(action, "bork_attack")
        _ints(action)
        self.st.tasks.pop(0)
        return [Event("attack_declined", {"seat": task["seat"]})]

    def _escape(self, action: Action) -> list[Event]:
        task = self._expect(action, "escape")
        x, y = _ints(action, "x", "y")
        if [x, y] not in task["options"]:
            raise IllegalAction(f"({x}, {y}) is not an empty square next to your dog")
        st = self.st
        st.dogs[task["seat"]] = (x, y)
        st.tasks.pop(0)
        return [Event("dog_fled", {"seat": task["seat"], "x": x, "y": y})]

    def _bat_target(self, action: Action) -> list[Event]:
        task = self._expect(action, "bat_target")
        (dog,) = _ints(action, "dog")
        if dog not in task["options"]:
            raise IllegalAction(f"the bat can rob only a dog on its square with snack cubes; seat {dog} is not one")
        st = self.st
        st.tasks.pop(0)
        spook = st.spooks[task["spook"]]
        return [Event("bat_robbed", {"spook": spook.id, **bat_rob(st, spook, dog)})]

    # ----- who and when -------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return list(self.st.players)

    @property
    def current_player(self) -> int | None:
        return None if self.st.phase == "over" else self.st.seat

    @property
    def is_over(self) -> bool:
        return self.st.phase == "over"

    @property
    def winners(self) -> list[int]:
        return winners(self.st)

    # ----- views ------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        return public_view(self.st, self.geo, self._decider(), self._step())

    def player_view(self, seat: int) -> dict[str, Any]:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.st.players):
            raise IllegalAction(f"no seat {seat!r} at this table")
        # Nothing in this game is known to one player only (spooks come out face up).
        return {**self.public_view(), "seat": seat, "colour": self.st.colours[seat], "private": {}}

    def _die_text(self, die: Any) -> str:
        if self.st.dice is not None and die in (0, 1) and not isinstance(die, bool):
            return f"{self.st.dice[die]} (die {die + 1})"
        return f"die {die!r}"

    def describe(self, action: Action) -> str:
        who = self.st.players[action.player] if action.player is not None and 0 <= action.player < len(
            self.st.players) else "?"
        p = action.params
        texts = {
            "place_tile": lambda: f"{who} places the tile at ({p.get('x')}, {p.get('y')}), turned {p.get('rotation')}",
            "place_dog": lambda: f"{who} puts their dog on ({p.get('x')}, {p.get('y')})",
            "roll": lambda: f"{who} rolls both dice",
            "choose": lambda: f"{who} uses the {self._die_text(p.get('die'))} for the {p.get('action')} action",
            "back": lambda: f"{who} takes the choice back",
            "move_dog": lambda: f"{who} moves their dog to ({p.get('x')}, {p.get('y')})",
            "pick_spook": lambda: f"{who} picks spook {p.get('spook')}",
            "move_spook": lambda: f"{who} moves the spook to ({p.get('x')}, {p.get('y')})",
            "collect": lambda: f"{who} collects the snack cube",
            "wrestle": lambda: f"{who} wrestles seat {p.get('dog')}",
            "attack": lambda: f"{who} attacks spook {p.get('spook')}",
            "bork": lambda: f"{who} borks {p.get('token')} {p.get('id')} to ({p.get('x')}, {p.get('y')})",
            "done": lambda: f"{who} does nothing more",
            "decline": lambda: f"{who} does not attack",
            "escape": lambda: f"{who} flees to ({p.get('x')}, {p.get('y')})",
            "bat_target": lambda: f"{who} sends the bat after seat {p.get('dog')}",
        }
        text = texts.get(action.kind)
        return text() if text else action.to_text()


_HANDLERS: dict[str, Handler] = {
    "place_tile": DogsGame._place_tile,
    "place_dog": DogsGame._place_dog,
    "roll": DogsGame._roll,
    "choose": DogsGame._choose,
    "back": DogsGame._back,
    "move_dog": DogsGame._move_dog,
    "pick_spook": DogsGame._pick_spook,
    "move_spook": DogsGame._move_spook,
    "collect": DogsGame._collect,
    "wrestle": DogsGame._wrestle,
    "attack": DogsGame._attack,
    "bork": DogsGame._bork,
    "done": DogsGame._done,
    "decline": DogsGame._decline,
    "escape": DogsGame._escape,
    "bat_target": DogsGame._bat_target,
}
