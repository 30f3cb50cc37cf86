"""What the references of described circuits (circuits that exist only as a
description file, run by the engine FMU) share: the piecewise integration
of a right-hand side under piecewise-constant inputs by SciPy Radau and by
SUNDIALS CVODE, the comparison of the two, the bounds of the harness's
signals, and the scenario folder (FMI Cross-Check layout, ``scenario.json``
with ``built_from``: the harness skips the scenario with a message while
the FMU built from that file is missing).

A script gives a model object with ``initial_state()``, ``rhs(t, y, u)``
(``u`` the input vector) and ``outputs(y, u)`` (a dict of the description's
outputs, SI), and its scenarios as input tables. The scripts import it as a
sibling module, like ``reference_common``.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
from reference_common import csv_text
from scipy.integrate import solve_ivp

RADAU_RTOL = 1e-10
CVODE_RTOL = 1e-10
# The looser run that stands in for an FMU integrating at the tolerance of
# the .opt file: the bounds admit ten times its error (see bounds()).
PROXY_RTOL = 1e-6
OPT_REL_TOL = 1e-6
GRID = 1e-3  # s, output grid of the reference traces and the .opt StepSize
AGREEMENT_FRACTION = 0.1  # CVODE must agree with Radau within this fraction of each bound


@dataclass
class Trace:
    """Outputs (by name, SI) on the output grid, with the solver's figures."""

    t: np.ndarray
    y: np.ndarray  # states, rows x states
    signals: dict[str, np.ndarray] = field(default_factory=dict)
    wall: float = 0.0
    stats: str = ""


def output_times(stop: float) -> np.ndarray:
    n = int(round(stop / GRID))
    return np.arange(n + 1) / round(1.0 / GRID)


def pieces(rows: list[tuple[float, tuple]], stop: float) -> list[tuple[float, float, tuple]]:
    """The intervals on which the inputs are constant: ``rows`` is a list of
    (time, input values) where each row holds from its time on."""
    out = []
    for k, (t0, u) in enumerate(rows):
        t1 = rows[k + 1][0] if k + 1 < len(rows) else stop
        if t1 > t0:
            out.append((t0, min(t1, stop), u))
    return out


def integrate(model, rows, stop: float, backend: str, rtol: float, atol: np.ndarray,
              max_step: float = np.inf) -> Trace:
    """Integrate from the model's initial state over [0, stop], restarting
    at every input change; the states on the output grid."""
    t_out = output_times(stop)
    y = np.asarray(model.initial_state(), dtype=float)
    ys = np.full((len(t_out), len(y)), np.nan)
    started = time.perf_counter()
    nfev = nsteps = 0
    for t0, t1, u in pieces(rows, stop):
        u = np.asarray(u, dtype=float)
        last = t1 >= stop
        inside = np.nonzero((t_out >= t0 - 1e-12) & ((t_out < t1 - 1e-12) | (last & (t_out <= t1 + 1e-12))))[0]
        if backend == "radau":
            sol = solve_ivp(lambda t, x: model.rhs(t, x, u), (t0, t1), y, method="Radau", rtol=rtol, atol=atol,
                            dense_output=True, max_step=max_step)
            if not sol.success:
                raise RuntimeError(f"Radau failed on [{t0}, {t1}]: {sol.message}")
            ys[inside] = sol.sol(t_out[inside]).T
            if len(inside) and abs(t_out[inside[0]] - t0) < 1e-12:
                ys[inside[0]] = y
            if last and len(inside) and abs(t_out[inside[-1]] - t1) < 1e-12:
                ys[inside[-1]] = sol.y[:, -1]
            y = sol.y[:, -1]
            nfev += sol.nfev
            nsteps += len(sol.t) - 1
        else:
            from sksundae.cvode import CVODE

            def make_rhs(u):
                def rhs(t, x, xdot):
                    xdot[:] = model.rhs(t, x, u)
                return rhs

            rhs = make_rhs(u)

            solver = CVODE(rhs, method="BDF", rtol=rtol, atol=atol, max_num_steps=10_000_000,
                           max_step=0.0 if not np.isfinite(max_step) else max_step)
            times = np.unique(np.concatenate(([t0], t_out[inside], [t1])))
            sol = solver.solve(times, y)
            if not sol.success:
                raise RuntimeError(f"CVODE failed on [{t0}, {t1}]: {sol.message}")
            values = dict(zip(np.round(np.asarray(sol.t) / GRID * 1e6).astype(np.int64), np.asarray(sol.y)))
            for i in inside:
                ys[i] = values[int(round(t_out[i] / GRID * 1e6))]
            y = np.asarray(sol.y)[-1]
            nfev += int(sol.nfev)
            nsteps = -1  # CVODE's result does not report its steps
    wall = time.perf_counter() - started
    if np.isnan(ys).any():
        raise RuntimeError(f"{backend}: output grid not covered")
    steps = f", {nsteps} steps" if nsteps >= 0 else ""
    return Trace(t_out, ys, wall=wall, stats=f"{nfev} evaluations{steps}")


