"""From a runner's exit status and result file to a verdict (README.md, "Verdicts").

- exit 3 -> ``not_supported`` (never a failure);
- exit 4 -> ``rejected`` (the master could not load or instantiate the FMU);
- exit 0 -> ``passed`` if the result file has every signal, reaches the stop
  time, and every signal meets its bounds and FMPy's band and every analytic
  check holds; ``failed`` otherwise;
- anything else (another code, a signal, a timeout, a missing runner
  program) -> ``failed``.
"""

from __future__ import annotations

import math
import signal as signals_module

import numpy as np

from harness.metrics import compare_signal, relative_rms_percent, value_at, common_points
from harness.records import FAILED, NOT_SUPPORTED, PASSED, REJECTED
from harness.runners.common import EXIT_NOT_SUPPORTED, EXIT_OK, EXIT_REJECTED
from harness.scenario import Scenario
from harness.tables import Table, read_table


def exit_description(code: int | None) -> str:
    if code is None:
        return "did not finish"
    if code < 0:
        try:
            return f"crashed with signal {signals_module.Signals(-code).name}"
        except ValueError:
            return f"crashed with signal {-code}"
    return f"exit code {code}"


def analytic_checks(scenario: Scenario, table: Table) -> list[dict]:
    """The scenario's analytic values checked on a trace (result or reference)."""
    checks = []
    for check in scenario.analytic:
        computed = value_at(table.time, table.column(check.signal), check.time) if table.has(check.signal) else math.nan
        error = abs(computed - check.value)
        checks.append({
            "describe": check.describe(),
            "signal": check.signal,
            "time": check.time,
            "value": check.value,
            "computed": computed,
            "error": error,
            "tolerance": check.tolerance(),
            "passed": bool(error <= check.tolerance()),
        })
    return checks


def evaluate_result(scenario: Scenario, result_path, step: float) -> tuple[list[str], list[dict], list[dict]]:
    """Problems, per-signal figures and analytic checks of a result file."""
    try:
        result = read_table(result_path)
    except (OSError, ValueError) as err:
        return [f"result file unreadable: {err}"], [], []
    reference = scenario.reference()
    problems = []
    if not result.columns or result.columns[0].lower() != "time":
        return [f"result file's first column is {result.columns[:1]}, not time"], [], []
    if len(result.time) == 0:
        return ["result file has no rows"], [], []
    if np.any(np.diff(result.time) <= 0):
        problems.append("result times are not strictly increasing")
    stop = scenario.options.stop_time
    if result.time[-1] < stop - 1e-6 * step:
        problems.append(f"result ends at t = {result.time[-1]:g} s before the stop time {stop:g} s")
    figures = []
    for name, bounds in scenario.signals.items():
        if not result.has(name):
            problems.append(f"signal {name} missing from the result")
            continue
        if not reference.has(name):
            problems.append(f"signal {name} missing from the reference {scenario.reference_file.name}")
            continue
        metrics = compare_signal(
            name, result.time, result.column(name), reference.time, reference.column(name),
            bounds.rel_rms_percent, bounds.max_abs, bounds.band_outside_percent,
        )
        problems += metrics.problems
        figures.append(metrics.to_json())
    analytic = analytic_checks(scenario, result)
    problems += [f"analytic {c['describe']}: got {c['computed']:.12g}" for c in analytic if not c["passed"]]
    return problems, figures, analytic


def run_verdict(scenario: Scenario, exit_code: int | None, result_path, step: float, log_tail: str,
                missing_program: str | None = None, timed_out: float | None = None) -> dict:
    """The verdict, reasons and figures of one run."""
    if missing_program:
        return {"verdict": FAILED, "reasons": [missing_program], "signals": [], "analytic": []}
    if timed_out is not None:
        return {"verdict": FAILED, "reasons": [f"timed out after {timed_out:g} s"], "signals": [], "analytic": []}
    if exit_code == EXIT_NOT_SUPPORTED:
        return {"verdict": NOT_SUPPORTED, "reasons": [f"not supported by the master: {log_tail}"], "signals": [], "analytic": []}
    if exit_code == EXIT_REJECTED:
        return {"verdict": REJECTED, "reasons": [f"the master rejected the FMU: {log_tail}"], "signals": [], "analytic": []}
    problems, figures, analytic = ([], [], [])
    if result_path.is_file():
        problems, figures, analytic = evaluate_result(scenario, result_path, step)
    elif exit_code == EXIT_OK:
        problems = ["the runner exited 0 but wrote no result file"]
    if exit_code != EXIT_OK:
        return {"verdict": FAILED, "reasons": [f"runner {exit_description(exit_code)}: {log_tail}"],
                "signals": figures, "analytic": analytic}
    return {"verdict": PASSED if not problems else FAILED, "reasons": problems, "signals": figures, "analytic": analytic}


def reference_acceptance(scenario: Scenario) -> dict:
    """Checks of the reference trace itself.

    - the analytic values of ``scenario.json`` hold on the reference;
    - if the scenario names a ``crosscheck`` trace (the second, independent
      solver's result), the reference is accepted only when the two agree
      within a tenth of each signal's bounds (relative RMS and max abs).
    """
    reasons, details = [], []
    reference = scenario.reference()
    for check in analytic_checks(scenario, reference):
        details.append(f"analytic {check['describe']}: reference has {check['computed']:.12g}"
                       f" -> {'ok' if check['passed'] else 'FAILED'}")
        if not check["passed"]:
            reasons.append(f"reference misses analytic {check['describe']}: {check['computed']:.12g}")
    if scenario.crosscheck_file is None:
        details.append("no cross-check trace named in scenario.json (crosscheck): solver agreement not checked here")
    elif not scenario.crosscheck_file.is_file():
        reasons.append(f"cross-check trace {scenario.crosscheck_file.name} missing")
    else:
        other = read_table(scenario.crosscheck_file)
        for name, bounds in scenario.signals.items():
            if not other.has(name):
                reasons.append(f"cross-check trace lacks {name}")
                continue
            i_other, i_ref = common_points(other.time, reference.time)
            diff = other.column(name)[i_other] - reference.column(name)[i_ref]
            rel = relative_rms_percent(diff, reference.column(name)[i_ref])
            mx = float(np.max(np.abs(diff))) if len(diff) else math.nan
            ok = rel <= 0.1 * bounds.rel_rms_percent and mx <= 0.1 * bounds.max_abs
            details.append(f"{name}: cross-check vs reference rel RMS {rel:.3g} % (limit {0.1 * bounds.rel_rms_percent:g} %),"
                           f" max abs {mx:.3g} (limit {0.1 * bounds.max_abs:g}) -> {'ok' if ok else 'FAILED'}")
            if not ok:
                reasons.append(f"{name}: the two reference solvers differ by more than a tenth of the bounds")
    return {"verdict": PASSED if not reasons else FAILED, "reasons": reasons, "details": details}
