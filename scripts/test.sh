#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine with Python 3.11.
# It installs what the tests need (Mosquitto, Chromium, Node and npm from
# Debian, Python packages into .venv, the emulated Pico's npm packages from
# its lock file) and fails loudly when something cannot be had: a missing
# broker, browser or emulator must never turn into a skipped test.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need_apt+=(mosquitto)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "test.sh: installing Debian packages: ${need_apt[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "test.sh: need root to install ${need_apt[*]} (or install them yourself)" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1 || { echo "test.sh: mosquitto is not available" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "test.sh: /usr/bin/chromium is not available" >&2; exit 1; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "test.sh: node and npm are not available" >&2; exit 1; }

# The emulated Pico (rp2040js), exactly as pinned by its lock file.
harness=firmware_bridge/pico_emulator/harness
if ! (cd "$harness" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "test.sh: npm ci failed in $harness: the emulated Pico's tests cannot run" >&2
    exit 1
fi

PY=${PYTHON:-python3}
if ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian splits venv out of its python3 package.
    echo "test.sh: installing python3-venv"
    [ "$(id -u)" -eq 0 ] || { echo "test.sh: need root to install python3-venv" >&2; exit 1; }
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test,dev]'  # dev: the gates .ci/run runs after the tests
# MicroPython's WebAssembly port, at the version package-lock.json pins: the firmware's tests run on it.
(cd firmware_bridge/firmware/wasm && npm ci --no-audit --no-fund --loglevel=error)

# The suite starts many Python processes (tables, panel children, benches, the journal's kill tests).
# Where the environment sets PYTHONDONTWRITEBYTECODE, none of them keeps its compiled modules, and each
# compiles the project's again: 0.15 to 0.2 s of CPU a start, on two busy cores. Python's own default
# (compiled once, then read) holds for the suite's run; __pycache__ is ignored by git.
unset PYTHONDONTWRITEBYTECODE
exec .venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
