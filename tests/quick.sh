#!/usr/bin/env bash
# The quick check before each commit: a few minutes once the test command
# (tests/run-all.sh) has built everything once.
#
#   bash tests/quick.sh
#
# Stages: the FMUs (the build command; it recompiles only what changed),
# lints (rustfmt, clippy), every Rust test, the reliability suite's quick
# sample without valgrind, every validation scenario in the in-Rust master
# (FMI 3, Co-Simulation and Model Exchange), and the Python tests but the
# three slowest files (the sweep tool on Dask, the broken-FMU harness
# runs, the surrogate training cross-check). The test command runs all of
# it in full and in every master. Logs in target/quick-logs/.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
logs="$root/target/quick-logs"
rm -rf "$logs"
mkdir -p "$logs"
venv="$root/target/venv"
started_all=$SECONDS
# shellcheck source=tests/stages.sh
source "$root/tests/stages.sh"
# Incremental release builds of the tests and tools (not of the FMUs, whose
# profile says incremental = false): after a change to fmu-core, 31 s of
# Rust test build instead of 207 s. The test command builds once, without.
export CARGO_PROFILE_RELEASE_INCREMENTAL=true

lints() {
    local rc=0
    cargo fmt --all -- --check || rc=1
    # in the release profile: the build scripts and procedural macros of
    # the test build serve it too (no second, debug, build of them)
    cargo clippy --release --workspace --all-targets --quiet -- -D warnings || rc=1
    return $rc
}

run_stage setup "python venv" bash validation/python/setup-venv.sh
run_stage setup "FMUs (the build command)" cargo run --release --quiet -p build-fmu
run_stage test "lints" lints
run_stage test "rust tests" cargo test --release "${rust_test_scope[@]}" --no-fail-fast --quiet
run_stage test "reliability (quick)" target/release/reliability --quick --no-valgrind \
    --out target/reliability-quick
run_stage test "harness (in-Rust master, FMI 3)" env VALIDATION_SKIP_BUILD=1 \
    bash validation/python/harness/run-validation.sh --master fmi-rs --master fmi-rs-me \
    --fmi-version 3 --skip-checkers --no-plots --out target/validation-quick
run_stage test "python tests" python_tests \
    --ignore=validation/python/tests/test_sweep.py \
    --ignore=validation/python/tests/test_harness_broken_fmus.py \
    --ignore=validation/python/tests/test_surrogate_crosscheck.py

summary "$started_all"
