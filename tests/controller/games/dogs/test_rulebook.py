"""Graveyard Dogs, re-derived from the rulebook in seeded random games.

The other property tests check conservation, secrets, replay and that the legal
list is what ``apply`` accepts. These check, at every step of whole random
games under many option sets, what the rulebook says should happen, worked out
here from the state without the engine's helpers:

* the special actions after a Dog Action (Wrestle, Attack, Bork and their targets);
* what a Wrestle, an Attack, a Concern, a Haunt and a Bork roll do to the cards;
* turn order, the Gargoyle's two Spook Actions, and the end and the score;
* near misses of every listed action (one square off, another seat, another
  spook) are refused in words, with the state unchanged.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

from controller.games import Action, IllegalAction
from controller.games.base import Event
from controller.games.dogs import DogsGame
from tests.controller.games.dogs.support import greedy, lab

Square = tuple[int, int]
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
COORDINATE = re.compile(r"\(-?\d+, -?\d+\)")

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"bork_to": "borker", "bork_own_dog": True},
    {"skeleton_haunt": "one", "carried_snacks_in_graveyard": True},
    {"concern_escape": 1, "attack_target": 1, "bork_penalty_max": 6},
    {"concern_escape": 7, "attack_target": 6, "bork_penalty_max": 0, "bork_range": 1},
    {"first_player": 1, "colours": "random", "min_contact": 1, "bork_range": 6},
    # An owner's printing of 2x2 tiles, given inline, with colours dealt by hand.
    {"tiles": {"size": 2, "tiles": [{"id": f"S{i}", "name": f"Small {i}", "grid": ["JG" if i < 8 else "J.", ".."]}
                                    for i in range(16)]},
     "colours": ["yellow", "green", "blue", "red"][:2], "bork_to": "borker"},
]


def squares_of(game: DogsGame) -> set[Square]:
    return set(game.geo.features)


def neighbours(squares: set[Square], sq: Square) -> list[Square]:
    return [(sq[0] + dx, sq[1] + dy) for dx, dy in ORTHOGONAL if (sq[0] + dx, sq[1] + dy) in squares]


def within(squares: set[Square], start: Square, steps: int) -> set[Square]:
    """Squares at most ``steps`` orthogonal steps away through the graveyard."""
    seen = {start}
    frontier = [start]
    for _ in range(steps):
        frontier = [n for sq in frontier for n in neighbours(squares, sq) if n not in seen]
        seen.update(frontier)
    return seen


def empty(game: DogsGame, sq: Square) -> bool:
    """Special Note: a bare Jack-O-Lantern or Gravestone is empty; a token or cube is not."""
    st = game.st
    return not st.board_snacks.get(sq) and sq not in st.dogs and all(s.pos != sq for s in st.spooks)


def expected_specials(game: DogsGame, only: str | None) -> dict[str, set[Any]]:
    """SPECIAL ACTIONS, from the square the mover's dog ended on."""
    st = game.st
    seat = st.seat
    sq = st.dogs[seat]
    assert sq is not None
    others = [d for d, pos in enumerate(st.dogs) if pos == sq and d != seat]
    spooks = [s.id for s in st.spooks if s.pos == sq]
    # "If no other dogs in the space have any snack cubes, then you may not do a Wrestle."
    wrestle = set(others) if any(st.card_snacks[d] for d in others) and only in (None, "wrestle") else set()
    attack = set(spooks) if only in (None, "attack") else set()
    bork: set[tuple[str, int, Square]] = set()
    # "If you end your action in an empty space you may perform a Bork" (the dog itself aside).
    if only is None and not others and not spooks and not st.board_snacks.get(sq):
        squares = squares_of(game)
        near = within(squares, sq, st.options.bork_range)
        tokens = [("dog", d, pos) for d, pos in enumerate(st.dogs)
                  if pos in near and (d != seat or st.options.bork_own_dog)]
        tokens += [("spook", s.id, s.pos) for s in st.spooks if s.pos in near]
        for token, ident, pos in tokens:
            assert pos is not None
            if st.options.bork_to == "borker":
                dests = [n for n in neighbours(squares, sq) if n != pos]
            else:
                dests = neighbours(squares, pos)
            bork |= {(token, ident, d) for d in dests}
    return {"wrestle": wrestle, "attack": attack, "bork": bork}


