#!/usr/bin/env python3
"""Independent reference solution of the ValveCylinder model.

The equations V1-V6 of the model description ``components/circuits/valve-drive/MODEL.md``
(its numbers "the published numbers" below) (corrected forms,
deadband form of V4, K clamped to [0, Kmax] with anti-windup, shuttle pressure
max(p1, p2), LuGre friction, push-only end stops) are written out here as plain
functions in SI units, with the orifice law E2 (p_tr = 1e5 Pa) and the log10
bulk modulus E4 of ``components/circuits/orifice-circuit/MODEL.md``.

How the discontinuities are handled (see valve_cylinder_NOTES.md):

* The input U is piecewise constant; every integration stops exactly at each
  input switching time and restarts there (no step ever spans a jump of U).
* Every other non-smooth point of the right-hand side is a zero of a
  *switching function* (21 of them: the deadband edges Us = +-Ud, p1 = p2 in
  max(p1, p2), v = 0 in |v|, x = Sc and x = 0 and the push-only force
  conditions of the end stops, p = 0 in the max(p, 0) of E4, dp = +-p_tr of
  the five orifices). Between two events the branch of every switch is
  *locked* (the RHS uses the analytic continuation of the branch it started
  on), so each piece is a smooth ODE; a sign change of a switching function
  is located as a terminal event and the integration restarts on the other
  branch. The K clamps are a hybrid mode (free / held at 0 / held at Kmax)
  with their own events: K reaching 0 or Kmax while free; the unclamped
  K' changing sign while held.
  A switching event fires only once g has crossed zero by a tiny hysteresis
  (1e-11 m/s for v; see HYSTERESIS), so that a standstill (v = 0 with solver
  noise around it) does not fire an endless chain of events.
* Both SciPy Radau (solve_ivp, rtol 1e-10) and SUNDIALS CVODE (BDF,
  scikit-sundae, its own root finding) integrate the same piecewise system
  with the analytic Jacobian; their agreement is reported per signal and must
  be within a tenth of each signal's bound.
* Independent of the event machinery: explicit Euler on the plain (unlocked)
  equations at 2e-5 s and 1e-5 s must converge to the reference at first
  order. The unlocked equations are also solved with CVODE without event
  location (information only: it releases the K clamp late in (b)).

Per scenario it writes, in the FMI Cross-Check layout,
``validation/scenarios/ValveCylinder/<scenario>/``: ``ValveCylinder_in.csv``,
``ValveCylinder_ref.csv``, ``ValveCylinder_ref.opt`` and ``scenario.json``.
From the traces of scenarios (b) and (a) it also writes the ValveActuator
scenarios ``validation/scenarios/ValveActuator/random_motion/`` and
``repeatable_motion/``: the same hydraulics with the rod position and
velocity of that trace as inputs, held for 10 ms each
(valve_cylinder_NOTES.md, section 10); and the SlidingMass scenarios
``validation/scenarios/SlidingMass/random_force/`` and ``repeatable_force/``:
the mechanics (V6) driven by the cylinder force p1 A1 - p2 A2 of that trace,
held for 10 ms each (section 10b).
With ``--check`` nothing is written: the files are recomputed and compared
with the ones on disk (the changed files are named). The published numbers
are recomputed and printed as PASS / FAIL / DISCREPANCY (a number the model
description's own equations do not give; documented in
PUBLISHED_DISCREPANCIES, not tuned away).

Exit status: 0 when every check passes (documented discrepancies do not
fail the run) and, with ``--check``, the committed files match; 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import reference_common
import element_laws
from element_laws import orifice_law, orifice_law_slope  # V2 = E2
from reference_common import (SURROGATE_KINDS, add_check_arguments, agrees_to_published, csv_text,
                              surrogate_scenario_files, write_or_compare)
from scipy.integrate import solve_ivp

MODEL = "ValveCylinder"
MODEL_DESCRIPTION = "components/circuits/valve-drive/MODEL.md"
SCRIPT = "validation/python/reference/valve_cylinder.py"
# The 100 levels of the random scenario (b), committed beside this script (data/README.md).
LEVELS_CSV = Path(__file__).resolve().parent / "data" / "valve-cylinder-random-levels.csv"

# Parameters of the model description (its parameter table, "replaced" values
# where it replaces the paper's), plus the bulk-modulus constants of the
# OrificeChain model description (E4, log10), SI units.
MODEL_PARAMETERS = {
    "ps": 1.4e7,  # Pa, pump (supply) pressure
    "pt": 9e5,  # Pa, tank pressure (9 bar back-pressure)
    "p1_0": 9e5,  # Pa, initial pressure in chamber A
    "p2_0": 9e5,  # Pa, initial pressure in chamber B
    "pv_0": 9e5,  # Pa, initial pressure in the small volume Vv
    "C1": 4.65e7,  # compensator constant (V3)
    "C2": -1.79e4,  # 1/bar, compensator constant, multiplies (ps - pv) in bar
    "C3": 4.0e11,  # compensator time constant (V3)
    "C5": 1e6,  # Pa, compensator set margin (V3)
    "K_0": 5e-11,  # m3/(s Pa^0.5), initial throttle coefficient
    "Kmax": 5e-8,  # m3/(s Pa^0.5), upper clamp of K
    "A1": 8.04e-4,  # m2, piston area, chamber A
    "A2": 4.24e-4,  # m2, annulus area, chamber B
    "m": 200.0,  # kg, moving mass
    "Sc": 1.0,  # m, stroke
    "x_0": 1.0,  # m, initial piston position
    "Vdead": 1e-3,  # m3, dead volume of each chamber (lines)
    "Vv": 1e-5,  # m3, small volume between compensator and valve
    "Cv": 2.315e-9,  # m3/(s V Pa^0.5), valve flow constant
    "Ud": 2.0,  # V, deadband (insensitivity) of the valve
    "Kv": 0.99,  # 1, valve gain (V1)
    "wn": 331.0,  # rad/s, spool natural frequency (V1)
    "zeta": 0.62,  # 1, spool damping ratio (V1)
    "sigma0": 2.15e6,  # N/m, LuGre bristle stiffness (replaced)
    "sigma1": 6.368,  # N s/m, LuGre bristle damping
    "kv": 1280.0,  # N s/m, viscous friction
    "Fc": 320.0,  # N, Coulomb friction (replaced)
    "Fs": 364.0,  # N, static friction (replaced)
    "vs": 3.47e-3,  # m/s, Stribeck velocity (replaced)
    "k_s": 1e8,  # N/m, end-stop stiffness (added)
    "c_s": 2e5,  # N s/m, end-stop damping (added)
    "p_tr": 1e5,  # Pa, transition pressure of the regularised orifice law (E2)
    # E4 of the OrificeChain model description (log10):
    "Emax": 1.8e9,  # Pa
    "pmax": 2.8e7,  # Pa
    "a1": 0.5,
    "a2": 90.0,
    "a3": 3.0,
}

# State vector (order used everywhere in this file).
STATES = ("Us", "dUs", "K", "p1", "p2", "pv", "x", "v", "z")
I_US, I_DUS, I_K, I_P1, I_P2, I_PV, I_X, I_V, I_Z = range(9)

# Columns of the reference CSV (after "time"), SI units.
SIGNALS = ("x", "v", "p1", "p2", "pv", "Qv", "Q1", "Q2", "Q3", "F_mu", "Us")

# Solver settings.
RADAU_RTOL = 1e-10
CVODE_RTOL = 1e-10
# Absolute tolerances at rtol 1e-10 (scaled with rtol for other rtol), per
# state: V, V/s, m3/(s Pa^0.5), Pa, Pa, Pa, m (x - anchor), m/s, m. Each one
# is at or above rtol * |typical value|: SciPy's Radau asks Newton for
# max(10 eps/rtol, sqrt(rtol)) = 2.2e-5 of (atol + rtol |y|), i.e. ~10 ulp
# where rtol |y| dominates, and the rounding noise of the RHS (pressures of
# 1e7 Pa, the spool's Kv wn^2 U - wn^2 Us) then stalls Newton in quasi-static
# phases (thousands of LU factorisations per 0.1 s). These atol give ~100 ulp
# and are still 1e-9 of each signal's scale.
ATOL_REF = np.array([1e-9, 1e-6, 1e-17, 1e-2, 1e-2, 1e-2, 1e-12, 1e-10, 1e-12])
# Typical magnitudes of the states (finite-difference steps of the Jacobian checks).
STATE_SCALE = np.array([1.0, 100.0, 1e-9, 1e5, 1e5, 1e5, 1e-2, 1e-2, 1e-4])

MAX_STEP = 2e-3  # s; steps never span two sign changes of a slow switching function
OPT_REL_TOL = 1e-6  # tolerance written to the .opt file for the masters
OPT_STEP = 1e-3  # s, StepSize in the .opt file
# Bounds written to scenario.json (relative RMS, %; see BOUND_NOTE).
# Acceptance of the reference: Radau vs CVODE relative RMS below a tenth of
# the tightest bound that uses the signal.
SIGNAL_BOUNDS = {"x": 0.1, "v": 2.0, "p1": 1.0, "p2": 1.0, "pv": 1.0}
AGREEMENT_FRACTION = 0.1
# --check compares with the committed files at reference_common.CHECK_LIMIT.
DEBUG_SLOW = False  # print pieces that need more than 20000 RHS evaluations
RECORD = None  # a list to collect (t, t_end, y, locks, kmode, anchor, U) per piece (debugging)

U_REPEATABLE = (-6.0, 9.0)  # V, first and second half of each 2.5 s period


# SlidingMass (a held force, V6 alone): v's absolute tolerance is 10 times
# ATOL_REF's. While the mass rests against a stop under a constant force, v'
# is the difference of forces of ~1e3 N in exact static balance, and at
# atol 1e-10 m/s Radau's Newton iteration cannot meet its tolerance in that
# rounding noise: the step size collapses to a few microseconds (145 000 RHS
# calls for 10 ms). 1e-9 m/s is still 1e-7 of mean |v|.
MASS_ATOL_V_FACTOR = 10.0


def atol_for(rtol: float) -> np.ndarray:
    """Absolute tolerances (per state) used with `rtol`."""
    return ATOL_REF * (rtol / 1e-10)

SCENARIOS = {
    "repeatable": {
        "description": "Scenario (a), the repeatable input of Ustinov et al. (2022): 10 s, U = -6 V for the first "
        "half and +9 V for the second half of each 2.5 s period; initial state of the model description (x_0 = 1 m, "
        "on the stop).",
        "input": "repeatable",
        "stop": 10.0,
        "grid": 1e-3,
        "parameters": {},
    },
    "random": {
        "description": "Scenario (b), the random input of Ustinov et al. (2022): 50 s, U held 0.5 s at each of the "
        "100 levels of validation/python/reference/data/valve-cylinder-random-levels.csv; initial state of the model "
        "description (x_0 = 1 m, on the stop).",
        "input": "random",
        "stop": 50.0,
        "grid": 5e-3,
        "parameters": {},
    },
    "repeatable_mid": {
        "description": "Scenario (a), the repeatable input, with x_0 = 0.5 m (piston off the stops).",
        "input": "repeatable",
        "stop": 10.0,
        "grid": 1e-3,
        "parameters": {"x_0": 0.5},
    },
    "random_mid": {
        "description": "Scenario (b), the random input, with x_0 = 0.5 m (piston off the stops).",
        "input": "random",
        "stop": 50.0,
        "grid": 5e-3,
        "parameters": {"x_0": 0.5},
    },
}


# --------------------------------------------------------------------------
# Model equations (MODEL.md V1-V6 with E2, E4), scalar, SI units
# --------------------------------------------------------------------------


def bulk_modulus(p: float, par: dict) -> float:
    """(V2 = E4) B(p) = a1 Emax log10(a2 max(p, 0)/pmax + a3), Pa
    (element_laws; the branch-locked form is _bulk)."""
    return element_laws.bulk_modulus(p, par["a1"], par["Emax"], par["a2"], par["pmax"], par["a3"])


def valve_opening(us: float, ud: float) -> float:
    """(V4) deadband: s = Us - Ud (Us >= Ud), Us + Ud (Us <= -Ud), else 0; V."""
    if us >= ud:
        return us - ud
    if us <= -ud:
        return us + ud
    return 0.0


def valve_flows(us: float, p1: float, p2: float, pv: float, par: dict) -> tuple[float, float, float]:
    """(V4) Q1 (into chamber A), Q2 (out of chamber B), Q3 (out of Vv), m3/s."""
    s = valve_opening(us, par["Ud"])
    cv, pt, p_tr = par["Cv"], par["pt"], par["p_tr"]
    if s > 0.0:
        q1 = cv * s * orifice_law(pv - p1, p_tr)
        q2 = cv * s * orifice_law(p2 - pt, p_tr)
        return q1, q2, q1
    if s < 0.0:
        q1 = cv * s * orifice_law(p1 - pt, p_tr)
        q2 = cv * s * orifice_law(pv - p2, p_tr)
        return q1, q2, -q2
    return 0.0, 0.0, 0.0


def compensator_flow(k: float, pv: float, par: dict) -> float:
    """(V3) Qv = K f(ps - pv), m3/s."""
    return k * orifice_law(par["ps"] - pv, par["p_tr"])


def compensator_rate_unclamped(k: float, p1: float, p2: float, pv: float, par: dict) -> float:
    """(V3) K' = [C5 - (pv - psh) - (C1 + C2 (ps - pv)/1e5) K] / C3 before the
    clamp, psh = max(p1, p2), (ps - pv) in bar in the C2 term; m3/(s^2 Pa^0.5)."""
    psh = max(p1, p2)
    return (par["C5"] - (pv - psh) - (par["C1"] + par["C2"] * (par["ps"] - pv) / 1e5) * k) / par["C3"]


def compensator_rate(k: float, p1: float, p2: float, pv: float, par: dict) -> float:
    """(V3) K' with the clamp to [0, Kmax] and anti-windup: zero while K sits
    on a clamp and the unclamped rate pushes it further out."""
    r = compensator_rate_unclamped(k, p1, p2, pv, par)
    if (k <= 0.0 and r < 0.0) or (k >= par["Kmax"] and r > 0.0):
        return 0.0
    return r


def stribeck_g(v: float, par: dict) -> float:
    """(V6) g(v) = (Fc + (Fs - Fc) exp(-(v/vs)^2)) / sigma0, m."""
    return (par["Fc"] + (par["Fs"] - par["Fc"]) * math.exp(-((v / par["vs"]) ** 2))) / par["sigma0"]


def lugre(v: float, z: float, par: dict) -> tuple[float, float]:
    """(V6) LuGre: z' = v - |v| z / g(v) (m/s), F_mu = sigma0 z + sigma1 z' + kv v (N)."""
    dz = v - abs(v) * z / stribeck_g(v, par)
    return dz, par["sigma0"] * z + par["sigma1"] * dz + par["kv"] * v


def stribeck_force(v: float, par: dict) -> float:
    """Steady-sliding friction of LuGre (z' = 0): sign(v) sigma0 g(v) + kv v, N."""
    return math.copysign(par["sigma0"] * stribeck_g(v, par), v) + par["kv"] * v


def end_stop_force(x: float, v: float, par: dict) -> float:
    """(V6) push-only spring-dampers at x = 0 and x = Sc, N (positive = +x).

    Upper stop (x > Sc): -max(0, k_s (x - Sc) + c_s v);
    lower stop (x < 0): +max(0, k_s (-x) - c_s v). Never pulls.
    """
    k, c, sc = par["k_s"], par["c_s"], par["Sc"]
    if x > sc:
        return -max(0.0, k * (x - sc) + c * v)
    if x < 0.0:
        return max(0.0, -k * x - c * v)
    return 0.0


def natural_rhs(y, u: float, par: dict) -> list[float]:
    """(V1)-(V6) right-hand side with every branch chosen by the current state
    (the model as MODEL.md states it). Used by the explicit Euler runs and the
    unit tests; the implicit solvers use the branch-locked form below."""
    us, dus, k, p1, p2, pv, x, v, z = (float(a) for a in y)
    wn = par["wn"]
    q1, q2, q3 = valve_flows(us, p1, p2, pv, par)
    qv = compensator_flow(k, pv, par)
    dz, f_mu = lugre(v, z, par)
    v1 = par["A1"] * x + par["Vdead"]
    v2 = par["A2"] * (par["Sc"] - x) + par["Vdead"]
    return [
        dus,
        par["Kv"] * wn * wn * u - 2.0 * par["zeta"] * wn * dus - wn * wn * us,
        compensator_rate(k, p1, p2, pv, par),
        bulk_modulus(p1, par) / v1 * (q1 - par["A1"] * v),
        bulk_modulus(p2, par) / v2 * (par["A2"] * v - q2),
        bulk_modulus(pv, par) / par["Vv"] * (qv - q3),
        v,
        (p1 * par["A1"] - p2 * par["A2"] - f_mu + end_stop_force(x, v, par)) / par["m"],
        dz,
    ]


def outputs(y, par: dict) -> dict[str, float]:
    """Output variables of the model description computed from a state (SI units)."""
    us, _, k, p1, p2, pv, x, v, z = (float(a) for a in y)
    q1, q2, q3 = valve_flows(us, p1, p2, pv, par)
    _, f_mu = lugre(v, z, par)
    return {
        "x": x, "v": v, "p1": p1, "p2": p2, "pv": pv, "Qv": compensator_flow(k, pv, par),
        "Q1": q1, "Q2": q2, "Q3": q3, "F_mu": f_mu, "Us": us,
    }


# --------------------------------------------------------------------------
# Branch-locked (piecewise smooth) form for the implicit solvers
# --------------------------------------------------------------------------

# Switching functions g_i(y); the RHS is smooth wherever none of them is zero.
SW_US_HI = 0  # Us - Ud          deadband edge (V4)
SW_US_LO = 1  # Us + Ud          deadband edge (V4)
SW_P12 = 2  # p1 - p2            max(p1, p2) (V3)
SW_V = 3  # v                    |v| in LuGre (V6)
SW_X_HI = 4  # x - Sc            upper end stop contact (V6)
SW_F_HI = 5  # k_s (x - Sc) + c_s v   upper stop pushes (V6)
SW_X_LO = 6  # -x                lower end stop contact (V6)
SW_F_LO = 7  # k_s (-x) - c_s v  lower stop pushes (V6)
SW_B1, SW_B2, SW_BV = 8, 9, 10  # p1, p2, pv: max(p, 0) in E4
ORIFICES = ("ps-pv", "pv-p1", "p1-pt", "p2-pt", "pv-p2")
SW_ORIFICE = 11  # 11 + 2 i: dp_i - p_tr, 12 + 2 i: dp_i + p_tr (E2 regimes)
N_SWITCH = 21
EV_K_A, EV_K_B = 21, 22  # K clamp events (see clamp_events)
N_EVENTS = 23
SWITCH_NAMES = (
    ["Us-Ud", "Us+Ud", "p1-p2", "v", "x-Sc", "F_stop_hi", "-x", "F_stop_lo", "p1>0", "p2>0", "pv>0"]
    + [f"{o}{s}p_tr" for o in ORIFICES for s in ("-", "+")]
    + ["K clamp a", "K clamp b"]
)

K_FREE, K_LOW, K_HIGH = 0, -1, 1
# Switching functions of the mechanics only (|v| and the end stops): with a
# prescribed motion their locks are reset from x and v at each hold time.
MOTION_SWITCHES = (SW_V, SW_X_HI, SW_F_HI, SW_X_LO, SW_F_LO)

# Hysteresis of the switching events (units of each g_i): a locked branch is
# left when g_i has crossed zero by more than this. Without it, v = 0 at a
# standstill (a zero of |v| that the state sits on, with solver noise of
# ~1e-14 m/s around it) would fire an endless chain of events at one instant.
# Using the other branch inside the band changes z' by at most 2 * 1e-11 m/s
# (|v| z/g with |z/g| <= 1) and the pressure/position terms by far less than
# the solver tolerance; see valve_cylinder_NOTES.md.
HYSTERESIS = (
    [1e-12, 1e-12, 1e-6, 1e-11, 1e-15, 1e-6, 1e-15, 1e-6, 1e-6, 1e-6, 1e-6] + [1e-6] * 10
)


class Par:
    """Parameters as attributes (fast access in the RHS)."""

    def __init__(self, par: dict) -> None:
        self.__dict__.update(par)
        self.bscale = par["a1"] * par["Emax"] / math.log(10.0)  # B = bscale ln(a2 p/pmax + a3)
        self.ptr_sqrt = math.sqrt(par["p_tr"])
        self.c_lin = 1.25 / self.ptr_sqrt
        self.c_cub = 0.25 / par["p_tr"] ** 2.5
        self.par = dict(par)
        # True for the ValveActuator scenarios: x and v are prescribed (held
        # between the input rows), so x, v and z do not change (see locked_model).
        self.prescribed_motion = False
        # True for the SlidingMass scenarios: the force on the mass is
        # prescribed (`force`, held between the input rows) instead of
        # p1 A1 - p2 A2, and the hydraulic states do not change.
        self.prescribed_force = False
        self.force = 0.0


def switch_values(y, p: Par, anchor: float = 0.0) -> list[float]:
    """The 21 switching functions g_i(y) (see SW_*). y[I_X] holds x - anchor
    (see locked_model)."""
    us, _, _, p1, p2, pv, xs, v, _ = y
    pen_hi = (anchor - p.Sc) + xs  # x - Sc
    pen_lo = -anchor - xs  # -x
    dps = (p.ps - pv, pv - p1, p1 - p.pt, p2 - p.pt, pv - p2)
    g = [us - p.Ud, us + p.Ud, p1 - p2, v, pen_hi, p.k_s * pen_hi + p.c_s * v,
         pen_lo, p.k_s * pen_lo - p.c_s * v, p1, p2, pv]
    for dp in dps:
        g.append(dp - p.p_tr)
        g.append(dp + p.p_tr)
    return g


def natural_locks(y, p: Par, anchor: float = 0.0) -> list[int]:
    """Branch signs (+1/-1) that the state itself selects (0 counts as +1)."""
    return [1 if g >= 0.0 else -1 for g in switch_values(y, p, anchor)]


def _orifice(dp: float, lk_hi: int, lk_lo: int, p: Par) -> tuple[float, float]:
    """E2 on a locked regime: sqrt branch if dp - p_tr > 0 is locked, negative
    sqrt branch if dp + p_tr < 0 is locked, else the cubic; (f, f')."""
    if lk_hi > 0:
        r = math.sqrt(abs(dp))
        return r, 0.5 / r
    if lk_lo < 0:
        r = math.sqrt(abs(dp))
        return -r, 0.5 / r
    return p.c_lin * dp - p.c_cub * dp**3, p.c_lin - 3.0 * p.c_cub * dp * dp


def _bulk(pr: float, lk: int, p: Par) -> tuple[float, float]:
    """E4 on a locked branch of max(p, 0): (B, dB/dp)."""
    if lk > 0:
        arg = p.a2 * pr / p.pmax + p.a3
        return p.bscale * math.log(arg), p.bscale * p.a2 / (p.pmax * arg)
    return p.bscale * math.log(p.a3), 0.0


def locked_model(y, u: float, lk, kmode: int, p: Par, want_jac: bool = False, anchor: float = 0.0):
    """(V1)-(V6) on the locked branches `lk` and K mode `kmode`.

    y[I_X] holds x - anchor (anchor = Sc or 0 while the piston is near that
    stop): the penetration x - Sc then carries no rounding error of a 1 m
    position, which the 1e8 N/m stop spring would turn into force noise that
    stalls Newton at tight tolerances. The equations are unchanged.

    Returns (dy, jac, extras) with jac the analytic 9x9 Jacobian (or None)
    and extras a dict of intermediate values (flows, friction, r).

    With ``p.prescribed_motion`` (ValveActuator: the rod position and
    velocity are inputs held between input rows) the rows of x, v and z are
    zero; the hydraulic rows (V1-V5) are unchanged.

    With ``p.prescribed_force`` (SlidingMass: the force on the mass is an
    input held between input rows) the mass is driven by ``p.force`` instead
    of p1 A1 - p2 A2 and the hydraulic rows (Us .. pv) are zero: V6 alone.
    """
    us, dus, k, p1, p2, pv, xs, v, z = y
    x = anchor + xs
    pen_hi = (anchor - p.Sc) + xs  # x - Sc
    pen_lo = -anchor - xs  # -x
    wn = p.wn
    # (V1) spool
    d_us = dus
    d_dus = p.Kv * wn * wn * u - 2.0 * p.zeta * wn * dus - wn * wn * us
    # (V4) opening with deadband
    if lk[SW_US_HI] > 0:
        s, ds = us - p.Ud, 1.0
    elif lk[SW_US_LO] < 0:
        s, ds = us + p.Ud, 1.0
    else:
        s, ds = 0.0, 0.0
    # orifices (E2), dp as in ORIFICES
    o = SW_ORIFICE
    f_v, fp_v = _orifice(p.ps - pv, lk[o], lk[o + 1], p)
    # flows (V4): Q1 into A, Q2 out of B, Q3 out of Vv; derivatives wrt (Us, p1, p2, pv)
    if ds > 0.0 and lk[SW_US_HI] > 0:
        fa, fpa = _orifice(pv - p1, lk[o + 2], lk[o + 3], p)
        fb, fpb = _orifice(p2 - p.pt, lk[o + 6], lk[o + 7], p)
        q1 = p.Cv * s * fa
        q2 = p.Cv * s * fb
        dq1 = (p.Cv * fa, -p.Cv * s * fpa, 0.0, p.Cv * s * fpa)
        dq2 = (p.Cv * fb, 0.0, p.Cv * s * fpb, 0.0)
        q3, dq3 = q1, dq1
    elif ds > 0.0:
        fa, fpa = _orifice(p1 - p.pt, lk[o + 4], lk[o + 5], p)
        fb, fpb = _orifice(pv - p2, lk[o + 8], lk[o + 9], p)
        q1 = p.Cv * s * fa
        q2 = p.Cv * s * fb
        dq1 = (p.Cv * fa, p.Cv * s * fpa, 0.0, 0.0)
        dq2 = (p.Cv * fb, 0.0, -p.Cv * s * fpb, p.Cv * s * fpb)
        q3, dq3 = -q2, tuple(-a for a in dq2)
    else:
        q1 = q2 = q3 = 0.0
        dq1 = dq2 = dq3 = (0.0, 0.0, 0.0, 0.0)
    # (V3) compensator
    qv = k * f_v
    use_p1 = lk[SW_P12] > 0
    psh = p1 if use_p1 else p2
    c_k = p.C1 + p.C2 * (p.ps - pv) / 1e5
    r = (p.C5 - (pv - psh) - c_k * k) / p.C3
    d_k = r if kmode == K_FREE else 0.0
    # (V5) pressures, chamber volumes A1 x + Vdead, A2 (Sc - x) + Vdead
    vol1 = p.A1 * x + p.Vdead
    vol2 = p.A2 * (p.Sc - x) + p.Vdead
    b1, db1 = _bulk(p1, lk[SW_B1], p)
    b2, db2 = _bulk(p2, lk[SW_B2], p)
    bv, dbv = _bulk(pv, lk[SW_BV], p)
    net1 = q1 - p.A1 * v
    net2 = p.A2 * v - q2
    netv = qv - q3
    d_p1 = b1 / vol1 * net1
    d_p2 = b2 / vol2 * net2
    d_pv = bv / p.Vv * netv
    # (V6) LuGre with |v| = sv v
    sv = 1.0 if lk[SW_V] > 0 else -1.0
    ex = math.exp(-((v / p.vs) ** 2))
    g = (p.Fc + (p.Fs - p.Fc) * ex) / p.sigma0
    d_z = v - sv * v * z / g
    f_mu = p.sigma0 * z + p.sigma1 * d_z + p.kv * v
    # (V6) end stops, push only
    hi = lk[SW_X_HI] > 0 and lk[SW_F_HI] > 0
    lo = lk[SW_X_LO] > 0 and lk[SW_F_LO] > 0
    f_stop = 0.0
    if hi:
        f_stop -= p.k_s * pen_hi + p.c_s * v
    if lo:
        f_stop += p.k_s * pen_lo - p.c_s * v
    drive = p.force if p.prescribed_force else p1 * p.A1 - p2 * p.A2
    d_v = (drive - f_mu + f_stop) / p.m
    dy = [d_us, d_dus, d_k, d_p1, d_p2, d_pv, v, d_v, d_z]
    frozen = p.prescribed_motion
    if frozen:
        dy[I_X:] = [0.0, 0.0, 0.0]
    if p.prescribed_force:
        dy[:I_X] = [0.0] * I_X
    extras = {"Qv": qv, "Q1": q1, "Q2": q2, "Q3": q3, "F_mu": f_mu, "F_stop": f_stop, "r": r, "s": s}
    if not want_jac:
        return dy, None, extras

    jac = np.zeros((9, 9))
    jac[I_US, I_DUS] = 1.0
    jac[I_DUS, I_US] = -wn * wn
    jac[I_DUS, I_DUS] = -2.0 * p.zeta * wn
    if kmode == K_FREE:
        jac[I_K, I_K] = -c_k / p.C3
        jac[I_K, I_PV] = (-1.0 + p.C2 * k / 1e5) / p.C3
        jac[I_K, I_P1 if use_p1 else I_P2] += 1.0 / p.C3
    cols = (I_US, I_P1, I_P2, I_PV)
    a1 = b1 / vol1
    a2 = b2 / vol2
    av = bv / p.Vv
    for j, col in enumerate(cols):
        jac[I_P1, col] += a1 * dq1[j]
        jac[I_P2, col] -= a2 * dq2[j]
        jac[I_PV, col] -= av * dq3[j]
    jac[I_P1, I_P1] += db1 / vol1 * net1
    jac[I_P1, I_X] = -a1 * p.A1 / vol1 * net1
    jac[I_P1, I_V] = -a1 * p.A1
    jac[I_P2, I_P2] += db2 / vol2 * net2
    jac[I_P2, I_X] = a2 * p.A2 / vol2 * net2
    jac[I_P2, I_V] = a2 * p.A2
    jac[I_PV, I_PV] += dbv / p.Vv * netv - av * k * fp_v  # dQv/dpv = -K f'(ps - pv)
    jac[I_PV, I_K] = av * f_v
    jac[I_X, I_V] = 1.0
    dg = (p.Fs - p.Fc) * ex * (-2.0 * v / p.vs**2) / p.sigma0
    dz_dv = 1.0 - sv * z / g + sv * v * z * dg / (g * g)
    dz_dz = -sv * v / g
    jac[I_Z, I_V] = dz_dv
    jac[I_Z, I_Z] = dz_dz
    dfs_dx = 0.0
    dfs_dv = 0.0
    if hi:
        dfs_dx -= p.k_s
        dfs_dv -= p.c_s
    if lo:
        dfs_dx -= p.k_s
        dfs_dv -= p.c_s
    jac[I_V, I_P1] = p.A1 / p.m
    jac[I_V, I_P2] = -p.A2 / p.m
    jac[I_V, I_X] = dfs_dx / p.m
    jac[I_V, I_V] = (-(p.sigma1 * dz_dv + p.kv) + dfs_dv) / p.m
    jac[I_V, I_Z] = -(p.sigma0 + p.sigma1 * dz_dz) / p.m
    if frozen:
        jac[I_X:, :] = 0.0
    if p.prescribed_force:
        jac[:I_X, :] = 0.0
        jac[I_V, I_P1] = jac[I_V, I_P2] = 0.0
    return dy, jac, extras


def clamp_events(y, kmode: int, p: Par) -> tuple[float, float]:
    """K clamp event functions (both fire when they go from + to -).

    free: (K, Kmax - K); held at 0: (-r, 1); held at Kmax: (1, r), with r the
    unclamped K' (V3) -- r > 0 releases the lower clamp, r < 0 the upper one.
    """
    if kmode == K_FREE:
        return y[I_K], p.Kmax - y[I_K]
    psh = y[I_P1] if y[I_P1] >= y[I_P2] else y[I_P2]
    r = (p.C5 - (y[I_PV] - psh) - (p.C1 + p.C2 * (p.ps - y[I_PV]) / 1e5) * y[I_K]) / p.C3
    return (-r, 1.0) if kmode == K_LOW else (1.0, r)


def event_values(y, lk, kmode: int, p: Par, anchor: float = 0.0) -> list[float]:
    """All 23 event functions: lock-signed switching functions (plus their
    hysteresis), then the K clamp events. An event fires when one goes from
    + to -."""
    g = switch_values(y, p, anchor)
    h = [s * gi + e for s, gi, e in zip(lk, g, HYSTERESIS)]
    h.extend(clamp_events(y, kmode, p))
    return h


# --------------------------------------------------------------------------
# Scenarios: input and output grids
# --------------------------------------------------------------------------


def read_levels() -> list[float]:
    lines = LEVELS_CSV.read_text().strip().splitlines()
    assert lines[0].strip() == "t_start_s,U_V", lines[0]
    rows = [tuple(float(a) for a in line.split(",")) for line in lines[1:]]
    for i, (t0, _) in enumerate(rows):
        assert abs(t0 - 0.5 * i) < 1e-12, (i, t0)
    return [u for _, u in rows]


def input_segments(name: str) -> list[tuple[float, float, float]]:
    """Piecewise-constant U as (t_start, t_end, U) segments, s and V."""
    spec = SCENARIOS[name]
    if spec["input"] == "repeatable":
        n = int(round(spec["stop"] / 1.25))
        return [(k * 1.25, (k + 1) * 1.25, U_REPEATABLE[k % 2]) for k in range(n)]
    levels = read_levels()
    return [(k * 0.5, (k + 1) * 0.5, u) for k, u in enumerate(levels)]


def motion_segments(segs: list[tuple[float, float, float]], t_hold: np.ndarray) -> list[tuple[float, float, float]]:
    """The U segments cut at the hold times of a prescribed motion: one
    segment (t_k, t_k+1, U(t_k)) per hold interval. Every U switch must be a
    hold time."""
    starts = [a for a, _, _ in segs]
    cuts = set(float(t) for t in t_hold)
    missing = [a for a in starts if t_hold[0] <= a < t_hold[-1] and a not in cuts]
    if missing:
        raise ValueError(f"U switches at {missing[:3]} s are not hold times of the motion")
    out = []
    j = 0
    for k in range(len(t_hold) - 1):
        while j + 1 < len(segs) and segs[j + 1][0] <= t_hold[k]:
            j += 1
        out.append((float(t_hold[k]), float(t_hold[k + 1]), segs[j][2]))
    return out


def output_times(name: str) -> np.ndarray:
    """Output grid k * grid (correctly rounded), 0..stop."""
    spec = SCENARIOS[name]
    per_second = round(1.0 / spec["grid"])
    n = int(round(spec["stop"] * per_second))
    return np.arange(n + 1) / per_second


def scenario_par(name: str) -> dict:
    return dict(MODEL_PARAMETERS, **SCENARIOS[name]["parameters"])


def initial_state(par: dict) -> np.ndarray:
    """Initial state of the model description: Us = dUs = 0, K = K_0, p1 = p2 = pv = 9 bar,
    x = x_0, v = 0, z = 0."""
    return np.array([0.0, 0.0, par["K_0"], par["p1_0"], par["p2_0"], par["pv_0"], par["x_0"], 0.0, 0.0])


# --------------------------------------------------------------------------
# Hybrid (event-locating) integration
# --------------------------------------------------------------------------


@dataclass
class HybridTrace:
    """States on the output grid plus event bookkeeping."""

    t: np.ndarray
    y: np.ndarray  # (n, 9)
    events: dict = field(default_factory=dict)  # switch name -> count
    pieces: list = field(default_factory=list)  # (t_a, t_b, locks tuple, kmode)
    n_pieces: int = 0
    fixups: int = 0
    stats: str = ""
    wall: float = 0.0

    def signal(self, name: str, par: dict) -> np.ndarray:
        if name in STATES:
            return self.y[:, STATES.index(name)]
        return self.out(par)[name]

    def out(self, par: dict) -> dict[str, np.ndarray]:
        if not hasattr(self, "_out"):
            rows = [outputs(y, par) for y in self.y]
            self._out = {k: np.array([r[k] for r in rows]) for k in SIGNALS}
        return self._out


def initial_locks(y0, u0: float, p: Par) -> tuple[list[int], int]:
    """Branch signs at t = 0. Switching functions that are exactly zero at the
    initial state (p1 - p2, v, x - Sc, the stop force at x_0 = Sc) take the
    sign they have right after the start: the natural model is stepped with
    RK4 over 1 us (100 steps of 1e-8 s, far inside its stability limit)."""
    g0 = switch_values(list(y0), p)
    y = np.array(y0, dtype=float)
    h = 1e-8

    def f(yy):
        dy = np.array(natural_rhs(yy, u0, p.par))
        if p.prescribed_force:  # SlidingMass: V6 alone, driven by the input force
            dy[I_V] += (p.force - (yy[I_P1] * p.A1 - yy[I_P2] * p.A2)) / p.m
            dy[:I_X] = 0.0
        return dy

    for _ in range(100):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    g1 = switch_values(list(y), p)
    locks = [(1 if a > 0 else -1) if a != 0.0 else (1 if b >= 0 else -1) for a, b in zip(g0, g1)]
    k0 = y0[I_K]
    kmode = K_LOW if k0 <= 0.0 else (K_HIGH if k0 >= p.Kmax else K_FREE)
    return locks, kmode


class _EventCache:
    """Evaluates all 23 event functions once per (t, y) for SciPy's scalar events."""

    def __init__(self, lk, kmode, p, anchor):
        self.lk, self.kmode, self.p, self.anchor = lk, kmode, p, anchor
        self.key = None
        self.val = None

    def __call__(self, t, y):
        key = (t, y.tobytes())
        if key != self.key:
            self.key = key
            self.val = event_values(y.tolist(), self.lk, self.kmode, self.p, self.anchor)
        return self.val


def _radau_piece(t0, y0, t1, u, lk, kmode, p, anchor, t_eval, rtol, atol):
    """One smooth piece with SciPy solve_ivp(Radau). Returns
    (t_end, y_end, fired event indices, t_eval values, y at t_eval, nfev, njev, nlu)."""
    cache = _EventCache(lk, kmode, p, anchor)
    events = []
    for i in range(N_EVENTS):
        ev = (lambda i: lambda t, y: cache(t, y)[i])(i)
        ev.terminal = True
        ev.direction = -1
        events.append(ev)

    def fun(t, y):
        return locked_model(y.tolist(), u, lk, kmode, p, False, anchor)[0]

    def jac(t, y):
        return locked_model(y.tolist(), u, lk, kmode, p, True, anchor)[1]

    extra = len(t_eval) == 0 or t_eval[-1] != t1
    t_req = np.append(t_eval, t1) if extra else t_eval
    sol = solve_ivp(
        fun, (t0, t1), y0, method="Radau", t_eval=t_req, events=events, rtol=rtol, atol=atol,
        jac=jac, max_step=MAX_STEP,
    )
    if sol.status < 0:
        raise RuntimeError(f"Radau failed at t = {t0}: {sol.message}")
    fired = []
    if sol.status == 1:
        te = min(float(tev[0]) for tev in sol.t_events if len(tev))
        for i, tev in enumerate(sol.t_events):
            if len(tev) and float(tev[0]) == te:
                fired.append(i)
        t_end, y_end = te, np.asarray(sol.y_events[fired[0]][0])
    else:
        t_end, y_end = t1, sol.y[:, -1]
    ts = np.asarray(sol.t, dtype=float)
    ys = np.asarray(sol.y, dtype=float).T if len(ts) else np.zeros((0, 9))
    if extra and len(ts) and ts[-1] == t1:
        ts, ys = ts[:-1], ys[:-1]
    return t_end, y_end, fired, ts, ys, sol.nfev, sol.njev, sol.nlu


def _cvode_piece(t0, y0, t1, u, lk, kmode, p, anchor, t_eval, rtol, atol):
    """One smooth piece with SUNDIALS CVODE (BDF) and its own root finding."""
    from sksundae.cvode import CVODE

    def rhs(t, y, yp):
        yp[:] = locked_model(y.tolist(), u, lk, kmode, p, False, anchor)[0]

    def jacfn(t, y, yp, jj):
        jj[:, :] = locked_model(y.tolist(), u, lk, kmode, p, True, anchor)[1]

    def evfn(t, y, ev):
        ev[:] = event_values(y.tolist(), lk, kmode, p, anchor)

    evfn.terminal = [True] * N_EVENTS
    evfn.direction = [-1] * N_EVENTS
    solver = CVODE(
        rhs, method="BDF", rtol=rtol, atol=atol, jacfn=jacfn, eventsfn=evfn, num_events=N_EVENTS,
        max_num_steps=10_000_000, max_step=MAX_STEP,
    )
    tspan = [t0] + [t for t in t_eval if t > t0 and t < t1] + [t1]
    sol = solver.solve(np.array(tspan), np.asarray(y0, dtype=float))
    if not sol.success:
        raise RuntimeError(f"CVODE failed at t = {t0}: {sol.message}")
    ts = np.asarray(sol.t)
    ys = np.asarray(sol.y)
    fired = []
    if sol.status == 2:  # root return
        te = float(sol.t_events[0])
        fired = [int(i) for i in np.nonzero(np.asarray(sol.i_events)[0])[0]]
        t_end, y_end = te, np.asarray(sol.y_events[0])
        ts, ys = ts[:-1], ys[:-1]  # the event point is appended at the end
    else:
        t_end, y_end = t1, ys[-1]
    keep = np.isin(ts, t_eval)
    return t_end, y_end, fired, ts[keep], ys[keep], sol.nfev, sol.njev, 0


def integrate(name: str, par: dict, backend: str, rtol: float, t_out=None, progress: bool = True,
              start=None, motion=None, force=None) -> HybridTrace:
    """Solve one scenario piecewise: stop at every input switch and every event.

    `start` (debugging): (segment index, y, locks, kmode, anchor) to begin at
    the start of that input segment instead of t = 0.

    `motion` (ValveActuator): (t, x, v) arrays of prescribed rod positions
    and velocities, each held from its time to the next; the integration then
    also stops at every one of those times, sets x and v there and keeps them
    (x, v and z have zero rates, see Par.prescribed_motion).

    `force` (SlidingMass): (t, F) arrays of prescribed forces on the mass,
    each held from its time to the next; the integration also stops at every
    one of those times and sets the force there (the hydraulic states have
    zero rates, see Par.prescribed_force)."""
    p = Par(par)
    segs = input_segments(name)
    if motion is not None:
        p.prescribed_motion = True
        segs = motion_segments(segs, motion[0])
    if force is not None:
        p.prescribed_force = True
        p.force = float(force[1][0])
        segs = motion_segments(segs, force[0])
    if t_out is None:
        t_out = output_times(name)
    atol = atol_for(rtol)
    if force is not None:
        atol[I_V] *= MASS_ATOL_V_FACTOR
    piece = _radau_piece if backend == "radau" else _cvode_piece
    if start is None:
        y = initial_state(par)
        lk, kmode = initial_locks(y, segs[0][2], p)
        anchor = 0.0  # y[I_X] holds x - anchor
    else:
        first, y, lk, kmode, anchor = start
        y, lk = np.array(y, dtype=float), list(lk)
        segs = segs[first:]
        t_out = t_out[t_out >= segs[0][0]]
    ys = np.full((len(t_out), 9), np.nan)
    counts = {n: 0 for n in SWITCH_NAMES}
    pieces = []
    nfev = njev = nlu = 0
    fixups = 0
    filled = 0  # output points t_out[:filled] are done
    wall0 = time.perf_counter()
    last_print = wall0
    for seg_index, (t_a, t_b, u) in enumerate(segs):
        t = t_a
        stalls = 0
        if motion is not None:
            y[I_X] = motion[1][seg_index] - anchor
            y[I_V] = motion[2][seg_index]
            y[I_Z] = 0.0
            g = switch_values(y.tolist(), p, anchor)
            for i in MOTION_SWITCHES:
                lk[i] = 1 if g[i] >= 0.0 else -1
        if force is not None:
            p.force = float(force[1][seg_index])
        while True:
            lo = filled
            hi = int(np.searchsorted(t_out, t_b, side="right"))
            t_eval = t_out[lo:hi]
            if len(t_eval) and t_eval[0] < t:
                raise RuntimeError("output point before piece start")
            new_anchor = p.Sc if anchor + y[I_X] > 0.5 * p.Sc else 0.0
            if new_anchor != anchor:
                y[I_X] = (anchor + y[I_X]) - new_anchor
                anchor = new_anchor
            t_end, y_end, fired, te_vals, ye_vals, a, b, c = piece(
                t, y, t_b, u, lk, kmode, p, anchor, t_eval, rtol, atol)
            nfev, njev, nlu = nfev + a, njev + b, nlu + c
            if DEBUG_SLOW and a > 20000:
                print(f"    slow piece {t:.6f} -> {t_end:.6f}: nfev {a}, nlu {c}, fired "
                      f"{[SWITCH_NAMES[i] for i in fired]}, kmode {kmode}, anchor {anchor}\n      y0 {list(y)}\n"
                      f"      locks {lk}", flush=True)
            n_new = len(te_vals)
            if n_new:
                if np.any(te_vals != t_out[filled:filled + n_new]):
                    raise RuntimeError("solver returned unexpected output times")
                ys[filled:filled + n_new] = ye_vals
                ys[filled:filled + n_new, I_X] += anchor
                filled += n_new
            pieces.append((t, t_end, tuple(lk), kmode))
            if RECORD is not None:
                RECORD.append((t, t_end, np.array(y), tuple(lk), kmode, anchor, u))
            if not fired:
                y = np.array(y_end, dtype=float)
                break
            stalls = stalls + 1 if t_end - t < 1e-13 else 0
            if stalls > 20:
                raise RuntimeError(f"event chatter at t = {t_end}: {[SWITCH_NAMES[i] for i in fired]}")
            y = np.array(y_end, dtype=float)
            for i in fired:
                counts[SWITCH_NAMES[i]] += 1
                if i < N_SWITCH:
                    lk[i] = -lk[i]
                elif kmode == K_FREE:
                    kmode = K_LOW if i == EV_K_A else K_HIGH
                    y[I_K] = 0.0 if kmode == K_LOW else p.Kmax
                else:
                    kmode = K_FREE
            # consistency: a switching function on the wrong side of its lock
            # (a simultaneous crossing within root tolerance) gets its lock flipped.
            g = switch_values(y.tolist(), p, anchor)
            for i in range(N_SWITCH):
                if i not in fired and lk[i] * g[i] < -HYSTERESIS[i]:
                    lk[i] = -lk[i]
                    fixups += 1
            t = t_end
            if progress and time.perf_counter() - last_print > 10.0:
                last_print = time.perf_counter()
                print(f"    [{name}] {backend}: t = {t:.3f} s, {sum(counts.values())} events, "
                      f"{time.perf_counter() - wall0:.0f} s", flush=True)
    if filled != len(t_out):
        raise RuntimeError(f"only {filled} of {len(t_out)} output points computed")
    wall = time.perf_counter() - wall0
    stats = f"nfev {nfev}, njev {njev}" + (f", nlu {nlu}" if nlu else "") + f", {len(pieces)} pieces, {sum(counts.values())} events"
    return HybridTrace(t_out, ys, counts, pieces, len(pieces), fixups, stats, wall)


# --------------------------------------------------------------------------
# Explicit Euler at a fixed step (the paper's way), natural branches
# --------------------------------------------------------------------------


def euler(name: str, par: dict, h: float, t_out=None) -> tuple[np.ndarray, bool]:
    """Explicit Euler at the fixed step h on the natural model (V1-V6, every
    branch chosen by the current state); K is clipped to [0, Kmax] after each
    step (the discrete form of the clamp with anti-windup). Returns the states
    on the output grid (h must divide the grid step and the input switching
    times) and whether the run stayed finite."""
    if t_out is None:
        t_out = output_times(name)
    grid = float(t_out[1] - t_out[0])
    per_out = int(round(grid / h))
    if abs(per_out * h - grid) > 1e-12 * grid:
        raise ValueError("h must divide the output step")
    segs = input_segments(name)
    n_steps = (len(t_out) - 1) * per_out
    seg_len = int(round((segs[0][1] - segs[0][0]) / h))
    kmax = par["Kmax"]
    y = [float(a) for a in initial_state(par)]
    ys = np.full((len(t_out), 9), np.nan)
    ys[0] = y
    finite = True
    for n in range(n_steps):
        u = segs[min(n // seg_len, len(segs) - 1)][2]
        dy = natural_rhs(y, u, par)
        y = [a + h * b for a, b in zip(y, dy)]
        y[I_K] = min(max(y[I_K], 0.0), kmax)
        if (n + 1) % per_out == 0:
            row = (n + 1) // per_out
            ys[row] = y
            if not all(math.isfinite(a) and abs(a) < 1e12 for a in y):
                finite = False
                break
    return ys, finite


def natural_cvode(name: str, par: dict, rtol: float, t_out=None) -> tuple[np.ndarray, list[float]]:
    """CVODE BDF on the natural right-hand side (branches by the current
    state, no locking, no events; K' = 0 on a clamp by the anti-windup rule,
    K clipped to [0, Kmax] at each restart), restarted at the input switches
    and, where CVODE gives up (error test failures down to its minimum step),
    from the last state it reached: how a general-purpose solver without event
    location sees the described model. Returns the states on the output grid and
    the times at which it gave up."""
    from sksundae.cvode import CVODE

    if t_out is None:
        t_out = output_times(name)
    y = initial_state(par)
    ys = np.full((len(t_out), 9), np.nan)
    ys[0] = y
    filled = 1
    failures: list[float] = []

    def make_rhs(u):
        def rhs(t, yy, yp):
            yp[:] = natural_rhs(yy, u, par)
        return rhs

    for t_a, t_b, u in input_segments(name):
        rhs = make_rhs(u)
        t = t_a
        while True:
            pts = t_out[(t_out > t) & (t_out <= t_b)]
            tspan = np.concatenate([[t], pts, [] if len(pts) and pts[-1] == t_b else [t_b]])
            solver = CVODE(rhs, method="BDF", rtol=rtol, atol=atol_for(rtol), max_num_steps=10_000_000)
            sol = solver.solve(tspan, y)
            ts, yy = np.asarray(sol.t), np.asarray(sol.y)
            if sol.success:
                ys[filled:filled + len(pts)] = yy[1:1 + len(pts)]
                filled += len(pts)
                y = yy[-1].copy()
                break
            # rows 1..n-2 are output points, the last row is where CVODE stopped
            n_ok = len(ts) - 2
            ys[filled:filled + n_ok] = yy[1:1 + n_ok]
            filled += n_ok
            if not ts[-1] > t:
                raise RuntimeError(f"natural CVODE stuck at t = {t}: {sol.message}")
            t, y = float(ts[-1]), yy[-1].copy()
            failures.append(t)
            if len(failures) > 1000:
                raise RuntimeError("natural CVODE: more than 1000 restarts")
            y[I_K] = min(max(y[I_K], 0.0), par["Kmax"])
        y[I_K] = min(max(y[I_K], 0.0), par["Kmax"])
    if filled != len(t_out):
        raise RuntimeError(f"natural CVODE: {filled} of {len(t_out)} output points")
    return ys, failures


# --------------------------------------------------------------------------
# Analysis of a trace: published numbers, margin, eigenvalues
# --------------------------------------------------------------------------


def stop_times(trace: HybridTrace) -> dict[str, float]:
    """Total times (s) on the stops from the located events (exact, not the
    output grid): x > Sc (in contact with the upper stop), upper stop force
    active (x > Sc and k_s (x - Sc) + c_s v > 0), x < 0, lower force active."""
    out = {"t_x_above_Sc": 0.0, "t_force_hi": 0.0, "t_x_below_0": 0.0, "t_force_lo": 0.0}
    for t_a, t_b, lk, _ in trace.pieces:
        dt = t_b - t_a
        if lk[SW_X_HI] > 0:
            out["t_x_above_Sc"] += dt
            if lk[SW_F_HI] > 0:
                out["t_force_hi"] += dt
        if lk[SW_X_LO] > 0:
            out["t_x_below_0"] += dt
            if lk[SW_F_LO] > 0:
                out["t_force_lo"] += dt
    return out


def normal_flow_mask(trace: HybridTrace, par: dict) -> np.ndarray:
    """Grid points where the piston moves freely under an open valve: |s| > 0,
    |v| > 1 mm/s, off both stops, K strictly inside (0, Kmax)."""
    y = trace.y
    s = np.array([valve_opening(a, par["Ud"]) for a in y[:, I_US]])
    return (
        (np.abs(s) > 0.0)
        & (np.abs(y[:, I_V]) > 1e-3)
        & (y[:, I_X] < par["Sc"])
        & (y[:, I_X] > 0.0)
        & (y[:, I_K] > 0.0)
        & (y[:, I_K] < par["Kmax"])
    )


def jacobian_at(y, par: dict, p: Par | None = None) -> np.ndarray:
    """Analytic Jacobian at a state, on the branches the state selects (K
    held if it sits on a clamp and the unclamped rate pushes outwards)."""
    p = p or Par(par)
    y = [float(a) for a in y]
    r = compensator_rate_unclamped(y[I_K], y[I_P1], y[I_P2], y[I_PV], par)
    kmode = K_FREE
    if y[I_K] <= 0.0 and r < 0.0:
        kmode = K_LOW
    elif y[I_K] >= par["Kmax"] and r > 0.0:
        kmode = K_HIGH
    return locked_model(y, 0.0, natural_locks(y, p), kmode, p, want_jac=True)[1]


def pv_k_eigenvalues(jac: np.ndarray) -> np.ndarray:
    """Eigenvalues of the pv/K block of the Jacobian (the compensator loop)."""
    block = jac[np.ix_([I_PV, I_K], [I_PV, I_K])]
    return np.linalg.eigvals(block)


def analyse(name: str, par: dict, trace: HybridTrace) -> dict:
    """Measured figures of a reference trace (SI units unless named)."""
    o = trace.out(par)
    p = Par(par)
    res = {}
    for k in ("x", "v", "p1", "p2", "pv", "F_mu"):
        res[f"{k}_min"] = float(o[k].min())
        res[f"{k}_max"] = float(o[k].max())
    res["x_end"] = float(o["x"][-1])
    res.update(stop_times(trace))
    res["t_x_above_Sc_grid"] = float(np.mean(o["x"] > par["Sc"]) * SCENARIOS[name]["stop"])
    moving = normal_flow_mask(trace, par)
    margin = (o["pv"] - np.maximum(o["p1"], o["p2"]))[moving]
    res["moving_fraction"] = float(np.mean(moving))
    if len(margin):
        res["margin_median_bar"] = float(np.median(margin) / 1e5)
        res["margin_p05_bar"], res["margin_p95_bar"] = (float(a) / 1e5 for a in np.percentile(margin, [5, 95]))
        res["margin_within_0.005bar"] = float(np.mean(np.abs(margin - 1e6) <= 500.0))
    # eigenvalues along the trace
    eig_block = []
    rho_full = []
    for y in trace.y:
        jac = jacobian_at(y, par, p)
        eig_block.append(pv_k_eigenvalues(jac))
        rho_full.append(np.max(np.abs(np.linalg.eigvals(jac))))
    eig_block = np.array(eig_block)
    mag = np.max(np.abs(eig_block), axis=1)
    rho_full = np.array(rho_full)
    res["pvK_max_abs"] = float(mag.max())
    res["pvK_max_abs_t"] = float(trace.t[np.argmax(mag)])
    res["full_rho_max"] = float(rho_full.max())
    res["full_rho_max_t"] = float(trace.t[np.argmax(rho_full)])
    if moving.any():
        ev = eig_block[moving]
        upper = np.where(ev.imag[:, 0] >= 0, ev[:, 0], ev[:, 1])  # the +imag member
        res["pvK_normal_re_median"] = float(np.median(upper.real))
        res["pvK_normal_im_median"] = float(np.median(np.abs(upper.imag)))
        res["pvK_normal_re_p05_p95"] = [float(a) for a in np.percentile(upper.real, [5, 95])]
        res["pvK_normal_im_p05_p95"] = [float(a) for a in np.percentile(np.abs(upper.imag), [5, 95])]
        res["pvK_normal_complex_fraction"] = float(np.mean(np.abs(upper.imag) > 0))
        res["full_rho_normal_median"] = float(np.median(rho_full[moving]))
    # stalled on a stop with the valve open, and the same without the
    # regularised band of the compensator orifice (ps - pv < p_tr)
    y = trace.y
    s_open = np.array([valve_opening(a, par["Ud"]) for a in y[:, I_US]]) != 0.0
    stalled = ((y[:, I_X] > par["Sc"]) | (y[:, I_X] < 0.0)) & (np.abs(y[:, I_V]) < 1e-3) & s_open
    outside = stalled & (par["ps"] - y[:, I_PV] >= par["p_tr"])
    res["pvK_stalled_max_abs"] = float(mag[stalled].max()) if stalled.any() else 0.0
    res["pvK_stalled_sqrt_regime_max_abs"] = float(mag[outside].max()) if outside.any() else 0.0
    res["pvK_time_above_published"] = {}
    for published in (2.4e3, 2.0e4):
        res["pvK_time_above_published"][published] = float(np.mean(mag > published) * SCENARIOS[name]["stop"])
    # state at the largest pv/K magnitude
    i = int(np.argmax(mag))
    res["pvK_max_state"] = {k: float(trace.y[i, STATES.index(k)]) for k in ("K", "pv", "p1", "p2", "x", "v", "Us")}
    return res


# --------------------------------------------------------------------------
# The published numbers
# --------------------------------------------------------------------------

# (check id, label, measured key, published value as it is written, unit,
# factor from SI to that unit). A number agrees when the measured value,
# rounded or truncated to the published number's last digit, gives that
# number (both readings occur). The stall eigenvalues 2.4e3 and 2.0e4 are
# the figures of an earlier version of the model description (see
# PUBLISHED_DISCREPANCIES); MODEL.md now states what this script finds.
PUBLISHED_NUMBERS = {
    "repeatable": [
        ("a.x_min", "x min", "x_min", "0.9831", "m", 1.0),
        ("a.x_max", "x max", "x_max", "1.0001", "m", 1.0),
        ("a.t_stop", "time on the stop (x > Sc)", "t_x_above_Sc", "4.86", "s", 1.0),
        ("a.v_min", "v min", "v_min", "-25", "mm/s", 1e3),
        ("a.v_max", "v max", "v_max", "88", "mm/s", 1e3),
        ("a.p1_max", "p1 max", "p1_max", "121.5", "bar", 1e-5),
        ("a.p2_max", "p2 max", "p2_max", "91.4", "bar", 1e-5),
        ("a.pv_min", "pv min", "pv_min", "9", "bar", 1e-5),
        ("a.pv_max", "pv max", "pv_max", "140", "bar", 1e-5),
        ("a.F_mu_min", "F_mu min", "F_mu_min", "-352", "N", 1.0),
        ("a.F_mu_max", "F_mu max", "F_mu_max", "432", "N", 1.0),
        ("a.margin", "compensator margin pv - max(p1, p2) while moving (median)", "margin_median_bar", "10.00", "bar", 1.0),
        ("a.eig_stall", "pv/K eigenvalue magnitude, largest (stalled on the stop)", "pvK_max_abs", "2.4e3", "1/s", 1.0),
    ],
    "random": [
        ("b.x_min", "x min", "x_min", "0.9474", "m", 1.0),
        ("b.x_max", "x max", "x_max", "1.0001", "m", 1.0),
        ("b.x_end", "x at 50 s", "x_end", "0.9578", "m", 1.0),
        ("b.t_stop", "time on the stop (x > Sc)", "t_x_above_Sc", "22.4", "s", 1.0),
        ("b.margin", "compensator margin pv - max(p1, p2) while moving (median)", "margin_median_bar", "10.00", "bar", 1.0),
        ("b.eig_stall", "pv/K eigenvalue magnitude, largest (stalled on the stop)", "pvK_max_abs", "2.0e4", "1/s", 1.0),
    ],
    "repeatable_mid": [
        ("amid.x_min", "x min", "x_min", "0.487", "m", 1.0),
        ("amid.x_max", "x max", "x_max", "0.577", "m", 1.0),
        ("amid.margin", "compensator margin pv - max(p1, p2) while moving (median)", "margin_median_bar", "10.00", "bar", 1.0),
    ],
    "random_mid": [
        ("bmid.x_min", "x min", "x_min", "0.500", "m", 1.0),
        ("bmid.x_max", "x max", "x_max", "0.661", "m", 1.0),
        ("bmid.margin", "compensator margin pv - max(p1, p2) while moving (median)", "margin_median_bar", "10.00", "bar", 1.0),
    ],
}

# "In normal flow the pv/K pair sits near -300 +- 880j 1/s": the pair moves
# with the operating point (K, ps - pv, B(pv)); the published value is checked to
# lie inside the 5-95 % band of the pair over the normal-flow grid points
# (normal_flow_mask), and the medians are printed.
PUBLISHED_EIG_NORMAL = {"repeatable": (-300.0, 880.0), "random": (-300.0, 880.0)}

# Explicit Euler (natural branches, no locking) at two small fixed steps on
# every scenario: an independent check that the located-event reference is
# the solution of the model description's equations (first-order convergence towards it).
EULER_CONVERGENCE = (2e-5, 1e-5)

# Explicit Euler on (a): pv relative RMS error (%) against the reference.
PUBLISHED_EULER = (("euler.1e-3", 1e-3, "77"), ("euler.5e-4", 5e-4, "0.85"), ("euler.1e-4", 1e-4, "0.13"))

# Published numbers that the model description's own equations do not
# reproduce: check id -> (what was stated, what this script finds and why). Such a check prints
# DISCREPANCY instead of FAIL and does not fail the run; it is not tuned away.
PUBLISHED_DISCREPANCIES: dict[str, tuple[str, str]] = {
    "a.eig_stall": (
        "'when the piston stalls on a stop and pv approaches ps it [the pv/K pair] reaches 2.4e3 1/s (a)'",
        "the largest magnitude of the pv/K pair along the reference is about 3x larger. It occurs on the stop "
        "right after the switch to -6 V at t = 7.5 s (spool passing the deadband, K ~ 1.2e-8): pv is within p_tr "
        "of ps, in the regularised band of E2 where f'(ps - pv) reaches 1.25/sqrt(p_tr) = 3.95e-3 Pa^-0.5, so "
        "B(pv)/Vv K f' ~ 7e3 1/s. Over the stalled, valve-open points with ps - pv >= p_tr the maximum is "
        "2.40e3 1/s (see the INFO line), i.e. the stated figure matches only if the regularised band is left out",
    ),
    "b.eig_stall": (
        "'... and 2.0e4 1/s (b)'",
        "the largest magnitude is 3.2e4 1/s, at t = 40.5 s with K held at Kmax = 5e-8 and ps - pv ~ 5 hPa: "
        "B(ps)/Vv Kmax 1.25/sqrt(p_tr) = 2.98e4 1/s plus the valve term, the ceiling of this model; the pair is "
        "above 2.0e4 1/s for about 0.56 s of the 50 s. Leaving out ps - pv < p_tr gives 8.7e3 1/s; no reading "
        "found gives 2.0e4 (see the INFO lines)",
    ),
}


class Checks(reference_common.Checks):
    """The shared checks plus the comparison with the published numbers,
    which knows the documented discrepancies."""

    def published(self, check_id: str, name: str, value: float, published: str, unit: str) -> None:
        ok, how = agrees_to_published(value, published)
        detail = f"{value:.6g} {unit}; published {published} {unit} ({how})"
        if check_id in PUBLISHED_DISCREPANCIES:
            stated, why = PUBLISHED_DISCREPANCIES[check_id]
            if ok:
                self.add(name, False, f"{detail} -- listed as a discrepancy but now agrees; "
                         "remove it from PUBLISHED_DISCREPANCIES")
            else:
                self.discrepancy(name, f"{detail}. Stated: {stated}. Found: {why}")
            return
        self.add(name, ok, detail)


def relative_rms_percent(a: np.ndarray, ref: np.ndarray) -> float:
    """RMS(a - ref) / mean(|ref|), in %."""
    return float(100.0 * np.sqrt(np.mean((a - ref) ** 2)) / np.mean(np.abs(ref)))


def relative_max_percent(a: np.ndarray, ref: np.ndarray) -> float:
    return float(100.0 * np.max(np.abs(a - ref)) / np.mean(np.abs(ref)))


def signal_table(y: np.ndarray, par: dict) -> dict[str, np.ndarray]:
    rows = [outputs(r, par) for r in y]
    return {k: np.array([r[k] for r in rows]) for k in SIGNALS}


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def opt_text(name: str) -> str:
    return (
        f"StartTime, {0.0!r}\n"
        f"StopTime, {float(SCENARIOS[name]['stop'])!r}\n"
        f"StepSize, {OPT_STEP!r}\n"
        f"RelTol, {OPT_REL_TOL!r}\n"
    )


def input_table(name: str) -> tuple[np.ndarray, np.ndarray]:
    """One row per level start (held until the next row: step interpolation),
    plus a final row at the stop time with the last level."""
    segs = input_segments(name)
    t = [a for a, _, _ in segs] + [segs[-1][1]]
    u = [c for _, _, c in segs] + [segs[-1][2]]
    return np.array(t), np.array(u)


BOUND_NOTE = (
    "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, "
    "and maximum absolute error in SI units (m, m/s, Pa). x 0.1 % and pv 1 % are the project's accuracy targets. "
    "p1, p2: 1 % like pv; the chamber pressures are smoother than pv (1e-3 m3 chambers against Vv = 1e-5 m3), "
    "and explicit Euler at 1e-4 s (pv 0.13 %) stays within 0.04 % on them in scenario (a). "
    "v: 2 %: the piston rests on a stop for much of the time, so mean |v| (8-13 mm/s) is far below its peaks "
    "(50-88 mm/s) and an absolute error weighs 3-6 times more in % than on the pressures; Euler at 1e-4 s has "
    "v 1.07 % and at 2e-5 s 0.2 % in (a), so 2 % admits a solution of that quality and rejects Euler at 5e-4 s "
    "(v 5.9 %) and a BDF that lets K undershoot its lower clamp and releases it late (v 5.4 %, pv 2.0 % in (b)). "
    "max_abs: 5 % of each signal's range over this reference trace (2 significant digits), to catch a missed, "
    "extra or misplaced spike (valve switching, stop impact, compensator release) that the RMS averages away. "
    "The reference (SciPy Radau rtol 1e-10, discontinuities located as events) agrees with SUNDIALS CVODE "
    "to better than 1e-4 % on these signals; see validation/python/reference/valve_cylinder_NOTES.md."
)


def scenario_doc(name: str, par: dict, ref: dict[str, np.ndarray]) -> dict:
    spec = SCENARIOS[name]
    signals = {}
    for k in ("x", "v", "p1", "p2", "pv"):
        rng = float(ref[k].max() - ref[k].min())
        signals[k] = {"rel_rms_percent": SIGNAL_BOUNDS[k], "max_abs": float(f"{0.05 * rng:.2g}")}
        # v and pv spike when the piston hits or leaves a stop and when the
        # valve switches; a spike a sample early or late (the inputs switch
        # at communication points) leaves a few samples outside FMPy's band
        # (10 % of the range high, 20 of 1000 samples wide) while the RMS and
        # max-abs bounds hold.
        signals[k]["band_outside_percent"] = 0.2
    analytic = []
    if name == "random":
        # MODEL.md: "0.9578 m at 50 s" (4 digits: half a unit of the last digit)
        analytic.append({"signal": "x", "time": 50.0, "value": 0.9578, "rel_tol": 5.3e-5})
    return scenario_json(MODEL, name, spec["description"], spec["parameters"], signals, BOUND_NOTE, analytic)


def scenario_json(*args, **kwargs) -> dict:
    """reference_common.scenario_json for this script's model description."""
    return reference_common.scenario_json(*args, model_description=MODEL_DESCRIPTION, script=SCRIPT, **kwargs)


def scenario_files(name: str, par: dict, t: np.ndarray, ref: dict[str, np.ndarray]) -> dict[str, str]:
    t_in, u_in = input_table(name)
    return {
        f"{MODEL}_in.csv": csv_text(["time", "U"], [t_in, u_in]),
        f"{MODEL}_ref.csv": csv_text(["time", *SIGNALS], [t, *(ref[k] for k in SIGNALS)]),
        f"{MODEL}_ref.opt": opt_text(name),
        "scenario.json": json.dumps(scenario_doc(name, par, ref), indent=2) + "\n",
    }


def cvode_agrees(checks: Checks, label: str, cv: dict[str, np.ndarray] | None, ref: dict[str, np.ndarray],
                 bounds: dict[str, float]) -> bool:
    """CVODE's signals against Radau's: each bounded signal must agree to
    AGREEMENT_FRACTION of its bound (the others are reported). False when
    CVODE did not run (--no-cvode): the reference is then not accepted."""
    if cv is None:
        checks.add(f"{label}: CVODE cross-check", False, "skipped (--no-cvode): the reference is not accepted")
        return False
    ok = True
    for k in ref:
        rms = relative_rms_percent(cv[k], ref[k])
        mx = relative_max_percent(cv[k], ref[k])
        detail = f"rel RMS {rms:.2e} %, max |diff| {mx:.2e} % of mean |{k}|"
        if k in bounds:
            limit = AGREEMENT_FRACTION * bounds[k]
            ok &= checks.add(f"{label}: CVODE vs Radau {k}", rms < limit, detail + f" (limit {limit:g} %)")
        else:
            checks.info(f"{label}: CVODE vs Radau {k}", detail)
    return ok


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def compute_scenario(name: str, no_cvode: bool = False, quick: bool = False) -> dict:
    """Everything that takes time for one scenario (runs in a worker process)."""
    par = scenario_par(name)
    res = {"name": name, "timing": {}}
    t0 = time.perf_counter()
    radau = integrate(name, par, "radau", RADAU_RTOL, progress=True)
    res["timing"]["radau"] = time.perf_counter() - t0
    print(f"  [{name}] Radau rtol {RADAU_RTOL:g}: {res['timing']['radau']:.1f} s, {radau.stats}", flush=True)
    res["t"] = radau.t
    res["y"] = radau.y
    res["radau_stats"] = radau.stats
    res["events"] = radau.events
    res["fixups"] = radau.fixups
    res["analysis"] = analyse(name, par, radau)
    if not no_cvode:
        t0 = time.perf_counter()
        cv = integrate(name, par, "cvode", CVODE_RTOL, progress=True)
        res["timing"]["cvode"] = time.perf_counter() - t0
        print(f"  [{name}] CVODE BDF rtol {CVODE_RTOL:g}: {res['timing']['cvode']:.1f} s, {cv.stats}", flush=True)
        res["cvode_y"] = cv.y
        res["cvode_events"] = cv.events
    if not quick:
        t0 = time.perf_counter()
        res["natural"] = {}
        for rtol in (1e-8, 1e-4):
            res["natural"][rtol] = natural_cvode(name, par, rtol)
        res["timing"]["natural"] = time.perf_counter() - t0
    res["euler"] = {}
    steps = list(EULER_CONVERGENCE) if not quick else []
    if SCENARIOS[name]["input"] == "repeatable" and par["x_0"] == MODEL_PARAMETERS["x_0"]:
        steps = [h for _, h, _ in PUBLISHED_EULER] + steps
    for h in steps:
        t0 = time.perf_counter()
        ys, finite = euler(name, par, h)
        res["euler"][h] = (ys, finite, time.perf_counter() - t0)
        print(f"  [{name}] explicit Euler h = {h:g} s: {res['euler'][h][2]:.1f} s", flush=True)
    return res


def report_scenario(res: dict, args, checks: Checks, out_root: Path) -> None:
    name = res["name"]
    par = scenario_par(name)
    spec = SCENARIOS[name]
    print(f"\n== {MODEL}/{name}: {spec['description']}", flush=True)
    ref = signal_table(res["y"], par)
    an = res["analysis"]
    print(f"  Radau: {res['radau_stats']}, {res['timing']['radau']:.1f} s", flush=True)
    checks.info(f"{name}: located events (Radau)", ", ".join(f"{k} {v}" for k, v in res["events"].items() if v))
    trace_ok = True
    if res["fixups"]:
        checks.info(f"{name}: switching functions found on the wrong side after an event", str(res["fixups"]))

    if "cvode_y" in res:
        checks.info(f"{name}: CVODE run", f"{res['timing']['cvode']:.1f} s")
        same = res["cvode_events"] == res["events"]
        checks.info(f"{name}: events located by CVODE vs Radau",
                    "identical counts per switching function" if same else
                    "counts differ (Radau/CVODE): " + ", ".join(
                        f"{k} {res['events'][k]}/{res['cvode_events'][k]}"
                        for k in res["events"] if res["events"][k] != res["cvode_events"][k]))
    trace_ok &= cvode_agrees(checks, name, signal_table(res["cvode_y"], par) if "cvode_y" in res else None, ref,
                             SIGNAL_BOUNDS)

    if "natural" in res:
        for rtol, (ys, fails) in res["natural"].items():
            nat = signal_table(ys, par)
            parts = [f"{k} {relative_rms_percent(nat[k], ref[k]):.2e} %" for k in ("x", "v", "p1", "p2", "pv")]
            extra = f"; K down to {np.min(ys[:, I_K]):.3g} (the clamp is at 0)"
            if fails:
                extra += (f"; CVODE gave up {len(fails)} time(s) (restarted from its last state) at t = "
                          + ", ".join(f"{a:.6f}" for a in fails[:8]) + (" ..." if len(fails) > 8 else "") + " s")
            checks.info(f"{name}: unlocked model equations, no event location, CVODE BDF rtol {rtol:g}, vs reference",
                        "rel RMS " + ", ".join(parts) + extra)

    conv = [h for h in EULER_CONVERGENCE if h in res.get("euler", {})]
    if len(conv) == 2:
        h2, h1 = conv  # 2e-5, 1e-5
        y2, y1 = res["euler"][h2][0], res["euler"][h1][0]
        extrap = 2.0 * y1 - y2  # first-order Richardson extrapolation
        for k in ("x", "v", "p1", "p2", "pv"):
            i = STATES.index(k)
            e2 = relative_rms_percent(y2[:, i], res["y"][:, i])
            e1 = relative_rms_percent(y1[:, i], res["y"][:, i])
            ex = relative_rms_percent(extrap[:, i], res["y"][:, i])
            detail = (f"rel RMS error {e2:.3g} % at {h2:g} s, {e1:.3g} % at {h1:g} s (ratio {e1 / e2:.3f}), "
                      f"extrapolated 2 y({h1:g}) - y({h2:g}): {ex:.3g} %")
            label = f"{name}: explicit Euler converges to the reference, {k}"
            if k == "v":
                checks.info(label, detail)
            else:
                limit = AGREEMENT_FRACTION * SIGNAL_BOUNDS[k]
                ok = checks.add(label, 0.4 < e1 / e2 < 0.6 and ex < limit, detail + f" (limit {limit:g} %)")
                trace_ok &= ok

    # published numbers
    for check_id, label, key, published, unit, factor in PUBLISHED_NUMBERS[name]:
        checks.published(check_id, f"{name}: {label}", an[key] * factor, published, unit)
    if an["t_x_above_Sc"] > 0:
        checks.info(f"{name}: time on the upper stop",
                    f"x > Sc {an['t_x_above_Sc']:.6g} s (output grid: {an['t_x_above_Sc_grid']:.5g} s), stop force "
                    f"active {an['t_force_hi']:.6g} s (after the force has gone the rod still leaves the stop for a "
                    "few ms)")
    if an["t_x_below_0"] > 0:
        checks.info(f"{name}: time on the lower stop", f"x < 0 {an['t_x_below_0']:.6g} s")
    if name in PUBLISHED_EIG_NORMAL and "pvK_normal_re_p05_p95" in an:
        re_published, im_published = PUBLISHED_EIG_NORMAL[name]
        lo_re, hi_re = an["pvK_normal_re_p05_p95"]
        lo_im, hi_im = an["pvK_normal_im_p05_p95"]
        ok = lo_re <= re_published <= hi_re and lo_im <= im_published <= hi_im
        checks.add(
            f"{name}: pv/K pair in normal flow 'near {re_published:g} +- {im_published:g}j 1/s' (MODEL.md)", ok,
            f"the published value lies {'inside' if ok else 'OUTSIDE'} the 5-95 % band of the pair over the normal-flow "
            f"points (real {lo_re:.4g}..{hi_re:.4g}, imaginary {lo_im:.4g}..{hi_im:.4g}); median "
            f"{an['pvK_normal_re_median']:.4g} +- {an['pvK_normal_im_median']:.4g}j 1/s",
        )
    if "margin_median_bar" in an:
        checks.info(
            f"{name}: margin pv - max(p1, p2) in normal flow ({100 * an['moving_fraction']:.1f} % of the grid)",
            f"median {an['margin_median_bar']:.6f} bar, 5-95 % {an['margin_p05_bar']:.4f}..{an['margin_p95_bar']:.4f} bar, "
            f"{100 * an['margin_within_0.005bar']:.1f} % of the points within 10.00 +- 0.005 bar",
        )
        checks.info(
            f"{name}: pv/K pair in normal flow",
            f"median {an['pvK_normal_re_median']:.4g} +- {an['pvK_normal_im_median']:.4g}j 1/s, real part 5-95 % "
            f"{an['pvK_normal_re_p05_p95'][0]:.4g}..{an['pvK_normal_re_p05_p95'][1]:.4g}, imaginary 5-95 % "
            f"{an['pvK_normal_im_p05_p95'][0]:.4g}..{an['pvK_normal_im_p05_p95'][1]:.4g}; full-Jacobian spectral "
            f"radius median {an['full_rho_normal_median']:.4g} 1/s",
        )
    if an["pvK_stalled_max_abs"] > 0:
        checks.info(
            f"{name}: pv/K magnitude while stalled on a stop with the valve open",
            f"max {an['pvK_stalled_max_abs']:.4g} 1/s; {an['pvK_stalled_sqrt_regime_max_abs']:.4g} 1/s if the points "
            f"with ps - pv < p_tr (regularised band of E2) are left out; time above 2.4e3: "
            f"{an['pvK_time_above_published'][2.4e3]:.3g} s, above 2.0e4: {an['pvK_time_above_published'][2.0e4]:.3g} s",
        )
    st = an["pvK_max_state"]
    checks.info(
        f"{name}: largest pv/K eigenvalue magnitude",
        f"{an['pvK_max_abs']:.4g} 1/s at t = {an['pvK_max_abs_t']:g} s (K = {st['K']:.3g}, pv = {st['pv'] / 1e5:.2f} bar, "
        f"p1 = {st['p1'] / 1e5:.2f} bar, x = {st['x']:.6f} m, v = {st['v']:.2e} m/s, Us = {st['Us']:.3f} V); "
        f"full-Jacobian spectral radius max {an['full_rho_max']:.4g} 1/s at t = {an['full_rho_max_t']:g} s",
    )

    if all(h in res.get("euler", {}) for _, h, _ in PUBLISHED_EULER):
        for check_id, h, published in PUBLISHED_EULER:
            ys, finite, wall = res["euler"][h]
            n = int(np.sum(np.all(np.isfinite(ys), axis=1)))
            e_pv = relative_rms_percent(ys[:n, I_PV], res["y"][:n, I_PV])
            e_x = relative_rms_percent(ys[:n, I_X], res["y"][:n, I_X])
            rng = f"pv from {np.nanmin(ys[:, I_PV]) / 1e5:.1f} to {np.nanmax(ys[:, I_PV]) / 1e5:.1f} bar"
            checks.published(check_id, f"{name}: explicit Euler at h = {h:g} s, pv rel RMS error", e_pv, published, "%")
            checks.info(f"{name}: explicit Euler at h = {h:g} s",
                        f"{'finite' if finite else 'DIVERGED'}, x rel RMS error {e_x:.3g} %, {rng}, {wall:.1f} s")

    files = scenario_files(name, par, res["t"], ref)
    write_or_compare(checks, args.check, name, out_root / MODEL / name, files, trace_ok, exact=args.exact)
    if name in SURROGATE_SCENARIOS:
        write_surrogate_scenarios(checks, args, out_root / MODEL, files["scenario.json"], trace_ok)


# --------------------------------------------------------------------------
# The trained small volume (V8 of the model description)
# --------------------------------------------------------------------------

# The scenarios that also run with each trained pv model, its sample period
# (s), and what the shipped weights reach there (explicit RK4 at the
# period; bench-realtime --errors), which the bounds of those scenarios
# follow: the physics scenarios' own, all met.
SURROGATE_SCENARIOS = ("random", "repeatable", "random_motion")
SURROGATE_PERIOD = 1e-4
SURROGATE_REACHED = (
    "Measured when the weights were trained (bench-realtime --errors, relative RMS): ValveCylinder random NARX "
    "pv 0.59 %, v 0.15 %, x below 0.001 %, LOLIMOT pv 0.82 %, v 0.17 %; repeatable NARX pv 0.07 %, LOLIMOT pv "
    "0.07 %; ValveActuator random_motion NARX pv 0.60 %, F 0.006 %, LOLIMOT pv 0.84 %, F 0.008 %. The physics "
    "scenario's bounds hold unchanged."
)


def write_surrogate_scenarios(checks: Checks, args, model_root: Path, base_text: str, trace_ok: bool) -> None:
    """The scenario folders that run a base scenario with each trained pv
    model (reference_common.surrogate_scenario_files)."""
    base = json.loads(base_text)
    for kind in SURROGATE_KINDS:
        variant, files = surrogate_scenario_files(base, kind, "pv_surrogate", SURROGATE_PERIOD, base["signals"],
                                                  SURROGATE_REACHED)
        write_or_compare(checks, args.check, variant, model_root / variant, files, trace_ok, exact=args.exact)


# --------------------------------------------------------------------------
# ValveActuator: the same hydraulics with the rod motion as an input
# --------------------------------------------------------------------------

ACTUATOR_MODEL = "ValveActuator"
# Each actuator scenario takes U and the rod motion x(t), v(t) of a
# ValveCylinder reference trace, the motion sampled every `hold` seconds and
# held in between (step interpolation: what a co-simulation master feeds an
# FMU without input derivatives). The hold is a multiple of every step size
# the harness runs, so every master and step sees the same input.
ACTUATOR_SCENARIOS = {
    "repeatable_motion": {
        "from": "repeatable",
        "hold": 0.01,
        "description": "U of scenario (a) (10 s, -6 V / +9 V, 2.5 s period) with the rod position and "
        "velocity of the ValveCylinder reference trace of that scenario, sampled every 10 ms and held in between.",
    },
    "random_motion": {
        "from": "random",
        "hold": 0.01,
        "description": "U of scenario (b) (50 s random levels) with the rod position and velocity of the "
        "ValveCylinder reference trace of that scenario, sampled every 10 ms and held in between.",
    },
}
ACTUATOR_SIGNALS = ("F", "p1", "p2", "pv", "Qv", "Q1", "Q2", "Q3", "Us")
# Relative RMS bounds, %: pv 1 % as the project's target; the chamber pressures and
# the force they make (F = p1 A1 - p2 A2) get the same 1 %.
ACTUATOR_BOUNDS = {"F": 1.0, "p1": 1.0, "p2": 1.0, "pv": 1.0}
ACTUATOR_DIGITS = 10  # significant digits of the prescribed x and v (input file = integrated motion)


def actuator_motion(name: str, t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t_hold, x, v) sampled from a ValveCylinder trace on its output grid,
    rounded to ACTUATOR_DIGITS significant digits (so that a recomputed
    trace with last-bit differences gives the same input file)."""
    spec = ACTUATOR_SCENARIOS[name]
    src = SCENARIOS[spec["from"]]
    every = int(round(spec["hold"] / src["grid"]))
    if abs(every * src["grid"] - spec["hold"]) > 1e-12:
        raise ValueError("the hold must be a multiple of the source grid")
    rows = np.arange(0, len(t), every)
    if rows[-1] != len(t) - 1:
        raise ValueError("the hold must divide the scenario's stop time")
    rnd = np.vectorize(lambda a: float(f"{a:.{ACTUATOR_DIGITS}g}"))
    return t[rows], rnd(y[rows, I_X]), rnd(y[rows, I_V])


def actuator_signal_table(y: np.ndarray, par: dict) -> dict[str, np.ndarray]:
    """ValveActuator outputs from the states: F = p1 A1 - p2 A2 (MODEL.md V7) and
    the hydraulic signals."""
    cyl = signal_table(y, par)
    out = {k: cyl[k] for k in ACTUATOR_SIGNALS if k in cyl}
    out["F"] = y[:, I_P1] * par["A1"] - y[:, I_P2] * par["A2"]
    return out


def compute_actuator(name: str, cyl: dict, no_cvode: bool = False) -> dict:
    """Reference of one ValveActuator scenario from the computed ValveCylinder
    result `cyl` of its source scenario."""
    spec = ACTUATOR_SCENARIOS[name]
    src = spec["from"]
    par = scenario_par(src)
    motion = actuator_motion(name, cyl["t"], cyl["y"])
    res = {"name": name, "motion": motion, "source_y": cyl["y"]}
    res.update(integrate_both(src, par, f"{ACTUATOR_MODEL}/{name}", no_cvode, motion=motion))
    return res


def integrate_both(src: str, par: dict, label: str, no_cvode: bool, **held) -> dict:
    """Radau and (unless `no_cvode`) CVODE runs of the source scenario `src`
    with one half of the circuit held (`motion=` for the actuator, `force=`
    for the mass): the output grid, each backend's states, statistics,
    event counts and wall time."""
    res = {"timing": {}}
    for backend, rtol in (("radau", RADAU_RTOL), ("cvode", CVODE_RTOL)):
        if backend == "cvode" and no_cvode:
            continue
        t0 = time.perf_counter()
        tr = integrate(src, par, backend, rtol, progress=True, **held)
        res["timing"][backend] = time.perf_counter() - t0
        res[f"{backend}_y"] = tr.y
        res[f"{backend}_stats"] = tr.stats
        res[f"{backend}_events"] = tr.events
        res["t"] = tr.t
        print(f"  [{label}] {backend} rtol {rtol:g}: {res['timing'][backend]:.1f} s, {tr.stats}", flush=True)
    return res


def actuator_files(name: str, res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    spec = ACTUATOR_SCENARIOS[name]
    t_m, x_m, v_m = res["motion"]
    segs = motion_segments(input_segments(spec["from"]), t_m)
    u_m = np.array([u for _, _, u in segs] + [segs[-1][2]])
    signals = {}
    for k, bound in ACTUATOR_BOUNDS.items():
        rng = float(ref[k].max() - ref[k].min())
        signals[k] = {"rel_rms_percent": bound, "max_abs": float(f"{0.05 * rng:.2g}"), "band_outside_percent": 0.2}
    note = (
        "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, "
        "in %, and maximum absolute error in SI units (N, Pa): 1 % for pv (the project's target), and for p1, p2 and the "
        "force F = p1 A1 - p2 A2 made from them; max_abs 5 % of each signal's range; up to 0.2 % of the samples "
        "may leave FMPy's band (spikes at valve switching, as in the ValveCylinder scenarios). The reference "
        "integrates the hydraulics (V1-V5) of the ValveCylinder reference with the rod motion held between the "
        "input rows, by SciPy Radau (rtol 1e-10, discontinuities located as events), cross-checked by SUNDIALS "
        "CVODE; see validation/python/reference/valve_cylinder_NOTES.md."
    )
    doc = scenario_json(ACTUATOR_MODEL, name, spec["description"], SCENARIOS[spec["from"]]["parameters"], signals,
                        note, [])
    return {
        f"{ACTUATOR_MODEL}_in.csv": csv_text(["time", "U", "x", "v"], [t_m, u_m, x_m, v_m]),
        f"{ACTUATOR_MODEL}_ref.csv": csv_text(["time", *ACTUATOR_SIGNALS], [res["t"], *(ref[k] for k in ACTUATOR_SIGNALS)]),
        f"{ACTUATOR_MODEL}_ref.opt": opt_text(spec["from"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


def report_actuator(res: dict, args, checks: Checks, out_root: Path) -> None:
    name = res["name"]
    spec = ACTUATOR_SCENARIOS[name]
    par = scenario_par(spec["from"])
    print(f"\n== {ACTUATOR_MODEL}/{name}: {spec['description']}", flush=True)
    ref = actuator_signal_table(res["radau_y"], par)
    label = f"{ACTUATOR_MODEL}/{name}"
    cv = actuator_signal_table(res["cvode_y"], par) if "cvode_y" in res else None
    trace_ok = cvode_agrees(checks, label, cv, ref, ACTUATOR_BOUNDS)
    # The prescribed motion is the cylinder's own, held for 10 ms: the
    # hydraulics must stay close to the monolithic trace (a wrong sign of v
    # or a wrong chamber volume would not).
    cyl = actuator_signal_table(res["source_y"], par)
    for k in ("p1", "p2", "pv", "F"):
        rms = relative_rms_percent(ref[k], cyl[k])
        trace_ok &= checks.add(f"{label}: {k} close to the ValveCylinder trace of '{spec['from']}'", rms < 5.0,
                               f"rel RMS {rms:.3g} % (limit 5 %: the motion is held for {spec['hold'] * 1e3:g} ms)")
    files = actuator_files(name, res, ref)
    write_or_compare(checks, args.check, name, out_root / ACTUATOR_MODEL / name, files, trace_ok, exact=args.exact)
    if name in SURROGATE_SCENARIOS:
        write_surrogate_scenarios(checks, args, out_root / ACTUATOR_MODEL, files["scenario.json"], trace_ok)
    if name in WHOLE_ACTUATOR_SCENARIOS:
        write_whole_actuator_scenarios(checks, args, out_root / ACTUATOR_MODEL, files, trace_ok)


# The scenarios run with the whole-actuator surrogates (actuator_surrogate 1
# and 2, MODEL.md V9): one update per 10 ms, so the harness runs them at
# that step only. What the shipped models reach there (bench-realtime
# --circuit ValveActuator/random_motion@0.01 --errors), which the bounds
# follow with a margin: F, p1, p2 within the physics' 1 %; pv, which the
# models renew from a settled-compensator baseline and misses most where the
# valve switches, at 5 % (largest errors 13 bar, at switching).
WHOLE_ACTUATOR_SCENARIOS = ("random_motion",)
WHOLE_ACTUATOR_KINDS = {"hil_narx": (1, "whole-actuator network"), "hil_lolimot": (2, "whole-actuator LOLIMOT tree")}
WHOLE_ACTUATOR_REACHED = (
    "Measured when the models were trained (bench-realtime --circuit ValveActuator/random_motion@0.01 --errors, "
    "relative RMS, largest error): network F 0.50 % (37 N), p1 0.27 %, p2 0.32 %, pv 3.3 % (12.6 bar); LOLIMOT F "
    "0.32 % (20 N), p1 0.17 %, p2 0.11 %, pv 2.6 % (11.8 bar)."
)
WHOLE_ACTUATOR_SIGNALS = {
    "F": {"rel_rms_percent": 1.0, "max_abs": 580.0, "band_outside_percent": 0.2},
    "p1": {"rel_rms_percent": 1.0, "max_abs": 650000.0, "band_outside_percent": 0.2},
    "p2": {"rel_rms_percent": 1.0, "max_abs": 400000.0, "band_outside_percent": 0.2},
    "pv": {"rel_rms_percent": 5.0, "max_abs": 2.0e6, "band_outside_percent": 5.0},
}


def write_whole_actuator_scenarios(checks: Checks, args, model_root: Path, base_files: dict[str, str],
                                   trace_ok: bool) -> None:
    """The scenario folders that run a base ValveActuator scenario (its
    files ``base_files``) with each whole-actuator surrogate: the same inputs
    and reference (``../<base>/``), at the models' 10 ms period only (their
    own options file says so: the harness runs the options' step and the
    scenario's step_sizes), co-simulation only, the bounds they reach with a
    margin."""
    base = json.loads(base_files["scenario.json"])
    opt_name = f"{ACTUATOR_MODEL}_ref.opt"
    opt = "".join(
        "StepSize, 0.01\n" if line.startswith("StepSize,") else line + "\n"
        for line in base_files[opt_name].splitlines()
    )
    for kind, (number, title) in WHOLE_ACTUATOR_KINDS.items():
        name = f"{base['scenario']}_{kind}"
        doc = dict(base)
        doc["scenario"] = name
        doc["description"] = (
            f"{base['description']} With the trained {title} in place of the whole drive (actuator_surrogate = "
            f"{number}): one fixed-cost update per 10 ms, the communication step."
        )
        doc["step_sizes"] = [0.01]
        doc["parameters"] = {**base["parameters"], "actuator_surrogate": number}
        for key in ("inputs", "reference"):
            doc[key] = f"../{base['scenario']}/{base[key]}"
        doc["options"] = opt_name
        doc["signals"] = WHOLE_ACTUATOR_SIGNALS
        doc["analytic"] = []
        doc["co_simulation_only"] = True
        doc["solver_modes"] = ["adaptive"]
        doc["note"] = (
            "The reference, inputs and error measures of the scenario " + base["scenario"] + ", which the models "
            "never trained on (their data are generated runs of other random commands). " + WHOLE_ACTUATOR_REACHED
            + " The model renews the whole drive once per 10 ms, so Model Exchange masters do not run this "
            "scenario, nor do the harness's fixed-cost and stepping-ahead modes (no integrator runs). Weights: the "
            "FMU's resources folder, trained by `train-surrogates` (docs/surrogates.md)."
        )
        files = {"scenario.json": json.dumps(doc, indent=2) + "\n", opt_name: opt}
        write_or_compare(checks, args.check, name, model_root / name, files, trace_ok, exact=args.exact)


# --------------------------------------------------------------------------
# SlidingMass: the mechanics (V6) with the cylinder force as an input
# --------------------------------------------------------------------------

MASS_MODEL = "SlidingMass"
# Each mass scenario takes the cylinder force F = p1 A1 - p2 A2 of a
# ValveCylinder reference trace, sampled every `hold` seconds and held in
# between (what a co-simulation master feeds the FMU from ValveActuator),
# and drives the mass with it: V6 alone, from the model description's initial state
# (x_0 = 1 m, at rest against the upper stop).
MASS_SCENARIOS = {
    "repeatable_force": {
        "from": "repeatable",
        "hold": 0.01,
        "description": "The cylinder force F = p1 A1 - p2 A2 of the ValveCylinder reference trace of scenario (a) "
        "(10 s, U = -6 V / +9 V, 2.5 s period), sampled every 10 ms and held in between, drives the mass (V6); "
        "initial state of the model description (x_0 = 1 m, on the stop).",
    },
    "random_force": {
        "from": "random",
        "hold": 0.01,
        "description": "The cylinder force F = p1 A1 - p2 A2 of the ValveCylinder reference trace of scenario (b) "
        "(50 s random levels), sampled every 10 ms and held in between, drives the mass (V6); initial state of the "
        "model description (x_0 = 1 m, on the stop).",
    },
}
MASS_SIGNALS = ("x", "v", "F_mu")
# Relative RMS bounds, %: x and v as in the ValveCylinder scenarios (same
# motion, same reasons); F_mu as v, see MASS_NOTE.
MASS_BOUNDS = {"x": 0.1, "v": 2.0, "F_mu": 2.0}
MASS_DIGITS = 10  # significant digits of the prescribed force (input file = integrated force)
MASS_NOTE = (
    "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, and "
    "maximum absolute error in SI units (m, m/s, N). x 0.1 % and v 2 % as in the ValveCylinder scenarios, for "
    "the same reasons: this is the same motion (the mass rests on the upper stop much of the time, so mean |v| is "
    "far below its peaks). F_mu 2 %: the friction force follows v while sliding (Coulomb level plus viscous "
    "term) and the bristle deflection z while stuck, where it carries the presliding ring after each stop "
    "(about 100 rad/s, lightly damped) whose phase error weighs like that of v. max_abs: 5 % of each signal's "
    "range over this reference trace (2 significant digits), to catch a missed or misplaced stop impact or "
    "stick-slip transition; up to 0.2 % of the samples may leave FMPy's band (a spike a sample early or late). "
    "The reference integrates V6 with the force held between the input rows, by SciPy Radau (rtol 1e-10, "
    "discontinuities located as events), cross-checked by SUNDIALS CVODE; see "
    "validation/python/reference/valve_cylinder_NOTES.md."
)


def mass_force(name: str, t: np.ndarray, y: np.ndarray, par: dict) -> tuple[np.ndarray, np.ndarray]:
    """(t_hold, F) sampled from a ValveCylinder trace on its output grid,
    F = p1 A1 - p2 A2 rounded to MASS_DIGITS significant digits (so that a
    recomputed trace with last-bit differences gives the same input file)."""
    spec = MASS_SCENARIOS[name]
    src = SCENARIOS[spec["from"]]
    every = int(round(spec["hold"] / src["grid"]))
    if abs(every * src["grid"] - spec["hold"]) > 1e-12:
        raise ValueError("the hold must be a multiple of the source grid")
    rows = np.arange(0, len(t), every)
    if rows[-1] != len(t) - 1:
        raise ValueError("the hold must divide the scenario's stop time")
    force = y[rows, I_P1] * par["A1"] - y[rows, I_P2] * par["A2"]
    rnd = np.vectorize(lambda a: float(f"{a:.{MASS_DIGITS}g}"))
    return t[rows], rnd(force)


def mass_signal_table(y: np.ndarray, par: dict) -> dict[str, np.ndarray]:
    """SlidingMass outputs from the states: x, v and the LuGre force F_mu."""
    out = signal_table(y, par)
    return {k: out[k] for k in MASS_SIGNALS}


def compute_mass(name: str, cyl: dict, no_cvode: bool = False) -> dict:
    """Reference of one SlidingMass scenario from the computed ValveCylinder
    result `cyl` of its source scenario."""
    spec = MASS_SCENARIOS[name]
    src = spec["from"]
    par = scenario_par(src)
    force = mass_force(name, cyl["t"], cyl["y"], par)
    res = {"name": name, "force": force, "source_y": cyl["y"]}
    res.update(integrate_both(src, par, f"{MASS_MODEL}/{name}", no_cvode, force=force))
    return res


def mass_files(name: str, res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    spec = MASS_SCENARIOS[name]
    t_f, f_f = res["force"]
    signals = {}
    for k, bound in MASS_BOUNDS.items():
        rng = float(ref[k].max() - ref[k].min())
        signals[k] = {"rel_rms_percent": bound, "max_abs": float(f"{0.05 * rng:.2g}"), "band_outside_percent": 0.2}
    doc = scenario_json(MASS_MODEL, name, spec["description"], SCENARIOS[spec["from"]]["parameters"], signals,
                        MASS_NOTE, [])
    return {
        f"{MASS_MODEL}_in.csv": csv_text(["time", "F"], [t_f, f_f]),
        f"{MASS_MODEL}_ref.csv": csv_text(["time", *MASS_SIGNALS], [res["t"], *(ref[k] for k in MASS_SIGNALS)]),
        f"{MASS_MODEL}_ref.opt": opt_text(spec["from"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


def report_mass(res: dict, args, checks: Checks, out_root: Path) -> None:
    name = res["name"]
    spec = MASS_SCENARIOS[name]
    par = scenario_par(spec["from"])
    print(f"\n== {MASS_MODEL}/{name}: {spec['description']}", flush=True)
    label = f"{MASS_MODEL}/{name}"
    ref = mass_signal_table(res["radau_y"], par)
    checks.info(f"{label}: located events (Radau)", ", ".join(f"{k} {v}" for k, v in res["radau_events"].items() if v))
    cv = mass_signal_table(res["cvode_y"], par) if "cvode_y" in res else None
    if cv is not None:
        same = res["cvode_events"] == res["radau_events"]
        checks.info(f"{label}: events located by CVODE vs Radau", "identical counts per switching function" if same
                    else "counts differ (Radau/CVODE): " + ", ".join(
                        f"{k} {res['radau_events'][k]}/{res['cvode_events'][k]}" for k in res["radau_events"]
                        if res["radau_events"][k] != res["cvode_events"][k]))
    trace_ok = cvode_agrees(checks, label, cv, ref, MASS_BOUNDS)
    # The hydraulic states must stay frozen (V6 alone), and the force is the
    # cylinder's own, held for 10 ms: the motion must stay close to the
    # monolithic trace (a wrong sign of F, a wrong mass or a missing stop
    # would not). Holding the force delays it by half a hold on average,
    # which alone moves v by about 18 % and F_mu by about 7 % (relative RMS;
    # v of the monolithic trace delayed by 5 ms is 18 % off itself), x by
    # about 0.01 %: x carries the test, v and F_mu only catch gross errors.
    frozen = float(np.max(np.abs(res["radau_y"][:, :I_X] - res["radau_y"][0, :I_X])))
    trace_ok &= checks.add(f"{label}: hydraulic states frozen", frozen == 0.0, f"largest change {frozen:.3g}")
    cyl = mass_signal_table(res["source_y"], par)
    for k, limit in (("x", 0.1), ("v", 40.0), ("F_mu", 20.0)):
        rms = relative_rms_percent(ref[k], cyl[k])
        trace_ok &= checks.add(f"{label}: {k} close to the ValveCylinder trace of '{spec['from']}'", rms < limit,
                               f"rel RMS {rms:.3g} % (limit {limit:g} %: the force is held for "
                               f"{spec['hold'] * 1e3:g} ms)")
    write_or_compare(checks, args.check, name, out_root / MASS_MODEL / name, mass_files(name, res, ref),
                     trace_ok, exact=args.exact)


def _worker(job):
    """One ValveCylinder scenario, then the ValveActuator and SlidingMass
    scenarios that take their motion or force from it."""
    name, no_cvode, quick = job
    res = compute_scenario(name, no_cvode, quick)
    res["actuator"] = [compute_actuator(a, res, no_cvode) for a, spec in ACTUATOR_SCENARIOS.items()
                       if spec["from"] == name]
    res["mass"] = [compute_mass(m, res, no_cvode) for m, spec in MASS_SCENARIOS.items() if spec["from"] == name]
    return res


def main(argv=None) -> int:
    default_out = Path(__file__).resolve().parents[2] / "scenarios"
    parser = argparse.ArgumentParser(
        description="Independent SciPy Radau (+ SUNDIALS CVODE cross-check) reference traces for the "
        "ValveCylinder model description, written in the FMI Cross-Check layout; also checks the published numbers.",
    )
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all",
                        help="ValveCylinder scenario to compute, with the ValveActuator and SlidingMass scenarios that take their "
                        "motion or force from it (default: all)")
    add_check_arguments(parser)
    parser.add_argument("--out-dir", type=Path, default=default_out,
                        help=f"root of the scenario folders (default: {default_out})")
    parser.add_argument("--jobs", type=int, default=2, help="scenarios computed in parallel (default: 2)")
    parser.add_argument("--no-cvode", action="store_true",
                        help="skip the CVODE cross-check (then nothing is written)")
    parser.add_argument("--quick", action="store_true",
                        help="skip the independent checks (Euler convergence at 2e-5 / 1e-5 s, the unlocked "
                        "equations with CVODE); the published Euler numbers on (a) are still computed")
    args = parser.parse_args(argv)

    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    print(f"{MODEL} reference: mode {'check' if args.check else 'write'}, output root {args.out_dir}, "
          f"scenarios {', '.join(names)}, {args.jobs} parallel job(s); this takes minutes", flush=True)
    checks = Checks()
    print("== model-independent checks ==", flush=True)
    check_jacobian(checks)
    jobs = [(n, args.no_cvode, args.quick) for n in names]
    if args.jobs > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor

        # the 50 s scenarios take longest: start them first
        order = sorted(jobs, key=lambda j: -SCENARIOS[j[0]]["stop"])
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            done = dict(zip([j[0] for j in order], pool.map(_worker, order)))
        results = [done[n] for n in names]
    else:
        results = [_worker(j) for j in jobs]
    for res in results:
        report_scenario(res, args, checks, args.out_dir)
        for act in res["actuator"]:
            report_actuator(act, args, checks, args.out_dir)
        for mass in res["mass"]:
            report_mass(mass, args, checks, args.out_dir)
    return checks.finish()


def check_jacobian(checks: Checks) -> None:
    """Analytic Jacobian vs central differences on every branch combination
    met at random states (K column: exact step, the RHS is linear in K)."""
    par = dict(MODEL_PARAMETERS)
    p = Par(par)
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(60):
        y = [rng.uniform(-9, 9), rng.uniform(-2e3, 2e3), rng.uniform(1e-10, 4e-8), rng.uniform(5e5, 1.3e7),
             rng.uniform(5e5, 1.3e7), rng.uniform(5e5, 1.39e7), rng.uniform(-1e-4, 1 + 1e-4),
             rng.uniform(-0.1, 0.1), rng.uniform(-2e-4, 2e-4)]
        lk = natural_locks(y, p)
        for kmode in (K_FREE, K_LOW, K_HIGH):
            jac = locked_model(y, 3.0, lk, kmode, p, want_jac=True)[1]
            scale = np.abs(jac).max(axis=1) + 1e-300
            for j in range(9):
                h = 1e-9 if j == I_K else 1e-7 * max(abs(y[j]), STATE_SCALE[j])
                yp, ym = list(y), list(y)
                yp[j] += h
                ym[j] -= h
                col = (np.array(locked_model(yp, 3.0, lk, kmode, p)[0])
                       - np.array(locked_model(ym, 3.0, lk, kmode, p)[0])) / (2 * h)
                worst = max(worst, float(np.max(np.abs(col - jac[:, j]) / scale)))
    checks.add("analytic Jacobian vs central differences (180 states x K modes, all branches met)", worst < 1e-5,
               f"max diff {worst:.2e} of the row's largest entry")


if __name__ == "__main__":
    sys.exit(main())
