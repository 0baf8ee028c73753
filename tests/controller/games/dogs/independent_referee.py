"""An independent referee for Graveyard Dogs tests (no tests here).

It watches a game only through the public engine API (``legal_actions``, ``apply``'s
events and ``public_view``) and checks, after every accepted action, what the rulebook
(../shared/rules/graveyard-dogs.txt) says, written from the rulebook's words rather than
from the engine's code: tile counts and placing, turn order, one Dog and one Spook Action a
turn (two Spook Actions after a Gargoyle), exact moves, what a Dog Action's end square
offers, Attack, Bork and Concern rolls, Haunts, scores, the end and the winners.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from controller.games import Action
from controller.games.dogs import DogsGame

Sq = tuple[int, int]
ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
TILES = 16


def squares_of(view: dict[str, Any]) -> dict[Sq, str]:
    return {(sq["x"], sq["y"]): sq["feature"] for tile in view["tiles"] for sq in tile["squares"]}


def reach(board: set[Sq], start: Sq, steps: int, diagonal: bool = False) -> set[Sq]:
    """Ends of every walk of exactly ``steps`` steps ("You may move over the same space more than once")."""
    moves = ORTHO + (DIAG if diagonal else ())
    here = {start}
    for _ in range(steps):
        here = {(x + dx, y + dy) for x, y in here for dx, dy in moves if (x + dx, y + dy) in board}
    return here


def within(board: set[Sq], start: Sq, steps: int) -> set[Sq]:
    return set().union(*(reach(board, start, n) for n in range(steps + 1)))


def score(card: dict[str, Any]) -> int:
    """"Three points for any Spook Tokens on their Dog Card, two points for any Snack Cubes of their
    color on their Dog Card, and one point for any other Snack Cube on their Dog Card.\""""
    return 3 * len(card["spooks"]) + sum(2 if c == card["colour"] else 1 for c in card["snacks"])


class Referee:
    """Follows one game from its first action; :meth:`check` after each ``apply``."""

    def __init__(self, game: DogsGame, first_player: int = 0) -> None:
        self.game = game
        self.n = len(game.players)
        self.first = first_player
        self.view = game.public_view()
        self.turn_seats: list[int] = []
        self.setup_seats: list[int] = []
        self.used: list[str] = []  # the actions the current turn has used
        self.two_spooks = False
        self.gargoyled: set[int] = set()  # seats whose dog a Gargoyle haunted since their last roll

    # ----- before an action ------------------------------------------------------
    def check_legal(self, legal: list[Action]) -> None:
        """What the rulebook lets the mover do now is exactly what is listed."""
        v = self.view
        board = set(squares_of(v))
        step = v["step"]
        pending = v["pending"] or {}
        dogs = {d["seat"]: (d["x"], d["y"]) for d in v["dogs"]}
        spooks = {s["id"]: s for s in v["spooks"]}
        snacks = Counter((s["x"], s["y"]) for s in v["snacks"])
        if step in ("special", "special_more"):
            me = v["current_player"]
            sq = dogs[me]
            others = [s for s, p in dogs.items() if p == sq and s != me]
            here = [i for i, s in spooks.items() if (s["x"], s["y"]) == sq]
            cards = {c["seat"]: c for c in v["cards"]}
            wrestle = {a.params["dog"] for a in legal if a.kind == "wrestle"}
            attack = {a.params["spook"] for a in legal if a.kind == "attack"}
            bork = {(a.params["token"], a.params["id"], a.params["x"], a.params["y"]) for a in legal
                    if a.kind == "bork"}
            # "Select one dog in the same space as you ... If no other dogs in the space have any snack
            # cubes, then you may not do a Wrestle." / "you may perform an Attack" on a spook there.
            may = pending.get("may")
            can_wrestle = set(others) if any(cards[o]["snacks"] for o in others) else set()
            assert wrestle == (can_wrestle if may in (None, "wrestle") else set()), (step, wrestle, others)
            assert attack == (set(here) if may in (None, "attack") else set()), (step, attack, here)
            assert wrestle or attack or bork, "a special step with nothing to do but stop"
            # "If you end your action in an empty space you may perform a Bork" -- "Move any Spook or Dog
            # token within three spaces to an adjacent space" (another player's dog: the default reading).
            expected: set[tuple[str, int, int, int]] = set()
            if may is None and not others and not here and not snacks[sq]:
                near = within(board, sq, 3)
                tokens = [("dog", seat, pos) for seat, pos in dogs.items() if seat != me]
                tokens += [("spook", i, (s["x"], s["y"])) for i, s in spooks.items()]
                expected = {(token, ident, pos[0] + dx, pos[1] + dy) for token, ident, pos in tokens if pos in near
                            for dx, dy in ORTHO if (pos[0] + dx, pos[1] + dy) in board}
            assert bork == expected, "the Borks listed are not the rulebook's"
            assert any(a.kind == "done" for a in legal)
        if step == "move_dog":
            me = v["current_player"]
            die = v["dice"][pending["die"]]
            listed = {(a.params["x"], a.params["y"]) for a in legal if a.kind == "move_dog"}
            assert listed == reach(board, dogs[me], die)
        if step == "move_spook":
            s = spooks[pending["spook"]]
            die = v["dice"][pending["die"]]
            listed = {(a.params["x"], a.params["y"]) for a in legal if a.kind == "move_spook"}
            assert listed == reach(board, (s["x"], s["y"]), die, s["kind"] == "bat")
        if step == "pick_spook":
            assert {a.params["spook"] for a in legal if a.kind == "pick_spook"} == set(spooks)
        if step == "escape":
            sq = dogs[pending["seat"]]
            empty = {(sq[0] + dx, sq[1] + dy) for dx, dy in ORTHO} & board
            empty = {e for e in empty if e not in dogs.values() and not snacks[e]
                     and all((s["x"], s["y"]) != e for s in spooks.values())}
            assert {(a.params["x"], a.params["y"]) for a in legal} == empty and len(empty) > 1

    # ----- after an action ------------------------------------------------------------
    def check(self, action: Action, events: list[Any]) -> None:
        before, self.view = self.view, self.game.public_view()
        v = self.view
        types = [e.type for e in events]
        board_before = set(squares_of(before))
        # tiles: "16x Tile Cards", each placed once
        assert v["deck_count"] + v["tiles_placed"] + (v["drawn_tile"] is not None) == TILES
        if action.kind == "place_tile":
            self._check_placing(before, action)
        for e in events:
            self._check_event(before, board_before, action, e.type, dict(e.data))
        # the running scores are the rulebook's tally
        for card in v["cards"]:
            assert card["score"] == score(card), card
        # skeletons carry at most three cubes, bats one, others none
        for s in v["spooks"]:
            assert len(s["snacks"]) <= {"skeleton": 3, "bat": 1}.get(s["kind"], 0), s
        self._check_end(v, types)
        if v["over"] and not before["over"]:
            assert "game_over" in types, "the game ended without saying so"

    def _check_placing(self, before: dict[str, Any], action: Action) -> None:
        """"at least two squares on their Tile Cards line up with the already placed Tile Cards\""""
        old = set(squares_of(before))
        size = self.view["tile_size"]
        x, y = action.params["x"], action.params["y"]
        new = {(x + dx, y + dy) for dx in range(size) for dy in range(size)}
        assert set(squares_of(self.view)) == old | new and not (old & new)
        if old:
            lined = {sq for sq in new if any((sq[0] + dx, sq[1] + dy) in old for dx, dy in ORTHO)}
            assert len(lined) >= 2, "a tile lines up along fewer than two squares"
        else:
            assert (x, y) == (0, 0)
        # "place it on the Jack-O-Lantern space ... If there is a Gravestone space, they place a ... Spook"
        feats = {sq: f for sq, f in squares_of(self.view).items() if sq in new}
        jack = [sq for sq, f in feats.items() if f == "jack_o_lantern"]
        assert all(sum(1 for s in self.view["snacks"] if (s["x"], s["y"]) == j) == 1 for j in jack)
        for sq, f in feats.items():
            if f == "gravestone":
                assert sum(1 for s in self.view["spooks"] if (s["x"], s["y"]) == sq) == 1

    def _check_event(self, before: dict[str, Any], board: set[Sq], action: Action, kind: str,
                     d: dict[str, Any]) -> None:
        v = self.view
        if kind == "dog_placed":
            # the spookiest first, then clockwise; on the tile just placed, away from J and G
            self.setup_seats.append(d["seat"])
            assert self.setup_seats == [(self.first + i) % self.n for i in range(len(self.setup_seats))]
            tile = v["tiles"][-1]
            feats = {(s["x"], s["y"]): s["feature"] for s in tile["squares"]}
            sq = (d["x"], d["y"])
            assert feats.get(sq) == "plain", "a dog starts off its tile, or on a Gravestone or Jack-O-Lantern"
            jacks = [s for s, f in feats.items() if f == "jack_o_lantern"]
            assert all(abs(sq[0] - j[0]) + abs(sq[1] - j[1]) > 1 for j in jacks)
        elif kind == "turn_started":
            self._end_turn()
            self.turn_seats.append(d["seat"])
            assert len(self.setup_seats) == self.n, "play began before every dog was placed"
            assert self.turn_seats == [(self.first + i) % self.n for i in range(len(self.turn_seats))]
            # "If the Tile Card deck is not exhausted, the player draws a Tile Card"
            assert (v["drawn_tile"] is not None) == (before["deck_count"] > 0) or v["over"]
        elif kind == "dice_rolled":
            assert all(1 <= die <= 6 for die in d["dice"])
            # "All Dogs in this space may not perform a Dog Action their next turn"
            assert d["two_spook_actions"] == (d["seat"] in self.gargoyled)
            self.gargoyled.discard(d["seat"])
            self.two_spooks = d["two_spook_actions"]
        elif kind == "die_chosen":
            self.used.append(d["action"])
        elif kind == "step_back":
            if d["step"] in ("move_dog", "pick_spook"):
                self.used.pop()
        elif kind == "dog_moved":
            # exact count, orthogonal, through anything
            assert (d["x"], d["y"]) in reach(board, tuple(d["from"]), d["steps"])
            sq = (d["x"], d["y"])
            had = [s["colour"] for s in before["snacks"] if (s["x"], s["y"]) == sq]
            # "If you end your action on a space with a Snack Cube, collect it and place it on your Dog Card."
            card = next(c for c in v["cards"] if c["seat"] == d["seat"])
            assert not any((s["x"], s["y"]) == sq for s in v["snacks"]) or not had, "a cube was left under the dog"
            if had:
                old = next(c for c in before["cards"] if c["seat"] == d["seat"])
                assert Counter(card["snacks"]) - Counter(old["snacks"]) >= Counter(had) or v["over"]
        elif kind == "attacked":
            # "On the result of at least 5, remove the Spook Token from the Graveyard"
            assert d["captured"] == (d["roll"] >= 5)
            if d["captured"]:
                assert all(s["id"] != d["spook"] for s in v["spooks"])
        elif kind == "wrestled":
            a, b = d["rolls"]
            assert (d["winner"] is None) == (a == b)
            if d["winner"] is not None:
                assert d["winner"] == (d["seat"] if a > b else d["other"])
        elif kind == "bork_penalty":
            card = next(c for c in v["cards"] if c["seat"] == d["seat"])
            # "On the result of three or lower, randomly select one of the Snack Cubes ... remove it"
            if d["roll"] > 3:
                assert d["lost"] is None
            elif d["lost"] is None:
                assert not card["snacks"], "a Bork roll of three or lower cost no cube"
        elif kind == "concern":
            # "On the result of a 6, move your Dog Token to an adjacent empty space if one is available."
            if d["roll"] < 6:
                assert not d["fled"] and not d.get("choosing")
        elif kind == "haunted":
            if d["kind"] == "gargoyle":
                self.gargoyled.update(d["dogs"])
        elif kind == "game_over":
            cards = v["cards"]
            scores = [score(c) for c in cards]
            assert d["scores"] == scores == v["scores"]
            best = max(scores)
            assert d["winners"] == [i for i, s in enumerate(scores) if s == best] == v["winners"]
            assert d["friends"] == (len(d["winners"]) > 1)

    def _end_turn(self) -> None:
        """A turn that passed on used both dice: one Dog and one Spook Action, or two Spook Actions."""
        if not self.turn_seats:
            return
        want = ["spook", "spook"] if self.two_spooks else ["dog", "spook"]
        assert sorted(self.used) == want, (self.used, want)
        self.used = []
        self.two_spooks = False

    def _check_end(self, v: dict[str, Any], types: list[str]) -> None:
        """"The game may not end until all 16 Tile Cards have been placed into the Graveyard. The game
        ends immediately once all the Snack Cubes have been removed from the Graveyard OR there are no
        more Spooks in the Graveyard.\""""
        all_out = v["tiles_placed"] == TILES
        should = all_out and (not v["spooks"] or not v["snacks"]) and v["phase"] not in ("setup_tile", "setup_dog")
        if v["options"]["carried_snacks_in_graveyard"]:
            should = all_out and (not v["spooks"] or not (v["snacks"] or any(s["snacks"] for s in v["spooks"])))
        assert v["over"] == should, ("over" if v["over"] else "not over", v["tiles_placed"], len(v["spooks"]),
                                     len(v["snacks"]))
        if "game_over" in types:
            assert v["over"] and types.count("game_over") == 1
        if v["over"]:
            assert v["current_player"] is None and self.game.legal_actions() == []
