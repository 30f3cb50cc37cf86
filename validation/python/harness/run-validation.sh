#!/usr/bin/env bash
# The one validation command (issue #3): sets up what the harness needs and
# runs every model's scenarios in every FMI master, the FMU checkers, and
# writes the report to target/validation/report.md (and .html).
#
#   bash validation/python/harness/run-validation.sh [harness run options]
#
# - installs the system package libtbb12 (needed by ecospy) when it is
#   missing and the script runs as root;
# - creates/updates the pinned venv target/venv from
#   validation/python/requirements.txt (same stamp as tests/run-all.sh);
# - builds the FMUs (cargo run --release -p build-fmu) unless
#   VALIDATION_SKIP_BUILD=1, and the in-Rust runner fmi-runner when the
#   workspace declares that binary (otherwise the fmi-rs master is skipped,
#   with a note);
# - exits with the harness's status: 1 when any verdict is failed or rejected.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
say() { printf '[validation] %s\n' "$*"; }

if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libtbb\.so\.12'; then
    if [ "$(id -u)" = 0 ]; then
        say "installing libtbb12 (ecospy needs it)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libtbb12 >/dev/null
    else
        say "libtbb12 is missing (ecospy needs it): run as root or install it; ecospy runs will fail"
    fi
fi

venv="$root/target/venv"
bash "$root/validation/python/setup-venv.sh"

extra=()
if [ "${VALIDATION_SKIP_BUILD:-0}" != 1 ]; then
    say "building the FMUs (cargo run --release -p build-fmu)"
    cargo run --release --quiet -p build-fmu
    if cargo metadata --no-deps --format-version 1 2>/dev/null | grep -q '"name":"fmi-runner"'; then
        say "building the in-Rust runner (cargo build --release -p validation --bin fmi-runner)"
        cargo build --release --quiet -p validation --bin fmi-runner
    fi
fi
if [ ! -x "$root/target/release/fmi-runner" ] \
    && ! cargo metadata --no-deps --format-version 1 2>/dev/null | grep -q '"name":"fmi-runner"'; then
    say "the workspace has no fmi-runner binary yet: skipping the fmi-rs master"
    extra+=(--skip-master fmi-rs)
fi

PYTHONPATH="$root/validation/python${PYTHONPATH:+:$PYTHONPATH}" \
    exec "$venv/bin/python" -m harness run "${extra[@]}" "$@"
