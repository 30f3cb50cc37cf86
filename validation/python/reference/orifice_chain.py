#!/usr/bin/env python3
"""Independent reference solution of the OrificeChain model.

The equations E1-E5 of the model description ``components/circuits/orifice-circuit/MODEL.md``
(its numbers "the published numbers" below) are written out here
as plain functions (SI units throughout) and solved with SciPy ``Radau``
(rtol 1e-10, analytic Jacobian). The trace is cross-checked against SUNDIALS
CVODE (BDF, via scikit-sundae) and against a Radau run at rtol 1e-12, and the
analytic numbers of the model description (steady state, transient values,
eigenvalues, stable explicit step sizes) are recomputed and compared with it.

Per scenario it writes, in the FMI Cross-Check layout,
``validation/scenarios/OrificeChain/<scenario>/``:
``OrificeChain_in.csv``, ``OrificeChain_ref.csv``, ``OrificeChain_ref.opt``
and ``scenario.json``. With ``--check`` nothing is written: the files are
recomputed and compared with the ones on disk (and the script says which
changed). A scenario's files are not written if its trace fails a
solver-accuracy check (steady state, rtol refinement, dense output, CVODE).

Exit status: 0 when every check passes (and, with ``--check``, the committed
files match), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import element_laws
from element_laws import orifice_coefficient, orifice_law, orifice_law_slope  # E1, E2
from reference_common import (SURROGATE_KINDS, Checks, add_check_arguments, agrees_to_published, csv_text,
                              surrogate_scenario_files, write_or_compare)
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

MODEL = "OrificeChain"

# Parameters of the model description (its parameter table), SI units.
MODEL_PARAMETERS = {
    "Cd": 0.6,  # 1, discharge coefficient
    "rho": 900.0,  # kg/m3, oil density
    "d1": 1e-3,  # m, diameter of orifice 1
    "d2": 1e-3,  # m, diameter of orifice 2
    "d3": 1e-3,  # m, diameter of orifice 3
    "V1": 1e-3,  # m3, large volume (between orifices 1 and 2)
    "V2": 1e-5,  # m3, small volume (between orifices 2 and 3)
    "Emax": 1.8e9,  # Pa, maximum bulk modulus of the oil
    "pmax": 2.8e7,  # Pa, maximum system pressure
    "a1": 0.5,  # 1, bulk-modulus law constant
    "a2": 90.0,  # 1, bulk-modulus law constant
    "a3": 3.0,  # 1, bulk-modulus law constant
    "p1_0": 0.0,  # Pa, initial pressure in V1
    "p2_0": 0.0,  # Pa, initial pressure in V2
    "p_tr": 1e4,  # Pa, transition pressure of the regularised orifice law
    "bulk_log_natural": False,  # Boolean: ln instead of log10 in E4
}

# Start values of the inputs (model description), Pa.
MODEL_INPUTS = {"ps": 1e7, "pt": 0.0}

# Reference grid and solver settings.
START_TIME = 0.0  # s
STOP_TIME = 5.0  # s
STEP_SIZE = 1e-3  # s, output (communication) step
OPT_REL_TOL = 1e-6  # tolerance written to the .opt file for the masters
RADAU_RTOL = 1e-10
RADAU_ATOL = 1e-6  # Pa
REFINED_RTOL = 1e-12
REFINED_ATOL = 1e-8  # Pa
CVODE_RTOL = 1e-10
CVODE_ATOL = 1e-6  # Pa

# Acceptance limits of the cross-checks.
REFINEMENT_LIMIT = 1e-8  # max |Radau(1e-10) - Radau(1e-12)| / mean |p|
DENSE_OUTPUT_LIMIT = 1e-8  # max |t_eval value - step end value| / |p|
CVODE_LIMIT = 1e-7  # RMS(Radau - CVODE) / mean |signal|
STEADY_STATE_LIMIT = 1e-6  # relative error of the analytic steady state at t = 5 s

SIGNALS = ("p1", "p2", "Q1", "Q2", "Q3")

SCENARIOS = {
    "startup": {
        "description": "Start-up from p1 = p2 = 0 with ps = 10 MPa, pt = 0, default parameters "
        "(log10 bulk modulus).",
        "parameters": {"bulk_log_natural": False, "p1_0": 0.0, "p2_0": 0.0},
    },
    "startup_ln": {
        "description": "Start-up from p1 = p2 = 0 with ps = 10 MPa, pt = 0, default parameters "
        "except bulk_log_natural = true (ln in E4, the paper's MATLAB log).",
        "parameters": {"bulk_log_natural": True, "p1_0": 0.0, "p2_0": 0.0},
    },
}

# The published numbers (MODEL.md, "Numbers the implementation reproduces"),
# written as MODEL.md writes them: the digits given set the tolerance, see
# agrees_to_published().
PUBLISHED_NUMBERS = {
    "Q_steady": "4.055e-5",  # m3/s
    "p1_0.1s": "3.385e6",  # Pa, log10
    "p2_0.1s": "1.682e6",  # Pa, log10
    "eig_startup": "-2.4e4",  # 1/s, log10
    "eig_startup_ptr1e5": "-7.5e3",  # 1/s, log10, p_tr = 1e5 Pa
    "eig_steady_fast": "-1.25e3",  # 1/s, log10
    "eig_steady_slow": "-11",  # 1/s, log10
    "euler_step_log10": "1.60e-3",  # s
    # Values of 2.18e-3 s and 0.95e-3 s for RK4 circulate; RK4's stability interval
    # on the negative real axis ends at -2.7853, which with the steady-state
    # eigenvalues gives 2.23e-3 s and 0.97e-3 s, and stepping the full model at
    # 0.99 / 1.01 of those limits confirms them (below). The corrected values
    # are checked here (and stated by MODEL.md); PUBLISHED_ERRATA keeps the others.
    "rk4_step_log10": "2.23e-3",  # s
    "euler_step_ln": "0.69e-3",  # s
    "rk4_step_ln": "0.97e-3",  # s
}

# Numbers stated for this circuit elsewhere that its equations do not
# reproduce, with the value this script checks instead (see PUBLISHED_NUMBERS) and why.
PUBLISHED_ERRATA = {
    "rk4_step_log10": ("2.18e-3", "RK4 stability boundary -2.7853 / -1249.11 1/s = 2.2298e-3 s"),
    "rk4_step_ln": ("0.95e-3", "RK4 stability boundary -2.7853 / -2876.18 1/s = 0.9684e-3 s"),
}


# --------------------------------------------------------------------------
# Model equations (MODEL.md E1-E5), scalar, SI units
# --------------------------------------------------------------------------


def orifice_coefficients(par: dict) -> tuple[float, float, float]:
    """(E1) for the three orifices, m3/(s*Pa^0.5)."""
    return tuple(orifice_coefficient(par["Cd"], par["rho"], par[d]) for d in ("d1", "d2", "d3"))


def flows(p1: float, p2: float, ps: float, pt: float, par: dict) -> tuple[float, float, float]:
    """(E3) Q1 = K1 f(ps - p1), Q2 = K2 f(p1 - p2), Q3 = K3 f(p2 - pt), m3/s."""
    k1, k2, k3 = orifice_coefficients(par)
    p_tr = par["p_tr"]
    return (
        k1 * orifice_law(ps - p1, p_tr),
        k2 * orifice_law(p1 - p2, p_tr),
        k3 * orifice_law(p2 - pt, p_tr),
    )


def bulk_modulus(p: float, par: dict) -> float:
    """(E4) B(p) = a1 Emax log10(a2 max(p,0)/pmax + a3) (ln if bulk_log_natural), Pa."""
    return element_laws.bulk_modulus(p, par["a1"], par["Emax"], par["a2"], par["pmax"], par["a3"],
                                     par["bulk_log_natural"])


def bulk_modulus_slope(p: float, par: dict) -> float:
    """dB/dp of (E4), 1. Zero for p < 0 (max(p, 0)); at p = 0 the right-hand
    derivative (the branch p >= 0), which gives the model description's start-up Jacobian."""
    return element_laws.bulk_modulus_slope(p, par["a1"], par["Emax"], par["a2"], par["pmax"], par["a3"],
                                           par["bulk_log_natural"])


