"""Run a script on real MicroPython: the WebAssembly port under Node, from the pinned npm package.

The port and its runner live in ``firmware_bridge/firmware/wasm/`` (``run.mjs``,
``package.json``, ``package-lock.json``); ``scripts/test.sh`` runs ``npm ci``
there. When Node or the package is missing these helpers raise with the
command that installs them: a test that cannot reach MicroPython fails, it is
never skipped, since a skip would let a firmware that breaks on the board pass.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WASM_DIR = ROOT / "firmware_bridge" / "firmware" / "wasm"
RUNNER = WASM_DIR / "run.mjs"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PACKAGE_DIR = WASM_DIR / "node_modules" / PACKAGE
GKFW = ROOT / "firmware_bridge" / "firmware" / "gkfw.py"
SCRIPTS = Path(__file__).resolve().parent / "mp"


class MicroPythonUnavailable(RuntimeError):
    """Node or the pinned MicroPython package is not installed."""


class MicroPythonError(AssertionError):
    """The script raised on MicroPython (the message holds its traceback)."""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise MicroPythonUnavailable("node is not installed: scripts/test.sh installs it "
                                     "(Debian: apt-get install nodejs npm)")
    return found


def pinned_version() -> str:
    lock = json.loads((WASM_DIR / "package-lock.json").read_text())
    version: str = lock["packages"]["node_modules/" + PACKAGE]["version"]
    return version


def check_installed() -> str:
    """The installed port's version; raises unless it is the one package-lock.json pins."""
    node()
    manifest = PACKAGE_DIR / "package.json"
    if not manifest.is_file():
        raise MicroPythonUnavailable(f"{PACKAGE} is not installed: run `npm ci` in {WASM_DIR} "
                                     "(scripts/test.sh does)")
    installed: str = json.loads(manifest.read_text())["version"]
    if installed != pinned_version():
        raise MicroPythonUnavailable(f"{PACKAGE} {installed} is installed but package-lock.json pins "
                                     f"{pinned_version()}: run `npm ci` in {WASM_DIR}")
    return installed


class MicroPythonRun:
    """A script running on MicroPython in a Node process; ``result()`` waits for its output."""

    def __init__(self, script: str, files: Mapping[str, Path | bytes], heapsize: int) -> None:
        check_installed()
        self.script = script
        self._tmp = tempfile.TemporaryDirectory(prefix="gk-mpy-")
        tmp = Path(self._tmp.name)
        empty = tmp / "__init__.py"
        empty.write_bytes(b"")
        args = [node(), str(RUNNER), "--heapsize", str(heapsize),
                "--put", f"firmware_bridge/__init__.py={empty}",
                "--put", f"firmware_bridge/firmware/__init__.py={empty}",
                "--put", f"firmware_bridge/firmware/gkfw.py={GKFW}"]
        for name, content in files.items():
            if isinstance(content, bytes):
                path = tmp / name.replace("/", "_")
                path.write_bytes(content)
                content = path
            args += ["--put", f"{name}={content}"]
        args.append(str(SCRIPTS / script))
        self._proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WASM_DIR)

    def result(self, timeout: float = 120.0) -> str:
        """The script's stdout; MicroPythonError if it raised, TimeoutExpired (the process killed) if it hung."""
        try:
            out, err = self._proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            raise
        finally:
            self._tmp.cleanup()
        if self._proc.returncode != 0:
            raise MicroPythonError(f"{self.script} failed on MicroPython (exit {self._proc.returncode}):\n"
                                   f"{err.decode(errors='replace')}")
        return out.decode()


def start(script: str, files: Mapping[str, Path | bytes], *, heapsize: int = 4 * 1024 * 1024) -> MicroPythonRun:
    """Start ``mp/<script>`` on MicroPython with ``files`` in its filesystem root.

    ``files`` maps a name in MicroPython's ``/`` to a host path or to bytes.
    The firmware file itself is always there, at its path in this repository,
    so the scripts import it as the tests do: ``from firmware_bridge.firmware import gkfw``.
    """
    return MicroPythonRun(script, files, heapsize)


def run(script: str, files: Mapping[str, Path | bytes], *, timeout: float = 120.0,
        heapsize: int = 4 * 1024 * 1024) -> str:
    """``start`` and wait: the script's stdout."""
    return start(script, files, heapsize=heapsize).result(timeout)
