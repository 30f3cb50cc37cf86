"""The lift's virtual environment (validation/python/tools/
cosim_mujoco_lift.py: a MuJoCo slider driven by the LiftHydraulics FMU at
a 1 ms exchange) and its Fig. 4 plot (validation/python/tools/
plot_lift.py: the LiftActuator FMU on the paper's experiment), FMI 3.

Measured (MuJoCo 3.17.0, implicitfast at 0.25 ms, the FMUs' default rtol
1e-6), MuJoCo + LiftHydraulics minus the monolithic LiftActuator over the
5 s paper's experiment: x_p 0.52 mm RMS and 2.5 mm at most, v_p 0.031 m/s RMS
and 1.6 m/s at most (both at the rebound from the upper stop, which
MuJoCo's soft limit and the FMU's penalty stop shape differently), p_A
0.023 bar RMS and 1.4 bar at most, p_B 0.063 bar RMS and 4.4 bar at most;
full stroke 0.60 ms earlier than the monolithic 1.2909 s (the end-of-step
force held over each MuJoCo step leads by half a step); both end at
p_A = p_S and p_B = p_T to 1e-4 bar. The bounds are three to four times
that: RMS of p_A within 0.1 bar (0.13 % of p_S), of p_B within 0.2 bar,
full-stroke times within 2 ms, end pressures within 1 % of p_S and p_T.

Free-running the coupled loop runs 12 to 15 times faster than real time;
paced to the wall clock, the FMU's doStep takes 10 to 20 us of each 1 ms
step on median (bound: 10 % of the step). Deadline misses depend on what
else the machine runs and are reported, not bounded.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys

import mujoco
import numpy as np
import pytest

from fmu_harness import DIST, REPO, require_fmu

TOOLS = REPO / "validation" / "python" / "tools"
sys.path.insert(0, str(TOOLS))
import cosim_mujoco_lift as lift  # noqa: E402

FMI = 3
MODELS = ("LiftActuator", "LiftHydraulics")
STEP = 1e-3

#: Coupled minus monolithic, 5 s paper's experiment: bounds on the RMS and the
#: largest difference [display unit] per signal (measured values in the docstring).
COUPLED_BOUNDS = {
    "x_p": (1.5, 6.0),  # mm
    "v_p": (0.1, 4.0),  # m/s
    "p_A": (0.1, 4.0),  # bar
    "p_B": (0.2, 12.0),  # bar
}
FULL_STROKE_GAP = 2e-3  # s
END_PRESSURE_FRACTION = 0.01  # of p_S (p_A) and of p_T (p_B)
REALTIME_STOP = 0.3  # s
FMU_MEDIAN_SHARE = 0.1  # of the step, paced


def _require_fmus() -> None:
    for model in MODELS:
        require_fmu(model, FMI)


def _table(differences) -> str:
    return "\n".join(f"{d.name}: {d.rms:.4g} {d.unit} RMS, {d.max_abs:.4g} {d.unit} max" for d in differences)


@pytest.fixture(scope="module")
def result(report):
    _require_fmus()
    r = lift.run(stop=5.0, step=STEP, fmi=FMI, dist=DIST, out=None, quiet=True)
    figures = "; ".join(f"{d.name} {d.rms:.3g} {d.unit} RMS, {d.max_abs:.3g} {d.unit} max" for d in r.differences)
    gap = (r.full_stroke_coupled - r.full_stroke_monolithic) * 1e3 if r.full_stroke_coupled and r.full_stroke_monolithic else math.nan
    report.notes.append(
        f"MuJoCo lift + LiftHydraulics vs LiftActuator, 5 s at 1 ms: {figures}; full stroke {gap:+.2f} ms; "
        f"free-running real-time factor {r.timing.real_time_factor:.1f}, FMU doStep median "
        f"{r.timing.fmu.median * 1e6:.1f} us"
    )
    return r


def test_coupled_run_stays_near_the_monolithic_fmu(result):
    mc = result.machine
    # Both lift the load to full stroke, at nearly the same time.
    assert result.full_stroke_monolithic is not None and result.full_stroke_coupled is not None, (
        result.full_stroke_monolithic,
        result.full_stroke_coupled,
    )
    assert 1.28 < result.full_stroke_monolithic < 1.30, result.full_stroke_monolithic
    assert abs(result.full_stroke_coupled - result.full_stroke_monolithic) < FULL_STROKE_GAP, (
        result.full_stroke_coupled,
        result.full_stroke_monolithic,
    )
    bad = [
        d for d in result.differences if not (d.rms < COUPLED_BOUNDS[d.name][0] and d.max_abs < COUPLED_BOUNDS[d.name][1])
    ]
    assert not bad, "MuJoCo + LiftHydraulics vs LiftActuator:\n" + _table(result.differences)
    # Both end held at full stroke with p_A at the supply and p_B at the tank pressure.
    for traces in (result.coupled, result.monolithic):
        p_a, p_b = traces.array("p_A")[-1], traces.array("p_B")[-1]
        assert abs(p_a - mc.p_S) < END_PRESSURE_FRACTION * mc.p_S, p_a
        assert abs(p_b - mc.p_T) < END_PRESSURE_FRACTION * mc.p_T, p_b
        assert abs(traces.array("x_p")[-1] - mc.stroke) < 1e-3, traces.array("x_p")[-1]
    # The load rested on the lower stop until the command step.
    rest = result.coupled.time < lift.T_STEP
    assert np.max(np.abs(result.coupled.array("x_p")[rest])) < 1e-4


def test_mujoco_lift_has_the_fmus_mechanics():
    """The MJCF carries LiftActuator's mass, damping, friction, gravity and
    stroke, and under a constant force the slider reaches the speed the
    FMU's L6 gives: v(t) = v_inf (1 - exp(-k t / (m + M))), v_inf =
    (F - (m + M) g - Ff_max) / k."""
    _require_fmus()
    mc = lift.Machine.from_fmu(DIST / f"fmi{FMI}" / "LiftActuator.fmu")
    sim = lift.Lift(mc, STEP / 4)
    m = sim.model
    piston = m.body("piston").id
    assert m.body_subtreemass[piston] == pytest.approx(mc.m + mc.M, rel=1e-12)
    assert m.dof_damping[sim.qvel] == mc.k and m.dof_frictionloss[sim.qvel] == mc.Ff_max
    assert tuple(m.jnt_range[sim.joint.id]) == (0.0, mc.stroke) and m.jnt_limited[sim.joint.id]
    assert tuple(m.opt.gravity) == (0.0, 0.0, -mc.g)
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    # At rest on the lower stop with no force: it stays within micrometres of 0.
    sim.advance(0.0, 400)
    assert abs(sim.x_p) < 1e-5 and abs(sim.v_p) < 1e-6, (sim.x_p, sim.v_p)
    # Lifted by a constant force.
    force, duration = (mc.m + mc.M) * mc.g + mc.Ff_max + 2000.0, 0.3
    sim.advance(force, round(duration / (STEP / 4)))
    v_inf = (force - (mc.m + mc.M) * mc.g - mc.Ff_max) / mc.k
    expected = v_inf * (1.0 - math.exp(-mc.k * duration / (mc.m + mc.M)))
    assert sim.v_p == pytest.approx(expected, rel=2e-3), (sim.v_p, expected)


def test_realtime_paces_to_the_wall_clock(report):
    _require_fmus()
    paced = lift.run(stop=REALTIME_STOP, step=STEP, fmi=FMI, dist=DIST, out=None, quiet=True, realtime=True)
    free = lift.run(stop=REALTIME_STOP, step=STEP, fmi=FMI, dist=DIST, out=None, quiet=True)
    tm = paced.timing
    report.notes.append(
        f"MuJoCo lift, {REALTIME_STOP} s paced to the wall clock: {tm.wall:.3f} s wall; FMU doStep median "
        f"{tm.fmu.median * 1e6:.1f} us, p99 {tm.fmu.p99 * 1e6:.1f} us, max {tm.fmu.max * 1e6:.1f} us; "
        f"MuJoCo median {tm.mujoco.median * 1e6:.1f} us; {tm.misses} deadline misses of {tm.steps}, "
        f"worst lateness {tm.worst_lateness * 1e6:.0f} us"
    )
    assert tm.realtime and tm.steps == round(REALTIME_STOP / STEP)
    assert tm.wall >= REALTIME_STOP, tm.wall
    assert tm.wall < REALTIME_STOP + 1.0, tm.wall
    assert tm.fmu.median < FMU_MEDIAN_SHARE * STEP, tm.fmu
    assert tm.busy.median < 0.5 * STEP, tm.busy
    assert 0 <= tm.misses <= tm.steps
    # Free-running is faster, and pacing changes the timing only, not the result.
    assert free.timing.wall < tm.wall, (free.timing.wall, tm.wall)
    for name in lift.RECORDED:
        assert np.array_equal(paced.coupled.array(name), free.coupled.array(name)), name


def test_command_line_writes_csv_and_png(tmp_path, capsys):
    _require_fmus()
    assert lift.main(["--stop", "1.5", "--fmi", str(FMI), "--dist", str(DIST), "--out", str(tmp_path), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "real-time factor" in printed and "x_p passes 990 mm" in printed, printed
    csv, png = tmp_path / "mujoco_lift.csv", tmp_path / "mujoco_lift.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    header = csv.read_text().splitlines()[0].split(",")
    assert header[0] == "time [s]" and len(header) == 1 + 2 * len(lift.RECORDED), header
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data.shape == (1501, len(header)) and data[-1, 0] == pytest.approx(1.5)
    # --realtime names its files apart and reports the deadlines.
    assert lift.main(["--stop", "0.1", "--dist", str(DIST), "--out", str(tmp_path), "--quiet", "--no-plot", "--realtime"]) == 0
    assert "deadline misses" in capsys.readouterr().out
    assert (tmp_path / "mujoco_lift_realtime.csv").is_file()


def test_missing_fmus_name_the_build_command(tmp_path, capsys):
    assert lift.main(["--dist", str(tmp_path), "--quiet"]) != 0
    assert "cargo run --release -p build-fmu" in capsys.readouterr().err
    done = subprocess.run(
        [sys.executable, str(TOOLS / "plot_lift.py"), "--dist", str(tmp_path), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "cargo run --release -p build-fmu" in done.stderr, done.stderr


def _number(printed: str, label: str, unit: str, column: int = 0) -> float:
    """The value in `column` (0: the FMU, 1: the reference) of the row `label`."""
    match = re.search(rf"^\s*{re.escape(label)}\s+(.*)$", printed, re.MULTILINE)
    assert match, f"no line {label!r} in:\n{printed}"
    values = re.findall(rf"(-?[0-9.]+) {re.escape(unit)}\b", match.group(1))
    assert len(values) > column, match.group(0)
    return float(values[column])


def test_plot_lift_draws_fig_4_with_the_published_numbers(tmp_path, report):
    require_fmu("LiftActuator", FMI)
    done = subprocess.run(
        [sys.executable, str(TOOLS / "plot_lift.py"), "--fmi", str(FMI), "--dist", str(DIST), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    png = tmp_path / "lift_fig4.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = done.stdout
    p_a = _number(out, "p_A at 1.05 s", "bar")
    full = _number(out, "x_p passes 990 mm", "s")
    report.notes.append(f"plot_lift.py: p_A(1.05 s) = {p_a:.3f} bar, x_p passes 990 mm at {full:.4f} s")
    assert p_a == pytest.approx(70.4, rel=0.02), out  # MODEL.md: 7.04 MPa
    assert abs(full - 1.29) < 0.010, out  # MODEL.md: 1.29 s
    assert _number(out, "p_A at 1.2 s", "bar") == pytest.approx(59.4, rel=0.02), out
    assert _number(out, "peak v_p", "m/s") == pytest.approx(4.19, rel=0.01), out
    assert _number(out, "p_A at 1.5 s", "bar") == pytest.approx(76.0, rel=0.001), out
    assert _number(out, "p_B at 1.5 s", "bar") == pytest.approx(1.0, rel=0.01), out
    if lift.REPO.joinpath("validation/scenarios/LiftActuator/lift_100kg/LiftActuator_ref.csv").is_file():
        # The reference column is read from the right columns of the trace.
        assert "reference trace:" in out, out
        assert _number(out, "p_A at 1.05 s", "bar", column=1) == pytest.approx(p_a, abs=0.01), out
        assert _number(out, "x_p passes 990 mm", "s", column=1) == pytest.approx(full, abs=1e-3), out
    # Without the reference it still plots, and says why there is no overlay.
    done = subprocess.run(
        [sys.executable, str(TOOLS / "plot_lift.py"), "--dist", str(DIST), "--out", str(tmp_path / "alone"),
         "--ref", str(tmp_path / "no_such.csv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "no reference trace" in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "alone" / "lift_fig4.png").is_file()
