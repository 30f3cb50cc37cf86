#!/usr/bin/env python3
"""Co-simulation of the FourBarActuator FMU (the four-bar's hydraulics) with
a MuJoCo model of the four-bar linkage, compared with the monolithic FourBar
FMU: the example to start from when a multibody engine supplies the
mechanics and the FMU supplies the hydraulic cylinder.

The linkage is written below as an MJCF string: three uniform slender bars
(crank, coupler, rocker) on hinges, the coupler tied to the rocker tip by an
equality ``connect`` constraint that closes the loop, gravity, no contacts.
The FMUs' plane (x right, y up) is MuJoCo's x-z plane: a point (x, y) sits
at (x, 0, y), gravity points along -z, every hinge turns about -y so that a
positive angle turns counter-clockwise in the (x, y) picture, as the FMUs
count theta. Lengths, masses and pivots are read from the FourBar FMU's
parameter start values, so the two models describe the same linkage.

The cylinder is a spatial tendon from the ground point D to the crank's
centre G with a motor on it: the tendon's length and rate are the
cylinder's s and s_dot, and the motor's force acts along D->G on both ends
(positive extends the cylinder), following the geometry at every MuJoCo step.

Master loop, communication step h (default 1 ms), MuJoCo step dt (default
0.1 ms, h/dt steps per exchange):
  1. read s, s_dot from MuJoCo at t;
  2. give U_ref(t), s, s_dot to FourBarActuator and read F_h;
  3. hold F_h on the motor while MuJoCo steps to t + h, and step the FMU
     from t to t + h.
The valve command is U_ref = 10 sin(0.4 pi t) V, sampled in the middle of
each 10 ms interval and held over it; the monolithic FourBar gets the same
staircase at the same communication step.

Prints the difference MuJoCo + FourBarActuator minus FourBar for theta, s,
p1, F_h (relative RMS in % and largest difference in deg, m, MPa, kN), the
largest loop-closure residual MuJoCo left, and the wall times; writes the
traces to target/cosim/mujoco_four_bar.csv and a plot to
target/cosim/mujoco_four_bar.png (``_real_2`` appended for that case).
``--rest`` checks the MuJoCo side alone instead: a constant cylinder force
(default the force that holds the linkage) must keep it at rest.

From the repository root, after ``cargo run --release -p build-fmu``:

    target/venv/bin/python validation/python/tools/cosim_mujoco_four_bar.py
    target/venv/bin/python validation/python/tools/cosim_mujoco_four_bar.py --case real-2
    target/venv/bin/python validation/python/tools/cosim_mujoco_four_bar.py --rest 2
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import mujoco
import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave

REPO = Path(__file__).resolve().parents[3]
DIST = Path(os.environ.get("FMU_DIST_DIR") or REPO / "dist")

#: Valve command: amplitude [V], angular frequency [rad/s], hold interval [s].
U_AMPLITUDE, U_OMEGA, U_HOLD = 10.0, 0.4 * math.pi, 0.01
#: Cases: valve curve preset of the FMUs (`curve`) and default stop time [s].
CASES = {"linear": (1, 5.0), "real-2": (3, 10.0)}
#: Compared signals: name, display unit, factor from SI.
SIGNALS = (("theta", "deg", 180.0 / math.pi), ("s", "m", 1.0), ("p1", "MPa", 1e-6), ("F_h", "kN", 1e-3))


def held_command(t: float) -> float:
    """U_ref [V] at time t: the sine taken mid-interval, held for U_HOLD."""
    k = math.floor(t / U_HOLD + 1e-9)
    return U_AMPLITUDE * math.sin(U_OMEGA * (k + 0.5) * U_HOLD)


# --------------------------------------------------------------------------
# The linkage in the FMUs' (x, y) frame: parameters, closed-form kinematics
# --------------------------------------------------------------------------


@dataclass
class Linkage:
    """Pivots A (crank), C (rocker), D (cylinder base) [m]; bar lengths [m]
    and masses [kg]; gravity [m/s2]; cylinder length at the start s0 [m]."""

    A: np.ndarray
    C: np.ndarray
    D: np.ndarray
    L: tuple[float, float, float]
    m: tuple[float, float, float]
    g: float
    s0: float

    @staticmethod
    def from_fmu(md) -> "Linkage":
        """The parameter start values of a FourBar model description."""
        start = {v.name: v.start for v in md.modelVariables if v.start is not None}
        p = {k: float(start[k]) for k in ("Ax", "Ay", "Cx", "Cy", "Dx", "Dy", "L1", "L2", "L3", "m1", "m2", "m3", "g", "s0")}
        return Linkage(
            A=np.array([p["Ax"], p["Ay"]]),
            C=np.array([p["Cx"], p["Cy"]]),
            D=np.array([p["Dx"], p["Dy"]]),
            L=(p["L1"], p["L2"], p["L3"]),
            m=(p["m1"], p["m2"], p["m3"]),
            g=p["g"],
            s0=p["s0"],
        )

    def pose(self, theta: float) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Crank tip B, coupler/rocker joint E, coupler angle phi2 and rocker
        angle phi3 at crank angle theta: E is where the circle of radius L2
        about B meets the circle of radius L3 about C, the upper of the two."""
        L1, L2, L3 = self.L
        B = self.A + L1 * np.array([math.cos(theta), math.sin(theta)])
        d = float(np.linalg.norm(self.C - B))
        along = (L2**2 - L3**2 + d**2) / (2.0 * d)
        across = math.sqrt(L2**2 - along**2)
        u = (self.C - B) / d
        normal = np.array([-u[1], u[0]])
        E = max((B + along * u + across * normal, B + along * u - across * normal), key=lambda p: p[1])
        return B, E, math.atan2(E[1] - B[1], E[0] - B[0]), math.atan2(E[1] - self.C[1], E[0] - self.C[0])

    def crank_centre(self, theta: float) -> np.ndarray:
        return self.A + 0.5 * self.L[0] * np.array([math.cos(theta), math.sin(theta)])

    def cylinder_length(self, theta: float) -> float:
        return float(np.linalg.norm(self.crank_centre(theta) - self.D))

    def theta_at(self, s: float) -> float:
        """The crank angle nearest 0 at which the cylinder is s long (Newton)."""
        theta = 0.0
        for _ in range(50):
            h = 1e-7
            slope = (self.cylinder_length(theta + h) - self.cylinder_length(theta - h)) / (2 * h)
            step = (self.cylinder_length(theta) - s) / slope
            theta -= step
            if abs(step) < 1e-15:
                break
        return theta

    def potential(self, theta: float) -> float:
        """Gravity's potential energy [J], zero at y = 0."""
        B, _, phi2, phi3 = self.pose(theta)
        (L1, L2, L3), (m1, m2, m3) = self.L, self.m
        heights = (
            self.A[1] + 0.5 * L1 * math.sin(theta),
            B[1] + 0.5 * L2 * math.sin(phi2),
            self.C[1] + 0.5 * L3 * math.sin(phi3),
        )
        return self.g * (m1 * heights[0] + m2 * heights[1] + m3 * heights[2])

    def holding_force(self, theta: float) -> float:
        """Cylinder force [N] that holds the linkage at rest at theta, by
        virtual work: F ds = dV."""
        h = 1e-6
        dv = self.potential(theta + h) - self.potential(theta - h)
        ds = self.cylinder_length(theta + h) - self.cylinder_length(theta - h)
        return float(dv / ds)


