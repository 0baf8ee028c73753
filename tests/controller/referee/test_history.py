"""A table's history from its journal: games, steps, the board at a step, hands, exports, sensors; replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.games.base import Action
from controller.referee.history import History, HistoryError
from controller.referee.live import Referee
from controller.referee.live_gm import game_master
from controller.store.journal import Journal
from tests.controller.referee.test_fakegame import Clock, make_referee, obs
from tests.controller.referee.test_games import TERROR_REST
from tests.web_panel.pages.test_e2e_games import holds_terror_card, terror_policy
from tests.web_panel.support.e2e_driver import find_game


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A finished Terror game with an undo, a correction and a pause in it, then a game in progress."""
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    seed, actions = find_game("terror", {}, terror_policy, 300, holds_terror_card, seeds=range(500), token="tok")
    assert ref.new_game("terror", ["Ann", "Bo"], seed=seed).ok
    extras = {"undo": False, "declare": False}
    for action in actions:
        if action.kind == "move_tomb" and not extras["undo"]:
            assert ref.act(action).ok
            assert game_master(ref, "undo", {"reason": "wrong tomb"}).ok
            extras["undo"] = True
        if action.kind == "move_tomb" and extras["undo"] and not extras["declare"] and ref.state()["gm"]["undo"]:
            out = game_master(ref, "declare", {"action": action.to_json(), "reason": "typed for the board"})
            assert out.ok, out.error
            extras["declare"] = True
            assert game_master(ref, "pause", {"reason": "drinks"}).ok
            assert game_master(ref, "resume", {}).ok
            continue
        out = ref.act(action)
        assert out.ok, (action, out.error)
    assert ref.game is not None and ref.game.is_over and all(extras.values())
    assert ref.new_game("terror", ["Cy", "Di"], seed=1).ok
    assert ref.act(Action("roll", 0)).ok
    ref.journal.close()
    return tmp_path / "t1.journal"


def reader(path: Path) -> Journal:
    return Journal(path, table="t1", create=False)


def test_games_are_listed_newest_first_with_their_record(played: Path) -> None:
    with reader(played) as journal:
        running, finished = History().games(journal)
    assert running["players"] == ["Cy", "Di"] and running["in_progress"] and not running["over"]
    assert finished["players"] == ["Ann", "Bo"] and finished["over"] and not finished["in_progress"]
    assert finished["winners"] and set(finished["winners"]) <= {"Ann", "Bo"}
    assert finished["undos"] == 1 and finished["corrections"] == 1 and finished["mismatches"] == 0
    assert finished["moves"] > 10 and finished["length_s"] >= 0 and finished["title"] == "Terror in the Graveyard"


def test_a_game_replays_step_by_step_and_hands_only_show_when_finished_and_allowed(played: Path) -> None:
    with reader(played) as journal:
        running, finished = History().games(journal)
        steps = History().steps(journal, finished["game_id"])["steps"]
        texts = [s["text"] for s in steps]
        assert texts[0].startswith("A new game of Terror in the Graveyard for ")
        assert any("The referee takes the last move back (wrong tomb)" in t for t in texts)
        assert any(t.startswith("The referee declares:") and "typed for the board" in t for t in texts)
        assert any("pauses the game (drinks)" in t for t in texts)
        undone = next(s for s in steps if s["events"] and s["events"][0]["type"] == "undone")
        assert undone["events"][0]["data"]["put_back"][0].startswith("Slide the ")
        assert all("secret" not in e and "private_to" not in e for s in steps for e in s["events"])
        last = len(steps) - 1
        hidden = History(reveal_hands=False).board_at(journal, finished["game_id"], last)
        assert hidden["over"] and hidden["hands"] is None
        shown = History(reveal_hands=True).board_at(journal, finished["game_id"], last)
        assert [h["player"] for h in shown["hands"]] == ["Ann", "Bo"] and "you" in shown["hands"][0]["hand"]
        mid = History(reveal_hands=True).board_at(journal, finished["game_id"], 5)
        assert mid["hands"] is not None  # a finished game's hands at any of its steps
        live = History(reveal_hands=True).board_at(journal, running["game_id"], 1)
        assert live["hands"] is None  # never for a game still running
        first = History().board_at(journal, finished["game_id"], 0)
        assert first["view"]["tombs"] == {"mummy": "middle", "monster": "middle", "wolf": "middle"}
        with pytest.raises(HistoryError, match="steps 0 to"):
            History().board_at(journal, finished["game_id"], last + 1)
        with pytest.raises(HistoryError, match="no game"):
            History().steps(journal, "nope")


