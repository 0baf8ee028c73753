"""``gravekeeper replay``: a game in words, verification, and the exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.games.base import Action
from controller.store.journal import Journal
from tests.controller.referee.test_fakegame import REST, Clock, make_referee, obs
from tests.support.journal_damage import damage_the_inputs


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A journal with a short game: a roll, a tomb move, a mismatch and its fix, a skull miss."""
    clock = Clock()
    ref = make_referee(tmp_path, clock)
    ref.reconcile(REST)
    ref.new_game("fakeboard", ["Ann", "Bo"], seed=2)
    ref.act(Action("roll", 0))
    rolled = ref.game.to_json()["rolled"]  # type: ignore[union-attr]
    ref.observe(obs(f"tomb.{rolled}", "end_b"))
    ref.observe(obs("launcher", "launched"))
    clock.advance(300)
    ref.tick()
    ref.observe(obs("launcher", "armed"))
    ref.act(Action("attempt", 1))
    clock.advance(1000 + ref.window_late_s * 1000)
    ref.tick()
    ref.journal.close()
    return tmp_path / "t1.journal"


def test_prints_the_game_in_words(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(played)]) == 0
    out = capsys.readouterr().out
    assert "A new game of Fake board for Ann and Bo" in out
    assert "Fake board starts for Ann and Bo." in out
    assert "Ann: roll 0" in out and "command:" not in out
    assert "The Headless Ghost's launcher reads launched" in out
    assert ("The board does not match the game: The Headless Ghost was launched with no skull attempt: "
            "that is a foul.") in out
    assert "The board matches the game again." in out
    assert "Time is up: Bo: skull 1" in out
    assert "#1 " in out and "!!" not in out


def test_verify_passes_on_an_untouched_journal(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(played), "--verify"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verified: ") and "recorded events" in out


def test_verify_json(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(played), "--verify", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["table"] == "t1" and report["divergences"] == []
    with Journal(played, table="t1") as journal:
        assert report["events"] == journal.last_seq()
        assert report["inputs"] == sum(1 for _ in journal.inputs())


def test_print_json_lists_every_step(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(played), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    kinds = [s["kind"] for s in report["steps"]]
    assert kinds[:3] == ["reconcile", "new_game", "command"] and "timeout" in kinds
    seqs = [e["seq"] for s in report["steps"] for e in s["events"]]
    assert seqs == list(range(1, len(seqs) + 1))


def test_verify_finds_an_edited_event(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(played) as db:
        db.execute("UPDATE events SET data = '{\"seat\":0,\"tomb\":\"wolf\",\"x\":1}' WHERE type = 'rolled'")
    assert main(["replay", str(played), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "same event types with different data" in out and out.rstrip().endswith("do not reproduce their events")


def test_verify_finds_a_removed_event_and_an_edited_input(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(played) as db:
        db.execute("DELETE FROM events WHERE type = 'mismatch_cleared'")
    assert main(["replay", str(played), "--verify"]) == 1
    assert "the journal has no events" in capsys.readouterr().out
    with sqlite3.connect(played) as db:
        payload = json.dumps({"action": {"kind": "fly"}, "time": 1, "board": "sensors"})
        db.execute("UPDATE inputs SET payload = ? WHERE kind = 'command'", (payload,))
    assert main(["replay", str(played), "--verify", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert any("cannot be replayed" in d for d in report["divergences"])


@pytest.mark.parametrize("content", [None, b"garbage" * 200, b""])
def test_missing_or_corrupt_journal_is_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / "x.journal"
    if content is not None:
        path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and err.startswith("gravekeeper replay: ")


def test_another_sqlite_file_is_refused_and_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (x)")
    assert main(["replay", str(path)]) == 2
    assert "not a gravekeeper journal" in capsys.readouterr().err
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["notes"]


def test_several_tables_need_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shared.journal"
    for table in ("a", "b"):
        with Journal(path, table=table) as j:
            j.record("reconcile", {"sensors": {}, "time": 1.0, "board": "sensors"}, [])
    assert main(["replay", str(path)]) == 2
    assert "--table" in capsys.readouterr().err
    assert main(["replay", str(path), "--table", "c"]) == 2
    assert "no table 'c'" in capsys.readouterr().err
    assert main(["replay", str(path), "--table", "b", "--verify"]) == 0


def test_the_console_command_exits_2_with_one_line(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-m", "controller", "replay", str(tmp_path / "missing.journal"), "--verify"],
        cwd=root, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"gravekeeper replay: journal not found: "
                                                f"{tmp_path / 'missing.journal'}"]
    assert done.stdout == ""


def test_a_journal_with_damaged_pages_is_exit_2_with_one_line(played: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    damage_the_inputs(played)  # a bad SD card: the pages that list the inputs are garbage
    for args in ([], ["--verify"], ["--json"]):
        assert main(["replay", str(played), *args]) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1 and str(played) in captured.err, captured.err
        assert captured.err.startswith("gravekeeper replay: ") and "cannot be read" in captured.err


def test_a_journal_with_nothing_in_it_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "new.journal"
    Journal(path, table="t1").close()  # a controller that started and stopped before any input
    for args in ([], ["--verify"]):
        assert main(["replay", str(path), *args]) == 0
        assert capsys.readouterr().out == f"{path}: nothing recorded yet\n"
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == 0