# --------------------------------------------------------------------------
# The MuJoCo model
# --------------------------------------------------------------------------


@dataclass
class MujocoOptions:
    """Solver settings: step [s], integrator, constraint time constant [s]
    (0: twice the step, the smallest MuJoCo accepts) and impedance."""

    timestep: float = 1e-4
    integrator: str = "RK4"
    timeconst: float = 0.0
    impedance: float = 0.9999
    iterations: int = 100
    tolerance: float = 1e-12


def _quat(angle: float) -> str:
    """Quaternion of a rotation by `angle` about -y (counter-clockwise in the x-z picture)."""
    return f"{math.cos(angle / 2)!r} 0 {-math.sin(angle / 2)!r} 0"


def _bar_inertia(mass: float, length: float) -> str:
    """Uniform slender bar along its x axis, about its centre: m L^2 / 12
    about the two cross axes; a token value about its own axis (which no
    hinge turns) because MuJoCo wants a positive inertia."""
    i = mass * length**2 / 12.0
    return f"{1e-6 * i!r} {i!r} {i!r}"


def mjcf(link: Linkage, theta0: float, opt: MujocoOptions) -> str:
    """The linkage assembled at crank angle theta0: every body frame is
    placed at its start pose, so qpos = 0 is the start and the loop closes
    there to round-off."""
    (L1, L2, L3), (m1, m2, m3) = link.L, link.m
    B, E, phi2, phi3 = link.pose(theta0)
    timeconst = opt.timeconst or 2.0 * opt.timestep
    imp = opt.impedance

    def xz(p) -> str:
        return f"{float(p[0])!r} 0 {float(p[1])!r}"

    return f"""<mujoco model="four-bar">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{opt.timestep!r}" integrator="{opt.integrator}" solver="Newton" jacobian="dense"
          iterations="{opt.iterations}" ls_iterations="50" tolerance="{opt.tolerance!r}" gravity="0 0 {-link.g!r}">
    <flag contact="disable"/>
  </option>
  <default>
    <geom type="capsule" size="0.05" contype="0" conaffinity="0" mass="0"/>
  </default>
  <worldbody>
    <site name="D" pos="{xz(link.D)}"/>
    <body name="crank" pos="{xz(link.A)}" quat="{_quat(theta0)}">
      <joint name="crank" type="hinge" axis="0 -1 0"/>
      <inertial pos="{L1 / 2!r} 0 0" mass="{m1!r}" diaginertia="{_bar_inertia(m1, L1)}"/>
      <geom fromto="0 0 0 {L1!r} 0 0"/>
      <site name="G" pos="{L1 / 2!r} 0 0"/>
      <body name="coupler" pos="{L1!r} 0 0" quat="{_quat(phi2 - theta0)}">
        <joint name="coupler" type="hinge" axis="0 -1 0"/>
        <inertial pos="{L2 / 2!r} 0 0" mass="{m2!r}" diaginertia="{_bar_inertia(m2, L2)}"/>
        <geom fromto="0 0 0 {L2!r} 0 0"/>
        <site name="coupler_end" pos="{L2!r} 0 0"/>
      </body>
    </body>
    <body name="rocker" pos="{xz(link.C)}" quat="{_quat(phi3)}">
      <joint name="rocker" type="hinge" axis="0 -1 0"/>
      <inertial pos="{L3 / 2!r} 0 0" mass="{m3!r}" diaginertia="{_bar_inertia(m3, L3)}"/>
      <geom fromto="0 0 0 {L3!r} 0 0"/>
      <site name="rocker_tip" pos="{L3!r} 0 0"/>
    </body>
  </worldbody>
  <equality>
    <connect name="loop" site1="coupler_end" site2="rocker_tip"
             solref="{timeconst!r} 1" solimp="{imp!r} {imp!r} 0.001 0.5 2"/>
  </equality>
  <tendon>
    <spatial name="cylinder"><site site="D"/><site site="G"/></spatial>
  </tendon>
  <actuator>
    <motor name="cylinder" tendon="cylinder" gear="1" ctrllimited="false"/>
  </actuator>
</mujoco>
"""


