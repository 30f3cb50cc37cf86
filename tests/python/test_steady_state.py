"""Analytic steady state of OrificeChain (components/circuits/orifice-circuit/MODEL.md,
"Numbers the implementation reproduces"): after the default experiment (0 to
50 s, communication step 1 ms) p1 = pt + 2/3 (ps - pt), p2 = pt + 1/3 (ps - pt)
and Q1 = Q2 = Q3 = K sqrt((ps - pt)/3), K = Cd pi/4 d^2 sqrt(2/rho) (E1)."""

from __future__ import annotations

import math

import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException

from fmu_harness import FMI_VERSIONS, LogCapture, require_fmu

MODEL = "OrificeChain"
COMMUNICATION_STEP = 1e-3
REL_LIMIT = 1e-6


def _start(md, name: str) -> float:
    (var,) = [v for v in md.modelVariables if v.name == name]
    return float(var.start)


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=[f"{MODEL}/fmi{v}" for v in FMI_VERSIONS])
def test_steady_state_after_default_experiment(version: int, report):
    fmu = require_fmu(MODEL, version)
    md = read_model_description(str(fmu))
    experiment = md.defaultExperiment
    assert experiment is not None and float(experiment.stopTime) == 50.0, "the default experiment is 0..50 s"
    assert float(experiment.stepSize) == COMMUNICATION_STEP, "the default communication step is 1 ms"

    with LogCapture(MODEL) as log:
        try:
            # output_interval must be given: left to None, FMPy widens the
            # default experiment's 1 ms to 64 ms to keep <= 1000 samples.
            result = simulate_fmu(
                str(fmu),
                fmi_type="CoSimulation",
                output_interval=COMMUNICATION_STEP,
                output=["p1", "p2", "Q1", "Q2", "Q3"],
                logger=log.logger_for(version),
            )
        except FMICallException as error:
            pytest.fail(f"simulate_fmu stopped: {error}\nFMU log:\n{log.text()}", pytrace=False)

    final = result[-1]
    assert math.isclose(final["time"], float(experiment.stopTime), rel_tol=1e-12), f"ended at {final['time']} s"
    assert len(result) == round(float(experiment.stopTime) / COMMUNICATION_STEP) + 1

    ps, pt = _start(md, "ps"), _start(md, "pt")
    cd, rho = _start(md, "Cd"), _start(md, "rho")
    d = [_start(md, f"d{i}") for i in (1, 2, 3)]
    assert d[0] == d[1] == d[2], "the analytic steady state is for identical orifices"
    k = cd * math.pi / 4 * d[0] ** 2 * math.sqrt(2 / rho)
    q_mean = (final["Q1"] + final["Q2"] + final["Q3"]) / 3

    expected = {
        "p1 = pt + 2/3 (ps - pt)": (final["p1"], pt + 2 / 3 * (ps - pt)),
        "p2 = pt + 1/3 (ps - pt)": (final["p2"], pt + 1 / 3 * (ps - pt)),
        "Q1 = mean(Q)": (final["Q1"], q_mean),
        "Q2 = mean(Q)": (final["Q2"], q_mean),
        "Q3 = mean(Q)": (final["Q3"], q_mean),
        "Q1 = K sqrt((ps - pt)/3)": (final["Q1"], k * math.sqrt((ps - pt) / 3)),
    }
    failures = []
    for quantity, (value, target) in expected.items():
        rel = abs(value - target) / abs(target)
        report.steady.append((MODEL, version, quantity, float(value), float(target), rel, REL_LIMIT))
        if not rel < REL_LIMIT:
            failures.append(f"{quantity}: {value!r} vs {target!r}, relative error {rel:.3g} >= {REL_LIMIT:g}")
    assert not failures, "\n".join(failures) + f"\nFMU log:\n{log.text()}"
