#!/usr/bin/env python3
"""Independent reference solution of the hose model (HoseH, HoseG, HoseY, HoseZ).

The model description ``components/circuits/hose-line/MODEL.md`` (equations H1-H7;
the numbers it states, some from an earlier version of it, are "the published
numbers" below) is written out here
as plain functions (SI units throughout) for the four causal forms and any
segment count n. The chained equations for n > 1, the mean pressure of each
segment and how the correction coefficients enter are written down in
``hose_line_NOTES.md`` (beside this file) term by term; the code below cites
the same numbers (N1..N9).

Per scenario it writes, in the FMI Cross-Check layout,
``validation/scenarios/<Model>/<scenario>/``: ``<Model>_in.csv``,
``<Model>_ref.csv`` (SciPy Radau, rtol 1e-10), ``<Model>_cvode.csv`` (the
SUNDIALS CVODE BDF cross-check trace, named by ``crosscheck``),
``<Model>_ref.opt`` and ``scenario.json``. With ``--check`` nothing is
written: the files are recomputed and compared with the ones on disk.

It also recomputes the published numbers (compliance, bulk modulus, wave speed,
step-response frequencies, resonances and amplitude ratios of the linearised
and of the nonlinear model, the lumped-ladder analytic check) and prints
PASS / FAIL / DISCREPANCY for each; the frequency-domain numbers go to
``validation/scenarios/HoseH/frequency_response.json``.

Exit status: 0 when every check passes (documented discrepancies with the
published numbers do not fail), 1 otherwise.
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
from reference_common import add_check_arguments, agrees_to_published, csv_text, fmt, judge_change, parse_csv
from scipy.integrate import solve_ivp
from scipy.linalg import expm
from scipy.optimize import minimize_scalar

# --------------------------------------------------------------------------
# Parameters (the model description's table; Grossschmidt and Harf 2017, section 8), SI units
# --------------------------------------------------------------------------

MODEL_PARAMETERS = {
    "n": 1,  # 1, number of lumped segments (structural)
    "L_hose": 2.0,  # m, total hose length
    "d": 0.016,  # m, inner diameter
    "p_ref": 1e7,  # Pa, reference pressure of the wall law
    "x_ref": 3.508e-5,  # m, radial wall deformation at p_ref (MODEL.md: replaced; paper 4e-4)
    "b": 2e-5,  # m, hysteresis width (NOT modelled here: the scenarios set b = 0)
    "v_lim": 1e-4,  # m/s, hysteresis saturation velocity (unused with b = 0)
    "h": 200.0,  # N s/m, wall damping (quasi-static wall: unused)
    "kn": 0.011,  # 1, frequency correction per extra segment
    "kr1": 1.4,  # 1, resistance correction
    "kr2": 0.10,  # 1, resistance correction per extra segment
    "zeta": 2.0,  # 1, local loss coefficient in RT
    "lambda": 0.04,  # 1, turbulent friction coefficient in RT
    "Al": 64.0,  # 1, laminar coefficient in RL
    "T": 40.0,  # degC, fluid temperature
    "nu0": 46e-6,  # m2/s, kinematic viscosity at T
    "rho15": 875.0,  # kg/m3, density at 15 degC
    "vol0": 0.08,  # 1, relative air volume at p_m = 0
    "ka": 1.4,  # 1, polytropic exponent of air
    "p0": 1e5,  # Pa, atmospheric pressure
}

X_REF_AS_STATED = 4e-4  # m, the paper's x_ref (MODEL.md: "as stated" scenario)

# Operating point of the scenarios in MODEL.md.
Q_OP = 5e-4  # m3/s
P_OP = 1e7  # Pa (outlet pressure p2; for HoseZ the initial level of p2)

# Reference grid and solver settings.
START_TIME = 0.0  # s
STOP_TIME = 0.2  # s
STEP_SIZE = 1e-4  # s, output (communication) step
STEPS_PER_SECOND = 10000  # 1 / STEP_SIZE, to build the grid as k / 10000
OPT_REL_TOL = 1e-7  # tolerance written to the .opt file (the bounds need <= 1e-7, see check_achievable)
RADAU_RTOL = 1e-10
CVODE_RTOL = 1e-10
ATOL_P = 1e-3  # Pa (states ~1e7 Pa: rtol * |p| = 1e-3 Pa at rtol 1e-10)
ATOL_Q = 1e-14  # m3/s (flows ~5e-4 m3/s)

# Bounds: the target is a relative RMS error of 0.1 % of the DEVIATION of
# each output from its operating-point value (see bounds()).
DEVIATION_REL_RMS_PERCENT = 0.1
MAX_ABS_FRACTION_OF_RANGE = 0.005  # max_abs = 0.5 % of the reference's range
CROSSCHECK_FRACTION = 0.1  # the two solvers must agree within a tenth of each bound

# Relative accuracy asked of the frequency numbers (shooting, peak search).
SHOOT_RTOL = 1e-9  # CVODE tolerance of the shooting integrations


# --------------------------------------------------------------------------
# Segment properties (MODEL.md H1-H6), vectorised, complex-step safe
# --------------------------------------------------------------------------


def cabs(q):
    """|q| that stays holomorphic for the complex-step derivative (sign from the real part)."""
    return np.where(np.real(q) >= 0.0, q, -q)


def fluid_constants(par: dict) -> tuple[float, float, float]:
    """(H3) Af (1), Bf (Pa) for higher-viscosity HLP (the paper's eqs 19-20), alpha (1/K)."""
    t = par["T"]
    af = 14.0 - 0.05 * (t - 20.0)
    bf = (18.4 - 0.10 * (t - 20.0)) * 1e8
    alpha = (4.0 + 0.1 * t) * 1e-4
    return af, bf, alpha


@dataclass
class SegmentProperties:
    """Properties of segments of length l at mean pressures pm (arrays, SI)."""

    k: np.ndarray  # N/m, wall stiffness (H1)
    x: np.ndarray  # m, radial wall deformation (H2, no hysteresis)
    dxdp: np.ndarray  # m/Pa, wall slope used in H4 (see wall_slope)
    eps: np.ndarray  # 1, oil compression p/(Af p + Bf) (H3)
    rho: np.ndarray  # kg/m3 (H3)
    nu: np.ndarray  # m2/s (H3)
    c_wall: np.ndarray  # m3/Pa, wall term of C
    c_air: np.ndarray  # m3/Pa, air term of C
    c_oil: np.ndarray  # m3/Pa, oil term of C
    v_hose: np.ndarray  # m3, V_H
    RL: np.ndarray  # Pa s/m3 (H5)
    RT: np.ndarray  # Pa s2/m6 (H5)
    L: np.ndarray  # kg/m4 (H5)

    @property
    def C(self):
        """(H4) compliance of the segment, m3/Pa (before kC)."""
        return self.c_wall + self.c_air + self.c_oil


class SegmentLaw:
    """The constants of H1-H5 for segments of length ``l`` (computed once).

    ``wall_slope``: "eq30" (default) is the paper's eq 30 with h/dt -> 0,
    dx/dp_m = pi d l k / (k - 2 pi l p_m)^2, i.e. the derivative of H2 with the
    stiffness k held fixed; it reproduces the published compliance numbers.
    "total" also differentiates k(p_m) (H1); only used to report the difference.
    """

    def __init__(self, l: float, par: dict, wall_slope: str = "eq30"):
        if wall_slope not in ("eq30", "total"):
            raise ValueError(wall_slope)
        self.l = l
        self.wall_slope = wall_slope
        d, x_ref, p_ref = par["d"], par["x_ref"], par["p_ref"]
        self.d = d
        self.p_ref = p_ref
        a_ref = math.pi * (d + 2.0 * x_ref) * l  # (H1) A_ref
        self.k_ref = p_ref * a_ref / x_ref  # (H1) k_ref, N/m
        self.af, self.bf, alpha = fluid_constants(par)
        self.vol0 = par["vol0"]
        self.nu_base = par["nu0"] * (1.0 + 1.5 * self.vol0)  # (H3)
        self.rho_base = par["rho15"] / (1.0 + alpha * (par["T"] - 15.0))  # (H3)
        self.p0, self.ka = par["p0"], par["ka"]
        self.v_a0 = self.vol0 * math.pi * d * d * l / 4.0  # (H4) V_A0
        self.al, self.zeta, self.lam = par["Al"], par["zeta"], par["lambda"]

    def __call__(self, pm) -> SegmentProperties:
        """H1-H5 at mean pressures ``pm`` (Pa; array, real or complex)."""
        pm = np.asarray(pm)
        l, d = self.l, self.d
        # (H1) wall stiffness, log10
        arg = 90.0 * pm / self.p_ref + 10.0
        k = self.k_ref / 3.0 * (1.0 + np.log10(arg))
        # (H2) quasi-static wall deformation, no hysteresis (b = 0)
        den = k - 2.0 * math.pi * l * pm
        x = pm * (math.pi * d * l) / den
        dxdp = (math.pi * d * l) * k / den**2
        if self.wall_slope == "total":
            dk = self.k_ref / 3.0 * 90.0 / (self.p_ref * arg * math.log(10.0))
            dxdp = dxdp - pm * (math.pi * d * l) * dk / den**2
        # (H3) fluid
        nu = self.nu_base * (1.0 + 3e-8 * pm)
        afp = self.af * pm + self.bf
        eps = pm / afp
        deps = self.bf / afp**2
        rho = self.rho_base * (1.0 + eps * (1.0 - self.vol0))
        # (H4) compliance = wall + air + oil
        dd = d + 2.0 * x  # D of H5
        expo = (self.p0 / (pm + self.p0)) ** (1.0 / self.ka)
        v_air = self.v_a0 * expo
        c_a = self.v_a0 / (self.ka * (pm + self.p0)) * expo
        v_hose = (math.pi / 4.0 * l) * dd * dd
        c_wall = (math.pi * l) * dd * dxdp * (1.0 + eps)
        c_air = c_a * (1.0 + eps)
        c_oil = (v_hose - v_air) * deps
        # (H5) resistances, inertance
        dd2 = dd * dd
        dd4 = dd2 * dd2
        rl = (2.0 * self.al * l / math.pi) * nu * rho / dd4
        rt = (8.0 / math.pi**2) * rho * (self.zeta + self.lam * l / dd) / dd4
        ell = (4.0 * l / math.pi) * rho / dd2
        return SegmentProperties(k, x, dxdp, eps, rho, nu, c_wall, c_air, c_oil, v_hose, rl, rt, ell)


def segment_properties(pm, l: float, par: dict, wall_slope: str = "eq30") -> SegmentProperties:
    """H1-H5 of segments of length ``l`` (m) at mean pressures ``pm`` (Pa)."""
    return SegmentLaw(l, par, wall_slope)(pm)


def corrections(n: int, par: dict) -> tuple[float, float]:
    """(H6) kL = kC = (2/pi)^(1/n) + kn (n - 1) and kr = kr1 - kr2 (n - 1)."""
    k_lc = (2.0 / math.pi) ** (1.0 / n) + par["kn"] * (n - 1)
    k_r = par["kr1"] - par["kr2"] * (n - 1)
    return k_lc, k_r


# --------------------------------------------------------------------------
# The four causal forms, chained (NOTES N1-N9)
# --------------------------------------------------------------------------

FORMS = {
    # form: (inputs, outputs)
    "H": (("Q1", "p2"), ("p1", "Q2")),
    "G": (("p1", "Q2"), ("Q1", "p2")),
    "Y": (("p1", "p2"), ("Q1", "Q2")),
    "Z": (("Q1", "Q2"), ("p1", "p2")),
}


class Hose:
    """One causal form of the hose with n segments; states along the hose.

    State vectors (NOTES N2-N5):
      H: [p1_1, Q2_1, ..., p1_n, Q2_n]        (2n)
      G: [Q1_1, p2_1, ..., Q1_n, p2_n]        (2n)
      Y: [Q_0, p3_1, Q_1, ..., p3_n, Q_n]     (2n + 1)
      Z: [p_0, Q_1, p_1, ..., Q_n, p_n]       (2n + 1)
    ``rhs`` accepts y of shape (N,) or (N, m) and u of shape (2,) or (2, m),
    real or complex (complex step).
    """

    def __init__(self, form: str, par: dict, wall_slope: str = "eq30",
                 k_lc: float | None = None, k_r: float | None = None):
        """``k_lc``, ``k_r``: override the H6 corrections (analytic checks only)."""
        if form not in FORMS:
            raise ValueError(form)
        self.form = form
        self.par = dict(par)
        self.n = int(par["n"])
        if self.n < 1:
            raise ValueError("n >= 1")
        self.l = par["L_hose"] / self.n
        self.k_lc, self.k_r = corrections(self.n, par)
        if k_lc is not None:
            self.k_lc = k_lc
        if k_r is not None:
            self.k_r = k_r
        self.wall_slope = wall_slope
        self.law = SegmentLaw(self.l, par, wall_slope)
        self.inputs, self.outputs = FORMS[form]
        self.size = 2 * self.n + (1 if form in "YZ" else 0)
        pressure = self.pressure_mask()
        self.atol = np.where(pressure, ATOL_P, ATOL_Q)
        self.scale = np.where(pressure, P_OP, Q_OP)

    # -- layout ---------------------------------------------------------------
    def state_names(self) -> list[str]:
        n = self.n
        if self.form == "H":
            return [s for i in range(1, n + 1) for s in (f"p1_{i}", f"Q2_{i}")]
        if self.form == "G":
            return [s for i in range(1, n + 1) for s in (f"Q1_{i}", f"p2_{i}")]
        if self.form == "Y":
            return ["Q_0"] + [s for j in range(1, n + 1) for s in (f"p3_{j}", f"Q_{j}")]
        return ["p_0"] + [s for j in range(1, n + 1) for s in (f"Q_{j}", f"p_{j}")]

    def pressure_mask(self) -> np.ndarray:
        return np.array([name.startswith("p") for name in self.state_names()])

    def output_index(self, name: str) -> int:
        """Both outputs of every form are states: the first or the last."""
        return 0 if name == self.outputs[0] else self.size - 1

    def end_pressures(self, y, u) -> tuple[float, float]:
        """Pressures at the hose inlet and outlet (state or input), Pa."""
        p_in = u[0] if self.form in "GY" else y[0]
        p_out = u[1] if self.form in "HY" else y[-1]
        return float(p_in), float(p_out)

    def props(self, pm) -> SegmentProperties:
        return self.law(pm)

    # -- mean pressures -----------------------------------------------------
    def mean_pressures(self, y, u):
        """p_m of every segment (NOTES N1): mean of the segment's two end pressures."""
        y = np.asarray(y)
        u = np.asarray(u)
        if u.ndim < y.ndim:
            u = np.broadcast_to(u.reshape(u.shape + (1,) * (y.ndim - u.ndim)), (2,) + y.shape[1:])
        if self.form == "H":
            p1 = y[0::2]
            ends = np.concatenate([p1, u[1][None]], axis=0)  # p1_1..p1_n, p2
        elif self.form == "G":
            p2 = y[1::2]
            ends = np.concatenate([u[0][None], p2], axis=0)  # p1, p2_1..p2_n
        elif self.form == "Y":
            p3 = y[1::2]
            junction = 0.5 * (p3[:-1] + p3[1:])  # N4: pressure at the internal junctions
            ends = np.concatenate([u[0][None], junction, u[1][None]], axis=0)
        else:
            ends = y[0::2]  # p_0..p_n
        return 0.5 * (ends[:-1] + ends[1:])

    # -- right-hand side ----------------------------------------------------
    def rhs(self, y, u):
        """dy/dt of the chained form (MODEL.md H7, NOTES N2-N5)."""
        y = np.asarray(y)
        u = np.asarray(u)
        if u.ndim < y.ndim:
            u = np.broadcast_to(u.reshape(u.shape + (1,) * (y.ndim - u.ndim)), (2,) + y.shape[1:])
        s = self.props(self.mean_pressures(y, u))
        kc = self.k_lc * s.C  # corrected compliance per segment
        kl = self.k_lc * s.L  # corrected inertance per segment
        rl, rt, kr = s.RL, s.RT, self.k_r
        dy = np.empty(y.shape, dtype=np.result_type(y, u, float))
        if self.form == "H":  # N2
            p1, q2 = y[0::2], y[1::2]
            qin = np.concatenate([u[0][None], q2[:-1]], axis=0)
            pout = np.concatenate([p1[1:], u[1][None]], axis=0)
            dy[0::2] = (qin - q2) / kc
            dy[1::2] = (p1 - kr * (rl + rt * cabs(q2)) * q2 - pout) / kl
        elif self.form == "G":  # N3
            q1, p2 = y[0::2], y[1::2]
            pin = np.concatenate([u[0][None], p2[:-1]], axis=0)
            qout = np.concatenate([q1[1:], u[1][None]], axis=0)
            dy[0::2] = (pin - kr * (rl + rt * cabs(q1)) * q1 - p2) / kl
            dy[1::2] = (q1 - qout) / kc
        elif self.form == "Y":  # N4
            q, p3 = y[0::2], y[1::2]  # q: n + 1 flows Q_0..Q_n, p3: n node pressures
            # inertance and resistance of each flow element: half segments at
            # the ends, two merged halves at the internal junctions
            l_el = np.concatenate([0.5 * kl[:1], 0.5 * (kl[:-1] + kl[1:]), 0.5 * kl[-1:]], axis=0)
            r_el = np.concatenate([
                0.5 * kr * (rl[:1] + rt[:1] * cabs(q[:1])),
                0.5 * kr * (rl[:-1] + rt[:-1] * cabs(q[1:-1])) + 0.5 * kr * (rl[1:] + rt[1:] * cabs(q[1:-1])),
                0.5 * kr * (rl[-1:] + rt[-1:] * cabs(q[-1:])),
            ], axis=0)
            p_left = np.concatenate([u[0][None], p3], axis=0)
            p_right = np.concatenate([p3, u[1][None]], axis=0)
            dy[0::2] = (p_left - p_right - r_el * q) / l_el
            dy[1::2] = (q[:-1] - q[1:]) / kc
        else:  # Z, N5
            p, q = y[0::2], y[1::2]  # p: n + 1 node pressures p_0..p_n, q: n flows
            c_node = np.concatenate([0.5 * kc[:1], 0.5 * (kc[:-1] + kc[1:]), 0.5 * kc[-1:]], axis=0)
            q_in = np.concatenate([u[0][None], q], axis=0)
            q_out = np.concatenate([q, u[1][None]], axis=0)
            dy[0::2] = (q_in - q_out) / c_node
            dy[1::2] = (p[:-1] - p[1:] - kr * (rl + rt * cabs(q)) * q) / kl
        return dy

    # -- derivatives (complex step: exact to rounding) --------------------------
    def jac(self, y, u) -> np.ndarray:
        """d rhs / d y, by the complex-step derivative (one vectorised call)."""
        y = np.asarray(y, dtype=float)
        h = 1e-30 * np.maximum(np.abs(y), self.scale)
        ys = y[:, None] + 1j * np.diag(h)
        return (self.rhs(ys, np.asarray(u, dtype=float)).imag / h[None, :])

    def input_jac(self, y, u) -> np.ndarray:
        """d rhs / d u (N x 2), complex step."""
        y = np.asarray(y, dtype=float)
        u = np.asarray(u, dtype=float)
        cols = []
        for i in range(2):
            h = 1e-30 * max(abs(u[i]), 1e-3 if self.inputs[i].startswith("Q") else 1.0)
            du = u.astype(complex)
            du[i] += 1j * h
            cols.append(self.rhs(y.astype(complex), du).imag / h)
        return np.array(cols).T

    # -- steady state -------------------------------------------------------
    def steady_state(self, q=Q_OP, p_level=P_OP) -> tuple[np.ndarray, np.ndarray]:
        """Steady state of the operating point (NOTES N6): states y and inputs u.

        H: Q1 = q, p2 = p_level.  G: Q2 = q, p1 such that p2 = p_level.
        Y: p2 = p_level, p1 such that Q1 = Q2 = q.  Z: Q1 = Q2 = q, the pressure
        level fixed by p2 = p_level (with Q1 = Q2 any level is steady).
        """
        n_y = self.size
        names = self.state_names()
        drop_guess = 1e8 * self.k_r * q  # rough R * Q of the whole hose
        y0 = np.empty(n_y)
        for i, name in enumerate(names):
            frac = 1.0 - (i + 0.5) / n_y  # upstream end carries the whole drop
            y0[i] = p_level + frac * drop_guess if name.startswith("p") else q
        form = self.form
        if form == "H":
            u_fixed = np.array([q, p_level])
            z0 = y0

            def split(z):
                return z, u_fixed

            def residual(z):
                y, u = split(z)
                return self.rhs(y, u)
        elif form == "Z":
            u_fixed = np.array([q, q])
            z0 = y0

            def split(z):
                return z, u_fixed

            def residual(z):
                y, u = split(z)
                f = self.rhs(y, u)
                # the node balances sum to Q1 - Q2 = 0: replace the last one
                # by the level condition p_n = p_level
                return np.concatenate([f[:-1], [(y[-1] - p_level) * 1e-3]])
        elif form == "G":
            z0 = np.append(y0, p_level + drop_guess)

            def split(z):
                return z[:-1], np.array([z[-1], q])

            def residual(z):
                y, u = split(z)
                return np.append(self.rhs(y, u), (y[-1] - p_level) * 1e-3)
        else:  # Y
            z0 = np.append(y0, p_level + drop_guess)

            def split(z):
                return z[:-1], np.array([z[-1], p_level])

            def residual(z):
                y, u = split(z)
                return np.append(self.rhs(y, u), (y[0] - q) * 1e6)

        scale = np.append(self.scale, P_OP)[: len(z0)]
        z = newton(residual, z0, scale)
        return split(z)


def newton(residual, z0, scale, tol=1e-15, max_iter=50) -> np.ndarray:
    """Newton's method with the complex-step Jacobian; converged when every
    update is below tol * scale."""
    z = np.array(z0, dtype=float)
    for _ in range(max_iter):
        f = residual(z)
        jac = np.empty((len(f), len(z)))
        for j in range(len(z)):
            h = 1e-30 * scale[j]
            zc = z.astype(complex)
            zc[j] += 1j * h
            jac[:, j] = residual(zc).imag / h
        dz = np.linalg.solve(jac, -f)
        z = z + dz
        if np.all(np.abs(dz) <= tol * scale + 1e-300):
            return z
    raise RuntimeError("steady state: Newton did not converge")


# --------------------------------------------------------------------------
# Inputs: piecewise-linear tables, as the masters feed them
# --------------------------------------------------------------------------


@dataclass
class InputTable:
    """``<Model>_in.csv``: rows (time, u1, u2); a repeated time is a jump."""

    names: tuple[str, str]
    rows: list[tuple[float, float, float]]
    interpolation: str  # "step" or "linear" (scenario.json)

    def value(self, t: float, tol: float = 1e-9 * STEP_SIZE) -> np.ndarray:
        """Value a master sets at communication point t: the last row with
        time <= t (a repeated time: the later row); linear interpolation to
        the next row if ``linear``."""
        times = [r[0] for r in self.rows]
        i = max(k for k, tk in enumerate(times) if tk <= t + tol) if times[0] <= t + tol else 0
        row = np.array(self.rows[i][1:])
        if self.interpolation == "step" or i == len(times) - 1 or times[i] >= t - tol:
            return row
        nxt = np.array(self.rows[i + 1][1:])
        w = (t - times[i]) / (times[i + 1] - times[i])
        return row + w * (nxt - row)

    def exact(self, t: float) -> np.ndarray:
        """The continuous input (linear ramps between rows), for comparison only."""
        times = np.array([r[0] for r in self.rows])
        vals = np.array([r[1:] for r in self.rows])
        if self.interpolation == "step":
            return self.value(t)
        return np.array([np.interp(t, times, vals[:, j]) for j in range(2)])


def output_times() -> np.ndarray:
    n = int(round((STOP_TIME - START_TIME) / STEP_SIZE))
    return START_TIME + np.arange(n + 1) / STEPS_PER_SECOND


def held_pieces(table: InputTable, t_grid: np.ndarray) -> list[tuple[float, float, np.ndarray]]:
    """Zero-order hold of the table at the communication points (what an FMU
    stepped by a master at STEP_SIZE sees): [(t_start, t_end, u)], merged
    where u does not change."""
    pieces = []
    for a, b in zip(t_grid[:-1], t_grid[1:]):
        u = table.value(a)
        if pieces and np.array_equal(pieces[-1][2], u):
            pieces[-1] = (pieces[-1][0], b, u)
        else:
            pieces.append((a, b, u))
    return pieces


# --------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------


@dataclass
class Trace:
    t: np.ndarray
    y: np.ndarray  # (len(t), N)
    stats: dict = field(default_factory=dict)


def _eval_times(t_out, a, b):
    """Output times in [a, b), and those plus b (Radau's t_eval)."""
    inside = t_out[(t_out >= a) & (t_out < b)]
    return inside, np.append(inside, b) if (len(inside) == 0 or inside[-1] != b) else inside


def solve_radau(model: Hose, pieces, y0, t_out, rtol=RADAU_RTOL, atol_factor=1.0) -> Trace:
    y = np.array(y0, dtype=float)
    rows, stats = [], {"nfev": 0, "njev": 0, "nlu": 0}
    for a, b, u in pieces:
        inside, t_eval = _eval_times(t_out, a, b)
        sol = solve_ivp(
            lambda t, yy: model.rhs(yy, u), (a, b), y, method="Radau", t_eval=t_eval,
            rtol=rtol, atol=model.atol * atol_factor, jac=lambda t, yy: model.jac(yy, u),
        )
        if not sol.success:
            raise RuntimeError(f"Radau failed on [{a}, {b}]: {sol.message}")
        rows.append(sol.y[:, : len(inside)].T)
        y = sol.y[:, -1]
        for key in stats:
            stats[key] += getattr(sol, key)
    rows.append(y[None, :])  # the state at STOP_TIME (= last piece's end)
    out = np.vstack(rows)
    return Trace(t_out, out, stats)


def _cvode_functions(model: Hose, u):
    """CVODE's right-hand side and Jacobian callbacks for constant inputs u."""

    def rhs(t, yy, yp):
        yp[:] = model.rhs(yy, u)

    def jacfn(t, yy, yp, jj):
        jj[:, :] = model.jac(yy, u)

    return rhs, jacfn


def solve_cvode(model: Hose, pieces, y0, t_out, rtol=CVODE_RTOL) -> Trace:
    from sksundae.cvode import CVODE

    y = np.array(y0, dtype=float)
    rows, stats = [], {"nfev": 0, "njev": 0, "steps": 0}
    for a, b, u in pieces:
        inside, _ = _eval_times(t_out, a, b)
        tspan = np.unique(np.concatenate([[a], inside, [b]]))

        rhs, jacfn = _cvode_functions(model, u)
        solver = CVODE(rhs, method="BDF", rtol=rtol, atol=model.atol, jacfn=jacfn, max_num_steps=1_000_000)
        sol = solver.solve(tspan, y)
        if not sol.success:
            raise RuntimeError(f"CVODE failed on [{a}, {b}]: {sol.message}")
        ys = np.asarray(sol.y)
        tt = np.asarray(sol.t)
        keep = np.isin(tt, inside)
        rows.append(ys[keep])
        y = ys[-1]
        stats["nfev"] += int(sol.nfev)
        stats["njev"] += int(sol.njev)
        stats["steps"] += int(getattr(sol, "nsteps", 0) or 0)
    rows.append(y[None, :])
    return Trace(t_out, np.vstack(rows), stats)


def integrate_cvode(model: Hose, y0, u_of_t, t_span, t_eval=None, rtol=CVODE_RTOL):
    """CVODE BDF with a time-dependent input u_of_t(t); returns (t, y (len, N))."""
    from sksundae.cvode import CVODE

    def rhs(t, yy, yp):
        yp[:] = model.rhs(yy, u_of_t(t))

    def jacfn(t, yy, yp, jj):
        jj[:, :] = model.jac(yy, u_of_t(t))

    solver = CVODE(rhs, method="BDF", rtol=rtol, atol=model.atol, jacfn=jacfn, max_num_steps=1_000_000)
    ts = np.asarray(t_eval) if t_eval is not None else np.asarray(t_span, dtype=float)
    sol = solver.solve(ts, np.asarray(y0, dtype=float))
    if not sol.success:
        raise RuntimeError(f"CVODE failed: {sol.message}")
    return np.asarray(sol.t), np.asarray(sol.y)


# --------------------------------------------------------------------------
# Frequency response: linearisation and nonlinear periodic orbits
# --------------------------------------------------------------------------


def transfer(model: Hose, y_ss, u_ss, input_index: int, output: str, freqs) -> np.ndarray:
    """Transfer function of the linearisation at (y_ss, u_ss): output / input,
    at the frequencies ``freqs`` (Hz); complex, SI units."""
    a = model.jac(y_ss, u_ss)
    b = model.input_jac(y_ss, u_ss)[:, input_index]
    i = model.output_index(output)
    eye = np.eye(len(y_ss))
    return np.array([np.linalg.solve(2j * math.pi * f * eye - a, b)[i] for f in np.atleast_1d(freqs)])


def linear_peak(model: Hose, y_ss, u_ss, input_index: int, output: str, f_lo: float, f_hi: float) -> tuple[float, float]:
    """First local maximum of |transfer| above f_lo (Hz) (the low-frequency
    plateau of HoseY's admittance is not a peak): (frequency Hz, gain)."""
    freqs = np.arange(f_lo, f_hi, 0.05)
    g = np.abs(transfer(model, y_ss, u_ss, input_index, output, freqs))
    local = np.nonzero((g[1:-1] > g[:-2]) & (g[1:-1] >= g[2:]))[0] + 1
    if len(local) == 0:
        raise RuntimeError(f"no resonance of {output} between {f_lo} and {f_hi} Hz")
    f0 = freqs[local[0]]
    res = minimize_scalar(
        lambda f: -abs(transfer(model, y_ss, u_ss, input_index, output, f)[0]),
        bounds=(f0 - 0.05, f0 + 0.05), method="bounded", options={"xatol": 1e-7},
    )
    return float(res.x), float(-res.fun)


@dataclass
class Orbit:
    """A periodic response to a sinusoidal input: one period sampled."""

    freq: float
    y0: np.ndarray
    t: np.ndarray
    y: np.ndarray  # (samples, N), the last sample is one period after the first
    iterations: int
    residual: float

    def amplitude(self, model: Hose, output: str) -> float:
        """max |x - mean(x)| over the period (the measure of MODEL.md)."""
        x = self.y[:-1, model.output_index(output)]
        return float(np.max(np.abs(x - x.mean())))

    def half_peak_to_peak(self, model: Hose, output: str) -> float:
        x = self.y[:-1, model.output_index(output)]
        return float(0.5 * (x.max() - x.min()))


def periodic_orbit(model: Hose, y_ss, u_ss, input_index: int, amplitude: float, freq: float,
                   guess=None, rtol=SHOOT_RTOL, samples=4000) -> Orbit:
    """Periodic steady state under u = u_ss + amplitude sin(2 pi f t) e_input,
    by shooting: y0 = Phi_T(y0), solved with Broyden's method started from
    the monodromy matrix of the linearisation, exp(A T). Without a guess the
    linear periodic response is the start, reached by continuation in the
    amplitude (1 %, 10 %, 33 %, 100 %)."""
    period = 1.0 / freq
    omega = 2.0 * math.pi * freq
    e = np.zeros(2)
    e[input_index] = 1.0
    scale = model.scale
    a_lin = model.jac(y_ss, u_ss)
    n_y = len(y_ss)
    jac0 = (expm(a_lin * period) - np.eye(n_y)) * (scale[None, :] / scale[:, None])

    def solve_at(amp, y_start):
        def u_of_t(t):
            return u_ss + e * amp * math.sin(omega * t)

        def residual(y):
            _, ys = integrate_cvode(model, y, u_of_t, [0.0, period], rtol=rtol)
            return (ys[-1] - y) / scale

        y = np.array(y_start, dtype=float)
        f = residual(y)
        jac = jac0.copy()
        it = 0
        while np.max(np.abs(f)) > 100.0 * rtol:  # of the scale: 1 Pa, 5e-11 m3/s at rtol 1e-9
            if it >= 60:
                raise RuntimeError(f"shooting did not converge at {freq} Hz (residual {np.max(np.abs(f)):.2e})")
            dz = np.linalg.solve(jac, -f)
            step = 1.0
            while True:  # backtrack when the trial state is unphysical
                try:
                    y_new = y + step * dz * scale
                    f_new = residual(y_new)
                    if np.all(np.isfinite(f_new)):
                        break
                except RuntimeError:
                    pass
                step *= 0.5
                if step < 1e-3:
                    raise RuntimeError(f"shooting: no admissible step at {freq} Hz")
            dz = step * dz
            jac = jac + np.outer(f_new - f - jac @ dz, dz) / (dz @ dz)
            y, f = y_new, f_new
            it += 1
        return y, it, float(np.max(np.abs(f))), u_of_t

    iterations = 0
    if guess is None:
        b = model.input_jac(y_ss, u_ss)[:, input_index]
        lin = np.linalg.solve(1j * omega * np.eye(n_y) - a_lin, b)  # per unit amplitude
        y, prev = None, None
        for frac in (0.01, 0.1, 1.0 / 3.0, 1.0):
            # the previous orbit's deviation, scaled to the new amplitude
            start = y_ss + frac * amplitude * lin.imag if y is None else y_ss + (y - y_ss) * (frac / prev)
            y, it, resid, u_of_t = solve_at(frac * amplitude, start)
            iterations += it
            prev = frac
    else:
        y, it, resid, u_of_t = solve_at(amplitude, guess)
        iterations += it
    t_eval = np.linspace(0.0, period, samples + 1)
    t, ys = integrate_cvode(model, y, u_of_t, [0.0, period], t_eval=t_eval, rtol=rtol)
    return Orbit(freq, y, t, ys, iterations, resid)


def parabola_vertex(f: np.ndarray, v: np.ndarray) -> float:
    """Abscissa of the vertex of the least-squares parabola through (f, v)."""
    c2, c1, _ = np.polyfit(f - f.mean(), v, 2)
    return float(f.mean() - c1 / (2.0 * c2))


def nonlinear_peak(model: Hose, y_ss, u_ss, input_index: int, amplitude: float, f_lin: float,
                   outputs, log=print) -> dict:
    """Resonance of the nonlinear model: amplitude ratios 20 log10(max|x - mean| / A)
    on a 0.5 % grid around the linear peak, then a parabola through the 5
    points around the largest, then 5 points 0.05 % apart around that
    vertex and a second parabola; the ratio is evaluated at the final vertex."""
    orbits: dict[float, Orbit] = {}
    guess = [None]

    def orbit_at(f):
        f = round(f, 9)
        if f not in orbits:
            near = min(orbits, key=lambda g: abs(g - f)) if orbits else None
            orbits[f] = periodic_orbit(model, y_ss, u_ss, input_index, amplitude, f,
                                       guess=None if near is None else orbits[near].y0)
        return orbits[f]

    def ratio_db(f, out):
        return 20.0 * math.log10(orbit_at(f).amplitude(model, out) / amplitude)

    result = {}
    for out in outputs:
        grid = list(f_lin * (1.0 + 0.005 * np.arange(-6, 3)))
        while True:
            vals = [ratio_db(f, out) for f in grid]
            k = int(np.argmax(vals))
            if k == 0:
                grid = [grid[0] * (1 - 0.005 * j) for j in (2, 1)] + grid
            elif k == len(grid) - 1:
                grid = grid + [grid[-1] * (1 + 0.005 * j) for j in (1, 2)]
            else:
                break
        lo = max(0, min(k - 2, len(grid) - 5))
        f1 = parabola_vertex(np.array(grid[lo:lo + 5]), np.array(vals[lo:lo + 5]))
        fine = f1 * (1.0 + 0.0005 * np.arange(-2, 3))
        f2 = parabola_vertex(fine, np.array([ratio_db(f, out) for f in fine]))
        peak_db = ratio_db(f2, out)
        o = orbit_at(f2)
        result[out] = {
            "resonance_hz": f2,
            "ratio_db": peak_db,
            "half_peak_to_peak_db": 20.0 * math.log10(o.half_peak_to_peak(model, out) / amplitude),
            "coarse_vertex_hz": f1,
        }
        log(f"    nonlinear {out}: peak {f2:.4f} Hz, {peak_db:.4f} dB "
            f"(coarse vertex {f1:.4f} Hz; {len(orbits)} orbits so far)")
    result["orbits"] = len(orbits)
    return result


# --------------------------------------------------------------------------
# Published numbers
# --------------------------------------------------------------------------

# The numbers stated for this model (MODEL.md's tables and an earlier version
# of them), as they are written (the digits set the tolerance: the value
# rounded or truncated to the last digit must give them).
PUBLISHED_NUMBERS = {
    "default": {
        "compliance_m3_per_Pa": "6.54e-13",
        "wall_share_percent": "54",
        "bulk_modulus_Pa": "6.2e8",
        "wave_speed_m_per_s": "848",
        "quarter_wave_hz": "106.0",
        "step_p1_hz_n1": "107.6",
        "step_p1_hz_n7": "99.5",
        "H_n1_p1_resonance_hz": "105.7",
        "H_n1_Q2_resonance_hz": "105.9",
        "H_n1_p1_ratio_db": "23.7",
        "H_n1_p1_ratio_db_A1e4": "25.9",
        "H_n7_p1_resonance_hz": "97.5",
        "H_n7_p1_ratio_db": "26.8",
        "Y_n1_Q1_resonance_hz": "212.0",
        "Y_n1_Q2_resonance_hz": "212.3",
    },
    "as_stated": {
        "compliance_m3_per_Pa": "4.77e-12",
        "wall_share_percent": "93",
        "bulk_modulus_Pa": "9.3e7",
        "wave_speed_m_per_s": "328",
        "quarter_wave_hz": "41.0",
        "step_p1_hz_n1": "41.1",
        "step_p1_hz_n7": "38.1",
        "H_n1_p1_resonance_hz": "40.6",
        "H_n1_Q2_resonance_hz": "41.0",
        "H_n1_p1_ratio_db": "16.0",
        "H_n7_p1_resonance_hz": "37.9",
        "H_n7_p1_ratio_db": "18.9",
        "Y_n1_Q1_resonance_hz": "81.7",
        "Y_n1_Q2_resonance_hz": "82.4",
    },
}

# The paper's own figures (Grossschmidt and Harf 2017, sections 8-9), for information only.
PAPER_NUMBERS = {
    "H_n1_p1_resonance_hz": 106.0,
    "H_n1_Q2_resonance_hz": 106.7,
    "H_n1_p1_ratio_db": 17.43,
    "H_n1_Q2_ratio_db": -168.75,
    "Y_n1_Q1_resonance_hz": 192.6,
    "Y_n1_Q2_resonance_hz": 195.0,
    "Y_n1_Q1_ratio_db": -166.0,
    "Y_n1_Q2_ratio_db": -169.7,
}

# Published numbers this reference does not reproduce: what it gets instead (same
# digit convention; a change of our value fails the check, so this table
# stays true) and why. Filled in from the runs; see hose_line_NOTES.md.
_N7 = ("the n = 7 chain of N2 gives a first mode 0.3-0.5 % higher and 0.2 dB less peaked than the "
       "published table in both x_ref variants, while every n = 1 number agrees; not explained by p_m choice (< 0.02 Hz), "
       "hysteresis (b = 2e-5: +0.04 dB, 0.00 Hz at n = 1) or the peak search; see hose_line_NOTES.md")
PUBLISHED_DISCREPANCIES: dict[tuple[str, str], tuple[str, str]] = {
    ("default", "step_p1_hz_n7"): ("99.9", "fit 99.95 Hz, post-step eigenfrequency 99.94 Hz; " + _N7),
    ("as_stated", "step_p1_hz_n7"): ("38.2", "fit 38.25 Hz, post-step eigenfrequency 38.24 Hz; " + _N7),
    ("default", "H_n7_p1_resonance_hz"): ("97.8", "flat peak: 97.5 Hz is 0.03 dB below it; " + _N7),
    ("as_stated", "H_n7_p1_resonance_hz"): ("38.1", "very flat peak: 37.9 Hz is 0.01 dB below it; " + _N7),
    ("default", "H_n7_p1_ratio_db"): ("26.6", _N7),
    ("as_stated", "H_n7_p1_ratio_db"): ("18.7", _N7),
    ("default", "H_n1_p1_ratio_db"): (
        "23.9", "max|p1 - mean| over whole periods of the periodic state; half the peak-to-peak gives 23.66 dB "
                "(= the published 23.7), and a mean over a non-whole number of periods biases it by up to -0.23 dB"),
    ("default", "H_n1_p1_ratio_db_A1e4"): (
        "25.1", "at A = 1e4 Pa the model is linear (linearisation: 25.08 dB); the published 25.9 dB would need ~10 % "
                "less damping; the amplitude dependence is 25.09 -> 23.91 dB here"),
}


class Checks(reference_common.Checks):
    """The shared checks plus the comparison with the hose's published numbers."""

    def published(self, variant: str, key: str, value: float, unit: str, label: str) -> None:
        published = PUBLISHED_NUMBERS[variant][key]
        ok, how = agrees_to_published(value, published)
        name = f"published [{variant}] {label}"
        if ok:
            self.add(name, True, f"{value:.6g} {unit}; published {published} ({how})")
            return
        documented = PUBLISHED_DISCREPANCIES.get((variant, key))
        if documented is not None:
            ours, why = documented
            same, how_ours = agrees_to_published(value, ours)
            if same:
                self.discrepancy(name, f"{value:.6g} {unit}; published {published} ({how}); documented: {why}",
                                 f"{name}: {value:.6g} {unit} vs published {published}")
                return
            self.add(name, False,
                     f"{value:.6g} {unit}; published {published}; documented value {ours} no longer holds ({how_ours})")
            return
        self.add(name, False, f"{value:.6g} {unit}; published {published} ({how})")


def variant_parameters(variant: str, n: int) -> dict:
    par = dict(MODEL_PARAMETERS, n=n, b=0.0)
    if variant == "as_stated":
        par["x_ref"] = X_REF_AS_STATED
    return par


def hose_constants(par: dict, p: float = P_OP, wall_slope: str = "eq30") -> dict:
    """Compliance of the whole hose, wall share, effective bulk modulus
    V_H / C, wave speed sqrt(K / rho) and the quarter-wave frequency, at the
    uniform pressure p (n = 1: one segment of the full length; the values do
    not depend on n)."""
    s = segment_properties(p, par["L_hose"], par, wall_slope)
    c_total = float(s.C)
    bulk = float(s.v_hose) / c_total
    speed = math.sqrt(bulk / float(s.rho))
    return {
        "compliance": c_total,
        "wall_share": float(s.c_wall) / c_total,
        "air_share": float(s.c_air) / c_total,
        "oil_share": float(s.c_oil) / c_total,
        "bulk_modulus": bulk,
        "wave_speed": speed,
        "quarter_wave_hz": speed / (4.0 * par["L_hose"]),
        "rho": float(s.rho),
    }


def check_constants(checks: Checks) -> None:
    for variant in ("default", "as_stated"):
        par = variant_parameters(variant, 1)
        c = hose_constants(par)
        checks.published(variant, "compliance_m3_per_Pa", c["compliance"], "m3/Pa", "compliance per hose at p = 1e7 Pa")
        checks.published(variant, "wall_share_percent", 100 * c["wall_share"], "%",
                    f"wall share (air {100 * c['air_share']:.1f} %, oil {100 * c['oil_share']:.1f} %)")
        checks.published(variant, "bulk_modulus_Pa", c["bulk_modulus"], "Pa", "effective bulk modulus V_H / C")
        checks.published(variant, "wave_speed_m_per_s", c["wave_speed"], "m/s", f"wave speed (rho {c['rho']:.2f} kg/m3)")
        checks.published(variant, "quarter_wave_hz", c["quarter_wave_hz"], "Hz", "c / (4 L_hose)")
        tot = hose_constants(par, wall_slope="total")
        checks.info(
            f"[{variant}] with the total derivative dx/dp_m (k(p_m) differentiated too)",
            f"C = {tot['compliance']:.4g} m3/Pa, wall share {100 * tot['wall_share']:.1f} %, "
            f"K = {tot['bulk_modulus']:.4g} Pa, c = {tot['wave_speed']:.1f} m/s, c/(4L) = {tot['quarter_wave_hz']:.2f} Hz "
            "(the published numbers need eq 30, k held fixed)",
        )


def check_ladder(checks: Checks) -> None:
    """The analytic check of the lumped ladder in MODEL.md (HoseH, no losses,
    Q1 = const, p2 = const): the linearisation's first mode against
    (n c / (pi L)) sin(pi / (2 (2n + 1))) with kL = kC = 1, and against
    c / (4 L) with kL = kC = 2/pi, n = 1."""
    base = dict(variant_parameters("default", 1), Al=0.0, zeta=0.0, **{"lambda": 0.0})
    c = hose_constants(base)["wave_speed"]
    worst = 0.0
    for n in range(1, 8):
        m = Hose("H", dict(base, n=n), k_lc=1.0)
        y, u = m.steady_state()
        ev = np.linalg.eigvals(m.jac(y, u))
        f1 = float(np.min(np.abs(ev.imag))) / (2 * math.pi)
        expected = n * c / (math.pi * base["L_hose"]) * math.sin(math.pi / (2 * (2 * n + 1)))
        worst = max(worst, abs(f1 / expected - 1.0), float(np.max(np.abs(ev.real))) / (2 * math.pi * f1))
    checks.add("ladder: first mode of the lossless n-segment HoseH (kL = kC = 1, n = 1..7) vs "
               "(n c/(pi L)) sin(pi/(2(2n+1)))", worst < 1e-9, f"max relative deviation {worst:.1e}")
    m = Hose("H", base)
    y, u = m.steady_state()
    f1 = float(np.min(np.abs(np.linalg.eigvals(m.jac(y, u)).imag))) / (2 * math.pi)
    quarter = c / (4 * base["L_hose"])
    checks.add("ladder: lossless n = 1 with kL = kC = 2/pi is the quarter wave c/(4 L)",
               abs(f1 / quarter - 1) < 1e-9, f"{f1:.6f} Hz vs {quarter:.6f} Hz")
    # Y and Z (n = 1, lossless): twice the H frequency
    for form in "YZ":
        my = Hose(form, base)
        y, u = my.steady_state()
        fy = float(np.max(np.abs(np.linalg.eigvals(my.jac(y, u)).imag))) / (2 * math.pi)
        checks.add(f"ladder: lossless Hose{form} n = 1 resonates at twice HoseH (half wave c/(2 L))",
                   abs(fy / (2 * quarter) - 1) < 1e-9, f"{fy:.6f} Hz vs {2 * quarter:.6f} Hz")


def fit_damped_mode(t, x, f_guess: float, sigma_guess: float) -> tuple[float, float]:
    """Least-squares fit x = c + A exp(-s t) sin(2 pi f t + phi): (f Hz, s 1/s)."""
    from scipy.optimize import least_squares

    amp = float(np.max(np.abs(x - x[-1])))

    def res(q):
        c, a, s, f, ph = q
        return (c + a * np.exp(-s * t) * np.sin(2 * math.pi * f * t + ph) - x) / amp

    best = None
    for ph in np.linspace(0, 2 * math.pi, 8, endpoint=False):
        r = least_squares(res, [x[-1], amp, sigma_guess, f_guess, ph], x_scale="jac")
        if best is None or r.cost < best.cost:
            best = r
    return float(best.x[3]), float(best.x[2])


def step_response_frequency(variant: str, n: int, log=print) -> dict:
    """HoseH step of p2 1e7 -> 1.1e7 Pa: frequency of the p1 oscillation
    (fit of one damped mode over 0.01..0.2 s after the step, 1e-5 s grid),
    with the damped eigenfrequency at the post-step operating point."""
    m = Hose("H", variant_parameters(variant, n))
    y0, u0 = m.steady_state()
    y1, u1 = m.steady_state(p_level=P_OP + 1e6)
    t_eval = np.arange(0, 20001) / 1e5
    _, ys = integrate_cvode(m, y0, lambda t: u1, [0.0, 0.2], t_eval=t_eval)
    ev = np.linalg.eigvals(m.jac(y1, u1))
    ev = ev[ev.imag > 0]
    first = ev[np.argmin(ev.imag)]
    f_eig = float(first.imag) / (2 * math.pi)
    f_fit, s_fit = fit_damped_mode(t_eval, ys[:, 0], f_eig, -float(first.real))
    x = ys[:, 0] - y1[0]
    up = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    tc = t_eval[up] - x[up] * (t_eval[up + 1] - t_eval[up]) / (x[up + 1] - x[up])
    f_cross = (len(tc) - 1) / (tc[-1] - tc[0]) if len(tc) > 1 else math.nan
    return {"fit_hz": f_fit, "fit_decay_per_s": s_fit, "eig_hz": f_eig, "eig_decay_per_s": -float(first.real),
            "upward_crossings_hz": f_cross, "crossings": len(tc)}


def frequency_numbers(variant: str, log=print, amplitude: float = 3e5) -> dict:
    """Linear and nonlinear resonances of HoseH (n = 1, 7; input p2) and
    HoseY (n = 1; input p2), amplitude 3e5 Pa, plus HoseH n = 1 at 1e4 Pa."""
    out = {}
    for form, n, f_lo in (("H", 1, 5.0), ("H", 7, 5.0), ("Y", 1, None)):
        m = Hose(form, variant_parameters(variant, n))
        y, u = m.steady_state()
        inp = m.inputs.index("p2")
        if f_lo is None:  # Y: search the local peak near twice the H resonance
            h = Hose("H", variant_parameters(variant, 1))
            yh, uh = h.steady_state()
            f_lo = 1.5 * linear_peak(h, yh, uh, 1, "p1", 5.0, 600.0)[0]
        t0 = time.perf_counter()
        entry = {"linear": {}, "nonlinear": {}}
        f_ref = None
        for sig in m.outputs:
            f, g = linear_peak(m, y, u, inp, sig, f_lo, 4 * f_lo + 400)
            entry["linear"][sig] = {"resonance_hz": f, "ratio_db": 20 * math.log10(g)}
            f_ref = f_ref or f
        log(f"  Hose{form} n = {n} [{variant}]: linear peaks "
            + ", ".join(f"{k} {v['resonance_hz']:.4f} Hz {v['ratio_db']:.3f} dB" for k, v in entry["linear"].items()))
        nl = nonlinear_peak(m, y, u, inp, amplitude, f_ref, m.outputs, log=log)
        entry["orbits"] = nl.pop("orbits")
        entry["nonlinear"] = nl
        log(f"  Hose{form} n = {n} [{variant}]: {time.perf_counter() - t0:.1f} s")
        out[f"{form}_n{n}"] = entry
    if variant == "default":
        m = Hose("H", variant_parameters(variant, 1))
        y, u = m.steady_state()
        f_lin = out["H_n1"]["linear"]["p1"]["resonance_hz"]
        nl = nonlinear_peak(m, y, u, 1, 1e4, f_lin, ("p1",), log=log)
        out["H_n1_A1e4"] = {"nonlinear": {"p1": nl["p1"]}}
    return out


def confirm_by_time_simulation(variant: str, f: float, amplitude: float, expected_db: float,
                               checks: Checks, periods: int = 64) -> None:
    """Independent confirmation of the HoseH n = 1 resonance amplitude: a
    plain SciPy Radau run from the steady state with sinusoidal p2 for
    ``periods`` periods (0.6 s: the transient decays as exp(-18.6 t), 1e-5),
    amplitude of p1 over the last 10 whole periods. (The mean must be taken
    over whole periods: over 0.9..1.0 s, 10.57 periods, it is biased by
    ~3 % of the amplitude, -0.23 dB here.)"""
    m = Hose("H", variant_parameters(variant, 1))
    y, u = m.steady_state()
    w = 2 * math.pi * f
    period = 1.0 / f
    e = np.array([0.0, 1.0])
    t_end = periods * period
    t_eval = t_end - 10 * period + np.arange(10 * 1000 + 1) * (period / 1000)
    t_eval[-1] = t_end
    t0 = time.perf_counter()
    sol = solve_ivp(lambda t, yy: m.rhs(yy, u + e * amplitude * math.sin(w * t)), (0.0, t_end), y,
                    method="Radau", rtol=1e-9, atol=m.atol * 10, t_eval=t_eval,
                    jac=lambda t, yy: m.jac(yy, u + e * amplitude * math.sin(w * t)))
    x = sol.y[0][:-1]
    db = 20 * math.log10(np.max(np.abs(x - x.mean())) / amplitude)
    checks.add(f"[{variant}] HoseH n = 1 at {f:.4f} Hz, A = {amplitude:g} Pa: Radau time run ({periods} periods "
               "from the steady state, p1 over the last 10) vs shooting", abs(db - expected_db) < 0.005,
               f"{db:.4f} dB vs {expected_db:.4f} dB ({time.perf_counter() - t0:.1f} s)")


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------

IMPULSE_START = 0.01  # s; then rise, hold and fall of 0.01 s each

SCENARIOS = {
    "HoseH/step_n1": {
        "form": "H", "n": 1, "variant": "default", "kind": "step", "input": "p2", "height": 1e6,
        "description": "HoseH, n = 1: Q1 = 5e-4 m3/s constant, p2 steps from 1e7 to 1.1e7 Pa at t = 0.01 s; "
                       "start at the steady state of Q1 = 5e-4 m3/s, p2 = 1e7 Pa.",
    },
    "HoseH/step_n7": {
        "form": "H", "n": 7, "variant": "default", "kind": "step", "input": "p2", "height": 1e6,
        "description": "HoseH, n = 7 chained segments: Q1 = 5e-4 m3/s constant, p2 steps from 1e7 to 1.1e7 Pa at "
                       "t = 0.01 s; start at the steady state of Q1 = 5e-4 m3/s, p2 = 1e7 Pa.",
    },
    "HoseH/step_n1_as_stated": {
        "form": "H", "n": 1, "variant": "as_stated", "kind": "step", "input": "p2", "height": 1e6,
        "description": "HoseH, n = 1, x_ref = 4e-4 m as the paper states it: Q1 = 5e-4 m3/s constant, p2 steps "
                       "from 1e7 to 1.1e7 Pa at t = 0.01 s; start at the steady state.",
    },
    "HoseG/step_n1": {
        "form": "G", "n": 1, "variant": "default", "kind": "step", "input": "p1", "height": 1e6,
        "description": "HoseG, n = 1: Q2 = 5e-4 m3/s constant, p1 steps by +1e6 Pa at t = 0.01 s from the value "
                       "that makes the steady outlet pressure p2 = 1e7 Pa; start at that steady state.",
    },
    "HoseY/impulse_n1": {
        "form": "Y", "n": 1, "variant": "default", "kind": "impulse", "input": "p2", "height": 1e5,
        "description": "HoseY, n = 1: p1 constant (the value that gives a steady flow of 5e-4 m3/s at p2 = 1e7 Pa), "
                       "impulse of p2 of height 1e5 Pa: rise 0.01..0.02 s, hold to 0.03 s, fall to 0.04 s "
                       "(the paper's section 8); start at the steady state.",
    },
    "HoseZ/impulse_n1": {
        "form": "Z", "n": 1, "variant": "default", "kind": "impulse", "input": "Q1", "height": 3e-6,
        "description": "HoseZ, n = 1: Q2 = 5e-4 m3/s constant, impulse of Q1 from 5e-4 m3/s of height 3e-6 m3/s: "
                       "rise 0.01..0.02 s, hold to 0.03 s, fall to 0.04 s (the paper's section 8); start at the "
                       "steady state with Q1 = Q2 = 5e-4 m3/s and the pressure level p2 = 1e7 Pa.",
    },
}


def scenario_model(spec: dict) -> Hose:
    return Hose(spec["form"], variant_parameters(spec["variant"], spec["n"]))


def scenario_parameters(spec: dict) -> dict:
    """The FMU parameters a master must set (everything else: MODEL.md defaults)."""
    par = {"n": spec["n"], "b": 0.0}
    if spec["variant"] == "as_stated":
        par["x_ref"] = X_REF_AS_STATED
    if spec["form"] == "Z":
        par["p_level"] = P_OP  # initial outlet pressure p2(0): with Q1 = Q2 any level is steady
    return par


def scenario_inputs(spec: dict, model: Hose, u0: np.ndarray) -> InputTable:
    k = model.inputs.index(spec["input"])
    base = u0.copy()
    high = u0.copy()
    high[k] += spec["height"]
    if spec["kind"] == "step":
        t1 = IMPULSE_START
        rows = [(START_TIME, *base), (t1, *base), (t1, *high), (STOP_TIME, *high)]
        return InputTable(model.inputs, rows, "step")
    t1 = IMPULSE_START
    rows = [(START_TIME, *base), (t1, *base), (t1 + 0.01, *high), (t1 + 0.02, *high), (t1 + 0.03, *base),
            (STOP_TIME, *base)]
    return InputTable(model.inputs, rows, "linear")


def opt_text() -> str:
    return (f"StartTime, {fmt(START_TIME)}\nStopTime, {fmt(STOP_TIME)}\nStepSize, {fmt(STEP_SIZE)}\n"
            f"RelTol, {OPT_REL_TOL!r}\n")


def round_sig(x: float, digits: int = 2) -> float:
    """x to ``digits`` significant digits (nearest)."""
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits - 1}e}")


