"""The coupled set-ups as SSP archives (dist/ssp/*.ssp, written by
build-fmu): valid against the SSP 1.0 schema (FMPy's reader validates), and
run unchanged in libcosim (libcosimpy), whose SSP loader and fixed-step
algorithm nobody on this project wrote. ValveActuator + SlidingMass, driven
by the repeatable scenario's valve command, must reproduce the project's own
Jacobi co-simulation (the cosim-valve-actuator tool, FMI 3 binaries of the
same code) and so its coupling error against the monolithic ValveCylinder;
FourBarActuator + FourBarMechanism must close its loop and follow the
monolithic FourBar within the coupling error the project reports."""

from __future__ import annotations

import csv
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_harness import DIST, REPO

SSP = DIST / "ssp"
VALVE = SSP / "ValveActuator_SlidingMass.ssp"
FOUR_BAR = SSP / "FourBarActuator_FourBarMechanism.ssp"
NS = 1_000_000_000  # libcosim counts time in nanoseconds


def require(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} missing: run `cargo run --release -p build-fmu`")
    return path


@pytest.mark.parametrize("ssp", [VALVE, FOUR_BAR], ids=["valve", "four-bar"])
def test_ssd_is_valid_and_complete(ssp: Path):
    from fmpy.ssp.ssd import find_components, read_ssd

    ssd = read_ssd(str(require(ssp)), validate=True)  # raises on a schema violation
    components = find_components(ssd.system)
    assert len(components) == 2
    # (FMPy's get_connections() trips over unconnected inputs such as the
    # valve command; the parsed connection list is enough here.)
    assert len(ssd.system.connections) == 3
    with zipfile.ZipFile(ssp) as zf:
        for c in components:
            assert c.source in zf.namelist(), f"{c.source} is not in {ssp.name}"
            with zipfile.ZipFile(zf.open(c.source)) as fmu:
                md = fmu.read("modelDescription.xml").decode()
                assert 'fmiVersion="2.0"' in md, "libcosim's SSP loader needs FMI 2 FMUs"
        text = zf.read("SystemStructure.ssd").decode()
    # every connector has a unit defined in the units section
    for unit in set(__import__("re").findall(r'<ssc:Real unit="([^"]+)"', text)):
        assert f'<ssc:Unit name="{unit}">' in text, unit


@pytest.mark.parametrize("ssp", [VALVE, FOUR_BAR], ids=["valve", "four-bar"])
def test_the_system_names_omsimulators_master_at_the_files_step(ssp: Path):
    """OMSimulator's command line runs a system only when the system's own
    annotation names its master: a fixed-step master at the communication
    step that the project's annotation gives, and the FMUs' tolerance."""
    import xml.etree.ElementTree as ET

    with zipfile.ZipFile(require(ssp)) as zf:
        root = ET.fromstring(zf.read("SystemStructure.ssd"))
        fmu = zipfile.ZipFile(zf.open(f"resources/{ssp.stem.split('_')[0]}.fmu"))
        md = ET.fromstring(fmu.read("modelDescription.xml"))
    ns = {"ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
          "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
          "oms": "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd",
          "fluidfmu": "urn:fluidfmu:ssp"}
    system = root.find("ssd:System", ns)
    masters = system.findall(
        "ssd:Annotations/ssc:Annotation[@type='org.openmodelica']/oms:Annotations/"
        "oms:SimulationInformation/oms:FixedStepMaster", ns)
    assert len(masters) == 1, "one OMSimulator master annotation on the system"
    step = root.find("ssd:DefaultExperiment/ssd:Annotations/ssc:Annotation/fluidfmu:CommunicationStep", ns)
    assert float(masters[0].get("stepSize")) == float(step.get("value"))
    tolerance = float(md.find("DefaultExperiment").get("tolerance"))
    assert float(masters[0].get("relativeTolerance")) == tolerance


class Cosim:
    """libcosim on an SSP archive at a fixed step, with an override
    manipulator for the command and a last-value observer."""

    def __init__(self, ssp: Path, step: float):
        from libcosimpy.CosimExecution import CosimExecution
        from libcosimpy.CosimManipulator import CosimManipulator
        from libcosimpy.CosimObserver import CosimObserver

        self.ex = CosimExecution.from_ssp_file(str(ssp), step_size=round(step * NS))
        self.observer = CosimObserver.create_last_value()
        self.manipulator = CosimManipulator.create_override()
        assert self.ex.add_observer(self.observer)
        assert self.ex.add_manipulator(self.manipulator)
        self.index = {s.name.decode(): s.index for s in self.ex.slave_infos()}
        self.vrs = {
            name: {v.name.decode(): v.reference for v in self.ex.slave_variables(i)} for name, i in self.index.items()
        }

    def initial(self, slave: str, var: str, value: float):
        assert self.ex.real_initial_value(self.index[slave], self.vrs[slave][var], value)

    def set(self, slave: str, var: str, value: float):
        assert self.manipulator.slave_real_values(self.index[slave], [self.vrs[slave][var]], [value])

    def get(self, slave: str, names: list[str]) -> list[float]:
        return self.observer.last_real_values(self.index[slave], [self.vrs[slave][n] for n in names])

    def step(self):
        assert self.ex.step(1), "libcosim step failed"


def cosim_columns(csv_path: Path, label: str, signals):
    """The columns `<signal> <label> [<unit>]` of a co-simulation tool's CSV."""
    with csv_path.open() as f:
        rows = list(csv.reader(f))
    header = rows[0]
    table = np.array([[float(x) for x in r] for r in rows[1:]])
    return np.column_stack([table[:, header.index(f"{s} {label} [{u}]")] for s, u in signals])