def test_exports_as_json_lines_and_a_readable_record(played: Path) -> None:
    with reader(played) as journal:
        _, finished = History().games(journal)
        jsonl = History().export(journal, finished["game_id"], "jsonl")
        text = History().export(journal, finished["game_id"], "text")
        with pytest.raises(HistoryError, match="jsonl or text"):
            History().export(journal, finished["game_id"], "pdf")
    lines = [json.loads(x) for x in jsonl["content"].splitlines()]
    assert lines[0]["record"] == "game" and lines[0]["players"] == ["Ann", "Bo"]
    assert all(x["record"] == "step" for x in lines[1:]) and jsonl["name"].endswith(".jsonl")
    assert text["content"].startswith("Terror in the Graveyard: Ann, Bo\n")
    assert "takes the last move back" in text["content"]


def test_replay_prints_and_verifies_a_journal_with_undos_and_overrides(
        played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(played)]) == 0
    out = capsys.readouterr().out
    assert "referee takes the last move back (wrong tomb)" in out and "referee declares:" in out
    assert "#" in out and "The referee took back:" in out and "undone" not in out
    assert main(["replay", str(played), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("verified:")


def test_sensor_statistics_across_games(tmp_path: Path) -> None:
    clock = Clock()
    ref: Referee = make_referee(tmp_path, clock)
    assert ref.reconcile(TERROR_REST).ok
    assert ref.new_game("terror", ["Ann", "Bo"], seed=1).ok
    ref.observe(obs("tomb.mummy", "end_a"))  # no roll: a mismatch once its grace is over
    clock.advance(300)
    ref.tick()
    assert ref.mismatch is not None
    assert game_master(ref, "broken", {"sensor": "tomb.mummy", "reason": "stuck"}).ok
    first = ref.game_id
    ref.journal.add_sensor_counts(str(first), {"tomb.mummy": 4})  # as the service's bounce ledger writes them
    assert ref.new_game("terror", ["Ann", "Bo"], seed=2).ok
    ref.journal.add_sensor_counts(str(ref.game_id), {"tomb.mummy": 2, "launcher": 1, "tomb.wolf": 3})
    ref.journal.close()
    with reader(tmp_path / "t1.journal") as journal:
        rows = History().sensors(journal)["sensors"]
    # Most trouble first: the sensor marked broken, then by bounces and mismatches (never by id).
    assert [s["sensor"] for s in rows] == ["tomb.mummy", "tomb.wolf", "launcher"]
    stats = {s["sensor"]: s for s in rows}
    mummy = stats["tomb.mummy"]
    assert mummy == {"sensor": "tomb.mummy", "label": "the Mummy tomb", "readings": 1, "mismatches": 1,
                     "corrections": 0, "broken": 1, "bounces": 6, "bounce_games": 2}
    assert stats["launcher"]["label"] == "the Headless Ghost's launcher" and stats["launcher"]["bounces"] == 1


def test_a_secret_move_is_told_by_its_public_events_never_by_the_action_sent(tmp_path: Path) -> None:
    import random

    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    assert ref.new_game("terror", ["Ann", "Bo"], seed=4).ok
    rnd = random.Random(4)
    played = None
    for _ in range(3000):
        game = ref.game
        assert game is not None
        if game.is_over:
            assert ref.new_game("terror", ["Ann", "Bo"], seed=rnd.randrange(1000)).ok
            continue
        legal = game.legal_actions()
        cards = [a for a in legal if a.kind == "play_card"]
        action = cards[0] if cards else rnd.choice(legal)
        assert ref.act(action).ok
        if action.kind == "play_card":
            played = action
            break
    assert played is not None, "no card was played"
    game_id = ref.game_id
    ref.journal.close()
    with reader(tmp_path / "t1.journal") as journal:
        steps = History().steps(journal, str(game_id))["steps"]
    secret = [s for s in steps if s["kind"] == "command" and "plays a secret move" in s["text"]]
    assert secret, [s["text"] for s in steps][-5:]
    assert played.params["card"] not in json.dumps(secret[-1]["text"])


def test_what_history_keeps_of_the_journal_follows_new_inputs_and_new_games(tmp_path: Path) -> None:
    """Read once, then only what landed since: a new reading, a new game and its moves show at once."""
    clock = Clock()
    ref: Referee = make_referee(tmp_path, clock)
    assert ref.reconcile(TERROR_REST).ok
    assert ref.new_game("terror", ["Ann", "Bo"], seed=1).ok
    first = str(ref.game_id)
    journal = ref.journal
    history = History()
    starts: list[int] = []
    real_inputs = journal.inputs

    def spy_inputs(start_id: int = 0) -> Any:
        starts.append(start_id)
        return real_inputs(start_id)

    journal.inputs = spy_inputs  # type: ignore[method-assign]

    def mummy() -> dict[str, Any]:
        return {s["sensor"]: s for s in history.sensors(journal)["sensors"]}.get("tomb.mummy") or {"readings": 0}

    assert mummy()["readings"] == 0
    assert history.steps(journal, first)["players"] == ["Ann", "Bo"]
    ref.observe(obs("tomb.mummy", "end_a"))
    assert mummy()["readings"] == 1  # the new input, after a cached read
    read_from = starts[-1]
    assert mummy()["readings"] == 1 and starts[-1] > read_from > 0  # counted once, the old inputs not read again

    ref.observe(obs("tomb.mummy", "middle"))  # back where the board's rest has it
    assert ref.new_game("terror", ["Cy", "Di"], seed=2).ok
    second = str(ref.game_id)
    assert history.steps(journal, second)["players"] == ["Cy", "Di"]  # a game begun after a cached read
    steps_before = len(history.steps(journal, second)["steps"])
    assert ref.act(Action("roll", 0)).ok
    assert len(history.steps(journal, second)["steps"]) == steps_before + 1
    assert history.steps(journal, first)["players"] == ["Ann", "Bo"]
    reads = len(starts)
    history.steps(journal, first)
    history.steps(journal, second)
    assert len(starts) == reads, starts[reads:]  # both games' steps kept: nothing landed in them since
    history.board_at(journal, first, 0)
    history.board_at(journal, second, 0)
    # Each replay reads its own game from its start; no game's first input is read again to find it.
    assert len(starts) == reads + 2, starts[reads:]
    with pytest.raises(HistoryError):
        history.steps(journal, "no-such-game")
    journal.inputs = real_inputs  # type: ignore[method-assign]
    ref.journal.close()


def test_a_games_steps_are_kept_across_requests_until_an_input_lands_in_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The service opens the journal anew for each request: what is kept follows the file, not the object."""
    ref: Referee = make_referee(tmp_path, Clock())
    assert ref.new_game("terror", ["Ann", "Bo"], seed=1).ok
    first = str(ref.game_id)
    assert ref.act(Action("roll", 0)).ok
    history = History()
    replays: list[str] = []
    real_replay = History._replay

    def counted(self: History, journal: Journal, game: Any, upto: int | None) -> Any:
        if self is history:
            replays.append(game.game_id)
        return real_replay(self, journal, game, upto)

    monkeypatch.setattr(History, "_replay", counted)

    def steps(game_id: str) -> dict[str, Any]:
        with Journal(ref.journal.path, table=ref.journal.table, create=False) as journal:  # a request's own
            return history.steps(journal, game_id)

    once = steps(first)
    assert steps(first) == once and replays == [first]  # the second request replays nothing
    before = len(once["steps"])
    legal = ref.state()["legal"]
    assert ref.act(Action.from_json(legal[0])).ok
    grown = steps(first)
    assert len(grown["steps"]) == before + 1 and replays == [first, first]  # the new move shows at once
    assert grown == History().steps(ref.journal, first)  # kept or not, the same answer
    assert ref.new_game("terror", ["Cy", "Di"], seed=2).ok
    finished = steps(first)  # a later game began: this one's steps are final now
    assert finished["steps"] == grown["steps"] and len(replays) == 3
    ref.observe(obs("tomb.mummy", "end_a"))  # lands in the new game, not in the finished one
    assert steps(first) == finished and len(replays) == 3
    ref.journal.close()
