"""The MuJoCo side of validation/python/tools/bench_mujoco_four_bar.py: the
MuJoCo four-bar, stepped as the benchmark steps it (the scenario's force
held per 1 ms, one mj_step call per step), follows the reference of
FourBarMechanism/sine_linear_force, with the error order of its integrator,
and the comparison measures what the harness measures.

Measured (MuJoCo 3.17.0): theta's relative RMS error 0.195 % with Euler at
1 ms and 0.0979 % at 0.5 ms (first order), 4.2e-6 % with RK4 at 1 ms and
1.05e-6 % at 0.5 ms (the constraint's time constant, 2 steps, dominates over
RK4's fourth order).
"""

from __future__ import annotations

import sys

import numpy as np
from fmpy import read_model_description

from fmu_harness import REPO, require_fmu

sys.path.insert(0, str(REPO / "validation" / "python" / "tools"))
import bench_mujoco_four_bar as bench  # noqa: E402


def setup():
    md = read_model_description(str(require_fmu("FourBarMechanism", 3)))
    link = bench.Linkage.from_fmu(md)
    forces = bench.read_csv(bench.SCENARIO / "FourBarMechanism_in.csv")
    ref = bench.read_csv(bench.SCENARIO / "FourBarMechanism_ref.csv")
    return link, forces, ref


def error(link, forces, ref, integrator, dt, stop=5.0):
    t, theta, wall = bench.run_mujoco(link, integrator, dt, forces, stop, 1)
    assert wall > 0.0 and len(t) == round(stop / bench.H) + 1
    return bench.rel_rms_percent(t, theta, ref, "theta")


def test_euler_is_first_order_and_inside_the_bound_at_half_a_millisecond():
    link, forces, ref = setup()
    coarse = error(link, forces, ref, "Euler", 1e-3)
    fine = error(link, forces, ref, "Euler", 5e-4)
    assert 0.1 < coarse < 0.4, coarse
    assert 1.8 < coarse / fine < 2.2, (coarse, fine)
    assert fine < bench.BOUND_PERCENT


def test_rk4_follows_the_reference_closely():
    link, forces, ref = setup()
    coarse = error(link, forces, ref, "RK4", 1e-3)
    fine = error(link, forces, ref, "RK4", 5e-4)
    assert coarse < 1e-5, coarse
    assert fine < coarse / 3.0, (coarse, fine)


def test_the_error_is_the_harness_relative_rms():
    # A trace off by a constant c has a relative RMS of c / mean|reference|.
    _, _, ref = setup()
    t = ref["time"]
    shifted = ref["theta"] + 1e-3
    expected = 100.0 * 1e-3 / np.mean(np.abs(ref["theta"]))
    assert abs(bench.rel_rms_percent(t, shifted, ref, "theta") - expected) < 1e-9 * expected
