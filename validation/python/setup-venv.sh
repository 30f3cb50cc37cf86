#!/usr/bin/env bash
# Creates or updates the project's pinned Python venv target/venv from
# validation/python/requirements.txt (reinstalls when the file changes).
# Used by tests/run-all.sh and validation/python/harness/run-validation.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/target/venv"
req="$root/validation/python/requirements.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "creating/updating the Python venv $venv"
    python3 -m venv "$venv"
    # no wheel cache: it would keep a second copy of every downloaded wheel
    # beside the venv (disk is short on CI machines)
    "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir -r "$req"
    echo "$want" > "$stamp"
else
    echo "Python venv up to date"
fi
