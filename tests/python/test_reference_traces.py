"""The FMUs, run by FMPy as a co-simulation master, reproduce the independent
reference traces of every scenario under validation/scenarios/<model>/ within
the per-signal bounds written in the scenario's scenario.json."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy import simulate_fmu
from fmpy.fmi1 import FMICallException

from fmu_harness import (
    FMI_VERSIONS,
    MODELS,
    SCENARIO_ROOT,
    TraceFigure,
    LogCapture,
    Scenario,
    discover_scenarios,
    fmpy_input,
    on_grid_matches,
    require_fmu,
    signal_error,
)

#: Communication steps the master uses (output_interval = step).
COMMUNICATION_STEPS = (1e-3, 1e-2)

SCENARIOS = [s for model in MODELS for s in discover_scenarios(model)]
CASES = [
    pytest.param(s, version, step, id=f"{s.model}/{s.name}/fmi{version}/{step * 1e3:g}ms")
    for s in SCENARIOS
    for version in FMI_VERSIONS
    for step in COMMUNICATION_STEPS
]


def test_scenarios_are_found():
    """The folder layout yields at least one complete scenario per model."""
    for model in MODELS:
        found = [s for s in SCENARIOS if s.model == model]
        assert found, f"no scenario folder with a scenario.json under {SCENARIO_ROOT / model}"
        for s in found:
            # the harness's reader already refused missing files, signals or bounds
            columns = s.reference().columns
            missing = [name for name in s.signals if name not in columns]
            assert not missing, f"{s.reference_file}: no column for {missing}"


@pytest.mark.parametrize(("scenario", "version", "step"), CASES)
def test_reference_trace(scenario: Scenario, version: int, step: float, report):
    fmu = require_fmu(scenario.model, version)
    reference = scenario.reference()
    inputs = fmpy_input(scenario.inputs())
    signals = list(scenario.signals)
    options = scenario.options

    with LogCapture(scenario.model) as log:
        try:
            result = simulate_fmu(
                str(fmu),
                fmi_type="CoSimulation",
                start_time=options.start_time,
                stop_time=options.stop_time,
                output_interval=step,
                relative_tolerance=options.rel_tol,
                start_values=scenario.parameters,
                input=inputs,
                output=signals,
                logger=log.logger_for(version),
            )
        except FMICallException as error:
            pytest.fail(f"simulate_fmu stopped: {error}\nFMU log:\n{log.text()}", pytrace=False)

    sim_time = result["time"]
    assert math.isclose(sim_time[-1], options.stop_time, rel_tol=1e-9), (
        f"the run ended at {sim_time[-1]} s instead of {options.stop_time} s\nFMU log:\n{log.text()}"
    )
    ref_idx, sim_idx = on_grid_matches(reference.time, sim_time, step, options.start_time)
    expected_points = int(round((options.stop_time - options.start_time) / max(step, options.step_size))) + 1
    assert len(ref_idx) == expected_points, f"{len(ref_idx)} reference times on the {step} s grid, expected {expected_points}"

    failures = []
    for name in signals:
        expected = reference.column(name)[ref_idx]
        err = signal_error(expected, result[name][sim_idx])
        bound = scenario.signals[name]
        figure = TraceFigure(
            scenario.model, scenario.name, version, step, name,
            err.rel_rms_percent, bound.rel_rms_percent, err.max_abs, bound.max_abs, err.points,
        )
        report.traces.append(figure)
        if not figure.ok:
            worst = int(np.nanargmax(np.abs(result[name][sim_idx] - expected)))
            failures.append(
                f"{name}: rel RMS {err.rel_rms_percent:.4g} % (bound {bound.rel_rms_percent} %), "
                f"max |err| {err.max_abs:.4g} (bound {bound.max_abs:g}) "
                f"at t = {reference.time[ref_idx][worst]} s"
            )
    assert not failures, "\n".join(failures) + f"\nFMU log:\n{log.text()}"
