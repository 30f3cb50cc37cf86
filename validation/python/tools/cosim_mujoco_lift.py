#!/usr/bin/env python3
"""A virtual environment for the lift: MuJoCo moves the piston and its
100 kg load, the LiftHydraulics FMU (servo valve and cylinder chambers)
supplies the cylinder force through FMI at a 1 ms communication step, in
free-running or wall-clock-paced (``--realtime``) mode; the result is
compared with the monolithic LiftActuator FMU on the same scenario.

The scenario is the paper's experiment of components/circuits/lift-circuit/MODEL.md
(scenario ``lift_100kg``): the valve command u = 0 until 1 s, then u = 1;
the load rests on the lower stop, is lifted at about 4.2 m/s, reaches full
stroke near 1.29 s, and p_A settles at p_S and p_B at p_T.

The MuJoCo model (MJCF written below): a vertical slide joint ``lift``
(x_p = qpos, 0 = retracted, limited to 0 .. stroke) carries the piston
body (m, a disc and a rod) and, welded to the rod's top (a child body
without a joint), the load body (M, a block): the moving mass is m + M.
The cylinder barrel and the base are world geoms, for the picture only.
Gravity is -g along z, the joint's axis. Every mechanical number comes
from the LiftActuator FMU's parameter start values, so the two models
describe the same machine:

- viscous friction k: the joint's ``damping``;
- dry friction Ff_max: the joint's ``frictionloss``, which MuJoCo solves
  as a constraint with a force bounded by Ff_max (Coulomb friction with
  stiction, softened by its default solref/solimp) where the FMU has the
  smooth Ff_max tanh(v_p / v_f) without stiction (MODEL.md R4);
- the end stops: the joint's limits. Their ``solreflimit`` takes MuJoCo's
  direct form (-stiffness, -damping), per unit of the constraint's
  effective mass m + M, set to k_s / (m + M) and c_s / (m + M): the same
  spring-damper as the FMU's push-only stops (R5), which MuJoCo's limit
  constraint is too (it only pushes). MuJoCo's default solimp (impedance
  0.9 .. 0.95) makes it about 10 % softer, so the piston rests 1.2 um
  into the lower stop and 8.7 um beyond the upper one where the FMU's
  penalty stops give 10.8 um and 78 um.
- the cylinder force: a ``motor`` actuator on the joint whose control is
  the FMU's F (N, positive extending).

MuJoCo's step: ``implicitfast`` at a quarter of the communication step
(0.25 ms, ``--substeps 4``). implicitfast integrates the joint damping
implicitly (here k / (m + M) = 9 1/s, harmless explicitly too, but it
stays stable if k is raised); dry friction and the limits are constraint
forces that the solver finds at every step, so the friction's stiffness
near rest costs nothing. The limits, though, are evaluated at the start of
each step and integrated semi-implicitly: a stop of sqrt(k_s / (m + M)) =
953 rad/s needs omega dt well below 2. At 1 ms (omega dt = 0.95) it is
stable but resolves the 4.2 m/s impact at full stroke badly (x_p up to
8 mm and p_A up to 6 bar away from the monolithic FMU's rebound); at
0.25 ms (0.24) the rebound matches to 2.5 mm and 1.4 bar, and 0.1 ms
changes little (2.4 mm, 2.3 bar). Four MuJoCo steps cost 25 to 40 us per
exchange.

Coupling (Gauss-Seidel, hydraulics first), every communication step
h = 1 ms, from t to t + h:
  1. give the FMU u(t) and the piston's x_p(t), v_p(t) from MuJoCo;
  2. FMU doStep t -> t + h (x_p and v_p held over the step: explicit in
     the mechanics, the flow term v_p S_A lags by half a step on average);
  3. read F(t + h) (it depends on the FMU's states only: no feedthrough);
  4. hold F(t + h) on the motor while MuJoCo steps t -> t + h (the force
     from the end of the interval: it leads by half a step, which is
     why the coupled lift reaches full stroke about 0.6 ms early).
The monolithic LiftActuator gets the same u(t) at the same step.

Timing. Each communication step records how long the FMU's doStep took,
how long MuJoCo's steps took and how long the whole step took (exchange,
doStep, MuJoCo, bookkeeping), printed as median, p99, p99.9 and max in us
and in % of the step. Free-running (default), the loop runs as fast as it
can and the real-time factor is simulated time / wall time.
``--realtime`` paces the loop to the wall clock: step k may start at
start + k h and must finish by start + (k + 1) h (its deadline); after its
work the loop sleeps to about 0.2 ms before the deadline and spins the
rest. A step that ends after its deadline is a miss; the next step then
starts at once (the schedule stays absolute, so the loop catches up). The
report gives the latest start after a step's release time beside the
longest step, which tells a late wake-up by the operating system (on a
shared 2-core machine, idle: 3 misses in 5000 steps, each a start 2.5 to
3.5 ms late, while no step took more than 0.31 ms) from a step whose work
overran.
Python's cyclic garbage collector is paused during the loop (a
collection would show up as a latency spike that neither the FMU nor
MuJoCo caused; what the loop leaves is collected after it). The
monolithic run that follows is never paced.

The coupled run differs from the monolithic one because of (a) the
exchange: x_p, v_p held over each FMU step and the end-of-interval force
held over each MuJoCo step, about half a step of lead in the motion
(0.5 mm RMS in x_p, the full-stroke time 0.6 ms early); (b) the stops:
MuJoCo's soft limit constraint (impedance, semi-implicit integration)
against the FMU's penalty spring-damper, visible in the rebound at full
stroke (the largest differences of x_p, v_p and p_B) and in the resting
positions (micrometres); (c) the friction: MuJoCo's friction loss holds
the load with stiction, the FMU's tanh law has none (differences at the
start of the motion and at rest, tiny here because the load rests on the
stops). Both settle at p_A = p_S and p_B = p_T.

Writes target/cosim/mujoco_lift.csv (time, coupled and monolithic x_p,
v_p, p_A, p_B, F in SI units; ``_realtime`` appended to the name with
--realtime) and the plot mujoco_lift.png (mm, m/s, bar): x_p, v_p, p_A
and p_B against time, coupled vs monolithic, over the whole run and
around the lift.

From the repository root, after ``cargo run --release -p build-fmu``:

    target/venv/bin/python validation/python/tools/cosim_mujoco_lift.py
    target/venv/bin/python validation/python/tools/cosim_mujoco_lift.py --realtime
    target/venv/bin/python validation/python/tools/cosim_mujoco_lift.py --fmi 2 --stop 2 --no-plot
"""

