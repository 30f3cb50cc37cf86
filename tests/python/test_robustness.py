"""What a master's integrator and retry logic meet at the edge of every FMU
in dist/ (both FMI versions), through FMPy's low-level API and its
``simulate_fmu``:

- Model Exchange at trial states: ``getDerivatives`` (and
  ``getEventIndicators``) at states set to -10 .. 10 times their nominal
  values, one state at a time and all together, answers OK with finite
  values or Discard (outside the model's domain: the integrator tries a
  smaller step), never Error, never a non-finite value with OK, and the
  instance stays usable.
- No event indicator is exactly zero after initialization at the default
  experiment (CVODE: "root functions identically 0").
- A discarded ``doStep`` that no retry can cure reports terminated (FMI 2
  ``fmi2Terminated``, FMI 3 ``terminateSimulation``), one that a shorter
  step can cure stays a plain Discard, and ``simulate_fmu`` (which in FMI
  2 retries a discarded step for as long as the FMU is not terminated)
  ends with the FMU's message in both cases.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from ctypes import byref, c_double, c_size_t

import numpy as np
import pytest

from fmu_harness import DIST
from test_model_exchange import Access, open_model

FMUS = sorted((DIST / "fmi3").glob("*.fmu")) + sorted((DIST / "fmi2").glob("*.fmu"))
FACTORS = (-10.0, -3.0, -1.0, -0.1, 0.0, 0.1, 1.0, 3.0, 10.0)
DISCARD = 2


def _event_indicators(md, fmu):
    """The event indicators at the present state (an empty array if none)."""
    if md.fmiVersion.startswith("3"):
        n = c_size_t()
        fmu.fmi3GetNumberOfEventIndicators(fmu.component, byref(n))
        n = n.value
        z = (c_double * max(n, 1))()
        if n:
            fmu.fmi3GetEventIndicators(fmu.component, z, n)
    else:
        n = int(md.numberOfEventIndicators or 0)
        z = (c_double * max(n, 1))()
        if n:
            fmu.fmi2GetEventIndicators(fmu.component, z, n)
    return np.array(z[:n])


def _scaled_states(x0, nominal):
    """(label, state) pairs: each state alone, then all together, at each
    factor times its nominal value (the others at their start values)."""
    for i in range(len(x0)):
        for f in FACTORS:
            x = x0.copy()
            x[i] = f * nominal[i]
            yield f"state {i} = {f:g} x nominal", x
    for f in FACTORS:
        yield f"all states = {f:g} x nominal", f * nominal


@pytest.mark.parametrize("path", FMUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_derivatives_are_finite_or_discarded_at_scaled_states(path):
    from fmpy.fmi1 import FMICallException

    md, fmu, unzipdir = open_model(path)
    try:
        s = Access(md, fmu)
        x0 = s.x()
        nominal = np.abs(s.nominal())
        seen = {"ok": 0, "discard": 0}
        for label, x in _scaled_states(x0, nominal):
            s.set_x(x)
            for what, read in (("derivatives", s.dx), ("event indicators",
                                                        lambda: _event_indicators(md, fmu))):
                try:
                    values = read()
                except FMICallException as e:
                    assert e.status == DISCARD, (
                        f"{path.name}, {label}: {what} returned status {e.status}, "
                        "expected OK with finite values or Discard")
                    seen["discard"] += 1
                    continue
                assert np.all(np.isfinite(values)), (
                    f"{path.name}, {label}: non-finite {what} returned with OK: {values}")
                seen["ok"] += 1
        # Still usable after every Discard: the start state evaluates.
        s.set_x(x0)
        assert np.all(np.isfinite(s.dx()))
        # Most of the scan is inside what the model evaluates.
        assert seen["ok"] > seen["discard"], f"{path.name}: {seen}"
        fmu.terminate()
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)


@pytest.mark.parametrize("path", FMUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_event_indicator_is_zero_after_initialization(path):
    md, fmu, unzipdir = open_model(path)
    try:
        z = _event_indicators(md, fmu)
        assert np.all(np.isfinite(z))
        zero = [k for k, v in enumerate(z) if v == 0.0]
        assert not zero, (
            f"{path.name}: event indicator(s) {zero} are exactly 0 at the start of the default "
            f"experiment: {list(z)}")
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)


def _instantiate_cs(path, parameters):
    """A Co-Simulation instance of `path` with Integer `parameters` set,
    initialized at t = 0; (md, fmu, unzipdir)."""
    import fmpy
    from fmpy.fmi2 import FMU2Slave
    from fmpy.fmi3 import FMU3Slave
    from fmpy.model_description import read_model_description

    md = read_model_description(str(path))
    unzipdir = fmpy.extract(str(path))
    fmi3 = md.fmiVersion.startswith("3")
    cls = FMU3Slave if fmi3 else FMU2Slave
    fmu = cls(guid=md.guid, unzipDirectory=unzipdir,
              modelIdentifier=md.coSimulation.modelIdentifier, instanceName="retry")
    fmu.instantiate()
    vrs = {v.name: v.valueReference for v in md.modelVariables}
    if fmi3:
        fmu.enterInitializationMode(startTime=0.0)
    else:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
    for name, value in parameters.items():
        if fmi3:
            fmu.setInt32([vrs[name]], [value])
        else:
            fmu.setInteger([vrs[name]], [value])
    fmu.exitInitializationMode()
    return md, fmu, unzipdir


def _do_step(md, fmu, t, h):
    """doStep through the C function: (status, terminated)."""
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import fmi2Terminated

    if md.fmiVersion.startswith("3"):
        from fmpy.fmi3 import fmi3Boolean, fmi3Float64

        event, terminate, early, last = fmi3Boolean(), fmi3Boolean(), fmi3Boolean(), fmi3Float64()
        try:
            fmu.fmi3DoStep(fmu.component, t, h, fmi3Boolean(True), byref(event), byref(terminate),
                           byref(early), byref(last))
            status = 0
        except FMICallException as e:
            status = e.status
        assert last.value == pytest.approx(t if status else t + h)
        return status, bool(terminate.value)
    try:
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        status = 0
    except FMICallException as e:
        status = e.status
    return status, bool(fmu.getBooleanStatus(fmi2Terminated))


# A trained surrogate that renews the states once per 10 ms: a 1 ms step is
# never a whole number of its periods, and no shorter one is.
OFF_GRID = ("ValveActuator", {"actuator_surrogate": 1}, 1e-3)
# Two substeps per communication step: the start-up transient needs more
# over 0.1 s, a shorter step fewer.
TOO_FEW_SUBSTEPS = ("OrificeChain", {"max_substeps": 2}, 0.1)


@pytest.mark.parametrize("version", [2, 3])
def test_a_step_no_shorter_step_can_cure_reports_terminated(version):
    model, parameters, step = OFF_GRID
    md, fmu, unzipdir = _instantiate_cs(DIST / f"fmi{version}" / f"{model}.fmu", parameters)
    try:
        assert _do_step(md, fmu, 0.0, step) == (DISCARD, True)
        assert _do_step(md, fmu, 0.0, step / 2) == (DISCARD, True)
        # A whole number of periods is still fine.
        assert _do_step(md, fmu, 0.0, 10 * step) == (0, False)
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)


@pytest.mark.parametrize("version", [2, 3])
def test_a_step_a_shorter_step_can_cure_stays_a_plain_discard(version):
    model, parameters, step = TOO_FEW_SUBSTEPS
    md, fmu, unzipdir = _instantiate_cs(DIST / f"fmi{version}" / f"{model}.fmu", parameters)
    try:
        assert _do_step(md, fmu, 0.0, step) == (DISCARD, False)
        # A shorter step, as a master that halves would try: done in two
        # substeps.
        h = step
        while True:
            h /= 2
            status, terminated = _do_step(md, fmu, 0.0, h)
            assert not terminated
            if status == 0:
                break
            assert status == DISCARD and h > 1e-9
        # The same step retried unchanged fails the same way: terminated.
        assert _do_step(md, fmu, h, step) == (DISCARD, False)
        assert _do_step(md, fmu, h, step) == (DISCARD, True)
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)


RUN = """
import sys
from fmpy import simulate_fmu
path, name, value, step = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
try:
    r = simulate_fmu(path, start_values={name: value}, stop_time=20 * step, output_interval=step)
    print("ENDED at", r["time"][-1])
except Exception as e:
    print("ENDED with", e)
"""


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("case, message", [
    (OFF_GRID, "not a whole number of the sampled part's period"),
    (TOO_FEW_SUBSTEPS, "max_substeps"),
], ids=["off-grid", "max-substeps"])
def test_fmpy_simulate_ends_with_the_fmus_message(version, case, message):
    """FMPy's Co-Simulation loop (FMI 2: retry while not terminated; FMI 3:
    an exception on Discard) ends, and the FMU's message says why; a
    timeout turns a hang into a failure."""
    model, parameters, step = case
    (name, value), = parameters.items()
    path = DIST / f"fmi{version}" / f"{model}.fmu"
    done = subprocess.run([sys.executable, "-c", RUN, str(path), name, str(value), str(step)],
                          capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert "ENDED" in out, out
    assert message in out, out
    assert "the simulation must end (terminated)" in out or version == 3, out
