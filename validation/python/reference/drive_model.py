"""The HydrostaticDrive description's equations, written from the parts'
documented laws (the doc comments of components/elements/parts/src/*.rs,
the element laws of components/elements/hydraulics/src/, the hose-line
model description components/circuits/hose-line/MODEL.md H1-H7) and the
connections of ``components/circuits/circuit-file/examples/hydrostatic_drive.toml``;
no Rust code is called. The hose's segment laws and its chained form G are
the hose reference's (``hose_line.py``, imported, not repeated); this module
adds the neighbours that set the hose's end values, the segment laws' floor,
and (off by default) the wall hysteresis of H2 in the flow geometry: the
hose part, like the hose FMUs, checks ``b`` and ``h`` but leaves the
hysteresis out, so the reference does too. See
hydrostatic_drive_NOTES.md for the derivation, state by state.

States (the reference's own order, SI): w_p (electric motor and pump shaft),
p_a (the accumulator's node: pump outlet, relief inlet, hose end A), the
hose's 2n states in hose_line's form-G order (Q1_1, p2_1, ..., Q1_n, p2_n:
the flow into each segment, then its outlet pressure; p2_n is the motor
inlet, hose end B), w_m (motor and load shaft). The two shafts' angles are
states of the Inertia parts too, but nothing depends on them and no output
reads them: they are left out. The tank is at p_tank.
"""

from __future__ import annotations

import math

import numpy as np
from circuit_description import EXAMPLES, Description
from element_laws import bulk_modulus
from hose_line import MODEL_PARAMETERS, Hose, SegmentLaw

FILE = EXAMPLES / "hydrostatic_drive.toml"
HOSE_TYPE = "HoseG"
VAPOUR_PRESSURE = 1e3  # Pa absolute
I_WP, I_PA = 0, 1

# The hose part's parameters and defaults: the hose FMUs' (MODEL.md's
# parameter table, hose_line.MODEL_PARAMETERS), with the temperature in K
# in the description (hose_line takes degC) and the part's own extras.
HOSE_DEFAULTS = {**{k: v for k, v in MODEL_PARAMETERS.items() if k != "T"}, "T": MODEL_PARAMETERS["T"] + 273.15,
                 "tangent_wall_slope": 0, "q0": 0.0, "p_start": 0.0}


def softplus_flow(dp: float, p_crack: float, gain: float, w: float) -> float:
    """ReliefValve (F4): gain w ln(1 + exp((dp - p_crack)/w))."""
    x = (dp - p_crack) / w
    sp = x + math.log1p(math.exp(-x)) if x > 30.0 else math.log1p(math.exp(x))
    return gain * w * sp


def smooth_max0(y: float, w: float) -> tuple[float, float]:
    """The accumulator's smoothed max(y, 0) over the band w, and its slope:
    0 below -w/2, y above w/2, w (u^3 - u^4/2) between (u = y/w + 1/2)."""
    u = y / w + 0.5
    if u <= 0.0:
        return 0.0, 0.0
    if u >= 1.0:
        return y, 1.0
    return w * u**3 * (1.0 - 0.5 * u), u * u * (3.0 - 2.0 * u)


