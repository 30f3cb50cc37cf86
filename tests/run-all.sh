#!/usr/bin/env bash
# Runs every test of the project on a fresh machine and says what it did.
#
#   bash tests/run-all.sh
#
# Installs what is missing (system packages with apt-get when running as
# root, the pinned Python venv under target/venv), builds every FMU, then
# runs the Rust tests (unit, FMI calls, the in-Rust master on the fmi crate,
# the C header check), the reliability suite (a hostile master on every FMU's
# C API, with valgrind), the reference checks, the validation harness (every
# FMU in every FMI master, Co-Simulation and, in the in-Rust master, Model
# Exchange, report in target/validation/; again with the fixed-cost
# integrator in two masters, target/validation-fixed-cost/; with the
# integrator that steps past communication points in the in-Rust master,
# target/validation-ahead/; and as Model Exchange in FMPy,
# target/validation-model-exchange/), the
# cross-platform runs (every FMU's Windows and aarch64 binaries under wine64
# and qemu-aarch64, against Linux x86_64) and the Python
# suites (FMPy, fmpy validate, fmutool -check, the harness's own tests, the
# sweep tool on a 2-worker local Dask cluster and on a scheduler by address).
#
# Every test stage runs even when an earlier one failed; only a failed set-up
# or build stops the script (nothing after it could run). It ends with one
# table (stage, status, wall time) and the line "N passed, N failed" over all
# test runners. Each stage's full output is in target/test-logs/<stage>.log.
# Exit status: 0 when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
logs="$root/target/test-logs"
mkdir -p "$logs"
venv="$root/target/venv"
started_all=$SECONDS

stage_names=()
stage_status=()
stage_seconds=()
stopped=""

# run_stage KIND NAME COMMAND...: KIND is "setup" (a failure stops the
# script) or "test" (a failure is recorded and the next stage runs).
run_stage() {
    local kind=$1 name=$2
    shift 2
    local log="$logs/${name// /-}.log"
    if [ -n "$stopped" ]; then
        stage_names+=("$name"); stage_status+=("skipped"); stage_seconds+=(0)
        return
    fi
    printf '\n=== %s ===\n' "$name"
    local t0=$SECONDS
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    stage_names+=("$name")
    stage_seconds+=($((SECONDS - t0)))
    if [ "$rc" = 0 ]; then
        stage_status+=("passed")
    else
        stage_status+=("FAILED (exit $rc)")
        if [ "$kind" = setup ]; then
            stopped="$name"
            echo "stage '$name' failed: the stages after it cannot run (log: $log)"
        fi
    fi
}

