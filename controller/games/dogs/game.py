"""Graveyard Dogs: a complete, pure rules engine (``dogs``).

Rule interpretations and options are documented in ``docs/rules/dogs.md``.
The state lives in :class:`~controller.games.dogs.state.DogsState`, the
effects in :mod:`controller.games.dogs.rules`, and each action's checks in
:mod:`controller.games.dogs.actions`; this module lists the legal actions,
dispatches ``apply`` and builds the views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self, TypeGuard

from .. import register
from ..base import Action, Event, Game
from ..errors import BadGameData, IllegalAction, MalformedAction
from ..rng import Rng
from ..words import ordinal_word as ordinal
from .actions import HANDLERS
from .board import Graveyard, Square
from .event_words import describe_event as word_event
from .options import COLOURS, parse_options
from .rules import draw_tile, game_should_end, settle, special_options, winners
from .state import SNACKS_PER_COLOUR, SPOOK_KINDS, DogsState
from .tiles import SPOOK_COUNT, dog_start_squares, load_tiles, parse_tiles
from .views import public_view
from .words import in_words, square_words

_new = object.__new__

# What each action does, as a refusal says it ("you cannot move your dog now: ...").
KIND_WORDS: dict[str, str] = {
    "place_tile": "place a tile", "place_dog": "place your dog", "roll": "roll the dice", "choose": "choose a die",
    "back": "take the choice back", "move_dog": "move your dog", "pick_spook": "pick a spook",
    "move_spook": "move a spook", "wrestle": "wrestle", "attack": "attack a spook", "bork": "bork",
    "done": "stop here", "decline": "let the attack go", "escape": "flee", "bat_target": "send the bat",
}
# What the game waits for, in words (the steps of ``step_name``).
STEP_WORDS: dict[str, str] = {
    "setup_tile": "a starting tile to be placed", "setup_dog": "a dog to be put on its starting tile",
    "place_tile": "the drawn tile to be placed", "roll": "the dice to be rolled",
    "act": "a die to be chosen for the dog or the spooks", "move_dog": "the dog to be moved",
    "pick_spook": "a spook to be picked", "move_spook": "the picked spook to be moved",
    "special": "a Wrestle, an Attack, a Bork or nothing more",
    "special_more": "one more Wrestle or Attack, or nothing more",
    "bork_attack": "the borked dog's owner to attack or let it go", "escape": "a dog to flee",
    "bat_target": "the bat's target to be chosen", "over": "nothing: the game is over",
}


def is_seat(seat: Any, players: Sequence[str]) -> TypeGuard[int]:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players)


def _act(kind: str, player: int, params: dict[str, Any] | None = None) -> Action:
    """Build an Action from params the engine made itself (already plain, canonical JSON).

    ``Action()`` round-trips params through ``json`` to canonicalise them, which
    costs about 10 microseconds; a full graveyard lists hundreds of placements,
    so the engine skips that for values it built. Tests compare these with
    ``Action(...)`` built the normal way.
    """
    action = _new(Action)
    fields = action.__dict__
    fields["kind"] = kind
    fields["player"] = player
    fields["params"] = params if params is not None else {}
    return action


def _placement_actions(seat: int, spots: list[Square]) -> list[Action]:
    """``place_tile`` for every spot and rotation: :func:`_act` inlined, as this
    list runs to hundreds of actions once the graveyard sprawls."""
    out: list[Action] = []
    append = out.append
    for x, y in spots:
        for rotation in (0, 1, 2, 3):
            action = _new(Action)
            fields = action.__dict__
            fields["kind"] = "place_tile"
            fields["player"] = seat
            fields["params"] = {"rotation": rotation, "x": x, "y": y}
            append(action)
    return out


@register
class DogsGame(Game):
    name = "dogs"
    title = "Graveyard Dogs"
    min_players = 2
    max_players = 4
    # A tile drawn from the face-down deck, a spook turned from the face-down pool.
    DOOR_EVENTS = frozenset({"tile_drawn", "spook_placed"})
    ACTION_WORDS = KIND_WORDS  # the waiting line says them as the refusals do

    def __init__(self, state: DogsState) -> None:
        self.st = state
        self._geo: Graveyard | None = None
        self._geo_tiles = -1
        self._place_actions: dict[int, list[Action]] = {}

    # ----- construction and persistence ---------------------------------------
    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> Self:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise IllegalAction("players must be a list of names")
        names = list(players)
        if not cls.min_players <= len(names) <= cls.max_players:
            raise IllegalAction(
                f"Graveyard Dogs takes {cls.min_players} to {cls.max_players} players, got {len(names)}"
            )
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                raise IllegalAction(f"player {i} needs a non-empty name, got {name!r}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise IllegalAction(f"seed must be an integer, got {seed!r}")
        if options is not None and not isinstance(options, Mapping):
            raise IllegalAction("options must be an object")
        opts = parse_options(options, len(names))
        # A path is read here, once; the tiles are then part of the saved state. A
        # document given inline keeps even a replay from the options independent of files.
        tiles = parse_tiles(opts.tiles, "option 'tiles'") if isinstance(opts.tiles, dict) else load_tiles(opts.tiles)
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
        # "The game ends immediately": play checks the end after every step, so a game at rest is
        # over exactly when its end has come. Anything else would play on past the end, or end early.
        ended = game_should_end(game.st)
        if game.st.phase != "over" and ended:
            raise BadGameData("saved dogs state: every tile is placed and the graveyard has no spook or no "
                              "snack cube left, so the game should have ended")
        if game.st.phase == "over" and not ended:
            raise BadGameData("saved dogs state: the game is marked over before its end (tiles still to place, "
                              "or spooks and snack cubes still in the graveyard)")
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
            self._place_actions = {}
        return self._geo

    def placement_ok(self, x: int, y: int) -> bool:
        if not self.st.placed:
            return (x, y) == (0, 0)
        overlaps, touching = self.geo.contacts(x, y)
        return not overlaps and touching >= self.st.options.min_contact

    def dog_squares(self) -> list[Square]:
        p = self.st.placed[-1]
        grid = self.st.tile(p.tile).rotated(p.rotation)
        return [(p.x + dx, p.y + dy) for dx, dy in dog_start_squares(grid)]

    # ----- who decides -------------------------------------------------------------
    def decider(self) -> int | None:
        st = self.st
        if st.phase == "over":
            return None
        if st.tasks and st.tasks[0]["t"] in ("escape", "bork_attack"):
            return int(st.tasks[0]["seat"])
        return st.seat

    def step_name(self) -> str:
        """The name of what the game waits for (a phase, or the pending step)."""
        return str(self.st.tasks[0]["t"]) if self.st.tasks else self.st.phase

    # ----- legal actions -------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        st = self.st
        seat = st.seat
        step = self.step_name()
        if step in ("setup_tile", "place_tile"):
            # the same list until a tile is placed (which rebuilds the graveyard and empties this cache)
            geo = self.geo
            cached = self._place_actions.get(seat)
            if cached is None:
                cached = self._place_actions[seat] = _placement_actions(seat, geo.placements(st.options.min_contact))
            return list(cached)
        if step == "setup_dog":
            return [_act("place_dog", seat, {"x": x, "y": y}) for x, y in self.dog_squares()]
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
            ends = self.spook_ends(task)
            return [_act("move_spook", seat, {"x": x, "y": y}) for x, y in ends] + [_act("back", seat)]
        if step in ("special", "special_more"):
            return self.special_actions(task.get("may"))
        if step == "escape":
            return [_act("escape", task["seat"], {"x": x, "y": y}) for x, y in task["options"]]
        if step == "bat_target":
            return [_act("bat_target", seat, {"dog": d}) for d in task["options"]]
        if step == "bork_attack":
            who = task["seat"]
            return [_act("attack", who, {"spook": s}) for s in task["spooks"]] + [_act("decline", who)]
        return []

    def spook_ends(self, task: Mapping[str, Any]) -> list[Square]:
        spook = self.st.spooks[task["spook"]]
        assert spook.pos is not None and self.st.dice is not None
        bits = self.geo.exact_reach(spook.pos, self.st.dice[task["die"]], diagonal=spook.kind == "bat")
        return self.geo.squares(bits)

    def special_actions(self, only: str | None = None) -> list[Action]:
        seat = self.st.seat
        opts = special_options(self.st, self.geo, only)
        out = [_act("wrestle", seat, {"dog": d}) for d in opts["wrestle"]]
        out += [_act("attack", seat, {"spook": s}) for s in opts["attack"]]
        out += [_act("bork", seat, {"id": i, "token": t, "x": x, "y": y}) for t, i, (x, y) in opts["bork"]]
        out.append(_act("done", seat))
        return out

    # ----- apply -----------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        if not isinstance(action, Action):
            raise MalformedAction(f"expected an Action, got {type(action).__name__}")
        if self.st.phase == "over":
            raise IllegalAction("the game is over")
        handler = HANDLERS.get(action.kind)
        if handler is None:
            raise IllegalAction(f"unknown action {action.kind!r} for Graveyard Dogs")
        decider = self.decider()
        if action.player != decider:
            players = self.st.players
            them = players[action.player] if is_seat(action.player, players) else "that player"
            raise IllegalAction(f"it is {players[decider]} who acts now, not {them}"
                                if decider is not None else "nobody acts now")
        try:
            events = handler(self, action)
        except MalformedAction:
            raise  # a script's mistake in the action's shape: it names the parameter
        except IllegalAction as exc:
            # People read it (the player's own page): squares by their tiles, not their coordinates.
            raise IllegalAction(self.in_words(str(exc))) from None
        settle(self.st, lambda: self.geo, events)
        return events

    def in_words(self, text: str) -> str:
        """``text`` with every ``(x, y)`` square named as players do (the panel's words too)."""
        return in_words(self.public_view(), text) if "(" in text else text

    def expect(self, action: Action, *steps: str) -> dict[str, Any]:
        step = self.step_name()
        if step not in steps:
            doing = KIND_WORDS.get(action.kind, "do that")
            raise IllegalAction(f"you cannot {doing} now: the game waits for {STEP_WORDS.get(step, 'another step')}")
        return self.st.tasks[0] if self.st.tasks else {}

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
        return public_view(self.st, self.geo, self.decider(), self.step_name())

    def player_view(self, seat: int) -> dict[str, Any]:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.st.players):
            raise IllegalAction(f"no seat {seat!r} at this table")
        # Nothing in this game is known to one player only (spooks come out face up).
        return {**self.public_view(), "seat": seat, "colour": self.st.colours[seat], "private": {}}

    def rng_state(self) -> str | None:
        return self.st.rng.to_json()

    def _die_text(self, die: Any) -> str:
        if self.st.dice is not None and die in (0, 1) and not isinstance(die, bool):
            return f"{self.st.dice[die]} (die {die + 1})"
        return "die"  # a refused action's die may be anything

    def _name(self, seat: Any) -> str:
        players = self.st.players
        return players[seat] if is_seat(seat, players) else "nobody at this table"

    def spook_text(self, ident: Any) -> str:
        """A spook as players tell them apart: its kind, and which of its kind when there are more."""
        spooks = self.st.spooks
        if not isinstance(ident, int) or isinstance(ident, bool) or not 0 <= ident < len(spooks):
            return "that spook"
        kind = spooks[ident].kind
        same = [s.id for s in spooks if s.kind == kind]
        return f"the {kind}" if len(same) == 1 else f"the {ordinal(same.index(ident) + 1)} {kind}"

    def describe_event(self, event: Event, viewer: int | None = None) -> str:
        return word_event(self, event, viewer)

    def describe(self, action: Action) -> str:
        """``action`` in a player's words: squares by their tiles, tiles by their names, never a coordinate
        or an id (the JSON action keeps those). A refused action's params may be any JSON."""
        who = self._name(action.player)
        p = action.params

        def square() -> str:  # the tiles are read only for an action that names a square
            return square_words(self._tile_names(), p.get("x"), p.get("y"))

        texts = {
            "place_tile": lambda: f"{who} places {self._placing_words(p)}",
            "place_dog": lambda: f"{who} puts their dog on {square()}",
            "roll": lambda: f"{who} rolls both dice",
            "choose": lambda: f"{who} uses the {self._die_text(p.get('die'))} for the "
            + (f"{p['action']} action" if p.get("action") in ("dog", "spook") else "other action"),
            "back": lambda: f"{who} takes the choice back",
            "move_dog": lambda: f"{who} moves their dog to {square()}",
            "pick_spook": lambda: f"{who} picks {self.spook_text(p.get('spook'))}",
            "move_spook": lambda: f"{who} moves the spook to {square()}",
            "wrestle": lambda: f"{who} wrestles {self._name(p.get('dog'))}'s dog",
            "attack": lambda: f"{who} attacks {self.spook_text(p.get('spook'))}",
            "bork": lambda: f"{who} borks "
            + (f"{self._name(p.get('id'))}'s dog" if p.get("token") == "dog" else self.spook_text(p.get("id")))
            + f" to {square()}",
            "done": lambda: f"{who} does nothing more",
            "decline": lambda: f"{who} does not attack",
            "escape": lambda: f"{who} flees to {square()}",
            "bat_target": lambda: f"{who} sends the bat after {self._name(p.get('dog'))}'s dog",
        }
        text = texts.get(action.kind)
        return text() if text else f"{who} does something this game does not have"

    def _tile_names(self) -> dict[str, Any]:
        """What :func:`square_words` reads: where each placed tile lies, and its name."""
        st = self.st
        return {"tile_size": st.tiles[0].size if st.tiles else 3,
                "tiles": [{"x": p.x, "y": p.y, "name": st.tile(p.tile).name} for p in st.placed]}

    def _placing_words(self, p: Mapping[str, Any]) -> str:
        """A tile being placed: its name, the placed tiles it comes beside, and how far it is turned."""
        st = self.st
        x, y = p.get("x"), p.get("y")
        here = next((t for t in st.placed if (t.x, t.y) == (x, y)), None)  # worded again once placed
        tile_id = here.tile if here is not None else st.drawn
        name = st.tile(tile_id).name if tile_id is not None else "a tile"
        size = st.tiles[0].size if st.tiles else 3
        beside = []
        if isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool) and not isinstance(y, bool):
            for t in st.placed:
                across = t.x - size < x < t.x + size and y in (t.y - size, t.y + size)
                along = t.y - size < y < t.y + size and x in (t.x - size, t.x + size)
                if t is not here and (across or along):
                    beside.append(st.tile(t.tile).name)
        where = (" beside " + " and ".join(beside)) if beside else \
            " in the middle of the table" if len([t for t in st.placed if t is not here]) == 0 else ""
        turned = {1: ", turned a quarter turn", 2: ", turned half a turn",
                  3: ", turned three quarters of a turn"}.get(p.get("rotation"), "")  # type: ignore[arg-type]
        return f"{name}{where}{turned}"
