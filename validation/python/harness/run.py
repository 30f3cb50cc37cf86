"""``harness run``: every scenario x FMI version x master x step size, each
run in its own process, plus the checkers per FMU and the checks of the
references; verdict files, then the report.

Output layout under ``--out`` (default ``target/validation``)::

    results/<Model>/<scenario>/fmi<2|3>/<master>/<step>/   one run
        passed|failed|rejected|not_supported, verdict.json, result.csv, runner.log
    checkers/fmi<2|3>/<Model>/<checker>/                   one checker call
        passed|failed, verdict.json, checker.log
    references/<Model>/<scenario>/                         the reference's own checks
        passed|failed, verdict.json
    run.json, report.md, report.html, plots/
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from harness import PYTHON_ROOT, REPO_ROOT
from harness.checkers import CHECKERS, Checker
from harness.evaluate import reference_acceptance, run_verdict
from harness.masters import Master
from harness.records import FAILED, FAILING, PASSED, VERDICTS, write_record
from harness.scenario import Scenario, ScenarioError

RESULT_FILE = "result.csv"
RUNNER_LOG = "runner.log"
CHECKER_LOG = "checker.log"
OUTCOME_WORDS = ("NOT SUPPORTED", "REJECTED", "FAILED", "Error", "error")


def step_label(step: float) -> str:
    """Folder name of a communication step: ``0.001``, ``0.01``, ``1e-05``."""
    return f"{step:g}"


@dataclass
class RunTask:
    scenario: Scenario
    fmi: int
    master: Master
    step: float
    fmu: Path
    folder: Path
    settings: dict = field(default_factory=dict)  # --set NAME=VALUE for the runner

    @property
    def label(self) -> str:
        return f"{self.scenario.key} fmi{self.fmi} {self.master.name} h={step_label(self.step)}"


@dataclass
class CheckTask:
    model: str
    fmi: int
    checker: Checker
    fmu: Path
    folder: Path

    @property
    def label(self) -> str:
        return f"{self.checker.name} {self.fmu}"


def runner_environment() -> dict:
    """The runners import ``harness``: put its folder on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_ROOT), env.get("PYTHONPATH", "")]))
    return env


