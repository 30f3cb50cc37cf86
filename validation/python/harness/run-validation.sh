#!/usr/bin/env bash
# The one validation command: sets up what the harness needs and
# runs every model's scenarios in every FMI master, the FMU checkers, and
# writes the report to target/validation/report.md (and .html).
#
#   bash validation/python/harness/run-validation.sh [harness run options]
#
# - installs the system package libtbb12 (needed by ecospy) when it is
#   missing and the script runs as root;
# - creates/updates the pinned venv target/venv from
#   validation/python/requirements.txt (same stamp as tests/run-all.sh);
# - builds the FMUs (cargo run --release -p build-fmu) and the in-Rust
#   runner fmi-runner unless VALIDATION_SKIP_BUILD=1;
# - exits with the harness's status: 1 when any verdict is failed or rejected.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
say() { printf '[validation] %s\n' "$*"; }

# Look for the library file itself (plain globbing, no pipe that SIGPIPE
# could break under pipefail).
have_tbb=""
for file in /usr/lib/x86_64-linux-gnu/libtbb.so.12* /usr/lib/*/libtbb.so.12* /usr/lib/libtbb.so.12*; do
    [ -e "$file" ] && have_tbb=1 && break
done
if [ -z "$have_tbb" ]; then
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

if [ "${VALIDATION_SKIP_BUILD:-0}" != 1 ]; then
    say "building the FMUs (cargo run --release -p build-fmu)"
    cargo run --release --quiet -p build-fmu
    say "building the in-Rust runner (cargo build --release -p validation --bin fmi-runner)"
    cargo build --release --quiet -p validation --bin fmi-runner
fi

PYTHONPATH="$root/validation/python${PYTHONPATH:+:$PYTHONPATH}" \
    exec "$venv/bin/python" -m harness run "$@"
