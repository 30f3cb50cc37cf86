"""The CraneBoom reference (validation/python/reference/crane_boom.py) on
its own: the description's numbers as the script reads them, the parts'
laws at hand-checked points, Radau against CVODE on a fresh short run, and
the physics the committed traces must show (the held load's sink, steady
speeds, the rod side's oil balance, the pump's power)."""

import csv
import math
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import crane_boom as cb  # noqa: E402
from crane_model import Crane  # noqa: E402
from described_reference import integrate, relative_rms_percent, with_signals  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "CraneBoom"
CR = Crane()


def read_csv(path: Path) -> dict[str, np.ndarray]:
    rows = list(csv.reader(path.open()))
    values = np.array([[float(a) for a in row] for row in rows[1:]])
    return {name: values[:, i] for i, name in enumerate(rows[0])}


def test_the_description_is_read_in_si():
    raw = tomllib.loads(cb.BUILT_FROM and (Path(__file__).resolve().parents[3] / cb.BUILT_FROM).read_text())
    assert raw["circuit"]["name"] == cb.MODEL
    assert CR.Q == pytest.approx(40e-3 / 60)
    assert CR.A1 == pytest.approx(78.54e-4) and CR.A2 == pytest.approx(50.27e-4)
    assert CR.m == 6000.0 and CR.F_ext == pytest.approx(6000.0 * 9.80665, rel=1e-6)
    assert CR.p_set == 160e5 and CR.ratio == 1.5 and CR.wn == 94.0
    assert CR.oil == (0.5, 1.8e9, 90.0, 2.8e7, 3.0)  # the parts' default oil


def test_laws_at_hand_checked_points():
    # the valve centred: both lines vent to tank through the tank edges' underlap
    assert CR.edges(0.0) == (0.0, 0.0, pytest.approx(0.2), pytest.approx(0.2))
    # fully open P-B at 10 V: cv 9.5 V sqrt(dp)
    q_a, q_b, q_p = CR.valve(-10.0, 100e5, 30e5, 80e5)
    assert q_b == pytest.approx(8e-8 * 9.5 * math.sqrt(20e5), rel=1e-12) and q_p == q_b
    # and A-T fully open with the 2 % underlap: 10.2 V
    assert q_a == pytest.approx(-8e-8 * 10.2 * math.sqrt(30e5), rel=1e-12)
    # the counterbalance valve shut below its setting: only the seat leakage
    assert CR.cbv(117e5, 0.0, 0.0) == pytest.approx(1e-14 * 117e5, rel=1e-12)
    # fully open above setting + band: k_max sqrt(dp), and the seat leakage
    assert CR.cbv(150e5, 50e5, 20e5) == pytest.approx(1.57e-6 * math.sqrt(100e5) + 1e-14 * 100e5, rel=1e-12)
    # the built-in check valve passes free flow into the load once open
    assert CR.cbv(100e5, 110e5, 0.0) == pytest.approx(-(1.57e-6 * math.sqrt(10e5) + 1e-14 * 10e5), rel=1e-12)
    # relief: 10 bar over cracking passes about 40 L/min
    assert CR.relief(210e5) * 6e4 == pytest.approx(40.2, abs=0.1)


def test_radau_and_cvode_agree_on_a_fresh_lift():
    rows, stop = [(0.0, (0.0,)), (0.1, (-10.0,)), (0.6, (0.0,))], 0.8
    radau = with_signals(CR, integrate(CR, rows, stop, "radau", 1e-10, cb.ATOL, cb.MAX_STEP), rows, stop)
    cvode = with_signals(CR, integrate(CR, rows, stop, "cvode", 1e-10, cb.ATOL, cb.MAX_STEP), rows, stop)
    for name, floor in cb.FLOORS.items():
        # within a hundredth of the signal's floor bound, and to 1e-6 of its scale at every sample
        assert relative_rms_percent(cvode.signals[name], radau.signals[name]) < 0.01 * floor, name
        scale = np.max(np.abs(radau.signals[name]))
        assert np.max(np.abs(cvode.signals[name] - radau.signals[name])) <= 1e-6 * scale, name


@pytest.mark.parametrize("name", list(cb.SCENARIOS))
def test_committed_reference_and_its_cvode_trace_agree(name):
    ref = read_csv(SCENARIOS / name / "CraneBoom_ref.csv")
    cv = read_csv(SCENARIOS / name / "CraneBoom_ref_cvode.csv")
    for signal in cb.FLOORS:
        assert relative_rms_percent(cv[signal], ref[signal]) < 1e-4, signal


def test_hold_sinks_less_than_the_stated_limit_and_by_the_seat_leakage():
    ref = read_csv(SCENARIOS / "hold" / "CraneBoom_ref.csv")
    t0, t1 = cb.HOLD_WINDOW
    i0, i1 = int(round(t0 * 1e3)), int(round(t1 * 1e3))
    sink = ref["s"][i1] - ref["s"][i0]
    assert 0.0 < sink < cb.HOLD_SINK_LIMIT
    # the counterbalance valve stays shut: its flow is the seat leakage, m g / A2 across it
    q = ref["q_cbv"][i0:i1 + 1]
    assert np.all(np.abs(q - CR.ck_leak * ref["p_B"][i0:i1 + 1]) < 1e-3 * CR.ck_leak * ref["p_B"][i0])
    assert sink == pytest.approx(CR.ck_leak * (CR.F_ext / CR.A2) / CR.A2 * (t1 - t0), rel=0.05)
    # all along the hold the pump's flow goes over the relief valve
    assert np.allclose(ref["q_relief"][i0:i1 + 1], CR.Q, rtol=1e-3)


def test_steady_speeds_and_the_pumps_power():
    lift = read_csv(SCENARIOS / "lift" / "CraneBoom_ref.csv")
    i = int(round(2.45e3))
    assert lift["v"][i] == pytest.approx(-CR.Q / CR.A2, rel=1e-4)
    # the load's potential energy rises no faster than the pump delivers hydraulic power
    lifting = slice(int(0.6e3), int(2.5e3))
    assert np.all(CR.F_ext * np.abs(lift["v"][lifting]) <= CR.Q * lift["p_pump"][lifting])
    lower = read_csv(SCENARIOS / "lower" / "CraneBoom_ref.csv")
    i = int(round(3.45e3))
    assert lower["v"][i] == pytest.approx(CR.Q / CR.A1, rel=1e-4)
    assert lower["q_cbv"][i] == pytest.approx(CR.A2 * lower["v"][i], rel=1e-3)


def test_lowering_oil_balance_of_the_rod_side():
    """Over the lowering, the oil leaving the rod side through the
    counterbalance valve is the annulus volume swept less the chamber's
    compression (continuity of the ChamberCylinder's B chamber)."""
    ref = read_csv(SCENARIOS / "lower" / "CraneBoom_ref.csv")
    i0, i1 = int(1.0e3), int(3.4e3)
    out = np.trapezoid(ref["q_cbv"][i0:i1 + 1], dx=1e-3)
    swept = CR.A2 * (ref["s"][i1] - ref["s"][i0])
    vb = CR.volumes(ref["s"][i0])[1]
    compression = vb * (ref["p_B"][i1] - ref["p_B"][i0]) / CR.B(ref["p_B"][i0])
    assert out == pytest.approx(swept - compression, rel=2e-3)
