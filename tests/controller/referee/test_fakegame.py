"""A tiny game with a sensed board, and helpers for testing the referee apart from the real engines.

It has the shapes the referee must handle: a rolled tomb that must move one
position (``accepts``), a skull attempt with an outcome window, a trap
challenge (peg pulled, then sprung or timed out) and a trap reset
(``requires``). Each seat holds a secret number, so private views can be
checked. The tests at the bottom check the fake itself.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Self

import pytest

from controller.config import Config, load_config
from controller.games import register
from controller.games.base import Action, Event, Expectation, Game, IllegalAction
from controller.games.rng import Rng
from controller.referee.live import Referee
from controller.store.journal import Journal
from hardware.observation import Observation

TOMBS = ("mummy", "monster", "wolf")
STEP = {"end_a": ("middle",), "middle": ("end_a", "end_b"), "end_b": ("middle",)}


@register
class FakeBoardGame(Game):
    name: ClassVar[str] = "fakeboard"
    title: ClassVar[str] = "Fake board"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    SECRET_ACTION_KINDS: ClassVar[frozenset[str]] = frozenset({"peek"})

    def __init__(self, s: dict[str, Any]) -> None:
        self.s = s

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None) -> Self:
        if not 1 <= len(players) <= 4:
            raise IllegalAction("fakeboard needs 1-4 players")
        rng = Rng(seed)
        return cls(
            {
                "players": list(players),
                "turn": 0,
                "phase": "roll",
                "rolled": None,
                "tombs": {t: "middle" for t in TOMBS},
                "pulled": None,
                "sprung": False,
                "over": False,
                "winners": [],
                "secrets": [rng.randint(1, 99) for _ in players],
                "window_ms": int((options or {}).get("window_ms", 1000)),
                "rng": rng.to_json(),
            }
        )

    def to_json(self) -> dict[str, Any]:
        return copy.deepcopy(self.s)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        return cls(copy.deepcopy(dict(data)))

    # ----- play ---------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        s, p = self.s, self.s["turn"]
        if s["over"]:
            return []
        out = [Action("peek", p)]
        if s["phase"] == "roll":
            out += [Action("roll", p), Action("attempt", p), Action("challenge", p), Action("pass", p)]
        elif s["phase"] == "move":
            tomb = s["rolled"]
            out += [Action("move_tomb", p, {"tomb": tomb, "to": o}) for o in STEP[s["tombs"][tomb]]]
        elif s["phase"] == "attempt":
            out += [Action("skull", p, {"hit": True}), Action("skull", p, {"hit": False})]
        elif s["phase"] == "challenge":
            out += [Action("pull", p, {"peg": g}) for g in "ab"]
        elif s["phase"] == "window":
            out += [Action("trap_result", p, {"zapped": z}) for z in (True, False)]
        elif s["phase"] == "reset":
            out.append(Action("reset", p))
        return out

    def _next(self) -> None:
        self.s["turn"] = (self.s["turn"] + 1) % len(self.s["players"])
        self.s["phase"] = "roll"

    def apply(self, action: Action) -> list[Event]:
        s = self.s
        if action not in self.legal_actions():
            raise IllegalAction(f"{action.to_text()} is not legal now (phase {s['phase']})")
        p, kind = action.player, action.kind
        if kind == "peek":
            return [Event("peeked", {"seat": p}, private_to=p, secret={"number": s["secrets"][p]})]
        if kind == "pass":
            self._next()
            return [Event("passed", {"seat": p})]
        if kind == "roll":
            rng = Rng.from_json(s["rng"])
            s["rolled"] = rng.choice(TOMBS)
            s["rng"] = rng.to_json()
            s["phase"] = "move"
            return [Event("rolled", {"seat": p, "tomb": s["rolled"]})]
        if kind == "move_tomb":
            s["tombs"][action.params["tomb"]] = action.params["to"]
            s["rolled"] = None
            self._next()
            return [Event("tomb_moved", dict(action.params))]
        if kind == "attempt":
            s["phase"] = "attempt"
            return [Event("skull_attempt", {"seat": p})]
        if kind == "skull":
            if action.params["hit"]:
                s["over"], s["winners"], s["phase"] = True, [p], "over"
            else:
                self._next()
            return [Event("skull_result", {"seat": p, "hit": action.params["hit"]})]
        if kind == "challenge":
            s["phase"] = "challenge"
            return [Event("challenge", {"seat": p})]
        if kind == "pull":
            s["pulled"], s["phase"] = action.params["peg"], "window"
            return [Event("peg_pulled", {"seat": p, "peg": action.params["peg"]})]
        if kind == "trap_result":
            s["sprung"], s["phase"] = action.params["zapped"], "reset"
            return [Event("trap_result", {"seat": p, "zapped": action.params["zapped"]})]
        if kind == "reset":
            s["pulled"], s["sprung"] = None, False
            self._next()
            return [Event("trap_reset", {"seat": p})]
        raise IllegalAction(f"unknown action {kind!r}")  # pragma: no cover - legal_actions guards

    # ----- who and when ---------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return list(self.s["players"])

    @property
    def current_player(self) -> int | None:
        return None if self.s["over"] else self.s["turn"]

    @property
    def is_over(self) -> bool:
        return bool(self.s["over"])

    @property
    def winners(self) -> list[int]:
        return list(self.s["winners"])

    def public_view(self) -> dict[str, Any]:
        return {k: copy.deepcopy(v) for k, v in self.s.items() if k not in ("secrets", "rng")}

    def player_view(self, seat: int) -> dict[str, Any]:
        return {**self.public_view(), "secret": self.s["secrets"][seat]}

    # ----- the board --------------------------------------------------------------
    def expects(self) -> list[Expectation]:
        s, p = self.s, self.s["turn"]
        if s["phase"] == "move":
            tomb = s["rolled"]
            return [
                Expectation(
                    "tomb_move",
                    f"Slide the {tomb} tomb one position.",
                    p,
                    accepts={
                        f"tomb.{tomb}": {
                            o: Action("move_tomb", p, {"tomb": tomb, "to": o}) for o in STEP[s["tombs"][tomb]]
                        }
                    },
                )
            ]
        if s["phase"] == "attempt":
            miss = Action("skull", p, {"hit": False})
            return [
                Expectation(
                    "skull_outcome",
                    "Drop the skull.",
                    p,
                    accepts={
                        "launcher": {"launched": Action("skull", p, {"hit": True})},
                        "chute.left": {"blocked": miss},
                    },
                    window_ms=s["window_ms"],
                    on_timeout=miss,
                )
            ]
        if s["phase"] == "challenge":
            return [
                Expectation(
                    "peg_pull",
                    "Pull one peg of the Ladder.",
                    p,
                    accepts={f"trap.ladder.peg_{g}": {"pulled": Action("pull", p, {"peg": g})} for g in "ab"},
                )
            ]
        if s["phase"] == "window":
            return [
                Expectation(
                    "trap_outcome",
                    "Watch the Ladder.",
                    p,
                    accepts={"trap.ladder.sprung": {"sprung": Action("trap_result", p, {"zapped": True})}},
                    window_ms=s["window_ms"],
                    on_timeout=Action("trap_result", p, {"zapped": False}),
                )
            ]
        if s["phase"] == "reset":
            return [
                Expectation(
                    "trap_reset",
                    "Reset the Ladder.",
                    p,
                    requires={"trap.ladder.peg_a": "in", "trap.ladder.peg_b": "in", "trap.ladder.sprung": "cocked"},
                    action=Action("reset", p),
                )
            ]
        return []

    def expected_board(self) -> dict[str, str]:
        s = self.s
        board = {f"tomb.{t}": pos for t, pos in s["tombs"].items()}
        board["launcher"] = "launched" if s["over"] else "armed"
        for g in "ab":
            board[f"trap.ladder.peg_{g}"] = "pulled" if s["pulled"] == g else "in"
        board["trap.ladder.sprung"] = "sprung" if s["sprung"] else "cocked"
        return board


REST = {
    "tomb.mummy": "middle",
    "tomb.monster": "middle",
    "tomb.wolf": "middle",
    "launcher": "armed",
    "chute.left": "clear",
    "chute.right": "clear",
    "trap.ladder.peg_a": "in",
    "trap.ladder.peg_b": "in",
    "trap.ladder.sprung": "cocked",
}


# ----- helpers for the referee tests ----------------------------------------------------

class Clock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, ms: float) -> None:
        self.t += ms / 1000.0


def make_config(tmp_path: Path, settings: Mapping[str, Any] | None = None) -> Config:
    values: dict[str, Any] = {
        "journal.path": str(tmp_path / "t1.journal"),
        "table.token": "tok",
        "referee.mismatch_grace_ms": 300,
        "referee.tomb_grace_ms": 2000,
    }
    values.update(settings or {})
    return load_config(overrides=values)


def make_referee(
    tmp_path: Path, clock: Clock | None = None, *, settings: Mapping[str, Any] | None = None
) -> Referee:
    config = make_config(tmp_path, settings)
    journal = Journal(config.journal.path, table=config.table.id)
    return Referee(journal, config, clock=clock or Clock())


def obs(sensor: str, value: str, *, initial: bool = False) -> Observation:
    return Observation(sensor, value, first_edge=0.0, settled=0.0, source="sim", initial=initial)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_fake_replays_from_seed_and_actions() -> None:
    game = FakeBoardGame.new(["Ann", "Bo"], seed=7)
    actions = [Action("roll", 0)]
    game.apply(actions[0])
    tomb = game.s["rolled"]
    actions.append(Action("move_tomb", 0, {"tomb": tomb, "to": "end_a"}))
    game.apply(actions[1])
    assert FakeBoardGame.replay(["Ann", "Bo"], 7, actions) == game
    assert game.current_player == 1


def test_fake_refuses_an_illegal_action_and_keeps_its_state() -> None:
    game = FakeBoardGame.new(["Ann"], seed=1)
    before = game.to_json()
    with pytest.raises(IllegalAction):
        game.apply(Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"}))
    assert game.to_json() == before
