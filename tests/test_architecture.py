"""The layers hold: the import-linter contracts in pyproject.toml pass, they catch a bad import, and no
module imports itself round a circle.

``lint-imports`` reads the contracts (``[tool.importlinter]``); the graph it and the checks here use comes
from grimp, which sees imports inside functions and under ``TYPE_CHECKING`` too. A few rules have no
import-linter contract (an allow-list, "only the standard library"): they are checked here on the same graph.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gravekeeper", "controller", "hardware", "firmware_bridge", "web_panel")
GAME_PACKAGES = ("terror", "superstition", "dogs")
# What the panel may use of the packages below it: the games (to draw a board, check a form) and the wire
# protocol (topics, signing and sealing, the checks of what a table publishes). Everything else it learns over MQTT.
PANEL_MAY_IMPORT = ("controller.games", "controller.protocol")

Imports = Mapping[str, Iterable[str]]

# The imports of every module, as grimp reads them; run in a child so the packages found are the ones on its path.
GRAPH_SCRIPT = """
import json, sys, grimp
graph = grimp.build_graph(*sys.argv[1:], include_external_packages=True, cache_dir=None)
print(json.dumps({m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}))
"""


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    if not path.exists():
        pytest.fail(f"{name} is not installed in {path.parent}: install the 'test' extra (scripts/test.sh does)")
    return str(path)


def _env(pythonpath: Path) -> dict[str, str]:
    # COLUMNS: import-linter wraps a contract's name at the terminal's width; one line each is easier to read.
    return {**os.environ, "PYTHONPATH": str(pythonpath), "COLUMNS": "400"}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _imports_of(root: Path) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", GRAPH_SCRIPT, *PACKAGES], cwd=root, env=_env(root),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imports: dict[str, list[str]] = json.loads(done.stdout)
    return imports


def games_outside_the_standard_library(imports: Imports) -> list[str]:
    """The rules engines import each other, the standard library and the root error, nothing else."""
    return [f"{m} imports {i}" for m, targets in imports.items() if _under(m, "controller.games")
            for i in targets
            if not _under(i, "controller.games") and i.split(".")[0] not in sys.stdlib_module_names
            and i != "__future__" and not _under(i, "gravekeeper.errors")]


def panel_outside_its_allow_list(imports: Imports) -> list[str]:
    """The panel uses only the games and the wire protocol of the packages below it."""
    below = ("controller", "hardware", "firmware_bridge")
    return [f"{m} imports {i}" for m, targets in imports.items() if _under(m, "web_panel")
            for i in targets
            if i.split(".")[0] in below and not any(_under(i, ok) for ok in PANEL_MAY_IMPORT)]


def game_insides_reached_from_outside(imports: Imports) -> list[str]:
    """Outside controller/games, a game is used through what its package exports, not its inner modules."""
    return [f"{m} imports {i}" for m, targets in imports.items() if not _under(m, "controller.games")
            for i in targets
            if (parts := i.split("."))[:2] == ["controller", "games"] and len(parts) > 3 and parts[2] in GAME_PACKAGES]


RULES = (games_outside_the_standard_library, panel_outside_its_allow_list, game_insides_reached_from_outside)


def circles(imports: Imports) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in imports:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _a_circle_through(component: list[str], imports: Imports) -> list[str]:
    """One way round a component, to print: from its first module back to it (breadth first, shortest)."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(imports[node]):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, node, start]
                if target in members and target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return component


def test_the_contracts_hold() -> None:
    done = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=ROOT, env=_env(ROOT),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 broken" in done.stdout, done.stdout


def _copy_of_the_source(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def test_a_contract_catches_a_bad_import(tmp_path: Path) -> None:
    """A rules engine reaching for the journal and the panel importing the service each break their contract."""
    root = _copy_of_the_source(tmp_path)
    _add_import(root / "controller" / "games" / "rng.py", "import controller.store.journal")
    _add_import(root / "web_panel" / "app.py", "import controller.service.service")
    contracts = {c["name"]: c for c in tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
                 ["contracts"]}
    layers = next(name for name in contracts if name.startswith("The controller's layers"))
    panel = next(name for name in contracts if name.startswith("The panel learns everything over MQTT"))

    done = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=root, env=_env(root),
                          capture_output=True, text=True, timeout=300)
    said = " ".join(done.stdout.split())
    assert done.returncode != 0, said
    assert f"{layers} BROKEN" in said, said
    assert f"{panel} BROKEN" in said, said
    assert "controller.games.rng -> controller.store.journal" in said, said
    assert "web_panel.app -> controller.service.service" in said, said


def test_no_import_circle() -> None:
    imports = _imports_of(ROOT)
    assert any(_under(m, "controller.referee") for m in imports), "the graph has none of the controller's modules"
    found = circles({m: [t for t in targets if t in imports] for m, targets in imports.items()})
    shown = ["\n  " + " -> ".join(_a_circle_through(component, imports)) + f"\n    (all of: {', '.join(component)})"
             for component in found]
    assert found == [], "modules import each other round a circle:" + "".join(shown)


def test_a_circle_is_found() -> None:
    """The circle search itself: a three-module circle beside a one-way chain and a module that imports itself."""
    imports = {"a": ["b"], "b": ["c", "d"], "c": ["a"], "d": ["e"], "e": [], "f": ["f"]}
    assert circles(imports) == [["a", "b", "c"]]
    assert _a_circle_through(["a", "b", "c"], imports) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__)
def test_the_rules_no_contract_expresses(rule: object) -> None:
    assert callable(rule)
    assert rule(_imports_of(ROOT)) == []


def test_the_rules_no_contract_expresses_catch_a_bad_import(tmp_path: Path) -> None:
    root = _copy_of_the_source(tmp_path)
    _add_import(root / "controller" / "games" / "rng.py", "import cobs")
    _add_import(root / "web_panel" / "app.py", "import controller.games.terror.board")
    _add_import(root / "web_panel" / "reach.py", "import gravekeeper.errors\nimport controller.cli")
    imports = _imports_of(root)
    assert games_outside_the_standard_library(imports) == ["controller.games.rng imports cobs"]
    assert panel_outside_its_allow_list(imports) == ["web_panel.reach imports controller.cli"]
    assert game_insides_reached_from_outside(imports) == ["web_panel.app imports controller.games.terror.board"]


def test_each_game_package_exports_its_game_class() -> None:
    from controller import games

    for name in games.GAME_NAMES:
        cls = games.get_game(name)
        package = __import__(f"controller.games.{name}", fromlist=["__all__"])
        assert cls.__name__ in package.__all__
        assert getattr(package, cls.__name__) is cls