class Mechanism:
    """The MuJoCo linkage: step with a held cylinder force, read theta, s,
    s_dot and the loop-closure residual."""

    def __init__(self, link: Linkage, opt: MujocoOptions):
        self.theta0 = link.theta_at(link.s0)
        self.model = mujoco.MjModel.from_xml_string(mjcf(link, self.theta0, opt))
        self.data = mujoco.MjData(self.model)
        self.crank = self.model.joint("crank").qposadr[0]
        self.ends = (self.model.site("coupler_end").id, self.model.site("rocker_tip").id)
        mujoco.mj_forward(self.model, self.data)
        #: Largest loop residual [m] seen at any MuJoCo step so far.
        self.worst_residual = self.residual()

    def residual(self) -> float:
        """|coupler end - rocker tip| [m] at the last computed positions."""
        x = self.data.site_xpos
        return float(np.linalg.norm(x[self.ends[0]] - x[self.ends[1]]))

    @property
    def theta(self) -> float:
        return self.theta0 + float(self.data.qpos[self.crank])

    @property
    def s(self) -> float:
        return float(self.data.ten_length[0])

    @property
    def s_dot(self) -> float:
        return float(self.data.ten_velocity[0])

    def cylinder_from_sites(self) -> tuple[float, float]:
        """s and s_dot from the sites D and G directly, for a model without
        the tendon: the distance, and G's velocity along D->G (D is fixed).
        Such a model would apply F_h along D->G on the crank at G itself,
        e.g. with mj_applyFT into qfrc_applied before every step."""
        m, d = self.model, self.data
        base, pin = m.site("D").id, m.site("G").id
        axis = d.site_xpos[pin] - d.site_xpos[base]
        length = float(np.linalg.norm(axis))
        velocity = np.zeros(6)  # angular, then linear, in world axes
        mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_SITE, pin, velocity, 0)
        return length, float(axis @ velocity[3:] / length)

    def advance(self, force: float, duration: float) -> None:
        """Holds `force` [N] on the cylinder for `duration` s of MuJoCo steps."""
        dt = self.model.opt.timestep
        steps = round(duration / dt)
        if steps < 1 or abs(steps * dt - duration) > 1e-9 * duration:
            raise ValueError(f"{duration} s is not a whole number of MuJoCo steps of {dt} s")
        self.data.ctrl[0] = force
        for _ in range(steps):
            mujoco.mj_step(self.model, self.data)
            # mj_step leaves positions-derived fields at the step's start state
            self.worst_residual = max(self.worst_residual, self.residual())
        mujoco.mj_forward(self.model, self.data)
        self.worst_residual = max(self.worst_residual, self.residual())

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------
# FMUs through FMPy's low-level API
# --------------------------------------------------------------------------