from __future__ import annotations

import argparse
import gc
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
BUILD_HINT = "build it with `cargo run --release -p build-fmu`"

#: The paper's experiment: valve command before and after the step, step time [s].
U_BEFORE, U_AFTER, T_STEP = 0.0, 1.0, 1.0
#: Full stroke is taken to be reached when x_p passes this fraction of the stroke.
FULL_STROKE_FRACTION = 0.99
#: Compared signals: name, display unit, factor from SI.
SIGNALS = (("x_p", "mm", 1e3), ("v_p", "m/s", 1.0), ("p_A", "bar", 1e-5), ("p_B", "bar", 1e-5))
#: Recorded signals (SI): the compared ones and the cylinder force.
RECORDED = ("x_p", "v_p", "p_A", "p_B", "F")
#: With --realtime, sleep until this long before a deadline, then spin [s].
SPIN = 2e-4


def command(t: float, h: float) -> float:
    """The valve command u(t) of the paper's experiment (u = 1 from T_STEP on)."""
    return U_AFTER if t >= T_STEP - 1e-9 * h else U_BEFORE


class FmiError(RuntimeError):
    """An FMI call failed; the message names the call, the time and what the FMU logged."""


# --------------------------------------------------------------------------
# FMUs through FMPy's low-level API
# --------------------------------------------------------------------------


