#!/usr/bin/env python3
"""Independent reference solution of the FourBar circuit.

A planar four-bar (crank, coupler, rocker; one degree of freedom, the crank
angle theta) lifted by a hydraulic cylinder that a constant-flow pump, a
relief valve and a closed-centre 4/3 proportional valve drive. The model
description is ``components/circuits/four-bar-circuit/MODEL.md`` (its numbers "the
published numbers" below; equation labels M1-M6 for the linkage,
F1-F8 for the hydraulics, E1 for the energy balance); the equations are
written out here from it as plain functions in SI units, without looking at
the Rust code, and solved in a different way wherever the model description
leaves the way open:

* Mechanism. The loop closure is solved in closed form (the rocker tip is an
  intersection of two circles, on the upper assembly branch), not by Newton
  iteration; the velocity ratios dphi2/dtheta, dphi3/dtheta and their
  derivatives come from the differentiated loop in closed form. The equation
  of motion is the one-coordinate Lagrange equation
  M(theta) theta'' + (M'(theta)/2) theta'^2 = Q_gravity + F_h ds/dtheta,
  with M the generalised mass of the three bars.
* Hydraulics. Pump, smoothed relief valve, the four valve edges with the
  regularised law Q = K dp / (dp^2 + delta^2)^(1/4), a first-order spool,
  Brown-McPhee friction, beta(p) = kp + k0 p and the chamber volumes
  V1 = Vh1 + A1 (l10 + s - s0), V2 = Vh2 + A2 (l20 - s + s0).
* The valve curve N(U) is the parametric clamped B-spline (U(t), N(t)) of
  the model description, built with scipy.interpolate.BSpline; for a given U the
  parameter t is found by a safeguarded Newton iteration on the monotone
  U(t) (checked against scipy.optimize.brentq on the BSpline itself).

Integration. The right-hand side is smooth except where the spool U
crosses 0 (the valve changes from edges PA/BT to PB/AT: the flows are
continuous, their slope in U is not), and the input U_ref is a table of
held rows (every 10 ms). Between two rows U follows an exponential, so the
time at which it crosses 0 is known in closed form: the integration stops at
every row and at every such crossing and restarts there; no step spans a
kink and no event location is needed. SciPy Radau at rtol 1e-10 writes the
trace; SUNDIALS CVODE (BDF, scikit-sundae) at rtol 1e-10 integrates the same
pieces, and the two must agree within a tenth of each signal's bound.

The script writes ``validation/scenarios/FourBar/{sine_linear,sine_real2}``,
``FourBarActuator/sine_linear_motion`` (the hydraulics with the motion of
the FourBar trace as inputs), ``FourBarMechanism/sine_linear_force``
(the linkage driven by the cylinder force of that trace) and
``FourBarTwin/sine_real2_inputs`` (the estimation model given real-2's
control points as inputs: the sine_real2 trace), and checks the
published numbers (continuous sine input) as PASS / FAIL. See
``four_bar_NOTES.md``.

Exit status: 0 when every check passes and, with ``--check``, the files on
disk match; 1 otherwise.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import reference_common
from reference_common import add_check_arguments, csv_text, write_or_compare
from scipy.integrate import Radau
from scipy.interpolate import BSpline, PPoly
from scipy.optimize import brentq

MODEL = "FourBar"
ACTUATOR_MODEL = "FourBarActuator"
MECHANISM_MODEL = "FourBarMechanism"
# The estimation model: FourBar with the valve curve's interior control
# points (and the bulk modulus) as inputs. Its scenario is FourBar's
# sine_real2 with real-2's interior points given as inputs, so the same
# trace is its reference.
TWIN_MODEL = "FourBarTwin"
TWIN_SCENARIO = "sine_real2_inputs"
TWIN_FROM = "sine_real2"
TWIN_SIGNALS = ("theta", "omega", "s", "s_dot", "pp", "p1", "p2", "U", "Qd1", "Q_R", "F_h")
MODEL_DESCRIPTION = "components/circuits/four-bar-circuit/MODEL.md"
SCRIPT = "validation/python/reference/four_bar.py"

# The parameters of the model description (SI units), named as the FMU's parameters.
MODEL_PARAMETERS = {
    # ground points: crank pivot A, rocker pivot C, cylinder base D (m)
    "Ax": -2.0, "Ay": 3.0, "Cx": 8.0, "Cy": 0.0, "Dx": -1.0, "Dy": 0.0,
    "L1": 2.0, "L2": 8.0, "L3": 5.0,  # m, crank, coupler, rocker
    "m1": 100.0, "m2": 400.0, "m3": 250.0,  # kg, uniform slender bars
    "g": 9.81,  # m/s2, along -y
    "A1": 2e-3, "A2": 1.8e-3,  # m2, piston side, rod side
    "s0": 3.0, "s_min": 2.0, "stroke": 2.0,  # m, initial length, shortest length, stroke
    "Qp": 1e-3,  # m3/s, constant-flow pump
    "pT": 1e5,  # Pa, tank
    "rho": 869.0,  # kg/m3
    "Vp": 3.42e-3,  # m3, pump line
    "Vh1": 3.42e-4, "Vh2": 3.42e-4,  # m3, hose volumes of the chambers (replaced value)
    "kp": 1.6e9, "k0": 0.5,  # beta(p) = kp + k0 p
    "Cd": 0.5, "Ad": 1.96e-6,  # valve discharge coefficient, m2 per V
    "p_cr": 7.0e6,  # Pa, relief cracking pressure (replaced)
    "K_R": 1.667e-9,  # m3/(s Pa), relief gain (replaced)
    "dp_R": 2e4,  # Pa, relief smoothing
    "delta": 2e4,  # Pa, valve transition pressure
    "tau": 0.02,  # s, spool time constant (assumed)
    "Fc": 210.0, "Fs": 830.0, "vs": 0.0125, "sigma": 330.0,  # Brown-McPhee friction
    "p2_0": 1e6,  # Pa, initial rod-side pressure
    "curve": 1,  # 1 linear, 2 real-1, 3 real-2
    "degree": 3,  # B-spline degree
}

# Valve curve presets (U in V, N dimensionless), the same for all four edges.
CURVES = {
    1: ("linear", (0.0, 2.0, 4.0, 6.0, 8.0, 10.0), (0.0, 19.0, 38.0, 57.0, 76.0, 95.0)),
    2: ("real-1", (0.0, 2.5, 5.0, 7.5, 10.0), (0.0, 12.0, 35.0, 65.0, 95.0)),
    3: ("real-2", (0.0, 2.0, 4.0, 6.0, 8.0, 10.0), (0.0, 5.0, 12.0, 30.0, 70.0, 95.0)),
}

# States of the monolithic model, in the FMU's order.
STATES = ("theta", "omega", "pp", "p1", "p2", "U", "W_h", "W_f")
I_TH, I_OM, I_PP, I_P1, I_P2, I_U, I_WH, I_WF = range(8)
# Columns of the FourBar reference CSV (after "time"), SI units. The loop
# residual and the energy balance are round-off and integration noise (1e-15 m,
# 1e-9 .. 1e-7 J): they are checked by this script, not written (a recomputation
# on another machine would change them by 100 % of their own size).
SIGNALS = ("theta", "omega", "s", "s_dot", "pp", "p1", "p2", "U", "Qd1", "Qd2", "Q_R", "F_h", "F_mu",
           "phi2", "phi3", "E_mech", "W_h", "W_f")
ACTUATOR_STATES = ("pp", "p1", "p2", "U")
ACTUATOR_SIGNALS = ("F_h", "pp", "p1", "p2", "U", "Qd1", "Qd2", "Q_R", "F_mu")
# The mechanism alone: theta, omega and (for the energy check only) the work
# of the input force W_F.
MECHANISM_STATES = ("theta", "omega", "W_F")
MECHANISM_SIGNALS = ("theta", "omega", "s", "s_dot", "phi2", "phi3", "E_mech")

# Solver settings.
RADAU_RTOL = 1e-10
CVODE_RTOL = 1e-10
# Absolute tolerances per state at rtol 1e-10: about 1e-10 .. 1e-9 of each
# signal's scale (theta ~0.3 rad, omega ~0.3 rad/s, pressures 1e6..8e6 Pa,
# U ~6 V, energies ~1e3..1e4 J), at or above rtol |y| where |y| is small, so
# that Newton does not chase rounding noise.
ATOL = {"theta": 1e-11, "omega": 1e-11, "pp": 1e-3, "p1": 1e-3, "p2": 1e-3, "U": 1e-10,
        "W_h": 1e-7, "W_f": 1e-7, "W_F": 1e-7}
# Typical sizes of the states (finite-difference steps of the Jacobian).
STATE_SCALE = {"theta": 1.0, "omega": 1.0, "pp": 1e6, "p1": 1e6, "p2": 1e6, "U": 1.0, "W_h": 1e3, "W_f": 1e3,
               "W_F": 1e3}
OPT_REL_TOL = 1e-6  # tolerance written to the .opt files for the masters
OPT_STEP = 1e-3  # s, StepSize in the .opt files
GRID = 1e-3  # s, output grid of the reference traces
HOLD = 0.01  # s, rows of the input tables (held; a multiple of both harness steps)
INPUT_DIGITS = 10  # significant digits of the tabulated inputs
AMPLITUDE, FREQUENCY = 10.0, 0.2  # U_ref = 10 sin(2 pi 0.2 t) = 10 sin(0.4 pi t), V
AGREEMENT_FRACTION = 0.1  # CVODE must agree with Radau within this fraction of each bound
ENERGY_LIMIT = 1e-6  # energy balance error, as a fraction of the swing of E_mech

SCENARIOS = {
    "sine_linear": {
        "description": "U_ref = 10 sin(0.4 pi t) V for 5 s, tabulated every 10 ms (each row holds the value at the "
        "middle of its 10 ms interval), `linear` valve curve on all four edges; at rest at s = s0, p2 = 1 MPa, p1 "
        "from the static equilibrium, pp where the relief passes the pump flow, U = 0.",
        "stop": 5.0,
        "parameters": {"curve": 1},
    },
    "sine_real2": {
        "description": "As sine_linear for 10 s with the S-shaped `real-2` valve curve on all four edges: the two "
        "directions pass different flows, so the linkage sinks a little with every period (10 s keeps every pressure "
        "positive; the model has no cavitation limit).",
        "stop": 10.0,
        "parameters": {"curve": 3},
    },
}
ACTUATOR_SCENARIOS = {
    "sine_linear_motion": {
        "from": "sine_linear",
        "description": "The hydraulics alone: U_ref of FourBar/sine_linear and the cylinder length s and rate s_dot "
        "of its reference trace, tabulated every 10 ms (each row holds the values at the middle of its interval); "
        "p1_0 set to the static-equilibrium value of FourBar.",
    },
}
MECHANISM_SCENARIOS = {
    "sine_linear_force": {
        "from": "sine_linear",
        "description": "The linkage alone, driven by the cylinder force F = F_h of the FourBar/sine_linear reference "
        "trace, tabulated every 10 ms (each row holds the value at the middle of its interval); at rest at s = s0.",
    },
}

# Relative RMS bounds (%) of the compared signals (reasons in BOUND_NOTE and
# four_bar_NOTES.md, section 8).
SIGNAL_BOUNDS = {"theta": 0.1, "s": 0.1, "pp": 1.0, "p1": 1.0, "p2": 1.0,
                 "omega": 0.5, "s_dot": 0.5, "F_h": 2.0, "Qd1": 1.0}
ACTUATOR_BOUNDS = {"pp": 1.0, "p1": 1.0, "p2": 1.0, "F_h": 2.0}
MECHANISM_BOUNDS = {"theta": 0.1, "s": 0.1, "omega": 0.5}

# The published numbers (MODEL.md), recomputed under the continuous input
# U_ref = 10 sin(0.4 pi t) (the runs of MODEL.md; the scenario files use the
# tabulated input): per run, (signal, display unit, factor SI -> display,
# published minimum, published maximum); None where MODEL.md states one side
# only. A number passes when it is within 0.1 % of the published range
# (max - min) of that signal, or, where MODEL.md prints fewer digits than that
# needs, when it is within half a unit of the last printed digit.
PUBLISHED_NUMBERS = {
    "linear": [  # `linear` curve, 5 s
        ("theta", "deg", 180.0 / math.pi, "-12.99", "37.14"),
        ("omega", "rad/s", 1.0, "-0.533", "0.395"),
        ("s", "m", 1.0, "2.775", "3.609"),
        ("s_dot", "m/s", 1.0, "-0.522", "0.376"),
        ("pp", "MPa", 1e-6, "7.03", "7.60"),
        ("p1", "MPa", 1e-6, "3.39", "5.56"),
        ("p2", "MPa", 1e-6, "0.85", "3.77"),
        ("Qd1", "L/min", 6e4, "-62.6", "45.1"),
        ("Q_R", "L/min", 6e4, "3.7", "60"),
        ("F_h", "kN", 1e-3, "1.9", "6.1"),
    ],
    "real2": [  # `real-2` curve, 10 s: the mechanism creeps down but stays physical
        ("theta", "deg", 180.0 / math.pi, "-22.3", "29.7"),
        ("p2", "MPa", 1e-6, "0.93", None),  # p2 >= 0.93 MPa
    ],
}
PUBLISHED_RANGE_FRACTION = 1e-3  # "within 0.1 % of each range"
PUBLISHED_P1_0 = "3.393"  # MPa, p1 of the static equilibrium at s = s0
PUBLISHED_PP_0 = "7.600"  # MPa, the relief passes the whole pump flow
PUBLISHED_F_H_0 = "4.986"  # kN, F_h at the start (the holding force)
PUBLISHED_ENERGY_SWING = "4060"  # J, max - min of E_mech (linear, 5 s)
LOOP_RESIDUAL_LIMIT = 1e-9  # m, MODEL.md's limit on any run (its Newton solution: about 1e-14 m)
PUBLISHED_TRANSMISSION = (77.0, 90.0)  # deg, transmission angle in the (linear) scenario
PUBLISHED_RUNS = {"linear": {"curve": 1, "stop": 5.0}, "real2": {"curve": 3, "stop": 10.0}}


# --------------------------------------------------------------------------
# Valve curve: parametric clamped B-spline (U(t), N(t)), t in [0, 1]
# --------------------------------------------------------------------------


def clamped_knots(n: int, p: int) -> list[float]:
    """Clamped uniform knot vector of n control points and degree p: p + 1
    zeros, the interior knots j/(n - p) for j = 1 .. n - p - 1, p + 1 ones."""
    return [0.0] * (p + 1) + [j / (n - p) for j in range(1, n - p)] + [1.0] * (p + 1)


class ValveCurve:
    """(F7) N(U) of one valve edge: the clamped B-spline curve through the control
    points (U_i, N_i), evaluated at the parameter t where U(t) = U.

    The two coordinate splines are scipy BSpline objects; for speed the root
    finding and evaluation use their piecewise-polynomial form (PPoly, exact
    conversion) with a Newton iteration inside the knot span, safeguarded by
    bisection. ``n_of_u_bspline`` is the slow, obviously right version
    (brentq on the BSpline) that the self-check compares against.
    U <= U_0 gives N_0; U >= U_last gives N_last (held).
    """

    def __init__(self, u_pts, n_pts, degree: int = 3) -> None:
        u_pts, n_pts = [float(a) for a in u_pts], [float(a) for a in n_pts]
        n = len(u_pts)
        if n < 2 or len(n_pts) != n or any(b <= a for a, b in zip(u_pts, u_pts[1:])):
            raise ValueError("need n >= 2 control points with increasing U")
        self.p = min(int(degree), n - 1)
        self.knots = clamped_knots(n, self.p)
        self.u_spline = BSpline(np.array(self.knots), np.array(u_pts), self.p, extrapolate=False)
        self.n_spline = BSpline(np.array(self.knots), np.array(n_pts), self.p, extrapolate=False)
        self.u_first, self.u_last = u_pts[0], u_pts[-1]
        self.n_first, self.n_last = n_pts[0], n_pts[-1]
        pu, pn = PPoly.from_spline(self.u_spline), PPoly.from_spline(self.n_spline)
        # keep the spans of positive length; coefficients highest power first
        self.breaks, self.cu, self.cn = [], [], []
        for j in range(len(pu.x) - 1):
            if pu.x[j + 1] > pu.x[j]:
                self.breaks.append(float(pu.x[j]))
                self.cu.append([float(c) for c in pu.c[:, j]])
                self.cn.append([float(c) for c in pn.c[:, j]])
        self.breaks.append(1.0)
        self.u_at_breaks = [self._poly(self.cu[j], 0.0) for j in range(len(self.cu))] + [self.u_last]

    @staticmethod
    def _poly(c, x: float) -> float:
        r = 0.0
        for a in c:
            r = r * x + a
        return r

    @staticmethod
    def _dpoly(c, x: float) -> float:
        deg = len(c) - 1
        r = 0.0
        for i, a in enumerate(c[:-1]):
            r = r * x + (deg - i) * a
        return r

    def parameter(self, u: float) -> tuple[int, float]:
        """(span j, local x = t - breaks[j]) with U(t) = u, for u_first < u < u_last:
        Newton on the span's polynomial from the chord's guess, kept inside a
        shrinking bracket; stops when the step is below 1e-15 of the span."""
        j = min(bisect.bisect_right(self.u_at_breaks, u) - 1, len(self.cu) - 1)
        cu = self.cu[j]
        span = self.breaks[j + 1] - self.breaks[j]
        lo, hi = 0.0, span
        ulo, uhi = self.u_at_breaks[j], self.u_at_breaks[j + 1]
        x = (u - ulo) / (uhi - ulo) * span
        for _ in range(100):
            r = self._poly(cu, x) - u
            if r == 0.0:
                return j, x
            if r > 0.0:
                hi = x
            else:
                lo = x
            d = self._dpoly(cu, x)
            xn = x - r / d if d > 0.0 else 0.5 * (lo + hi)
            if not lo <= xn <= hi:
                xn = 0.5 * (lo + hi)
            if abs(xn - x) <= 1e-15 * span:
                return j, xn
            x = xn
        raise RuntimeError(f"valve curve: no parameter found for U = {u}")

    def n_of_u(self, u: float) -> float:
        """N(U), U >= 0 in use (the valve evaluates N at |U|)."""
        if u <= self.u_first:
            return self.n_first
        if u >= self.u_last:
            return self.n_last
        j, x = self.parameter(u)
        return self._poly(self.cn[j], x)

    def n_of_u_bspline(self, u: float) -> float:
        """The same from the scipy BSpline objects and brentq (slow; for checks)."""
        if u <= self.u_first:
            return self.n_first
        if u >= self.u_last:
            return self.n_last
        t = brentq(lambda tt: float(self.u_spline(tt)) - u, 0.0, 1.0, xtol=1e-16, rtol=1e-15, maxiter=500)
        return float(self.n_spline(t))


def curve_of(par: dict) -> ValveCurve:
    """The valve curve of a parameter set (presets 1..3)."""
    _, u_pts, n_pts = CURVES[int(par["curve"])]
    return ValveCurve(u_pts, n_pts, int(par["degree"]))


# --------------------------------------------------------------------------
# Element laws (scalar, SI units)
# --------------------------------------------------------------------------


def bulk_modulus(p: float, kp: float, k0: float) -> float:
    """(F3) beta(p) = kp + k0 p, Pa."""
    return kp + k0 * p


def relief_flow(pp: float, par) -> float:
    """(F4) Q_R = K_R dp_R ln(1 + exp((pp - p_cr)/dp_R)): the relief's linear law
    K_R (pp - p_cr) above the cracking pressure, smoothed over dp_R; m3/s."""
    return par.K_R * par.dp_R * float(np.logaddexp(0.0, (pp - par.p_cr) / par.dp_R))


def relief_flow_fast(pp: float, k_r: float, p_cr: float, dp_r: float) -> float:
    """relief_flow with math only (the RHS): softplus written so that it
    neither overflows nor loses digits for large |x|."""
    x = (pp - p_cr) / dp_r
    if x > 0.0:
        return k_r * dp_r * (x + math.log1p(math.exp(-x)))
    return k_r * dp_r * math.log1p(math.exp(x))


def relief_pressure_for(q: float, par: dict) -> float:
    """The pump pressure at which the relief passes q (inverse of relief_flow)."""
    y = q / (par["K_R"] * par["dp_R"])  # softplus(x) = y  ->  x = y + ln(1 - exp(-y))
    return par["p_cr"] + par["dp_R"] * (y + math.log(-math.expm1(-y)))


def edge_flow(k: float, dp: float, delta: float) -> float:
    """(F8) one valve edge: Q = K dp / (dp^2 + delta^2)^(1/4), m3/s (K in m3/(s Pa^0.5))."""
    return k * dp / math.sqrt(math.sqrt(dp * dp + delta * delta))


def friction(v: float, fc: float, fs: float, vs: float, sigma: float) -> float:
    """(F6) Brown-McPhee: Fc tanh(4 v/vs) + (Fs - Fc)(v/vs)/((v/vs)^2/4 + 3/4)^2 + sigma v tanh(4), N."""
    r = v / vs
    q = 0.25 * r * r + 0.75
    return fc * math.tanh(4.0 * r) + (fs - fc) * r / (q * q) + sigma * v * TANH4


TANH4 = math.tanh(4.0)


class Par:
    """A parameter set with the derived constants, as attributes."""

    def __init__(self, par: dict) -> None:
        self.__dict__.update(par)
        self.par = dict(par)
        self.curve_obj = curve_of(par)
        # K = Kscale N(U): Cv = Cd Ad sqrt(2/rho) is the flow constant per volt; N = 95 stands for 10 V
        self.Kscale = par["Cd"] * par["Ad"] * math.sqrt(2.0 / par["rho"]) * 10.0 / 95.0
        self.l10 = par["s0"] - par["s_min"]
        self.l20 = par["stroke"] - self.l10
        self.I1 = par["m1"] * par["L1"] ** 2 / 12.0
        self.I2 = par["m2"] * par["L2"] ** 2 / 12.0
        self.I3 = par["m3"] * par["L3"] ** 2 / 12.0


# --------------------------------------------------------------------------
# Mechanism: closed-form loop closure and velocity transformation
# --------------------------------------------------------------------------


@dataclass
class Kinematics:
    """Everything the equations need at one crank angle (theta' = 1 scaling:
    *_d = d/dtheta, *_dd = d2/dtheta2)."""

    phi2: float
    phi3: float
    phi2_d: float
    phi3_d: float
    phi2_dd: float
    phi3_dd: float
    centres: tuple  # ((x1, y1), (x2, y2), (x3, y3)) centres of crank, coupler, rocker
    s: float  # cylinder length |G - D|, G the crank centre
    s_d: float  # ds/dtheta
    mass: float  # generalised mass M(theta) = sum m |dr_k/dtheta|^2 + I_k (dphi_k/dtheta)^2
    coriolis: float  # M'(theta)/2 = sum m dr/dtheta . d2r/dtheta2 + I dphi/dtheta d2phi/dtheta2
    q_gravity: float  # generalised gravity force -g sum m dy_k/dtheta, N m
    potential: float  # g sum m y_k, J
    residual: float  # |A + L1 e(theta) + L2 e(phi2) - C - L3 e(phi3)|, m


def loop_angles(theta: float, p) -> tuple[float, float]:
    """(M1, M2) (phi2, phi3) of the upper assembly branch: the rocker tip E is the
    intersection of the circle of radius L2 about the crank tip B and the
    circle of radius L3 about C that lies to the left of the line B -> C."""
    bx, by = p.Ax + p.L1 * math.cos(theta), p.Ay + p.L1 * math.sin(theta)
    dx, dy = p.Cx - bx, p.Cy - by
    d2 = dx * dx + dy * dy
    d = math.sqrt(d2)
    a = (p.L2 * p.L2 - p.L3 * p.L3 + d2) / (2.0 * d)  # distance from B to the chord's midpoint
    h2 = p.L2 * p.L2 - a * a
    if h2 < 0.0:
        raise ValueError(f"the loop cannot close at theta = {theta}")
    h = math.sqrt(h2)
    ex = bx + (a * dx - h * dy) / d
    ey = by + (a * dy + h * dx) / d
    return math.atan2(ey - by, ex - bx), math.atan2(ey - p.Cy, ex - p.Cx)


def kinematics(theta: float, p) -> Kinematics:
    """(M3, M4, M6) positions, velocity ratios and the terms of the equation
    of motion (M5) at theta, in closed form."""
    ct, st = math.cos(theta), math.sin(theta)
    phi2, phi3 = loop_angles(theta, p)
    c2, s2, c3, s3 = math.cos(phi2), math.sin(phi2), math.cos(phi3), math.sin(phi3)
    L1, L2, L3 = p.L1, p.L2, p.L3
    # velocity ratios from d/dtheta of the loop, dotted with e(phi3) and e(phi2)
    sin32 = math.sin(phi3 - phi2)
    phi2_d = -L1 * math.sin(phi3 - theta) / (L2 * sin32)
    phi3_d = -L1 * math.sin(phi2 - theta) / (L3 * sin32)
    # second derivatives: L2 e'(phi2) phi2'' - L3 e'(phi3) phi3'' = r
    rx = L1 * ct + L2 * phi2_d ** 2 * c2 - L3 * phi3_d ** 2 * c3
    ry = L1 * st + L2 * phi2_d ** 2 * s2 - L3 * phi3_d ** 2 * s3
    phi2_dd = (rx * c3 + ry * s3) / (L2 * sin32)
    phi3_dd = (rx * c2 + ry * s2) / (L3 * sin32)
    # centres and their first and second derivatives in theta
    x1, y1 = p.Ax + 0.5 * L1 * ct, p.Ay + 0.5 * L1 * st
    j1 = (-0.5 * L1 * st, 0.5 * L1 * ct)
    h1 = (-0.5 * L1 * ct, -0.5 * L1 * st)
    bx, by = p.Ax + L1 * ct, p.Ay + L1 * st
    x2, y2 = bx + 0.5 * L2 * c2, by + 0.5 * L2 * s2
    j2 = (-L1 * st - 0.5 * L2 * s2 * phi2_d, L1 * ct + 0.5 * L2 * c2 * phi2_d)
    h2 = (-L1 * ct - 0.5 * L2 * (c2 * phi2_d ** 2 + s2 * phi2_dd),
          -L1 * st - 0.5 * L2 * (s2 * phi2_d ** 2 - c2 * phi2_dd))
    x3, y3 = p.Cx + 0.5 * L3 * c3, p.Cy + 0.5 * L3 * s3
    j3 = (-0.5 * L3 * s3 * phi3_d, 0.5 * L3 * c3 * phi3_d)
    h3 = (-0.5 * L3 * (c3 * phi3_d ** 2 + s3 * phi3_dd), -0.5 * L3 * (s3 * phi3_d ** 2 - c3 * phi3_dd))
    m1, m2, m3 = p.m1, p.m2, p.m3
    mass = (m1 * (j1[0] ** 2 + j1[1] ** 2) + m2 * (j2[0] ** 2 + j2[1] ** 2) + m3 * (j3[0] ** 2 + j3[1] ** 2)
            + p.I1 + p.I2 * phi2_d ** 2 + p.I3 * phi3_d ** 2)
    coriolis = (m1 * (j1[0] * h1[0] + j1[1] * h1[1]) + m2 * (j2[0] * h2[0] + j2[1] * h2[1])
                + m3 * (j3[0] * h3[0] + j3[1] * h3[1]) + p.I2 * phi2_d * phi2_dd + p.I3 * phi3_d * phi3_dd)
    q_gravity = -p.g * (m1 * j1[1] + m2 * j2[1] + m3 * j3[1])
    potential = p.g * (m1 * y1 + m2 * y2 + m3 * y3)
    gx, gy = x1 - p.Dx, y1 - p.Dy
    s = math.hypot(gx, gy)
    s_d = (gx * j1[0] + gy * j1[1]) / s
    res_x = p.Ax + L1 * ct + L2 * c2 - p.Cx - L3 * c3
    res_y = p.Ay + L1 * st + L2 * s2 - p.Cy - L3 * s3
    return Kinematics(phi2, phi3, phi2_d, phi3_d, phi2_dd, phi3_dd, ((x1, y1), (x2, y2), (x3, y3)), s, s_d,
                      mass, coriolis, q_gravity, potential, math.hypot(res_x, res_y))


def angular_acceleration(kin: Kinematics, omega: float, force: float) -> float:
    """(M5) theta'' from M theta'' + (M'/2) theta'^2 = Q_gravity + F ds/dtheta
    (the same equation as R^T M R theta'' = R^T (Q - M a0) + F ds/dtheta:
    R^T M a0 = (M'/2) theta'^2)."""
    return (kin.q_gravity + force * kin.s_d - kin.coriolis * omega * omega) / kin.mass


def crank_angle_for_length(s: float, p) -> float:
    """theta with |G(theta) - D| = s near theta = 0 (MODEL.md's theta0 = 0 for
    s = s0 with its geometry); Newton from 0."""
    theta = 0.0
    for _ in range(50):
        kin = kinematics(theta, p)
        step = (kin.s - s) / kin.s_d
        theta -= step
        if abs(step) < 1e-15:
            break
    return theta


# --------------------------------------------------------------------------
# Hydraulics
# --------------------------------------------------------------------------


def valve_flows(u: float, pp: float, p1: float, p2: float, p) -> tuple[float, float, float, float]:
    """(F8) (Q_PA, Q_AT, Q_PB, Q_BT), m3/s, each positive in its edge's named
    direction; U >= 0 opens PA and BT with K(U), U < 0 opens PB and AT with K(-U)."""
    if u >= 0.0:
        k = p.Kscale * p.curve_obj.n_of_u(u)
        return edge_flow(k, pp - p1, p.delta), 0.0, 0.0, edge_flow(k, p2 - p.pT, p.delta)
    k = p.Kscale * p.curve_obj.n_of_u(-u)
    return 0.0, edge_flow(k, p1 - p.pT, p.delta), edge_flow(k, pp - p2, p.delta), 0.0


def chamber_volumes(s: float, p) -> tuple[float, float]:
    """(F2) V1 = Vh1 + A1 (l10 + s - s0), V2 = Vh2 + A2 (l20 - s + s0), m3, with
    l10 = s0 - s_min, l20 = stroke - l10 (MODEL.md's Vh1 + A1 (s - s_min) and
    Vh2 + A2 (s_min + stroke - s))."""
    return p.Vh1 + p.A1 * (p.l10 + s - p.s0), p.Vh2 + p.A2 * (p.l20 - s + p.s0)


def hydraulic_rates(pp, p1, p2, u, u_ref, s, s_dot, p) -> tuple[float, float, float, float, float, float]:
    """(F1, F2, F5, F6) (pp', p1', p2', U', F_mu, cylinder force p1 A1 - p2 A2)."""
    q_pa, q_at, q_pb, q_bt = valve_flows(u, pp, p1, p2, p)
    q_r = relief_flow_fast(pp, p.K_R, p.p_cr, p.dp_R)
    v1, v2 = chamber_volumes(s, p)
    dpp = bulk_modulus(pp, p.kp, p.k0) / p.Vp * (p.Qp - q_r - q_pa - q_pb)
    dp1 = bulk_modulus(p1, p.kp, p.k0) / v1 * (q_pa - q_at - p.A1 * s_dot)
    dp2 = bulk_modulus(p2, p.kp, p.k0) / v2 * (p.A2 * s_dot - q_bt + q_pb)
    du = (u_ref - u) / p.tau
    f_mu = friction(s_dot, p.Fc, p.Fs, p.vs, p.sigma)
    return dpp, dp1, dp2, du, f_mu, p1 * p.A1 - p2 * p.A2


def fourbar_rhs(y, u_ref: float, p) -> list[float]:
    """The monolithic model: theta, omega, pp, p1, p2, U, W_h, W_f."""
    theta, omega, pp, p1, p2, u = y[0], y[1], y[2], y[3], y[4], y[5]
    kin = kinematics(theta, p)
    s_dot = kin.s_d * omega
    dpp, dp1, dp2, du, f_mu, f_p = hydraulic_rates(pp, p1, p2, u, u_ref, kin.s, s_dot, p)
    return [omega, angular_acceleration(kin, omega, f_p - f_mu), dpp, dp1, dp2, du, f_p * s_dot, f_mu * s_dot]


def actuator_rhs(y, inputs, p) -> list[float]:
    """The hydraulics alone (pp, p1, p2, U) with s and s_dot prescribed."""
    u_ref, s, s_dot = inputs
    dpp, dp1, dp2, du, _, _ = hydraulic_rates(y[0], y[1], y[2], y[3], u_ref, s, s_dot, p)
    return [dpp, dp1, dp2, du]


def mechanism_rhs(y, force: float, p) -> list[float]:
    """The linkage alone (theta, omega) driven by the cylinder force F, plus
    the work of F (W_F' = F s_dot) for the energy check."""
    theta, omega = y[0], y[1]
    kin = kinematics(theta, p)
    return [omega, angular_acceleration(kin, omega, force), force * kin.s_d * omega]


def initial_state(par: dict) -> np.ndarray:
    """At rest at s = s0 (theta0 from the geometry), p2 = p2_0, p1 from the
    static equilibrium (F_h ds/dtheta balances gravity; friction is zero at
    rest), pp where the relief passes the whole pump flow, U = 0."""
    p = Par(par)
    theta0 = crank_angle_for_length(p.s0, p)
    kin = kinematics(theta0, p)
    f_h = -kin.q_gravity / kin.s_d
    p1_0 = (f_h + p.p2_0 * p.A2) / p.A1
    pp_0 = relief_pressure_for(p.Qp, par)
    return np.array([theta0, 0.0, pp_0, p1_0, p.p2_0, 0.0, 0.0, 0.0])


def fourbar_outputs(y: np.ndarray, p) -> dict[str, np.ndarray]:
    """The FMU's outputs from states (rows), SI units; plus loop_residual and E_balance."""
    out = {k: np.empty(len(y)) for k in (*SIGNALS, "loop_residual", "E_balance")}
    for i, row in enumerate(y):
        theta, omega, pp, p1, p2, u, w_h, w_f = (float(a) for a in row)
        kin = kinematics(theta, p)
        s_dot = kin.s_d * omega
        q_pa, q_at, q_pb, q_bt = valve_flows(u, pp, p1, p2, p)
        f_mu = friction(s_dot, p.Fc, p.Fs, p.vs, p.sigma)
        e_mech = 0.5 * kin.mass * omega * omega + kin.potential
        vals = {
            "theta": theta, "omega": omega, "s": kin.s, "s_dot": s_dot, "pp": pp, "p1": p1, "p2": p2, "U": u,
            "Qd1": q_pa - q_at, "Qd2": q_bt - q_pb, "Q_R": relief_flow_fast(pp, p.K_R, p.p_cr, p.dp_R),
            "F_h": p1 * p.A1 - p2 * p.A2 - f_mu, "F_mu": f_mu, "phi2": kin.phi2, "phi3": kin.phi3,
            "E_mech": e_mech, "W_h": w_h, "W_f": w_f, "loop_residual": kin.residual, "E_balance": w_h - w_f - e_mech,
        }
        for k, v in vals.items():
            out[k][i] = v
    out["E_balance"] = out["E_balance"] + out["E_mech"][0] - (out["W_h"][0] - out["W_f"][0])
    return out


def actuator_outputs(y: np.ndarray, held: np.ndarray, p) -> dict[str, np.ndarray]:
    """FourBarActuator outputs from states (rows) and the inputs held at those times."""
    out = {k: np.empty(len(y)) for k in ACTUATOR_SIGNALS}
    for i, (row, inp) in enumerate(zip(y, held)):
        pp, p1, p2, u = (float(a) for a in row)
        s_dot = float(inp[2])
        q_pa, q_at, q_pb, q_bt = valve_flows(u, pp, p1, p2, p)
        f_mu = friction(s_dot, p.Fc, p.Fs, p.vs, p.sigma)
        vals = {"F_h": p1 * p.A1 - p2 * p.A2 - f_mu, "pp": pp, "p1": p1, "p2": p2, "U": u, "Qd1": q_pa - q_at,
                "Qd2": q_bt - q_pb, "Q_R": relief_flow_fast(pp, p.K_R, p.p_cr, p.dp_R), "F_mu": f_mu}
        for k, v in vals.items():
            out[k][i] = v
    return out


def mechanism_outputs(y: np.ndarray, p) -> dict[str, np.ndarray]:
    """FourBarMechanism outputs from states (rows); plus loop_residual and the
    energy balance W_F - (E_mech - E_mech(0))."""
    out = {k: np.empty(len(y)) for k in (*MECHANISM_SIGNALS, "loop_residual", "E_balance")}
    for i, row in enumerate(y):
        theta, omega, w = (float(a) for a in row)
        kin = kinematics(theta, p)
        vals = {"theta": theta, "omega": omega, "s": kin.s, "s_dot": kin.s_d * omega, "phi2": kin.phi2,
                "phi3": kin.phi3, "E_mech": 0.5 * kin.mass * omega * omega + kin.potential,
                "loop_residual": kin.residual, "E_balance": w}
        for k, v in vals.items():
            out[k][i] = v
    out["E_balance"] = out["E_balance"] - (out["E_mech"] - out["E_mech"][0])
    return out


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def rounded(a: float, digits: int = INPUT_DIGITS) -> float:
    return float(f"{a:.{digits}g}")


def sine(t: float) -> float:
    return AMPLITUDE * math.sin(2.0 * math.pi * FREQUENCY * t)


def row_times(stop: float) -> np.ndarray:
    """Input rows k * HOLD (correctly rounded decimals), 0 .. stop."""
    per_second = round(1.0 / HOLD)
    return np.arange(int(round(stop * per_second)) + 1) / per_second


def output_times(stop: float) -> np.ndarray:
    per_second = round(1.0 / GRID)
    return np.arange(int(round(stop * per_second)) + 1) / per_second


def sine_table(stop: float) -> tuple[np.ndarray, np.ndarray]:
    """The U_ref rows: each row holds the sine at the middle of its interval
    (rounded to INPUT_DIGITS significant digits), so the held input has no
    half-row lag. The last row (at the stop time) is never used by a step."""
    t = row_times(stop)
    return t, np.array([rounded(sine(a + 0.5 * HOLD)) for a in t])


def spool_continuous(t: float, tau: float) -> float:
    """U(t) for U(0) = 0 under the continuous U_ref = A sin(w t):
    A (sin wt - w tau cos wt + w tau e^(-t/tau)) / (1 + (w tau)^2)."""
    w = 2.0 * math.pi * FREQUENCY
    wt = w * tau
    return AMPLITUDE * (math.sin(w * t) - wt * math.cos(w * t) + wt * math.exp(-t / tau)) / (1.0 + wt * wt)


def spool_crossings_continuous(stop: float, tau: float) -> list[float]:
    """Times in (0, stop) where U of the continuous-sine run crosses 0."""
    grid = np.linspace(0.0, stop, int(stop * 1000) + 1)
    vals = [spool_continuous(t, tau) for t in grid]
    out = []
    for a, b, fa, fb in zip(grid, grid[1:], vals, vals[1:]):
        if a > 0.0 and fa * fb < 0.0:
            out.append(brentq(lambda t: spool_continuous(t, tau), a, b, xtol=1e-15, rtol=1e-15))
    return out


def spool_crossing(t0: float, t1: float, u0: float, u_ref: float, tau: float) -> float | None:
    """Within a held row (U' = (u_ref - U)/tau from U(t0) = u0) the time at which
    U crosses 0, if it does before t1: t0 + tau ln((u0 - u_ref)/(-u_ref))."""
    if u0 == 0.0 or u_ref == 0.0 or (u0 > 0.0) == (u_ref > 0.0):
        return None
    tc = t0 + tau * math.log((u0 - u_ref) / (-u_ref))
    return tc if t0 < tc < t1 else None


# --------------------------------------------------------------------------
# Piecewise integration (stops at every input row and spool zero crossing)
# --------------------------------------------------------------------------


@dataclass
class Trace:
    t: np.ndarray
    y: np.ndarray
    pieces: int = 0
    crossings: int = 0
    nfev: int = 0
    njev: int = 0
    nlu: int = 0
    wall: float = 0.0
    stats: str = field(default="")


def fd_jacobian(fun, scales):
    """Forward-difference Jacobian of fun(t, y) for Radau's Newton iteration
    (steps 1e-7 of max(|y_j|, typical size of state j)); it only steers Newton,
    the accuracy comes from the error control."""
    n = len(scales)

    def jac(t, y):
        y = y.tolist()
        f0 = fun(t, y)
        out = np.empty((n, n))
        for j in range(n):
            h = 1e-7 * max(abs(y[j]), scales[j])
            yj = list(y)
            yj[j] += h
            out[:, j] = [(a - b) / h for a, b in zip(fun(t, yj), f0)]
        return out

    return jac


def _radau_piece(fun, t0, t1, y0, t_eval, rtol, atol, h0, scales):
    """One smooth piece with SciPy's Radau (forward-difference Jacobian),
    stepped by hand so that the next piece can start with the step size this
    one ended with (h0; None: SciPy's own choice) instead of growing it again
    from a tiny first step after every input row. Output at t_eval from the
    dense output of the step that contains each point.

    Returns (y at t1, y at t_eval, (nfev, njev, nlu), last step size)."""
    solver = Radau(lambda t, y: fun(t, y.tolist()), t0, np.asarray(y0, dtype=float), t1, rtol=rtol, atol=atol,
                   first_step=None if h0 is None else min(h0, t1 - t0), jac=fd_jacobian(fun, scales))
    y_eval = np.empty((len(t_eval), len(y0)))
    i = 0
    h_last = h0
    while solver.status == "running":
        t_old = solver.t
        msg = solver.step()
        if solver.status == "failed":
            raise RuntimeError(f"Radau failed at t = {solver.t} on [{t0}, {t1}]: {msg}")
        if i < len(t_eval) and t_eval[i] <= solver.t:
            dense = solver.dense_output()
            while i < len(t_eval) and t_eval[i] <= solver.t:
                y_eval[i] = solver.y if t_eval[i] == solver.t else dense(t_eval[i])
                i += 1
        if solver.status == "running" or solver.t - t_old >= 0.5 * (h_last or 0.0):
            h_last = solver.t - t_old  # the last step is cut short by t1; keep the earlier size then
    if i != len(t_eval):
        raise RuntimeError("Radau: output points left over")
    return solver.y.copy(), y_eval, (solver.nfev, solver.njev, solver.nlu), h_last


def _cvode_piece(fun, t0, t1, y0, t_eval, rtol, atol, h0, scales):
    """One smooth piece with SUNDIALS CVODE (BDF, difference-quotient
    Jacobian; it chooses its own first step). Same returns as _radau_piece."""
    from sksundae.cvode import CVODE

    def rhs(t, y, yp):
        yp[:] = fun(t, y.tolist())

    solver = CVODE(rhs, method="BDF", rtol=rtol, atol=atol, max_num_steps=1_000_000)
    tspan = np.array([t0, *t_eval, t1])
    sol = solver.solve(tspan, np.asarray(y0, dtype=float))
    if not sol.success:
        raise RuntimeError(f"CVODE failed on [{t0}, {t1}]: {sol.message}")
    ys = np.asarray(sol.y)
    if len(tspan) == 2:  # two times: CVODE reports every internal step; keep the end
        return ys[-1].copy(), np.empty((0, len(y0))), (sol.nfev, sol.njev, 0), None
    if not np.array_equal(np.asarray(sol.t), tspan):
        raise RuntimeError("CVODE returned unexpected output times")
    return ys[-1].copy(), ys[1:-1], (sol.nfev, sol.njev, 0), None


def system_function(system: str, inp, p: Par):
    """The right-hand side f(t, y) of one piece: the held input row `inp`,
    or the exact sine when `inp` is None (FourBar, continuous input)."""
    if system == "fourbar":
        if inp is None:
            return lambda t, y: fourbar_rhs(y, sine(t), p)
        u_ref = float(inp)
        return lambda t, y: fourbar_rhs(y, u_ref, p)
    if system == "actuator":
        held = tuple(float(a) for a in inp)
        return lambda t, y: actuator_rhs(y, held, p)
    force = float(inp)
    return lambda t, y: mechanism_rhs(y, force, p)


SYSTEM_STATES = {"fourbar": STATES, "actuator": ACTUATOR_STATES, "mechanism": MECHANISM_STATES}
SPOOL_INDEX = {"fourbar": I_U, "actuator": ACTUATOR_STATES.index("U"), "mechanism": None}


def integrate(system: str, p: Par, y0, rows, stop: float, backend: str, rtol: float | None = None,
              extra_cuts=None) -> Trace:
    """Integrate `system` ('fourbar', 'actuator' or 'mechanism') from y0 on
    [0, stop] and return its states on the 1 ms output grid.

    rows = (t, values): the input table, each row held until the next (for
    the actuator a row is (U_ref, s, s_dot)). The integration stops at every
    row and, for the systems with a spool, at the closed-form time at which U
    crosses 0 inside a row. rows = None (FourBar only): the exact sine input;
    the pieces then end at the zero crossings of the closed-form U(t).
    extra_cuts (a check of the dense output): more times at which to stop
    and restart, e.g. every output time, so that those are step ends."""
    rtol = rtol or (RADAU_RTOL if backend == "radau" else CVODE_RTOL)
    states = SYSTEM_STATES[system]
    spool = SPOOL_INDEX[system]
    atol = np.array([ATOL[k] for k in states]) * (rtol / 1e-10)
    scales = [STATE_SCALE[k] for k in states]
    piece = _radau_piece if backend == "radau" else _cvode_piece
    t_out = output_times(stop)
    ys = np.full((len(t_out), len(states)), np.nan)
    n_cross = 0
    if rows is None:
        cuts = [0.0, *spool_crossings_continuous(stop, p.tau), stop]
        n_cross = len(cuts) - 2
        segments = [(a, b, None) for a, b in zip(cuts, cuts[1:])]
    else:
        t_rows, values = rows
        n = int(np.searchsorted(t_rows, stop, side="left"))  # rows that start before the stop
        segments = [(float(t_rows[k]), float(t_rows[k + 1]) if k + 1 < n else stop, values[k]) for k in range(n)]
    y = np.array(y0, dtype=float)
    filled = n_pieces = nfev = njev = nlu = 0
    h = None
    wall0 = time.perf_counter()
    for t_a, t_b, inp in segments:
        cuts = [t_a, t_b]
        if spool is not None and inp is not None:
            u_ref = float(inp if np.ndim(inp) == 0 else inp[0])
            tc = spool_crossing(t_a, t_b, float(y[spool]), u_ref, p.tau)
            if tc is not None:
                cuts = [t_a, tc, t_b]
                n_cross += 1
        if extra_cuts is not None:
            cuts = sorted(set(cuts) | {float(c) for c in extra_cuts if cuts[0] < c < cuts[-1]})
        fun = system_function(system, inp, p)
        for t0, t1 in zip(cuts, cuts[1:]):
            if filled < len(t_out) and t_out[filled] == t0:
                ys[filled] = y
                filled += 1
            hi = int(np.searchsorted(t_out, t1, side="left"))
            t_eval = t_out[filled:hi]
            y, y_eval, (a, b, c), h = piece(fun, t0, t1, y, t_eval, rtol, atol, h, scales)
            ys[filled:hi] = y_eval
            filled = hi
            nfev, njev, nlu = nfev + a, njev + b, nlu + c
            n_pieces += 1
    if filled == len(t_out) - 1 and t_out[-1] == stop:
        ys[filled] = y
        filled += 1
    if filled != len(t_out) or np.isnan(ys).any():
        raise RuntimeError(f"only {filled} of {len(t_out)} output points computed")
    wall = time.perf_counter() - wall0
    stats = (f"nfev {nfev}, njev {njev}" + (f", nlu {nlu}" if nlu else "")
             + f", {n_pieces} pieces ({n_cross} at spool zero crossings), {wall:.1f} s")
    return Trace(t_out, ys, n_pieces, n_cross, nfev, njev, nlu, wall, stats)


# --------------------------------------------------------------------------
# Checks of the equations that need no integration
# --------------------------------------------------------------------------


class Checks(reference_common.Checks):
    """The common PASS / FAIL bookkeeping plus the comparisons with the published numbers."""

    def published_range(self, label: str, value: float, published: str, published_range: float, unit: str) -> bool:
        """|value - published| within 0.1 % of the published range, or within
        half a unit of the last printed digit when that is coarser."""
        digit = 10.0 ** reference_common.Decimal(published).as_tuple().exponent
        limit = max(PUBLISHED_RANGE_FRACTION * published_range, 0.5 * digit)
        err = abs(value - float(published))
        return self.add(label, err <= limit, f"{value:.6g} {unit}; published {published} {unit}; |diff| {err:.3g} = "
                        f"{100 * err / published_range:.3g} % of the published range {published_range:.4g} "
                        f"(limit {limit:.3g} {unit}: "
                        + ("0.1 % of the range)" if limit == PUBLISHED_RANGE_FRACTION * published_range
                           else "half a unit of the last printed digit)"))

    def published_digits(self, label: str, value: float, published: str, unit: str) -> bool:
        ok, how = reference_common.agrees_to_published(value, published)
        return self.add(label, ok, f"{value:.8g} {unit}; published {published} {unit} ({how})")


def check_valve_curves(checks: Checks) -> None:
    """The fast N(U) against brentq on the scipy BSpline itself, every preset
    and degree 1..3; the linear preset must give N = 9.5 U exactly (collinear
    control polygon); N(0) = 0; monotone."""
    rng = np.random.default_rng(11)
    us = np.concatenate([rng.uniform(0.0, 10.0, 300), [0.0, 1e-9, 2.0, 5.0, 9.999999, 10.0, 12.0]])
    worst, worst_lin, monotone = 0.0, 0.0, True
    for key, (_, u_pts, n_pts) in CURVES.items():
        for degree in (1, 2, 3):
            c = ValveCurve(u_pts, n_pts, degree)
            fast = np.array([c.n_of_u(float(u)) for u in us])
            slow = np.array([c.n_of_u_bspline(float(u)) for u in us])
            worst = max(worst, float(np.max(np.abs(fast - slow))) / 95.0)
            grid = np.linspace(0.0, 10.0, 2001)
            vals = [c.n_of_u(float(u)) for u in grid]
            monotone &= all(b >= a for a, b in zip(vals, vals[1:])) and vals[0] == 0.0
            if key == 1:
                worst_lin = max(worst_lin, float(np.max(np.abs(fast - 9.5 * np.minimum(us, 10.0)))) / 95.0)
    checks.add("valve curve: Newton on the spans vs brentq on the scipy BSpline (3 presets x degrees 1-3, 307 U)",
               worst < 1e-13, f"max |diff| {worst:.2e} of N = 95")
    checks.add("valve curve: the linear preset is the straight line N = 9.5 U", worst_lin < 1e-13,
               f"max |N - 9.5 U| {worst_lin:.2e} of N = 95")
    checks.add("valve curve: N(0) = 0 and N non-decreasing in U, every preset and degree", monotone, "")
    c = ValveCurve(*CURVES[3][1:])
    checks.info("valve curve real-2 (cubic)", ", ".join(f"N({u:g} V) = {c.n_of_u(u):.4f}" for u in (1, 2, 4, 5.2, 6, 8)))


def check_kinematics(checks: Checks) -> None:
    """Closed-form loop closure and velocity transformation against finite
    differences over the crank's range; M'/2 and the gravity force against
    differences of M and of the potential."""
    p = Par(dict(MODEL_PARAMETERS))
    worst = {"phi'": 0.0, "phi''": 0.0, "s'": 0.0, "M'/2": 0.0, "Q_g": 0.0}
    residual = 0.0
    h = 1e-5
    for theta in np.linspace(-0.6, 1.0, 33):
        k0, kp_, km = kinematics(theta, p), kinematics(theta + h, p), kinematics(theta - h, p)
        residual = max(residual, k0.residual)
        for a, b, c in ((k0.phi2_d, kp_.phi2, km.phi2), (k0.phi3_d, kp_.phi3, km.phi3)):
            worst["phi'"] = max(worst["phi'"], abs(a - (b - c) / (2 * h)) / max(abs(a), 1e-3))
        for a, b, c in ((k0.phi2_dd, kp_.phi2_d, km.phi2_d), (k0.phi3_dd, kp_.phi3_d, km.phi3_d)):
            worst["phi''"] = max(worst["phi''"], abs(a - (b - c) / (2 * h)) / max(abs(a), 1e-2))
        worst["s'"] = max(worst["s'"], abs(k0.s_d - (kp_.s - km.s) / (2 * h)) / abs(k0.s_d))
        worst["M'/2"] = max(worst["M'/2"], abs(k0.coriolis - (kp_.mass - km.mass) / (4 * h)) / k0.mass)
        worst["Q_g"] = max(worst["Q_g"], abs(k0.q_gravity + (kp_.potential - km.potential) / (2 * h))
                           / abs(k0.q_gravity))
    checks.add("loop closure (closed form) over theta -34..57 deg", residual < 1e-12, f"max |Phi| {residual:.2e} m")
    checks.add("velocity transformation vs central differences (theta -34..57 deg)", max(worst.values()) < 1e-7,
               ", ".join(f"{k} {v:.1e}" for k, v in worst.items()) + " (relative)")
    # Grashof: shortest + longest <= sum of the other two, the crank the shortest
    ground = math.hypot(p.Cx - p.Ax, p.Cy - p.Ay)
    links = sorted([ground, p.L1, p.L2, p.L3])
    checks.add("Grashof crank-rocker (shortest link the crank)",
               links[0] + links[3] <= links[1] + links[2] and links[0] == p.L1,
               f"|AC| = {ground:.4f} m; {links[0]:g} + {links[3]:.4f} <= {links[1]:g} + {links[2]:g}")


def check_initial_state(checks: Checks) -> None:
    """theta0 = 0 from s0; the published p1_0 and pp0; every rate zero at the initial state."""
    par = dict(MODEL_PARAMETERS)
    p = Par(par)
    y0 = initial_state(par)
    kin = kinematics(y0[I_TH], p)
    checks.add("theta0 from s = s0 (MODEL.md: 0)", abs(y0[I_TH]) < 1e-15 and abs(kin.s - p.s0) < 1e-15,
               f"theta0 = {y0[I_TH]:.3g} rad, s(theta0) = {kin.s!r} m")
    checks.published_digits("p1_0 from the static equilibrium", y0[I_P1] * 1e-6, PUBLISHED_P1_0, "MPa")
    checks.published_digits("pp0 where the relief passes Qp", y0[I_PP] * 1e-6, PUBLISHED_PP_0, "MPa")
    checks.published_digits("F_h at the start (holds the linkage)", -kin.q_gravity / kin.s_d * 1e-3, PUBLISHED_F_H_0, "kN")
    q = relief_flow(y0[I_PP], p)
    checks.add("relief flow at pp0 equals Qp", abs(q - p.Qp) < 1e-15, f"{q!r} m3/s")
    rates = fourbar_rhs(y0.tolist(), 0.0, p)
    scale = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    worst = max(abs(r) / s for r, s in zip(rates, scale))
    checks.add("at rest in equilibrium at t = 0 (U_ref = 0): every rate zero", worst < 1e-9,
               "rates " + ", ".join(f"{n} {r:.2g}" for n, r in zip(STATES, rates)))
    checks.info("initial state", f"theta0 = {y0[I_TH]:g} rad, pp0 = {float(y0[I_PP])!r} Pa, p1_0 = "
                f"{float(y0[I_P1])!r} Pa, p2_0 = {float(y0[I_P2])!r} Pa, U0 = 0; F_h = {-kin.q_gravity / kin.s_d:.6f} N, ds/dtheta = {kin.s_d!r} m, "
                f"M = {kin.mass:.6f} kg m2")


# --------------------------------------------------------------------------
# Runs (each a worker process job)
# --------------------------------------------------------------------------


def scenario_par(name: str) -> dict:
    return dict(MODEL_PARAMETERS, **SCENARIOS[name]["parameters"])


def mid_rows(t_out: np.ndarray, stop: float) -> np.ndarray:
    """Indices into the output grid of the middle of every input row's
    interval (t_k + HOLD/2); the last row (at the stop time) gets the one
    before it (it only ends the table)."""
    rows = row_times(stop)
    idx = np.searchsorted(t_out, rows + 0.5 * HOLD - 1e-12)
    idx[-1] = idx[-2]
    if not np.allclose(t_out[idx[:-1]], rows[:-1] + 0.5 * HOLD, rtol=0, atol=1e-12):
        raise ValueError("the middle of the rows must be on the output grid")
    return idx


def fourbar_rows(stop: float) -> tuple[np.ndarray, np.ndarray]:
    """The U_ref table; the last row (at the stop time) repeats the one before."""
    t, u = sine_table(stop)
    u[-1] = u[-2]
    return t, u


def run_both(system: str, p: Par, y0, rows, stop: float, no_cvode: bool, label: str) -> dict:
    res = {}
    for backend in ("radau", "cvode"):
        if backend == "cvode" and no_cvode:
            continue
        tr = integrate(system, p, y0, rows, stop, backend)
        res[backend] = tr
        print(f"  [{label}] {backend}: {tr.stats}", flush=True)
    return res


def compute_fourbar(name: str, no_cvode: bool, quick: bool) -> dict:
    spec = SCENARIOS[name]
    par = scenario_par(name)
    p = Par(par)
    y0 = initial_state(par)
    rows = fourbar_rows(spec["stop"])
    res = {"name": name, "rows": rows, "runs": run_both("fourbar", p, y0, rows, spec["stop"], no_cvode,
                                                         f"{MODEL}/{name}")}
    if not quick:
        # dense output check: the first 0.2 s again with a restart at every output time
        t0 = time.perf_counter()
        short = integrate("fourbar", p, y0, rows, 0.2, "radau", extra_cuts=output_times(0.2))
        res["dense_check"] = (short.y, time.perf_counter() - t0)
    return res


def compute_published_run(key: str, no_cvode: bool) -> dict:
    spec = PUBLISHED_RUNS[key]
    par = dict(MODEL_PARAMETERS, curve=spec["curve"])
    return {"key": key, "runs": run_both("fourbar", Par(par), initial_state(par), None, spec["stop"], no_cvode,
                                         f"published numbers, {key}, continuous sine")}


def actuator_rows(src: dict) -> tuple[np.ndarray, np.ndarray]:
    """(t, [U_ref, s, s_dot]) rows: U_ref of the FourBar table, s and s_dot of
    its Radau trace at the middle of each row (INPUT_DIGITS digits)."""
    stop = SCENARIOS[src["name"]]["stop"]
    tr = src["runs"]["radau"]
    out = fourbar_outputs(tr.y, Par(scenario_par(src["name"])))
    idx = mid_rows(tr.t, stop)
    t, u = src["rows"]
    s = np.array([rounded(a) for a in out["s"][idx]])
    sd = np.array([rounded(a) for a in out["s_dot"][idx]])
    return t, np.column_stack([u, s, sd])


def mechanism_rows(src: dict) -> tuple[np.ndarray, np.ndarray]:
    """(t, F) rows: F_h of the FourBar Radau trace at the middle of each row."""
    stop = SCENARIOS[src["name"]]["stop"]
    tr = src["runs"]["radau"]
    out = fourbar_outputs(tr.y, Par(scenario_par(src["name"])))
    idx = mid_rows(tr.t, stop)
    return src["rows"][0], np.array([rounded(a) for a in out["F_h"][idx]])


def compute_actuator(name: str, src: dict, no_cvode: bool) -> dict:
    spec = ACTUATOR_SCENARIOS[name]
    par = scenario_par(spec["from"])
    y0 = initial_state(par)[[I_PP, I_P1, I_P2, I_U]]
    rows = actuator_rows(src)
    return {"name": name, "rows": rows, "y0": y0,
            "runs": run_both("actuator", Par(par), y0, rows, SCENARIOS[spec["from"]]["stop"], no_cvode,
                             f"{ACTUATOR_MODEL}/{name}")}


def compute_mechanism(name: str, src: dict, no_cvode: bool) -> dict:
    spec = MECHANISM_SCENARIOS[name]
    par = scenario_par(spec["from"])
    y0 = np.array([initial_state(par)[I_TH], 0.0, 0.0])
    rows = mechanism_rows(src)
    return {"name": name, "rows": rows,
            "runs": run_both("mechanism", Par(par), y0, rows, SCENARIOS[spec["from"]]["stop"], no_cvode,
                             f"{MECHANISM_MODEL}/{name}")}


def _worker(job) -> dict:
    """One FourBar scenario with the published run of its curve and the actuator
    and mechanism scenarios that take their inputs from it."""
    name, no_cvode, quick = job
    res = compute_fourbar(name, no_cvode, quick)
    key = "linear" if SCENARIOS[name]["parameters"]["curve"] == 1 else "real2"
    res["published"] = compute_published_run(key, no_cvode)
    res["actuator"] = [compute_actuator(a, res, no_cvode) for a, s in ACTUATOR_SCENARIOS.items() if s["from"] == name]
    res["mechanism"] = [compute_mechanism(m, res, no_cvode) for m, s in MECHANISM_SCENARIOS.items()
                        if s["from"] == name]
    return res


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def relative_rms_percent(a: np.ndarray, ref: np.ndarray) -> float:
    """RMS(a - ref) / mean(|ref|), in % (the harness's measure)."""
    return float(100.0 * np.sqrt(np.mean((a - ref) ** 2)) / np.mean(np.abs(ref)))


def relative_max_percent(a: np.ndarray, ref: np.ndarray) -> float:
    return float(100.0 * np.max(np.abs(a - ref)) / np.mean(np.abs(ref)))


def opt_text(stop: float) -> str:
    return f"StartTime, {0.0!r}\nStopTime, {float(stop)!r}\nStepSize, {OPT_STEP!r}\nRelTol, {OPT_REL_TOL!r}\n"


def signal_bounds(ref: dict[str, np.ndarray], bounds: dict[str, float]) -> dict:
    """scenario.json signals: the relative RMS bound and max_abs = 5 % of the
    signal's range over the reference trace (2 significant digits)."""
    return {k: {"rel_rms_percent": b, "max_abs": float(f"{0.05 * float(ref[k].max() - ref[k].min()):.2g}")}
            for k, b in bounds.items()}


def scenario_json(*args, **kwargs) -> dict:
    """reference_common.scenario_json for this script's model description."""
    return reference_common.scenario_json(*args, model_description=MODEL_DESCRIPTION, script=SCRIPT, **kwargs)


INPUT_NOTE = (
    "The input table has a row every 10 ms holding the value at the middle of its interval (10 significant digits), "
    "with step interpolation: every master and both steps (1 ms, 10 ms) see exactly the input the reference "
    "integrates, without the half-row lag of sampling at the row's start. "
)
REFERENCE_NOTE = (
    "The reference (SciPy Radau rtol 1e-10, restarted at every input row and at every zero crossing of the spool U, "
    "whose time is known in closed form) agrees with SUNDIALS CVODE (BDF, rtol 1e-10) to better than 1e-6 % on "
    "these signals; see validation/python/reference/four_bar_NOTES.md."
)
BOUND_NOTE = (
    "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, and maximum "
    "absolute error in SI units (rad, m, rad/s, m/s, Pa, N, m3/s). theta and s 0.1 %, pp, p1 and p2 1 %: the "
    "project's targets for positions and pressures (s has a large mean, 3.1 m, so its 0.1 % is ten times looser "
    "than theta's; theta carries the motion check). omega and s_dot 0.5 %: the same motion differentiated; a "
    "solver's error weighs 1.5-6 times more on them than on theta (CVODE at rtol 1e-6 / 1e-4: theta 5e-4 / "
    "0.012 %, omega 8e-4 / 0.040 %). F_h 2 %: p1 A1 - p2 A2 - F_mu is a difference of 7-11 kN and 2-7 kN terms, so "
    "its relative error is about twice that of p2 (rtol 1e-4: p2 0.072 %, F_h 0.121 %). Qd1 1 %: the valve flow "
    "into chamber 1, about A1 s_dot plus the compression flow; its errors follow p1 and s_dot. A timing error of "
    "1 ms in the input (or a 5 % error in tau) moves theta by 0.11 % and fails; a 5 ms lag (the input sampled at "
    "the rows' start) moves theta by 0.55 %. max_abs: 5 % of each signal's range over this reference trace (2 "
    "significant digits), against a missed or misplaced transient that the RMS averages away. "
)


def fourbar_analytic(y0: np.ndarray) -> list:
    return [
        {"signal": "theta", "time": 0.0, "value": 0.0, "abs_tol": 1e-12,
         "note": "at rest at s = s0, which is theta = 0 in the geometry of the model description"},
        {"signal": "p1", "time": 0.0, "value": float(y0[I_P1]), "rel_tol": 1e-8,
         "note": "static equilibrium at s = s0: (F_h + p2_0 A2)/A1 with F_h ds/dtheta balancing gravity"},
        {"signal": "pp", "time": 0.0, "value": float(y0[I_PP]), "rel_tol": 1e-8,
         "note": "the relief passes the whole pump flow: K_R dp_R ln(1 + exp((pp - p_cr)/dp_R)) = Qp"},
    ]


def fourbar_files(res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    name = res["name"]
    spec = SCENARIOS[name]
    par = scenario_par(name)
    t_in, u_in = res["rows"]
    doc = scenario_json(MODEL, name, spec["description"], spec["parameters"], signal_bounds(ref, SIGNAL_BOUNDS),
                        BOUND_NOTE + INPUT_NOTE + REFERENCE_NOTE, fourbar_analytic(initial_state(par)))
    tr = res["runs"]["radau"]
    return {
        f"{MODEL}_in.csv": csv_text(["time", "U_ref"], [t_in, u_in]),
        f"{MODEL}_ref.csv": csv_text(["time", *SIGNALS], [tr.t, *(ref[k] for k in SIGNALS)]),
        f"{MODEL}_ref.opt": opt_text(spec["stop"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


ACTUATOR_NOTE = (
    "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, and maximum "
    "absolute error in SI units (Pa, N): pp, p1 and p2 1 % (the project's target for pressures), F_h 2 % (a "
    "difference of p1 A1 and p2 A2, its relative error about twice that of p2; see the FourBar scenarios); max_abs "
    "5 % of each signal's range. The inputs U_ref, s and s_dot come from the FourBar/sine_linear reference trace. "
    + INPUT_NOTE + "The reference integrates the hydraulics alone with s and s_dot held, by SciPy Radau (rtol "
    "1e-10, restarted at every row and spool zero crossing), cross-checked by SUNDIALS CVODE; see "
    "validation/python/reference/four_bar_NOTES.md."
)
MECHANISM_NOTE = (
    "Bounds: relative RMS error = RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, and maximum "
    "absolute error in SI units (rad, m, rad/s): theta and s 0.1 %, omega 0.5 % as in the FourBar scenarios; "
    "max_abs 5 % of each signal's range. The force F comes from the FourBar/sine_linear reference trace (F_h). "
    + INPUT_NOTE + "Without the hydraulic stiffness the linkage integrates the force open loop: the held force "
    "alone moves theta by about 1.4 % from the FourBar trace, which is why this scenario has its own reference. "
    "The reference integrates the linkage alone (closed-form loop closure) by SciPy Radau (rtol 1e-10, restarted "
    "at every row), cross-checked by SUNDIALS CVODE; see validation/python/reference/four_bar_NOTES.md."
)


def actuator_files(res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    name = res["name"]
    spec = ACTUATOR_SCENARIOS[name]
    src = SCENARIOS[spec["from"]]
    y0 = res["y0"]
    params = dict(src["parameters"], p1_0=float(y0[1]))
    analytic = [{"signal": "pp", "time": 0.0, "value": float(y0[0]), "rel_tol": 1e-8,
                 "note": "the relief passes the whole pump flow"}]
    doc = scenario_json(ACTUATOR_MODEL, name, spec["description"], params, signal_bounds(ref, ACTUATOR_BOUNDS),
                        ACTUATOR_NOTE, analytic)
    t_in, vals = res["rows"]
    tr = res["runs"]["radau"]
    return {
        f"{ACTUATOR_MODEL}_in.csv": csv_text(["time", "U_ref", "s", "s_dot"], [t_in, vals[:, 0], vals[:, 1], vals[:, 2]]),
        f"{ACTUATOR_MODEL}_ref.csv": csv_text(["time", *ACTUATOR_SIGNALS], [tr.t, *(ref[k] for k in ACTUATOR_SIGNALS)]),
        f"{ACTUATOR_MODEL}_ref.opt": opt_text(src["stop"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


def twin_files(res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    """FourBarTwin/sine_real2_inputs: FourBar's sine_real2 with the curve's
    interior control points N1..N4 (real-2's 5, 12, 30, 70 on the default
    6 equally spaced points) and kp, k0 as constant inputs."""
    spec = SCENARIOS[TWIN_FROM]
    par = scenario_par(TWIN_FROM)
    _, u_pts, n_pts = CURVES[spec["parameters"]["curve"]]
    interior = [float(v) for v in n_pts[1:-1]]
    t_in, u_in = res["rows"]
    description = (f"FourBar's {TWIN_FROM} on the estimation model: real-2's interior control points "
                   f"{', '.join(f'{v:g}' for v in interior)} and the model description's kp, k0 as inputs; the same trace.")
    doc = scenario_json(TWIN_MODEL, TWIN_SCENARIO, description, {}, signal_bounds(ref, SIGNAL_BOUNDS),
                        BOUND_NOTE + INPUT_NOTE + REFERENCE_NOTE, fourbar_analytic(initial_state(par)))
    const = lambda v: np.full(len(t_in), v)  # noqa: E731
    columns = {"U_ref": u_in, "kp": const(MODEL_PARAMETERS["kp"]), "k0": const(MODEL_PARAMETERS["k0"]),
               **{f"N{i + 1}": const(v) for i, v in enumerate(interior)}}
    tr = res["runs"]["radau"]
    return {
        f"{TWIN_MODEL}_in.csv": csv_text(["time", *columns], [t_in, *columns.values()]),
        f"{TWIN_MODEL}_ref.csv": csv_text(["time", *TWIN_SIGNALS], [tr.t, *(ref[k] for k in TWIN_SIGNALS)]),
        f"{TWIN_MODEL}_ref.opt": opt_text(spec["stop"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


def mechanism_files(res: dict, ref: dict[str, np.ndarray]) -> dict[str, str]:
    name = res["name"]
    spec = MECHANISM_SCENARIOS[name]
    src = SCENARIOS[spec["from"]]
    analytic = [{"signal": "theta", "time": 0.0, "value": 0.0, "abs_tol": 1e-12, "note": "at rest at s = s0"},
                {"signal": "s", "time": 0.0, "value": MODEL_PARAMETERS["s0"], "abs_tol": 1e-12, "note": "s0"}]
    doc = scenario_json(MECHANISM_MODEL, name, spec["description"], {}, signal_bounds(ref, MECHANISM_BOUNDS),
                        MECHANISM_NOTE, analytic)
    t_in, f_in = res["rows"]
    tr = res["runs"]["radau"]
    return {
        f"{MECHANISM_MODEL}_in.csv": csv_text(["time", "F"], [t_in, f_in]),
        f"{MECHANISM_MODEL}_ref.csv": csv_text(["time", *MECHANISM_SIGNALS],
                                               [tr.t, *(ref[k] for k in MECHANISM_SIGNALS)]),
        f"{MECHANISM_MODEL}_ref.opt": opt_text(src["stop"]),
        "scenario.json": json.dumps(doc, indent=2) + "\n",
    }


# --------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------


def cvode_agrees(checks: Checks, label: str, cv: dict | None, ref: dict, bounds: dict) -> bool:
    """CVODE's signals against Radau's: each bounded signal within
    AGREEMENT_FRACTION of its bound (the others reported)."""
    if cv is None:
        checks.add(f"{label}: CVODE cross-check", False, "skipped (--no-cvode): the reference is not accepted")
        return False
    ok = True
    for k in ref:
        if k in ("loop_residual", "E_balance"):
            continue
        rms = relative_rms_percent(cv[k], ref[k])
        mx = relative_max_percent(cv[k], ref[k])
        detail = f"rel RMS {rms:.2e} %, max |diff| {mx:.2e} % of mean |{k}|"
        if k in bounds:
            limit = AGREEMENT_FRACTION * bounds[k]
            ok &= checks.add(f"{label}: CVODE vs Radau {k}", rms < limit, detail + f" (limit {limit:g} %)")
        else:
            checks.info(f"{label}: CVODE vs Radau {k}", detail)
    return ok


def energy_check(checks: Checks, label: str, out: dict) -> bool:
    swing = float(out["E_mech"].max() - out["E_mech"].min())
    worst = float(np.max(np.abs(out["E_balance"])))
    return checks.add(f"{label}: energy balance", worst <= ENERGY_LIMIT * swing,
                      f"max |W - delta E_mech| {worst:.2e} J against the swing of E_mech {swing:.6g} J "
                      f"(limit {ENERGY_LIMIT:g} of it)")


def residual_check(checks: Checks, label: str, out: dict) -> bool:
    worst = float(np.max(out["loop_residual"]))
    return checks.add(f"{label}: loop residual", worst < LOOP_RESIDUAL_LIMIT,
                      f"max |Phi| {worst:.2e} m (limit {LOOP_RESIDUAL_LIMIT:g} m)")


def report_published_run(checks: Checks, run: dict) -> None:
    key = run["key"]
    spec = PUBLISHED_RUNS[key]
    p = Par(dict(MODEL_PARAMETERS, curve=spec["curve"]))
    print(f"\n== published numbers: {CURVES[spec['curve']][0]} curve, continuous U_ref = 10 sin(0.4 pi t), "
          f"{spec['stop']:g} s", flush=True)
    out = fourbar_outputs(run["runs"]["radau"].y, p)
    label = f"published run {key}"
    for sig, unit, factor, lo, hi in PUBLISHED_NUMBERS[key]:
        vmin, vmax = float(out[sig].min()) * factor, float(out[sig].max()) * factor
        if hi is None:
            # one-sided: the minimum must not be below the published number (to its digit)
            digit = 10.0 ** reference_common.Decimal(lo).as_tuple().exponent
            checks.add(f"{label}: {sig} >= {lo} {unit}", vmin >= float(lo) - 0.5 * digit,
                       f"min {vmin:.6g} {unit}")
            continue
        rng = float(hi) - float(lo)
        checks.published_range(f"{label}: min {sig}", vmin, lo, rng, unit)
        checks.published_range(f"{label}: max {sig}", vmax, hi, rng, unit)
    if key == "linear":
        swing = float(out["E_mech"].max() - out["E_mech"].min())
        checks.published_digits(f"{label}: swing of E_mech", swing, PUBLISHED_ENERGY_SWING, "J")
        mu = np.degrees(np.arccos(np.abs(np.cos(out["phi3"] - out["phi2"]))))
        checks.add(f"{label}: transmission angle within {PUBLISHED_TRANSMISSION[0]:g}..{PUBLISHED_TRANSMISSION[1]:g} deg",
                   mu.min() >= PUBLISHED_TRANSMISSION[0] and mu.max() <= PUBLISHED_TRANSMISSION[1],
                   f"{mu.min():.3f} .. {mu.max():.3f} deg")
    energy_check(checks, label, out)
    residual_check(checks, label, out)
    if "cvode" in run["runs"]:
        cv = fourbar_outputs(run["runs"]["cvode"].y, p)
        worst = max(relative_rms_percent(cv[k], out[k]) for k in SIGNAL_BOUNDS)
        checks.add(f"{label}: CVODE vs Radau (the published numbers do not hang on one solver)",
                   worst < AGREEMENT_FRACTION * min(SIGNAL_BOUNDS.values()),
                   f"largest rel RMS over {', '.join(SIGNAL_BOUNDS)}: {worst:.2e} %")


def report_fourbar(checks: Checks, res: dict, args, out_root: Path) -> None:
    name = res["name"]
    spec = SCENARIOS[name]
    p = Par(scenario_par(name))
    print(f"\n== {MODEL}/{name}: {spec['description']}", flush=True)
    tr = res["runs"]["radau"]
    ref = fourbar_outputs(tr.y, p)
    cv = fourbar_outputs(res["runs"]["cvode"].y, p) if "cvode" in res["runs"] else None
    trace_ok = cvode_agrees(checks, f"{MODEL}/{name}", cv, ref, SIGNAL_BOUNDS)
    trace_ok &= energy_check(checks, f"{MODEL}/{name}", ref)
    trace_ok &= residual_check(checks, f"{MODEL}/{name}", ref)
    if "dense_check" in res:
        ys, wall = res["dense_check"]
        n = len(ys)
        worst = float(np.max(np.abs(ys - tr.y[:n]) / (np.mean(np.abs(tr.y[:n]), axis=0) + 1e-300)))
        trace_ok &= checks.add(f"{MODEL}/{name}: Radau dense output vs step ends (first 0.2 s restarted at every "
                               "output time)", worst < 1e-8, f"max |diff| {worst:.2e} of each state's mean magnitude")
    for sig in ("theta", "omega", "s", "s_dot", "pp", "p1", "p2", "Qd1", "Q_R", "F_h"):
        checks.info(f"{MODEL}/{name}: range of {sig}", f"{ref[sig].min():.6g} .. {ref[sig].max():.6g}")
    checks.info(f"{MODEL}/{name}: theta range in deg",
                f"{np.degrees(ref['theta'].min()):.4f} .. {np.degrees(ref['theta'].max()):.4f}")
    write_or_compare(checks, args.check, name, out_root / MODEL / name, fourbar_files(res, ref), trace_ok,
                     exact=args.exact)
    if name == TWIN_FROM:
        write_or_compare(checks, args.check, TWIN_SCENARIO, out_root / TWIN_MODEL / TWIN_SCENARIO,
                         twin_files(res, ref), trace_ok, exact=args.exact)


def held_at(t_out: np.ndarray, rows_t: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The input row that an output at each time was computed with, as a
    master records it: at t = 0 the first row; at t > 0 the row held over the
    step that ends at t (at a row time the row before, not the one that
    starts there: the master reads the outputs after doStep and sets the next
    row afterwards). Matters for outputs with direct feedthrough (F_h and F_mu
    of FourBarActuator depend on the input s_dot)."""
    idx = np.searchsorted(rows_t, t_out - 1e-12, side="right") - 1
    return values[np.clip(idx, 0, len(rows_t) - 1)]


def report_actuator(checks: Checks, res: dict, src: dict, args, out_root: Path) -> None:
    name = res["name"]
    spec = ACTUATOR_SCENARIOS[name]
    p = Par(scenario_par(spec["from"]))
    label = f"{ACTUATOR_MODEL}/{name}"
    print(f"\n== {label}: {spec['description']}", flush=True)
    t_rows, vals = res["rows"]
    tr = res["runs"]["radau"]
    held = held_at(tr.t, t_rows, vals)
    ref = actuator_outputs(tr.y, held, p)
    cv = actuator_outputs(res["runs"]["cvode"].y, held, p) if "cvode" in res["runs"] else None
    trace_ok = cvode_agrees(checks, label, cv, ref, ACTUATOR_BOUNDS)
    # the motion is FourBar's own, held for 10 ms: the pressures must stay close
    # to the monolithic trace (a wrong sign of s_dot or a wrong volume would not)
    mono = fourbar_outputs(src["runs"]["radau"].y, p)
    for k in ("pp", "p1", "p2", "F_h", "Qd1"):
        rms = relative_rms_percent(ref[k], mono[k])
        trace_ok &= checks.add(f"{label}: {k} close to the FourBar trace of '{spec['from']}'", rms < 2.0,
                               f"rel RMS {rms:.3g} % (limit 2 %: s and s_dot are held for {HOLD * 1e3:g} ms)")
    write_or_compare(checks, args.check, name, out_root / ACTUATOR_MODEL / name, actuator_files(res, ref), trace_ok,
                     exact=args.exact)


def report_mechanism(checks: Checks, res: dict, src: dict, args, out_root: Path) -> None:
    name = res["name"]
    spec = MECHANISM_SCENARIOS[name]
    p = Par(scenario_par(spec["from"]))
    label = f"{MECHANISM_MODEL}/{name}"
    print(f"\n== {label}: {spec['description']}", flush=True)
    ref = mechanism_outputs(res["runs"]["radau"].y, p)
    cv = mechanism_outputs(res["runs"]["cvode"].y, p) if "cvode" in res["runs"] else None
    trace_ok = cvode_agrees(checks, label, cv, ref, MECHANISM_BOUNDS)
    trace_ok &= energy_check(checks, label, ref)
    trace_ok &= residual_check(checks, label, ref)
    mono = fourbar_outputs(src["runs"]["radau"].y, p)
    for k, limit in (("theta", 5.0), ("s", 0.5), ("omega", 5.0)):
        rms = relative_rms_percent(ref[k], mono[k])
        trace_ok &= checks.add(f"{label}: {k} close to the FourBar trace of '{spec['from']}'", rms < limit,
                               f"rel RMS {rms:.3g} % (limit {limit:g} %: the force is held for {HOLD * 1e3:g} ms "
                               "and drives the linkage open loop)")
    write_or_compare(checks, args.check, name, out_root / MECHANISM_MODEL / name, mechanism_files(res, ref),
                     trace_ok, exact=args.exact)


# --------------------------------------------------------------------------
# Sensitivities behind the bounds (on demand: --sensitivity)
# --------------------------------------------------------------------------


SENSITIVITY_SIGNALS = ("theta", "s", "pp", "p1", "p2", "omega", "s_dot", "F_h", "Qd1")


def sensitivity(name: str) -> None:
    """Relative RMS change of each signal (CVODE, %) under solver tolerances
    and small errors of input timing and parameters: the yardsticks of the
    bounds (four_bar_NOTES.md, section 8)."""
    spec = SCENARIOS[name]
    par = scenario_par(name)
    p = Par(par)
    stop = spec["stop"]
    rows = fourbar_rows(stop)
    y0 = initial_state(par)
    ref = fourbar_outputs(integrate("fourbar", p, y0, rows, stop, "cvode").y, p)

    def show(label, out):
        print(f"  {label:<24} " + " ".join(f"{k} {relative_rms_percent(out[k], ref[k]):.2g}"
                                            for k in SENSITIVITY_SIGNALS), flush=True)

    print(f"== {MODEL}/{name}: relative RMS change in % against CVODE at rtol 1e-10", flush=True)
    for rtol in (1e-6, 1e-5, 1e-4):
        show(f"CVODE rtol {rtol:g}", fourbar_outputs(integrate("fourbar", p, y0, rows, stop, "cvode", rtol).y, p))
    for delay in (0.001, 0.005):
        t, _ = rows
        late = np.array([rounded(sine(a + 0.5 * HOLD - delay)) for a in t])
        late[-1] = late[-2]
        show(f"input {delay * 1e3:g} ms late", fourbar_outputs(integrate("fourbar", p, y0, (t, late), stop, "cvode").y, p))
    for label, change in (("tau +5 %", {"tau": 1.05}), ("Fc, Fs +10 %", {"Fc": 1.1, "Fs": 1.1}),
                          ("kp +5 %", {"kp": 1.05}), ("Vh1 +10 %", {"Vh1": 1.1}), ("m2 +1 %", {"m2": 1.01})):
        q = dict(par, **{k: par[k] * f for k, f in change.items()})
        pq = Par(q)
        show(label, fourbar_outputs(integrate("fourbar", pq, initial_state(q), rows, stop, "cvode").y, pq))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    default_out = Path(__file__).resolve().parents[2] / "scenarios"
    parser = argparse.ArgumentParser(
        description="Independent SciPy Radau (+ SUNDIALS CVODE cross-check) reference traces for the FourBar "
        "circuit (and FourBarActuator, FourBarMechanism), in the FMI Cross-Check layout; checks the published numbers.")
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all",
                        help="FourBar scenario to compute, with the actuator and mechanism scenarios that take "
                        "their inputs from it and the published run of its curve (default: all)")
    add_check_arguments(parser)
    parser.add_argument("--out-dir", type=Path, default=default_out,
                        help=f"root of the scenario folders (default: {default_out})")
    parser.add_argument("--jobs", type=int, default=2, help="scenarios computed in parallel (default: 2)")
    parser.add_argument("--no-cvode", action="store_true", help="skip the CVODE cross-check (then nothing is written)")
    parser.add_argument("--quick", action="store_true", help="skip the dense-output check")
    parser.add_argument("--sensitivity", action="store_true",
                        help="only print the sensitivities behind the bounds (CVODE runs; writes nothing)")
    args = parser.parse_args(argv)
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    if args.sensitivity:
        for name in names:
            sensitivity(name)
        return 0
    print(f"{MODEL} reference: mode {'check' if args.check else 'write'}, output root {args.out_dir}, "
          f"scenarios {', '.join(names)}, {args.jobs} parallel job(s)", flush=True)
    checks = Checks()
    print("== checks without integration ==", flush=True)
    check_valve_curves(checks)
    check_kinematics(checks)
    check_initial_state(checks)
    jobs = [(n, args.no_cvode, args.quick) for n in names]
    if args.jobs > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor

        order = sorted(jobs, key=lambda j: -SCENARIOS[j[0]]["stop"])  # the 10 s scenario first
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            done = dict(zip([j[0] for j in order], pool.map(_worker, order)))
        results = [done[n] for n in names]
    else:
        results = [_worker(j) for j in jobs]
    for res in results:
        report_published_run(checks, res["published"])
        report_fourbar(checks, res, args, args.out_dir)
        for act in res["actuator"]:
            report_actuator(checks, act, res, args, args.out_dir)
        for mech in res["mechanism"]:
            report_mechanism(checks, mech, res, args, args.out_dir)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