def floor_sig(x: float, digits: int = 2) -> float:
    """x cut down to ``digits`` significant digits (a bound never above its target)."""
    if x <= 0 or not math.isfinite(x):
        return x
    e = math.floor(math.log10(x)) - digits + 1
    return float(f"{math.floor(x / 10.0**e * (1 + 1e-12))}e{e}")


def signal_metrics(result: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """The harness figures: relative RMS (%, over mean |reference|) and max |diff|."""
    diff = result - reference
    rel = 100.0 * float(np.sqrt(np.mean(diff**2))) / float(np.mean(np.abs(reference)))
    return rel, float(np.max(np.abs(diff)))


def bounds(reference: np.ndarray, offset: float) -> dict:
    """Bounds of one output. The target: RMS error <= 0.1 % of the mean |deviation
    from the operating point|; written as the harness's relative RMS (over
    mean |signal|) with the offset stated, so that a harness that subtracts
    it gets 0.1 %. max_abs: 0.5 % of the reference's range."""
    dev = float(np.mean(np.abs(reference - offset)))
    allowed_rms = DEVIATION_REL_RMS_PERCENT / 100.0 * dev
    rel = floor_sig(100.0 * allowed_rms / float(np.mean(np.abs(reference))))
    span = float(np.max(reference) - np.min(reference))
    return {
        "rel_rms_percent": rel,
        "max_abs": floor_sig(MAX_ABS_FRACTION_OF_RANGE * span),
        "offset": float(offset),
        "deviation_rel_rms_percent": DEVIATION_REL_RMS_PERCENT,
        "mean_abs_deviation": round_sig(dev, 4),
    }


@dataclass
class ScenarioResult:
    name: str
    spec: dict
    model: Hose
    table: InputTable
    y0: np.ndarray
    u0: np.ndarray
    radau: Trace
    cvode: Trace
    signals: dict
    analytic: list
    trace_checks: list
    agreement: dict


def scenario_json(res: ScenarioResult) -> str:
    model_name = "Hose" + res.spec["form"]
    doc = {
        "model": model_name,
        "scenario": res.name.split("/")[1],
        "description": res.spec["description"],
        "model_description": "components/circuits/hose-line/MODEL.md",
        "generated_by": "validation/python/reference/hose_line.py",
        "parameters": scenario_parameters(res.spec),
        "inputs": f"{model_name}_in.csv",
        "reference": f"{model_name}_ref.csv",
        "options": f"{model_name}_ref.opt",
        "crosscheck": f"{model_name}_cvode.csv",
        "interpolation": res.table.interpolation,
        "step_sizes": [STEP_SIZE],
        "signals": res.signals,
        "analytic": res.analytic,
        "initial_state": {
            "rule": "steady state of the model description's equations (kr included) for the inputs at t = 0"
                    + ("; HoseZ: with Q1 = Q2 every pressure level is steady, the level is p2(0) = p_level = 1e7 Pa"
                       if res.spec["form"] == "Z" else ""),
            "states": dict(zip(res.model.state_names(), (float(v) for v in res.y0))),
        },
        "trace_checks": res.trace_checks,
        "solver_agreement": res.agreement,
        "note": (
            "Bounds: SI units (Pa, m3/s). The target is an RMS error of 0.1 % of the mean |deviation of the "
            "signal from its operating-point value| (offset); rel_rms_percent is that allowance divided by the "
            "mean |signal| (the harness's definition), so a harness that subtracts offset before dividing gets "
            "deviation_rel_rms_percent = 0.1. max_abs: 0.5 % of the reference's range. The wall hysteresis is "
            "not in the reference: the scenario sets b = 0 (x = x_el exactly). Inputs are held constant over "
            "each communication step of 1e-4 s (the masters' rule); the reference integrates exactly that "
            "piecewise-constant input, so it is valid for the step size 1e-4 s only. Reference: SciPy Radau "
            "rtol 1e-10; crosscheck: SUNDIALS CVODE BDF rtol 1e-10."
        ),
    }
    return json.dumps(doc, indent=2) + "\n"


def scenario_files(res: ScenarioResult) -> dict[str, str]:
    model_name = "Hose" + res.spec["form"]
    rows = res.table.rows
    inputs = csv_text(["time", *res.model.inputs], [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]])
    header = ["time", *res.model.outputs]

    def trace_csv(tr: Trace) -> str:
        return csv_text(header, [tr.t] + [tr.y[:, res.model.output_index(s)] for s in res.model.outputs])

    return {
        f"{model_name}_in.csv": inputs,
        f"{model_name}_ref.csv": trace_csv(res.radau),
        f"{model_name}_cvode.csv": trace_csv(res.cvode),
        f"{model_name}_ref.opt": opt_text(),
        "scenario.json": scenario_json(res),
    }


