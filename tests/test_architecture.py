"""Imports point down, as ``shared/DESIGN.md`` sets out: web_panel, controller, hardware, firmware_bridge.

Read from the source with :mod:`ast`, so the test sees imports inside functions and
under ``TYPE_CHECKING`` too, and a forbidden import fails here before it ships.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "hardware", "firmware_bridge", "web_panel")
GAME_PACKAGES = ("terror", "superstition", "dogs")

# The panel learns everything over MQTT. These are the pure helpers it may share
# with the controller (no I/O, no threads, no state): the rules engines' data and
# action types (to draw boards and check a form before sending), the sealing and
# signing of messages (both ends must agree byte for byte), the players check of
# the new-game form (so the panel refuses what the table would), the names of
# a game's sensors, the checking of what a table publishes (signed by the table),
# the MQTT client settings both ends use (MQTT 5, the largest packet), and the
# table's display name (its check, and the one made from an id).
PANEL_MAY_IMPORT = {
    "controller.games",
    "controller.protocol.security",
    "controller.protocol.publication",
    "controller.protocol.mqtt5",
    "controller.config",
    "controller.protocol.names",
    "hardware.observation",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, source: str | None = None) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in one file, relative ones resolved."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # ``from . import x``: x may be a module
                    for alias in node.names:
                        yield node.lineno, f"{module}.{alias.name}"
                    continue
            else:
                module = node.module or ""
            yield node.lineno, module


def _files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _top(module: str) -> str:
    return module.split(".")[0]


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


Rule = Callable[[Path, str], "str | None"]


def _file_violations(path: Path, rule: Rule, source: str | None = None) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line} imports {module}: {reason}"
            for line, module in _imports(path, source)
            if (reason := rule(path, module))]


def _violations(package: str, rule: Rule) -> list[str]:
    return [v for path in _files(package) for v in _file_violations(path, rule)]


def _games_rule(path: Path, module: str) -> str | None:
    if _under(module, "controller.games"):
        inner = path.relative_to(ROOT / "controller" / "games").parts
        # a game's package may use what the games share, and its own modules, not another game's
        if len(inner) > 1 and inner[0] in GAME_PACKAGES:
            for other in GAME_PACKAGES:
                if other != inner[0] and _under(module, f"controller.games.{other}"):
                    return f"one game must not reach into another ({other})"
        return None
    if _top(module) in sys.stdlib_module_names or module == "__future__":
        return None
    return "controller/games imports nothing outside itself and the standard library"


def _hardware_rule(path: Path, module: str) -> str | None:
    if _top(module) in ("controller", "web_panel"):
        return "hardware must not import the controller or the panel"
    return None


def _bridge_rule(path: Path, module: str) -> str | None:
    if _top(module) in ("controller", "hardware", "web_panel"):
        return "firmware_bridge imports neither hardware nor the controller"
    return None


def _panel_rule(path: Path, module: str) -> str | None:
    if _top(module) not in ("controller", "hardware", "firmware_bridge"):
        return None
    if any(_under(module, ok) for ok in PANEL_MAY_IMPORT):
        parts = module.split(".")
        if parts[:2] == ["controller", "games"] and len(parts) > 3 and parts[2] in GAME_PACKAGES:
            return "the panel uses what a game's package exports, not its inner modules"
        return None
    return "the panel talks to the controller over MQTT; only the named pure helpers are shared"


def _controller_rule(path: Path, module: str) -> str | None:
    if _top(module) == "web_panel":
        return ("the controller starts the panel as a child process (controller.cli.panel_process) "
                "and never imports it")
    inner = path.relative_to(ROOT / "controller").parts
    if inner[0] != "games" and module.startswith("controller.games."):
        parts = module.split(".")
        if len(parts) > 3 and parts[2] in GAME_PACKAGES:
            return "outside controller/games, use what a game's package exports, not its inner modules"
    return None


RULES = {
    "controller/games": ("controller/games", _games_rule),
    "hardware": ("hardware", _hardware_rule),
    "firmware_bridge": ("firmware_bridge", _bridge_rule),
    "web_panel": ("web_panel", _panel_rule),
    "controller": ("controller", _controller_rule),
}


@pytest.mark.parametrize("name", list(RULES))
def test_imports_point_down(name: str) -> None:
    package, rule = RULES[name]
    assert _files(package), f"no Python files under {package}"
    assert _violations(package, rule) == []


def test_each_game_package_exports_its_game_class() -> None:
    from controller import games

    for name in games.GAME_NAMES:
        cls = games.get_game(name)
        package = __import__(f"controller.games.{name}", fromlist=["__all__"])
        assert cls.__name__ in package.__all__
        assert getattr(package, cls.__name__) is cls


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("controller/games/probe.py", "import paho.mqtt.client\n", "outside itself"),
    ("controller/games/probe.py", "from controller import journal\n", "outside itself"),
    ("controller/games/terror/probe.py", "from ..dogs.state import Spook\n", "another"),
    ("hardware/probe.py", "from controller.config import Config\n", "must not import the controller"),
    ("firmware_bridge/probe.py", "import hardware.debounce\n", "neither"),
    ("web_panel/probe.py", "from controller.referee.live import Referee\n", "over MQTT"),
    ("web_panel/probe.py", "from controller.games.terror.board import load_board\n", "exports"),
    ("controller/probe.py", "from web_panel.server import start_panel\n", "child process"),
    ("controller/cli/probe.py", "from controller.games.dogs.state import Spook\n", "exports"),
])
def test_a_forbidden_import_is_caught(where: str, source: str, expected: str) -> None:
    """Each rule catches what it is meant to: one bad import in a file at that place fails it."""
    rule_name = "controller/games" if where.startswith("controller/games/") else where.split("/")[0]
    _, rule = RULES[rule_name]
    found = _file_violations(ROOT / where, rule, source)
    assert len(found) == 1 and expected in found[0], found