def rhs(t: float, y, par: dict, ps: float, pt: float) -> np.ndarray:
    """(E5) dp1/dt = B(p1)/V1 (Q1 - Q2), dp2/dt = B(p2)/V2 (Q2 - Q3), Pa/s."""
    p1, p2 = float(y[0]), float(y[1])
    q1, q2, q3 = flows(p1, p2, ps, pt, par)  # (E3)
    return np.array(
        [
            bulk_modulus(p1, par) / par["V1"] * (q1 - q2),  # (E4), (E5)
            bulk_modulus(p2, par) / par["V2"] * (q2 - q3),
        ]
    )


def jacobian(t: float, y, par: dict, ps: float, pt: float) -> np.ndarray:
    """Analytic Jacobian d(E5)/d(p1, p2), 1/s (chain rule through E2-E4)."""
    p1, p2 = float(y[0]), float(y[1])
    k1, k2, k3 = orifice_coefficients(par)
    p_tr = par["p_tr"]
    q1, q2, q3 = flows(p1, p2, ps, pt, par)
    g1 = k1 * orifice_law_slope(ps - p1, p_tr)  # -dQ1/dp1
    g2 = k2 * orifice_law_slope(p1 - p2, p_tr)  # dQ2/dp1 = -dQ2/dp2
    g3 = k3 * orifice_law_slope(p2 - pt, p_tr)  # dQ3/dp2
    c1 = bulk_modulus(p1, par) / par["V1"]
    c2 = bulk_modulus(p2, par) / par["V2"]
    return np.array(
        [
            [
                bulk_modulus_slope(p1, par) / par["V1"] * (q1 - q2) - c1 * (g1 + g2),
                c1 * g2,
            ],
            [
                c2 * g2,
                bulk_modulus_slope(p2, par) / par["V2"] * (q2 - q3) - c2 * (g2 + g3),
            ],
        ]
    )


