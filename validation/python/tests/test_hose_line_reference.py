"""Unit tests of the hose reference equations (MODEL.md H1-H7, NOTES N1-N6)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import hose_line as hl  # noqa: E402

PAR = dict(hl.MODEL_PARAMETERS, b=0.0)
L1 = PAR["L_hose"]


def par(n=1, **kw):
    return dict(PAR, n=n, **kw)


# -- H1-H5 -------------------------------------------------------------------


def test_wall_stiffness_uses_log10_and_meets_the_papers_two_conditions():
    l = 0.5
    k_ref = PAR["p_ref"] * math.pi * (PAR["d"] + 2 * PAR["x_ref"]) * l / PAR["x_ref"]
    assert hl.segment_properties(0.0, l, PAR).k == pytest.approx(2.0 / 3.0 * k_ref, rel=1e-14)
    assert hl.segment_properties(PAR["p_ref"], l, PAR).k == pytest.approx(k_ref, rel=1e-14)


@pytest.mark.parametrize("pm", [1e5, 1e7, 2.5e7])
def test_wall_deformation_solves_the_force_balance(pm):
    s = hl.segment_properties(pm, L1, PAR)
    # k x = p_m A with A = pi (d + 2x) l (the paper's eqs 1, 3; quasi-static, no hysteresis)
    assert s.k * s.x == pytest.approx(pm * math.pi * (PAR["d"] + 2 * s.x) * L1, rel=1e-13)


def test_wall_slope_is_eq30_with_the_stiffness_held_fixed():
    pm, l = 1e7, L1
    s = hl.segment_properties(pm, l, PAR)
    h = 1.0
    # x(p) = p pi d l / (k - 2 pi l p) with k frozen at k(pm)
    frozen = [p * math.pi * PAR["d"] * l / (s.k - 2 * math.pi * l * p) for p in (pm - h, pm + h)]
    assert s.dxdp == pytest.approx((frozen[1] - frozen[0]) / (2 * h), rel=1e-7)
    total = hl.segment_properties(pm, l, PAR, wall_slope="total")
    x = [float(hl.segment_properties(p, l, PAR).x) for p in (pm - h, pm + h)]
    assert total.dxdp == pytest.approx((x[1] - x[0]) / (2 * h), rel=1e-6)


def test_compliance_terms_are_derivatives_of_the_volumes():
    pm, h = 1e7, 10.0
    s = hl.segment_properties(pm, L1, PAR)
    p0, ka = PAR["p0"], PAR["ka"]
    v_a0 = PAR["vol0"] * math.pi * PAR["d"] ** 2 * L1 / 4

    def v_air(p):
        return v_a0 * (p0 / (p + p0)) ** (1 / ka)

    c_air = -(v_air(pm + h) - v_air(pm - h)) / (2 * h)
    assert s.c_air == pytest.approx(c_air * (1 + s.eps), rel=1e-7)
    af, bf, _ = hl.fluid_constants(PAR)
    deps = ((pm + h) / (af * (pm + h) + bf) - (pm - h) / (af * (pm - h) + bf)) / (2 * h)
    assert s.c_oil == pytest.approx((s.v_hose - v_air(pm)) * deps, rel=1e-7)


def test_published_numbers_of_the_whole_hose():
    c = hl.hose_constants(par())
    assert c["compliance"] == pytest.approx(6.54e-13, rel=1e-3)
    assert c["wall_share"] == pytest.approx(0.547, abs=1e-3)
    assert c["wave_speed"] == pytest.approx(848.0, abs=0.05)
    assert c["quarter_wave_hz"] == pytest.approx(106.0, abs=0.01)
    stated = hl.hose_constants(par(x_ref=hl.X_REF_AS_STATED))
    assert stated["compliance"] == pytest.approx(4.77e-12, rel=1e-3)
    assert stated["wave_speed"] == pytest.approx(328.1, abs=0.1)


def test_fluid_and_resistance_formulas_at_the_operating_pressure():
    s = hl.segment_properties(1e7, L1, PAR)
    assert hl.fluid_constants(PAR) == pytest.approx((13.0, 1.64e9, 8e-4), rel=1e-15)
    assert s.rho == pytest.approx(875.0 * (1 + 1e7 / (13 * 1e7 + 1.64e9) * 0.92) / (1 + 8e-4 * 25), rel=1e-14)
    assert s.nu == pytest.approx(46e-6 * 1.12 * 1.3, rel=1e-14)
    dd = PAR["d"] + 2 * s.x
    assert s.L == pytest.approx(4 * s.rho * L1 / (math.pi * dd**2), rel=1e-14)
    assert s.RL == pytest.approx(2 * 64 * L1 * s.nu * s.rho / (math.pi * dd**4), rel=1e-14)
    assert s.RT == pytest.approx(8 * s.rho * (2 + 0.04 * L1 / dd) / (math.pi**2 * dd**4), rel=1e-14)


def test_corrections():
    assert hl.corrections(1, PAR) == pytest.approx((2 / math.pi, 1.4))
    k_lc, k_r = hl.corrections(7, PAR)
    assert k_lc == pytest.approx((2 / math.pi) ** (1 / 7) + 0.011 * 6)
    assert k_r == pytest.approx(0.8)


# -- chained equations, written out by hand for n = 2 (NOTES N2-N5) ----------------


def seg(pm, n):
    s = hl.segment_properties(pm, L1 / n, PAR)
    return s.C, s.L, s.RL, s.RT


def test_hose_h_two_segments_term_by_term():
    n = 2
    m = hl.Hose("H", par(n))
    k, kr = hl.corrections(n, PAR)
    p1a, q2a, p1b, q2b = 10.08e6, 4.9e-4, 10.03e6, 5.2e-4
    q1, p2 = 5e-4, 1e7
    c1, l1, rl1, rt1 = seg((p1a + p1b) / 2, n)
    c2, l2, rl2, rt2 = seg((p1b + p2) / 2, n)
    expected = [
        (q1 - q2a) / (k * c1),
        (p1a - kr * (rl1 + rt1 * q2a) * q2a - p1b) / (k * l1),
        (q2a - q2b) / (k * c2),
        (p1b - kr * (rl2 + rt2 * q2b) * q2b - p2) / (k * l2),
    ]
    assert m.rhs(np.array([p1a, q2a, p1b, q2b]), np.array([q1, p2])) == pytest.approx(expected, rel=1e-13)


def test_hose_g_two_segments_term_by_term():
    n = 2
    m = hl.Hose("G", par(n))
    k, kr = hl.corrections(n, PAR)
    q1a, p2a, q1b, p2b = 5.1e-4, 10.04e6, 4.8e-4, 10.0e6
    p1, q2 = 10.075e6, 5e-4
    c1, l1, rl1, rt1 = seg((p1 + p2a) / 2, n)
    c2, l2, rl2, rt2 = seg((p2a + p2b) / 2, n)
    expected = [
        (p1 - kr * (rl1 + rt1 * q1a) * q1a - p2a) / (k * l1),
        (q1a - q1b) / (k * c1),
        (p2a - kr * (rl2 + rt2 * q1b) * q1b - p2b) / (k * l2),
        (q1b - q2) / (k * c2),
    ]
    assert m.rhs(np.array([q1a, p2a, q1b, p2b]), np.array([p1, q2])) == pytest.approx(expected, rel=1e-13)


def test_hose_y_two_segments_term_by_term():
    n = 2
    m = hl.Hose("Y", par(n))
    k, kr = hl.corrections(n, PAR)
    q0, p3a, q1, p3b, q2 = 5.1e-4, 10.06e6, -4.0e-5, 10.02e6, 4.9e-4  # Q_1 < 0: |Q| matters
    p1, p2 = 10.075e6, 1e7
    e1 = (p3a + p3b) / 2  # junction pressure
    c1, l1, rl1, rt1 = seg((p1 + e1) / 2, n)
    c2, l2, rl2, rt2 = seg((e1 + p2) / 2, n)
    expected = [
        (p1 - p3a - kr * (rl1 + rt1 * abs(q0)) * q0 / 2) / (k * l1 / 2),
        (q0 - q1) / (k * c1),
        (p3a - p3b - kr * (rl1 + rt1 * abs(q1)) * q1 / 2 - kr * (rl2 + rt2 * abs(q1)) * q1 / 2) / (k * (l1 + l2) / 2),
        (q1 - q2) / (k * c2),
        (p3b - p2 - kr * (rl2 + rt2 * abs(q2)) * q2 / 2) / (k * l2 / 2),
    ]
    assert m.rhs(np.array([q0, p3a, q1, p3b, q2]), np.array([p1, p2])) == pytest.approx(expected, rel=1e-13)


def test_hose_z_two_segments_term_by_term():
    n = 2
    m = hl.Hose("Z", par(n))
    k, kr = hl.corrections(n, PAR)
    p0, qa, pa, qb, pb = 10.08e6, 5.1e-4, 10.04e6, 4.9e-4, 10.0e6
    q1, q2 = 5.2e-4, 5e-4
    c1, l1, rl1, rt1 = seg((p0 + pa) / 2, n)
    c2, l2, rl2, rt2 = seg((pa + pb) / 2, n)
    expected = [
        (q1 - qa) / (k * c1 / 2),
        (p0 - pa - kr * (rl1 + rt1 * qa) * qa) / (k * l1),
        (qa - qb) / (k * (c1 + c2) / 2),
        (pa - pb - kr * (rl2 + rt2 * qb) * qb) / (k * l2),
        (qb - q2) / (k * c2 / 2),
    ]
    assert m.rhs(np.array([p0, qa, pa, qb, pb]), np.array([q1, q2])) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("form", "HGYZ")
def test_n1_is_the_h7_form_of_the_model_description(form):
    m = hl.Hose(form, par(1))
    y, u = m.steady_state()
    assert m.size == (2 if form in "HG" else 3)
    assert m.state_names()[0] == {"H": "p1_1", "G": "Q1_1", "Y": "Q_0", "Z": "p_0"}[form]


# -- steady states -------------------------------------------------------------


@pytest.mark.parametrize("form", "HGYZ")
@pytest.mark.parametrize("n", [1, 2, 7])
def test_steady_state_is_an_equilibrium_at_the_operating_point(form, n):
    m = hl.Hose(form, par(n))
    y, u = m.steady_state()
    assert np.max(np.abs(m.rhs(y, u)) / m.scale) * 1e-3 < 1e-12  # change per ms, of the scale
    flows = y[~m.pressure_mask()]
    assert flows == pytest.approx(hl.Q_OP, rel=1e-12)
    p_in, p_out = m.end_pressures(y, u)
    assert p_out == pytest.approx(hl.P_OP, rel=1e-15)
    assert 5e4 < p_in - p_out < 1e5


def test_hose_h_steady_state_by_marching_upstream():
    from scipy.optimize import brentq

    n = 7
    m = hl.Hose("H", par(n))
    y, u = m.steady_state()
    _, kr = hl.corrections(n, PAR)
    p_out = hl.P_OP
    marched = []
    for _ in range(n):
        def drop(p_in, p_out=p_out):
            s = hl.segment_properties((p_in + p_out) / 2, L1 / n, PAR)
            return p_in - p_out - kr * (s.RL + s.RT * hl.Q_OP) * hl.Q_OP
        p_out = brentq(drop, p_out, p_out + 1e6, xtol=1e-9)
        marched.append(p_out)
    assert y[0::2] == pytest.approx(marched[::-1], rel=1e-14)


def test_forms_agree_on_the_n1_pressure_drop():
    drops = {}
    for form in "HGYZ":
        m = hl.Hose(form, par(1))
        y, u = m.steady_state()
        p_in, p_out = m.end_pressures(y, u)
        drops[form] = p_in - p_out
    assert drops["G"] == pytest.approx(drops["H"], rel=1e-12)
    assert drops["Y"] == pytest.approx(drops["H"], rel=1e-12)
    assert drops["Z"] == pytest.approx(drops["H"], rel=1e-12)


# -- derivatives, linear analysis ---------------------------------------------------


@pytest.mark.parametrize("form", "HGYZ")
def test_complex_step_jacobian_matches_central_differences(form):
    m = hl.Hose(form, par(3))
    y, u = m.steady_state()
    y = y * (1 + 1e-3 * np.cos(np.arange(len(y))))
    jac = m.jac(y, u)
    for j in range(len(y)):
        e = np.zeros(len(y))
        e[j] = 1e-6 * m.scale[j]
        col = (m.rhs(y + e, u) - m.rhs(y - e, u)) / (2 * e[j])
        assert np.allclose(col, jac[:, j], rtol=1e-6, atol=1e-7 * np.max(np.abs(jac[:, j])))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_lossless_ladder_first_mode(n):
    base = dict(par(n), Al=0.0, zeta=0.0, **{"lambda": 0.0})
    m = hl.Hose("H", base, k_lc=1.0)
    y, u = m.steady_state()
    f1 = np.min(np.abs(np.linalg.eigvals(m.jac(y, u)).imag)) / (2 * math.pi)
    c = hl.hose_constants(base)["wave_speed"]
    assert f1 == pytest.approx(n * c / (math.pi * L1) * math.sin(math.pi / (2 * (2 * n + 1))), rel=1e-10)


def test_hose_z_mean_pressure_integrates_the_net_inflow():
    m = hl.Hose("Z", par(1))
    y = np.array([10.09e6, 4.7e-4, 10.01e6])
    u = np.array([5.3e-4, 4.9e-4])
    dy = m.rhs(y, u)
    c = hl.segment_properties((y[0] + y[2]) / 2, L1, PAR).C
    assert m.k_lc * c * (dy[0] + dy[2]) / 2 == pytest.approx(u[0] - u[1], rel=1e-12)


# -- inputs -------------------------------------------------------------------------


def test_input_table_follows_the_masters_rule():
    step = hl.InputTable(("Q1", "p2"), [(0.0, 5e-4, 1e7), (0.01, 5e-4, 1e7), (0.01, 5e-4, 1.1e7), (0.2, 5e-4, 1.1e7)],
                         "step")
    assert step.value(0.0099)[1] == 1e7
    assert step.value(0.01)[1] == 1.1e7  # a repeated time: the later row
    ramp = hl.InputTable(("p1", "p2"), [(0.0, 1.0, 0.0), (0.01, 1.0, 0.0), (0.02, 1.0, 10.0), (0.2, 1.0, 10.0)],
                         "linear")
    assert ramp.value(0.015)[1] == pytest.approx(5.0)
    assert ramp.value(0.02)[1] == 10.0


def test_held_impulse_carries_the_same_volume_as_the_continuous_one():
    m = hl.Hose("Z", par(1))
    y0, u0 = m.steady_state()
    table = hl.scenario_inputs(hl.SCENARIOS["HoseZ/impulse_n1"], m, u0)
    pieces = hl.held_pieces(table, hl.output_times())
    volume = sum((b - a) * (u[0] - u[1]) for a, b, u in pieces)
    assert volume == pytest.approx(0.02 * 3e-6, rel=1e-9)
    # base to 0.0101 s (the value at 0.01 s is still the base), 99 rise steps, hold from 0.02 to 0.0301 s,
    # 99 fall steps, base from 0.04 s
    assert len(pieces) == 1 + 99 + 1 + 99 + 1


def test_agrees_to_published_accepts_rounding_and_truncation():
    assert hl.agrees_to_published(105.72, "105.7")[0]
    assert hl.agrees_to_published(54.69, "54")[0]
    assert not hl.agrees_to_published(97.76, "97.5")[0]


def test_short_step_radau_and_cvode_agree():
    m = hl.Hose("H", par(1))
    y0, u0 = m.steady_state()
    u1 = u0 + np.array([0.0, 1e6])
    t = np.arange(0, 201) / 10000
    pieces = [(0.0, 0.02, u1)]
    a = hl.solve_radau(m, pieces, y0, t, rtol=1e-8)
    b = hl.solve_cvode(m, pieces, y0, t, rtol=1e-8)
    assert a.y.shape == b.y.shape == (201, 2)
    assert np.max(np.abs(a.y[:, 0] - b.y[:, 0])) < 50.0  # Pa, of a ~1e6 Pa swing
