"""The service's modules import one another in one direction only.

The command handler, the views and the effects are given a ``TableContext``
(``controller/service/context.py``), never the service: none of them may import
``controller.service.service``, and no chain of imports among the service's modules may
come back to where it started. Read from the source with :mod:`ast`, so imports inside
functions and under ``TYPE_CHECKING`` count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[3] / "controller" / "service"
PACKAGE = "controller.service"
# Given a TableContext (and hooks), never the Service.
PARTS = ("commands", "gm_commands", "views", "effects", "selftest", "context")


def _imports(path: Path) -> set[str]:
    """The modules of controller.service that ``path`` imports, wherever the import is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            # ``from controller.service import views`` imports the module views
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found.update(n.removeprefix(PACKAGE + ".") for n in names if n.startswith(PACKAGE + "."))
    return found


def _graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in SERVICE.glob("*.py") if p.stem != "__init__"}
    return {name: _imports(path) & set(modules) - {name} for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the chain of modules, or None."""
    done: set[str] = set()

    def visit(name: str, chain: list[str]) -> list[str] | None:
        if name in chain:
            return [*chain[chain.index(name):], name]
        if name in done:
            return None
        for other in sorted(graph[name]):
            found = visit(other, [*chain, name])
            if found is not None:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name, [])
        if found is not None:
            return found
    return None


def test_the_service_modules_have_no_import_cycle() -> None:
    graph = _graph()
    assert {"service", "commands", "views", "context"} <= set(graph)  # the walk found the modules
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_service_parts_never_import_the_service() -> None:
    graph = _graph()
    assert "service" not in set().union(*(graph[p] for p in PARTS))
    assert "commands" in graph["service"]  # the walk sees the imports it must see