def steady_state(par: dict, ps: float, pt: float) -> tuple[float, float, float]:
    """Analytic steady state for identical orifices: p1, p2 (Pa), Q (m3/s)."""
    k = orifice_coefficient(par["Cd"], par["rho"], par["d1"])
    dp = (ps - pt) / 3.0
    return pt + 2.0 * dp, pt + dp, k * orifice_law(dp, par["p_tr"])


# --------------------------------------------------------------------------
# Numerical analysis helpers
# --------------------------------------------------------------------------


# Explicit Runge-Kutta methods by the coefficients of their stability
# polynomial R(z) = sum c_k z^k (both have as many stages as order, so R is
# the Taylor polynomial of exp(z)).
EXPLICIT_METHODS = {
    "Euler": (1.0, 1.0),
    "RK4": (1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0),
}


def amplification(method: str, z: complex) -> complex:
    """Stability function R(z) of an explicit method (z = h * lambda)."""
    return sum(c * z**k for k, c in enumerate(EXPLICIT_METHODS[method]))


def stability_boundary(method: str, direction: complex) -> float:
    """Largest x > 0 with |R(x * direction)| <= 1 on (0, x] (|direction| = 1)."""
    g = lambda x: abs(amplification(method, x * direction)) - 1.0  # noqa: E731
    x, dx = 1e-6, 1e-3
    while g(x + dx) <= 0.0:
        x += dx
        if x > 100.0:
            return math.inf
    return brentq(g, x, x + dx, xtol=1e-15, rtol=1e-15)


def largest_stable_step(eigenvalues, method: str) -> float:
    """Largest fixed step h (s) with every h*lambda inside the method's stability region."""
    h = math.inf
    for lam in eigenvalues:
        lam = complex(lam)
        if lam.real >= 0.0:
            continue  # not a decaying mode; no step limit from it here
        h = min(h, stability_boundary(method, lam / abs(lam)) / abs(lam))
    return h


def linear_step_growth(jac: np.ndarray, h: float, method: str, steps: int = 4000) -> float:
    """Norm growth of a perturbation after `steps` fixed steps of an explicit
    method applied to the linearised system dx/dt = J x (x <- R(hJ) x)."""
    hj = h * jac
    step_matrix = np.zeros_like(jac)
    power = np.eye(jac.shape[0])
    for c in EXPLICIT_METHODS[method]:
        step_matrix += c * power
        power = power @ hj
    x = np.ones(jac.shape[0])
    x0 = np.linalg.norm(x)
    for _ in range(steps):
        x = step_matrix @ x
    return float(np.linalg.norm(x) / x0)


def nonlinear_step_growth(par, ps, pt, h: float, method: str, steps: int = 3000) -> float:
    """Deviation growth of p2 after `steps` fixed explicit steps of the full
    model (E1-E5), started at the steady state with p2 raised by 1e-4."""
    p1s, p2s, _ = steady_state(par, ps, pt)
    y = np.array([p1s, p2s * (1.0 + 1e-4)])
    d0 = abs(y[1] - p2s)
    f = lambda y: rhs(0.0, y, par, ps, pt)  # noqa: E731
    for _ in range(steps):
        if method == "Euler":
            y = y + h * f(y)
        else:
            k1 = f(y)
            k2 = f(y + 0.5 * h * k1)
            k3 = f(y + 0.5 * h * k2)
            k4 = f(y + h * k3)
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        if not np.all(np.isfinite(y)) or abs(y[1] - p2s) > 1e3 * p2s:
            return math.inf
    return float(abs(y[1] - p2s) / d0)



# --------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------


