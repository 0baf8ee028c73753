"""The tests and benches import only declared packages, as the product does.

``deptry .`` (scripts/gates.sh) checks the product against ``[tool.deptry]`` in pyproject.toml. The tests and
benches may also use the ``test`` extra, which the product must not: this runs deptry over them alone,
with that extra allowed. A package installed by hand on one machine (as ``segno`` once was) fails here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("gravekeeper", "controller", "hardware", "firmware_bridge", "web_panel")


def _deptry_over_tests_and_benches(root: Path) -> subprocess.CompletedProcess[str]:
    deptry = Path(sys.executable).with_name("deptry")
    if not deptry.exists():
        pytest.fail(f"deptry is not installed in {deptry.parent}: install the 'test' extra (scripts/test.sh does)")
    config = tomllib.loads((root / "pyproject.toml").read_text())
    test_extra = [spec.split(">")[0].split("=")[0].split("[")[0].strip().replace("-", "_")
                  for spec in config["project"]["optional-dependencies"]["test"]]
    # A package's import name where it is not its distribution's (littlefs-python is imported as littlefs).
    test_extra = [{"littlefs_python": "littlefs"}.get(name, name) for name in test_extra]
    first_party = [*config["tool"]["deptry"]["known_first_party"], "tests"]
    others = "|".join(rf"^{name}/" for name in (*PRODUCT, "deploy", "docs", "scripts"))
    return subprocess.run(
        [str(deptry), ".", "--exclude", rf"\.venv|\.git|build|dist|{others}", "--extend-exclude", "^$",
         *(arg for name in first_party for arg in ("--known-first-party", name)),
         "--ignore", "DEP002",  # what the product declares is deptry's gate; here only the imports count
         "--per-rule-ignores", f"DEP001=machine,DEP004={'|'.join(test_extra)}"],
        cwd=root, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


def test_tests_and_benches_import_only_declared_packages() -> None:
    done = _deptry_over_tests_and_benches(ROOT)
    assert done.returncode == 0, _said(done)
    assert "No dependency issues found" in _said(done)


def test_an_undeclared_package_is_caught(tmp_path: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_probe.py").write_text("import pytest\nimport tomli_w_not_declared\n")
    done = _deptry_over_tests_and_benches(tmp_path)
    assert done.returncode != 0
    assert "DEP001 'tomli_w_not_declared'" in _said(done), _said(done)