def with_signals(model, trace: Trace, rows, stop: float) -> Trace:
    """The description's outputs along a trace (inputs as they hold at each
    output time: the row in force from that time on)."""
    times = [r[0] for r in rows]
    names = None
    columns: dict[str, list[float]] = {}
    for t, y in zip(trace.t, trace.y):
        k = max(i for i, t0 in enumerate(times) if t0 <= t + 1e-12)
        out = model.outputs(y, np.asarray(rows[k][1], dtype=float))
        if names is None:
            names = list(out)
            columns = {n: [] for n in names}
        for n in names:
            columns[n].append(out[n])
    trace.signals = {n: np.array(v) for n, v in columns.items()}
    return trace


def relative_rms_percent(a: np.ndarray, ref: np.ndarray) -> float:
    return 100.0 * float(np.sqrt(np.mean((a - ref) ** 2)) / max(np.mean(np.abs(ref)), 1e-300))


def bounds(ref: dict, proxy: dict, floors: dict[str, float]) -> tuple[dict, dict]:
    """Per signal: relative RMS bound = the larger of the floor (the
    project's target for that kind of signal) and ten times the error of
    the rtol 1e-6 proxy run, rounded up to two significant digits; max_abs
    = the larger of 5 % of the signal's range and ten times the proxy's
    largest error, two significant digits. Also the proxy's figures."""
    out, seen = {}, {}
    for name, floor in floors.items():
        r, p = ref[name], proxy[name]
        rel = relative_rms_percent(p, r)
        mx = float(np.max(np.abs(p - r)))
        seen[name] = (rel, mx)
        rel_bound = max(floor, float(f"{10.0 * rel:.2g}") * 1.0000001)
        rel_bound = float(f"{math.ceil(rel_bound * 100) / 100:.3g}") if rel_bound < 10 else float(f"{rel_bound:.2g}")
        span = float(np.max(r) - np.min(r))
        max_abs = float(f"{max(0.05 * span, 10.0 * mx, 1e-12):.2g}")
        out[name] = {"rel_rms_percent": rel_bound, "max_abs": max_abs}
    return out, seen


def agreement(checks, label: str, a: dict, ref: dict, signal_bounds: dict) -> bool:
    """CVODE (``a``) against Radau (``ref``): within AGREEMENT_FRACTION of
    each signal's bounds, relative RMS and largest difference."""
    ok_all = True
    for name, b in signal_bounds.items():
        rel = relative_rms_percent(a[name], ref[name])
        mx = float(np.max(np.abs(a[name] - ref[name])))
        ok = rel <= AGREEMENT_FRACTION * b["rel_rms_percent"] and mx <= AGREEMENT_FRACTION * b["max_abs"]
        ok_all &= checks.add(f"{label}: CVODE vs Radau {name}", ok,
                             f"rel RMS {rel:.2e} % (limit {AGREEMENT_FRACTION * b['rel_rms_percent']:.3g} %), "
                             f"max |diff| {mx:.3g} (limit {AGREEMENT_FRACTION * b['max_abs']:.3g})", trace=True)
    return ok_all


def input_table(rows, stop: float, names: list[str]) -> tuple[list[str], list[np.ndarray]]:
    """The ``_in.csv`` columns: a row at every change (twice: old and new
    value at the same time, the later row wins) and at the stop time."""
    t, cols = [], [[] for _ in names]
    for k, (t0, u) in enumerate(rows):
        if k > 0:
            t.append(t0)
            for c, v in zip(cols, rows[k - 1][1]):
                c.append(v)
        t.append(t0)
        for c, v in zip(cols, u):
            c.append(v)
    t.append(stop)
    for c, v in zip(cols, rows[-1][1]):
        c.append(v)
    return ["time", *names], [np.array(t), *(np.array(c, dtype=float) for c in cols)]


def opt_text(stop: float) -> str:
    return f"StartTime, 0.0\nStopTime, {stop!r}\nStepSize, {GRID!r}\nRelTol, {OPT_REL_TOL!r}\n"


def scenario_files(model: str, scenario: str, description: str, built_from: str, script: str, notes: str,
                   rows, stop: float, input_names: list[str], ref: Trace, cvode: Trace | None,
                   signal_bounds: dict, analytic: list, note: str) -> dict[str, str]:
    header, cols = input_table(rows, stop, input_names)
    names = list(ref.signals)
    doc = {
        "model": model,
        "scenario": scenario,
        "description": description,
        "model_description": built_from,
        "built_from": built_from,
        "generated_by": script,
        "notes": notes,
        "interpolation": "step",
        "step_sizes": [0.001, 0.01],
        "parameters": {},
        "inputs": f"{model}_in.csv",
        "reference": f"{model}_ref.csv",
        "options": f"{model}_ref.opt",
        "signals": signal_bounds,
        "note": note,
        "analytic": analytic,
    }
    files = {
        f"{model}_in.csv": csv_text(header, cols),
        f"{model}_ref.csv": csv_text(["time", *names], [ref.t, *(ref.signals[n] for n in names)]),
        f"{model}_ref.opt": opt_text(stop),
    }
    if cvode is not None:
        doc["crosscheck"] = f"{model}_ref_cvode.csv"
        files[f"{model}_ref_cvode.csv"] = csv_text(["time", *names], [cvode.t, *(cvode.signals[n] for n in names)])
    files["scenario.json"] = json.dumps(doc, indent=2) + "\n"
    return files
