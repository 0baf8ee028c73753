"""Every error the panel raises on purpose is a ``GravekeeperError`` and keeps its built-in base."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import web_panel
from gravekeeper.errors import GravekeeperError
from web_panel.boards_store import BoardError
from web_panel.commands import PanelCommandError
from web_panel.gm_commands import GmCommandError
from web_panel.house_rules import HouseRuleError
from web_panel.mqtt import CommandTimeout
from web_panel.panel_state import PanelStateError
from web_panel.settings import SettingsError


def panel_errors() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(web_panel.__path__, "web_panel."):
        module = importlib.import_module(info.name)
        found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                  if issubclass(cls, BaseException) and cls.__module__ == module.__name__]
    return found


def test_every_panel_error_is_a_gravekeeper_error() -> None:
    errors = panel_errors()
    assert {e.__name__ for e in errors} >= {"BoardError", "PanelCommandError", "GmCommandError", "HouseRuleError",
                                            "CommandTimeout", "PanelStateError", "SettingsError"}
    assert [e.__name__ for e in errors if not issubclass(e, GravekeeperError)] == []


@pytest.mark.parametrize(("error", "base"), [
    (BoardError, ValueError), (PanelCommandError, ValueError), (GmCommandError, ValueError),
    (HouseRuleError, ValueError), (PanelStateError, ValueError), (SettingsError, ValueError),
    (CommandTimeout, TimeoutError),
])
def test_each_keeps_the_built_in_base_its_callers_catch(error: type[BaseException], base: type[BaseException]) -> None:
    assert issubclass(error, base) and issubclass(error, GravekeeperError)