def run_scenario(name: str, checks: Checks, log=print) -> ScenarioResult:
    spec = SCENARIOS[name]
    model = scenario_model(spec)
    y0, u0 = model.steady_state()
    table = scenario_inputs(spec, model, u0)
    t_out = output_times()
    pieces = held_pieces(table, t_out)
    log(f"  states {model.state_names()}; kL = kC = {model.k_lc:.6f}, kr = {model.k_r:.3f}; "
        f"inputs at t = 0: {dict(zip(model.inputs, map(float, u0)))}; {len(pieces)} constant-input pieces")
    resid = float(np.max(np.abs(model.rhs(y0, u0)) / model.scale)) / 1e3  # per 1 ms, of the scale
    checks.add(f"{name}: steady state is an equilibrium", resid < 1e-12,
               f"max |dy/dt| * 1 ms / scale = {resid:.1e}", trace=True)

    t0 = time.perf_counter()
    radau = solve_radau(model, pieces, y0, t_out)
    log(f"  Radau rtol {RADAU_RTOL:g}: {time.perf_counter() - t0:.1f} s, {radau.stats}")
    t0 = time.perf_counter()
    cvode = solve_cvode(model, pieces, y0, t_out)
    log(f"  CVODE BDF rtol {CVODE_RTOL:g}: {time.perf_counter() - t0:.1f} s, {cvode.stats}")

    signals, agreement = {}, {}
    for sig in model.outputs:
        i = model.output_index(sig)
        ref = radau.y[:, i]
        signals[sig] = bounds(ref, y0[i])
        rel, mx = signal_metrics(cvode.y[:, i], ref)
        lim_rel = CROSSCHECK_FRACTION * signals[sig]["rel_rms_percent"]
        lim_abs = CROSSCHECK_FRACTION * signals[sig]["max_abs"]
        dev_rel = 100 * float(np.sqrt(np.mean((cvode.y[:, i] - ref) ** 2))) / signals[sig]["mean_abs_deviation"]
        agreement[sig] = {"rel_rms_percent": round_sig(rel, 3), "max_abs": round_sig(mx, 3),
                          "deviation_rel_rms_percent": round_sig(dev_rel, 3)}
        checks.add(f"{name}: CVODE vs Radau {sig}", rel <= lim_rel and mx <= lim_abs,
                   f"rel RMS {rel:.2e} % (limit {lim_rel:.2g} %), max |diff| {mx:.3g} (limit {lim_abs:.3g}); "
                   f"of the deviation: {dev_rel:.2e} %", trace=True)

    # analytic: the steady state holds until the disturbance starts
    analytic = []
    k = int(round(0.005 * STEPS_PER_SECOND))
    p_in, p_out = model.end_pressures(y0, u0)
    drop = abs(p_in - p_out)
    for sig in model.outputs:
        i = model.output_index(sig)
        entry = {"signal": sig, "time": 0.005, "value": float(y0[i])}
        if sig.startswith("p"):
            entry["abs_tol"] = round_sig(1e-4 * drop)
            entry["note"] = ("steady state of the operating point (MODEL.md: initial state, kr included); abs_tol "
                             "1e-4 of the steady pressure drop along the hose")
        else:
            entry["rel_tol"] = 1e-6
            entry["note"] = "steady flow of the operating point"
        analytic.append(entry)
        got = radau.y[k, i]
        tol = entry.get("abs_tol", (entry.get("rel_tol") or 0) * abs(entry["value"]))
        checks.add(f"{name}: reference holds the steady {sig} until t = 0.005 s", abs(got - entry["value"]) <= tol,
                   f"|{float(got)!r} - {entry['value']!r}| = {abs(got - entry['value']):.2e} (tol {tol:.2g})", trace=True)

    trace_checks = []
    if model.form == "Z":
        trace_checks.append(z_volume_check(name, model, y0, u0, table, radau, checks))
    if model.form == "H":
        # frequency of the p1 oscillation after the step, on this trace (MODEL.md: step, p1 oscillation)
        y1, u1 = model.steady_state(p_level=P_OP + spec["height"])
        mask = radau.t >= IMPULSE_START
        ev = np.linalg.eigvals(model.jac(y1, u1))
        ev = ev[ev.imag > 0]
        ev = ev[np.argmin(ev.imag)]
        f_fit, _ = fit_damped_mode(radau.t[mask] - IMPULSE_START, radau.y[mask, 0], ev.imag / (2 * math.pi), -ev.real)
        key = f"step_p1_hz_n{spec['n']}"
        entry = {
            "signal": "p1", "quantity": "frequency of the damped p1 oscillation after the step (Hz)",
            "method": "least-squares fit c + A exp(-s t) sin(2 pi f t + phi) over 0.01..0.2 s of the 1e-4 s grid",
            "value": round(f_fit, 3), "rel_tol": 1e-3, "published": float(PUBLISHED_NUMBERS[spec["variant"]][key]),
        }
        if (spec["variant"], key) in PUBLISHED_DISCREPANCIES:
            entry["published_discrepancy"] = PUBLISHED_DISCREPANCIES[(spec["variant"], key)][1]
        trace_checks.append(entry)
        checks.info(f"{name}: p1 oscillation after the step", f"{f_fit:.4f} Hz (fit on the 1e-4 s grid; "
                    f"eigenfrequency at the post-step operating point {ev.imag / (2 * math.pi):.4f} Hz)")

    if table.interpolation == "linear":
        compare_continuous_input(name, model, table, y0, radau, signals, checks, log)
    check_achievable(name, model, pieces, y0, t_out, radau, signals, checks, log)
    return ScenarioResult(name, spec, model, table, y0, u0, radau, cvode, signals, analytic, trace_checks, agreement)


