#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing
# (system packages when running as root, the pinned Python venv under
# target/venv), builds every FMU, then runs the Rust tests (unit, FMI calls,
# the in-Rust master on the fmi crate, the C header check), the reference
# checks, the validation harness (every FMU in every FMI master, report in
# target/validation/) and the Python suites (FMPy, fmpy validate,
# fmutool -check, the harness's own tests).
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
# libtbb12 for the ecospy master of the validation harness.
{ ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | grep -q 'libtbb\.so\.12' || need+=(libtbb12)
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
bash validation/python/setup-venv.sh

stage "formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings

stage "build every FMU (cargo run --release -p build-fmu) and the in-Rust master"
cargo run --release --quiet -p build-fmu
cargo build --release --quiet -p validation --bins

stage "reference traces: every model's reference script recomputes and compares with the committed files"
PYTHONPATH=validation/python "$venv/bin/python" -m harness references --check

stage "Rust tests"
cargo test --workspace --quiet

stage "validation harness: every FMU in every master against its references (report: target/validation/report.md)"
VALIDATION_SKIP_BUILD=1 bash validation/python/harness/run-validation.sh

stage "Python tests (FMPy, fmpy validate, fmutool, reference equations, the harness itself)"
"$venv/bin/python" -m pytest -q validation/python/tests tests/python
