"""Unit tests of the LiftActuator / LiftHydraulics reference (model description
components/circuits/lift-circuit/MODEL.md, equations L1-L6) and of its published numbers,
on the committed reference trace and on a fresh CVODE run."""

import csv
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import lift_actuator as la  # noqa: E402
from reference_common import agrees_to_published  # noqa: E402

PAR = dict(la.MODEL_PARAMETERS)
P = la.Par(PAR)
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def read_csv(path: Path) -> dict[str, np.ndarray]:
    rows = list(csv.reader(path.open()))
    values = np.array([[float(a) for a in row] for row in rows[1:]])
    return {name: values[:, i] for i, name in enumerate(rows[0])}


# -- L2-L4: valve ----------------------------------------------------------------


def test_regularised_root_is_odd_continuous_and_finite_at_zero():
    p_tr = PAR["p_tr"]
    assert la.regularised_root(0.0, p_tr) == 0.0
    assert la.regularised_root(-3e5, p_tr) == -la.regularised_root(3e5, p_tr)
    assert la.regularised_root(4e6, p_tr) == pytest.approx(2000.0, rel=1e-15)
    for side in (1.0, -1.0):
        edge = side * p_tr
        assert la.regularised_root(edge * (1 - 1e-12), p_tr) == pytest.approx(la.regularised_root(edge, p_tr), rel=1e-9)
        assert la.regularised_root_slope(edge * (1 - 1e-12), p_tr) == pytest.approx(0.5 / math.sqrt(p_tr), rel=1e-9)
    assert la.regularised_root_slope(0.0, p_tr) == pytest.approx(1.25 / math.sqrt(p_tr))


def test_edge_openings_centred_and_at_full_command():
    # centred: both chambers vent to tank through the underlapped tank edges
    assert la.edge_openings(0.0, PAR) == (0.0, 0.0, pytest.approx(0.2), pytest.approx(0.2))
    f_sa, f_sb, f_ta, f_tb = la.edge_openings(PAR["K_v"], PAR)  # u = 1 at rest: xi = 1
    assert (f_sa, f_sb, f_ta, f_tb) == (pytest.approx(0.95), 0.0, 0.0, pytest.approx(1.2))
    assert la.edge_openings(-PAR["K_v"], PAR) == (0.0, pytest.approx(0.95), pytest.approx(1.2), 0.0)
    # the supply edge opens at xi = c1, the tank edge A-T closes at xi = c2
    assert la.edge_openings(0.05 * PAR["K_v"] * (1 - 1e-9), PAR)[0] == 0.0
    assert la.edge_openings(0.2 * PAR["K_v"] * (1 + 1e-9), PAR)[2] == 0.0


def test_flow_constant_and_flow_directions():
    assert la.flow_constant(PAR) == pytest.approx(math.pi * 0.005 * 0.61 * 0.05, rel=1e-12)  # sqrt(2/800) = 0.05
    q_a, q_b = la.valve_flows(PAR["K_v"], 5e6, 1e6, PAR)
    assert q_a > 0 and q_b < 0  # supply into A, B out to tank
    assert q_a == pytest.approx(la.flow_constant(PAR) * PAR["K_v"] * 0.95 * math.sqrt(2.6e6), rel=1e-12)
    q_a, q_b = la.valve_flows(0.0, 3e5, 1e5, PAR)
    assert q_a < 0 and q_b == 0.0  # centred: A vents, B at tank pressure passes nothing


# -- L5, L6: chambers, piston ------------------------------------------------------


def test_rest_states_have_zero_rates():
    y = la.initial_state(PAR)
    y[la.I_XP] = la.rest_position(PAR)
    assert la.rest_position(PAR) == pytest.approx(-1.0791e-5, rel=1e-12)
    assert max(abs(r) for r in la.natural_rhs(y, 0.0, 0.0, PAR)) < 1e-9
    y[la.I_XV], y[la.I_PA], y[la.I_XP] = PAR["K_v"], PAR["p_S"], la.held_position(PAR)
    assert la.held_position(PAR) == pytest.approx(1.000077709, abs=1e-12)
    assert max(abs(r) for r in la.natural_rhs(y, 1.0, 0.0, PAR)) < 1e-9


def test_stops_push_only_and_the_load_weighs_on_the_piston():
    k_s, c_s = PAR["k_s"], PAR["c_s"]
    assert la.stop_force(-1e-5, 0.0, PAR) == pytest.approx(k_s * 1e-5)
    assert la.stop_force(-1e-5, 0.1, PAR) == 0.0  # leaving fast: the stop does not pull
    assert la.stop_force(1.0 + 1e-5, -0.004, PAR) == pytest.approx(-(k_s * 1e-5 - c_s * 0.004))  # -600 N
    assert la.stop_force(0.5, 3.0, PAR) == 0.0
    y = [0.0, 0.0, 1e5, 1e5, 0.5, 0.0]  # mid-stroke at rest, chambers equal: falls at g
    assert la.natural_rhs(y, 0.0, 0.0, PAR)[la.I_VP] == pytest.approx(-PAR["g"])
    y = [0.0, 0.0, 1e5, 1e5, 0.5, 1.0]  # moving up at 1 m/s: friction and viscous term oppose
    expected = -PAR["g"] - (PAR["k"] * 1.0 + PAR["Ff_max"] * math.tanh(1e3)) / 110.0
    assert la.natural_rhs(y, 0.0, 0.0, PAR)[la.I_VP] == pytest.approx(expected)
    # chamber A fills as the piston extends: p_A falls at v_p S_A with no valve flow
    rates = la.hydraulic_rates([-0.1 * PAR["K_v"], 0.0, 1e5, 1e5], 0.0, 0.5, 0.1, PAR)
    assert rates[2] == pytest.approx(-PAR["beta"] / (3e-4 + 0.5 * 1.18e-3) * 0.1 * 1.18e-3)


