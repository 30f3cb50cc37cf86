"""The CraneBoom description's equations, written from the parts' documented
laws (components/elements/parts/src/*.rs doc comments, the element laws of
components/elements/hydraulics/src/) and the connections of
``components/circuits/circuit-file/examples/crane_boom.toml``; no Rust code
is called. See crane_boom_NOTES.md for the derivation, state by state.

States (the reference's own order): Us, dUs (spool), p_P (pump line), p_L
(line between the valve's B port and the counterbalance valve), p_A, p_B
(cylinder chambers), s, v (load). SI units; the tank at p_tank.
"""

from __future__ import annotations

import math

import numpy as np
from circuit_description import EXAMPLES, Description
from element_laws import bulk_modulus, orifice_law

FILE = EXAMPLES / "crane_boom.toml"
STATES = ("Us", "dUs", "p_P", "p_L", "p_A", "p_B", "s", "v")
I_US, I_DUS, I_PP, I_PL, I_PA, I_PB, I_S, I_V = range(8)


def smoothstep(x: float) -> float:
    """The poppets' opening fraction: 0 below 0, 3x^2 - 2x^3, 1 above 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


def softplus_flow(dp: float, p_crack: float, gain: float, w: float) -> float:
    """Relief valve: gain w ln(1 + exp((dp - p_crack)/w))."""
    x = (dp - p_crack) / w
    sp = x + math.log1p(math.exp(-x)) if x > 30.0 else math.log1p(math.exp(x))
    return gain * w * sp


class Crane:
    """The parameters of the description, and its right-hand side."""

    def __init__(self, path=FILE) -> None:
        d = Description(path)
        self.description = d
        self.tank = d.part("tank")["p_tank"]
        self.Q = d.part("pump")["Q"]
        pl = d.part("pump_line")
        self.V_P, self.p_P0 = pl["V"], pl["p0"]
        lb = d.part("line_B")
        self.V_L, self.p_L0 = lb["V"], lb["p0"]
        self.oil = tuple(pl[k] for k in ("bulk_a1", "E_max", "bulk_a2", "p_max", "bulk_a3"))
        for part in ("line_B", "cylinder"):
            assert tuple(d.part(part)[k] for k in ("bulk_a1", "E_max", "bulk_a2", "p_max", "bulk_a3")) == self.oil
        r = d.part("relief")
        self.p_crack, self.gain, self.w = r["p_crack"], r["gain"], r["smoothing"]
        sp = d.part("spool")
        self.Kv, self.wn, self.zeta = sp["Kv"], sp["wn"], sp["zeta"]
        va = d.part("valve")
        self.cv, self.u_nom, self.c1, self.c2, self.v_ptr = va["cv"], va["u_nom"], va["c1"], va["c2"], va["p_tr"]
        cb = d.part("cbv")
        self.k_max, self.cb_ptr, self.p_set, self.ratio, self.band = (
            cb["k_max"], cb["p_tr"], cb["p_set"], cb["pilot_ratio"], cb["p_band"])
        self.ck, self.ck_crack, self.ck_band, self.ck_leak = (
            cb["check_k"], cb["check_p_crack"], cb["check_p_band"], cb["check_g_leak"])
        self.ck_ptr = cb["p_tr"]
        cy = d.part("cylinder")
        self.A1, self.A2, self.stroke = cy["A1"], cy["A2"], cy["stroke"]
        self.V_dA, self.V_dB, self.p_A0, self.p_B0 = cy["V_dA"], cy["V_dB"], cy["p_A0"], cy["p_B0"]
        ld = d.part("load")
        self.m, self.c, self.F_ext, self.s0 = ld["m"], ld["c"], ld["F_ext"], ld["s0"]
        self.s_min, self.s_max, self.k_stop, self.c_stop = ld["s_min"], ld["s_max"], ld["k_stop"], ld["c_stop"]

    # -- laws ---------------------------------------------------------------

    def B(self, p: float) -> float:
        return bulk_modulus(p, *self.oil)

    def edges(self, us: float) -> tuple[float, float, float, float]:
        """Openings (V) of P-A, P-B, A-T, B-T: overlaps on x = Us/u_nom."""
        x = us / self.u_nom
        return (max(x - self.c1, 0.0) * self.u_nom, max(-x - self.c1, 0.0) * self.u_nom,
                max(self.c2 - x, 0.0) * self.u_nom, max(x + self.c2, 0.0) * self.u_nom)

    def valve(self, us: float, p_p: float, p_a: float, p_b: float) -> tuple[float, float, float]:
        """Flows: into A (P-A less A-T), into the B line (P-B less B-T), out of P."""
        o_pa, o_pb, o_at, o_bt = self.edges(us)
        f = lambda o, dp: self.cv * o * orifice_law(dp, self.v_ptr) if o > 0.0 else 0.0  # noqa: E731
        q_pa, q_pb = f(o_pa, p_p - p_a), f(o_pb, p_p - p_b)
        q_at, q_bt = f(o_at, p_a - self.tank), f(o_bt, p_b - self.tank)
        return q_pa - q_at, q_pb - q_bt, q_pa + q_pb

    def check_flow(self, p_in: float, p_out: float) -> float:
        """The counterbalance valve's built-in check valve, from its outlet
        (inlet of the check valve) into the load side."""
        dp = p_in - p_out
        q = self.ck_leak * dp
        s = smoothstep((dp - self.ck_crack) / self.ck_band)
        if s > 0.0:
            q += s * self.ck * orifice_law(dp, self.ck_ptr)
        return q

    def cbv(self, p_load: float, p_out: float, p_pilot: float) -> float:
        """Counterbalance valve flow from load to out."""
        s = smoothstep((p_load + self.ratio * p_pilot - self.p_set) / self.band)
        q = -self.check_flow(p_out, p_load)
        if s > 0.0:
            q += s * self.k_max * orifice_law(p_load - p_out, self.cb_ptr)
        return q

    def relief(self, p: float) -> float:
        return softplus_flow(p - self.tank, self.p_crack, self.gain, self.w)

    def stop_force(self, s: float, v: float) -> float:
        if s < self.s_min:
            f = -self.k_stop * (s - self.s_min) - self.c_stop * v
            return f if f > 0.0 else 0.0
        if s > self.s_max:
            f = -self.k_stop * (s - self.s_max) - self.c_stop * v
            return f if f < 0.0 else 0.0
        return 0.0

    def volumes(self, s: float) -> tuple[float, float, float, float]:
        """Chamber volumes and their slopes dV/ds (floored at a tenth of the dead volume)."""
        va, vb = self.A1 * s + self.V_dA, self.A2 * (self.stroke - s) + self.V_dB
        return (max(va, 0.1 * self.V_dA), max(vb, 0.1 * self.V_dB),
                self.A1 if va > 0.1 * self.V_dA else 0.0, -self.A2 if vb > 0.1 * self.V_dB else 0.0)

    # -- the circuit ----------------------------------------------------------

    def initial_state(self) -> np.ndarray:
        y = np.zeros(8)
        y[I_PP], y[I_PL], y[I_PA], y[I_PB], y[I_S] = self.p_P0, self.p_L0, self.p_A0, self.p_B0, self.s0
        return y

    def flows(self, y, u: float) -> dict[str, float]:
        us, p_p, p_l, p_a, p_b = y[I_US], y[I_PP], y[I_PL], y[I_PA], y[I_PB]
        q_a, q_l, q_p = self.valve(us, p_p, p_a, p_l)
        return {"q_valve_A": q_a, "q_valve_B": q_l, "q_valve_P": q_p, "q_relief": self.relief(p_p),
                "q_cbv": self.cbv(p_b, p_l, p_a)}

    def rhs(self, t: float, y, u) -> np.ndarray:
        """The rates at state ``y`` with the command ``u`` (V; a number or
        the input vector)."""
        u = float(np.ravel(u)[0])
        us, dus, p_p, p_l, p_a, p_b, s, v = y
        q = self.flows(y, u)
        va, vb, dva, dvb = self.volumes(s)
        w2 = self.wn * self.wn
        force = p_a * self.A1 - p_b * self.A2
        return np.array([
            dus,
            self.Kv * w2 * u - 2.0 * self.zeta * self.wn * dus - w2 * us,
            self.B(p_p) / self.V_P * (self.Q - q["q_relief"] - q["q_valve_P"]),
            self.B(p_l) / self.V_L * (q["q_valve_B"] + q["q_cbv"]),
            self.B(p_a) / va * (q["q_valve_A"] - dva * v),
            self.B(p_b) / vb * (-q["q_cbv"] - dvb * v),
            v,
            (force + self.F_ext - self.c * v + self.stop_force(s, v)) / self.m,
        ])

    def outputs(self, y, u: float) -> dict[str, float]:
        """The description's outputs (SI), by name."""
        q = self.flows(y, u)
        return {"s": y[I_S], "v": y[I_V], "p_A": y[I_PA], "p_B": y[I_PB], "p_line_B": y[I_PL], "p_pump": y[I_PP],
                "q_relief": q["q_relief"], "q_cbv": q["q_cbv"], "Us": y[I_US]}