class Slave:
    """One Co-Simulation instance of an FMI 2 or FMI 3 FMU. FMI 3 log
    messages are kept and quoted in the error of a failed call; FMI 2
    messages go to FMPy's default logger (printed)."""

    def __init__(self, path: Path, name: str):
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: {BUILD_HINT}")
        self.model = path.stem
        self.md = read_model_description(str(path))
        self.version = int(self.md.fmiVersion[0])
        self.unzipdir = extract(str(path))
        self.vars = {v.name: v for v in self.md.modelVariables}
        self.messages: list[str] = []
        self.t = 0.0
        cls = FMU2Slave if self.version == 2 else FMU3Slave
        self.fmu = cls(
            guid=self.md.guid,
            unzipDirectory=self.unzipdir,
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self._call("instantiate", self._instantiate)
        if self.version == 2:
            self._get, self._set = self.fmu.getReal, self.fmu.setReal
        else:
            self._get, self._set = self.fmu.getFloat64, self.fmu.setFloat64

    def _instantiate(self) -> None:
        if self.version == 2:
            self.fmu.instantiate()
        else:

            def log(_env, status, _category, message) -> None:
                label = ["OK", "WARNING", "DISCARD", "ERROR", "FATAL", "PENDING"][status] if 0 <= status <= 5 else str(status)
                self.messages.append(f"[{label}] {message.decode('utf-8', 'replace')}")

            self.fmu.instantiate(logMessage=log)

    def _call(self, what: str, function, *args):
        try:
            return function(*args)
        except Exception as e:  # noqa: BLE001 - FMPy's FMICallException, or any other failure of the call
            if isinstance(e, FmiError):
                raise
            said = "; ".join(self.messages[-5:]) if self.messages else (
                "its messages are printed above" if self.version == 2 else "it logged nothing"
            )
            raise FmiError(f"{self.model} (FMI {self.version}): {what} failed at t = {self.t:.6g} s: {e} ({said})") from e

    def vr(self, names) -> list[int]:
        missing = [n for n in names if n not in self.vars]
        if missing:
            raise FmiError(f"{self.model} has no variable {', '.join(missing)}: rebuild the FMUs ({BUILD_HINT})")
        return [self.vars[n].valueReference for n in names]

    def start(self, name: str) -> float:
        """A parameter's start value from the model description."""
        return float(self.vars[name].start)

    def set_vr(self, vrs: list[int], values: list[float]) -> None:
        self._call("set", self._set, vrs, values)

    def get_vr(self, vrs: list[int]) -> list[float]:
        return self._call("get", self._get, vrs)

    def initialize(self, stop: float, rtol: float | None, inputs: dict[str, float]) -> None:
        def init() -> None:
            if self.version == 2:
                self.fmu.setupExperiment(startTime=0.0, stopTime=stop)
            if rtol is not None:
                self._set(self.vr(["rtol"]), [rtol])
            self._set(self.vr(list(inputs)), list(inputs.values()))
            if self.version == 2:
                self.fmu.enterInitializationMode()
            else:
                self.fmu.enterInitializationMode(startTime=0.0, stopTime=stop)
            self.fmu.exitInitializationMode()

        self._call("initialization", init)

    def step(self, t: float, h: float) -> None:
        """doStep from t to t + h; `self.t` is the FMU's communication point."""
        self.t = t
        if self.version == 2:
            self._call("doStep", self.fmu.doStep, t, h)
        else:
            _, terminate, early, _ = self._call("doStep", self.fmu.doStep, t, h)
            if terminate or early:
                raise FmiError(f"{self.model}: doStep at t = {t:.6g} s asked to terminate or returned early")
        self.t = t + h

    def close(self) -> None:
        try:
            self.fmu.terminate()
        except Exception:  # noqa: BLE001 - closing after a failure
            pass
        try:
            self.fmu.freeInstance()
        finally:
            shutil.rmtree(self.unzipdir, ignore_errors=True)


# --------------------------------------------------------------------------
# The machine and the MuJoCo model
# --------------------------------------------------------------------------


@dataclass
class Machine:
    """The mechanical parameters (SI) of the LiftActuator FMU: piston mass
    m, load M, gravity g, viscous k, dry friction Ff_max, stroke, end-stop
    stiffness k_s and damping c_s, piston and annulus areas S_A, S_B, the
    supply and tank pressures."""

    m: float
    M: float
    g: float
    k: float
    Ff_max: float
    stroke: float
    k_s: float
    c_s: float
    S_A: float
    S_B: float
    p_S: float
    p_T: float

    @staticmethod
    def from_fmu(path: Path) -> "Machine":
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: {BUILD_HINT}")
        md = read_model_description(str(path))
        start = {v.name: v.start for v in md.modelVariables if v.start is not None}
        names = ("m", "M", "g", "k", "Ff_max", "stroke", "k_s", "c_s", "S_A", "S_B", "p_S", "p_T")
        missing = [n for n in names if n not in start]
        if missing:
            raise FmiError(f"{path} has no parameter {', '.join(missing)}: rebuild the FMUs ({BUILD_HINT})")
        return Machine(**{n: float(start[n]) for n in names})

    @property
    def mass(self) -> float:
        return self.m + self.M


def mjcf(machine: Machine, timestep: float) -> str:
    """The lift: a barrel on a base (world geoms), the piston with its rod
    on a vertical slide joint, the load block welded to the rod's top."""
    mc = machine
    mass = mc.mass
    stroke = mc.stroke
    rod = stroke + 0.25  # rod length [m]: it stands out of the barrel when retracted
    return f"""<mujoco model="lift">
  <compiler autolimits="true"/>
  <option timestep="{timestep!r}" integrator="implicitfast" gravity="0 0 {-mc.g!r}">
    <flag contact="disable"/>
  </option>
  <visual><global azimuth="120" elevation="-15"/></visual>
  <default>
    <geom contype="0" conaffinity="0" mass="0"/>
  </default>
  <worldbody>
    <light pos="1 -1 3" dir="-0.3 0.3 -1"/>
    <geom name="base" type="box" pos="0 0 -0.1" size="0.4 0.4 0.02" rgba="0.3 0.3 0.3 1"/>
    <geom name="barrel" type="cylinder" fromto="0 0 -0.08 0 0 {stroke + 0.05!r}" size="0.06" rgba="0.6 0.6 0.65 0.35"/>
    <body name="piston" pos="0 0 0">
      <joint name="lift" type="slide" axis="0 0 1" range="0 {stroke!r}" damping="{mc.k!r}"
             frictionloss="{mc.Ff_max!r}" solreflimit="{-mc.k_s / mass!r} {-mc.c_s / mass!r}"/>
      <inertial pos="0 0 0" mass="{mc.m!r}" diaginertia="0.01 0.01 0.01"/>
      <geom name="piston" type="cylinder" fromto="0 0 -0.03 0 0 0" size="0.055" rgba="0.2 0.4 0.8 1"/>
      <geom name="rod" type="capsule" fromto="0 0 0 0 0 {rod!r}" size="0.02" rgba="0.8 0.8 0.85 1"/>
      <body name="load" pos="0 0 {rod!r}">
        <inertial pos="0 0 0.1" mass="{mc.M!r}" diaginertia="1 1 1"/>
        <geom name="load" type="box" pos="0 0 0.1" size="0.2 0.2 0.1" rgba="0.85 0.45 0.1 1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="cylinder" joint="lift" gear="1" ctrllimited="false"/>
  </actuator>
</mujoco>
"""


class Lift:
    """The MuJoCo lift: hold a cylinder force for a number of steps, read x_p, v_p."""

    def __init__(self, machine: Machine, timestep: float):
        self.model = mujoco.MjModel.from_xml_string(mjcf(machine, timestep))
        self.data = mujoco.MjData(self.model)
        self.joint = self.model.joint("lift")
        self.qpos, self.qvel = self.joint.qposadr[0], self.joint.dofadr[0]
        mujoco.mj_forward(self.model, self.data)

    @property
    def x_p(self) -> float:
        return float(self.data.qpos[self.qpos])

    @property
    def v_p(self) -> float:
        return float(self.data.qvel[self.qvel])

    def advance(self, force: float, nstep: int) -> None:
        self.data.ctrl[0] = force
        mujoco.mj_step(self.model, self.data, nstep)


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------


@dataclass
class Traces:
    """Sampled traces (SI) at the communication points."""

    time: np.ndarray
    values: dict[str, np.ndarray]
    wall: float = 0.0

    @staticmethod
    def empty(n: int) -> "Traces":
        return Traces(np.arange(n + 1) * 0.0, {name: np.full(n + 1, np.nan) for name in RECORDED})

    def array(self, name: str) -> np.ndarray:
        return self.values[name]

    def full_stroke_time(self, stroke: float) -> float | None:
        """When x_p first passes FULL_STROKE_FRACTION of the stroke
        (linear interpolation between samples), None if it never does."""
        x, level = self.values["x_p"], FULL_STROKE_FRACTION * stroke
        above = np.nonzero(x > level)[0]
        if len(above) == 0:
            return None
        i = int(above[0])
        if i == 0:
            return float(self.time[0])
        return float(self.time[i - 1] + (level - x[i - 1]) / (x[i] - x[i - 1]) * (self.time[i] - self.time[i - 1]))


@dataclass
class Stats:
    """Percentiles of one per-step duration [s]."""

    median: float
    p99: float
    p999: float
    max: float

    @staticmethod
    def of(samples: np.ndarray) -> "Stats":
        p = np.percentile(samples, [50.0, 99.0, 99.9])
        return Stats(float(p[0]), float(p[1]), float(p[2]), float(np.max(samples)))


@dataclass
class Timing:
    """How the coupled loop used the wall clock."""

    step: float
    steps: int
    realtime: bool
    wall: float
    fmu: Stats
    mujoco: Stats
    busy: Stats
    #: Steps that finished after their deadline (realtime only), and the worst lateness [s].
    misses: int = 0
    worst_lateness: float = 0.0
    #: Realtime only: how late [s] the latest step started after its release
    #: time start + k h (a late wake-up, or the catching up after a miss).
    worst_start_delay: float = 0.0
    #: Raw per-step durations [s] (doStep, MuJoCo, whole step).
    samples: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def simulated(self) -> float:
        return self.steps * self.step

    @property
    def real_time_factor(self) -> float:
        """Simulated time over wall time (above 1: faster than real time)."""
        return self.simulated / self.wall if self.wall > 0 else math.inf


def _progress(label: str, t: float, stop: float, started: float, quiet: bool) -> None:
    if not quiet:
        print(f"  {label}: t = {t:5.2f} of {stop:g} s, {time.perf_counter() - started:6.2f} s wall", flush=True)


def _every(h: float) -> int:
    """Progress every simulated second (every step if the step is longer)."""
    return max(1, round(1.0 / h))


def run_monolithic(path: Path, machine: Machine, stop: float, h: float, rtol: float | None, quiet: bool = False) -> Traces:
    """LiftActuator at communication step h on the paper's experiment."""
    started = time.perf_counter()
    n = round(stop / h)
    out = Traces.empty(n)
    fmu = Slave(path, "monolithic")
    try:
        fmu.initialize(stop, rtol, {"u": command(0.0, h), "F_ext": 0.0})
        u = fmu.vr(["u"])
        outputs = fmu.vr(["x_p", "v_p", "p_A", "p_B"])
        for k in range(n + 1):
            t = k * h
            x_p, v_p, p_a, p_b = fmu.get_vr(outputs)
            out.time[k] = t
            for name, value in zip(RECORDED, (x_p, v_p, p_a, p_b, p_a * machine.S_A - p_b * machine.S_B)):
                out.values[name][k] = value
            if k == n:
                break
            fmu.set_vr(u, [command(t, h)])
            fmu.step(t, h)
            if (k + 1) % _every(h) == 0:
                _progress("LiftActuator", t + h, stop, started, quiet)
    finally:
        fmu.close()
    out.wall = time.perf_counter() - started
    return out


def run_coupled(
    path: Path,
    machine: Machine,
    stop: float,
    h: float,
    substeps: int,
    rtol: float | None,
    realtime: bool = False,
    quiet: bool = False,
) -> tuple[Traces, Timing]:
    """MuJoCo + LiftHydraulics at communication step h (Gauss-Seidel,
    hydraulics first; see the module's docstring), free-running or paced
    to the wall clock."""
    lift = Lift(machine, h / substeps)
    n = round(stop / h)
    out = Traces.empty(n)
    fmu = Slave(path, "hydraulics")
    t_fmu, t_mj, t_busy = np.zeros(n), np.zeros(n), np.zeros(n)
    misses, worst, worst_start = 0, -math.inf, 0.0
    label = "MuJoCo + LiftHydraulics" + (" (real time)" if realtime else "")
    clock, sleep = time.perf_counter, time.sleep
    gc_was_enabled = gc.isenabled()
    try:
        fmu.initialize(stop, rtol, {"u": command(0.0, h), "x_p": lift.x_p, "v_p": lift.v_p})
        inputs = fmu.vr(["u", "x_p", "v_p"])
        outputs = fmu.vr(["F", "p_A", "p_B"])
        force, p_a, p_b = fmu.get_vr(outputs)
        out.time[0] = 0.0
        for name, value in zip(RECORDED, (lift.x_p, lift.v_p, p_a, p_b, force)):
            out.values[name][0] = value
        every = _every(h)
        gc.disable()
        started = clock()
        for k in range(n):
            t = k * h
            begin = clock()
            fmu.set_vr(inputs, [command(t, h), lift.x_p, lift.v_p])
            a = clock()
            fmu.step(t, h)
            b = clock()
            force, p_a, p_b = fmu.get_vr(outputs)
            c = clock()
            lift.advance(force, substeps)
            d = clock()
            out.time[k + 1] = t + h
            for name, value in zip(RECORDED, (lift.x_p, lift.v_p, p_a, p_b, force)):
                out.values[name][k + 1] = value
            end = clock()
            t_fmu[k], t_mj[k], t_busy[k] = b - a, d - c, end - begin
            if realtime:
                deadline = started + (k + 1) * h
                late = end - deadline
                worst = max(worst, late)
                worst_start = max(worst_start, begin - (deadline - h))
                if late > 0.0:
                    misses += 1
            if (k + 1) % every == 0:
                _progress(label, t + h, stop, started, quiet)
            if realtime:
                wait = deadline - clock()
                if wait > SPIN:
                    sleep(wait - SPIN)
                while clock() < deadline:
                    pass
        wall = clock() - started
    finally:
        if gc_was_enabled:
            gc.enable()
        fmu.close()
    out.wall = wall
    timing = Timing(
        step=h,
        steps=n,
        realtime=realtime,
        wall=wall,
        fmu=Stats.of(t_fmu),
        mujoco=Stats.of(t_mj),
        busy=Stats.of(t_busy),
        misses=misses,
        worst_lateness=worst if realtime else 0.0,
        worst_start_delay=worst_start,
        samples={"fmu": t_fmu, "mujoco": t_mj, "busy": t_busy},
    )
    return out, timing


@dataclass
class Difference:
    """Coupled minus monolithic for one signal (display units)."""

    name: str
    unit: str
    max_abs: float
    rms: float


def compare(run: Traces, reference: Traces) -> list[Difference]:
    """Largest and RMS difference per signal over the common samples."""
    result = []
    for name, unit, factor in SIGNALS:
        diff = factor * (run.array(name) - reference.array(name))
        result.append(Difference(name, unit, float(np.max(np.abs(diff))), float(np.sqrt(np.mean(diff**2)))))
    return result


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def write_csv(path: Path, run: Traces, reference: Traces) -> None:
    units = {"x_p": "m", "v_p": "m/s", "p_A": "Pa", "p_B": "Pa", "F": "N"}
    header, columns = ["time [s]"], [run.time]
    for name in RECORDED:
        header += [f"{name} MuJoCo+LiftHydraulics [{units[name]}]", f"{name} LiftActuator [{units[name]}]"]
        columns += [run.array(name), reference.array(name)]
    np.savetxt(path, np.column_stack(columns), delimiter=",", header=",".join(header), comments="", fmt="%.10e")


def plot(path: Path, run: Traces, reference: Traces, window: tuple[float, float], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(SIGNALS), 2, figsize=(13, 2.5 * len(SIGNALS)), gridspec_kw={"width_ratios": (1, 1.3)})
    t = run.time
    zoom = (t >= window[0]) & (t <= window[1])
    for row, (name, unit, factor) in enumerate(SIGNALS):
        for col, mask in enumerate((np.ones_like(zoom), zoom)):
            ax = axes[row][col]
            ax.plot(t[mask], factor * reference.array(name)[mask], color="0.25", lw=1.6, label="LiftActuator (monolithic FMU)")
            ax.plot(t[mask], factor * run.array(name)[mask], color="tab:orange", lw=1.0, ls="--", label="MuJoCo + LiftHydraulics")
            ax.set_ylabel(f"{name} [{unit}]")
            ax.grid(True, alpha=0.3)
    axes[0][0].set_title("whole run", fontsize=9)
    axes[0][1].set_title(f"the lift, {window[0]:.2f} .. {window[1]:.2f} s", fontsize=9)
    axes[0][0].legend(loc="best", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@dataclass
class Result:
    """Everything a run measured (the test reads it)."""

    machine: Machine
    coupled: Traces
    monolithic: Traces
    timing: Timing
    #: Coupled minus monolithic, per compared signal.
    differences: list[Difference]
    #: When x_p passes 0.99 of the stroke [s] (None: never).
    full_stroke_coupled: float | None
    full_stroke_monolithic: float | None
    written: list[Path]

    def difference(self, name: str) -> Difference:
        return next(d for d in self.differences if d.name == name)


def run(
    stop: float = 5.0,
    step: float = 1e-3,
    fmi: int = 3,
    dist: Path = DIST,
    out: Path | None = REPO / "target" / "cosim",
    plot_png: bool = True,
    quiet: bool = False,
    realtime: bool = False,
    substeps: int = 4,
    rtol: float | None = None,
) -> Result:
    """The coupled and the monolithic run of the paper's experiment; writes
    the CSV and the plot into `out` (nothing when None)."""
    if stop <= 0 or step <= 0 or substeps < 1:
        raise ValueError("--stop and --step must be positive and --substeps at least 1")
    if abs(round(stop / step) * step - stop) > 1e-9 * stop:
        raise ValueError(f"--stop {stop:g} s is not a whole number of communication steps of {step:g} s")
    folder = Path(dist) / f"fmi{fmi}"
    monolithic_fmu, hydraulics_fmu = folder / "LiftActuator.fmu", folder / "LiftHydraulics.fmu"
    for path in (monolithic_fmu, hydraulics_fmu):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: {BUILD_HINT}")
    machine = Machine.from_fmu(monolithic_fmu)
    if not quiet:
        mode = "paced to the wall clock" if realtime else "free-running"
        print(
            f"Lift, {stop:g} s, u = {U_AFTER:g} from {T_STEP:g} s, communication step {step * 1e3:g} ms (FMI {fmi}); "
            f"MuJoCo implicitfast at {step / substeps * 1e3:g} ms, {mode}",
            flush=True,
        )
    coupled, timing = run_coupled(hydraulics_fmu, machine, stop, step, substeps, rtol, realtime, quiet)
    mono = run_monolithic(monolithic_fmu, machine, stop, step, rtol, quiet)
    t_coupled, t_mono = coupled.full_stroke_time(machine.stroke), mono.full_stroke_time(machine.stroke)
    written: list[Path] = []
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        stem = "mujoco_lift" + ("_realtime" if realtime else "")
        write_csv(out / f"{stem}.csv", coupled, mono)
        written.append(out / f"{stem}.csv")
        if plot_png:
            ends = [x for x in (t_coupled, t_mono) if x is not None]
            window = (max(0.0, T_STEP - 0.05), min(stop, max(ends) + 0.15)) if ends and stop > T_STEP else (0.0, stop)
            title = (
                f"MuJoCo lift + LiftHydraulics FMU (FMI {fmi}) vs monolithic LiftActuator FMU: u = 1 from {T_STEP:g} s, "
                f"exchange every {step * 1e3:g} ms, MuJoCo implicitfast at {step / substeps * 1e3:g} ms"
            )
            plot(out / f"{stem}.png", coupled, mono, window, title)
            written.append(out / f"{stem}.png")
    return Result(machine, coupled, mono, timing, compare(coupled, mono), t_coupled, t_mono, written)


def _us(x: float) -> str:
    return f"{x * 1e6:9.1f}"


def report(result: Result) -> list[str]:
    """The printed summary."""
    tm, mc = result.timing, result.machine
    lines = [
        f"coupled loop ({'paced to the wall clock' if tm.realtime else 'free-running'}): {tm.simulated:g} s simulated "
        f"in {tm.wall:.3f} s wall, real-time factor {tm.real_time_factor:.2f} (simulated s per wall s)",
        f"  per {tm.step * 1e3:g} ms step        {'median':>9} {'p99':>9} {'p99.9':>9} {'max':>9}  [us]"
        f"    {'median':>7} {'p99':>7} {'p99.9':>7} {'max':>7}  [% of the step]",
    ]
    for label, s in (("FMU doStep", tm.fmu), ("MuJoCo steps", tm.mujoco), ("whole step", tm.busy)):
        values = (s.median, s.p99, s.p999, s.max)
        lines.append(
            f"  {label:<22}" + " ".join(_us(v) for v in values) + "      "
            + " ".join(f"{100.0 * v / tm.step:7.2f}" for v in values)
        )
    if tm.realtime:
        lines.append(
            f"  deadline misses: {tm.misses} of {tm.steps} steps; worst lateness {tm.worst_lateness * 1e6:.1f} us"
            + (" (negative: every step finished early)" if tm.worst_lateness < 0 else "")
            + f"; latest start {tm.worst_start_delay * 1e6:.1f} us after its release, longest step {tm.busy.max * 1e6:.1f} us"
        )
    lines.append(f"LiftActuator (monolithic) at the same step: {result.monolithic.wall:.3f} s wall")
    lines.append("MuJoCo + LiftHydraulics minus LiftActuator, at every communication point:")
    for d in result.differences:
        lines.append(f"  {d.name:<4} max |difference| {d.max_abs:10.4g} {d.unit:<4} RMS {d.rms:10.4g} {d.unit}")

    def when(x: float | None) -> str:
        return "never" if x is None else f"{x:.4f} s"

    level = FULL_STROKE_FRACTION * mc.stroke * 1e3
    gap = ""
    if result.full_stroke_coupled is not None and result.full_stroke_monolithic is not None:
        gap = f" (difference {(result.full_stroke_coupled - result.full_stroke_monolithic) * 1e3:+.2f} ms)"
    lines.append(
        f"x_p passes {level:g} mm: coupled {when(result.full_stroke_coupled)}, "
        f"monolithic {when(result.full_stroke_monolithic)}{gap}"
    )
    c, m = result.coupled, result.monolithic
    lines.append(
        f"at {c.time[-1]:g} s: p_A {c.array('p_A')[-1] * 1e-5:.4f} / {m.array('p_A')[-1] * 1e-5:.4f} bar, "
        f"p_B {c.array('p_B')[-1] * 1e-5:.4f} / {m.array('p_B')[-1] * 1e-5:.4f} bar (coupled / monolithic; "
        f"p_S {mc.p_S * 1e-5:g}, p_T {mc.p_T * 1e-5:g} bar)"
    )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Lift a 100 kg load with a MuJoCo slider driven by the LiftHydraulics FMU (u = 1 from 1 s), "
        "free-running or paced to the wall clock, and compare with the monolithic LiftActuator FMU.",
    )
    parser.add_argument("--stop", type=float, default=5.0, help="stop time [s] (default: %(default)g)")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s] (default: %(default)g)")
    parser.add_argument("--substeps", type=int, default=4, help="MuJoCo steps per communication step (default: %(default)d)")
    parser.add_argument("--fmi", type=int, choices=(2, 3), default=3, help="FMI version of the FMUs (default: %(default)s)")
    parser.add_argument("--dist", type=Path, default=DIST, help="folder with fmi2/ and fmi3/ (default: %(default)s, or $FMU_DIST_DIR)")
    parser.add_argument("--rtol", type=float, help="relative tolerance of the FMUs' integrator (default: the FMUs' own, 1e-6)")
    parser.add_argument("--out", type=Path, default=REPO / "target" / "cosim", help="folder for the CSV and the PNG (default: %(default)s)")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--realtime", action="store_true", help="pace every communication step to the wall clock")
    args = parser.parse_args(argv)
    try:
        result = run(
            args.stop, args.step, args.fmi, args.dist, args.out, not args.no_plot, args.quiet, args.realtime, args.substeps, args.rtol
        )
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (FmiError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print()
    for line in report(result):
        print(line)
    for path in result.written:
        print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