def run_tool(name: str, args: list[str]):
    tool = REPO / "target" / "release" / name
    if not tool.exists():
        pytest.fail(f"{tool} missing: run `cargo build --release -p validation --bins`")
    subprocess.run([str(tool), *args, "--no-plot"], check=True, capture_output=True)


def scenario_input(model: str, scenario: str):
    rows = list(csv.reader((REPO / "validation" / "scenarios" / model / scenario / f"{model}_in.csv").open()))
    data = np.array([[float(x) for x in r] for r in rows[1:]])
    return lambda t: float(data[np.searchsorted(data[:, 0], t + 1e-9, side="right") - 1, 1])


def test_valve_actuator_sliding_mass_in_libcosim_matches_the_project_cosimulation(tmp_path: Path):
    step, stop, sample = 1e-3, 10.0, 1e-2
    u = scenario_input("ValveCylinder", "repeatable")
    sim = Cosim(require(VALVE), step)
    sim.initial("actuator", "U", u(0.0))
    n, every = round(stop / step), round(sample / step)
    got = []
    for k in range(n + 1):
        if k % every == 0:
            got.append(sim.get("mass", ["x", "v"]) + sim.get("actuator", ["p1", "p2", "pv"]))
        if k == n:
            break
        sim.set("actuator", "U", u(k * step))
        sim.step()
    got = np.array(got)

    # The project's own co-simulation of the same set-up (Jacobi at 1 ms).
    run_tool("cosim-valve-actuator", ["--scenario", "repeatable", "--step", "1e-3", "--out", str(tmp_path)])
    signals = [("x", "m"), ("v", "m/s"), ("p1", "Pa"), ("p2", "Pa"), ("pv", "Pa")]
    ours = cosim_columns(tmp_path / "repeatable.csv", "coupled 1e-3 s", signals)
    mono = cosim_columns(tmp_path / "repeatable.csv", "monolithic", signals)
    assert got.shape == ours.shape, (got.shape, ours.shape)
    # libcosim's observer reports values from the first step on: compare
    # from the first sample after t = 0.
    got, ours, mono = got[1:], ours[1:], mono[1:]
    scale = np.abs(ours).max(axis=0)
    diff = np.abs(got - ours).max(axis=0) / scale
    print("libcosim SSP vs project co-simulation, largest difference / signal magnitude:",
          dict(zip(["x", "v", "p1", "p2", "pv"], diff)))
    assert (diff < 1e-9).all(), diff
    # and so the same coupling error against the monolithic model
    err_ssp = np.abs(got - mono).max(axis=0)
    err_ours = np.abs(ours - mono).max(axis=0)
    assert np.allclose(err_ssp, err_ours, rtol=1e-6, atol=1e-9 * scale)


def test_four_bar_in_libcosim_follows_the_monolithic_model_within_the_coupling_error(tmp_path: Path):
    """libcosim transfers the actuator's force computed at the end of its
    step (with the pin motion of the step's start), where the project's
    Jacobi loop reads the force after handing over the new pin motion (the
    force depends directly on s_dot through the seal friction), so the two
    differ by a coupling error of their own: both must stay as close to the
    monolithic FourBar as the project reports for its co-simulation."""
    step, stop = 1e-3, 5.0
    run_tool("cosim-four-bar", ["--case", "linear", "--step", "1e-3", "--out", str(tmp_path)])
    signals = [("theta", "rad"), ("s", "m"), ("pp", "Pa"), ("p1", "Pa"), ("p2", "Pa"), ("F_h", "N")]
    mono = cosim_columns(tmp_path / "four_bar_linear.csv", "monolithic 1e-3 s", signals)
    ours = cosim_columns(tmp_path / "four_bar_linear.csv", "coupled 1e-3 s", signals)

    hold = 0.01  # the tool's valve command: 10 sin(0.4 pi t) V, sampled mid-interval and held 10 ms
    u = lambda t: 10.0 * np.sin(0.4 * np.pi * (np.floor(t / hold + 1e-9) * hold + 0.5 * hold))  # noqa: E731
    sim = Cosim(require(FOUR_BAR), step)
    for slave in ("actuator", "mechanism"):
        sim.initial(slave, "rtol", 1e-8)
    sim.initial("actuator", "p1_0", mono[0, 3])  # the pressure that holds the linkage, from FourBar
    sim.initial("actuator", "U_ref", u(0.0))
    n = round(stop / step)
    got = []
    for k in range(n + 1):
        got.append(sim.get("mechanism", ["theta", "s"]) + sim.get("actuator", ["pp", "p1", "p2", "F_h"]))
        if k == n:
            break
        sim.set("actuator", "U_ref", float(u(k * step)))
        sim.step()
    got = np.array(got)[1:]  # the observer reports from the first step on
    mono, ours = mono[1:], ours[1:]
    assert got.shape == mono.shape
    scale = np.abs(mono).max(axis=0)
    err_ssp = np.abs(got - mono).max(axis=0) / scale
    err_ours = np.abs(ours - mono).max(axis=0) / scale
    names = [s for s, _ in signals]
    print("four-bar coupling error / signal magnitude, libcosim SSP:", dict(zip(names, err_ssp)))
    print("four-bar coupling error / signal magnitude, project Jacobi:", dict(zip(names, err_ours)))
    # the project's figures (largest difference per signal), within half
    # and one and a half times: measured here 0.92 to 1.001 times
    ratio = err_ssp / err_ours
    assert ((0.5 < ratio) & (ratio < 1.5)).all(), dict(zip(names, ratio))