def listed_specials(legal: list[Action]) -> dict[str, set[Any]]:
    return {
        "wrestle": {a.params["dog"] for a in legal if a.kind == "wrestle"},
        "attack": {a.params["spook"] for a in legal if a.kind == "attack"},
        "bork": {(a.params["token"], a.params["id"], (a.params["x"], a.params["y"])) for a in legal
                 if a.kind == "bork"},
    }


def should_end(game: DogsGame) -> bool:
    """ENDGAME: not before all 16 tiles are out; then no loose cube, or no spook, ends it."""
    st = game.st
    if len(st.placed) < 16:
        return False
    on_board = [s for s in st.spooks if s.pos is not None]
    if not on_board:
        return True
    loose = sum(len(v) for v in st.board_snacks.values())
    if st.options.carried_snacks_in_graveyard:
        loose += sum(len(s.snacks) for s in on_board)
    return loose == 0


def score(game: DogsGame, seat: int) -> int:
    """Three a spook on the card, two a cube of the dog's colour, one any other cube."""
    st = game.st
    own = st.colours[seat]
    return (3 * sum(1 for s in st.spooks if s.holder == seat)
            + sum(2 if c == own else 1 for c in st.card_snacks[seat]))


class Shadow:
    """What the rulebook says about the step just taken, checked against the state after it."""

    def __init__(self, game: DogsGame) -> None:
        self.game = game
        self.gargoyled: set[int] = set()  # dogs a Gargoyle haunted since their owner's last roll

    def before(self, action: Action, legal: list[Action]) -> dict[str, Any]:
        game, st = self.game, self.game.st
        step = game.step_name()
        if step in ("special", "special_more"):
            only = st.tasks[0].get("may")
            expected = expected_specials(game, only)
            assert listed_specials(legal) == expected, step
            assert any(expected.values()), "a special step with nothing to choose but stopping"
            assert Action("done", st.seat) in legal
        if step == "escape":
            task = st.tasks[0]
            pos = st.dogs[task["seat"]]
            assert pos is not None
            options = {n for n in neighbours(squares_of(game), pos) if empty(game, n)}
            assert {(a.params["x"], a.params["y"]) for a in legal} == options and len(options) > 1
        return {
            "cards": [list(c) for c in st.card_snacks],
            "dogs": list(st.dogs),
            "seat": st.seat,
            "turn": st.turn,
            "removed": len(st.removed),
            "spooks": {s.id: (s.pos, list(s.snacks), s.holder) for s in st.spooks},
            "board_snacks": {sq: list(v) for sq, v in st.board_snacks.items()},
            "end_due": should_end(game),
        }

    def after(self, action: Action, events: list[Event], was: dict[str, Any]) -> None:
        game, st = self.game, self.game.st
        n = len(st.players)
        for event in events:
            data = event.data
            kind = event.type
            if kind == "turn_started":
                # "turns continuing in a clockwise manner"
                # "The spookiest player goes first, with turns continuing in a clockwise manner."
                first = was["turn"] == 0
                assert data["seat"] == (st.options.first_player if first else (was["seat"] + 1) % n)
                assert data["turn"] == was["turn"] + 1
            elif kind == "dice_rolled":
                assert data["two_spook_actions"] == (data["seat"] in self.gargoyled)
                self.gargoyled.discard(data["seat"])
                # The Gargoyle: no Dog Action, two Spook Actions.
                assert sorted(st.slots) == (["spook", "spook"] if data["two_spook_actions"] else ["dog", "spook"])
            elif kind == "haunted" and data["kind"] == "gargoyle":
                self.gargoyled |= set(data["dogs"])
            elif kind == "wrestled":
                mine, theirs = data["rolls"]
                # "Whoever rolls highest takes one snack cube ... Ties have no effect."
                if mine == theirs:
                    assert data["winner"] is None and data["snack"] is None
                else:
                    winner, loser = (data["seat"], data["other"]) if mine > theirs else (data["other"], data["seat"])
                    assert data["winner"] == winner
                    assert (data["snack"] is not None) == bool(was["cards"][loser])
                    if data["snack"] is not None:
                        assert data["snack"] in was["cards"][loser]
            elif kind == "attacked":
                # "On the result of at least 5, remove the Spook Token ... and place it on your Dog Card."
                spook = st.spooks[data["spook"]]
                assert data["captured"] == (data["roll"] >= st.options.attack_target)
                if data["captured"]:
                    assert spook.holder == data["seat"] and spook.pos is None and spook.snacks == []
                    assert Counter(data["snacks"]) == Counter(was["spooks"][spook.id][1])
            elif kind == "concern":
                # "On the result of a 6, move your Dog Token to an adjacent empty space if one is available."
                seat = data["seat"]
                old = was["dogs"][seat]
                rolled_away = data["roll"] >= st.options.concern_escape
                if not rolled_away:
                    assert not data["fled"] and not data.get("choosing") and st.dogs[seat] == old
                elif data["fled"]:
                    new = (data["x"], data["y"])
                    assert new in neighbours(squares_of(game), old) and st.dogs[seat] == new
                    assert not st.board_snacks.get(new) and all(s.pos != new for s in st.spooks)
                    assert st.dogs.count(new) == 1
                elif not data.get("choosing"):
                    # "if one is available": none was.
                    assert st.dogs[seat] == old
                    assert not any(empty(game, sq) for sq in neighbours(squares_of(game), old))
            elif kind == "bork_penalty":
                # "On the result of three or lower, randomly select one of the Snack Cubes ... remove it."
                lose = data["roll"] <= st.options.bork_penalty_max
                assert (data["lost"] is not None) == (lose and bool(self._card_before_penalty(events, was)))
            elif kind == "tile_placed":
                # "adding randomly chosen Spook Tokens and Snack Cubes as indicated by Gravestones
                # and Jack-O-Lanterns"
                placed = st.placed[-1]
                tile = st.tile(placed.tile)
                for dx, dy, ch in tile.features(placed.rotation):
                    sq = (placed.x + dx, placed.y + dy)
                    if ch == "J":
                        assert len(st.board_snacks.get(sq, [])) == 1
                    elif ch == "G":
                        assert [s.kind for s in st.spooks if s.pos == sq] != []
                    else:
                        assert sq not in st.board_snacks and all(s.pos != sq for s in st.spooks)
            elif kind == "snack_collected":
                assert Counter(data["snacks"]) == Counter(was["board_snacks"].get((data["x"], data["y"]), []))
                assert not st.board_snacks.get((data["x"], data["y"]))
            elif kind == "haunted":
                # A Haunt follows a spook's move or a Bork in the same action; nothing before it
                # in that action changes a card, so the cards from before the action are the ones hit.
                with_cubes = [d for d in data["dogs"] if was["cards"][d]]
                if data["kind"] == "skeleton":
                    # "Remove one Snack Cube at random from all dogs ... may carry up to three."
                    room = 3 - len(was["spooks"][data["spook"]][1])
                    taken = {int(d) for d in data["taken"]}
                    assert taken <= set(with_cubes)
                    want = min(room, len(with_cubes))
                    if st.options.skeleton_haunt == "one":
                        want = min(want, 1)
                    assert len(taken) == want, (data, was["cards"])
                elif data["kind"] == "ghoul":
                    # "Remove a Snack Cube at random from the game from all dogs in this space."
                    assert {int(d) for d in data["removed"]} == set(with_cubes)
                elif data["kind"] == "bat":
                    # "from any dog in this space": the mover picks when several have cubes.
                    if len(with_cubes) > 1:
                        assert data.get("choosing") and st.tasks[0]["t"] == "bat_target"
                    else:
                        assert data.get("victim") == (with_cubes[0] if with_cubes else None)
        if action.kind == "move_dog":
            # The dog stops where it was sent and collects any cube there at once.
            end = (action.params["x"], action.params["y"])
            assert st.dogs[action.player] == end and not st.board_snacks.get(end)
            assert Counter(st.card_snacks[action.player]) == Counter(
                was["cards"][action.player] + was["board_snacks"].get(end, []))
        # The end: the game is over exactly when the rulebook's condition holds.
        if st.phase == "over":
            assert should_end(game)
            over = [e for e in events if e.type == "game_over"]
            assert len(over) == 1
            scores = [score(game, seat) for seat in range(n)]
            assert over[0].data["scores"] == scores
            best = max(scores)
            assert over[0].data["winners"] == [s for s in range(n) if scores[s] == best]
            assert over[0].data["friends"] == (len(over[0].data["winners"]) > 1)
            assert game.winners == over[0].data["winners"]
        else:
            assert not should_end(game), "the game went on after its end"
            assert game.legal_actions(), f"nothing legal to do in step {game.step_name()}"

    @staticmethod
    def _card_before_penalty(events: list[Event], was: dict[str, Any]) -> list[str]:
        # The Bork roll follows the Bork's Haunt or Attack in the same action; re-walk the cards to it.
        seat = was["seat"]
        cubes = list(was["cards"][seat])
        for event in events:
            if event.type == "bork_penalty":
                return cubes
            d = event.data
            if event.type == "attacked" and d["captured"] and d["seat"] == seat:
                cubes += d["snacks"]
            elif event.type in ("haunted", "bat_robbed") and d.get("victim") is not None:
                if d["victim"] == seat:
                    cubes.remove(d["taken"])
                    if d.get("returned"):
                        cubes.append(d["returned"])
            elif event.type == "haunted":
                for who, cube in (d.get("taken") or {}).items():
                    if int(who) == seat:
                        cubes.remove(cube)
                for who, cube in (d.get("removed") or {}).items():
                    if int(who) == seat:
                        cubes.remove(cube)
        return cubes


