"""Unit tests of the FourBar reference equations (model description
components/circuits/four-bar-circuit/MODEL.md: linkage M1-M6, hydraulics F1-F8, energy E1)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import four_bar as fb  # noqa: E402

PAR = dict(fb.MODEL_PARAMETERS)
P = fb.Par(PAR)


# -- F7: valve curves ----------------------------------------------------------


def test_clamped_knots_are_uniform_with_repeated_ends():
    assert fb.clamped_knots(6, 3) == [0.0, 0.0, 0.0, 0.0, 1 / 3, 2 / 3, 1.0, 1.0, 1.0, 1.0]
    assert fb.clamped_knots(5, 3) == [0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0]
    assert fb.clamped_knots(2, 1) == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_the_linear_preset_is_a_straight_line_whatever_the_degree(degree):
    curve = fb.ValveCurve(*fb.CURVES[1][1:], degree)
    for u in np.linspace(0.0, 10.0, 41):
        assert curve.n_of_u(float(u)) == pytest.approx(9.5 * u, abs=1e-12)


@pytest.mark.parametrize("preset", [2, 3])
def test_curves_pass_their_end_points_hold_the_last_value_and_agree_with_brentq(preset):
    _, u_pts, n_pts = fb.CURVES[preset]
    curve = fb.ValveCurve(u_pts, n_pts, 3)
    assert curve.n_of_u(0.0) == 0.0
    assert curve.n_of_u(10.0) == n_pts[-1]
    assert curve.n_of_u(12.0) == n_pts[-1]
    for u in (0.3, 1.7, 4.2, 5.2, 7.9, 9.99):
        assert curve.n_of_u(u) == pytest.approx(curve.n_of_u_bspline(u), abs=1e-12)


def test_real2_is_slow_then_steep():
    curve = fb.ValveCurve(*fb.CURVES[3][1:], 3)
    assert curve.n_of_u(5.0) < 0.25 * 95.0  # below a quarter of the gain at half the stroke
    assert curve.n_of_u(8.0) - curve.n_of_u(6.0) > 3 * (curve.n_of_u(4.0) - curve.n_of_u(2.0))


def test_valve_opens_pa_bt_for_positive_u_and_pb_at_for_negative_u():
    pp, p1, p2 = 7e6, 4e6, 2e6
    q_pa, q_at, q_pb, q_bt = fb.valve_flows(5.0, pp, p1, p2, P)
    assert q_pa > 0 and q_bt > 0 and q_at == 0 and q_pb == 0
    q_pa, q_at, q_pb, q_bt = fb.valve_flows(-5.0, pp, p1, p2, P)
    assert q_pb > 0 and q_at > 0 and q_pa == 0 and q_bt == 0
    assert fb.valve_flows(0.0, pp, p1, p2, P) == (0.0, 0.0, 0.0, 0.0)  # closed centre
    # K(10 V) = Cv 10 V, Cv = Cd Ad sqrt(2/rho) = 4.70e-8
    cv = PAR["Cd"] * PAR["Ad"] * math.sqrt(2 / PAR["rho"])
    assert cv == pytest.approx(4.70e-8, rel=1e-3)
    assert P.Kscale * 95.0 == pytest.approx(10 * cv)


# -- F8, F4, F6: element laws ----------------------------------------------------


def test_edge_flow_is_odd_and_approaches_the_square_root_law():
    k, delta = 1e-7, PAR["delta"]
    assert fb.edge_flow(k, 0.0, delta) == 0.0
    assert fb.edge_flow(k, -3e5, delta) == -fb.edge_flow(k, 3e5, delta)
    assert fb.edge_flow(k, 5e6, delta) == pytest.approx(k * math.sqrt(5e6), rel=1e-4)
    assert fb.edge_flow(k, 1.0, delta) == pytest.approx(k / math.sqrt(delta), rel=1e-9)  # slope K/sqrt(delta) at 0


def test_relief_is_linear_above_cracking_and_inverts_at_the_pump_flow():
    assert fb.relief_flow(PAR["p_cr"] + 5e5, P) == pytest.approx(PAR["K_R"] * 5e5, rel=1e-12)
    assert fb.relief_flow(PAR["p_cr"] - 5e5, P) < 1e-15
    pp0 = fb.relief_pressure_for(PAR["Qp"], PAR)
    assert pp0 == pytest.approx(7.600e6, abs=500)
    assert fb.relief_flow(pp0, P) == pytest.approx(PAR["Qp"], rel=1e-13)
    for pp in (6.9e6, 7.0e6, 7.03e6, 7.6e6):
        assert fb.relief_flow_fast(pp, P.K_R, P.p_cr, P.dp_R) == pytest.approx(fb.relief_flow(pp, P), rel=1e-13)


def test_friction_is_odd_with_the_steep_slope_at_rest():
    args = (PAR["Fc"], PAR["Fs"], PAR["vs"], PAR["sigma"])
    assert fb.friction(0.0, *args) == 0.0
    assert fb.friction(-0.01, *args) == -fb.friction(0.01, *args)
    h = 1e-9
    slope = (fb.friction(h, *args) - fb.friction(-h, *args)) / (2 * h)
    expected = 4 * PAR["Fc"] / PAR["vs"] + (PAR["Fs"] - PAR["Fc"]) / PAR["vs"] / 0.75**2 + PAR["sigma"] * math.tanh(4)
    assert slope == pytest.approx(expected, rel=1e-6)
    assert slope == pytest.approx(1.557e5, rel=1e-3)
    assert fb.friction(1.0, *args) == pytest.approx(PAR["Fc"] + PAR["sigma"] * math.tanh(4), rel=1e-2)


def test_chamber_volumes_grow_and_shrink_the_right_way():
    v1, v2 = fb.chamber_volumes(PAR["s0"], P)
    assert v1 == pytest.approx(PAR["Vh1"] + PAR["A1"] * (PAR["s0"] - PAR["s_min"]))
    assert v2 == pytest.approx(PAR["Vh2"] + PAR["A2"] * (PAR["s_min"] + PAR["stroke"] - PAR["s0"]))
    w1, w2 = fb.chamber_volumes(PAR["s0"] + 0.1, P)
    assert w1 > v1 and w2 < v2


# -- M1-M6: linkage ------------------------------------------------------------------


def test_start_geometry_and_upper_branch():
    kin = fb.kinematics(0.0, P)
    assert kin.s == 3.0 and kin.s_d == pytest.approx(1.0)
    assert kin.residual < 1e-14
    # rocker tip above the line from the crank tip B = (0, 3) to C = (8, 0)
    ex = PAR["Cx"] + PAR["L3"] * math.cos(kin.phi3)
    ey = PAR["Cy"] + PAR["L3"] * math.sin(kin.phi3)
    assert ey > 3.0 - 3.0 / 8.0 * ex
    assert fb.crank_angle_for_length(3.0, P) == 0.0


def test_initial_state_holds_the_load():
    y0 = fb.initial_state(PAR)
    assert y0[fb.I_P1] == pytest.approx(3.393e6, abs=500)
    assert y0[fb.I_PP] == pytest.approx(7.600e6, abs=500)
    assert y0[fb.I_P2] == PAR["p2_0"]
    assert max(abs(r) for r in fb.fourbar_rhs(y0.tolist(), 0.0, P)) < 1e-9


def test_power_balance_of_the_equations():
    """(E1) d/dt E_mech = F_h s_dot on any state: the equation of motion and
    the energy use the same mass, gravity and cylinder lever."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        y = [rng.uniform(-0.3, 0.7), rng.uniform(-0.6, 0.6), 7.2e6, rng.uniform(3e6, 6e6), rng.uniform(1e6, 3e6),
             rng.uniform(-10, 10), 0.0, 0.0]
        dy = fb.fourbar_rhs(y, 0.0, P)
        h = 1e-7

        def energy(th, om):
            k = fb.kinematics(th, P)
            return 0.5 * k.mass * om * om + k.potential

        de = (energy(y[0] + h * dy[0], y[1] + h * dy[1]) - energy(y[0] - h * dy[0], y[1] - h * dy[1])) / (2 * h)
        assert de == pytest.approx(dy[fb.I_WH] - dy[fb.I_WF], rel=1e-6, abs=1e-6)


# -- inputs and pieces -------------------------------------------------------------


def test_sine_table_rows_hold_the_middle_of_their_interval():
    t, u = fb.sine_table(0.05)
    assert list(t) == [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    assert u[1] == pytest.approx(10 * math.sin(0.4 * math.pi * 0.015), abs=1e-9)


def test_spool_crossing_in_closed_form():
    tau = PAR["tau"]
    tc = fb.spool_crossing(0.0, 0.01, 0.5, -3.0, tau)
    assert tc is not None
    assert -3.0 + (0.5 + 3.0) * math.exp(-tc / tau) == pytest.approx(0.0, abs=1e-14)
    assert fb.spool_crossing(0.0, 0.01, 0.5, 3.0, tau) is None
    assert fb.spool_crossing(0.0, 0.001, 5.0, -0.1, tau) is None  # would cross after the row ends


def test_outputs_at_a_row_time_use_the_row_that_ends_there():
    rows_t = np.array([0.0, 0.01, 0.02])
    vals = np.array([1.0, 2.0, 3.0])
    held = fb.held_at(np.array([0.0, 0.005, 0.01, 0.015, 0.02]), rows_t, vals)
    assert list(held) == [1.0, 1.0, 1.0, 2.0, 2.0]