@dataclass
class Trace:
    """States at the output times and the flows computed from them (E3)."""

    t: np.ndarray
    p: np.ndarray  # shape (2, n), Pa
    q: np.ndarray | None = None  # shape (3, n), m3/s
    stats: str = ""

    def signal(self, name: str) -> np.ndarray:
        index = SIGNALS.index(name)
        return self.p[index] if index < 2 else self.q[index - 2]


def with_flows(trace: Trace, par: dict, ps: float, pt: float) -> Trace:
    trace.q = np.array([flows(a, b, ps, pt, par) for a, b in trace.p.T]).T
    return trace


def output_times() -> np.ndarray:
    """Output grid START_TIME + k * STEP_SIZE, k = 0..n, each time correctly rounded."""
    n = int(round((STOP_TIME - START_TIME) / STEP_SIZE))
    per_second = round(1.0 / STEP_SIZE)  # k / 1000 is correctly rounded, k * 0.001 not always
    return START_TIME + np.arange(n + 1) / per_second


def solve_radau(par, ps, pt, t_eval, rtol, atol, t_end=STOP_TIME) -> Trace:
    sol = solve_ivp(
        rhs,
        (START_TIME, t_end),
        [par["p1_0"], par["p2_0"]],
        method="Radau",
        t_eval=t_eval,
        rtol=rtol,
        atol=atol,
        jac=jacobian,
        args=(par, ps, pt),
    )
    if not sol.success:
        raise RuntimeError(f"Radau failed: {sol.message}")
    stats = f"nfev {sol.nfev}, njev {sol.njev}, nlu {sol.nlu}"
    return with_flows(Trace(sol.t, sol.y, stats=stats), par, ps, pt)


def solve_cvode(par, ps, pt, t_eval) -> Trace:
    from sksundae.cvode import CVODE

    def cv_rhs(t, y, yp):
        yp[:] = rhs(t, y, par, ps, pt)

    def cv_jac(t, y, yp, jj):
        jj[:, :] = jacobian(t, y, par, ps, pt)

    solver = CVODE(
        cv_rhs,
        method="BDF",
        rtol=CVODE_RTOL,
        atol=CVODE_ATOL,
        jacfn=cv_jac,
        max_num_steps=1_000_000,
    )
    sol = solver.solve(t_eval, np.array([par["p1_0"], par["p2_0"]]))
    if not sol.success:
        raise RuntimeError(f"CVODE failed: {sol.message}")
    stats = f"nfev {sol.nfev}, njev {sol.njev}"
    return with_flows(Trace(np.asarray(sol.t), np.asarray(sol.y).T, stats=stats), par, ps, pt)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def relative_rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a - b) ** 2)) / np.mean(np.abs(b)))


def relative_max(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.mean(np.abs(b)))


def check_published_number(checks: Checks, name: str, value: float, key: str, unit: str) -> None:
    ok, how = agrees_to_published(value, PUBLISHED_NUMBERS[key])
    note = ""
    if key in PUBLISHED_ERRATA:
        stated, why = PUBLISHED_ERRATA[key]
        note = f"; not {stated} as sometimes stated: {why}"
    checks.add(name, ok, f"{value:.6g} {unit}; expected {PUBLISHED_NUMBERS[key]} ({how}){note}")


def check_jacobian_against_differences(checks: Checks, par, ps, pt) -> None:
    """Analytic Jacobian vs central differences at states off the kinks."""
    worst = 0.0
    for y in ([2.0e6, 1.0e6], [6.5e6, 3.4e6], [4.0e6, 3.995e6], [1.0e5, 3.0e3]):
        y = np.array(y)
        jac = jacobian(0.0, y, par, ps, pt)
        for j in range(2):
            h = 1e-3 * max(abs(y[j]), 1.0) * 1e-3
            e = np.zeros(2)
            e[j] = h
            column = (rhs(0.0, y + e, par, ps, pt) - rhs(0.0, y - e, par, ps, pt)) / (2 * h)
            worst = max(worst, float(np.max(np.abs(column - jac[:, j]) / np.max(np.abs(jac)))))
    checks.add("analytic Jacobian vs central differences", worst < 1e-6, f"max rel diff {worst:.2e}")