class Slave:
    """One Co-Simulation instance of an FMI 2 or FMI 3 FMU."""

    def __init__(self, path: Path, name: str):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: build it with `cargo run --release -p build-fmu`")
        self.md = read_model_description(str(path))
        self.version = int(self.md.fmiVersion[0])
        self.unzipdir = extract(str(path))
        self.vars = {v.name: v for v in self.md.modelVariables}
        cls = FMU2Slave if self.version == 2 else FMU3Slave
        self.fmu = cls(
            guid=self.md.guid,
            unzipDirectory=self.unzipdir,
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate()

    def vr(self, names) -> list[int]:
        return [self.vars[n].valueReference for n in names]

    def set(self, **values) -> None:
        """Sets Float64/Real and Int32/Integer variables by name."""
        for name, value in values.items():
            kind = self.vars[name].type
            if kind in ("Integer", "Int32"):
                (self.fmu.setInteger if self.version == 2 else self.fmu.setInt32)(self.vr([name]), [int(value)])
            else:
                self.set_vr(self.vr([name]), [float(value)])

    def set_vr(self, vrs: list[int], values: list[float]) -> None:
        (self.fmu.setReal if self.version == 2 else self.fmu.setFloat64)(vrs, values)

    def get_vr(self, vrs: list[int]) -> list[float]:
        return list((self.fmu.getReal if self.version == 2 else self.fmu.getFloat64)(vrs))

    def initialize(self, stop: float, **parameters) -> None:
        if self.version == 2:
            self.fmu.setupExperiment(startTime=0.0, stopTime=stop)
        self.set(**parameters)
        if self.version == 2:
            self.fmu.enterInitializationMode()
        else:
            self.fmu.enterInitializationMode(startTime=0.0, stopTime=stop)
        self.fmu.exitInitializationMode()

    def step(self, t: float, h: float) -> None:
        self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()
        shutil.rmtree(self.unzipdir, ignore_errors=True)


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------


@dataclass
class Traces:
    """Sampled traces (SI), one list per signal, and run figures."""

    time: list[float] = field(default_factory=list)
    values: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name, _, _ in SIGNALS})
    loop_residual: float = 0.0
    wall: float = 0.0
    wall_fmu: float = 0.0

    def add(self, t: float, row) -> None:
        self.time.append(t)
        for (name, _, _), value in zip(SIGNALS, row):
            self.values[name].append(value)

    def array(self, name: str) -> np.ndarray:
        return np.asarray(self.values[name])