# have_file PATTERN...: true when one of the glob patterns names an existing
# file. Plain globbing: no pipe, so no SIGPIPE can fake a missing file.
have_file() {
    local pattern file
    for pattern in "$@"; do
        for file in $pattern; do
            [ -e "$file" ] && return 0
        done
    done
    return 1
}

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
    # Cross linkers for the Windows x86_64 and Linux aarch64 binaries in the
    # FMUs, and wine64 / qemu-aarch64 to run them (the cross-platform stage).
    have_file /usr/bin/x86_64-w64-mingw32-gcc || need+=(gcc-mingw-w64-x86-64)
    have_file /usr/bin/aarch64-linux-gnu-gcc || need+=(gcc-aarch64-linux-gnu)
    have_file /usr/lib/wine/wine64 /usr/bin/wine64 || need+=(wine64)
    have_file /usr/bin/qemu-aarch64 || need+=(qemu-user)
    if [ ${#need[@]} -eq 0 ]; then
        echo "all present: libclang, gcc, libtbb12, valgrind, MinGW-w64 and aarch64 gcc, wine64, qemu-user"
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "missing system packages: ${need[*]} (run as root, or install them with apt-get)" >&2
        return 1
    fi
    echo "installing with apt-get: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

# The Rust standard libraries of the cross targets (build-fmu skips a
# platform whose target is missing, and the cross-platform stage then fails).
rust_targets() {
    local targets=(x86_64-pc-windows-gnu aarch64-unknown-linux-gnu) missing=() t
    local sysroot
    sysroot=$(rustc --print sysroot) || return 1
    for t in "${targets[@]}"; do
        [ -d "$sysroot/lib/rustlib/$t" ] || missing+=("$t")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "installed: ${targets[*]}"
        return 0
    fi
    if ! command -v rustup >/dev/null; then
        echo "missing Rust targets ${missing[*]} and no rustup to add them" >&2
        return 1
    fi
    rustup target add "${missing[@]}"
}

build_all() {
    cargo run --release --quiet -p build-fmu && cargo build --release --quiet -p validation --bins \
        && cargo build --release --quiet -p fmu-tests --bin cross-platform
}

# The hostile master on every built FMU (both FMI versions): odd values,
# forbidden states, NULL pointers, bad value references, doStep arguments,
# corrupted and forged serialized states, threads, valgrind (20 life cycles
# per FMU and version) and RSS (2,000 cycles); failures listed in
# target/reliability/failures.txt. The long run is named in README.md.
reliability() {
    local t0=$SECONDS rc
    cargo build --release --quiet -p fmu-tests --bin reliability || return 1
    target/release/reliability
    rc=$?
    echo "reliability stage wall time: $((SECONDS - t0)) s"
    return $rc
}

lints() {
    local rc=0
    cargo fmt --all -- --check || rc=1
    cargo clippy --workspace --all-targets --quiet -- -D warnings || rc=1
    return $rc
}

run_stage setup "system packages" system_packages
run_stage setup "rust targets" rust_targets
run_stage setup "python venv" bash validation/python/setup-venv.sh
run_stage setup "build" build_all
run_stage test "reliability" reliability
run_stage test "lints" lints
run_stage test "rust tests" cargo test --workspace --no-fail-fast --quiet
# The quick reference check (every trace recomputed and compared, the
# card's numbers checked; the slow scripts' independent second checks left
# out: `python -m harness references --check` without --quick runs them,
# about 10 minutes, see README "Tools and benchmarks").
run_stage test "reference checks" env PYTHONPATH=validation/python \
    "$venv/bin/python" -m harness references --check --quick
run_stage test "validation harness" env VALIDATION_SKIP_BUILD=1 \
    bash validation/python/harness/run-validation.sh
# The same scenarios with the fixed-cost integrator (solver = 5, the
# substeps of validation/scenarios/fixed_cost.json) in the in-Rust master
# and FMPy, both FMI versions; report in target/validation-fixed-cost/.
run_stage test "validation harness fixed-cost" env VALIDATION_SKIP_BUILD=1 \
    bash validation/python/harness/run-validation.sh --solver-mode fixed \
    --master fmi-rs --master fmpy --skip-checkers --no-plots --out target/validation-fixed-cost
# The same scenarios with the Rosenbrock-W integrator that steps past
# communication points and interpolates (solver = 6, default tolerances)
# in the in-Rust master, both FMI versions; report in
# target/validation-ahead/.
run_stage test "validation harness ahead" env VALIDATION_SKIP_BUILD=1 \
    bash validation/python/harness/run-validation.sh --solver-mode ahead \
    --master fmi-rs --skip-checkers --no-plots --out target/validation-ahead
# Every scenario as Model Exchange in FMPy (its CVODE integrates the FMUs'
# derivatives), FMI 3 (FMI 2 Model Exchange runs in the in-Rust master of
# the stage above, fmi-rs-me); report in target/validation-model-exchange/.
run_stage test "validation harness model-exchange" env VALIDATION_SKIP_BUILD=1 \
    bash validation/python/harness/run-validation.sh --master fmpy-me --fmi-version 3 \
    --skip-checkers --no-plots --out target/validation-model-exchange
# Every FMU's Windows x86_64 and Linux aarch64 binaries run (plan_master
# under wine64 and qemu-aarch64) and compared with Linux x86_64.
run_stage test "cross platforms" target/release/cross-platform
run_stage test "python tests" "$venv/bin/python" -m pytest -q \
    --junitxml="$logs/pytest.xml" validation/python/tests tests/python

# Counts over the test runners, read from their logs.
count_passed=0
count_failed=0
add_counts() { count_passed=$((count_passed + $1)); count_failed=$((count_failed + $2)); }
if [ -f "$logs/rust-tests.log" ]; then
    # "test result: ok. 12 passed; 0 failed; ..." per test binary
    while read -r p f; do add_counts "$p" "$f"; done < <(
        sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$logs/rust-tests.log")
    # a test binary that did not compile reports no result line
    if grep -q '^error: could not compile' "$logs/rust-tests.log"; then add_counts 0 1; fi
fi
for name in reliability reference-checks validation-harness validation-harness-fixed-cost validation-harness-ahead validation-harness-model-exchange cross-platforms; do
    [ -f "$logs/$name.log" ] || continue
    # each prints "<what>: N passed, N failed" as its last count line
    line=$(sed -n 's/^\(reliability\|reference checks\|verdicts\|cross-platform runs\): \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) rejected\)\{0,1\}.*/\2 \3 \5/p' \
        "$logs/$name.log" | tail -n 1)
    if [ -n "$line" ]; then
        read -r p f r <<< "$line"
        add_counts "$p" $((f + ${r:-0}))
    else
        add_counts 0 1
    fi
done
if [ -f "$logs/pytest.xml" ]; then
    read -r p f < <("$venv/bin/python" - "$logs/pytest.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
tests = sum(int(s.get("tests", 0)) for s in suites)
bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(tests - bad - skipped, bad)
EOF
    )
    add_counts "${p:-0}" "${f:-1}"
elif [ -f "$logs/python-tests.log" ]; then
    add_counts 0 1
fi

failed_stages=0
printf '\n=== summary ===\n'
printf '%-20s %-18s %9s\n' "stage" "status" "wall time"
for i in "${!stage_names[@]}"; do
    printf '%-20s %-18s %7d s\n' "${stage_names[$i]}" "${stage_status[$i]}" "${stage_seconds[$i]}"
    [ "${stage_status[$i]}" = passed ] || failed_stages=$((failed_stages + 1))
done
printf '%-20s %-18s %7d s\n' "total" "" $((SECONDS - started_all))
echo "logs: $logs/"
echo "$count_passed passed, $count_failed failed"
[ "$failed_stages" = 0 ] && [ "$count_failed" = 0 ]