def analyse_eigenvalues(checks: Checks, name: str, par, ps, pt) -> None:
    """Jacobian eigenvalues at start-up and steady state, stable explicit steps."""
    log10 = not par["bulk_log_natural"]
    y0 = [par["p1_0"], par["p2_0"]]
    eig0 = np.sort(np.linalg.eigvals(jacobian(0.0, y0, par, ps, pt)).real)
    p1s, p2s, _ = steady_state(par, ps, pt)
    jac_ss = jacobian(0.0, [p1s, p2s], par, ps, pt)
    eig_ss = np.linalg.eigvals(jac_ss)
    eig_ss = eig_ss[np.argsort(eig_ss.real)]
    checks.info(
        f"{name}: Jacobian eigenvalues at start-up (p1 = p2 = 0)",
        ", ".join(f"{v:.6g}" for v in eig0) + " 1/s",
    )
    checks.info(
        f"{name}: Jacobian eigenvalues at steady state",
        ", ".join(f"{v.real:.6g}" for v in eig_ss)
        + f" 1/s (time constants {', '.join(f'{-1e3 / v.real:.4g}' for v in eig_ss)} ms)",
    )
    h_euler = largest_stable_step(eig_ss, "Euler")
    h_rk4 = largest_stable_step(eig_ss, "RK4")
    checks.info(
        f"{name}: stability interval on the negative real axis",
        f"Euler [-{stability_boundary('Euler', -1.0):.6f}, 0], RK4 [-{stability_boundary('RK4', -1.0):.6f}, 0]",
    )
    if log10:
        check_published_number(checks, f"{name}: start-up stiff eigenvalue", eig0[0], "eig_startup", "1/s")
        par_tr = dict(par, p_tr=1e5)
        eig_tr = np.sort(np.linalg.eigvals(jacobian(0.0, y0, par_tr, ps, pt)).real)
        check_published_number(
            checks, f"{name}: start-up stiff eigenvalue with p_tr = 1e5 Pa", eig_tr[0],
            "eig_startup_ptr1e5", "1/s",
        )
        check_published_number(checks, f"{name}: steady-state fast eigenvalue", eig_ss[0].real, "eig_steady_fast", "1/s")
        check_published_number(checks, f"{name}: steady-state slow eigenvalue", eig_ss[1].real, "eig_steady_slow", "1/s")
    key = "log10" if log10 else "ln"
    check_published_number(checks, f"{name}: largest stable explicit Euler step", h_euler, f"euler_step_{key}", "s")
    check_published_number(checks, f"{name}: largest stable RK4 step", h_rk4, f"rk4_step_{key}", "s")
    # Confirm the limits by stepping at 0.99 h_max and 1.01 h_max, both the
    # linearised system and the full nonlinear model near its steady state.
    for label, h in (("Euler", h_euler), ("RK4", h_rk4)):
        below = linear_step_growth(jac_ss, 0.99 * h, label)
        above = linear_step_growth(jac_ss, 1.01 * h, label)
        checks.add(
            f"{name}: {label} on the linearised steady state, 4000 steps at 0.99/1.01 h_max",
            below < 1.0 < above,
            f"perturbation growth {below:.3g} / {above:.3g}",
        )
        below = nonlinear_step_growth(par, ps, pt, 0.99 * h, label)
        above = nonlinear_step_growth(par, ps, pt, 1.01 * h, label)
        checks.add(
            f"{name}: {label} on the nonlinear model from steady state, 3000 steps at 0.99/1.01 h_max",
            below < 1.0 < above,
            f"p2 deviation growth {below:.3g} / {above:.3g}",
        )


def check_trace(checks: Checks, name: str, par, ps, pt, radau: Trace) -> None:
    """Published numbers that come from the trace."""
    p1s, p2s, qs = steady_state(par, ps, pt)
    end = -1
    for label, value, exact in (
        ("p1", radau.p[0][end], p1s),
        ("p2", radau.p[1][end], p2s),
        ("Q1", radau.q[0][end], qs),
        ("Q2", radau.q[1][end], qs),
        ("Q3", radau.q[2][end], qs),
    ):
        rel = abs(value - exact) / abs(exact)
        checks.add(
            f"{name}: {label}(5 s) = analytic steady state",
            rel < STEADY_STATE_LIMIT,
            f"{value:.10g} vs {exact:.10g}, rel err {rel:.2e}",
            trace=True,
        )
    check_published_number(checks, f"{name}: analytic steady flow K sqrt(ps/3)", qs, "Q_steady", "m3/s")
    i01 = int(round(0.1 / STEP_SIZE))
    i05 = int(round(0.5 / STEP_SIZE))
    if not par["bulk_log_natural"]:
        check_published_number(checks, f"{name}: p1(0.1 s)", radau.p[0][i01], "p1_0.1s", "Pa")
        check_published_number(checks, f"{name}: p2(0.1 s)", radau.p[1][i01], "p2_0.1s", "Pa")
    for t_idx in (i01, i05, len(radau.t) - 1):
        checks.info(
            f"{name}: t = {radau.t[t_idx]:g} s",
            f"p1 = {float(radau.p[0][t_idx])!r} Pa, p2 = {float(radau.p[1][t_idx])!r} Pa",
        )
    within = (np.abs(radau.p[0] - p1s) <= 0.01 * p1s) & (np.abs(radau.p[1] - p2s) <= 0.01 * p2s)
    outside = np.nonzero(~within)[0]
    t99 = radau.t[outside[-1] + 1] if len(outside) else radau.t[0]
    checks.info(f"{name}: p1 and p2 within 1 % of the steady state from", f"t = {t99:g} s (expected: about 0.5 s)")
    # MODEL.md's warning: a small positive eigenvalue while the volumes fill.
    largest = np.array([np.linalg.eigvals(jacobian(0.0, y, par, ps, pt)).real.max() for y in radau.p.T])
    positive = radau.t[largest > 0.0]
    where = f", > 0 from t = {positive[0]:g} s to {positive[-1]:g} s" if len(positive) else ""
    checks.info(
        f"{name}: largest eigenvalue real part along the trace (1 ms grid)",
        f"{largest.max():.4g} 1/s at t = {radau.t[np.argmax(largest)]:g} s{where}",
    )


