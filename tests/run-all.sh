#!/usr/bin/env bash
# Runs every test of the project and says what it did.
#
#   bash tests/run-all.sh
#
# Set-up stages: the system packages the tests need (apt-get, when running
# as root), the pinned Python venv target/venv, the FMUs (the build
# command, `cargo run --release -p build-fmu`: after it, nothing is left to
# compile and this stage only repackages; on a fresh clone, such as CI's,
# it builds everything), and one release build of every test and tool
# (`cargo test --release --workspace --exclude <each FMU and engine crate>
# --no-run`, the scope of tests/stages.sh: those crates are one export line
# each, built by the build command in its own profile, their circuits
# tested in the libraries that hold them; the tools the later stages run,
# fmi-runner, reliability and cross-platform among them, come from it).
#
# Test stages: lints (rustfmt, clippy), the Rust tests, the reliability
# suite (a hostile master on every FMU's C API, with valgrind), the short
# reference check (`harness references --check --short`), the validation
# harness (every FMU in every FMI master; again with the fixed-cost
# integrator, with the integrator that steps past communication points, and
# as Model Exchange in FMPy), the cross-platform runs (every FMU's Windows
# and aarch64 binaries under wine64 and qemu-aarch64) and the Python suites.
# The long versions (full reference re-solves, long fuzzing, 1,000 valgrind
# cycles) are commands of their own: docs/testing.md.
#
# Every test stage runs even when an earlier one failed; only a failed
# set-up stage stops the script (nothing after it could run). It ends with
# the stages' table (status, wall time) and the counts of each test runner.
# Each stage's full output is in target/test-logs/<stage>.log.
# Exit status: 0 when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
logs="$root/target/test-logs"
rm -rf "$logs"
mkdir -p "$logs"
venv="$root/target/venv"
started_all=$SECONDS
# shellcheck source=tests/stages.sh
source "$root/tests/stages.sh"

system_packages() {
    local need=()
    # libclang for bindgen in the fmi crate's build (fmi-sys): bindgen loads
    # libclang.so or libclang-<version>.so[.N]; libclang-cpp*.so is another
    # library and does not count. Its headers come with libclang-dev too.
    have_file '/usr/lib/llvm-*/lib/libclang.so' '/usr/lib/llvm-*/lib/libclang-[0-9]*.so*' \
        '/usr/lib/x86_64-linux-gnu/libclang.so' '/usr/lib/x86_64-linux-gnu/libclang-[0-9]*.so*' \
        || need+=(libclang-dev)
    # gcc for the C header check and for crates that build C.
    command -v gcc >/dev/null || need+=(gcc)
    # libtbb12 for the ecospy master of the validation harness.
    have_file '/usr/lib/x86_64-linux-gnu/libtbb.so.12*' '/usr/lib/*/libtbb.so.12*' '/usr/lib/libtbb.so.12*' \
        || need+=(libtbb12)
    # valgrind for the reliability suite's memcheck runs.
    have_file /usr/bin/valgrind || need+=(valgrind)
    # wine64 and qemu-aarch64 run the Windows and aarch64 binaries (the
    # cross-platform stage); the build command installs the cross linkers.
    have_file /usr/lib/wine/wine64 /usr/bin/wine64 || need+=(wine64)
    have_file /usr/bin/qemu-aarch64 || need+=(qemu-user)
    # Chromium for the schematic's real-browser test
    # (tests/python/test_schematic_browser.py).
    have_file /usr/bin/chromium || need+=(chromium)
    if [ ${#need[@]} -eq 0 ]; then
        echo "all present: libclang, gcc, libtbb12, valgrind, wine64, qemu-user, chromium"
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "missing system packages: run \`sudo apt-get install ${need[*]}\` (or run this as root)" >&2
        return 1
    fi
    echo "installing with apt-get: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

lints() {
    local rc=0
    cargo fmt --all -- --check || rc=1
    # in the release profile: the build scripts and procedural macros of
    # the test build serve it too (no second, debug, build of them)
    cargo clippy --release --workspace --all-targets --quiet -- -D warnings || rc=1
    return $rc
}

harness() {
    env VALIDATION_SKIP_BUILD=1 bash validation/python/harness/run-validation.sh --no-plots "$@"
}

run_stage setup "system packages" system_packages
run_stage setup "python venv" bash validation/python/setup-venv.sh
run_stage setup "FMUs (the build command)" cargo run --release --quiet -p build-fmu
run_stage setup "test build" cargo test --release "${rust_test_scope[@]}" --no-run --quiet
run_stage test "lints" lints
run_stage test "rust tests" cargo test --release "${rust_test_scope[@]}" --no-fail-fast --quiet
# Every built FMU, both FMI versions: odd values, forbidden states, NULL
# pointers, bad value references, doStep arguments, corrupted and forged
# serialized states, threads, valgrind (20 life cycles per FMU and version)
# and RSS (2,000 cycles); failures in target/reliability/failures.txt.
run_stage test "reliability" target/release/reliability
# Every reference script recomputes and compares; the scripts with long
# traces re-solve one short scenario each (the full check is a command of
# its own, docs/testing.md).
run_stage test "reference checks" env PYTHONPATH=validation/python \
    "$venv/bin/python" -m harness references --check --short
# Every scenario in every master (FMPy, the in-Rust master on the fmi
# crate in Co-Simulation and Model Exchange, ecospy, libcosimpy) and the
# checkers; report (without the plots: `python -m harness report` draws
# them) in target/validation/.
run_stage test "harness" harness
# The same scenarios with the fixed-cost integrator (solver = 5, the
# substeps of validation/scenarios/fixed_cost.json), both FMI versions.
run_stage test "harness fixed-cost" harness --solver-mode fixed \
    --master fmi-rs --master fmpy --skip-checkers --out target/validation-fixed-cost
# With the Rosenbrock-W integrator that steps past communication points
# (solver = 6, default tolerances), in-Rust master, both FMI versions.
run_stage test "harness ahead" harness --solver-mode ahead \
    --master fmi-rs --skip-checkers --out target/validation-ahead
# Every scenario as Model Exchange in FMPy (its CVODE integrates the FMUs'
# derivatives), FMI 3; FMI 2 Model Exchange runs in the in-Rust master of
# the "harness" stage.
run_stage test "harness model-exchange" harness --master fmpy-me --fmi-version 3 \
    --skip-checkers --out target/validation-model-exchange
# Every FMU's Windows x86_64 and Linux aarch64 binaries (plan_master under
# wine64 and qemu-aarch64) compared with Linux x86_64.
run_stage test "cross platforms" target/release/cross-platform
# The two Python suites at once (python_tests, tests/stages.sh).
run_stage test "python tests" python_tests

summary "$started_all"
