"""Scenarios as data: the FMI Cross-Check layout plus ``scenario.json``.

A scenario is a folder ``<root>/<Model>/<scenario>/`` holding

- ``<Model>_in.csv``: inputs over time (``time`` then one column per FMU input);
- ``<Model>_ref.csv``: the reference outputs (``time`` then one column per signal);
- ``<Model>_ref.opt``: ``StartTime``, ``StopTime``, ``StepSize``, ``RelTol`` lines;
- ``scenario.json``: the parameters to set, the signals to compare with their
  bounds, and optionally ``interpolation``, ``step_sizes``, ``analytic`` and
  ``crosscheck`` (see README.md).

A *twin scenario* (``"twin_of": "<Model>/<scenario>"``) has only its
``scenario.json``: it runs another model's scenario unchanged (files, bounds,
steps, checks) under its own model name, for an FMU built from a circuit
description that reproduces a written-out circuit.

Nothing in this module depends on a model.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.tables import Table, read_table

INTERPOLATIONS = ("step", "linear")


class ScenarioError(Exception):
    """A scenario folder that cannot be used (missing file, bad field)."""


@dataclass
class Bounds:
    """Acceptance bounds of one compared signal (SI units)."""

    rel_rms_percent: float  # RMS(result - ref) / mean |ref|, in %
    max_abs: float  # max |result - ref|, in the signal's unit
    # % of the samples allowed outside FMPy's band (the FMI Cross-Check
    # criterion); 0 unless the scenario allows a few, e.g. for the spikes of
    # a piston hitting its stop a sample or two off in time.
    band_outside_percent: float = 0.0


@dataclass
class AnalyticCheck:
    """A value the model description derives analytically: ``signal`` at ``time`` (s)
    must equal ``value`` within ``rel_tol`` (relative) or ``abs_tol``."""

    signal: str
    time: float
    value: float
    rel_tol: float | None = None
    abs_tol: float | None = None
    note: str = ""

    def tolerance(self) -> float:
        """Largest accepted |computed - value|."""
        tols = []
        if self.rel_tol is not None:
            tols.append(self.rel_tol * abs(self.value))
        if self.abs_tol is not None:
            tols.append(self.abs_tol)
        return max(tols)

    def describe(self) -> str:
        parts = []
        if self.rel_tol is not None:
            parts.append(f"rel {self.rel_tol:g}")
        if self.abs_tol is not None:
            parts.append(f"abs {self.abs_tol:g}")
        return f"{self.signal}({self.time:g} s) = {self.value:.10g} ({', '.join(parts)})"


@dataclass
class Options:
    """The ``_ref.opt`` file: experiment start/stop (s), step (s), tolerance."""

    start_time: float
    stop_time: float
    step_size: float
    rel_tol: float | None


# The harness's solver modes (`run --solver-mode`).
SOLVER_MODES = ("adaptive", "fixed", "ahead")


@dataclass
class Scenario:
    """One scenario of one model, read from its folder."""

    model: str
    name: str
    folder: Path
    spec: dict
    options: Options
    inputs_file: Path
    reference_file: Path
    signals: dict[str, Bounds]
    parameters: dict
    interpolation: str
    step_sizes: list[float]
    analytic: list[AnalyticCheck] = field(default_factory=list)
    crosscheck_file: Path | None = None
    generated_by: str | None = None
    # A scenario whose parameters choose a co-simulation-only feature (a
    # trained surrogate that updates once per sample period): Model
    # Exchange masters do not run it.
    co_simulation_only: bool = False
    # The harness's solver modes that run the scenario; one whose
    # parameters choose the integrator itself runs in "adaptive" (no
    # override) only.
    solver_modes: tuple[str, ...] = SOLVER_MODES
    # The description file (relative to the repository) the FMU is built
    # from by the engine (`build-fmu --circuit FILE`), for a circuit that
    # exists only as a description: while its FMU is missing the harness
    # skips the scenario and says how to build it.
    built_from: str | None = None
    # A twin scenario (``twin_of``): the key of the scenario it inherits
    # everything from, and the twin's parameters that this model's circuit
    # description fixes instead (``twin_parameters_fixed_by_description``):
    # recorded, not set, since the described FMU has no such variables.
    twin_of: str | None = None
    fixed_parameters: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.model}/{self.name}"

    def inputs(self) -> Table:
        return read_table(self.inputs_file)

    def reference(self) -> Table:
        return read_table(self.reference_file)


def parse_options(path: Path) -> Options:
    """Read a Cross-Check ``.opt`` file (``Key, value`` lines)."""
    values = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, value = line.partition(",")
        try:
            values[key.strip()] = float(value.strip())
        except ValueError:
            raise ScenarioError(f"{path}: bad line {line!r}") from None
    missing = [k for k in ("StartTime", "StopTime", "StepSize") if k not in values]
    if missing:
        raise ScenarioError(f"{path}: missing {', '.join(missing)}")
    options = Options(values["StartTime"], values["StopTime"], values["StepSize"], values.get("RelTol"))
    if not options.stop_time > options.start_time or not options.step_size > 0:
        raise ScenarioError(f"{path}: need StopTime > StartTime and StepSize > 0")
    return options


# What a twin scenario takes from its twin and may therefore not state
# itself: the files, the parameters, the compared signals and their bounds,
# the steps and the checks. The rest of its scenario.json (model, scenario,
# twin_of, built_from, description, notes) is its own.
TWIN_INHERITED = ("inputs", "reference", "options", "parameters", "signals", "interpolation", "step_sizes",
                  "analytic", "crosscheck", "generated_by", "co_simulation_only", "solver_modes")
TWIN_FIXED_FLAG = "twin_parameters_fixed_by_description"


def load_scenario(folder: Path) -> Scenario:
    """Read one scenario folder; raises ``ScenarioError`` when it is unusable."""
    folder = Path(folder).resolve()
    spec_path = folder / "scenario.json"
    try:
        spec = json.loads(spec_path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ScenarioError(f"{spec_path}: {err}") from None
    if not isinstance(spec, dict):
        raise ScenarioError(f"{spec_path}: not a JSON object")
    model = spec.get("model", folder.parent.name)
    if model != folder.parent.name:
        raise ScenarioError(f"{spec_path}: model {model!r} but the folder is {folder.parent.name!r}")
    name = spec.get("scenario", folder.name)
    if "twin_of" in spec:
        return load_twin(folder, spec, model, name)
    if TWIN_FIXED_FLAG in spec:
        raise ScenarioError(f"{spec_path}: {TWIN_FIXED_FLAG} goes with twin_of")

    def file_field(key: str, default: str) -> Path:
        path = folder / spec.get(key, default)
        if not path.is_file():
            raise ScenarioError(f"{folder}: {key} file {path.name} missing")
        return path

    options = parse_options(file_field("options", f"{model}_ref.opt"))
    interpolation = spec.get("interpolation", "step")
    if interpolation not in INTERPOLATIONS:
        raise ScenarioError(f"{spec_path}: interpolation must be one of {INTERPOLATIONS}, not {interpolation!r}")

    signals = {}
    for signal, bounds in spec.get("signals", {}).items():
        try:
            signals[signal] = Bounds(
                float(bounds["rel_rms_percent"]),
                float(bounds["max_abs"]),
                float(bounds.get("band_outside_percent", 0.0)),
            )
        except (KeyError, TypeError, ValueError):
            raise ScenarioError(f"{spec_path}: signal {signal!r} needs rel_rms_percent and max_abs") from None
    if not signals:
        raise ScenarioError(f"{spec_path}: no signals to compare")

    steps = [options.step_size]
    for h in spec.get("step_sizes", []):
        h = float(h)
        if not h > 0:
            raise ScenarioError(f"{spec_path}: step size {h} must be > 0")
        if not any(math.isclose(h, s, rel_tol=1e-12) for s in steps):
            steps.append(h)

    analytic = []
    for entry in spec.get("analytic", []):
        try:
            check = AnalyticCheck(
                signal=entry["signal"],
                time=float(entry["time"]),
                value=float(entry["value"]),
                rel_tol=None if entry.get("rel_tol") is None else float(entry["rel_tol"]),
                abs_tol=None if entry.get("abs_tol") is None else float(entry["abs_tol"]),
                note=entry.get("note", ""),
            )
        except (KeyError, TypeError, ValueError):
            raise ScenarioError(f"{spec_path}: analytic entry {entry!r} needs signal, time, value") from None
        if check.rel_tol is None and check.abs_tol is None:
            raise ScenarioError(f"{spec_path}: analytic entry {entry!r} needs rel_tol or abs_tol")
        analytic.append(check)

    co_simulation_only = spec.get("co_simulation_only", False)
    if not isinstance(co_simulation_only, bool):
        raise ScenarioError(f"{spec_path}: co_simulation_only must be true or false")
    solver_modes = spec.get("solver_modes", list(SOLVER_MODES))
    if not (isinstance(solver_modes, list) and solver_modes and all(m in SOLVER_MODES for m in solver_modes)):
        raise ScenarioError(f"{spec_path}: solver_modes must be a non-empty list of {SOLVER_MODES}")

    crosscheck = spec.get("crosscheck")
    built_from = spec.get("built_from")
    if built_from is not None and not (isinstance(built_from, str) and built_from.strip()):
        raise ScenarioError(f"{spec_path}: built_from must be the description file's path")
    return Scenario(
        model=model,
        name=name,
        folder=folder,
        spec=spec,
        options=options,
        inputs_file=file_field("inputs", f"{model}_in.csv"),
        reference_file=file_field("reference", f"{model}_ref.csv"),
        signals=signals,
        parameters=dict(spec.get("parameters", {})),
        interpolation=interpolation,
        step_sizes=steps,
        analytic=analytic,
        crosscheck_file=None if crosscheck is None else folder / crosscheck,
        generated_by=spec.get("generated_by"),
        co_simulation_only=co_simulation_only,
        solver_modes=tuple(solver_modes),
        built_from=built_from,
    )


def load_twin(folder: Path, spec: dict, model: str, name: str) -> Scenario:
    """A twin scenario: the scenario ``twin_of`` names (a folder beside this
    model's, ``<root>/<Model>/<scenario>``), read from its own folder, under
    this folder's model and scenario names.

    The twin's parameters are model parameters of the written-out circuit
    (initial pressures, a surrogate's choice); a described circuit's FMU has
    none of them, its description fixes their values. A twin that sets
    parameters is therefore refused unless the scenario states
    ``twin_parameters_fixed_by_description: true`` (its description fixes the
    same values; tests/python/test_described_twins.py checks the two FMUs
    agree): then none of them is set, and they are kept in
    ``fixed_parameters``."""
    spec_path = folder / "scenario.json"
    twin_of = spec["twin_of"]
    parts = twin_of.split("/") if isinstance(twin_of, str) else []
    if len(parts) != 2 or not all(parts):
        raise ScenarioError(f"{spec_path}: twin_of must be \"<Model>/<scenario>\", not {twin_of!r}")
    if parts[0] == model:
        raise ScenarioError(f"{spec_path}: twin_of names a scenario of the same model {model!r}")
    stated = [key for key in TWIN_INHERITED if key in spec]
    if stated:
        raise ScenarioError(f"{spec_path}: a twin scenario takes {', '.join(stated)} from its twin {twin_of} "
                            f"and must not state them")
    fixed = spec.get(TWIN_FIXED_FLAG, False)
    if not isinstance(fixed, bool):
        raise ScenarioError(f"{spec_path}: {TWIN_FIXED_FLAG} must be true or false")
    built_from = spec.get("built_from")
    if built_from is not None and not (isinstance(built_from, str) and built_from.strip()):
        raise ScenarioError(f"{spec_path}: built_from must be the description file's path")
    twin_folder = folder.parent.parent / parts[0] / parts[1]
    if not (twin_folder / "scenario.json").is_file():
        raise ScenarioError(f"{spec_path}: twin_of {twin_of}: no scenario folder {twin_folder}")
    try:
        twin = load_scenario(twin_folder)
    except ScenarioError as err:
        raise ScenarioError(f"{spec_path}: its twin {twin_of} is unusable: {err}") from None
    if twin.twin_of is not None:
        raise ScenarioError(f"{spec_path}: twin_of {twin_of} is itself a twin (of {twin.twin_of}); name that one")
    if twin.parameters and not fixed:
        raise ScenarioError(
            f"{spec_path}: the twin {twin_of} sets the parameters {sorted(twin.parameters)}, which a described "
            f"circuit's FMU does not have; state \"{TWIN_FIXED_FLAG}\": true when the description fixes these "
            f"values, else the scenario cannot be twinned")
    if fixed and not twin.parameters:
        raise ScenarioError(f"{spec_path}: {TWIN_FIXED_FLAG} but the twin {twin_of} sets no parameters")
    return Scenario(
        model=model,
        name=name,
        folder=folder,
        spec={**twin.spec, **spec, "model": model, "scenario": name},
        options=twin.options,
        inputs_file=twin.inputs_file,
        reference_file=twin.reference_file,
        signals=dict(twin.signals),
        parameters={},
        interpolation=twin.interpolation,
        step_sizes=list(twin.step_sizes),
        analytic=list(twin.analytic),
        crosscheck_file=twin.crosscheck_file,
        generated_by=twin.generated_by,
        co_simulation_only=twin.co_simulation_only,
        solver_modes=twin.solver_modes,
        built_from=built_from,
        twin_of=twin.key,
        fixed_parameters=dict(twin.parameters),
    )


def discover(root: Path) -> tuple[list[Scenario], list[str]]:
    """Every scenario under ``root/<Model>/<scenario>/scenario.json``, sorted,
    and the problems of folders that could not be read."""
    scenarios, problems = [], []
    for spec_path in sorted(Path(root).glob("*/*/scenario.json")):
        try:
            scenarios.append(load_scenario(spec_path.parent))
        except ScenarioError as err:
            problems.append(str(err))
    return scenarios, problems


def communication_points(start: float, stop: float, step: float) -> np.ndarray:
    """The communication grid ``start + k * step``, k = 0..N with
    N = round((stop - start) / step); each point computed from k, not summed."""
    n = int(round((stop - start) / step))
    return start + np.arange(n + 1) * step


def sample_inputs(table: Table, times: np.ndarray, interpolation: str, step: float) -> np.ndarray:
    """Input values at the communication points ``times`` (rows x inputs).

    The rule every runner applies (README.md, "Inputs"): take the last row of
    the input table whose time is <= t (within 1e-9 of the step, to absorb
    rounding); at a time that appears twice (a discontinuity) that is the
    later row. With ``step`` interpolation that row's value holds until the
    next row; with ``linear`` the value is interpolated linearly to the next
    row. Before the first row the first value holds, after the last the last.
    """
    t_in = table.time
    if np.any(np.diff(t_in) < 0):
        raise ScenarioError("input times must be non-decreasing")
    values = table.values[:, 1:]
    eps = 1e-9 * step
    times = np.asarray(times, dtype=float)
    index = np.searchsorted(t_in, times + eps, side="right") - 1
    # before the first row: the first value (index clipped to 0)
    out = values[np.clip(index, 0, len(t_in) - 1)].astype(float)
    if interpolation != "step":
        between = (index >= 0) & (index < len(t_in) - 1)
        between[between] &= ~(t_in[index[between]] >= times[between] - eps)
        i, t = index[between], times[between]
        w = (t - t_in[i]) / (t_in[i + 1] - t_in[i])
        out[between] = values[i] + w[:, None] * (values[i + 1] - values[i])
    return out