def z_volume_check(name, model: Hose, y0, u0, table: InputTable, radau: Trace, checks: Checks) -> dict:
    """HoseZ n = 1: summing the two node equations, kC C(p_m) dp_m/dt = Q1 - Q2
    with p_m = (p1 + p2)/2, so after the impulse p_m is fixed by the volume
    pushed in: integral of kC C(p) dp from p_m(0) to p_m = integral of
    (Q1 - Q2) dt (the held input integrates to exactly 0.02 s * 3e-6 m3/s)."""
    from scipy.integrate import quad
    from scipy.optimize import brentq

    t_grid = output_times()
    held = np.array([table.value(t) for t in t_grid[:-1]])
    volume = float(np.sum((held[:, 0] - held[:, 1]) * STEP_SIZE))

    def stored(p):
        return quad(lambda q: model.k_lc * float(model.props(q).C), 0.5 * (y0[0] + y0[-1]), p,
                    epsabs=0, epsrel=1e-13)[0]

    pm0 = 0.5 * (y0[0] + y0[-1])
    pm_end = brentq(lambda p: stored(p) - volume, pm0, pm0 + 1e7, xtol=1e-9, rtol=1e-15)
    after = radau.t >= 0.04
    pm_trace = 0.5 * (radau.y[after, 0] + radau.y[after, -1])
    err = float(np.max(np.abs(pm_trace - pm_end)))
    checks.add(f"{name}: (p1 + p2)/2 after the impulse equals the volume-balance level", err < 1e-2,
               f"level {pm_end:.6f} Pa (rise {pm_end - pm0:.3f} Pa for {volume:.4e} m3), max |diff| over "
               f"0.04..0.2 s {err:.2e} Pa", trace=True)
    return {"signal": "(p1 + p2)/2", "quantity": "mean pressure for t >= 0.04 s (Pa): exact, from the volume balance",
            "value": pm_end, "abs_tol": 1.0,
            "note": "kC C(p_m) dp_m/dt = Q1 - Q2 for n = 1; the held Q1 impulse adds 6e-8 m3"}