def check_dense_output(checks: Checks, name: str, par, ps, pt, radau: Trace) -> None:
    """t_eval values (Radau's dense output) vs solves that end exactly there."""
    worst = 0.0
    for t_check in (0.001, 0.01, 0.1, 0.5):
        i = int(round(t_check / STEP_SIZE))
        end = solve_radau(par, ps, pt, None, RADAU_RTOL, RADAU_ATOL, t_end=radau.t[i])
        rel = np.max(np.abs(end.p[:, -1] - radau.p[:, i]) / np.abs(end.p[:, -1]))
        worst = max(worst, float(rel))
    checks.add(
        f"{name}: dense output at t = 1, 10, 100, 500 ms vs solves ending there",
        worst < DENSE_OUTPUT_LIMIT,
        f"max rel diff {worst:.2e} (limit {DENSE_OUTPUT_LIMIT:g})",
        trace=True,
    )


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def opt_text() -> str:
    return (
        f"StartTime, {START_TIME!r}\n"
        f"StopTime, {STOP_TIME!r}\n"
        f"StepSize, {STEP_SIZE!r}\n"
        f"RelTol, {OPT_REL_TOL!r}\n"
    )


def signal_bounds(trace: Trace, par: dict, ps: float, pt: float) -> tuple[dict, dict]:
    """Bounds per signal for scenario.json, and the flow errors implied by
    the pressure bounds (relative RMS, %).

    Pressures: 0.05 % relative RMS. Flows: Q = K f(dp), so a pressure error
    enters a flow through the orifice slope K f'(dp). Each pressure is taken
    off by 0.05 % of its mean magnitude (Q2's two errors adding up), the flow
    error follows to first order along the trace, and its relative RMS is the
    implied figure; all flows get the largest implied figure rounded up to
    0.01 %, and at least 0.1 %. Max abs: 0.5 % of each signal's range.
    """
    k1, k2, k3 = orifice_coefficients(par)
    p_tr = par["p_tr"]
    err1 = 5e-4 * np.mean(np.abs(trace.p[0]))
    err2 = 5e-4 * np.mean(np.abs(trace.p[1]))
    drops = {
        "Q1": (k1, ps - trace.p[0], err1),
        "Q2": (k2, trace.p[0] - trace.p[1], err1 + err2),
        "Q3": (k3, trace.p[1] - pt, err2),
    }
    implied = {}
    for name, (k, dp, err) in drops.items():
        propagated = k * np.array([orifice_law_slope(x, p_tr) for x in dp]) * err
        implied[name] = 100.0 * float(np.sqrt(np.mean(propagated**2)) / np.mean(np.abs(trace.signal(name))))
    flow_bound = max(0.1, math.ceil(max(implied.values()) * 100.0) / 100.0)
    bounds = {}
    for name in SIGNALS:
        sig = trace.signal(name)
        max_abs = float(f"{0.005 * (sig.max() - sig.min()):.2g}")
        rel = 0.05 if name in ("p1", "p2") else flow_bound
        bounds[name] = {"rel_rms_percent": rel, "max_abs": max_abs}
    return bounds, implied


def analytic_checks(par: dict, ps: float, pt: float, t_end: float) -> list[dict]:
    """The analytic steady state, checked by the harness at the end of every run."""
    p1s, p2s, q = steady_state(par, ps, pt)
    return [
        {"signal": "p1", "time": t_end, "value": p1s, "rel_tol": 1e-6, "note": "steady state pt + 2/3 (ps - pt)"},
        {"signal": "p2", "time": t_end, "value": p2s, "rel_tol": 1e-6, "note": "steady state pt + 1/3 (ps - pt)"},
    ] + [
        {"signal": name, "time": t_end, "value": q, "rel_tol": 1e-6, "note": "K sqrt((ps - pt)/3)"}
        for name in ("Q1", "Q2", "Q3")
    ]