def _progress(label: str, t: float, stop: float, started: float, quiet: bool) -> None:
    if not quiet:
        print(f"  {label}: t = {t:5.2f} of {stop:g} s, {time.perf_counter() - started:6.1f} s wall", flush=True)


def run_monolithic(path: Path, curve: int, stop: float, h: float, rtol: float, quiet: bool = False) -> tuple[Traces, float]:
    """FourBar at communication step h; also its p1 at t = 0 [Pa]."""
    started = time.perf_counter()
    fmu = Slave(path, "monolithic")
    out = Traces()
    try:
        fmu.initialize(stop, curve=curve, rtol=rtol, U_ref=held_command(0.0))
        u, outputs, residual = fmu.vr(["U_ref"]), fmu.vr([name for name, _, _ in SIGNALS]), fmu.vr(["loop_residual"])
        p1_0 = fmu.get_vr(fmu.vr(["p1"]))[0]
        n = round(stop / h)
        for k in range(n + 1):
            t = k * h
            fmu.set_vr(u, [held_command(t)])
            out.add(t, fmu.get_vr(outputs))
            out.loop_residual = max(out.loop_residual, fmu.get_vr(residual)[0])
            if k == n:
                break
            fmu.step(t, h)
            if (k + 1) % round(1.0 / h) == 0:
                _progress("FourBar", t + h, stop, started, quiet)
    finally:
        fmu.close()
    out.wall = time.perf_counter() - started
    return out, p1_0


class FmuMechanism:
    """The FourBarMechanism FMU behind the same interface as [`Mechanism`]:
    coupled the same way, it shows how much of the difference to FourBar
    is the exchange itself rather than MuJoCo's mechanics."""

    def __init__(self, path: Path, stop: float, rtol: float):
        self.fmu = Slave(path, "linkage")
        self.fmu.initialize(stop, rtol=rtol)
        self.force = self.fmu.vr(["F"])
        self.outputs = self.fmu.vr(["theta", "s", "s_dot", "loop_residual"])
        self.t = 0.0
        self._read()
        self.worst_residual = self.residual

    def _read(self) -> None:
        self.theta, self.s, self.s_dot, self.residual = self.fmu.get_vr(self.outputs)

    def advance(self, force: float, duration: float) -> None:
        self.fmu.set_vr(self.force, [force])
        self.fmu.step(self.t, duration)
        self.t += duration
        self._read()
        self.worst_residual = max(self.worst_residual, self.residual)

    def close(self) -> None:
        self.fmu.close()


