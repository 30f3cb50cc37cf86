"""Model Exchange of every FMU in dist/: the FMU's Jacobian of its
derivatives (directional derivatives of every ``der(...)`` with respect to
every state, through FMI) agrees with central finite differences of
``getDerivatives`` to 1e-6 relative at states near the initial one (the
initial states sit on kinks of the valve and orifice laws, a closed spool
at 0 V, equal pressures, where one-sided slopes differ and central
differences average them); and FMPy's Model Exchange master with its Euler solver, at a step
small enough for the stiff pressures, follows the Co-Simulation result.
(FMPy's CVODE runs every validation scenario in the harness, master
``fmpy-me``.)"""

from __future__ import annotations

import shutil
from ctypes import c_double

import numpy as np
import pytest

from fmu_harness import DIST

FMUS = sorted((DIST / "fmi3").glob("*.fmu")) + sorted((DIST / "fmi2").glob("*.fmu"))


def open_model(path):
    import fmpy
    from fmpy.fmi2 import FMU2Model
    from fmpy.fmi3 import FMU3Model
    from fmpy.model_description import read_model_description

    md = read_model_description(str(path), validate=True)
    assert md.modelExchange is not None, f"{path.name} declares no ModelExchange"
    unzipdir = fmpy.extract(str(path))
    cls = FMU3Model if md.fmiVersion.startswith("3") else FMU2Model
    fmu = cls(guid=md.guid, unzipDirectory=unzipdir,
              modelIdentifier=md.modelExchange.modelIdentifier, instanceName="me")
    fmu.instantiate()
    if md.fmiVersion.startswith("3"):
        fmu.enterInitializationMode(startTime=0.0)
        fmu.exitInitializationMode()
        fmu.updateDiscreteStates()
    else:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.newDiscreteStates()
    fmu.enterContinuousTimeMode()
    return md, fmu, unzipdir


class Access:
    """The state vector and derivatives of an instance in Continuous-Time Mode."""

    def __init__(self, md, fmu):
        self.fmu = fmu
        self.fmi3 = md.fmiVersion.startswith("3")
        self.n = len(md.derivatives)
        self.states = [d.variable.derivative.valueReference for d in md.derivatives]
        self.ders = [d.variable.valueReference for d in md.derivatives]

    def x(self):
        a = (c_double * self.n)()
        self.fmu.getContinuousStates(a, self.n)
        return np.array(a[:])

    def nominal(self):
        a = (c_double * self.n)()
        self.fmu.getNominalsOfContinuousStates(a, self.n)
        return np.array(a[:])

    def set_x(self, x):
        self.fmu.setContinuousStates((c_double * self.n)(*x), self.n)

    def dx(self):
        a = (c_double * self.n)()
        if self.fmi3:
            self.fmu.getContinuousStateDerivatives(a, self.n)
        else:
            self.fmu.getDerivatives(a, self.n)
        return np.array(a[:])

    def jacobian(self):
        """Column j: directional derivative of all derivatives along state j."""
        cols = []
        for vr in self.states:
            if self.fmi3:
                cols.append(self.fmu.getDirectionalDerivative(self.ders, [vr], [1.0]))
            else:
                cols.append(self.fmu.getDirectionalDerivative(self.ders, [vr], [1.0]))
        return np.array(cols).T


@pytest.mark.parametrize("path", FMUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_jacobian_of_the_derivatives_matches_central_differences(path):
    md, fmu, unzipdir = open_model(path)
    try:
        s = Access(md, fmu)
        assert s.n > 0
        nominal = np.abs(s.nominal())
        x0 = s.x()
        # Nearby states: each state moved up by its own fraction (1-4 %) of
        # its nominal magnitude, so that no two pressures are equal (an
        # orifice at zero drop is a kink of its regularised law).
        spread = 1.0 + (np.arange(s.n) * 0.618) % 1.0 * 3.0
        for x in (x0 + 0.01 * nominal * spread, x0 + 0.005 * nominal * spread[::-1]):
            s.set_x(x)
            jac = s.jacobian()
            fd = np.zeros_like(jac)
            for j in range(s.n):
                h = 1e-6 * max(abs(x[j]), nominal[j])
                up, down = x.copy(), x.copy()
                up[j] += h
                down[j] -= h
                s.set_x(up)
                f_up = s.dx()
                s.set_x(down)
                f_down = s.dx()
                fd[:, j] = (f_up - f_down) / (2 * h)
            s.set_x(x)
            # Scaled by the nominals, so that every entry is a rate per unit
            # of its states' magnitudes; 1e-6 of each row's largest entry.
            scale = nominal[None, :] / nominal[:, None]
            a, b = jac * scale, fd * scale
            # (A row that is zero, a clamped state's, compares against 1e-9
            # of the largest entry instead.)
            floor = max(np.abs(b).max() * 1e-9, 1e-300)
            row = np.maximum(np.abs(b).max(axis=1, keepdims=True), floor)
            err = np.abs(a - b) / row
            i, j = np.unravel_index(np.argmax(err), err.shape)
            assert err.max() <= 1e-6, (
                f"{path.name}: d der(state {i}) / d state {j}: FMU {jac[i, j]:.9g}, "
                f"central differences {fd[i, j]:.9g} (scaled error {err.max():.2e})")
        fmu.terminate()
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)


