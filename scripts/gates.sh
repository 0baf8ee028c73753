#!/usr/bin/env bash
# The gates after the tests: lint, types, the layers' contracts, the declared dependencies.
# Run after scripts/test.sh, which makes .venv with the 'test' and 'dev' extras. Every gate runs,
# and any finding of any of them fails the script.
set -uo pipefail
cd "$(dirname "$0")/.."

[ -x .venv/bin/python ] || { echo "gates.sh: no .venv: run bash scripts/test.sh first" >&2; exit 1; }
failed=()
gate() {
    echo "gates.sh: $*"
    "$@" || failed+=("$1")
}
gate .venv/bin/ruff check .
gate .venv/bin/mypy gravekeeper controller hardware firmware_bridge web_panel
gate .venv/bin/lint-imports --no-cache
gate .venv/bin/deptry .
if [ ${#failed[@]} -gt 0 ]; then
    echo "gates.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "gates.sh: all gates passed"
