"""Described circuits against their written-out twins, and the described
FMU's refusal of an edited description.

A circuit description that reproduces a hand-written circuit
(``components/circuits/circuit-file/examples/valve_cylinder.toml`` builds
``ValveCylinderFile``, the twin of ``ValveCylinder``) is validated by the
harness on its twin's scenarios (twin scenarios, ``"twin_of"`` in
``validation/scenarios/<File model>/<scenario>/scenario.json``). Here the two
FMUs are run side by side in FMPy Co-Simulation on every twin scenario
(FMI 3, and FMI 2 on one), the written-out one with the twin's parameters,
the described one with none (its description fixes them), both at the
scenario's first communication step with its inputs held over each step as
the harness's runners hold them; every output both FMUs have must agree
within 1e-9 relative RMS:

    RMS(described - written-out) / max(RMS(written-out), floor) <= 1e-9

with ``floor`` a small absolute value per unit (``ABS_FLOOR``) for a signal
that stays about 0 (a flow through a closed valve). The figures are printed
(``pytest -s``) and listed at the end of the session.

The refusal tests unpack a described FMU, edit its description after the
build and instantiate it with FMPy's low-level classes: with the digest left
as built the engine names the file and says to rebuild; with the digest
edited to match, the instantiation token (which the engine derives from the
description) no longer matches the model description's.

A twin scenario whose described FMU is not built fails like any missing FMU,
unless its description file (``built_from``) does not exist yet either: then
the case is skipped, saying so.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_harness import (
    BUILD_HINT,
    FMI_ERROR,
    REPO,
    SCENARIO_ROOT,
    LowLevelSlave,
    fmu_path,
)
from harness.scenario import Scenario, communication_points, discover, load_scenario, sample_inputs

#: Largest accepted relative RMS difference of a shared output.
TOLERANCE = 1e-9
#: The denominator's floor, per SI unit of the output (model description's
#: ``unit``): 1e-9 of it is far below anything these circuits resolve, so
#: a signal that stays about 0 in both FMUs is not judged on rounding.
ABS_FLOOR = {"Pa": 1.0, "m3/s": 1e-9, "m": 1e-9, "m/s": 1e-9, "N": 1e-3, "V": 1e-9}
DEFAULT_FLOOR = 1e-9

#: The twin scenario also run in FMI 2 (the shortest with the most states).
FMI2_CASE = "ValveCylinderFile/repeatable"

#: The described FMU whose edited copies must be refused.
REFUSED_MODEL = "ValveCylinderFile"


def twin_scenarios() -> list[Scenario]:
    scenarios, problems = discover(SCENARIO_ROOT)
    problems = [p for p in problems if "twin" in p]
    if problems:
        raise AssertionError("unreadable twin scenario(s):\n" + "\n".join(problems))
    return [s for s in scenarios if s.twin_of]


TWINS = twin_scenarios()
CASES = [pytest.param(s, 3, id=f"{s.key}-fmi3") for s in TWINS]
CASES += [pytest.param(s, 2, id=f"{s.key}-fmi2") for s in TWINS if s.key == FMI2_CASE]


def test_the_twin_scenarios_are_found():
    keys = {s.key for s in TWINS}
    for key in ("OrificeChainFile/startup", "ValveCylinderFile/repeatable", "ValveCylinderFile/random",
                "LiftActuatorFile/lift_100kg", "HoseH7File/step_n7"):
        assert key in keys, f"no twin scenario {key} under {SCENARIO_ROOT}"
    assert FMI2_CASE in keys


def described_fmu(scenario: Scenario, version: int) -> Path:
    """The described FMU of a twin scenario: skips when neither it nor its
    description exist yet, fails when only the FMU is missing."""
    path = fmu_path(scenario.model, version)
    if path.is_file():
        return path
    description = REPO / scenario.built_from if scenario.built_from else None
    if description is not None and not description.is_file():
        pytest.skip(f"{scenario.key}: {description.relative_to(REPO)} is not written yet, so {path} cannot exist")
    pytest.fail(f"{path} is missing: build it with `cargo run --release -p build-fmu -- --circuit "
                f"{scenario.built_from}`", pytrace=False)


def written_fmu(model: str, version: int) -> Path:
    path = fmu_path(model, version)
    if not path.is_file():
        pytest.fail(f"{path} is missing: {BUILD_HINT}", pytrace=False)
    return path


def unpacked(fmu: Path, into: Path) -> Path:
    with zipfile.ZipFile(fmu) as archive:
        archive.extractall(into)
    return into


def run_held(folder: Path, version: int, name: str, scenario: Scenario, parameters: dict, step: float,
             outputs: list[str]) -> np.ndarray:
    """One Co-Simulation run over the scenario's experiment at ``step``,
    inputs sampled by the harness's rule at each communication point and
    held over the step; the outputs at every point (rows x outputs)."""
    options = scenario.options
    times = communication_points(options.start_time, options.stop_time, step)
    table = scenario.inputs()
    inputs = sample_inputs(table, times, scenario.interpolation, step)
    names = table.columns[1:]
    with LowLevelSlave(version, folder, name) as fmu:
        vrs = [fmu.vr(n) for n in names]
        fmu.instantiate()
        if version == 2:
            fmu.fmu.setupExperiment(tolerance=options.rel_tol, startTime=options.start_time,
                                    stopTime=options.stop_time)
        for key, value in parameters.items():
            fmu.set_value(key, value)
        fmu.set_real(vrs, inputs[0])
        if version == 2:
            fmu.fmu.enterInitializationMode()
        else:
            fmu.fmu.enterInitializationMode(tolerance=options.rel_tol, startTime=options.start_time,
                                            stopTime=options.stop_time)
        fmu.fmu.exitInitializationMode()
        rows = [fmu.get(outputs)]
        for k in range(len(times) - 1):
            fmu.set_real(vrs, inputs[k])
            fmu.do_step(times[k], times[k + 1] - times[k])
            rows.append(fmu.get(outputs))
        assert not fmu.log_text().count("[Error]"), fmu.log_text()
    return np.asarray(rows, dtype=float)


def output_units(folder: Path, version: int) -> dict[str, str]:
    """The outputs of an unpacked FMU with their units."""
    from fmpy import read_model_description

    md = read_model_description(str(folder))
    units = {}
    for v in md.modelVariables:
        if v.causality == "output":
            unit = v.unit or (v.declaredType.unit if v.declaredType is not None else None)
            units[v.name] = unit or ""
    return units


@pytest.mark.parametrize(("scenario", "version"), CASES)
def test_described_fmu_equals_its_twin(scenario: Scenario, version: int, tmp_path: Path, report):
    described = described_fmu(scenario, version)
    twin_model, twin_name = scenario.twin_of.split("/")
    twin = load_scenario(SCENARIO_ROOT / twin_model / twin_name)
    written = written_fmu(twin_model, version)
    a = unpacked(written, tmp_path / "written")
    b = unpacked(described, tmp_path / "described")
    units_a, units_b = output_units(a, version), output_units(b, version)
    shared = [n for n in units_a if n in units_b]
    assert set(scenario.signals) <= set(shared), f"compared signals {sorted(set(scenario.signals) - set(shared))} not shared"
    step = scenario.step_sizes[0]
    # The written-out FMU with its scenario's parameters, the described one
    # with none: its description fixes them (twin_parameters_fixed_by_description).
    assert twin.parameters == scenario.fixed_parameters
    y_a = run_held(a, version, f"{twin_model}-twin", twin, twin.parameters, step, shared)
    y_b = run_held(b, version, f"{scenario.model}-twin", scenario, {}, step, shared)
    assert y_a.shape == y_b.shape

    lines = [f"{scenario.key} vs {scenario.twin_of}, FMI {version}, h = {step:g} s, {len(y_a)} points:"]
    worst = []
    for i, name in enumerate(shared):
        diff = y_b[:, i] - y_a[:, i]
        rms_ref = float(np.sqrt(np.mean(y_a[:, i] ** 2)))
        floor = ABS_FLOOR.get(units_a[name], DEFAULT_FLOOR)
        rel = float(np.sqrt(np.mean(diff**2))) / max(rms_ref, floor)
        if not np.all(np.isfinite(y_b[:, i])):
            rel = float("inf")
        lines.append(f"    {name:<6} {units_a[name] or '-':<5} rel RMS {rel:9.2e}  max |diff| {np.max(np.abs(diff)):9.2e}"
                     f"  RMS {rms_ref:9.3e}{'  (floor ' + format(floor, 'g') + ')' if rms_ref < floor else ''}")
        if not rel <= TOLERANCE:
            worst.append(f"{name} {rel:.3e}")
    text = "\n".join(lines)
    print("\n" + text)
    report.notes.append(text)
    assert not worst, f"{scenario.key} differs from {scenario.twin_of} beyond {TOLERANCE:g}: {', '.join(worst)}\n{text}"


# --------------------------------------------------------------------------
# An edited description is refused
# --------------------------------------------------------------------------


def instantiate_refused(folder: Path, version: int, name: str) -> str:
    """Instantiates the unpacked FMU, which must be refused; the FMU's log
    messages of the attempt, one per line."""
    fmu = LowLevelSlave(version, folder, name)
    try:
        fmu.instantiate()
    except Exception:  # FMPy: "Failed to instantiate FMU/model"
        pass
    else:
        fmu.close()
        raise AssertionError(f"the FMU in {folder} was instantiated; it should have been refused")
    finally:
        fmu.close()
    errors = [m.message for m in fmu.messages if m.status >= FMI_ERROR]
    assert errors, f"refused without an error message: {[str(m) for m in fmu.messages]}"
    return "\n".join(errors)


def edited_copy(tmp_path: Path, version: int, digest_too: bool) -> Path:
    folder = unpacked(written_fmu(REFUSED_MODEL, version), tmp_path / f"fmi{version}")
    description = folder / "resources" / "circuit.toml"
    text = description.read_text() + "# a comment added after the build\n"
    description.write_text(text)
    if digest_too:
        (folder / "resources" / "circuit.sha256").write_text(hashlib.sha256(text.encode()).hexdigest() + "\n")
    return folder


@pytest.mark.parametrize("version", [2, 3])
def test_an_edited_description_is_refused(version: int, tmp_path: Path):
    folder = edited_copy(tmp_path, version, digest_too=False)
    message = instantiate_refused(folder, version, f"edited-{version}")
    print(f"\nFMI {version}, circuit.toml edited: {message}")
    assert "resources/circuit.toml" in message and "changed after the FMU was built" in message, message
    assert "rebuild it" in message and "build-fmu -- --circuit" in message, message


@pytest.mark.parametrize("version", [2, 3])
def test_an_edited_description_with_a_matching_digest_is_refused(version: int, tmp_path: Path):
    folder = edited_copy(tmp_path, version, digest_too=True)
    message = instantiate_refused(folder, version, f"edited-digest-{version}")
    print(f"\nFMI {version}, circuit.toml and circuit.sha256 edited: {message}")
    assert "does not match" in message and "token" in message, message


def test_an_intact_copy_instantiates(tmp_path: Path):
    """The control of the refusal tests: the same unpacking, nothing edited."""
    folder = unpacked(written_fmu(REFUSED_MODEL, 3), tmp_path / "intact")
    with LowLevelSlave(3, folder, "intact") as fmu:
        fmu.instantiate()
        assert not [m for m in fmu.messages if m.status >= FMI_ERROR], fmu.log_text()
