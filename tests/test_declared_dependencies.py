"""Every third-party module the product imports comes from a declared dependency.

A fresh install only has what `pyproject.toml` declares; a package installed by hand on a
developer's machine (as `segno` once was) passes every local test and fails every user's
first start. This reads the product's imports with `ast` and maps each to the distribution
that provides it in this environment.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("controller", "hardware", "firmware_bridge", "web_panel")
# MicroPython code that runs on the microcontroller, not on the Pi.
NOT_ON_THE_PI = (ROOT / "firmware_bridge" / "firmware",)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(group: str | None = None) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return {_norm(re.split(r"[\s<>=!~\[;]", spec, maxsplit=1)[0]) for spec in specs}


def _imports(files: list[Path]) -> dict[str, list[str]]:
    """Top-level module name -> where it is imported (file:line)."""
    found: dict[str, list[str]] = {}
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                found.setdefault(top, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _third_party(found: dict[str, list[str]]) -> dict[str, list[str]]:
    # bench scripts import one another by file name (they run as scripts from bench/).
    first_party = set(PRODUCT) | {"tests", "bench"} | {p.stem for p in (ROOT / "bench").glob("*.py")}
    return {
        mod: where
        for mod, where in found.items()
        if mod not in sys.stdlib_module_names and mod not in first_party and mod != "__future__"
    }


def _product_files() -> list[Path]:
    files = []
    for pkg in PRODUCT:
        for path in (ROOT / pkg).rglob("*.py"):
            if not any(path.is_relative_to(skip) for skip in NOT_ON_THE_PI):
                files.append(path)
    return files


def _undeclared(found: dict[str, list[str]], declared: set[str]) -> list[str]:
    providers = metadata.packages_distributions()
    problems = []
    for mod, where in sorted(_third_party(found).items()):
        dists = {_norm(d) for d in providers.get(mod, [])}
        if not dists:
            problems.append(f"{mod} (imported at {where[0]}) is not installed by any distribution")
        elif not dists & declared:
            problems.append(
                f"{mod} (imported at {where[0]}) comes from {sorted(dists)}, which is not declared"
            )
    return problems


def test_product_imports_only_declared_dependencies() -> None:
    found = _imports(_product_files())
    assert _third_party(found), "the scan found no third-party import at all: it is not looking"
    assert _undeclared(found, _declared()) == []


def test_tests_and_benches_import_only_declared_dependencies() -> None:
    files = [*ROOT.joinpath("tests").rglob("*.py"), *ROOT.joinpath("bench").rglob("*.py")]
    assert _undeclared(_imports(files), _declared() | _declared("test")) == []


def test_the_check_catches_an_undeclared_package() -> None:
    found = _imports(_product_files())
    assert "segno" in found
    problems = _undeclared(found, _declared() - {"segno"})
    assert any(p.startswith("segno ") for p in problems), problems