def scenario_json_text(name: str, trace: Trace, par: dict, ps: float, pt: float) -> str:
    spec = SCENARIOS[name]
    bounds, implied = signal_bounds(trace, par, ps, pt)
    doc = {
        "model": MODEL,
        "scenario": name,
        "description": spec["description"],
        "model_description": "components/circuits/orifice-circuit/MODEL.md",
        "generated_by": "validation/python/reference/orifice_chain.py",
        "interpolation": "step",
        "step_sizes": [0.001, 0.01],
        "parameters": spec["parameters"],
        "inputs": "OrificeChain_in.csv",
        "reference": "OrificeChain_ref.csv",
        "options": "OrificeChain_ref.opt",
        "signals": bounds,
        "analytic": analytic_checks(par, ps, pt, float(trace.t[-1])),
        "note": (
            "Bounds are relative RMS error (RMS of the difference over the mean |reference|, in %) and "
            "maximum absolute error (SI units: Pa, m3/s). p1, p2: 0.05 %. Flows: Q = K f(dp) and "
            "f' = 1/(2 sqrt(dp)) above p_tr, so a flow error is the orifice slope times the error of its "
            "pressure drop; with each pressure off by 0.05 % of its mean magnitude (the two errors of "
            "Q2's drop adding up) the first-order flow errors along this trace are "
            + ", ".join(f"{k} {v:.3f} %" for k, v in implied.items())
            + f" relative RMS, so all flows get {bounds['Q1']['rel_rms_percent']:g} % (the largest, rounded "
            "up, at least 0.1 %). max_abs: 0.5 % of each signal's range over the reference trace."
        ),
    }
    return json.dumps(doc, indent=2) + "\n"


# The trained p2 (E6 of the model description): its sample period, s, and
# what the shipped weights reach on the start-up at 1 ms, explicit RK4 at the
# period (bench-realtime --errors), which sets the bounds of its scenarios.
SURROGATE_PERIOD = 1e-3
SURROGATE_REACHED = (
    "Measured when the weights were trained (bench-realtime --circuit OrificeChain/startup --errors): NARX p2 "
    "0.025 %, Q2 0.037 % relative RMS, largest flow error 3.4e-7 m3/s (Q3); LOLIMOT p2 0.078 %, Q2 0.043 %, largest "
    "flow error 1.7e-7 m3/s; physics with RK4 at the same 1 ms step: p2 0.17 %, Q2 0.66 %. Bounds: the physics "
    "scenario's, except p2 0.1 % relative RMS (LOLIMOT's 0.078 % with a margin) and 5e-7 m3/s for the flows' "
    "largest error (NARX's 3.4e-7 with a margin)."
)


def surrogate_bounds(physics: dict) -> dict:
    """The bounds of the trained-p2 scenarios (see SURROGATE_REACHED)."""
    bounds = json.loads(json.dumps(physics))
    bounds["p2"]["rel_rms_percent"] = max(bounds["p2"]["rel_rms_percent"], 0.1)
    for q in ("Q1", "Q2", "Q3"):
        bounds[q]["max_abs"] = max(bounds[q]["max_abs"], 5e-7)
    return bounds


