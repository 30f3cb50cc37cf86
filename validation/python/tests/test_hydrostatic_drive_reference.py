"""The HydrostaticDrive reference (validation/python/reference/hydrostatic_drive.py)
on its own: the description's numbers as the script reads them, the parts'
laws at hand-checked points, the hose taken from the hose reference (its
form G unchanged when the wall hysteresis is off), Radau against CVODE on a
fresh short run, and the physics the committed traces must show (steady
speed and pressure against the balances of the parts' laws, the relief
valve and the accumulator, the oil volume balance)."""

import csv
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import hydrostatic_drive as hd  # noqa: E402
from described_reference import integrate, relative_rms_percent, with_signals  # noqa: E402
from drive_model import Drive  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "HydrostaticDrive"
DR = Drive()
RPM = math.pi / 30.0


def read_csv(path: Path) -> dict[str, np.ndarray]:
    rows = list(csv.reader(path.open()))
    values = np.array([[float(a) for a in row] for row in rows[1:]])
    return {name: values[:, i] for i, name in enumerate(rows[0])}


def test_the_description_is_read_in_si():
    assert DR.description.name == hd.MODEL
    assert DR.D_p == pytest.approx(28e-6 / (2 * math.pi)) and DR.D_m == pytest.approx(32e-6 / (2 * math.pi))
    assert DR.w_p0 == pytest.approx(1500 * RPM) and DR.w_l0 == 0.0
    assert DR.tl_p == -4854.0 and DR.b_p == 30.9 and DR.J_p == 0.1 and DR.J_l == 2.0
    assert DR.p_crack == 250e5 and DR.gain == 7e-10 and DR.w_relief == 2e4  # the smoothing's default
    assert DR.acc_p0 == 100e5 and DR.acc_n == 1.4 and DR.p_atm == 101325.0 and DR.acc_band == 1e5
    assert DR.oil == (0.5, 1.8e9, 90.0, 2.8e7, 3.0)  # the parts' default oil
    assert DR.n == 5 and DR.hose.l == pytest.approx(1.0) and DR.hose_par["d"] == 0.016
    assert DR.hose_par["T"] == pytest.approx(40.0) and DR.hose_par["b"] == 2e-5  # the hose part's defaults
    assert DR.b_hyst == 0.0  # the part, as the hose FMUs, leaves the wall hysteresis out
    assert DR.size == 13


def test_laws_at_hand_checked_points():
    # 1500 rpm, 100 bar: the pump's 42 L/min less 2.4 L/min of leakage (the file's 94 %)
    q, tau = DR.pump(1500 * RPM, 100e5)
    assert q * 6e4 == pytest.approx(42.0 - 2.4, rel=1e-12)
    assert tau == pytest.approx(DR.D_p * 100e5, rel=1e-12)
    # the motor's torque at 118 bar holds the 60 N m of the load step (the file's figure), less its losses
    q, tau = DR.motor(100.0, 118e5)
    assert DR.D_m * 118e5 == pytest.approx(60.0, rel=2e-3)
    assert tau == pytest.approx(DR.D_m * 118e5 - 0.05 * 100.0 - 2.0 * math.tanh(100.0), rel=1e-12)
    assert q == pytest.approx(DR.D_m * 100.0 + 3e-12 * 118e5, rel=1e-12)
    # relief: 10 bar over cracking passes 42 L/min (the file's override at full flow)
    assert DR.relief(260e5) * 6e4 == pytest.approx(42.0, rel=1e-3)
    assert DR.relief(240e5) < 1e-12
    # accumulator: no oil below the band, the polytropic law above it
    assert DR.fluid_volume(90e5) == (0.0, 0.0)
    v, c = DR.fluid_volume(200e5)
    pa0, pa = 100e5 + 101325.0, 200e5 + 101325.0
    assert v == pytest.approx(DR.acc_V0 * (1 - (pa0 / pa) ** (1 / 1.4)), rel=1e-12)
    assert c == pytest.approx(DR.acc_V0 / (1.4 * pa) * (pa0 / pa) ** (1 / 1.4), rel=1e-12)
    # the prime mover's straight line: zero net torque at 1500 rpm with no pump torque (to 0.2 N m)
    assert abs(-DR.tl_p - DR.b_p * DR.w_p0) < 0.3


def test_hose_is_the_hose_reference_without_hysteresis():
    """Without the hysteresis (the part's law) the drive's hose rates are
    hose_line's form G exactly."""
    plain = DR
    rng = np.random.default_rng(1)
    yh = np.empty(2 * plain.n)
    yh[0::2] = 6e-4 + 1e-5 * rng.standard_normal(plain.n)
    yh[1::2] = 1.5e7 + 1e5 * rng.standard_normal(plain.n)
    u = np.array([1.51e7, 6.1e-4])
    assert np.allclose(plain.hose_rates(yh, u[0], 3e6, u[1]), plain.hose.rhs(yh, u), rtol=1e-13, atol=0.0)
    # with the hysteresis saturated the flow diameter shrinks by 2 b: the flow rates change, the pressures' do not
    fast = Drive(hysteresis=True).hose_rates(yh, u[0], 1e12, u[1])
    assert np.allclose(fast[1::2], plain.hose.rhs(yh, u)[1::2], rtol=1e-13, atol=0.0)
    assert not np.allclose(fast[0::2], plain.hose.rhs(yh, u)[0::2], rtol=1e-6, atol=0.0)