class Drive:
    """The parameters of the description, and its right-hand side."""

    def __init__(self, path=FILE, hysteresis: bool = False) -> None:
        """``hysteresis``: put H2's wall hysteresis (the file's ``b``) in the
        flow geometry; the hose part leaves it out (as the hose FMUs), so
        the reference does by default."""
        d = Description(path)
        self.description = d
        self.tank = d.part("tank")["p_tank"]
        pr = d.part("prime")
        self.J_p, self.b_p, self.tc_p, self.reg_p = pr["J"], pr["b"], pr["tau_c"], pr["omega_reg"]
        self.tl_p, self.w_p0 = pr["tau_load"], pr["w0"]
        pu = d.part("pump")
        self.D_p, self.c_p, self.bv_p, self.tcp_p, self.regp_p = (
            pu["D"], pu["c_leak"], pu["b_visc"], pu["tau_c"], pu["omega_reg"])
        r = d.part("relief")
        self.p_crack, self.gain, self.w_relief = r["p_crack"], r["gain"], r["smoothing"]
        a = d.part("acc")
        self.acc_p0, self.acc_V0, self.acc_n, self.p_atm, self.acc_band, self.V_dead, self.p_a0 = (
            a["p0"], a["V0"], a["n"], a["p_atm"], a["p_band"], a["V_dead"], a["p_start"])
        self.oil = tuple(a[k] for k in ("bulk_a1", "E_max", "bulk_a2", "p_max", "bulk_a3"))
        mo = d.part("motor")
        self.D_m, self.c_m, self.bv_m, self.tc_m, self.reg_m = (
            mo["D"], mo["c_leak"], mo["b_visc"], mo["tau_c"], mo["omega_reg"])
        lo = d.part("load")
        self.J_l, self.b_l, self.tc_l, self.reg_l, self.tl_l, self.w_l0 = (
            lo["J"], lo["b"], lo["tau_c"], lo["omega_reg"], lo["tau_load"], lo["w0"])
        # the hose: its parameters in hose_line's units, form G
        if d.types["hose"] != HOSE_TYPE:
            raise ValueError(f"hose is a {d.types['hose']}, the reference is written for {HOSE_TYPE}")
        h = {**HOSE_DEFAULTS, **d.part("hose")}
        self.hose_par = {k: h[k] for k in MODEL_PARAMETERS}
        self.hose_par["T"] = h["T"] - 273.15
        self.hose_par["n"] = int(h["n"])
        if h["tangent_wall_slope"] not in (0, 0.0):
            raise ValueError("the reference is written for tangent_wall_slope = 0 (the wall slope of H4 at fixed k)")
        self.hose_q0, self.hose_p_start = h["q0"], h["p_start"]
        self.hose = Hose("G", self.hose_par)
        self.n = self.hose.n
        self.I_WM = 2 + 2 * self.n
        self.size = self.I_WM + 1
        # the wall slope dx_el/dp_m of the wall velocity in H2 is the full
        # derivative (k varies with p_m): the "total" law's slope
        self.total_law = SegmentLaw(self.hose.l, self.hose_par, "total")
        self.b_hyst = self.hose_par["b"] if hysteresis else 0.0
        self.v_lim = self.hose_par["v_lim"]
        # the segment laws' lowest mean pressure (the oil's vapour pressure,
        # 1e3 Pa absolute, in gauge terms, within the wall and viscosity
        # laws' ranges): the hose segment's documented floor
        self.p_floor = max(VAPOUR_PRESSURE - self.hose_par["p0"], -0.1 * self.hose_par["p_ref"], -1e7)

    # -- the parts' laws ------------------------------------------------------

    def B(self, p: float) -> float:
        return bulk_modulus(p, *self.oil)

    def fluid_volume(self, p: float) -> tuple[float, float]:
        """The accumulator's oil V_f and gas capacitance C_g = dV_f/dp at
        gauge pressure p: V0 (1 - (P0/P)^(1/n)) on the smoothed max(p, p0)."""
        m, dm = smooth_max0(p - self.acc_p0, self.acc_band)
        if dm == 0.0:
            return 0.0, 0.0
        pa0 = self.acc_p0 + self.p_atm
        pa = pa0 + m
        ratio = (pa0 / pa) ** (1.0 / self.acc_n)
        return self.acc_V0 * (1.0 - ratio), self.acc_V0 / self.acc_n * ratio / pa * dm

    def capacitance(self, p: float) -> float:
        """The accumulator node's C = (V_d + V_f)/B + C_g, m3/Pa."""
        v, c_g = self.fluid_volume(p)
        return (self.V_dead + v) / self.B(p) + c_g

    def pump(self, w: float, p_out: float) -> tuple[float, float]:
        """Delivered flow and demanded torque."""
        dp = p_out - self.tank
        q = self.D_p * w - self.c_p * dp
        tau = self.D_p * dp + self.bv_p * w + self.tcp_p * math.tanh(w / self.regp_p)
        return q, tau

    def motor(self, w: float, p_in: float) -> tuple[float, float]:
        """Flow taken at A and torque delivered to the shaft."""
        dp = p_in - self.tank
        q = self.D_m * w + self.c_m * dp
        tau = self.D_m * dp - self.bv_m * w - self.tc_m * math.tanh(w / self.reg_m)
        return q, tau

    def relief(self, p: float) -> float:
        return softplus_flow(p - self.tank, self.p_crack, self.gain, self.w_relief)

    # -- the hose, form G with the neighbours' values at its ends -----------------

    def hose_rates(self, yh: np.ndarray, p_in: float, p_in_rate: float, q_out: float) -> np.ndarray:
        """dy/dt of the hose's states (hose_line's form G, N3) with the
        inlet pressure p_in (rate p_in_rate) and the outflow q_out; with the
        wall hysteresis of H2 in the flow geometry when b > 0."""
        hose = self.hose
        q1, p2 = yh[0::2], yh[1::2]
        pin = np.concatenate([[p_in], p2[:-1]])
        qout = np.concatenate([q1[1:], [q_out]])
        pm = 0.5 * (pin + p2)
        # the laws below the floor (cavitation; a trial state only) are held at it, without hysteresis
        above = pm >= self.p_floor
        pm_law = np.where(above, pm, self.p_floor)
        s = hose.props(pm_law)  # H1-H5 without hysteresis: the compliance uses x_el (H4)
        dp2 = (q1 - qout) / (hose.k_lc * s.C)
        pm_rate = 0.5 * (np.concatenate([[p_in_rate], dp2[:-1]]) + dp2)
        # (H2) x = x_el - b sat(v_w / v_lim), v_w = dx_el/dp_m dp_m/dt
        v_w = self.total_law(pm_law).dxdp * pm_rate
        x = s.x - np.where(above, self.b_hyst * np.clip(v_w / self.v_lim, -1.0, 1.0), 0.0)
        # (H5) on the flow diameter D = d + 2x, the oil's rho and nu at p_m
        dd = hose.law.d + 2.0 * x
        dd2 = dd * dd
        l = hose.l
        rl = 2.0 * hose.par["Al"] * l / math.pi * s.nu * s.rho / (dd2 * dd2)
        rt = 8.0 / math.pi**2 * s.rho * (hose.par["zeta"] + hose.par["lambda"] * l / dd) / (dd2 * dd2)
        ell = 4.0 * l / math.pi * s.rho / dd2
        dq1 = (pin - hose.k_r * (rl + rt * np.abs(q1)) * q1 - p2) / (hose.k_lc * ell)
        out = np.empty_like(yh)
        out[0::2], out[1::2] = dq1, dp2
        return out

    def hose_start(self) -> np.ndarray:
        """The hose part's steady start: every flow q0, the pressures marched
        from p_start (at end A for form G) with the segments' steady drops
        (with q0 = 0, as here, every pressure is p_start)."""
        yh = np.empty(2 * self.n)
        yh[0::2] = self.hose_q0
        p = self.hose_p_start
        for j in range(self.n):
            if self.hose_q0 != 0.0:
                # steady branch: p_j - kr (RL + RT |q0|) q0 at the segment's mean pressure
                nxt = p
                for _ in range(50):
                    s = self.hose.props(np.array([0.5 * (p + nxt)]))
                    nxt = p - self.hose.k_r * (s.RL[0] + s.RT[0] * abs(self.hose_q0)) * self.hose_q0
                p = nxt
            yh[2 * j + 1] = p
        return yh

    # -- the circuit ----------------------------------------------------------

    def initial_state(self) -> np.ndarray:
        y = np.zeros(self.size)
        y[I_WP], y[I_PA], y[self.I_WM] = self.w_p0, self.p_a0, self.w_l0
        y[2:self.I_WM] = self.hose_start()
        return y

    def flows(self, y) -> dict[str, float]:
        w_p, p_a, w_m = y[I_WP], y[I_PA], y[self.I_WM]
        p_b = y[self.I_WM - 1]
        q_p, tau_p = self.pump(w_p, p_a)
        q_m, tau_m = self.motor(w_m, p_b)
        return {"q_pump": q_p, "tau_pump": tau_p, "q_motor": q_m, "tau_motor": tau_m, "q_relief": self.relief(p_a),
                "q_hose_A": y[2]}

    def rhs(self, t: float, y, u) -> np.ndarray:
        """The rates at state ``y`` with the load torque ``u`` (N m, into
        the load's node; a number or the input vector)."""
        tau_ext = float(np.ravel(u)[0])
        f = self.flows(y)
        w_p, p_a, w_m = y[I_WP], y[I_PA], y[self.I_WM]
        dy = np.empty(self.size)
        dy[I_WP] = (-f["tau_pump"] - self.tl_p - self.b_p * w_p - self.tc_p * math.tanh(w_p / self.reg_p)) / self.J_p
        dy[I_PA] = (f["q_pump"] - f["q_relief"] - f["q_hose_A"]) / self.capacitance(p_a)
        dy[2:self.I_WM] = self.hose_rates(np.asarray(y[2:self.I_WM]), p_a, dy[I_PA], f["q_motor"])
        dy[self.I_WM] = (f["tau_motor"] + tau_ext - self.tl_l - self.b_l * w_m
                         - self.tc_l * math.tanh(w_m / self.reg_l)) / self.J_l
        return dy

    def outputs(self, y, u) -> dict[str, float]:
        """The description's outputs (SI), by name."""
        return {"n_motor": y[self.I_WM], "n_pump": y[I_WP], "p_pump_end": y[I_PA], "p_motor_end": y[self.I_WM - 1],
                "p_acc": y[I_PA], "q_relief": self.relief(y[I_PA])}