def run_cosimulation(
    mech: Mechanism | FmuMechanism,
    path: Path | None,
    curve: int,
    stop: float,
    h: float,
    rtol: float,
    p1_0: float,
    force: float | None = None,
    quiet: bool = False,
) -> Traces:
    """The linkage `mech` (MuJoCo, or the FMU for comparison) coupled with
    FourBarActuator at communication step h. With `path` None the
    hydraulics are replaced by the constant `force` (the stand-in that
    checks the mechanics alone; p1 is then NaN)."""
    started = time.perf_counter()
    label = type(mech).__name__ if path else "constant force"
    fmu = None
    if path is not None:
        fmu = Slave(path, "hydraulics")
        fmu.initialize(stop, curve=curve, rtol=rtol, p1_0=p1_0, U_ref=held_command(0.0), s=mech.s, s_dot=mech.s_dot)
        inputs = fmu.vr(["U_ref", "s", "s_dot"])
        outputs = fmu.vr(["F_h", "p1"])
    out = Traces()
    try:
        n = round(stop / h)
        for k in range(n + 1):
            t = k * h
            theta, s, s_dot = mech.theta, mech.s, mech.s_dot
            if fmu is not None:
                tick = time.perf_counter()
                fmu.set_vr(inputs, [held_command(t), s, s_dot])
                f_h, p1 = fmu.get_vr(outputs)
                if k < n:
                    fmu.step(t, h)
                out.wall_fmu += time.perf_counter() - tick
            else:
                f_h, p1 = force, math.nan
            out.add(t, (theta, s, p1, f_h))
            if k == n:
                break
            mech.advance(f_h, h)
            if (k + 1) % round(1.0 / h) == 0:
                _progress(f"{label} + FourBarActuator", t + h, stop, started, quiet)
    finally:
        if fmu is not None:
            fmu.close()
        mech.close()
    out.loop_residual = mech.worst_residual
    out.wall = time.perf_counter() - started
    return out


@dataclass
class Difference:
    """Cosimulation minus monolithic for one signal (display units)."""

    name: str
    unit: str
    rel_rms_percent: float
    max_abs: float


def compare(run: Traces, reference: Traces) -> list[Difference]:
    """Relative RMS (RMS of the difference over the mean |reference|, %)
    and largest difference per signal, on the common samples."""
    result = []
    for name, unit, factor in SIGNALS:
        a, b = run.array(name), reference.array(name)
        diff = a - b
        rms = 100.0 * float(np.sqrt(np.mean(diff**2)) / np.mean(np.abs(b)))
        result.append(Difference(name, unit, rms, factor * float(np.max(np.abs(diff)))))
    return result


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def write_csv(path: Path, run: Traces, reference: Traces) -> None:
    header = ["time [s]"]
    columns = [np.asarray(run.time)]
    units = {"theta": "rad", "s": "m", "p1": "Pa", "F_h": "N"}
    for name, _, _ in SIGNALS:
        header += [f"{name} FourBar [{units[name]}]", f"{name} MuJoCo+FourBarActuator [{units[name]}]"]
        columns += [reference.array(name), run.array(name)]
    np.savetxt(path, np.column_stack(columns), delimiter=",", header=",".join(header), comments="", fmt="%.10e")


