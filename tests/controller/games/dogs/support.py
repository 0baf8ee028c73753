"""Helpers for the Graveyard Dogs tests (no tests here): set-piece boards and rigged dice.

Rule tests arrange tokens directly on a full graveyard, then drive the engine
only through ``apply``. Dice are rigged by choosing an RNG state whose next
draws are the ones a test needs, so the engine still rolls with its own RNG.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from controller.games import Action
from controller.games.dogs import DogsGame
from controller.games.dogs.state import Placement, Spook
from controller.games.rng import Rng

Draw = int | tuple[int, int]
KEEP_SPOOK = (0, 11)


def rig(game: DogsGame, *draws: Draw) -> None:
    """Make the next RNG draws come out as given: an int is a die face, and
    ``(n, k)`` means ``below(n)`` returns ``k`` (a random pick among n)."""
    wanted = [(6, d - 1) if isinstance(d, int) else d for d in draws]
    for seed in range(2_000_000):
        rng = Rng(seed)
        if all(rng.below(n) == k for n, k in wanted):
            game.st.rng = Rng(seed)
            return
    raise AssertionError(f"no RNG state gives {draws}")


def setup_done(players: int = 2, seed: int = 1, **options: Any) -> DogsGame:
    """A game past setup, each seat having taken its first legal choice."""
    game = DogsGame.new([f"P{i}" for i in range(players)], seed, options)
    while game.st.phase in ("setup_tile", "setup_dog"):
        game.apply(game.legal_actions()[0])
    return game


def lab(players: int = 2, seed: int = 1, **options: Any) -> DogsGame:
    """A full graveyard (the 16 tiles as a 4x4 square of unrotated tiles, in id
    order), every snack on its Jack-O-Lantern and every spook on a Gravestone,
    dogs in the top-left corner. Seat 0 is about to roll."""
    game = DogsGame.new([f"P{i}" for i in range(players)], seed, options)
    st = game.st
    size = st.tiles[0].size
    st.deck = []
    st.drawn = None
    st.placed = [Placement(t.id, size * (i % 4), size * (i // 4), 0) for i, t in enumerate(st.tiles)]
    st.board_snacks = {}
    st.spooks = []
    for sq, ch in sorted(game.geo.features.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if ch == "J":
            st.board_snacks[sq] = [st.tin.pop(0)]
        elif ch == "G":
            st.spooks.append(Spook(len(st.spooks), st.pool.pop(0), sq))
    st.dogs = [(0, 0)] * players
    st.phase = "roll"
    st.setup_left = 0
    st.seat = 0
    st.turn = 1
    return game


def clear_tokens(game: DogsGame) -> None:
    """Take every spook and loose snack off the board (snacks counted as removed,
    spooks parked on seat 0's card) and keep one snack in the bottom-right corner
    (11, 11) and one spook in the bottom-left corner (0, 11), so that the game
    does not end by itself."""
    st = game.st
    for cubes in list(st.board_snacks.values()):
        st.removed.extend(cubes)
    st.board_snacks = {}
    for s in st.spooks:
        st.card_snacks[0].extend(s.snacks)
        s.snacks = []
        s.pos, s.holder = None, 0
    st.board_snacks[(11, 11)] = [st.removed.pop()]
    st.spooks[-1].pos, st.spooks[-1].holder = KEEP_SPOOK, None


def put_spook(game: DogsGame, kind: str, sq: tuple[int, int], snacks: Iterable[str] = ()) -> Spook:
    """Move a spook of ``kind`` (taken from wherever it is) onto ``sq``."""
    st = game.st
    spook = next(s for s in st.spooks if s.kind == kind and s.pos != KEEP_SPOOK)
    if spook.holder is None and spook.pos is None:
        raise AssertionError("spook in limbo")
    spook.pos, spook.holder = sq, None
    for colour in snacks:
        _take_snack(game, colour)
        spook.snacks.append(colour)
    return spook


def give(game: DogsGame, seat: int, *colours: str) -> None:
    """Put snacks of these colours on a dog card (taken from the removed pile or the board)."""
    for colour in colours:
        _take_snack(game, colour)
        game.st.card_snacks[seat].append(colour)


def _take_snack(game: DogsGame, colour: str) -> None:
    st = game.st
    if colour in st.removed:
        st.removed.remove(colour)
        return
    for sq, cubes in st.board_snacks.items():
        if colour in cubes and sq != (11, 11):
            cubes.remove(colour)
            if not cubes:
                del st.board_snacks[sq]
            return
    for card in st.card_snacks:
        if colour in card:
            card.remove(colour)
            return
    raise AssertionError(f"no {colour} snack left to take")


def roll_as(game: DogsGame, a: int, b: int) -> None:
    """Seat to move rolls exactly (a, b)."""
    rig(game, a, b)
    game.apply(Action("roll", game.st.seat))
    assert game.st.dice == [a, b]


def act(game: DogsGame, kind: str, player: int | None = None, **params: Any) -> list[Any]:
    seat = game.st.seat if player is None else player
    return game.apply(Action(kind, seat, params))


def board(players: int = 2, **options: Any) -> DogsGame:
    """The full graveyard of :func:`lab` with no token on it, seat 0 about to roll."""
    game = lab(players, **options)
    clear_tokens(game)
    return game


def dog_turn(game: DogsGame, die: int, other: int = 1) -> None:
    """Seat to move rolls (die, other) and commits die 0 to the Dog Action."""
    roll_as(game, die, other)
    act(game, "choose", die=0, action="dog")


def spook_turn(game: DogsGame, spook: Spook, die: int, other: int = 1) -> None:
    """Seat to move rolls (die, other), commits die 0 to the Spook Action and picks ``spook``."""
    roll_as(game, die, other)
    act(game, "choose", die=0, action="spook")
    act(game, "pick_spook", spook=spook.id)


def bork_board(**options: Any) -> tuple[DogsGame, int, int]:
    """Seat 0's dog stops on the empty (1, 3); seat 1's dog is 2 away, a ghoul 3 away, a bat 4 away."""
    game = board(**options)
    game.st.dogs = [(1, 1), (1, 5)]
    ghoul = put_spook(game, "ghoul", (4, 3))
    bat = put_spook(game, "bat", (5, 3))
    dog_turn(game, 2)
    act(game, "move_dog", x=1, y=3)
    return game, ghoul.id, bat.id


def kinds(game: DogsGame) -> set[str]:
    return {a.kind for a in game.legal_actions()}


def ends(game: DogsGame, kind: str) -> set[tuple[int, int]]:
    return {(a.params["x"], a.params["y"]) for a in game.legal_actions() if a.kind == kind}


def distances_to(game: DogsGame, targets: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Walking distance through the graveyard from every square to the nearest target."""
    far = {sq: 0 for sq in targets}
    frontier = list(targets)
    while frontier:
        nxt = []
        for sq in frontier:
            for n in game.geo.neighbours(sq):
                if n not in far:
                    far[n] = far[sq] + 1
                    nxt.append(n)
        frontier = nxt
    return far


def greedy(game: DogsGame, rng: random.Random) -> Action:
    """Collect or attack when possible, head for snacks, otherwise move at random."""
    legal = [a for a in game.legal_actions() if a.kind != "back"]
    for kind in ("collect", "attack"):
        for a in legal:
            if a.kind == kind:
                return a
    moves = [a for a in legal if a.kind == "move_dog"]
    if moves:
        snacks = game.st.board_snacks
        best = [a for a in moves if (a.params["x"], a.params["y"]) in snacks]
        if best:
            return best[0]
        far = distances_to(game, list(snacks))
        return min(moves, key=lambda a: far.get((a.params["x"], a.params["y"]), 1_000))
    choose = [a for a in legal if a.kind == "choose"]
    if choose:
        dice = game.st.dice or [0, 0]
        return max(choose, key=lambda a: (a.params["action"] == "dog") * dice[a.params["die"]])
    return rng.choice(legal)