def compare_continuous_input(name, model, table, y0, radau, signals, checks, log) -> None:
    """How far the reference would move if the input ramps were continuous
    instead of held over each 1e-4 s step (why the reference uses the held input)."""
    corners = sorted({r[0] for r in table.rows})
    t_out = output_times()
    rows, y = [], np.array(y0)
    for a, b in zip(corners[:-1], corners[1:]):
        inside = t_out[(t_out >= a) & (t_out < b)]
        t, ys = integrate_cvode(model, y, table.exact, [a, b], t_eval=np.unique(np.concatenate([[a], inside, [b]])))
        rows.append(ys[np.isin(t, inside)])
        y = ys[-1]
    rows.append(y[None, :])
    cont = np.vstack(rows)
    for sig in model.outputs:
        i = model.output_index(sig)
        rel, mx = signal_metrics(cont[:, i], radau.y[:, i])
        b = signals[sig]
        checks.info(f"{name}: continuous ramps instead of held inputs, {sig}",
                    f"rel RMS {rel:.3g} % ({rel / b['rel_rms_percent']:.2f} x bound), max |diff| {mx:.3g} "
                    f"({mx / b['max_abs']:.2f} x bound)")


def check_achievable(name, model, pieces, y0, t_out, radau, signals, checks, log) -> None:
    """Are the bounds reachable by an adaptive implicit method? CVODE BDF at
    rtol 1e-6 and 1e-7 (atol scaled alike) against the reference, in
    multiples of each bound (1.0 = just at the bound)."""
    for rtol in (1e-6, OPT_REL_TOL):
        t0 = time.perf_counter()
        saved = model.atol
        model.atol = saved * (rtol / CVODE_RTOL)
        try:
            loose = solve_cvode(model, pieces, y0, t_out, rtol=rtol)
        finally:
            model.atol = saved
        parts = []
        for sig in model.outputs:
            i = model.output_index(sig)
            rel, mx = signal_metrics(loose.y[:, i], radau.y[:, i])
            b = signals[sig]
            parts.append(f"{sig} {rel / b['rel_rms_percent']:.2f} x rel-RMS bound, {mx / b['max_abs']:.2f} x max_abs")
        checks.info(f"{name}: CVODE BDF at rtol {rtol:g} vs the reference",
                    "; ".join(parts) + f" ({time.perf_counter() - t0:.1f} s)")


