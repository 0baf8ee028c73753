"""Bad input to the sub-commands: exit status 2 and one line naming the culprit, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main


def test_mcu_sim_script_that_is_not_utf8_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "moves.txt"
    script.write_bytes("# d\u00e9part\nset 0 1\n".encode("latin-1"))
    assert main(["mcu-sim", "--script", str(script), "--no-stdin"]) == 2
    err = capsys.readouterr().err
    assert err == f"gravekeeper mcu-sim: --script: {script} is not UTF-8 text (byte 0xe9 at offset 3)\n"


@pytest.mark.parametrize("error", ["full", "damaged"])
def test_run_reports_a_journal_failing_during_the_restore_as_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, error: str
) -> None:
    import sqlite3

    from controller.service.service import Service
    from controller.store.journal import JournalError

    def start(self: Service) -> None:
        if error == "full":  # the first write of the restore (a manual table dropping a sensed mismatch)
            raise sqlite3.OperationalError("database or disk is full")
        raise JournalError("journal /x: input 3 (command) cannot be replayed: unknown game 'chess'")

    monkeypatch.setattr(Service, "start", start)
    config = tmp_path / "c.toml"
    config.write_text(f'[journal]\npath = "{tmp_path / "t1.journal"}"\n[panel]\nenabled = false\n')
    assert main(["run", "--config", str(config), "--broker", "mqtt://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gravekeeper run: journal.path: ") and err.count("\n") == 1, err