def test_radau_and_cvode_agree_on_a_fresh_start():
    rows, stop = [(0.0, (0.0,))], 0.1
    radau = with_signals(DR, integrate(DR, rows, stop, "radau", 1e-10, hd.atol(DR), hd.MAX_STEP), rows, stop)
    cvode = with_signals(DR, integrate(DR, rows, stop, "cvode", 1e-10, hd.atol(DR), hd.MAX_STEP), rows, stop)
    for name, floor in hd.FLOORS.items():
        # within a hundredth of the signal's floor bound, and to 1e-5 of its scale at every sample
        assert relative_rms_percent(cvode.signals[name], radau.signals[name]) < 0.01 * floor, name
        scale = np.max(np.abs(radau.signals[name]))
        assert np.max(np.abs(cvode.signals[name] - radau.signals[name])) <= 1e-5 * scale, name


@pytest.mark.parametrize("name", list(hd.SCENARIOS))
def test_committed_reference_and_its_cvode_trace_agree(name):
    ref = read_csv(SCENARIOS / name / "HydrostaticDrive_ref.csv")
    cv = read_csv(SCENARIOS / name / "HydrostaticDrive_ref_cvode.csv")
    for signal in hd.FLOORS:
        assert relative_rms_percent(cv[signal], ref[signal]) < 1e-4, signal


def steady(ref, t, tau_ext):
    i = int(round(t * 1e3))
    w_s, p_s = hd.steady_balance(DR, tau_ext, ref["n_pump"][i], ref["p_acc"][i])
    return i, w_s, p_s


def test_steady_speed_and_pressure_follow_the_parts_balances():
    ref = read_csv(SCENARIOS / "load_step" / "HydrostaticDrive_ref.csv")
    # unloaded, before the step: the ideal ratio less both leakages at about 44 bar
    i, w_s, p_s = steady(ref, hd.STEP_TIME - 0.002, 0.0)
    ideal = DR.D_p * ref["n_pump"][i] / DR.D_m
    assert ref["n_motor"][i] == pytest.approx(w_s, rel=1e-3)
    assert ref["n_motor"][i] == pytest.approx(ideal - (DR.c_p + DR.c_m) * ref["p_acc"][i] / DR.D_m, rel=2e-3)
    assert 0.94 < ref["n_motor"][i] / ideal < 0.97
    # (the load still accelerates by 0.05 rad/s2 there: 0.1 N m, 0.3 % of the unloaded pressure)
    assert ref["p_motor_end"][i] == pytest.approx(p_s, rel=5e-3)
    # loaded at the end: D_m p carries the 60 N m and the losses (mechanical efficiency about 0.73)
    i, w_s, p_s = steady(ref, hd.SCENARIOS["load_step"]["stop"], hd.LOAD_STEP)
    assert ref["n_motor"][i] == pytest.approx(w_s, rel=1e-3)
    assert ref["p_motor_end"][i] == pytest.approx(p_s, rel=3e-3)
    eta = -hd.LOAD_STEP / (DR.D_m * ref["p_motor_end"][i])
    assert 0.6 < eta < 0.9
    assert ref["p_motor_end"][i] > -hd.LOAD_STEP / DR.D_m
    # the speed drops under load by the leakage at the higher pressure
    assert ref["n_motor"][i] < ref["n_motor"][int(round((hd.STEP_TIME - 0.002) * 1e3))]


def test_relief_and_accumulator():
    for name in hd.SCENARIOS:
        ref = read_csv(SCENARIOS / name / "HydrostaticDrive_ref.csv")
        # the relief valve holds the start-up's pressure, never takes the pump's whole flow, and is shut after
        assert DR.p_crack < ref["p_acc"].max() < DR.p_crack + 20e5
        assert ref["q_relief"].max() < DR.D_p * DR.w_p0
        assert np.all(ref["q_relief"][int(3e3):] < 1e-9)
        # pressures stay within the parts' laws (no cavitation), the motor never turns back
        assert ref["p_acc"].min() > DR.p_floor and ref["p_motor_end"].min() > DR.p_floor
        assert ref["n_motor"].min() > -1e-6
    ref = read_csv(SCENARIOS / "load_step" / "HydrostaticDrive_ref.csv")
    before, after = ref["p_acc"][int(hd.STEP_TIME * 1e3) - 2], ref["p_acc"][-1]
    assert before < DR.acc_p0 - DR.acc_band / 2 < DR.acc_p0 + DR.acc_band / 2 < after  # empty, then holding oil
    assert DR.fluid_volume(after)[0] > 0.0


def test_oil_volume_balance_on_a_fresh_trace():
    """From 1 s to 1.5 s of the start-up (the hose's ringing over): the
    pump's delivery less the relief valve's and the motor's flows is what the
    accumulator node and the hose hold more."""
    rows, stop = [(0.0, (0.0,))], 1.5
    tr = integrate(DR, rows, stop, "cvode", 1e-10, hd.atol(DR), hd.MAX_STEP)
    net, stored, residue = hd.volume_balance(DR, tr, int(1.0e3), int(1.5e3))
    assert abs(residue) < hd.BALANCE_REL * abs(net)
