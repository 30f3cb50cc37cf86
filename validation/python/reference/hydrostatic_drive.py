#!/usr/bin/env python3
"""Independent reference solution of the HydrostaticDrive circuit, a circuit
that exists only as a description file
(``components/circuits/circuit-file/examples/hydrostatic_drive.toml``), run
as an FMU by the engine (``build-fmu --circuit``).

The equations are written from the description and the parts' documented
laws (``drive_model.py``, with the hose's segment laws imported from
``hose_line.py``; derivation in ``hydrostatic_drive_NOTES.md``), not by
calling the Rust code: the parameters are read from the file itself
(``circuit_description.py``), so the reference follows the file.

Scenarios, each from the description's start state (the electric motor and
pump at 1500 rpm, the accumulator node and the hose at 0 bar and still, the
motor and load at rest):

* ``startup``: tau_ext = 0 (its start value) for 8 s: the pump's pressure
  rises to the relief setting, the motor accelerates the load, the
  accumulator gives back its oil and the speed settles at D_p n_p / D_m less
  the leakages (about 1250 rpm) at about 44 bar.
* ``load_step``: the same start-up, then tau_ext steps to -60 N m (60 N m
  against the motor) at 8 s; 16 s. The pressure settles near 160 bar (the
  torque over D_m with the motor's losses) and the speed drops by the
  leakages' share.

Each is integrated by SciPy Radau (rtol 1e-10, atol per state) restarted at
the input change, and by SUNDIALS CVODE (BDF, scikit-sundae, rtol 1e-10),
which must agree within a tenth of each signal's bounds; a Radau run at rtol
1e-6 stands in for an FMU at the .opt tolerance and sets the bounds with the
project's targets (described_reference.bounds). The physical figures each
scenario must show are checked as PASS / FAIL. It writes
``validation/scenarios/HydrostaticDrive/<scenario>/`` (FMI Cross-Check
layout, the CVODE trace as ``HydrostaticDrive_ref_cvode.csv``); ``--check``
recomputes and compares instead of writing.

Exit status: 0 when every check passes (and, with ``--check``, the files on
disk match); 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from described_reference import (CVODE_RTOL, GRID, PROXY_RTOL, RADAU_RTOL, agreement, bounds, integrate,
                                 scenario_files, with_signals)
from drive_model import I_PA, I_WP, Drive
from reference_common import Checks, add_check_arguments, parse_csv, write_or_compare

MODEL = "HydrostaticDrive"
BUILT_FROM = "components/circuits/circuit-file/examples/hydrostatic_drive.toml"
SCRIPT = "validation/python/reference/hydrostatic_drive.py"
NOTES = "validation/python/reference/hydrostatic_drive_NOTES.md"

MAX_STEP = 0.01  # s
STEP_TIME = 8.0  # s: the load step, after the start-up has settled (its own scenario checks it at 8 s)
LOAD_STEP = -60.0  # N m: tau_ext after the step (60 N m against the motor)
SCENARIOS = {
    "startup": {
        "description": "Start-up: from the description's start state (pump at 1500 rpm, accumulator node and hose at "
        "0 bar, motor and load at rest), tau_ext = 0 for 8 s. The pressure rises to the 250 bar relief setting while "
        "the motor accelerates the 2 kg m2 load, the accumulator gives its oil back, and the speed settles at about "
        "1250 rpm (D_p n_p / D_m less the leakages) at about 44 bar.",
        "rows": [(0.0, (0.0,))],
        "stop": 8.0,
    },
    "load_step": {
        "description": "Load step: the start-up of 'startup', then tau_ext = -60 N m (against the motor) from 8 s; "
        "16 s. The motor's inlet pressure settles near 160 bar ((60 N m + the losses) / D_m), the accumulator takes "
        "oil above its 100 bar precharge, the relief valve stays shut, and the speed drops by the leakages' share "
        "to about 1090 rpm.",
        "rows": [(0.0, (0.0,)), (STEP_TIME, (LOAD_STEP,))],
        "stop": 16.0,
    },
}
SHORT_SCENARIO = "startup"

# The project's targets by kind of signal (relative RMS, %): velocities 2,
# pressures 1, flows 4 (as the crane and the valve drive circuits).
FLOORS = {"n_motor": 2.0, "n_pump": 2.0, "p_pump_end": 1.0, "p_motor_end": 1.0, "p_acc": 1.0, "q_relief": 4.0}

STEADY_WINDOW = 0.5  # s: the last half second before the step (or the end) counts as steady
STEADY_DRIFT = 1e-3  # the speed moves by less than 0.1 % over it
STEADY_REL = 1e-3  # steady speed and pressure within 0.1 % of the balances below
BALANCE_FROM = 1.0  # s: the oil balance is summed from here on
BALANCE_REL = 1e-3  # its residue within 0.1 % of the net inflow

NOTE = (
    "A circuit that exists only as a description file ({file}), run by the engine FMU. Bounds: relative RMS error "
    "= RMS(FMU - reference) / mean(|reference|) over the reference grid, in %, and maximum absolute error in SI "
    "units (rad/s, Pa, m3/s): for each signal the larger of the project's target for its kind (speeds 2 %, "
    "pressures 1 %, flows 4 %) and ten times the error of a Radau run at rtol 1e-6 (the .opt tolerance) against "
    "the reference; max_abs the larger of 5 % of the signal's range and ten times that run's largest error. The "
    "reference integrates the parts' documented laws (the hose's as hose_line.py) by SciPy Radau (rtol 1e-10, "
    "restarted at the input change) and is cross-checked by SUNDIALS CVODE (BDF, rtol 1e-10, "
    "{model}_ref_cvode.csv), which agrees within a tenth of every bound; see {notes}."
)


def atol(dr: Drive, rtol: float = RADAU_RTOL) -> np.ndarray:
    """Absolute tolerances at rtol 1e-10: about 1e-10 of each state's scale
    (speeds 100 rad/s, pressures 1e7 Pa, hose flows 1e-3 m3/s), scaled
    with rtol for the looser runs."""
    a = np.full(dr.size, 1e-3)
    a[I_WP] = a[dr.I_WM] = 1e-8
    a[2:dr.I_WM:2] = 1e-13
    return a * (rtol / RADAU_RTOL)


def at(trace, name: str, t: float) -> float:
    return float(trace.signals[name][int(round(t / GRID))])


def steady_balance(dr: Drive, tau_ext: float, w_p: float, p_a: float) -> tuple[float, float]:
    """The steady motor speed and inlet pressure the parts' laws give at the
    pump speed and pump-end pressure of the trace: the motor takes what the
    pump delivers (the relief valve's flow subtracted), and its torque
    balances the load's friction and tau_ext. Returns (w_m, p_B) solved from
    the two balances (the hose's steady drop included: p_B is solved, not
    assumed equal to p_A)."""
    q = dr.pump(w_p, p_a)[0] - dr.relief(p_a)
    # D_m w + c_m p_B = q; D_m p_B - (bv_m + b_l) w - tau_c tanh(w/reg) + tau_ext = 0 (tau_load of the load 0)
    w = (q - dr.c_m * p_a) / dr.D_m
    for _ in range(50):
        p_b = ((dr.bv_m + dr.b_l) * w + dr.tc_m * np.tanh(w / dr.reg_m) + dr.tc_l * np.tanh(w / dr.reg_l) + dr.tl_l
               - tau_ext) / dr.D_m
        w = (q - dr.c_m * p_b) / dr.D_m
    return float(w), float(p_b)


def volume_balance(dr: Drive, tr, i0: int, i1: int) -> tuple[float, float, float]:
    """Oil over [t_i0, t_i1]: the pump's delivery less the relief valve's and
    the motor's flows, against what the accumulator node and the hose hold
    more at the end (each volume's compliance integrated over its pressure
    change along the trace). Returns (net inflow, stored, residue), m3."""
    dt = GRID
    y = tr.y[i0:i1 + 1]
    q_p = np.array([dr.pump(r[I_WP], r[I_PA])[0] for r in y])
    q_r = np.array([dr.relief(r[I_PA]) for r in y])
    q_m = np.array([dr.motor(r[dr.I_WM], r[dr.I_WM - 1])[0] for r in y])
    net = float(np.trapezoid(q_p - q_r - q_m, dx=dt))
    # accumulator node: C(p) is a function of p alone, integrate it over p
    from scipy.integrate import quad
    stored_node = quad(dr.capacitance, y[0, I_PA], y[-1, I_PA], epsabs=0.0, epsrel=1e-10, limit=200,
                       points=[dr.acc_p0 - dr.acc_band / 2, dr.acc_p0 + dr.acc_band / 2]
                       if min(y[0, I_PA], y[-1, I_PA]) < dr.acc_p0 < max(y[0, I_PA], y[-1, I_PA]) else None)[0]
    # the hose: sum over segments of kC C(p_m) dp2, along the trace
    hose = dr.hose
    p2 = y[:, 3:dr.I_WM:2]
    pin = np.concatenate([y[:, [I_PA]], p2[:, :-1]], axis=1)
    c = hose.k_lc * hose.props(0.5 * (pin + p2)).C
    stored_hose = float(np.sum(0.5 * (c[1:] + c[:-1]) * np.diff(p2, axis=0)))
    stored = stored_node + stored_hose
    return net, stored, net - stored


def physics_checks(checks: Checks, name: str, dr: Drive, tr) -> list:
    """The figures the scenario must show (PASS / FAIL), and the harness's
    analytic entries."""
    label = f"{MODEL}/{name}"
    analytic = []
    s = tr.signals
    ideal = dr.D_p / dr.D_m
    # start-up: the relief valve limits the pressure, the motor accelerates
    i_peak = int(np.argmax(s["p_acc"][: int(round(STEP_TIME / GRID))]))
    p_peak = float(s["p_acc"][i_peak])
    checks.add(f"{label}: start-up pressure held by the relief valve", dr.p_crack < p_peak < dr.p_crack + 20e5,
               f"peak p_acc {p_peak / 1e5:.2f} bar at {i_peak * GRID:.3f} s (cracking {dr.p_crack / 1e5:g} bar, "
               f"{dr.gain * 1e5 * 6e4:.1f} L/min per bar above)")
    q_peak = float(np.max(s["q_relief"]))
    checks.add(f"{label}: the relief valve passes less than the pump delivers", 0.0 < q_peak < dr.D_p * dr.w_p0,
               f"largest q_relief {q_peak * 6e4:.2f} L/min of {dr.D_p * dr.w_p0 * 6e4:.2f} L/min")
    tr_min = float(np.min(tr.y[:, 1:dr.I_WM]))
    checks.add(f"{label}: every pressure above the hose laws' floor (no cavitation)", tr_min > dr.p_floor,
               f"lowest pressure {tr_min / 1e5:.3f} bar (floor {dr.p_floor / 1e5:.2f} bar)")
    checks.add(f"{label}: the motor never turns backwards", float(np.min(s["n_motor"])) > -1e-3,
               f"lowest speed {np.min(s['n_motor']):.3g} rad/s")
    # steady state, before the step (or at the end of the start-up)
    ends = [(STEP_TIME, 0.0)] if name == "load_step" else [(SCENARIOS[name]["stop"], 0.0)]
    if name == "load_step":
        ends.append((SCENARIOS[name]["stop"], LOAD_STEP))
    for t_end, tau in ends:
        t_read = t_end - 2 * GRID if t_end == STEP_TIME else t_end
        w0, w1 = at(tr, "n_motor", t_read - STEADY_WINDOW), at(tr, "n_motor", t_read)
        checks.add(f"{label}: steady at {t_read:g} s (speed moves < {STEADY_DRIFT:.1%} over {STEADY_WINDOW:g} s)",
                   abs(w1 / w0 - 1) < STEADY_DRIFT, f"{w0 * 30 / np.pi:.3f} -> {w1 * 30 / np.pi:.3f} rpm")
        w_p, p_a, p_b = at(tr, "n_pump", t_read), at(tr, "p_acc", t_read), at(tr, "p_motor_end", t_read)
        # the load's remaining acceleration (a few hundredths of a N m) belongs to the torque balance
        accel = dr.J_l * (at(tr, "n_motor", t_read) - at(tr, "n_motor", t_read - 0.1)) / 0.1
        w_s, p_s = steady_balance(dr, tau - accel, w_p, p_a)
        checks.add(f"{label}: steady speed at {t_read:g} s = (D_p n_p - (c_p + c_m) p - q_relief) / D_m",
                   abs(w1 / w_s - 1) < STEADY_REL,
                   f"n_motor {w1 * 30 / np.pi:.3f} rpm, balance {w_s * 30 / np.pi:.3f} rpm; ideal D_p n_p / D_m "
                   f"{ideal * w_p * 30 / np.pi:.3f} rpm, volumetric efficiency {w1 / (ideal * w_p):.4f}")
        checks.add(f"{label}: motor inlet at {t_read:g} s = (torque + losses) / D_m", abs(p_b / p_s - 1) < STEADY_REL,
                   f"p_motor_end {p_b / 1e5:.3f} bar, balance {p_s / 1e5:.3f} bar; |tau_ext| / D_m "
                   f"{abs(tau) / dr.D_m / 1e5:.3f} bar, mechanical efficiency "
                   f"{(abs(tau) / (dr.D_m * p_b)) if tau else 0.0:.4f}")
        checks.add(f"{label}: relief shut at {t_read:g} s", at(tr, "q_relief", t_read) < 1e-6 * dr.D_p * w_p,
                   f"q_relief {at(tr, 'q_relief', t_read) * 6e4:.2e} L/min, p_acc {p_a / 1e5:.2f} bar")
        v_f = dr.fluid_volume(p_a)[0]
        above = p_a > dr.acc_p0 + dr.acc_band / 2
        checks.add(f"{label}: accumulator at {t_read:g} s {'holds oil above' if above else 'empty below'} its "
                   f"precharge", (v_f > 0.0) if above else (v_f == 0.0 and p_a < dr.acc_p0 - dr.acc_band / 2),
                   f"p_acc {p_a / 1e5:.2f} bar, precharge {dr.acc_p0 / 1e5:g} bar, oil {v_f * 1e3:.4f} L")
        analytic.append({"signal": "n_motor", "time": t_read, "value": w_s, "rel_tol": 5 * STEADY_REL,
                         "note": "steady: the motor takes the pump's delivery less both leakages, (D_p n_p - (c_p + "
                                 "c_m) p) / D_m at the reference's n_pump and p"})
        analytic.append({"signal": "p_motor_end", "time": t_read, "value": p_s, "rel_tol": 5 * STEADY_REL,
                         "note": "steady: D_m p balances the load's and the motor's friction and tau_ext"})
    # oil volume balance from BALANCE_FROM on (the hose's early ringing, up to
    # some 300 Hz, is not resolved by the 1 ms grid the balance integrates on)
    i0 = int(round(BALANCE_FROM / GRID))
    i1 = int(round(STEP_TIME / GRID)) if name == "load_step" else len(tr.t) - 1
    net, stored, residue = volume_balance(dr, tr, i0, i1)
    pumped = float(np.trapezoid([dr.pump(r[I_WP], r[I_PA])[0] for r in tr.y[i0:i1 + 1]], dx=GRID))
    checks.add(f"{label}: oil volume balance from {BALANCE_FROM:g} s to {i1 * GRID:g} s",
               abs(residue) < BALANCE_REL * abs(net),
               f"pumped {pumped * 1e3:.4f} L, net in (less relief and motor) {net * 1e6:.4f} mL, stored in the "
               f"node and the hose {stored * 1e6:.4f} mL, residue {residue * 1e6:.2e} mL")
    if name == "load_step":
        i = int(round(STEP_TIME / GRID))
        net, stored, residue = volume_balance(dr, tr, i, len(tr.t) - 1)
        v0, v1 = dr.fluid_volume(tr.y[i, I_PA])[0], dr.fluid_volume(tr.y[-1, I_PA])[0]
        checks.add(f"{label}: after the step the deficit of the motor's flow went into the accumulator node",
                   abs(residue) < BALANCE_REL * abs(net) and stored > 0.0,
                   f"net in {net * 1e6:.4f} mL, stored {stored * 1e6:.4f} mL (of it the accumulator's gas side "
                   f"{(v1 - v0) * 1e6:.4f} mL), residue {residue * 1e6:.2e} mL")
    return analytic


def run_scenario(checks: Checks, name: str, dr: Drive, args) -> None:
    spec = SCENARIOS[name]
    rows, stop = spec["rows"], spec["stop"]
    print(f"\n== {MODEL}/{name}: {spec['description']}", flush=True)
    failures = checks.trace_failures
    ref = with_signals(dr, integrate(dr, rows, stop, "radau", RADAU_RTOL, atol(dr), MAX_STEP), rows, stop)
    print(f"  Radau rtol {RADAU_RTOL:g}: {ref.wall:.1f} s, {ref.stats}", flush=True)
    proxy = with_signals(dr, integrate(dr, rows, stop, "radau", PROXY_RTOL, atol(dr, PROXY_RTOL), MAX_STEP),
                         rows, stop)
    print(f"  Radau rtol {PROXY_RTOL:g} (the FMU's stand-in): {proxy.wall:.1f} s, {proxy.stats}", flush=True)
    signal_bounds, seen = bounds(ref.signals, proxy.signals, FLOORS)
    for sig, (rel, mx) in seen.items():
        checks.info(f"{MODEL}/{name}: rtol 1e-6 run vs reference, {sig}",
                    f"rel RMS {rel:.2e} %, max {mx:.3g}; bound {signal_bounds[sig]}")
    cvode = None
    if args.no_cvode:
        checks.info(f"{MODEL}/{name}: CVODE cross-check", "skipped (--no-cvode): nothing is written")
    else:
        cvode = with_signals(dr, integrate(dr, rows, stop, "cvode", CVODE_RTOL, atol(dr), MAX_STEP), rows, stop)
        print(f"  CVODE BDF rtol {CVODE_RTOL:g}: {cvode.wall:.1f} s, {cvode.stats}", flush=True)
        agreement(checks, f"{MODEL}/{name}", cvode.signals, ref.signals, signal_bounds)
    analytic = physics_checks(checks, name, dr, ref)
    note = NOTE.format(file=BUILT_FROM, model=MODEL, notes=NOTES)
    files = scenario_files(MODEL, name, spec["description"], BUILT_FROM, SCRIPT, NOTES, rows, stop,
                           [i["name"] for i in dr.description.inputs], ref, cvode, signal_bounds, analytic, note)
    write_or_compare(checks, args.check, name, args.out_dir / MODEL / name, files,
                     checks.trace_failures == failures and cvode is not None, exact=args.exact)


def read_csv_signals(path: Path) -> dict[str, np.ndarray]:
    header, values = parse_csv(path.read_text())
    return {name: values[:, i] for i, name in enumerate(header) if name != "time"}


def run_quick_check(checks: Checks, name: str, dr: Drive, args) -> None:
    """``--check --quick`` (the harness's ``--short``): the CVODE trace alone
    is re-solved (about a third of the Radau run's time: the hose's ringing
    after the start costs Radau at rtol 1e-10 some 30000 steps) and compared
    with the committed CVODE file, with the committed Radau reference
    (within a tenth of the committed bounds) and with the physics checks;
    the full ``--check`` re-solves everything."""
    spec = SCENARIOS[name]
    rows, stop = spec["rows"], spec["stop"]
    folder = args.out_dir / MODEL / name
    print(f"\n== {MODEL}/{name} (quick: CVODE only, against the committed reference)", flush=True)
    committed = json.loads((folder / "scenario.json").read_text())
    ref = read_csv_signals(folder / f"{MODEL}_ref.csv")
    cvode = with_signals(dr, integrate(dr, rows, stop, "cvode", CVODE_RTOL, atol(dr), MAX_STEP), rows, stop)
    print(f"  CVODE BDF rtol {CVODE_RTOL:g}: {cvode.wall:.1f} s, {cvode.stats}", flush=True)
    agreement(checks, f"{MODEL}/{name}", cvode.signals, ref, committed["signals"])
    physics_checks(checks, name, dr, cvode)
    files = scenario_files(MODEL, name, spec["description"], BUILT_FROM, SCRIPT, NOTES, rows, stop,
                           [i["name"] for i in dr.description.inputs], cvode, cvode, committed["signals"], [], "")
    keep = (f"{MODEL}_in.csv", f"{MODEL}_ref.opt", f"{MODEL}_ref_cvode.csv")
    write_or_compare(checks, True, name, folder, {k: v for k, v in files.items() if k in keep}, True,
                     exact=args.exact)


def main(argv=None) -> int:
    default_out = Path(__file__).resolve().parents[2] / "scenarios"
    parser = argparse.ArgumentParser(description="Independent SciPy Radau (+ CVODE) reference traces of the "
                                     "HydrostaticDrive description, in the FMI Cross-Check layout")
    add_check_arguments(parser)
    parser.add_argument("--out-dir", type=Path, default=default_out, help=f"scenario root (default {default_out})")
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--quick", action="store_true", help=f"only the scenario {SHORT_SCENARIO!r} (with --check: "
                        "its CVODE trace alone, against the committed files)")
    parser.add_argument("--no-cvode", action="store_true", help="skip the CVODE cross-check (then nothing is written)")
    args = parser.parse_args(argv)
    dr = Drive()
    names = [SHORT_SCENARIO] if args.quick else list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    print(f"{MODEL} reference from {BUILT_FROM}: mode {'check' if args.check else 'write'}, scenarios {names}",
          flush=True)
    checks = Checks()
    for name in names:
        if args.quick and args.check:
            run_quick_check(checks, name, dr, args)
        else:
            run_scenario(checks, name, dr, args)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