def test_locked_model_matches_the_model_description_and_its_jacobian():
    rng = np.random.default_rng(3)
    for _ in range(20):
        y = [rng.uniform(-1.2, 1.2) * PAR["K_v"], rng.uniform(-1, 1), rng.uniform(0, 8e6), rng.uniform(0, 8e6),
             rng.uniform(-1e-4, 1 + 1e-4), rng.uniform(-4, 4)]
        lk = la.natural_locks(la.switch_values(y, y[4], y[5], P, 16))
        dy, jac, _ = la.locked_model(y, (0.7, 50.0), lk, P, "actuator", True)
        assert dy == pytest.approx(la.natural_rhs(y, 0.7, 50.0, PAR), rel=1e-12, abs=1e-9)
        for j in range(6):
            h = 1e-7 * max(abs(y[j]), la.STATE_SCALE[j])
            yp, ym = list(y), list(y)
            yp[j] += h
            ym[j] -= h
            col = (np.array(la.locked_model(yp, (0.7, 50.0), lk, P, "actuator")[0])
                   - np.array(la.locked_model(ym, (0.7, 50.0), lk, P, "actuator")[0])) / (2 * h)
            assert np.all(np.abs(col - jac[:, j]) <= 1e-6 * (np.abs(jac).max(axis=1) + 1e-300))


# -- LiftHydraulics input rows ------------------------------------------------------


def test_hydraulics_rows_hold_the_middle_and_switch_u_at_a_row_boundary():
    t = la.output_times(5.0)
    y = np.zeros((len(t), 6))
    y[:, la.I_XP] = t  # x_p = t, v_p = 2 t: the rows must hold t_k + 5 ms
    y[:, la.I_VP] = 2 * t
    rows_t, vals = la.hydraulics_rows("lift_100kg_motion", t, y)
    assert len(rows_t) == 501 and rows_t[100] == 1.0
    assert vals[99, 0] == 0.0 and vals[100, 0] == 1.0 and np.all(vals[100:, 0] == 1.0)
    assert vals[37, 1] == pytest.approx(0.375, abs=1e-12) and vals[37, 2] == pytest.approx(0.75, abs=1e-12)
    assert np.all(vals[-1] == vals[-2])


def test_committed_hydraulics_inputs_switch_u_at_one_second():
    rows = read_csv(SCENARIOS / "LiftHydraulics" / "lift_100kg_motion" / "LiftHydraulics_in.csv")
    assert np.all(np.diff(rows["time"]) == pytest.approx(0.01))
    assert np.all(rows["u"][rows["time"] < 1.0 - 1e-9] == 0.0)
    assert np.all(rows["u"][rows["time"] > 1.0 - 1e-9] == 1.0)


# -- The published numbers -----------------------------------------------------------


def published_numbers_hold(t: np.ndarray, ref: dict[str, np.ndarray]) -> None:
    m = la.measure(t, ref)
    for title, key, published, _, factor in la.PUBLISHED_NUMBERS:
        ok, how = agrees_to_published(m[key] * factor, published)
        assert ok, f"{title}: {m[key] * factor} against {published} ({how})"
    assert la.PUBLISHED_PB_PEAK[0] <= m["pB_max"] <= la.PUBLISHED_PB_PEAK[1]
    p_s, p_t = PAR["p_S"], PAR["p_T"]
    moving = ref["v_p"] > 1.0
    assert ref["p_A"][(t >= 1.0) & (t <= 1.1)].max() > 0.9 * p_s  # p_A jumps
    assert ref["p_A"][moving].min() < 0.85 * p_s  # and sags while the load moves
    assert ref["p_B"][moving].max() > 5 * p_t
    assert ref["x_p"][t == 2.0][0] > 0.999
    assert abs(ref["p_A"][-1] - p_s) < 0.01 * p_s


def test_the_committed_trace_gives_the_published_numbers():
    ref = read_csv(SCENARIOS / "LiftActuator" / "lift_100kg" / "LiftActuator_ref.csv")
    assert len(ref["time"]) == 5001
    published_numbers_hold(ref["time"], ref)


def test_a_fresh_cvode_run_gives_the_published_numbers():
    tr = la.integrate("actuator", PAR, la.actuator_segments("lift_100kg"), 5.0, "cvode", rtol=1e-8)
    published_numbers_hold(tr.t, la.signal_table(tr.y, PAR))