@pytest.mark.parametrize("version", [2, 3])
def test_fmpy_euler_follows_co_simulation(version):
    from fmpy import simulate_fmu

    path = DIST / f"fmi{version}" / "OrificeChain.fmu"
    # Explicit Euler needs a step below the volumes' time constants.
    me = simulate_fmu(str(path), fmi_type="ModelExchange", solver="Euler", stop_time=0.05,
                      step_size=2e-6, output_interval=2e-6, record_events=False)
    cs = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=0.05, output_interval=1e-3)
    for name in ("p1", "p2"):
        at = np.interp(cs["time"], me["time"], me[name])
        err = np.max(np.abs(at - cs[name])) / np.max(np.abs(cs[name]))
        assert err < 2e-3, f"{name}: Euler Model Exchange differs from Co-Simulation by {err:.2e}"


@pytest.mark.parametrize("path", sorted((DIST / "fmi3").glob("*.fmu")), ids=lambda p: p.stem)
def test_event_indicators_agree_with_the_description_and_the_states(path):
    """The count the FMU reports is the description's (FMI 3 EventIndicator
    elements, FMI 2 numberOfEventIndicators of the same model), the values
    are finite and readable as variables, and where a circuit has end stops
    or valve edges their indicators are the distances to them (x to the
    stops, plus 1 nm; Us to the deadband edges) of the model description."""
    import xml.etree.ElementTree as ET
    import zipfile
    from ctypes import c_size_t, byref

    md, fmu, unzipdir = open_model(path)
    try:
        xml3 = ET.fromstring(zipfile.ZipFile(path).read("modelDescription.xml"))
        listed = [int(e.get("valueReference")) for e in xml3.find("ModelStructure").findall("EventIndicator")]
        fmi2 = DIST / "fmi2" / path.name
        xml2 = ET.fromstring(zipfile.ZipFile(fmi2).read("modelDescription.xml"))
        assert int(xml2.get("numberOfEventIndicators")) == len(listed)
        n = c_size_t()
        fmu.fmi3GetNumberOfEventIndicators(fmu.component, byref(n))
        assert n.value == len(listed)
        if not listed:
            return
        z = (c_double * len(listed))()
        fmu.fmi3GetEventIndicators(fmu.component, z, len(listed))
        values = np.array(z[:])
        assert np.all(np.isfinite(values))
        assert list(values) == fmu.getFloat64(listed)
        names = {v.valueReference: v.name for v in md.modelVariables}
        by_name = {names[vr]: value for vr, value in zip(listed, values)}
        assert all(name.startswith("event_") for name in by_name)
        variable = {v.name: v for v in md.modelVariables}
        if "event_stop_upper" in by_name and "x" in variable and "Sc" in variable:
            x, sc = fmu.getFloat64([variable["x"].valueReference, variable["Sc"].valueReference])
            # (Each plus its 1 nm offset: never identically 0 at a start on a stop.)
            assert by_name["event_stop_upper"] == pytest.approx(sc - x + 1e-9, abs=1e-15)
            assert by_name["event_stop_lower"] == pytest.approx(x + 1e-9, abs=1e-15)
        if "event_edge_PA" in by_name and "Us" in variable and "Ud" in variable:
            us, ud = fmu.getFloat64([variable["Us"].valueReference, variable["Ud"].valueReference])
            assert by_name["event_edge_PA"] == pytest.approx(us - ud, abs=1e-15)
            assert by_name["event_edge_PB"] == pytest.approx(-us - ud, abs=1e-15)
    finally:
        fmu.freeInstance()
        shutil.rmtree(unzipdir, ignore_errors=True)