# --------------------------------------------------------------------------
# Frequency-response files
# --------------------------------------------------------------------------


def frequency_documents(numbers: dict) -> dict[str, dict]:
    """HoseH/frequency_response.json and HoseY/frequency_response.json."""
    common = {
        "model_description": "components/circuits/hose-line/MODEL.md",
        "generated_by": "validation/python/reference/hose_line.py",
        "input": "p2 = 1e7 + A sin(2 pi f t) Pa (for HoseY p1 constant at its operating value)",
        "amplitude_Pa": 3e5,
        "operating_point": "Q1 = 5e-4 m3/s (HoseH: constant input; HoseY: steady flow), p2 mean 1e7 Pa",
        "parameters": "MODEL.md defaults with b = 0 (no wall hysteresis); *_as_stated: x_ref = 4e-4 m",
        "ratio_definition": "20 log10(max|x - mean(x)| / A) over one period of the periodic steady state, the "
                            "mean taken over whole periods (over a non-whole window, e.g. 10.57 periods, it is "
                            "biased by up to -0.23 dB) (pressures: dB of Pa/Pa; flows: dB of m3/(s Pa), hence "
                            "about -166 dB)",
        "method": f"nonlinear: periodic orbits by shooting (CVODE BDF rtol {SHOOT_RTOL:g}, Broyden from the "
                  "linearisation's monodromy matrix), peak by two parabola fits (0.5 % then 0.05 % spacing); "
                  "linear: |C (j w I - A)^-1 B| of the linearisation at the steady state, peak to 1e-7 Hz; the "
                  "HoseH n = 1 peak is confirmed by a plain Radau time run (64 periods)",
        "conditioning": "the peaks are flat: HoseH n = 7 loses 0.03 dB at 0.25 Hz from the peak (as stated: "
                        "0.01 dB at 0.2 Hz), so compare resonance frequencies with a tolerance of a few tenths "
                        "of a Hz and ratios to ~0.05 dB",
        "half_peak_to_peak_db": "the same ratio with (max - min)/2 instead of max|x - mean|, at the same frequency",
    }
    docs = {"HoseH": dict(common, model="HoseH", outputs=["p1", "Q2"]),
            "HoseY": dict(common, model="HoseY", outputs=["Q1", "Q2"])}
    for variant, per in numbers.items():
        suffix = "" if variant == "default" else "_as_stated"
        for key, entry in per.items():
            form = "HoseH" if key.startswith("H_") else "HoseY"
            name = key.split("_", 1)[1] + suffix  # n1, n7, n1_A1e4
            first = "p1" if form == "HoseH" else "Q1"
            nl = entry["nonlinear"]
            item = {
                "parameters": {"n": int(name[1]), "b": 0.0, **({"x_ref": X_REF_AS_STATED} if suffix else {})},
                "resonance_hz": round(nl[first]["resonance_hz"], 4),
                "ratio_db": round(nl[first]["ratio_db"], 4),
                "signals": {
                    sig: {
                        "resonance_hz": round(v["resonance_hz"], 4),
                        "ratio_db": round(v["ratio_db"], 4),
                        "half_peak_to_peak_db": round(v["half_peak_to_peak_db"], 4),
                        **({"linear_resonance_hz": round(entry["linear"][sig]["resonance_hz"], 4),
                            "linear_ratio_db": round(entry["linear"][sig]["ratio_db"], 4)} if "linear" in entry else {}),
                    }
                    for sig, v in nl.items()
                },
            }
            if name.endswith("A1e4"):
                item["amplitude_Pa"] = 1e4
            published = {}
            prefix = key[0] + "_" + key.split("_")[1] + "_"  # H_n1_, H_n7_, Y_n1_
            suffix_key = "_A1e4" if name.endswith("A1e4") else ""
            for sig in item["signals"]:
                for quantity in ("resonance_hz", "ratio_db"):
                    published_key = f"{prefix}{sig}_{quantity}{suffix_key}"
                    if published_key in PUBLISHED_NUMBERS[variant]:
                        published[f"{sig}_{quantity}"] = float(PUBLISHED_NUMBERS[variant][published_key])
                        if (variant, published_key) in PUBLISHED_DISCREPANCIES:
                            published[f"{sig}_{quantity}_discrepancy"] = \
                                PUBLISHED_DISCREPANCIES[(variant, published_key)][1]
            if published:
                item["published"] = published
            docs[form][name] = item
    return docs


