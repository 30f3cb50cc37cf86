#!/usr/bin/env python3
"""The four-bar linkage alone in MuJoCo beside the FourBarMechanism FMU, in
one run: speed against accuracy on the scenario FourBarMechanism/
sine_linear_force (the cylinder force of the FourBar reference held every
10 ms, 5 s, at rest at s = s0 at the start).

MuJoCo steps the linkage of cosim_mujoco_four_bar.py (three hinged bars, the
loop closed by an equality constraint, the force on a tendon from D to G)
with each of its integrators at a range of time steps; the master sets the
force once per 1 ms communication step and advances with one
``mj_step(..., nstep)`` call, as bench-realtime calls fmi3DoStep once per
step. Each configuration's theta trace is compared with the scenario's
reference (relative RMS in % of the mean |theta|, as the harness does), and
its wall time is the fastest of ``--repeat`` rounds, pinned to one core
like bench-realtime's.

The FMU's row comes from bench-realtime itself (run as a child process in
the same invocation, pinned to the same core): FourBarMechanism at its
default tolerances (one Rodas3 substep per 1 ms step; looser tolerances
take the same substeps), with its error against the same reference.

The table ends with the fastest MuJoCo configuration within the scenario's
bound (0.1 %) and within the FMU's own error, and the ratio of the FMU's
speed to it.

From the repository root, after ``cargo run --release -p build-fmu`` and
``cargo build --release -p validation --bin bench-realtime``:

    target/venv/bin/python validation/python/tools/bench_mujoco_four_bar.py
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import mujoco
import numpy as np
from fmpy import read_model_description

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cosim_mujoco_four_bar import Linkage, MujocoOptions, mjcf  # noqa: E402
from harness.compare import read_trace  # noqa: E402
from harness.metrics import relative_rms_percent  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
SCENARIO = REPO / "validation" / "scenarios" / "FourBarMechanism" / "sine_linear_force"
#: The scenario's bound on theta, relative RMS in %.
BOUND_PERCENT = 0.1
#: Communication step, s.
H = 1e-3
#: The CPU bench-realtime pins itself to.
CPU = 1


def read_csv(path: Path) -> dict[str, np.ndarray]:
    """A scenario's CSV file as arrays (the harness's reader)."""
    return {name: np.array(values) for name, values in read_trace(path).items()}


def rel_rms_percent(t: np.ndarray, y: np.ndarray, ref: dict[str, np.ndarray], name: str) -> float:
    """The harness's relative RMS in % of `y` (interpolated onto the
    reference grid) against the reference signal `name`."""
    r = ref[name]
    return relative_rms_percent(np.interp(ref["time"], t, y) - r, r)


def run_mujoco(link: Linkage, integrator: str, dt: float, forces: dict[str, np.ndarray], stop: float, repeat: int):
    """theta every H and the fastest wall time of `repeat` rounds [s]."""
    opt = MujocoOptions(timestep=dt, integrator=integrator)
    theta0 = link.theta_at(link.s0)
    model = mujoco.MjModel.from_xml_string(mjcf(link, theta0, opt))
    data = mujoco.MjData(model)
    crank = model.joint("crank").qposadr[0]
    nstep = round(H / dt)
    n = round(stop / H)
    # The force held over each 10 ms row (step interpolation), per 1 ms step.
    rows = forces["time"]
    held = forces["F"][np.clip(np.searchsorted(rows, np.arange(n) * H + 1e-9, side="right") - 1, 0, len(rows) - 1)]
    best, theta = math.inf, None
    for _ in range(repeat):
        mujoco.mj_resetData(model, data)
        mujoco.mj_forward(model, data)
        out = np.empty(n + 1)
        out[0] = theta0 + data.qpos[crank]
        started = time.perf_counter()
        for k in range(n):
            data.ctrl[0] = held[k]
            mujoco.mj_step(model, data, nstep)
            out[k + 1] = data.qpos[crank]
        wall = time.perf_counter() - started
        out[1:] += theta0
        if wall < best:
            best, theta = wall, out
    return np.arange(n + 1) * H, theta, best


def run_fmu(repeat: int) -> list[tuple[str, float, float]]:
    """(configuration, x real time, theta rel RMS %) rows of bench-realtime."""
    exe = REPO / "target" / "release" / "bench-realtime"
    if not exe.is_file():
        raise SystemExit(f"{exe} is missing: cargo build --release -p validation --bin bench-realtime")
    args = [str(exe), "--circuit", "FourBarMechanism/sine_linear_force", "--only", "Rodas3 (default)", "--repeat", str(repeat), "--errors"]
    text = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout
    rows, current = [], None
    for line in text.splitlines():
        m = re.match(r"^(Rodas3 \S+(?: \S+)*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s", line)
        if m:
            current = [m.group(1).strip(), float(m.group(3)), math.nan]
            rows.append(current)
            continue
        m = re.search(r"^\s+errors:.*\btheta ([0-9.eE+-]+) %", line)
        if m and current is not None and math.isnan(current[2]):
            current[2] = float(m.group(1))
    if not rows:
        raise SystemExit("bench-realtime printed no Rodas3 row:\n" + text)
    return [tuple(r) for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="rounds per configuration (fastest kept)")
    ap.add_argument("--steps", default="1e-3,5e-4,2e-4,1e-4,5e-5,2e-5", help="MuJoCo time steps, s")
    ap.add_argument("--integrators", default="Euler,implicitfast,RK4", help="MuJoCo integrators")
    args = ap.parse_args(argv)
    try:
        os.sched_setaffinity(0, {CPU})
    except (AttributeError, OSError):
        pass
    md = read_model_description(str(REPO / "dist" / "fmi3" / "FourBarMechanism.fmu"))
    link = Linkage.from_fmu(md)
    forces = read_csv(SCENARIO / "FourBarMechanism_in.csv")
    ref = read_csv(SCENARIO / "FourBarMechanism_ref.csv")
    stop = float(ref["time"][-1])

    print(f"FourBarMechanism/sine_linear_force ({stop:g} s at h = {H * 1e3:g} ms), pinned to CPU {CPU}, fastest of {args.repeat} rounds")
    print(f"{'engine':<12} {'configuration':<34} {'x real time':>12} {'theta rel RMS %':>16}")
    fmu_rows = run_fmu(args.repeat)
    for name, speed, err in fmu_rows:
        print(f"{'FMU':<12} {name:<34} {speed:>12.0f} {err:>16.3g}")
    mujoco_rows = []
    for integrator in args.integrators.split(","):
        for dt in (float(v) for v in args.steps.split(",")):
            t, theta, wall = run_mujoco(link, integrator, dt, forces, stop, args.repeat)
            err = rel_rms_percent(t, theta, ref, "theta")
            speed = stop / wall
            mujoco_rows.append((f"{integrator}, dt = {dt:g} s", speed, err))
            print(f"{'MuJoCo':<12} {mujoco_rows[-1][0]:<34} {speed:>12.0f} {err:>16.3g}")
    default = fmu_rows[0]
    print()
    for label, bound in (("the scenario's bound", BOUND_PERCENT), ("the FMU's own error", default[2])):
        inside = [r for r in mujoco_rows if r[2] <= bound]
        if not inside:
            print(f"within {label} ({bound:.3g} %): no MuJoCo configuration")
            continue
        best = max(inside, key=lambda r: r[1])
        print(
            f"within {label} ({bound:.3g} %): fastest MuJoCo {best[0]} at {best[1]:.0f}x real time "
            f"({best[2]:.3g} %); FourBarMechanism ({default[0]}) {default[1]:.0f}x, {default[1] / best[1]:.2f} times as fast"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
