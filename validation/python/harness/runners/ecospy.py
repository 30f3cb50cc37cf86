"""Runner for the ecos master (``ecospy``, FMI 2 and 3), protocol in README.md.

ecos needs the system library libtbb12. It keeps values across FMUs loaded in
one process, so the harness starts one process per run (it always does).
Variables are addressed as ``<instance>::<name>``; parameters go in a
parameter set applied by ``init``; inputs are set before every step.
"""

from __future__ import annotations

import math
import sys

from harness.runners.common import Job, Rejected, RunFailed, run_main

MASTER = "ecospy"
INSTANCE = "fmu"


def _name(variable: str) -> str:
    return f"{INSTANCE}::{variable}"


def simulate(job: Job) -> list:
    try:
        from ecospy import EcosLib, EcosSimulation, EcosSimulationStructure
    except OSError as err:  # libecosc.so could not be loaded (libtbb12 missing?)
        raise RunFailed(f"ecospy cannot load its library: {err} (is the system package libtbb12 installed?)") from None
    print(f"ecos {EcosLib.version()}", flush=True)
    # ecos passes the FMU's log messages (e.g. a refused instantiation) on at
    # debug level only; keep them in the runner's log
    EcosLib.set_log_level("debug")

    structure = EcosSimulationStructure()
    try:
        structure.add_model(INSTANCE, str(job.fmu))
    except Exception as err:  # noqa: BLE001
        raise Rejected(f"add_model: {err}") from None
    parameter_set = None
    if job.parameters:
        parameter_set = "scenario"
        if structure.add_parameter_set(parameter_set, {_name(k): v for k, v in job.parameters.items()}) is False:
            raise RunFailed(f"add_parameter_set: {EcosLib.get_last_error()}")
    try:
        simulation = EcosSimulation(structure=structure, step_size=job.step)
    except Exception as err:  # noqa: BLE001
        raise Rejected(f"creating the simulation (instantiation): {err}") from None

    getters = {"real": simulation.get_real, "integer": simulation.get_integer, "boolean": simulation.get_bool}
    setters = {"real": simulation.set_real, "integer": simulation.set_integer, "boolean": simulation.set_bool}
    output_getters = []
    for name in job.outputs:
        kind = job.info.variable(name).kind
        if kind not in getters:
            raise RunFailed(f"signal {name!r} has type {job.info.variable(name).type}, not comparable")
        output_getters.append((getters[kind], _name(name)))

    def set_inputs(k: int) -> None:
        for name, value in job.input_values_at(k).items():
            setters[job.info.variable(name).kind](_name(name), value)

    def sample(t: float) -> list:
        return [t] + [float(get(name)) for get, name in output_getters]

    rows: list = []
    try:
        set_inputs(0)
        if not simulation.init(job.start_time, parameter_set):
            raise RunFailed(f"init: {EcosLib.get_last_error()}")
        rows.append(sample(simulation.get_time()))
        for k in range(1, len(job.times)):
            set_inputs(k - 1)
            t = simulation.step(1)
            if not math.isclose(t, job.times[k], rel_tol=1e-9, abs_tol=1e-6 * job.step):
                raise RunFailed(
                    f"step {k}: time {t!r} after the step, expected {job.times[k]!r} ({EcosLib.get_last_error()})", rows
                )
            rows.append(sample(t))
        simulation.terminate()
    except RunFailed as err:
        err.rows = err.rows or rows
        raise
    except Exception as err:  # noqa: BLE001
        raise RunFailed(f"{type(err).__name__}: {err}", rows) from None
    finally:
        simulation.free()
        structure.free()
    return rows


def main(argv=None) -> int:
    return run_main(MASTER, simulate, supported_versions=(2, 3), argv=argv)


if __name__ == "__main__":
    sys.exit(main())
