# Stage runner and summary shared by tests/run-all.sh and tests/quick.sh
# (sourced, not run). The caller sets $logs (the folder of the stage logs)
# and $venv (the Python venv, for reading pytest's JUnit file).

stage_names=()
stage_status=()
stage_seconds=()
stage_logs=()
stopped=""
disk_peak_kib=0

# disk_line: what target/ holds and what the file system has left, one
# line (a full disk fails stages with "No space left on device"; this says
# which stage filled it). Keeps the largest target/ seen in disk_peak_kib.
disk_line() {
    local used free
    used=$(du -sk target 2>/dev/null | cut -f1)
    free=$(df -Pk target 2>/dev/null | awk 'NR == 2 { print $4 }')
    [ -n "$used" ] && [ "$used" -gt "$disk_peak_kib" ] && disk_peak_kib=$used
    awk -v u="${used:-0}" -v f="${free:-0}" \
        'BEGIN { printf "disk: target/ holds %.1f GB, %.1f GB free\n", u / 1048576, f / 1048576 }'
}

# log_name NAME: the stage's log file name (lower case, words joined by -).
log_name() {
    local slug
    slug=$(printf '%s' "$1" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-')
    slug=${slug#-}
    printf '%s.log' "${slug%-}"
}

# run_stage KIND NAME COMMAND...: KIND is "setup" (a failure stops the
# script) or "test" (a failure is recorded and the next stage runs).
run_stage() {
    local kind=$1 name=$2
    shift 2
    local log
    log="$logs/$(log_name "$name")"
    stage_names+=("$name")
    stage_logs+=("$log")
    if [ -n "$stopped" ]; then
        stage_status+=("skipped"); stage_seconds+=(0)
        return
    fi
    printf '\n=== %s ===\n' "$name"
    local t0=$SECONDS
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    stage_seconds+=($((SECONDS - t0)))
    disk_line
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

# The Rust tests' scope: the workspace but the FMU crates
# (components/fmus/*) and the engine crates (components/engines/*), one
# export line each, which the build command builds in its own profile. Their
# circuits are tested in the libraries that hold them (each library's
# tests/standard.rs), their binaries by the reliability suite and the
# harness. A release build of each would add 14 shared libraries and 14 test
# binaries to the test build.
rust_test_scope=(--workspace)
for manifest in components/fmus/*/Cargo.toml components/engines/*/Cargo.toml; do
    [ -f "$manifest" ] || continue
    # the package's name: the manifest's first `name = "..."` line
    rust_test_scope+=(--exclude "$(sed -n '/^name = /{s/^name = "\(.*\)"$/\1/p;q;}' "$manifest")")
done

# The Python suites, NAME:FOLDER: the reference solvers, the harness and
# the tools; the FMUs end to end in FMPy and the other masters.
python_suites=(validation:validation/python/tests end-to-end:tests/python)

# python_tests [PYTEST OPTION...]: the suites as two pytest processes at
# once, each with its own JUnit file ($logs/pytest-NAME.xml) and output,
# shown one after the other when both have ended. Each spends most of its
# time on one core (its FMU runs and solvers run one after another), so on
# two cores both take about as long as the longer one alone.
python_tests() {
    local suite pids=() rc=0 i
    for suite in "${python_suites[@]}"; do
        "$venv/bin/python" -m pytest -q --junitxml="$logs/pytest-${suite%%:*}.xml" "${suite#*:}" "$@" \
            > "$logs/pytest-${suite%%:*}.out" 2>&1 &
        pids+=($!)
    done
    for i in "${!python_suites[@]}"; do
        suite=${python_suites[$i]}
        wait "${pids[$i]}" || rc=1
        printf -- '--- %s (%s) ---\n' "${suite#*:}" "${suite%%:*}"
        cat "$logs/pytest-${suite%%:*}.out"
    done
    return $rc
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

# stage_counts LOG: "RUNNER|PASSED|FAILED|NOTE" for a stage whose log holds
# a test runner's counts, nothing for a stage without any. A runner that
# ran but printed no counts (it crashed, or did not compile) counts one
# failure.
stage_counts() {
    local log=$1 line p f r
    [ -f "$log" ] || return 0
    case "$(basename "$log")" in
    rust-tests.log|rust-unit-tests.log)
        # "test result: ok. 12 passed; 0 failed; ..." per test binary
        p=0 f=0
        while read -r a b; do p=$((p + a)); f=$((f + b)); done < <(
            sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$log")
        # a test binary that did not compile reports no result line
        if grep -q '^error: could not compile' "$log"; then f=$((f + 1)); fi
        echo "Rust tests|$p|$f|"
        ;;
    python-tests.log)
        # one JUnit file per suite (python_tests); a suite without one
        # crashed before writing it
        local files=() suite
        for suite in "${python_suites[@]}"; do
            files+=("$(dirname "$log")/pytest-${suite%%:*}.xml")
        done
        "$venv/bin/python" - "${files[@]}" <<'EOF'
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
tests = bad = skipped = 0
missing = []
for path in map(Path, sys.argv[1:]):
    if not path.is_file():
        missing.append(path.stem)
        continue
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tests += sum(int(s.get("tests", 0)) for s in suites)
    bad += sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped += sum(int(s.get("skipped", 0)) for s in suites)
notes = ([f"{skipped} skipped"] if skipped else []) + [f"no JUnit file {m}" for m in missing]
print(f"Python tests|{tests - bad - skipped}|{bad + len(missing)}|{', '.join(notes)}")
EOF
        ;;
    *)
        # each runner prints "<what>: N passed, N failed" as its last count line
        line=$(sed -n 's/^\(reliability\|reference checks\|verdicts\|cross-platform runs\): \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) rejected\)\{0,1\}.*/\1|\2|\3|\5/p' \
            "$log" | tail -n 1)
        [ -n "$line" ] || return 0
        IFS='|' read -r what p f r <<< "$line"
        case "$what" in
        reliability) what="reliability cases" ;;
        verdicts) what="harness verdicts" ;;
        esac
        if [ -n "$r" ] && [ "$r" != 0 ]; then
            echo "$what|$p|$((f + r))|$r rejected"
        else
            echo "$what|$p|$f|"
        fi
        ;;
    esac
}

