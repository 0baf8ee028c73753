"""Superstition, re-derived from the rulebook in seeded random games.

``test_properties`` predicts every walk and the actions at the
tomb. These check the rest of a turn at every step of whole random games under
every option: who throws first and who plays next, where a challenge sends the
pawn (rules 6, 7, 10, 11, 12; Part II 1, 2, 4), when a turn ends or goes on,
the Whammy and Charm draw (once a player), where a Whammy may be placed or
moved, landing on one (Whammy rule 3), and winning by exact count. Near misses
of listed actions are refused in words (no space ids), with the state unchanged.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from controller.games import Action, IllegalAction
from controller.games.base import Event
from controller.games.datafile import BadGameData
from controller.games.superstition import Superstition
from controller.games.superstition import board as board_module
from controller.games.superstition.board import GRAVES
from tests.controller.games.superstition.support import (
    NAMES,
    act,
    begin,
    new_game,
    throw,
)
from tests.controller.games.superstition.test_properties import (
    _spiteful_choice as spiteful_choice,
)
from tests.controller.games.superstition.test_reach import _editor_board

SPACE_ID = re.compile(r"(?<![\w.])(?:[bs]\d+|start\.[a-z]+|tomb\.[a-z]+|grave\d)(?![\w.])")
LEAVING = ("tomb", "out1", "out2")

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"dice": 2},
    {"step_off": "counts", "colours": ["yellow", "green", "blue", "red"]},
    {"challenge": "sensors", "tokens": "table", "dice_source": "table"},
    {"challenge": "sensors", "dice": 2, "step_off": "counts"},
    {"tokens": "table", "dice": 2, "dice_source": "table"},
]


def snapshot(game: Superstition) -> str:
    return json.dumps(game.to_json(), sort_keys=True)


class Shadow:
    """What the rulebook says about the step just taken."""

    def __init__(self, game: Superstition) -> None:
        self.game = game
        self.first: int | None = None

    def before(self, legal: list[Action]) -> dict[str, Any]:
        game = self.game
        p = game.current_player
        assert p is not None
        taken = {q["space"] for q in game.pawns} | set(game.whammies)
        free = [s for s in game.board.path_spaces() if s not in taken]
        placing = {a.params["space"] for a in legal if a.kind == "place_whammy"}
        # Whammy rule 1: "At any time during your turn, you may place your Whammy on a brick or
        # stone path space" (not on a pawn nor on another Whammy).
        may_place = game.hands[p]["whammy"] is not None and game.phase not in ("opening", "outcome", "reset", "draw")
        assert placing == (set(free) if may_place else set()), (game.phase, placing)
        if game.phase == "relocate":
            # Whammy rule 3: "place it on any other path space".
            assert {a.params["to"] for a in legal if a.kind == "relocate_whammy"} == set(free)
            assert Action("leave_whammy", p) in legal
        if game.phase == "draw":
            pairs = {(a.params["whammy"], a.params["charm"]) for a in legal if a.kind == "draw_tokens"}
            assert pairs == {(w, c) for w in game.pools["whammies"] for c in game.pools["charms"]}
        return {
            "phase": game.phase,
            "turn": game.turn,
            "player": p,
            "pawns": json.loads(json.dumps(game.pawns)),
            "hands": json.loads(json.dumps(game.hands)),
            "whammies": dict(game.whammies),
            "opening": json.loads(json.dumps(game.opening["rolls"])),
            "round": list(game.opening["round"]),
        }

    def after(self, action: Action, events: list[Event], was: dict[str, Any]) -> None:
        game = self.game
        board = game.board
        n = len(game.players)
        p = was["player"]
        types = [e.type for e in events]
        rolls: dict[int, int] = {}
        for event in events:
            data = event.data
            if event.type == "opening_roll":
                rolls = {int(k): v for k, v in was["opening"].items()} | {p: data["total"]}
            elif event.type == "first_player":
                # Rule 1: "The highest throw of the dice goes first."
                assert all(rolls[s] < data["total"] for s in was["round"] if s != data["player"])
                assert rolls[data["player"]] == data["total"]
                self.first = data["player"]
            elif event.type == "opening_tie":
                # Only the seats tied for the highest throw throw again.
                best = max(rolls.values())
                assert data["total"] == best
                assert sorted(data["players"]) == sorted(s for s, v in rolls.items() if v == best)
                assert game.opening["round"] == data["players"] and len(data["players"]) > 1
            elif event.type == "turn_started":
                # Rule 1: "Players take turns, clockwise" (rising seat order).
                if was["turn"] is None:
                    assert data["player"] == self.first
                else:
                    assert data["player"] == (was["turn"] + 1) % n
            elif event.type == "challenge_resolved":
                self._challenge(data, was)
            elif event.type == "won":
                pawn = game.pawns[data["player"]]
                home = board.circles[game.colours[data["player"]]]
                moved = next(e for e in events if e.type == "moved")
                # Winner: "land by exact count on his matching color circle", coming out of the gate.
                assert pawn["space"] == home and [moved.data["from"], *moved.data["path"]][-2:] == [board.gate, home]
                assert was["pawns"][data["player"]]["leg"] == "out2"
                assert game.is_over and game.winners == [data["player"]]
            elif event.type == "landed_on_whammy":
                # Whammy rule 3: "If in leaving you land by exact count on a Whammy".
                assert was["pawns"][p]["leg"] in LEAVING and data["space"] in was["whammies"]
                assert game.phase == "relocate" and game.turn == p
            elif event.type == "drew_tokens":
                # Rule 11 and Part II rule 2: one Whammy and one Charm, and never again.
                assert not was["hands"][p]["drawn"]
                assert game.hands[p]["whammy"] is not None and game.hands[p]["charm"] is not None
        if "moved" in types:
            moved = next(e for e in events if e.type == "moved").data
            leaving = was["pawns"][p]["leg"] in LEAVING
            ends_on_whammy = moved["to"] in was["whammies"] and board.kind(moved["to"]) in ("brick", "stone")
            assert ("landed_on_whammy" in types) == (leaving and ends_on_whammy)
        # A player's tokens change only by drawing or placing the Whammy.
        for seat in range(n):
            if seat != p:
                assert game.hands[seat] == was["hands"][seat]
        if was["phase"] != "opening" and game.phase != "over" and "turn_started" not in types:
            assert game.turn == p, "the turn changed hands without a new turn starting"

    def _challenge(self, data: Any, was: dict[str, Any]) -> None:
        game = self.game
        board = game.board
        p = data["player"]
        trap = data["trap"]
        platform = board.platforms[trap]
        pawn = game.pawns[p]
        leg = was["pawns"][p]["leg"]
        others = {q["space"] for k, q in enumerate(game.pawns) if k != p}
        zapped = data["zapped"]
        if leg == "in1":
            if zapped:  # rule 7: back on the matching colour circle; the turn ends
                assert pawn == {"space": board.circles[game.colours[p]], "leg": "in1", "zapped": [], "target": None}
                assert self._turn_ends(p)
            else:  # rule 6: sneaked by, the turn goes on with a throw onto the stone path
                assert pawn["space"] == platform.space and pawn["leg"] == "in2"
                assert game.phase in ("roll", "reset") and game.turn == p
        elif leg == "in2":
            assert trap in GRAVES
            if zapped:  # rule 10: in front of the Grave; rule 12: either once both zapped
                assert pawn["space"] == platform.stone and pawn["leg"] == "in2" and pawn["zapped"][-1] == trap
                assert self._turn_ends(p)
            else:  # rule 11: beside the tomb (or waiting on the Grave), tokens drawn, turn ends
                assert pawn["leg"] == "tomb" and pawn["target"] == GRAVES[1 - GRAVES.index(trap)]
                want = platform.tomb_side if platform.tomb_side not in others else platform.space
                assert pawn["space"] == want
                if game.options["tokens"] == "engine":
                    assert game.hands[p]["drawn"] and self._turn_ends(p)
                else:  # the player enters the tokens drawn from the real tomb, then the turn ends
                    assert game.phase in ("draw", "reset") and game.turn == p
        elif leg == "tomb":
            assert trap in GRAVES
            if zapped:  # Part II rule 2: lose the turn, jump back next time
                assert pawn["leg"] == "tomb" and pawn["space"] == platform.tomb_side
                assert pawn["target"] == GRAVES[1 - GRAVES.index(trap)]
            else:  # Part II rule 1: in front of the Grave, wait for the next turn
                want = platform.stone if platform.stone not in others else platform.tomb_side
                assert pawn["space"] == want and pawn["leg"] == "out1"
            assert self._turn_ends(p)
            assert game.hands[p]["drawn"] == was["hands"][p]["drawn"]  # "Do not take additional Whammys"
        elif leg == "out1":
            assert trap not in GRAVES
            if zapped:  # Part II rule 4: back on the stone path, then to the other one
                assert pawn["space"] == platform.stone and pawn["zapped"][-1] == trap and pawn["leg"] == "out1"
                assert self._turn_ends(p)
            else:
                assert pawn["space"] == platform.space and pawn["leg"] == "out2"
                assert game.phase in ("roll", "reset") and game.turn == p
        else:
            raise AssertionError(f"a pawn on leg {leg} was challenged")
        assert len({q["space"] for q in game.pawns}) == len(game.pawns)


    def _turn_ends(self, p: int) -> bool:
        """The challenge ended the turn: the next seat plays (or, sensors, once the trap is reset)."""
        game = self.game
        if game.phase == "reset":
            return game.after_reset == "end"
        return game.turn == (p + 1) % len(game.players)


def near_misses(game: Superstition, legal: list[Action]) -> list[Action]:
    """Listed actions with one thing changed: another seat, direction, peg, trap or space."""
    n = len(game.players)
    swaps = {
        "direction": ["cw", "ccw", "in"],
        "peg": ["a", "b"],
        "trap": ["ladder", "mirror", "grave1", "grave2"],
        "space": ["b0", "s4", "b8", "tomb.north", "ladder"],
        "to": ["b0", "s12", "start.red", "b24"],
        "zapped": [True, False],
    }
    out: list[Action] = []
    for action in legal[:30]:
        out.append(Action(action.kind, (action.player + 1) % n, dict(action.params)))
        for key, values in swaps.items():
            if key in action.params:
                out += [Action(action.kind, action.player, {**action.params, key: v}) for v in values]
        if action.kind == "move":
            out.append(Action("charm_move", action.player, dict(action.params)))
    for kind in ("end_turn", "jump", "trade_places", "leave_whammy", "roll"):
        out.append(Action(kind, game.current_player, {}))
    return [a for a in out if a not in legal]


def refuse_all(game: Superstition, wrong: list[Action], rnd: random.Random) -> None:
    if not wrong:
        return
    before = snapshot(game)
    for action in rnd.sample(wrong, min(6, len(wrong))):
        with pytest.raises(IllegalAction) as refused:
            game.apply(action)
        text = str(refused.value)
        # A person reads it: spaces by their landmarks, never by the board file's ids.
        assert text and not SPACE_ID.search(text), text
    assert snapshot(game) == before


def apply_all(game: Superstition, legal: list[Action], rnd: random.Random) -> None:
    """Every listed action (a sample of a long list) applies, each to its own copy of the game."""
    saved = game.to_json()
    for action in rnd.sample(legal, min(12, len(legal))):
        Superstition.from_json(saved).apply(action)


def play(game: Superstition, rnd: random.Random, limit: int = 6000, spiteful: bool = False) -> None:
    shadow = Shadow(game)
    steps = 0
    while not game.is_over:
        assert steps < limit, "a random game did not finish"
        legal = game.legal_actions()
        assert legal and all(a.player == game.current_player for a in legal)
        if steps % 5 == 0:
            refuse_all(game, near_misses(game, legal), rnd)
        if steps % 11 == 0:
            apply_all(game, legal, rnd)
        if spiteful:  # Whammies where they block most, to reach every Whammy rule often
            action = spiteful_choice(game, legal, rnd)
        else:
            plain = [a for a in legal if a.kind != "place_whammy"]
            action = rnd.choice(legal if (not plain or rnd.random() < 0.08) else plain)
        was = shadow.before(legal)
        events = game.apply(action)
        shadow.after(action, events, was)
        steps += 1
    assert game.legal_actions() == [] and len(game.winners) == 1


@pytest.mark.parametrize("option_index", range(len(OPTION_SETS)))
def test_whole_random_games_follow_the_rulebook(option_index: int) -> None:
    options = OPTION_SETS[option_index]
    for seed in range(6):
        players = 4 if "colours" in options else 2 + (seed + option_index) % 3
        game = Superstition.new(NAMES[:players], 500 * option_index + seed, options)
        play(game, random.Random(seed), spiteful=seed % 2 == 1)


def _short_brick_path(spaces: int = 5) -> dict[str, Any]:
    """An owner's board with a short brick path and the gate on its first space."""
    return _editor_board(spaces, 16, 1, [2, 1, 4, 9, 5, 13])


