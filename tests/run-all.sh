#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing
# (system packages when running as root, the pinned Python venv under
# target/venv), builds every FMU, then runs the Rust tests (unit, FMI calls,
# the in-Rust master on the fmi crate, the C header check), the reference
# check and the Python suites (FMPy masters, fmpy validate, fmutool -check).
# Exits non-zero on the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
stage() { printf '\n=== %s ===\n' "$*"; }

stage "system packages"
need=()
# libclang for the fmi crate's bindgen, gcc for the C header check.
[ -n "$(ls /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/x86_64-linux-gnu/libclang*.so* 2>/dev/null | head -n 1)" ] || need+=(libclang-dev)
command -v gcc >/dev/null || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing: ${need[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "missing system packages: ${need[*]} (run as root or install them)" >&2
        exit 1
    fi
else
    echo "all present"
fi

stage "Python venv (target/venv, pinned in validation/python/requirements.txt)"
venv="$root/target/venv"
req="$root/validation/python/requirements.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    echo "$want" > "$stamp"
    echo "installed"
else
    echo "up to date"
fi

stage "formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings

stage "build every FMU (cargo run --release -p build-fmu)"
cargo run --release --quiet -p build-fmu

stage "reference traces: recompute and compare with the committed CSVs"
"$venv/bin/python" validation/python/reference/orifice_chain.py --check > target/reference-check.log \
    || { cat target/reference-check.log; exit 1; }
tail -n 2 target/reference-check.log

stage "Rust tests"
cargo test --workspace --quiet

stage "Python tests (FMPy, fmpy validate, fmutool, reference equations)"
"$venv/bin/python" -m pytest -q validation/python/tests tests/python
