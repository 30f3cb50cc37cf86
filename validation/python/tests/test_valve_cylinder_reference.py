"""Unit tests of the ValveCylinder reference equations (MODEL.md V1-V6)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import valve_cylinder as vc  # noqa: E402

PAR = dict(vc.MODEL_PARAMETERS)
P = vc.Par(PAR)


# -- V2 / E2: orifice law ----------------------------------------------------


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_orifice_law_is_continuous_in_value_and_slope_at_p_tr(sign):
    p_tr = PAR["p_tr"]
    assert p_tr == 1e5
    inside, outside = sign * p_tr * (1 - 1e-12), sign * p_tr
    assert vc.orifice_law(inside, p_tr) == pytest.approx(vc.orifice_law(outside, p_tr), rel=1e-10)
    assert vc.orifice_law_slope(inside, p_tr) == pytest.approx(vc.orifice_law_slope(outside, p_tr), rel=1e-10)
    assert vc.orifice_law(0.0, p_tr) == 0.0
    assert vc.orifice_law_slope(0.0, p_tr) == pytest.approx(1.25 / math.sqrt(p_tr))


def test_bulk_modulus_is_the_log10_law_with_max_p_0():
    assert vc.bulk_modulus(0.0, PAR) == pytest.approx(0.5 * 1.8e9 * math.log10(3.0))
    assert vc.bulk_modulus(2.8e7, PAR) == pytest.approx(0.5 * 1.8e9 * math.log10(93.0))
    assert vc.bulk_modulus(-1e5, PAR) == vc.bulk_modulus(0.0, PAR)


# -- V4: valve with deadband -------------------------------------------------


def test_deadband_opening_is_continuous_and_zero_inside():
    ud = PAR["Ud"]
    assert vc.valve_opening(0.0, ud) == 0.0
    assert vc.valve_opening(ud * (1 - 1e-12), ud) == 0.0
    assert vc.valve_opening(-ud * (1 - 1e-12), ud) == 0.0
    assert vc.valve_opening(ud + 1.5, ud) == pytest.approx(1.5)
    assert vc.valve_opening(-ud - 1.5, ud) == pytest.approx(-1.5)  # no 4 V jump at -Ud (the paper's valve equation, see MODEL.md)
    for edge in (ud, -ud):
        assert abs(vc.valve_opening(edge + 1e-9, ud) - vc.valve_opening(edge - 1e-9, ud)) <= 1e-9 + 1e-15


@pytest.mark.parametrize("edge_sign", [1.0, -1.0])
def test_valve_flows_are_continuous_at_the_deadband_edges(edge_sign):
    ud = PAR["Ud"]
    p1, p2, pv = 5.0e6, 3.0e6, 9.0e6
    eps = 1e-9
    outside = vc.valve_flows(edge_sign * (ud + eps), p1, p2, pv, PAR)
    at_edge = vc.valve_flows(edge_sign * ud, p1, p2, pv, PAR)
    inside = vc.valve_flows(edge_sign * (ud - eps), p1, p2, pv, PAR)
    assert at_edge == (0.0, 0.0, 0.0) and inside == (0.0, 0.0, 0.0)
    scale = PAR["Cv"] * math.sqrt(1e7)  # flow per volt of opening, m3/(s V)
    assert max(abs(q) for q in outside) <= 2 * eps * scale


def test_valve_flow_signs_and_q3():
    p1, p2, pv = 5.0e6, 3.0e6, 9.0e6
    q1, q2, q3 = vc.valve_flows(7.0, p1, p2, pv, PAR)  # s = 5 V: supply to A, B to tank
    assert q1 == pytest.approx(PAR["Cv"] * 5.0 * math.sqrt(pv - p1))
    assert q2 == pytest.approx(PAR["Cv"] * 5.0 * math.sqrt(p2 - PAR["pt"]))
    assert q1 > 0 and q2 > 0 and q3 == q1
    q1, q2, q3 = vc.valve_flows(-7.0, p1, p2, pv, PAR)  # s = -5 V: A to tank, supply to B
    assert q1 == pytest.approx(-PAR["Cv"] * 5.0 * math.sqrt(p1 - PAR["pt"]))
    assert q2 == pytest.approx(-PAR["Cv"] * 5.0 * math.sqrt(pv - p2))
    assert q1 < 0 and q2 < 0 and q3 == -q2 and q3 > 0  # Q2 < 0 flows into B (the paper's valve equation, see MODEL.md)


# -- V3: compensator ---------------------------------------------------------


def test_compensator_equilibrium_margin_is_10_bar():
    """At K' = 0 the margin pv - max(p1, p2) is C5 - (C1 + C2 (ps - pv)/1e5) K,
    i.e. 10.00 bar for every K the flows need (K <= Kmax gives < 0.03 bar)."""
    p1, p2 = 6.0e6, 2.0e6
    for q in (1e-6, 1e-5, 5e-5):
        # solve K' = 0 and Qv = q for (pv, K) by fixed-point iteration
        pv = p1 + PAR["C5"]
        for _ in range(50):
            k = q / vc.orifice_law(PAR["ps"] - pv, PAR["p_tr"])
            pv = p1 + PAR["C5"] - (PAR["C1"] + PAR["C2"] * (PAR["ps"] - pv) / 1e5) * k
        assert vc.compensator_rate_unclamped(k, p1, p2, pv, PAR) * PAR["C3"] == pytest.approx(0.0, abs=1e-8)  # Pa
        assert (pv - max(p1, p2)) / 1e5 == pytest.approx(10.00, abs=0.005)
    c_kmax = (PAR["C1"] + abs(PAR["C2"]) * PAR["ps"] / 1e5) * PAR["Kmax"]
    assert c_kmax < 3e3  # Pa: even fully open the margin stays within 0.03 bar of C5


def test_compensator_uses_the_higher_chamber_pressure():
    r_a = vc.compensator_rate_unclamped(1e-9, 6e6, 2e6, 7e6, PAR)
    r_b = vc.compensator_rate_unclamped(1e-9, 2e6, 6e6, 7e6, PAR)
    assert r_a == r_b
    assert vc.compensator_rate_unclamped(0.0, 6e6, 2e6, 7e6, PAR) == 0.0  # margin exactly C5


def test_compensator_clamp_with_anti_windup():
    # margin 20 bar > C5: K must close; at K = 0 it is held
    assert vc.compensator_rate_unclamped(0.0, 5e6, 1e6, 7e6, PAR) < 0.0
    assert vc.compensator_rate(0.0, 5e6, 1e6, 7e6, PAR) == 0.0
    assert vc.compensator_rate(1e-9, 5e6, 1e6, 7e6, PAR) < 0.0
    # margin 0 < C5: K must open; at Kmax it is held
    kmax = PAR["Kmax"]
    assert vc.compensator_rate_unclamped(kmax, 5e6, 1e6, 5e6, PAR) > 0.0
    assert vc.compensator_rate(kmax, 5e6, 1e6, 5e6, PAR) == 0.0
    assert vc.compensator_rate(0.0, 5e6, 1e6, 5e6, PAR) > 0.0  # released from the lower clamp


# -- V6: LuGre and end stops -------------------------------------------------


@pytest.mark.parametrize("v", [-0.08, -0.01, -3e-3, -5e-4, 1e-4, 2e-3, 3.47e-3, 0.02, 0.09])
def test_lugre_steady_state_friction_is_the_stribeck_curve(v):
    g = vc.stribeck_g(v, PAR)
    z_ss = math.copysign(g, v)
    dz, f_mu = vc.lugre(v, z_ss, PAR)
    assert dz == pytest.approx(0.0, abs=1e-15)
    stribeck = math.copysign(PAR["Fc"] + (PAR["Fs"] - PAR["Fc"]) * math.exp(-((v / PAR["vs"]) ** 2)), v) + PAR["kv"] * v
    assert f_mu == pytest.approx(stribeck, rel=1e-12)
    assert vc.stribeck_force(v, PAR) == pytest.approx(stribeck, rel=1e-12)
    # and z converges to it at constant v (dz/dt = v - |v| z/g: rate |v|/g)
    z, t_end = 0.0, 20.0 * g / abs(v)
    z = z_ss + (z - z_ss) * math.exp(-abs(v) / g * t_end)
    assert vc.lugre(v, z, PAR)[1] == pytest.approx(stribeck, rel=1e-6)


def test_lugre_static_and_coulomb_levels():
    assert vc.stribeck_force(1e-9, PAR) == pytest.approx(PAR["Fs"], rel=1e-6)  # 364 N
    assert vc.stribeck_force(0.05, PAR) - PAR["kv"] * 0.05 == pytest.approx(PAR["Fc"], rel=1e-6)  # 320 N
    # pre-sliding: 1 N of friction at 1/sigma0 m of bristle deflection, not 1.1 m
    assert PAR["Fc"] / PAR["sigma0"] < 2e-4


def test_end_stop_force_only_pushes():
    sc, k, c = PAR["Sc"], PAR["k_s"], PAR["c_s"]
    assert vc.end_stop_force(0.5, 0.1, PAR) == 0.0
    assert vc.end_stop_force(sc + 1e-4, 0.0, PAR) == pytest.approx(-k * 1e-4)
    assert vc.end_stop_force(sc + 1e-4, 0.01, PAR) == pytest.approx(-(k * 1e-4 + c * 0.01))
    assert vc.end_stop_force(sc + 1e-5, -0.1, PAR) == 0.0  # leaving fast: the damper would pull, it does not
    assert vc.end_stop_force(-1e-4, 0.0, PAR) == pytest.approx(k * 1e-4)
    assert vc.end_stop_force(-1e-5, 0.1, PAR) == 0.0
    rng = np.random.default_rng(3)
    for _ in range(200):
        v = rng.uniform(-0.2, 0.2)
        assert vc.end_stop_force(sc + rng.uniform(0, 2e-4), v, PAR) <= 0.0
        assert vc.end_stop_force(-rng.uniform(0, 2e-4), v, PAR) >= 0.0


# -- branch-locked form, Jacobian ---------------------------------------------


def _random_state(rng):
    return [rng.uniform(-9, 9), rng.uniform(-2e3, 2e3), rng.uniform(1e-10, 4e-8), rng.uniform(5e5, 1.3e7),
            rng.uniform(5e5, 1.3e7), rng.uniform(5e5, 1.39e7), rng.uniform(-1e-4, 1 + 1e-4),
            rng.uniform(-0.1, 0.1), rng.uniform(-2e-4, 2e-4)]


def test_locked_model_on_the_natural_branches_is_the_described_model():
    rng = np.random.default_rng(11)
    for _ in range(300):
        y = _random_state(rng)
        dy = vc.locked_model(y, 4.0, vc.natural_locks(y, P), vc.K_FREE, P)[0]
        nat = vc.natural_rhs(y, 4.0, PAR)
        assert np.allclose(dy, nat, rtol=1e-12, atol=0.0)


def test_anchored_position_gives_the_same_model():
    rng = np.random.default_rng(5)
    for _ in range(50):
        y = _random_state(rng)
        lk = vc.natural_locks(y, P)
        ya = list(y)
        ya[vc.I_X] = y[vc.I_X] - PAR["Sc"]
        a = vc.locked_model(y, -3.0, lk, vc.K_FREE, P, True)
        b = vc.locked_model(ya, -3.0, lk, vc.K_FREE, P, True, anchor=PAR["Sc"])
        assert np.allclose(a[0], b[0], rtol=1e-9, atol=1e-9)
        assert np.allclose(a[1], b[1], rtol=1e-9, atol=0.0)
        assert vc.natural_locks(ya, P, anchor=PAR["Sc"]) == lk


def test_analytic_jacobian():
    checks = vc.Checks()
    vc.check_jacobian(checks)
    assert not checks.failed


# -- scenarios ------------------------------------------------------------------


def test_scenario_grids_and_inputs():
    for name in vc.SCENARIOS:
        t = vc.output_times(name)
        assert len(t) == 10001 and t[0] == 0.0 and t[-1] == vc.SCENARIOS[name]["stop"]
    t_in, u_in = vc.input_table("repeatable")
    assert list(t_in) == [0.0, 1.25, 2.5, 3.75, 5.0, 6.25, 7.5, 8.75, 10.0]
    assert list(u_in) == [-6.0, 9.0, -6.0, 9.0, -6.0, 9.0, -6.0, 9.0, 9.0]
    t_in, u_in = vc.input_table("random")
    assert len(t_in) == 101 and t_in[-1] == 50.0 and u_in[-1] == u_in[-2]
    assert u_in[0] == pytest.approx(0.236432494) and t_in[1] == 0.5


def test_hybrid_integration_matches_the_unlocked_model_over_the_first_switch():
    """0-1.5 s of (a), x_0 = 0.5 m (valve switching, deadband edges, LuGre
    sticking): the located-event solution and a plain tight BDF solution of the
    natural equations agree."""
    name = "repeatable_mid"
    par = vc.scenario_par(name)
    t_out = vc.output_times(name)[:1501]
    segs = vc.input_segments(name)[:2]
    segs[-1] = (segs[-1][0], 1.5, segs[-1][2])
    orig = vc.input_segments
    try:
        vc.input_segments = lambda n: segs
        hyb = vc.integrate(name, par, "cvode", 1e-9, t_out=t_out, progress=False)
        nat = vc.natural_cvode(name, par, 1e-9, t_out=t_out)[0]
    finally:
        vc.input_segments = orig
    for i in (vc.I_X, vc.I_PV, vc.I_P1, vc.I_P2):
        assert vc.relative_rms_percent(nat[:, i], hyb.y[:, i]) < 1e-4
    assert sum(hyb.events.values()) > 5


# -- ValveActuator: the same hydraulics with a prescribed rod motion ---------


def test_prescribed_motion_freezes_the_mechanics_and_keeps_the_hydraulics():
    y = [6.0, 10.0, 2e-9, 6e6, 3e6, 7.2e6, 0.4, 0.03, 1e-5]
    lk = vc.natural_locks(y, P)
    free = vc.locked_model(y, 9.0, lk, vc.K_FREE, P, want_jac=True)
    frozen_p = vc.Par(PAR)
    frozen_p.prescribed_motion = True
    frozen = vc.locked_model(y, 9.0, lk, vc.K_FREE, frozen_p, want_jac=True)
    assert frozen[0][:6] == free[0][:6]
    assert frozen[0][6:] == [0.0, 0.0, 0.0]
    np.testing.assert_array_equal(frozen[1][:6], free[1][:6])
    assert not frozen[1][6:].any()
    # the chamber pressures still see the prescribed velocity (V5)
    assert free[1][vc.I_P1, vc.I_V] < 0.0 and frozen[1][vc.I_P1, vc.I_V] == free[1][vc.I_P1, vc.I_V]


def test_motion_segments_cut_the_input_at_every_hold_time():
    segs = vc.input_segments("random")
    t_hold = np.arange(0, 101) / 100.0  # 0 .. 1 s every 10 ms
    cut = vc.motion_segments(segs, t_hold)
    assert len(cut) == 100
    assert cut[0] == (0.0, 0.01, segs[0][2])
    assert cut[49][2] == segs[0][2] and cut[50][0] == 0.5 and cut[50][2] == segs[1][2]
    with pytest.raises(ValueError, match="not hold times"):
        vc.motion_segments(segs, np.array([0.0, 0.3, 0.7, 1.0]))


def test_actuator_motion_samples_the_cylinder_trace_at_the_hold_times():
    t = vc.output_times("random")  # 5 ms grid
    y = np.zeros((len(t), 9))
    y[:, vc.I_X] = 0.5 + 0.1 * np.sin(t)
    y[:, vc.I_V] = 0.1 * np.cos(t)
    t_m, x_m, v_m = vc.actuator_motion("random_motion", t, y)
    assert len(t_m) == 5001 and t_m[1] == 0.01 and t_m[-1] == 50.0
    assert x_m[100] == pytest.approx(0.5 + 0.1 * math.sin(1.0), rel=1e-9)
    assert v_m[-1] == pytest.approx(0.1 * math.cos(50.0), rel=1e-9)


def test_actuator_force_is_the_piston_balance():
    y = np.array([[0.0, 0.0, 5e-11, 1e7, 2e6, 1.1e7, 0.5, 0.0, 0.0]])
    out = vc.actuator_signal_table(y, PAR)
    assert out["F"][0] == pytest.approx(1e7 * 8.04e-4 - 2e6 * 4.24e-4)
    assert set(out) == set(vc.ACTUATOR_SIGNALS)