def scenario_files(name: str, trace: Trace, par: dict, ps: float, pt: float) -> dict[str, str]:
    t = trace.t
    return {
        f"{MODEL}_in.csv": csv_text(["time", "ps", "pt"], [np.array([t[0], t[-1]]), np.array([ps, ps]), np.array([pt, pt])]),
        f"{MODEL}_ref.csv": csv_text(["time", *SIGNALS], [t, trace.p[0], trace.p[1], *trace.q]),
        f"{MODEL}_ref.opt": opt_text(),
        "scenario.json": scenario_json_text(name, trace, par, ps, pt),
    }


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def run_scenario(name: str, args, checks: Checks, out_root: Path) -> None:
    par = dict(MODEL_PARAMETERS, **SCENARIOS[name]["parameters"])
    ps, pt = MODEL_INPUTS["ps"], MODEL_INPUTS["pt"]
    log = "ln" if par["bulk_log_natural"] else "log10"
    print(f"\n== {MODEL}/{name} ({log} bulk modulus, ps = {ps:g} Pa, pt = {pt:g} Pa) ==", flush=True)
    t_out = output_times()
    trace_failures_before = checks.trace_failures

    analyse_eigenvalues(checks, name, par, ps, pt)

    t0 = time.perf_counter()
    radau = solve_radau(par, ps, pt, t_out, RADAU_RTOL, RADAU_ATOL)
    print(f"  Radau rtol {RADAU_RTOL:g}, atol {RADAU_ATOL:g} Pa: {time.perf_counter() - t0:.2f} s, {radau.stats}", flush=True)
    if len(radau.t) != len(t_out) or np.any(radau.t != t_out):
        checks.add(f"{name}: output grid", False, "Radau did not return the requested output times", trace=True)

    check_trace(checks, name, par, ps, pt, radau)

    if not args.quick:
        t0 = time.perf_counter()
        fine = solve_radau(par, ps, pt, t_out, REFINED_RTOL, REFINED_ATOL)
        print(f"  Radau rtol {REFINED_RTOL:g}, atol {REFINED_ATOL:g} Pa: {time.perf_counter() - t0:.2f} s, {fine.stats}", flush=True)
        for i, label in enumerate(("p1", "p2")):
            rel = relative_max(radau.p[i], fine.p[i])
            checks.add(
                f"{name}: {label} change when refining rtol 1e-10 -> 1e-12",
                rel < REFINEMENT_LIMIT,
                f"max |diff| / mean |{label}| = {rel:.2e} (limit {REFINEMENT_LIMIT:g})",
                trace=True,
            )
        t0 = time.perf_counter()
        check_dense_output(checks, name, par, ps, pt, radau)
        print(f"  dense-output check: {time.perf_counter() - t0:.2f} s", flush=True)

    if args.no_cvode:
        checks.info(f"{name}: CVODE cross-check", "skipped (--no-cvode)")
    else:
        try:
            import sksundae  # noqa: F401
        except ImportError as err:
            checks.add(
                f"{name}: CVODE cross-check", False,
                f"scikit-sundae not importable ({err}); use --no-cvode to skip", trace=True,
            )
        else:
            t0 = time.perf_counter()
            cvode = solve_cvode(par, ps, pt, t_out)
            print(f"  CVODE BDF rtol {CVODE_RTOL:g}, atol {CVODE_ATOL:g} Pa: {time.perf_counter() - t0:.2f} s, {cvode.stats}", flush=True)
            for label in SIGNALS:
                a, b = cvode.signal(label), radau.signal(label)
                rms, mx = relative_rms(a, b), relative_max(a, b)
                checks.add(
                    f"{name}: CVODE vs Radau {label}",
                    rms < CVODE_LIMIT,
                    f"RMS diff / mean |{label}| = {rms:.2e}, max |diff| / mean |{label}| = {mx:.2e}"
                    f" (limit {CVODE_LIMIT:g} on RMS)",
                    trace=True,
                )

    write_or_compare(checks, args.check, name, out_root / MODEL / name, scenario_files(name, radau, par, ps, pt),
                     checks.trace_failures == trace_failures_before, exact=args.exact)
    if name == "startup":
        base = json.loads(scenario_json_text(name, radau, par, ps, pt))
        for kind in SURROGATE_KINDS:
            variant, files = surrogate_scenario_files(base, kind, "p2_surrogate", SURROGATE_PERIOD,
                                                      surrogate_bounds(base["signals"]), SURROGATE_REACHED)
            write_or_compare(checks, args.check, variant, out_root / MODEL / variant, files,
                             checks.trace_failures == trace_failures_before, exact=args.exact)


def main(argv=None) -> int:
    default_out = Path(__file__).resolve().parents[2] / "scenarios"
    parser = argparse.ArgumentParser(
        description="Independent SciPy Radau (+ CVODE cross-check) reference traces for the "
        "OrificeChain model description, written in the FMI Cross-Check layout; also checks the published numbers.",
    )
    parser.add_argument(
        "--scenario", choices=[*SCENARIOS, "all"], default="all", help="scenario to compute (default: all)"
    )
    add_check_arguments(parser)
    parser.add_argument(
        "--out-dir", type=Path, default=default_out,
        help=f"root of the scenario folders (default: {default_out})",
    )
    parser.add_argument("--no-cvode", action="store_true", help="skip the SUNDIALS CVODE cross-check")
    parser.add_argument(
        "--quick", action="store_true", help="skip the rtol 1e-12 refinement and the dense-output checks"
    )
    args = parser.parse_args(argv)

    checks = Checks()
    print(f"{MODEL} reference: mode {'check' if args.check else 'write'}, output root {args.out_dir}", flush=True)
    print("== model-independent checks ==", flush=True)
    par = dict(MODEL_PARAMETERS)
    check_jacobian_against_differences(checks, par, MODEL_INPUTS["ps"], MODEL_INPUTS["pt"])
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    for name in names:
        run_scenario(name, args, checks, args.out_dir)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
