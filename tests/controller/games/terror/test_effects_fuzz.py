"""Terror: random games in which every action's effect is predicted from the rulebook.

The property tests check what is offered; these check what an action does, worked out here
from the rulebook (and the readings in docs/rules/terror.md) without the engine's helpers:
which pawns a tomb slide drops and how the others react, what a landing space does, who plays
next, what each card does, and that everything the rules allow now is on offer.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

from controller.games import Action, IllegalAction
from controller.games.terror import Terror

SLIDES = {"end_a": ("middle",), "middle": ("end_a", "end_b"), "end_b": ("middle",)}
TURN_PHASES = ("roll", "tomb", "move", "after_move")
WALKABLE = {"grass", "g", "potion", "hand", "entrance", "exit", "crypt"}
Snapshot = dict[str, Any]


def _walkable(kind: str | None) -> bool:
    return kind is not None and (kind in WALKABLE or kind.startswith(("arrow-", "danger-")))


def _destinations(game: Terror, cfg: int, start: int, steps: int) -> set[int]:
    """Rulebook, "Basic Pawn Movement" and "How to Win": exact count, orthogonal, no doubling back,
    bushes and pits block; the Crypt is entered from the Exit without the full count."""
    board = game.board
    kinds = board.types(cfg)
    out: set[int] = set()

    def walk(cell: int, seen: frozenset[int], left: int) -> None:
        if left == 0:
            out.add(cell)
            return
        r, c = divmod(cell, board.cols)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= rr < board.rows and 0 <= cc < board.cols):
                continue
            nxt = rr * board.cols + cc
            if nxt in seen or not _walkable(kinds[nxt]):
                continue
            if nxt == board.crypt:
                if cell == board.exit:
                    out.add(nxt)
                continue
            walk(nxt, seen | {nxt}, left - 1)

    walk(start, frozenset({start}), steps)
    return out


def _snap(game: Terror) -> Snapshot:
    s = game.s
    return {
        "pawns": [[(p.pos, p.monster, list(p.cards)) for p in row] for row in s.pawns],
        "tombs": dict(s.tombs), "draw": list(s.draw), "discard": list(s.discard), "turn": s.turn,
        "phase": s.phase, "number": s.number, "symbol": s.symbol, "extra": s.extra_turns, "cfg": game.cfg,
        "pending": None if s.pending is None else dict(s.pending), "moved": s.moved_pawn,
        "attempted": s.attempted, "winners": list(s.winners),
    }


def _out(snap: Snapshot, seat: int) -> bool:
    return all(p[0] is None for p in snap["pawns"][seat])


def _drew(b: Snapshot, a: Snapshot) -> bool:
    return a["draw"] != b["draw"]


def _check_landing(game: Terror, b: Snapshot, a: Snapshot, seat: int, pawn: int, dest: int, may_draw: bool) -> None:
    """Rulebook, "Gameboard Spaces", for a pawn put on ``dest`` by the die or a card."""
    kinds = game.board.types(b["cfg"])
    kind = kinds[dest]
    now, was_monster = a["pawns"][seat][pawn], b["pawns"][seat][pawn][1]
    if kind.startswith("arrow-"):
        assert kinds[now[0]] == "danger-" + kind[len("arrow-"):], "an Arrow sends the pawn to its colour's Danger space"
    else:
        assert now[0] == dest
    if kind == "potion":
        assert now[1] is None, "a Magic Potion cures"
    should_draw = kind == "g" and may_draw and was_monster is None
    if should_draw and not b["draw"] and not b["discard"]:
        should_draw = False  # every card is held: nothing to draw
    assert _drew(b, a) == should_draw, f"draw on {kind}: expected {should_draw}"


def _check_effect(game: Terror, action: Action, b: Snapshot, a: Snapshot) -> None:
    board = game.board
    kind = action.kind
    if kind == "roll":
        assert a["phase"] == "tomb" and 1 <= a["number"] <= 6 and a["symbol"] in ("mummy", "monster", "wolf")
        assert a["pawns"] == b["pawns"] and a["tombs"] == b["tombs"]
    elif kind == "move_tomb":
        tomb = action.params["tomb"]
        assert tomb == b["symbol"] and action.params["to"] in SLIDES[b["tombs"][tomb]]
        assert {t: p for t, p in a["tombs"].items() if t != tomb} == {t: p for t, p in b["tombs"].items() if t != tomb}
        before, after = board.types(b["cfg"]), board.types(a["cfg"])
        for seat, row in enumerate(b["pawns"]):
            for k, (where, monster, cards) in enumerate(row):
                now = a["pawns"][seat][k]
                if where is None:
                    assert now[0] is None
                elif after[where] == "pit":
                    # "A Tomb Pit": out of the game, its cards to the discard pile.
                    assert now[0] is None and set(cards + ([monster] if monster else [])) <= set(a["discard"])
                elif before[where] == after[where]:
                    assert now == (where, monster, cards), "a space that did not change does nothing"
                else:
                    new = after[where]
                    if new.startswith("arrow-"):
                        assert after[now[0]] == "danger-" + new[len("arrow-"):]
                    else:
                        assert now[0] == where
                    assert now[1] == (None if new == "potion" else monster)
                    assert now[2] == cards
        assert a["draw"] == b["draw"], "a G appearing under a pawn draws nothing"
        alive = [seat for seat in range(len(b["pawns"])) if not _out(a, seat)]
        if len(alive) <= 1:
            assert a["phase"] == "over" and a["winners"] == alive
        elif _out(a, b["turn"]):
            assert a["turn"] != b["turn"] and a["phase"] == "roll" and not _out(a, a["turn"])
        else:
            assert a["phase"] == "move" and a["turn"] == b["turn"]
    elif kind == "move_pawn":
        k = action.params["pawn"]
        start = b["pawns"][action.player][k][0]
        dest = board.cell(action.params["to"])
        assert board.types(b["cfg"])[start] != "hand", "a paralysed pawn cannot move"
        assert dest in _destinations(game, b["cfg"], start, b["number"])
        for seat, row in enumerate(b["pawns"]):
            for kk, p in enumerate(row):
                if (seat, kk) != (action.player, k):
                    assert a["pawns"][seat][kk][0] == p[0]
        _check_landing(game, b, a, action.player, k, dest, True)
    elif kind == "end_turn":
        n = len(b["pawns"])
        if b["extra"] > 0:
            assert a["turn"] == b["turn"] and a["extra"] == b["extra"] - 1
        else:
            assert a["turn"] == next(t % n for t in range(b["turn"] + 1, b["turn"] + n + 1) if not _out(b, t % n))
        assert a["phase"] == "roll" and a["number"] is None
    elif kind == "place_monster":
        ts, tk = action.params["target"]
        pending = b["pending"]
        reversal = any(game.card(c).effect == "reversal" for c in b["pawns"][ts][tk][2])
        if reversal and ts != pending["seat"]:
            assert a["pawns"][pending["seat"]][pending["pawn"]][1] == pending["card"] and a["pawns"][ts][tk][1] is None
        else:
            assert a["pawns"][ts][tk][1] == pending["card"]
        assert a["phase"] == pending["resume"]
    elif kind == "skull_outcome":
        if action.params["hit"]:
            assert a["phase"] == "over" and a["winners"] == [b["turn"]]
        else:
            assert a["phase"] == "after_move" and a["attempted"]
            assert a["pawns"] == b["pawns"], "the ring is kept after a miss"
    elif kind == "play_card":
        _check_card(game, action, b, a)


def _check_card(game: Terror, action: Action, b: Snapshot, a: Snapshot) -> None:
    board = game.board
    card_id, seat = action.params["card"], action.player
    card = game.card(card_id)
    assert card.kind == "anytime" or (card.kind == "now_or_later" and seat == b["turn"] and b["phase"] in TURN_PHASES)
    assert card_id in a["discard"]
    kinds = board.types(b["cfg"])
    may_draw = b["phase"] in TURN_PHASES
    if card.effect == "move_pawn":
        ts, tk = action.params["target"]
        start = b["pawns"][ts][tk][0]
        assert kinds[start] != "hand"
        dest = board.cell(action.params["to"])
        assert dest in _destinations(game, b["cfg"], start, card.steps)
        _check_landing(game, b, a, ts, tk, dest, may_draw and ts == b["turn"])
    elif card.effect == "switch":
        ts, tk = action.params["target"]
        mine = action.params["pawn"]
        assert ts != seat
        moves = (((seat, mine), b["pawns"][ts][tk][0]), ((ts, tk), b["pawns"][seat][mine][0]))
        want = False
        for (ps, pk), dest in moves:
            space = kinds[dest]
            now = a["pawns"][ps][pk]
            if space.startswith("arrow-"):
                assert kinds[now[0]] == "danger-" + space[len("arrow-"):]
            else:
                assert now[0] == dest
            if space == "potion":
                assert now[1] is None
            if ps == b["turn"]:
                want = space == "g" and b["pawns"][ps][pk][1] is None and may_draw
        if want and not b["draw"] and not b["discard"]:
            want = False
        assert _drew(b, a) == want
    elif card.effect == "steal_ring":
        ts, tk = action.params["target"]
        mine = action.params["pawn"]
        def rings(cards):
            return [c for c in cards if game.card(c).effect == "ring"]
        had = rings(b["pawns"][ts][tk][2])
        assert len(rings(a["pawns"][ts][tk][2])) == max(0, len(had) - 1)
        assert len(rings(a["pawns"][seat][mine][2])) == len(rings(b["pawns"][seat][mine][2])) + (1 if had else 0)
    elif card.effect == "extra_turn":
        assert a["extra"] == b["extra"] + 1


def _check_offers(game: Terror) -> None:
    """Everything the rules allow now is listed (what is listed is checked by applying it)."""
    s = game.s
    board = game.board
    kinds = board.types(game.cfg)
    legal = game.legal_actions()
    listed = {(x.kind, x.player, json.dumps(x.params, sort_keys=True)) for x in legal}

    def has(kind: str, player: int, **params: Any) -> bool:
        return (kind, player, json.dumps(params, sort_keys=True)) in listed

    n = len(s.players)
    pawns = [(ts, tk) for ts in range(n) for tk in (0, 1) if s.pawns[ts][tk].pos is not None]
    for seat in range(n):
        for holder in s.pawns[seat]:
            for card_id in holder.cards:
                card = game.card(card_id)
                in_time = card.kind == "anytime" or (
                    card.kind == "now_or_later" and seat == s.turn and s.phase in TURN_PHASES)
                if not in_time:
                    assert not any(x.kind == "play_card" and x.params["card"] == card_id for x in legal)
                    continue
                mine = [k for k in (0, 1) if s.pawns[seat][k].pos is not None]
                if card.effect == "extra_turn":
                    assert has("play_card", seat, card=card_id)
                elif card.effect == "move_pawn":
                    for ts, tk in pawns:
                        where = s.pawns[ts][tk].pos
                        if kinds[where] != "hand":
                            for dest in _destinations(game, game.cfg, where, card.steps):
                                assert has("play_card", seat, card=card_id, target=[ts, tk], to=board.rc(dest))
                elif card.effect == "steal_ring":
                    for k in mine:
                        for ts, tk in pawns:
                            if ts != seat:
                                assert has("play_card", seat, card=card_id, target=[ts, tk], pawn=k)
                elif card.effect == "switch":
                    for k in mine:
                        here = s.pawns[seat][k].pos
                        for ts, tk in pawns:
                            there = s.pawns[ts][tk].pos
                            if ts != seat and kinds[here] != "hand" and kinds[there] != "hand" and here != there:
                                assert has("play_card", seat, card=card_id, target=[ts, tk], pawn=k)
    if s.phase == "roll":
        assert has("roll", s.turn)
    elif s.phase == "tomb":
        for to in SLIDES[s.tombs[s.symbol]]:
            assert has("move_tomb", s.turn, tomb=s.symbol, to=to)
    elif s.phase in ("move", "after_move"):
        assert has("end_turn", s.turn)
        for k in (0, 1):
            p = s.pawns[s.turn][k]
            may = (p.pos == board.crypt and p.monster is None and not s.attempted
                   and any(game.card(c).effect == "ring" for c in p.cards)
                   and (s.phase == "move" or s.moved_pawn == k))
            assert has("attempt_skull", s.turn, pawn=k) == may
    elif s.phase == "choose":
        pending = s.pending
        assert pending is not None
        for ts in range(n):
            for tk in (0, 1):
                p = s.pawns[ts][tk]
                may = p.pos is not None and p.monster is None and (ts != pending["seat"] or tk == pending["pawn"])
                assert has("place_monster", pending["seat"], target=[ts, tk]) == may
    for x in legal:
        if x.player != s.turn:
            assert x.kind == "play_card" and game.card(x.params["card"]).kind == "anytime"


def _pick(legal: list[Action], rng: random.Random) -> Action:
    """Random play that often plays cards and heads for the Crypt, so every rule gets exercised."""
    cards = [x for x in legal if x.kind == "play_card"]
    skull = [x for x in legal if x.kind == "attempt_skull"]
    moves = [x for x in legal if x.kind == "move_pawn"]
    if cards and rng.random() < 0.3:
        return rng.choice(cards)
    if skull and rng.random() < 0.5:
        return rng.choice(skull)
    if moves and rng.random() < 0.5:
        return min(moves, key=lambda x: x.params["to"][0] - x.params["to"][1] + rng.random())
    return rng.choice(legal)


def test_every_action_has_the_rulebooks_effect_in_150_random_games() -> None:
    finished = 0
    for seed in range(150):
        game = Terror.new([f"P{i}" for i in range(2 + seed % 3)], seed)
        rng = random.Random(seed * 7 + 1)
        for _ in range(3000):
            if game.is_over:
                finished += 1
                break
            _check_offers(game)
            action = _pick(game.legal_actions(), rng)
            before = _snap(game)
            game.apply(action)
            try:
                _check_effect(game, action, before, _snap(game))
            except AssertionError as exc:
                raise AssertionError(f"seed {seed}: {action}: {exc}") from exc
    assert finished >= 140


def test_board_readings_at_any_moment_never_leave_a_fallen_player_with_the_turn() -> None:
    # Rulebook, "Grave News": "Anytime in the game, if you lose both of your pawns in the pits, you
    # are immediately out of the game." The referee may take tombs from the board at any moment.
    for seed in range(40):
        game = Terror.new([f"P{i}" for i in range(2 + seed % 3)], seed)
        rng = random.Random(seed)
        for step in range(600):
            if game.is_over:
                break
            if rng.random() < 0.08:
                tombs = rng.sample(["mummy", "monster", "wolf"], rng.randint(1, 3))
                with contextlib.suppress(IllegalAction):  # the rolled tomb is declared, not read
                    game.adopt_board({f"tomb.{t}": rng.choice(["end_a", "middle", "end_b"]) for t in tombs})
            else:
                game.apply(rng.choice(game.legal_actions()))
            data = json.loads(json.dumps(game.to_json()))
            assert Terror.from_json(data).to_json() == data, (seed, step)
            if not game.is_over:
                assert not game.seat_out(game.s.turn), (seed, step)
                assert game.legal_actions(), (seed, step)
                if game.s.phase == "choose":
                    for x in game.legal_actions():
                        Terror.from_json(data).apply(x)