# expects_counts LOG: the stages whose runner must print counts.
expects_counts() {
    case "$(basename "$1")" in
    rust-tests.log|rust-unit-tests.log|python-tests.log|reliability*.log|reference-checks.log|harness*.log|cross-platforms.log) return 0 ;;
    *) return 1 ;;
    esac
}

# summary START_SECONDS: the stages' table with each runner's counts, and
# one line per kind of runner; returns 0 when every stage passed and no
# runner failed.
summary() {
    local started=$1 width=5 i n counts what p f note
    local -A kind_passed=() kind_failed=() kind_note=()
    local kinds=()
    for n in "${stage_names[@]}"; do [ ${#n} -gt $width ] && width=${#n}; done
    printf '\n=== summary ===\n'
    printf "%-${width}s  %-17s %9s %9s %7s\n" "stage" "status" "wall time" "passed" "failed"
    local failed_stages=0
    for i in "${!stage_names[@]}"; do
        counts=$(stage_counts "${stage_logs[$i]}")
        if [ -z "$counts" ] && [ "${stage_status[$i]}" != skipped ] && expects_counts "${stage_logs[$i]}"; then
            counts="$(basename "${stage_logs[$i]}" .log)|0|1|no counts printed"
        fi
        if [ -n "$counts" ]; then
            IFS='|' read -r what p f note <<< "$counts"
            printf "%-${width}s  %-17s %7d s %9d %7d%s\n" "${stage_names[$i]}" "${stage_status[$i]}" \
                "${stage_seconds[$i]}" "$p" "$f" "${note:+  ($note)}"
            if [ -z "${kind_passed[$what]+set}" ]; then
                kinds+=("$what"); kind_passed[$what]=0; kind_failed[$what]=0; kind_note[$what]=""
            fi
            kind_passed[$what]=$((kind_passed[$what] + p))
            kind_failed[$what]=$((kind_failed[$what] + f))
            [ -n "$note" ] && kind_note[$what]="${kind_note[$what]:+${kind_note[$what]}, }$note"
            [ "$f" = 0 ] || failed_stages=$((failed_stages + 1))
        else
            printf "%-${width}s  %-17s %7d s\n" "${stage_names[$i]}" "${stage_status[$i]}" "${stage_seconds[$i]}"
        fi
        [ "${stage_status[$i]}" = passed ] || failed_stages=$((failed_stages + 1))
    done
    printf "%-${width}s  %-17s %7d s\n" "total" "" $((SECONDS - started))
    echo "logs: $logs/"
    awk -v u="$disk_peak_kib" 'BEGIN { printf "largest target/ between stages: %.1f GB\n", u / 1048576 }'
    for what in "${kinds[@]}"; do
        printf '%s: %d passed, %d failed%s\n' "$what" "${kind_passed[$what]}" "${kind_failed[$what]}" \
            "${kind_note[$what]:+ (${kind_note[$what]})}"
    done
    if [ "$failed_stages" = 0 ]; then
        echo "every stage passed"
        return 0
    fi
    echo "FAILED: see the stages above and their logs"
    return 1
}
