"""Runner for the FMPy master (FMI 2 and 3 Co-Simulation), protocol in README.md.

Loading (model description with FMPy's validation, platform binary,
instantiation) is done first so that a failure there is reported as
"rejected"; the simulation itself is FMPy's own co-simulation loop
(``simulate_fmu``) on the instance created here.
"""

from __future__ import annotations

import shutil
import sys

import numpy as np

from harness.runners.common import Job, Rejected, RunFailed, run_main

MASTER = "fmpy"


def column_type(job: Job, name: str):
    """The numpy type of input `name` in FMPy's structured input array."""
    kind = job.info.variable(name).kind
    return {"real": np.float64, "integer": np.int32, "boolean": np.bool_}.get(kind, np.float64)


def _input_signals(job: Job) -> np.ndarray | None:
    """The inputs at the communication points as FMPy's structured array.
    FMPy interpolates linearly between rows, so at the communication points
    it sets exactly the sampled values."""
    if not job.inputs:
        return None
    dtype = [("time", np.float64)] + [(name, column_type(job, name)) for name in job.inputs]
    signals = np.zeros(len(job.times), dtype=dtype)
    signals["time"] = job.times
    for name, values in job.inputs.items():
        signals[name] = values
    return signals


def run(job: Job, fmi_type: str, signals: np.ndarray | None, **options) -> np.ndarray:
    """FMPy's own simulation loop for `fmi_type` ("CoSimulation" or
    "ModelExchange") on an instance created here, with the scenario's
    parameters and `signals` as inputs; `options` go to ``simulate_fmu``.
    Loading failures are ``Rejected``; a failed simulation is ``RunFailed``
    with the rows recorded before it."""
    import fmpy
    from fmpy.model_description import read_model_description
    from fmpy.simulation import instantiate_fmu, simulate_fmu

    try:
        description = read_model_description(str(job.fmu), validate=True)
    except Exception as err:  # noqa: BLE001
        raise Rejected(f"read_model_description: {err}") from None
    interface = {"CoSimulation": description.coSimulation, "ModelExchange": description.modelExchange}[fmi_type]
    if interface is None:
        raise Rejected(f"the FMU has no {fmi_type} interface")
    platforms = fmpy.supported_platforms(str(job.fmu))
    if fmpy.platform not in platforms:
        raise Rejected(f"no binary for platform {fmpy.platform!r} (the FMU has {platforms})")
    unzipdir = fmpy.extract(str(job.fmu))
    try:
        try:
            instance = instantiate_fmu(unzipdir, description, fmi_type)
        except Exception as err:  # noqa: BLE001
            raise Rejected(f"instantiate_fmu: {err}") from None
        recorder = {}

        def step_finished(time, rec):
            recorder["rec"] = rec
            return True

        try:
            return simulate_fmu(
                unzipdir,
                start_time=job.start_time,
                stop_time=job.stop_time,
                output_interval=job.step,
                fmi_type=fmi_type,
                start_values=dict(job.parameters),
                input=signals,
                output=job.outputs,
                model_description=description,
                fmu_instance=instance,
                step_finished=step_finished,
                **options,
            )
        except Exception as err:  # noqa: BLE001
            partial = []
            if "rec" in recorder:
                partial = _rows(recorder["rec"].result(), job.outputs)
            raise RunFailed(f"simulate_fmu: {err}", partial) from None
        finally:
            try:
                instance.freeInstance()
            except Exception as err:  # noqa: BLE001
                print(f"freeInstance: {err}", flush=True)
    finally:
        shutil.rmtree(unzipdir, ignore_errors=True)


def simulate(job: Job) -> list:
    result = run(job, "CoSimulation", _input_signals(job), relative_tolerance=job.rel_tol)
    return _rows(result, job.outputs)


def _rows(result: np.ndarray, outputs: list[str]) -> list:
    columns = [result["time"]] + [result[name].astype(float) for name in outputs]
    return [list(row) for row in zip(*columns)]


def main(argv=None) -> int:
    return run_main(MASTER, simulate, supported_versions=(2, 3), argv=argv)


if __name__ == "__main__":
    sys.exit(main())
