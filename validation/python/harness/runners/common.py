"""The runner protocol shared by every Python runner (README.md, "Runner protocol").

    <runner> --fmu PATH --scenario DIR --step H --out RESULT.csv [--fmi-version 2|3]

A runner reads the scenario folder, simulates the FMU in its master on the
communication grid ``StartTime + k*H`` with the inputs sampled by the
scenario's rule, writes RESULT.csv (``time`` then the scenario's signals, SI)
and exits with one of the codes below.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from harness.fmu_info import FmuInfo, FmuInfoError, read_fmu_info
from harness.scenario import Scenario, ScenarioError, communication_points, load_scenario, sample_inputs
from harness.tables import write_table

EXIT_OK = 0  # RESULT.csv written
EXIT_FAILED = 1  # ran (or tried to) but failed: initialization, a step, the outputs
EXIT_NOT_SUPPORTED = 3  # the master cannot run this kind of FMU (e.g. its FMI version)
EXIT_REJECTED = 4  # the master could not load or instantiate the FMU


class NotSupported(Exception):
    """The master does not support this FMU (exit 3)."""


class Rejected(Exception):
    """The master could not load or instantiate the FMU (exit 4)."""


class RunFailed(Exception):
    """The simulation failed after instantiation (exit 1); ``rows`` holds the
    samples recorded before the failure, if any."""

    def __init__(self, message: str, rows: list | None = None):
        super().__init__(message)
        self.rows = rows or []


@dataclass
class Job:
    """Everything a runner needs, read from the command line and the scenario."""

    fmu: Path
    scenario: Scenario
    step: float  # communication step, s
    out: Path
    info: FmuInfo
    times: np.ndarray  # communication points t_0..t_N, s
    inputs: dict[str, np.ndarray]  # input name -> value at each communication point
    parameters: dict  # variable name -> value, typed after the FMU's variable
    outputs: list[str]  # signals to record, in the CSV's column order

    @property
    def start_time(self) -> float:
        return float(self.times[0])

    @property
    def stop_time(self) -> float:
        return float(self.times[-1])

    @property
    def rel_tol(self) -> float | None:
        return self.scenario.options.rel_tol

    def input_values_at(self, k: int) -> dict[str, object]:
        """Inputs to set before the step that starts at ``times[k]``, typed."""
        return {name: self.info.variable(name).coerce(values[k]) for name, values in self.inputs.items()}


def parse_args(argv, master: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"python -m harness.runners.{master}",
        description=f"Run one FMU through one scenario in the {master} master (validation runner protocol).",
    )
    parser.add_argument("--fmu", type=Path, required=True, help="the .fmu archive")
    parser.add_argument("--scenario", type=Path, required=True, help="the scenario folder (with scenario.json)")
    parser.add_argument("--step", type=float, required=True, help="communication step size H, s")
    parser.add_argument("--out", type=Path, required=True, help="result CSV to write")
    parser.add_argument("--fmi-version", type=int, choices=(2, 3), help="FMI major version the FMU is expected to have")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="set a parameter besides (or instead of) the scenario's, e.g. solver=5 (repeatable)")
    return parser.parse_args(argv)


def parse_settings(pairs: list[str]) -> dict:
    """``NAME=VALUE`` strings as a dict of numbers; raises ``RunFailed`` on a
    malformed one."""
    settings = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            settings[name.strip()] = float(value)
        except ValueError:
            raise RunFailed(f"--set {pair!r}: give NAME=VALUE with a number") from None
    return settings


def prepare(args: argparse.Namespace) -> Job:
    """Read the scenario and the FMU's variable table; raise ``Rejected`` if the
    model description is unreadable, ``RunFailed`` if scenario and FMU disagree."""
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as err:
        raise RunFailed(f"scenario unusable: {err}") from None
    try:
        info = read_fmu_info(args.fmu)
    except FmuInfoError as err:
        raise Rejected(str(err)) from None
    if args.fmi_version is not None and info.major != args.fmi_version:
        raise Rejected(f"expected an FMI {args.fmi_version} FMU, modelDescription.xml says fmiVersion={info.fmi_version!r}")
    opt = scenario.options
    times = communication_points(opt.start_time, opt.stop_time, args.step)
    table = scenario.inputs()
    sampled = sample_inputs(table, times, scenario.interpolation, args.step)
    inputs = {}
    for column, name in enumerate(table.columns[1:]):
        if name not in info.variables:
            raise RunFailed(f"input {name!r} of {scenario.inputs_file.name} is not a variable of the FMU")
        if info.variables[name].kind != "real" and scenario.interpolation == "linear":
            # Non-Real inputs are never interpolated: fall back to the step rule.
            sampled[:, column] = sample_inputs(table, times, "step", args.step)[:, column]
        inputs[name] = sampled[:, column]
    parameters = {}
    for name, value in scenario.parameters.items():
        if name not in info.variables:
            raise RunFailed(f"parameter {name!r} of scenario.json is not a variable of the FMU")
        parameters[name] = info.variables[name].coerce(value)
    for name, value in parse_settings(getattr(args, "set", None) or []).items():
        if name not in info.variables:
            raise RunFailed(f"--set {name}: not a variable of the FMU")
        parameters[name] = info.variables[name].coerce(value)
    outputs = list(scenario.signals)
    missing = [name for name in outputs if name not in info.variables]
    if missing:
        raise RunFailed(f"signals {missing} of scenario.json are not variables of the FMU")
    return Job(args.fmu.resolve(), scenario, args.step, args.out, info, times, inputs, parameters, outputs)


def run_main(master: str, simulate: Callable[[Job], list], supported_versions: tuple[int, ...], argv=None) -> int:
    """Entry point of a runner: parse, check the version, simulate, write, exit.

    ``simulate(job)`` returns the rows (time first, then ``job.outputs``) or
    raises ``Rejected``, ``NotSupported`` or ``RunFailed``; any other exception
    counts as a failed run.
    """
    args = parse_args(argv, master)
    started = time.perf_counter()
    rows: list = []
    try:
        job = prepare(args)
        if job.info.major not in supported_versions:
            raise NotSupported(
                f"{master} cannot run FMI {job.info.fmi_version} FMUs "
                f"(supports FMI {', '.join(map(str, supported_versions))})"
            )
        print(f"[{master}] {job.fmu.name} (FMI {job.info.fmi_version}), scenario {job.scenario.key}, "
              f"step {job.step:g} s, {len(job.times) - 1} steps", flush=True)
        rows = simulate(job)
        write_table(args.out, ["time", *job.outputs], rows)
        print(f"[{master}] wrote {len(rows)} rows to {args.out} in {time.perf_counter() - started:.2f} s", flush=True)
        return EXIT_OK
    except NotSupported as err:
        print(f"[{master}] NOT SUPPORTED: {err}", flush=True)
        return EXIT_NOT_SUPPORTED
    except Rejected as err:
        print(f"[{master}] REJECTED: {err}", flush=True)
        return EXIT_REJECTED
    except RunFailed as err:
        print(f"[{master}] FAILED: {err}", flush=True)
        rows = err.rows
    except Exception:  # noqa: BLE001 - any other error of the master is a failed run
        print(f"[{master}] FAILED with an exception:", flush=True)
        traceback.print_exc(file=sys.stdout)
    if rows:
        try:
            write_table(args.out, ["time", *job.outputs], rows)
            print(f"[{master}] wrote the {len(rows)} rows recorded before the failure", flush=True)
        except Exception:  # noqa: BLE001
            pass
    return EXIT_FAILED