def log_tail(log: Path) -> str:
    """The line of a runner's log that says what happened: the last one naming
    an outcome, else the last non-empty line."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "(no log)"
    if not lines:
        return "(empty log)"
    for line in reversed(lines):
        if any(word in line for word in OUTCOME_WORDS):
            return line[:400]
    return lines[-1][:400]


def fmu_path(dist: Path, model: str, fmi: int) -> Path:
    return dist / f"fmi{fmi}" / f"{model}.fmu"


FIXED_COST_FILE = "fixed_cost.json"


def load_fixed_cost_table(scenarios_root: Path) -> dict:
    """The fixed-cost mode's substeps per communication step, by scenario key
    and step folder name (``validation/scenarios/fixed_cost.json``:
    ``{"substeps": {"ValveCylinder/random": {"0.001": 3, ...}}}``); raises
    ``ScenarioError`` when the file is missing or malformed."""
    path = Path(scenarios_root) / FIXED_COST_FILE
    try:
        table = json.loads(path.read_text())["substeps"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise ScenarioError(f"{path}: unusable for the fixed-cost mode ({err})") from None
    if not isinstance(table, dict):
        raise ScenarioError(f"{path}: 'substeps' must map scenario keys to {{step: count}}")
    return table


# The stepping-ahead mode: the Rosenbrock-W integrator that steps past
# communication points and interpolates (solver = 6), at the FMUs' default
# tolerances (rtol = atol = 1e-6; looser ones are a speed choice whose
# accuracy bench-realtime reports against the same bounds).
AHEAD_SETTINGS = {"solver": 6}


def mode_settings(scenario: Scenario, step: float, fixed_cost: dict | None, ahead: bool = False) -> dict:
    """The solver parameters a run sets: none for the FMU's default
    integrator (``fixed_cost`` None, not ``ahead``); ``AHEAD_SETTINGS`` for
    the stepping-ahead mode; else the fixed-cost integrator (solver = 5) with
    the substeps per communication step the table names for this scenario and
    step (for a twin scenario not named there, its twin's). Raises
    ``ScenarioError`` when it names none."""
    if ahead:
        return dict(AHEAD_SETTINGS)
    if fixed_cost is None:
        return {}
    substeps = fixed_cost.get(scenario.key, {}).get(step_label(step))
    if substeps is None and scenario.twin_of:
        # a twin scenario integrates the same equations as its twin: the
        # twin's count, unless the table names one of its own
        substeps = fixed_cost.get(scenario.twin_of, {}).get(step_label(step))
    if not isinstance(substeps, int) or isinstance(substeps, bool) or substeps < 1:
        raise ScenarioError(f"{scenario.key}: {FIXED_COST_FILE} names no substep count >= 1 for step "
                            f"{step_label(step)} (the fixed-cost mode needs one per scenario and step)")
    return {"solver": 5, "fixed_substeps": substeps}


def awaiting_fmus(scenarios: list[Scenario], versions: list[int], dist: Path) -> dict[tuple[str, int], str]:
    """The (scenario key, FMI version) pairs whose FMU is missing although
    the scenario says it is built from a description file (``built_from``):
    the engine that packs described circuits may not be built yet. Each
    with the line that says so and how to build it."""
    waiting = {}
    for scenario in scenarios:
        if not scenario.built_from:
            continue
        for fmi in versions:
            path = fmu_path(dist, scenario.model, fmi)
            if not path.is_file():
                waiting[(scenario.key, fmi)] = (
                    f"skipped {scenario.key} FMI {fmi}: {path} is not built yet; the circuit exists only as the "
                    f"description {scenario.built_from}, packed as an FMU by "
                    f"`cargo run --release -p build-fmu -- --circuit {scenario.built_from}`")
    return waiting


def plan_runs(scenarios: list[Scenario], masters: list[Master], versions: list[int], dist: Path, out: Path,
              fixed_cost: dict | None = None, ahead: bool = False,
              skip: dict[tuple[str, int], str] | None = None) -> list[RunTask]:
    tasks = []
    for scenario in scenarios:
        for fmi in versions:
            if skip and (scenario.key, fmi) in skip:
                continue
            for master in masters:
                if scenario.co_simulation_only and master.model_exchange:
                    continue
                for step in scenario.step_sizes:
                    folder = out / "results" / scenario.model / scenario.name / f"fmi{fmi}" / master.name / step_label(step)
                    tasks.append(RunTask(scenario, fmi, master, step, fmu_path(dist, scenario.model, fmi), folder,
                                         mode_settings(scenario, step, fixed_cost, ahead)))
    return tasks


def plan_checks(models: list[str], versions: list[int], dist: Path, out: Path, every_fmu: bool,
                skip_models: set[tuple[str, int]] | None = None) -> list[CheckTask]:
    """Checker calls for the models with scenarios and, with ``every_fmu``,
    for every other ``<Model>.fmu`` in the dist folders too; not for the
    (model, version) pairs in ``skip_models`` (FMUs of described circuits
    not built yet)."""
    tasks = []
    for fmi in versions:
        names = {m for m in models if (m, fmi) not in (skip_models or set())}
        if every_fmu:
            names |= {path.stem for path in (dist / f"fmi{fmi}").glob("*.fmu")}
        for model in sorted(names):
            for checker in CHECKERS:
                folder = out / "checkers" / f"fmi{fmi}" / model / checker.name
                tasks.append(CheckTask(model, fmi, checker, fmu_path(dist, model, fmi), folder))
    return tasks


def execute_run(task: RunTask, timeout: float) -> dict:
    task.folder.mkdir(parents=True, exist_ok=True)
    result, log = task.folder / RESULT_FILE, task.folder / RUNNER_LOG
    for stale in (result, log):
        stale.unlink(missing_ok=True)
    command = task.master.command + [
        "--fmu", str(task.fmu), "--scenario", str(task.scenario.folder), "--step", repr(task.step),
        "--out", str(result), "--fmi-version", str(task.fmi),
    ]
    for name, value in task.settings.items():
        command += ["--set", f"{name}={value}"]
    record = {
        "kind": "run", "model": task.scenario.model, "scenario": task.scenario.name,
        "scenario_dir": str(task.scenario.folder), "fmi": task.fmi, "master": task.master.name,
        "step": task.step, "fmu": str(task.fmu), "command": command, "exit_code": None, "wall_time": 0.0,
        "result_file": RESULT_FILE, "log_file": RUNNER_LOG,
    }
    missing = task.master.missing_program()
    if missing is None and not task.fmu.is_file():
        missing = f"FMU missing: {task.fmu} (build it: cargo run --release -p build-fmu)"
    timed_out = None
    if missing is None:
        started = time.perf_counter()
        with open(log, "w") as handle:
            handle.write("$ " + " ".join(command) + "\n")
            handle.flush()
            try:
                completed = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           env=runner_environment(), cwd=REPO_ROOT, timeout=timeout)
                record["exit_code"] = completed.returncode
            except subprocess.TimeoutExpired:
                timed_out = timeout
            except OSError as err:
                missing = f"cannot start the runner: {err}"
        record["wall_time"] = time.perf_counter() - started
    record.update(run_verdict(task.scenario, record["exit_code"], result, task.step, log_tail(log),
                              missing_program=missing, timed_out=timed_out))
    write_record(task.folder, record)
    return record


def execute_check(task: CheckTask, timeout: float) -> dict:
    task.folder.mkdir(parents=True, exist_ok=True)
    log = task.folder / CHECKER_LOG
    command = task.checker.command(task.fmu)
    record = {"kind": "checker", "model": task.model, "fmi": task.fmi, "checker": task.checker.name,
              "fmu": str(task.fmu), "command": command, "exit_code": None, "wall_time": 0.0, "log_file": CHECKER_LOG}
    problems = []
    missing = task.checker.missing_program()
    if missing is None and not task.fmu.is_file():
        missing = f"FMU missing: {task.fmu}"
    if missing:
        problems = [missing]
    else:
        started = time.perf_counter()
        try:
            completed = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                       cwd=REPO_ROOT, timeout=timeout)
            output = completed.stdout + completed.stderr
            record["exit_code"] = completed.returncode
            problems = task.checker.problems(completed.returncode, output)
        except subprocess.TimeoutExpired:
            output, problems = "", [f"timed out after {timeout:g} s"]
        record["wall_time"] = time.perf_counter() - started
        log.write_text("$ " + " ".join(command) + "\n" + output)
    record.update({"verdict": PASSED if not problems else FAILED, "reasons": problems})
    write_record(task.folder, record)
    return record


def check_references(scenarios: list[Scenario], out: Path) -> list[dict]:
    records = []
    for scenario in scenarios:
        record = {"kind": "reference", "model": scenario.model, "scenario": scenario.name,
                  "scenario_dir": str(scenario.folder), "generated_by": scenario.generated_by}
        try:
            record.update(reference_acceptance(scenario))
        except (OSError, ValueError) as err:
            record.update({"verdict": FAILED, "reasons": [f"reference unreadable: {err}"], "details": []})
        write_record(out / "references" / scenario.model / scenario.name, record)
        records.append(record)
    return records


def clear_outputs(out: Path) -> None:
    """Remove the verdicts, plots and reports of an earlier run."""
    for name in ("results", "checkers", "references", "plots"):
        shutil.rmtree(out / name, ignore_errors=True)
    for name in ("report.md", "report.html", "run.json"):
        (out / name).unlink(missing_ok=True)


def progress(done: int, total: int, record: dict, label: str) -> None:
    detail = ""
    if record["verdict"] != PASSED and record.get("reasons"):
        detail = f" - {record['reasons'][0]}"
        if len(detail) > 200:
            detail = detail[:197] + "..."
    elif record.get("signals"):
        worst = max(record["signals"], key=lambda s: s["rel_rms_percent"] / s["bound_rel_rms_percent"])
        detail = f" - worst {worst['signal']}: rel RMS {worst['rel_rms_percent']:.3g} % of {worst['bound_rel_rms_percent']:g} %"
    print(f"[{done:>3}/{total}] {record['verdict']:<13} {label} ({record.get('wall_time', 0.0):.1f} s){detail}", flush=True)


def run_all(scenarios: list[Scenario], masters: list[Master], versions: list[int], dist: Path, out: Path,
            jobs: int, timeout: float, problems: list[str], checkers: bool = True, every_fmu: bool = True,
            fixed_cost: dict | None = None, ahead: bool = False) -> dict:
    """Run everything; ``fixed_cost`` (see :func:`load_fixed_cost_table`)
    runs the fixed-cost integrator instead of the default one, ``ahead`` the
    stepping-ahead one (``AHEAD_SETTINGS``). Return the summary written to
    ``run.json``."""
    mode = "ahead" if ahead else "adaptive" if fixed_cost is None else "fixed"
    started_wall = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clear_outputs(out)
    out.mkdir(parents=True, exist_ok=True)
    waiting = awaiting_fmus(scenarios, versions, dist)
    for line in waiting.values():
        print(line, flush=True)
    runnable, unbuilt = [], []
    for scenario in scenarios:
        if all((scenario.key, fmi) in waiting for fmi in versions):
            unbuilt.append(scenario)
            continue
        if mode not in scenario.solver_modes:
            print(f"not in this mode: {scenario.key} (its parameters choose the integrator; it runs in the "
                  f"{', '.join(scenario.solver_modes)} mode)", flush=True)
            continue
        try:
            for step in scenario.step_sizes:
                mode_settings(scenario, step, fixed_cost, ahead)
            runnable.append(scenario)
        except ScenarioError as err:
            problems = problems + [str(err)]
    scenarios = runnable
    runs = plan_runs(scenarios, masters, versions, dist, out, fixed_cost, ahead, waiting)
    models = sorted({s.model for s in scenarios})
    skip_models = {(key.split("/")[0], fmi) for key, fmi in waiting}
    checks = plan_checks(models, versions, dist, out, every_fmu, skip_models) if checkers else []
    total = len(runs) + len(checks)
    print(f"validation ({mode} solver): {len(scenarios)} scenario(s) of {len(models)} model(s), FMI {versions}, masters "
          f"{[m.name for m in masters]}: {len(runs)} runs + {len(checks)} checker calls, {jobs} at a time", flush=True)
    for problem in problems:
        print(f"scenario problem: {problem}", flush=True)

    # a described circuit's reference is checked before its FMU exists
    references = check_references(scenarios + unbuilt, out)
    for record in references:
        print(f"[ref] {record['verdict']:<13} {record['model']}/{record['scenario']} reference"
              + (f" - {record['reasons'][0]}" if record["reasons"] else ""), flush=True)

    records = []
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(execute_run, task, timeout): task for task in runs}
        futures.update({pool.submit(execute_check, task, timeout): task for task in checks})
        for future in as_completed(futures):
            record = future.result()
            records.append(record)
            done += 1
            progress(done, total, record, futures[future].label)

    counts = {verdict: 0 for verdict in VERDICTS}
    for record in records + references:
        counts[record["verdict"]] += 1
    failing = sum(counts[v] for v in FAILING) + len(problems)
    summary = {
        "started_at": started_at,
        "wall_time": time.perf_counter() - started_wall,
        "dist": str(dist),
        "out": str(out),
        "fmi_versions": versions,
        "masters": [{"name": m.name, "command": m.command} for m in masters],
        "scenarios": [s.key for s in scenarios],
        "scenario_problems": problems,
        "awaiting_fmu": sorted(set(waiting.values())),
        "jobs": jobs,
        "solver_mode": mode,
        "counts": counts,
        "failing": failing,
    }
    (out / "run.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