def plot(path: Path, run: Traces, reference: Traces, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(SIGNALS), 2, figsize=(13, 2.6 * len(SIGNALS)), sharex=True)
    t = np.asarray(run.time)
    for row, (name, unit, factor) in enumerate(SIGNALS):
        ref, ours = factor * reference.array(name), factor * run.array(name)
        left, right = axes[row]
        left.plot(t, ref, color="0.25", lw=1.6, label="FourBar (monolithic FMU)")
        left.plot(t, ours, color="tab:orange", lw=1.0, ls="--", label="MuJoCo + FourBarActuator")
        left.set_ylabel(f"{name} [{unit}]")
        right.plot(t, ours - ref, color="tab:orange", lw=0.9)
        right.set_ylabel(f"difference [{unit}]")
        right.set_title(f"{name}: MuJoCo + FourBarActuator - FourBar", fontsize=9)
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(loc="best", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@dataclass
class Result:
    """Everything a run measured (the test reads it)."""

    #: MuJoCo + FourBarActuator minus FourBar.
    differences: list[Difference]
    #: MuJoCo + FourBarActuator minus FourBarMechanism + FourBarActuator
    #: (same exchange: the mechanics alone).
    mechanics: list[Difference]
    cosim: Traces
    split: Traces
    monolithic: Traces
    holding_force: float
    p1_0_fmu: float
    written: list[Path]


def run(
    case: str = "linear",
    stop: float | None = None,
    step: float = 1e-3,
    opt: MujocoOptions | None = None,
    fmi: int = 3,
    dist: Path = DIST,
    rtol: float = 1e-8,
    out: Path | None = REPO / "target" / "cosim",
    plot_png: bool = True,
    quiet: bool = False,
) -> Result:
    """The co-simulation and the monolithic run of one case; writes the CSV
    and the plot into `out` (nothing when None) and returns the figures."""
    curve, default_stop = CASES[case]
    stop = default_stop if stop is None else stop
    opt = opt or MujocoOptions()
    folder = Path(dist) / f"fmi{fmi}"
    link = Linkage.from_fmu(read_model_description(str(folder / "FourBar.fmu")))
    holding = link.holding_force(link.theta_at(link.s0))
    if not quiet:
        print(f"FourBar, {case} valve curve, {stop:g} s, communication step {step * 1e3:g} ms (FMI {fmi})", flush=True)
    mono, p1_0 = run_monolithic(folder / "FourBar.fmu", curve, stop, step, rtol, quiet)
    # The hydraulics start holding the linkage: p1_0 A1 - p2_0 A2 = holding force.
    act_md = read_model_description(str(folder / "FourBarActuator.fmu"))
    start = {v.name: float(v.start) for v in act_md.modelVariables if v.name in ("A1", "A2", "p2_0")}
    p1_0_mujoco = (holding + start["p2_0"] * start["A2"]) / start["A1"]
    if not quiet:
        print(
            f"MuJoCo, {opt.integrator} at {opt.timestep * 1e3:g} ms; holding force {holding:.4f} N, "
            f"p1_0 = {p1_0_mujoco * 1e-6:.6f} MPa (FourBar starts at {p1_0 * 1e-6:.6f} MPa)",
            flush=True,
        )
    act = folder / "FourBarActuator.fmu"
    cosim = run_cosimulation(Mechanism(link, opt), act, curve, stop, step, rtol, p1_0_mujoco, quiet=quiet)
    split = FmuMechanism(folder / "FourBarMechanism.fmu", stop, rtol)
    split = run_cosimulation(split, act, curve, stop, step, rtol, p1_0_mujoco, quiet=quiet)
    written = []
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        stem = "mujoco_four_bar" + ("" if case == "linear" else "_" + case.replace("-", "_"))
        write_csv(out / f"{stem}.csv", cosim, mono)
        written.append(out / f"{stem}.csv")
        if plot_png:
            title = (
                f"MuJoCo linkage + FourBarActuator FMU vs monolithic FourBar FMU: {case} valve curve, "
                f"exchange every {step * 1e3:g} ms, MuJoCo {opt.integrator} at {opt.timestep * 1e3:g} ms"
            )
            plot(out / f"{stem}.png", cosim, mono, title)
            written.append(out / f"{stem}.png")
    return Result(compare(cosim, mono), compare(cosim, split), cosim, split, mono, holding, p1_0, written)


def rest_check(duration: float, opt: MujocoOptions, force: float | None = None, dist: Path = DIST, fmi: int = 3) -> dict:
    """The MuJoCo linkage alone under a constant cylinder force (default:
    the holding force) for `duration` s: how far it moves from rest."""
    link = Linkage.from_fmu(read_model_description(str(Path(dist) / f"fmi{fmi}" / "FourBar.fmu")))
    holding = link.holding_force(link.theta_at(link.s0))
    force = holding if force is None else force
    traces = run_cosimulation(Mechanism(link, opt), None, 1, duration, 1e-3, 1e-8, 0.0, force=force, quiet=True)
    theta, s = traces.array("theta"), traces.array("s")
    return {
        "holding_force": holding,
        "force": force,
        "theta_drift": float(np.max(np.abs(theta - theta[0]))),
        "s_drift": float(np.max(np.abs(s - s[0]))),
        "loop_residual": traces.loop_residual,
        "wall": traces.wall,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Co-simulate the FourBarActuator FMU with a MuJoCo four-bar linkage and compare "
        "with the monolithic FourBar FMU (U_ref = 10 sin(0.4 pi t) V, held over 10 ms).",
    )
    parser.add_argument("--case", choices=sorted(CASES), default="linear", help="valve curve and duration: linear 5 s, real-2 10 s (default: %(default)s)")
    parser.add_argument("--stop", type=float, help="stop time [s] (default: 5 for linear, 10 for real-2)")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s] (default: %(default)g)")
    parser.add_argument("--timestep", type=float, default=1e-4, help="MuJoCo step [s], divides --step (default: %(default)g)")
    parser.add_argument("--integrator", default="RK4", choices=("RK4", "implicitfast", "implicit", "Euler"), help="MuJoCo integrator (default: %(default)s)")
    parser.add_argument("--timeconst", type=float, default=0.0, help="time constant of the loop constraint [s]; 0: twice --timestep (default)")
    parser.add_argument("--fmi", type=int, choices=(2, 3), default=3, help="FMI version of the FMUs (default: %(default)s)")
    parser.add_argument("--dist", type=Path, default=DIST, help="folder with fmi2/ and fmi3/ (default: %(default)s, or $FMU_DIST_DIR)")
    parser.add_argument("--rtol", type=float, default=1e-8, help="relative tolerance of the FMUs' integrator (default: %(default)g)")
    parser.add_argument("--out", type=Path, default=REPO / "target" / "cosim", help="folder for the CSV and the PNG (default: %(default)s)")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    parser.add_argument("--rest", type=float, metavar="SECONDS", help="only check the MuJoCo linkage at rest under a constant force for SECONDS")
    parser.add_argument("--force", type=float, help="with --rest: the constant cylinder force [N] (default: the holding force)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    opt = MujocoOptions(timestep=args.timestep, integrator=args.integrator, timeconst=args.timeconst)

    if args.rest is not None:
        r = rest_check(args.rest, opt, args.force, args.dist, args.fmi)
        print(f"MuJoCo linkage under a constant cylinder force of {r['force']:.4f} N for {args.rest:g} s "
              f"(holding force {r['holding_force']:.4f} N), {opt.integrator} at {opt.timestep * 1e3:g} ms:")
        print(f"  largest theta drift {math.degrees(r['theta_drift']):.3e} deg, s drift {r['s_drift']:.3e} m, "
              f"loop residual at most {r['loop_residual']:.3e} m ({r['wall']:.2f} s wall)")
        return 0

    result = run(args.case, args.stop, args.step, opt, args.fmi, args.dist, args.rtol, args.out, not args.no_plot, args.quiet)
    print()
    print("MuJoCo + FourBarActuator minus, at every communication point:")
    print(f"  {'signal':<7}{'FourBar (monolithic)':>36}{'FourBarMechanism + FourBarActuator':>40}")
    print(f"  {'':<7}{'rel RMS [%]':>16}{'max |difference|':>20}{'rel RMS [%]':>20}{'max |difference|':>20}")
    for d, m in zip(result.differences, result.mechanics):
        print(f"  {d.name:<7}{d.rel_rms_percent:>16.4g}{d.max_abs:>15.4g} {d.unit:<4}"
              f"{m.rel_rms_percent:>20.4g}{m.max_abs:>15.4g} {m.unit}")
    print(f"loop residual: at most {result.cosim.loop_residual:.3e} m in MuJoCo (every MuJoCo step), "
          f"{result.monolithic.loop_residual:.3e} m in FourBar, {result.split.loop_residual:.3e} m in FourBarMechanism")
    print(f"wall time: MuJoCo + FourBarActuator {result.cosim.wall:.2f} s (of which FMU calls {result.cosim.wall_fmu:.2f} s), "
          f"FourBarMechanism + FourBarActuator {result.split.wall:.2f} s, FourBar {result.monolithic.wall:.2f} s")
    for path in result.written:
        print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
