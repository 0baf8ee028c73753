"""Where the panel keeps owners' boards: beside the config for ``run``, ``--boards-dir`` for ``panel``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from controller.cli import panel as panel_cli
from controller.cli.run import boards_dir
from web_panel.child import settings_from
from web_panel.settings import SettingsError


def test_run_keeps_boards_beside_the_config_else_beside_the_journal(tmp_path: Path) -> None:
    config = tmp_path / "club" / "table.toml"
    assert boards_dir(str(config), "/elsewhere/t1.journal") == str((tmp_path / "club" / "boards").resolve())
    assert boards_dir(None, str(tmp_path / "state" / "t1.journal")) == str((tmp_path / "state" / "boards").resolve())


def test_panel_takes_boards_dir_and_the_child_checks_it(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    panel_cli.add_arguments(parser)
    settings = panel_cli.build_settings(parser.parse_args(["--boards-dir", str(tmp_path)]))
    assert settings["boards_dir"] == str(tmp_path)
    assert settings_from(settings).boards_dir == str(tmp_path)
    assert "boards_dir" not in panel_cli.build_settings(parser.parse_args([]))
    with pytest.raises(SettingsError, match="boards_dir"):
        settings_from({**settings, "boards_dir": ""})
