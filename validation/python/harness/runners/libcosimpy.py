"""Runner for the libcosim master (``libcosimpy``, FMI 2 only), protocol in README.md.

libcosim counts time in integer nanoseconds, so the step and start time must
be whole nanoseconds. ``cosim_local_slave_create`` returns NULL for an FMU it
cannot load (and using a NULL slave crashes), so the pointer is checked
before the slave is added. Parameters and the inputs at the start time are
initial values; inputs are then set before every step through an override
manipulator; outputs are read from a last-value observer after every step,
and those at the start time from a time-series observer (step 0).
"""

from __future__ import annotations

import sys

from harness.runners.common import Job, NotSupported, Rejected, RunFailed, run_main

MASTER = "libcosimpy"
INSTANCE = "fmu"
NS = 1_000_000_000  # nanoseconds per second


def _nanoseconds(seconds: float, what: str) -> int:
    ns = round(seconds * NS)
    if abs(ns - seconds * NS) > 1e-3:
        raise NotSupported(f"libcosim counts time in whole nanoseconds; {what} {seconds!r} s is not")
    return ns


def simulate(job: Job) -> list:
    from libcosimpy._internal import get_last_error_message
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.INFO)
    step_ns = _nanoseconds(job.step, "the step")
    if _nanoseconds(job.start_time, "the start time") != 0:
        raise NotSupported("libcosimpy's CosimExecution.from_step_size always starts at t = 0")

    execution = CosimExecution.from_step_size(step_ns)
    slave = CosimLocalSlave(fmu_path=str(job.fmu), instance_name=INSTANCE)
    if not slave.ptr():
        raise Rejected(f"cosim_local_slave_create returned NULL: {get_last_error_message()}")
    index = execution.add_local_slave(slave)
    if index < 0:
        raise Rejected(f"cosim_execution_add_slave failed: {get_last_error_message()}")

    described = {v.name.decode(): v for v in execution.slave_variables(index)}

    def reference(name: str) -> int:
        if name not in described:
            raise RunFailed(f"libcosim does not list variable {name!r}")
        return described[name].reference

    initial = {
        "real": execution.real_initial_value,
        "integer": execution.integer_initial_value,
        "boolean": execution.boolean_initial_value,
        "string": execution.string_initial_value,
    }
    manipulator = CosimManipulator.create_override()
    execution.add_manipulator(manipulator)
    override = {
        "real": manipulator.slave_real_values,
        "integer": manipulator.slave_integer_values,
        "boolean": manipulator.slave_boolean_values,
    }
    last_values = CosimObserver.create_last_value()
    execution.add_observer(last_values)
    series = CosimObserver.create_time_series()
    execution.add_observer(series)

    kinds = {name: job.info.variable(name).kind for name in job.outputs}
    for name, kind in kinds.items():
        if kind not in ("real", "integer"):
            raise RunFailed(f"signal {name!r} has type {job.info.variable(name).type}, not comparable")
        series_type = CosimVariableType.REAL if kind == "real" else CosimVariableType.INTEGER
        series.start_time_series(index, reference(name), series_type)

    for name, value in list(job.parameters.items()) + list(job.input_values_at(0).items()):
        kind = job.info.variable(name).kind
        if not initial[kind](index, reference(name), value):
            raise RunFailed(f"setting the initial value of {name} = {value!r}: {get_last_error_message()}")

    def set_inputs(k: int) -> None:
        for name, value in job.input_values_at(k).items():
            kind = job.info.variable(name).kind
            if not override[kind](index, [reference(name)], [value]):
                raise RunFailed(f"override {name} = {value!r}: {get_last_error_message()}", rows)

    def outputs_now() -> list:
        values = []
        for name, kind in kinds.items():
            getter = last_values.last_real_values if kind == "real" else last_values.last_integer_values
            values.append(float(getter(index, [reference(name)])[0]))
        return values

    def outputs_at_start() -> list:
        values = []
        for name, kind in kinds.items():
            getter = series.time_series_real_samples if kind == "real" else series.time_series_integer_samples
            # libcosimpy 0.0.6 trims its sample arrays by counting step numbers
            # equal to 0, which drops one sample when step 0 is included: ask
            # for two and take the first, which must be step 0.
            times, steps, samples = getter(index, reference(name), 0, 2)
            if not steps or steps[0] != 0:
                raise RunFailed(f"no step-0 sample of {name} in the time-series observer", rows)
            values.append(float(samples[0]))
        return values

    rows: list = []
    for k in range(1, len(job.times)):
        set_inputs(k - 1)
        if not execution.step(1):
            raise RunFailed(f"cosim_execution_step at step {k} (t = {job.times[k - 1]!r} s): {get_last_error_message()}", rows)
        if k == 1:
            rows.append([job.start_time] + outputs_at_start())
        t_ns = execution.status().current_time
        rows.append([t_ns / NS] + outputs_now())
        if t_ns != k * step_ns:
            raise RunFailed(f"time after step {k} is {t_ns} ns, expected {k * step_ns} ns", rows)
    return rows


def main(argv=None) -> int:
    return run_main(MASTER, simulate, supported_versions=(2,), argv=argv)


if __name__ == "__main__":
    sys.exit(main())