def near_misses(game: DogsGame, legal: list[Action]) -> list[Action]:
    """Actions one step away from listed ones: a square off, another seat, another target."""
    out: list[Action] = []
    n = len(game.st.players)
    for action in legal[:40]:
        params = dict(action.params)
        for key in ("x", "y", "dog", "spook", "id", "die", "rotation"):
            if key in params:
                for delta in (-1, 1):
                    out.append(Action(action.kind, action.player, {**params, key: params[key] + delta}))
        out.append(Action(action.kind, (action.player + 1) % n, params))
    return [a for a in out if a not in legal]


def refuse_all(game: DogsGame, wrong: list[Action], rnd: random.Random) -> None:
    if not wrong:
        return
    before = json.dumps(game.to_json(), sort_keys=True)
    for action in rnd.sample(wrong, min(6, len(wrong))):
        with pytest.raises(IllegalAction) as refused:
            game.apply(action)
        text = str(refused.value)
        assert text and not COORDINATE.search(text), text  # squares in words, never (x, y)
    assert json.dumps(game.to_json(), sort_keys=True) == before


def apply_all(game: DogsGame, legal: list[Action], rnd: random.Random) -> None:
    """Every listed action (a sample of a long list) applies, each to its own copy of the game."""
    saved = game.to_json()
    for action in rnd.sample(legal, min(12, len(legal))):
        DogsGame.from_json(saved).apply(action)