@pytest.mark.parametrize("dice", [1, 2])
def test_on_a_short_path_two_dice_can_shut_every_pawn_in(dice: int) -> None:
    """Rule 3 ("You can't pass another player ... blocked in both directions, your turn ends"),
    on a five-space brick path: three pawns on their way out, one space apart, can still step
    into the space beside them with one die, and never with two (no throw is 1): the game would
    never end. So no new game may use such a board (the next test); a game already on one (a saved
    state, a journal from before that check) still loads, as this one does."""
    game = new_game(3, board=_short_brick_path(), dice=dice)
    begin(game)
    for seat, space in enumerate(["b0", "b2", "b4"]):
        game.pawns[seat] = {"space": space, "leg": "out2", "zapped": [], "target": None}
    open_throws: set[int] = set()
    for value in range(dice, 6 * dice + 1):  # every throw, for each seat in turn
        for _ in range(3):
            throw(game, value)
            if any(a.kind == "move" for a in game.legal_actions()):
                open_throws.add(value)
                break
            act(game, "end_turn")
        if open_throws:
            break
    # One die: Ann, on the gate, goes home with a 1. Two dice: nobody can ever move.
    assert open_throws == ({1} if dice == 1 else set())


@pytest.mark.parametrize("spaces", [4, 5, 8])
def test_a_board_whose_path_is_short_enough_to_shut_pawns_in_is_refused_in_words(spaces: int) -> None:
    for check in (lambda doc: Superstition.check_new_options({"board": doc}), board_module.parse_board):
        with pytest.raises(BadGameData) as refused:
            check(_short_brick_path(spaces))
        assert "needs at least 9 spaces" in refused.value.plain and "shut each other in" in refused.value.plain
    Superstition.check_new_options({"board": _short_brick_path(9)})  # nine is enough