# Informational JSON entries --check does not compare (CVODE's last digits may
# differ between machines; the cross-check trace itself is compared).
CHECK_IGNORED_KEYS = {"solver_agreement"}


def json_close(a, b, rel=1e-6, path="") -> list[str]:
    """Differences between two JSON values (numbers within rel)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted((set(a) | set(b)) - CHECK_IGNORED_KEYS):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'new' if k in a else 'committed'}")
            else:
                out += json_close(a[k], b[k], rel, f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: list length {len(a)} vs {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_close(x, y, rel, f"{path}[{i}]")]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        ok = abs(a - b) <= rel * max(abs(a), abs(b)) or a == b
        return [] if ok else [f"{path}: {a!r} vs committed {b!r}"]
    return [] if a == b else [f"{path}: {a!r} vs committed {b!r}"]


def compare_file(checks: Checks, label: str, path: Path, text: str, scales: dict | None = None,
                 exact: bool = False) -> None:
    """--check: compare a recomputed file with the committed one. A CSV
    column may move within reference_common.judge_change()'s limits of its
    mean deviation from the operating point (the scale of the bounds), a
    JSON number by 1e-6 relative (CHECK_IGNORED_KEYS not at all); ``exact``:
    byte for byte."""
    if not path.exists():
        checks.add(label, False, "CHANGED: missing on disk")
        return
    old = path.read_text()
    if old == text:
        checks.add(label, True, "unchanged (identical)")
        return
    if exact:
        checks.add(label, False, "CHANGED (text differs, --exact)")
        return
    if path.suffix == ".json":
        diffs = json_close(json.loads(text), json.loads(old))
        checks.add(label, not diffs, "unchanged within 1e-6 relative" if not diffs
                   else "CHANGED: " + "; ".join(diffs[:5]))
        return
    if path.suffix == ".csv" and scales is not None:
        h_new, v_new = parse_csv(text)
        h_old, v_old = parse_csv(old)
        if h_new != h_old or v_new.shape != v_old.shape:
            checks.add(label, False, "CHANGED: columns or row count differ")
            return
        scale = [scales.get(col, 1.0) if col != "time" else 1.0 for col in h_new]
        ok, detail = judge_change(path.name, h_new, v_old, v_new, np.array(scale), "mean |deviation|")
        checks.add(label, ok, ("unchanged within tolerance" if ok else "CHANGED") + f" ({detail})")
        return
    checks.add(label, False, "CHANGED (text differs)")


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def published_frequency_checks(checks: Checks, numbers: dict) -> None:
    for variant, per in numbers.items():
        h1, h7, y1 = per["H_n1"]["nonlinear"], per["H_n7"]["nonlinear"], per["Y_n1"]["nonlinear"]
        checks.published(variant, "H_n1_p1_resonance_hz", h1["p1"]["resonance_hz"], "Hz", "HoseH n = 1 resonance of p1 (3e5 Pa)")
        checks.published(variant, "H_n1_Q2_resonance_hz", h1["Q2"]["resonance_hz"], "Hz", "HoseH n = 1 resonance of Q2 (3e5 Pa)")
        checks.published(variant, "H_n1_p1_ratio_db", h1["p1"]["ratio_db"], "dB",
                    f"HoseH n = 1 ratio of p1 at resonance, max|p1 - mean| (half peak-to-peak: "
                    f"{h1['p1']['half_peak_to_peak_db']:.3f} dB)")
        checks.published(variant, "H_n7_p1_resonance_hz", h7["p1"]["resonance_hz"], "Hz", "HoseH n = 7 resonance of p1 (3e5 Pa)")
        checks.published(variant, "H_n7_p1_ratio_db", h7["p1"]["ratio_db"], "dB",
                    f"HoseH n = 7 ratio of p1 at resonance (half peak-to-peak: {h7['p1']['half_peak_to_peak_db']:.3f} dB)")
        checks.published(variant, "Y_n1_Q1_resonance_hz", y1["Q1"]["resonance_hz"], "Hz", "HoseY n = 1 resonance of Q1 (3e5 Pa)")
        checks.published(variant, "Y_n1_Q2_resonance_hz", y1["Q2"]["resonance_hz"], "Hz", "HoseY n = 1 resonance of Q2 (3e5 Pa)")
        for key, lin in (("H_n1", per["H_n1"]["linear"]), ("H_n7", per["H_n7"]["linear"]), ("Y_n1", per["Y_n1"]["linear"])):
            checks.info(f"[{variant}] {key} linearisation peaks",
                        ", ".join(f"{s} {v['resonance_hz']:.3f} Hz {v['ratio_db']:.3f} dB" for s, v in lin.items()))
        if "H_n1_A1e4" in per:
            checks.published(variant, "H_n1_p1_ratio_db_A1e4", per["H_n1_A1e4"]["nonlinear"]["p1"]["ratio_db"], "dB",
                        "HoseH n = 1 ratio of p1 at resonance with A = 1e4 Pa")
    d = numbers.get("default")
    if d:
        checks.info("paper (Grossschmidt and Harf 2017, section 9) for comparison",
                    f"HoseH n = 1: p1 {PAPER_NUMBERS['H_n1_p1_resonance_hz']} Hz {PAPER_NUMBERS['H_n1_p1_ratio_db']} dB, "
                    f"Q2 {PAPER_NUMBERS['H_n1_Q2_resonance_hz']} Hz {PAPER_NUMBERS['H_n1_Q2_ratio_db']} dB (ours "
                    f"{d['H_n1']['nonlinear']['Q2']['ratio_db']:.2f} dB); HoseY: Q1 {PAPER_NUMBERS['Y_n1_Q1_resonance_hz']} Hz, "
                    f"Q2 {PAPER_NUMBERS['Y_n1_Q2_resonance_hz']} Hz")


def main(argv=None) -> int:
    default_out = Path(__file__).resolve().parents[2] / "scenarios"
    parser = argparse.ArgumentParser(
        description="Independent SciPy Radau (+ CVODE cross-check) reference traces for the hose model "
                    "description (HoseH/G/Y/Z), FMI Cross-Check layout; also checks the published numbers.")
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all", "none"], default="all",
                        help="scenario to compute (default: all; none: only the published numbers)")
    add_check_arguments(parser)
    parser.add_argument("--out-dir", type=Path, default=default_out,
                        help=f"root of the scenario folders (default: {default_out})")
    parser.add_argument("--no-frequency", action="store_true",
                        help="skip the resonance numbers (nonlinear periodic orbits, ~3 min) and their JSON files")
    args = parser.parse_args(argv)

    checks = Checks()
    print(f"hose reference: mode {'check' if args.check else 'write'}, output root {args.out_dir}", flush=True)

    print("\n== equations and the published static numbers ==", flush=True)
    worst = 0.0
    for form in "HGYZ":
        for n in (1, 3, 7):
            m = Hose(form, variant_parameters("default", n))
            y, u = m.steady_state()
            y = y * (1 + 1e-3 * np.sin(np.arange(len(y)) + 1.0))  # off the steady state
            jac = m.jac(y, u)
            for j in range(len(y)):
                h = 1e-6 * m.scale[j]
                e = np.zeros(len(y))
                e[j] = h
                col = (m.rhs(y + e, u) - m.rhs(y - e, u)) / (2 * h)
                worst = max(worst, float(np.max(np.abs(col - jac[:, j])) / np.max(np.abs(jac[:, j]))))
    checks.add("complex-step Jacobian vs central differences (4 forms, n = 1, 3, 7)", worst < 1e-6,
               f"max rel diff {worst:.1e}")
    for n in (1, 7):
        k_lc, k_r = corrections(n, MODEL_PARAMETERS)
        checks.info(f"corrections n = {n}", f"kL = kC = {k_lc:.6f}, kr = {k_r:.3f}")
    checks.info("corrections n >= 15", f"kr = kr1 - kr2 (n - 1) = {corrections(15, MODEL_PARAMETERS)[1]:.2f} at n = 15, "
                f"{corrections(20, MODEL_PARAMETERS)[1]:.2f} at n = 20: no (or negative) damping, so n is limited to 14")
    check_constants(checks)
    check_ladder(checks)

    print("\n== step response of HoseH: frequency of the p1 oscillation ==", flush=True)
    for variant in ("default", "as_stated"):
        for n in (1, 7):
            r = step_response_frequency(variant, n)
            checks.published(variant, f"step_p1_hz_n{n}", r["fit_hz"], "Hz",
                        f"HoseH n = {n} step: p1 oscillation (damped-mode fit; eigenfrequency at the post-step "
                        f"operating point {r['eig_hz']:.3f} Hz"
                        + (f", upward zero crossings {r['upward_crossings_hz']:.3f} Hz)" if n == 1 else
                           "; zero crossings are not usable: the higher modes cross too)"))

    names = list(SCENARIOS) if args.scenario == "all" else [] if args.scenario == "none" else [args.scenario]
    for name in names:
        print(f"\n== {name} ==", flush=True)
        t0 = time.perf_counter()
        before = checks.trace_failures
        res = run_scenario(name, checks, log=lambda m: print(m, flush=True))
        files = scenario_files(res)
        folder = args.out_dir / name
        scales = {s: res.signals[s]["mean_abs_deviation"] for s in res.model.outputs}
        if args.check:
            for fname, text in files.items():
                compare_file(checks, f"{name}: {fname}", folder / fname, text, scales, args.exact)
        elif checks.trace_failures > before:
            print(f"  NOT writing {folder}: a solver or reference check failed", flush=True)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            for fname, text in files.items():
                (folder / fname).write_text(text)
            print(f"  wrote {', '.join(files)} to {folder}", flush=True)
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)

    if not args.no_frequency:
        print("\n== resonances (HoseH n = 1, 7; HoseY n = 1; A = 3e5 Pa on p2) ==", flush=True)
        numbers = {}
        for variant in ("default", "as_stated"):
            numbers[variant] = frequency_numbers(variant, log=lambda m: print(m, flush=True))
        published_frequency_checks(checks, numbers)
        h1 = numbers["default"]["H_n1"]["nonlinear"]["p1"]
        confirm_by_time_simulation("default", h1["resonance_hz"], 3e5, h1["ratio_db"], checks)
        docs = frequency_documents(numbers)
        for model_name, doc in docs.items():
            path = args.out_dir / model_name / "frequency_response.json"
            text = json.dumps(doc, indent=2) + "\n"
            if args.check:
                compare_file(checks, f"{model_name}/frequency_response.json", path, text, exact=args.exact)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                print(f"  wrote {path}", flush=True)

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
