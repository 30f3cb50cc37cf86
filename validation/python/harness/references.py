"""``harness references``: rerun every model's reference script and say which
scenario files changed (``--check``: let each script compare instead of write).

The scripts are found through the ``generated_by`` field of each
``scenario.json`` (a path relative to the repository root). Contract of a
reference script (README.md, "Reference scripts"): it accepts
``--out-dir ROOT`` (the root of the scenario folders) and ``--check``
(recompute, compare with the files on disk, write nothing, exit non-zero
when a file would change or a solver cross-check fails; a recomputed CSV
may differ from the committed one within the script's stated tolerance,
since other machines round differently) and ``--exact`` (with ``--check``:
files must be byte-identical); without ``--check`` it writes its scenario
folders and exits non-zero when a check fails.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from harness import REPO_ROOT
from harness.scenario import discover


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root``, by relative path."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*")) if path.is_file() and "__pycache__" not in path.parts
    }


def reference_scripts(scenarios_root: Path) -> tuple[dict[Path, list[str]], list[str]]:
    """Each reference script (from ``generated_by``) with the scenarios it
    writes, and the scenario.json files that name none. Read from the raw
    JSON, so that a scenario the script will rewrite may be broken now."""
    scripts: dict[Path, list[str]] = defaultdict(list)
    problems = []
    for spec_path in sorted(scenarios_root.glob("*/*/scenario.json")):
        key = f"{spec_path.parent.parent.name}/{spec_path.parent.name}"
        try:
            spec = json.loads(spec_path.read_text())
            generated_by = spec.get("generated_by")
        except (OSError, ValueError, AttributeError) as err:
            problems.append(f"{key}: scenario.json unreadable ({err})")
            continue
        if "twin_of" in spec:
            continue  # a twin scenario has no files of its own: its twin's script writes them
        if not generated_by:
            problems.append(f"{key}: scenario.json names no generated_by script")
            continue
        script = Path(generated_by)
        scripts[script if script.is_absolute() else REPO_ROOT / script].append(key)
    return scripts, problems


# ``--quick``: what each slow script leaves out (its own flags): the
# independent second checks that take most of its time (the valve drive's
# Euler convergence runs and unlocked-equation CVODE runs, the hoses'
# resonance search by periodic orbits). The traces, the CVODE cross-checks
# of the traces and the published numbers are still computed and compared.
QUICK_FLAGS = {"valve_cylinder.py": ["--quick"], "hose_line.py": ["--no-frequency"]}

# ``--short`` (the test command's version): ``--quick``, and the scripts with
# long traces re-solve one short scenario each (the valve drive's 10 s
# repeatable input with the actuator and mass scenarios taken from it, the
# one-segment hose step, the four-bar's linear curve, the crane's lift, the
# hydrostatic drive's start-up) instead of all; the
# other scenarios' committed traces are left as they are. The full check
# re-solves them all.
SHORT_FLAGS = {
    "valve_cylinder.py": ["--quick", "--scenario", "repeatable"],
    "hose_line.py": ["--no-frequency", "--scenario", "HoseH/step_n1"],
    "four_bar.py": ["--quick", "--scenario", "sine_linear"],
    "crane_boom.py": ["--quick"],
    "hydrostatic_drive.py": ["--quick"],
}


def script_command(script: Path, scenarios_root: Path, check: bool, exact: bool = False,
                   quick: bool = False, short: bool = False) -> list[str]:
    command = [sys.executable, str(script)] if script.suffix == ".py" else [str(script)]
    command += ["--out-dir", str(scenarios_root)]
    if check:
        command.append("--check")
        if exact:
            command.append("--exact")
        if short:
            command += SHORT_FLAGS.get(script.name, QUICK_FLAGS.get(script.name, []))
        elif quick:
            command += QUICK_FLAGS.get(script.name, [])
    return command


def run_script(script: Path, command: list[str], logs: Path) -> tuple[subprocess.CompletedProcess, float, Path]:
    """Run one reference script; its output goes to its log file."""
    t0 = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    log = logs / f"{script.stem}.log"
    log.write_text("$ " + " ".join(command) + "\n" + completed.stdout + completed.stderr)
    return completed, wall, log


def regenerate(scenarios_root: Path, check: bool, out: Path, exact: bool = False, jobs: int = 1,
               quick: bool = False, short: bool = False) -> int:
    """Run every reference script; return 0 when all succeeded (and, with
    ``--check``, nothing changed beyond the scripts' tolerances, or at all
    with ``exact``), 1 otherwise. With ``--check`` the scripts write
    nothing, so up to ``jobs`` of them run at a time; writing runs one
    after the other, so that each script's changes can be named."""
    scenarios_root = scenarios_root.resolve()
    scripts, problems = reference_scripts(scenarios_root)
    for problem in problems:
        print(f"problem: {problem}", flush=True)
    logs = out / "reference-scripts"
    logs.mkdir(parents=True, exist_ok=True)
    failed = bool(problems)
    started = time.perf_counter()
    # every [PASS] / [FAIL] line a script prints is one check; a file that
    # --check finds changed, a script that fails without a FAIL line and a
    # scenario problem count as failed checks too
    passed_checks = 0
    failed_checks = len(problems)
    runnable = []
    for script, keys in sorted(scripts.items()):
        if not script.is_file():
            print(f"FAILED  {script}: script missing (named by {', '.join(keys)})", flush=True)
            failed_checks += 1
            failed = True
            continue
        command = script_command(script, scenarios_root, check, exact, quick, short)
        print(f"running {' '.join(command)}  (scenarios {', '.join(keys)})", flush=True)
        runnable.append((script, keys, command))
    workers = max(1, jobs) if check else 1
    before = snapshot(scenarios_root)
    results = {}
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_script, script, command, logs): script for script, _, command in runnable}
            for future in as_completed(futures):
                results[futures[future]] = (future.result(), before, snapshot(scenarios_root))
    else:
        for script, _, command in runnable:
            start_state = snapshot(scenarios_root)
            results[script] = (run_script(script, command, logs), start_state, snapshot(scenarios_root))
    after_all = snapshot(scenarios_root)
    for script, keys, command in runnable:
        (completed, wall, log), start_state, end_state = results[script]
        output = completed.stdout + completed.stderr
        # the files this script's scenarios live in (its models' folders)
        models = {key.split("/")[0] for key in keys}
        end_state = after_all if workers > 1 else end_state
        changed = sorted(name for name in start_state.keys() | end_state.keys()
                         if start_state.get(name) != end_state.get(name)
                         and (workers == 1 or name.split("/")[0] in models))
        passes = sum("[PASS]" in line for line in output.splitlines())
        fails = sum("[FAIL]" in line for line in output.splitlines())
        status = "ok" if completed.returncode == 0 else f"FAILED (exit {completed.returncode})"
        print(f"{status:<8} {script.relative_to(REPO_ROOT) if script.is_relative_to(REPO_ROOT) else script}"
              f" in {wall:.1f} s, log {log}", flush=True)
        if check:
            reported = [line.strip() for line in output.splitlines() if "CHANGED" in line]
            for line in reported:
                print(f"         {line}", flush=True)
            if changed:
                print(f"         the script modified files in --check mode: {', '.join(changed)}", flush=True)
                failed = True
            if completed.returncode != 0 and not reported:
                print(f"         last lines: {' | '.join(output.strip().splitlines()[-3:])}", flush=True)
        else:
            if changed:
                for name in changed:
                    what = "added" if name not in start_state else "removed" if name not in end_state else "changed"
                    print(f"         {what}: {scenarios_root.name}/{name}", flush=True)
            else:
                print("         no file changed", flush=True)
            if completed.returncode != 0:
                print(f"         last lines: {' | '.join(output.strip().splitlines()[-3:])}", flush=True)
        passed_checks += passes
        failed_checks += fails
        if completed.returncode != 0 and fails == 0:
            failed_checks += 1
        if check and changed:
            failed_checks += 1
        failed = failed or completed.returncode != 0
    if check and workers > 1:
        owned = {key.split("/")[0] for _, keys, _ in runnable for key in keys}
        stray = sorted(name for name in before.keys() | after_all.keys()
                       if before.get(name) != after_all.get(name) and name.split("/")[0] not in owned)
        if stray:
            print(f"problem: files changed in --check mode outside every script's models: {', '.join(stray)}", flush=True)
            failed = True
            failed_checks += 1
    # the scenario folders as the scripts left them must be usable
    for problem in discover(scenarios_root)[1]:
        print(f"problem: {problem}", flush=True)
        failed = True
        failed_checks += 1
    print(f"reference checks: {passed_checks} passed, {failed_checks} failed", flush=True)
    print(f"references: {len(scripts)} script(s), {time.perf_counter() - started:.1f} s, "
          f"{'FAILED' if failed else 'ok'}", flush=True)
    return 1 if failed else 0