def play(game: DogsGame, rnd: random.Random, limit: int = 20000) -> int:
    shadow = Shadow(game)
    steps = 0
    while not game.is_over:
        assert steps < limit, "a random game did not finish"
        legal = game.legal_actions()
        if steps % 7 == 0:
            refuse_all(game, near_misses(game, legal), rnd)
        if steps % 29 == 0:
            apply_all(game, legal, rnd)
        plain = [a for a in legal if a.kind != "back"] or legal
        action = greedy(game, rnd) if rnd.random() < 0.5 else rnd.choice(plain)
        was = shadow.before(action, legal)
        events = game.apply(action)
        shadow.after(action, events, was)
        steps += 1
    return steps


@pytest.mark.parametrize("option_index", range(len(OPTION_SETS)))
def test_whole_random_games_follow_the_rulebook(option_index: int) -> None:
    options = OPTION_SETS[option_index]
    for seed in range(4):
        players = 2 + (seed + option_index) % 3
        if options.get("first_player", 0) >= players or isinstance(options.get("colours"), list):
            players = 2
        game = DogsGame.new([f"P{i}" for i in range(players)], 1000 * option_index + seed, options)
        play(game, random.Random(seed))
        assert game.is_over and game.winners


# The full-graveyard board is laid out for the default 3x3 tiles, four to a side.
LATE_OPTION_SETS = [{k: v for k, v in o.items() if k != "min_contact"} for o in OPTION_SETS if "tiles" not in o]


@pytest.mark.parametrize("options", LATE_OPTION_SETS)
def test_late_games_on_a_full_graveyard_follow_the_rulebook(options: dict[str, Any]) -> None:
    """A full graveyard from the first turn, where dogs and spooks meet all the time."""
    for seed in range(3):
        players = 4 if seed == 0 else 2 + seed % 2
        game = lab(players, 77 + seed, **options)
        play(game, random.Random(seed))
        assert game.is_over
