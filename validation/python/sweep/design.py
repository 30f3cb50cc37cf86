"""The design file: what to run, what to vary, what to keep (README.md).

``load_study(path)`` reads and checks a TOML design file against the FMU's
model description and returns a ``Study``; ``Study.runs()`` expands its
design into runs, each a plain, picklable specification that a worker
simulates without reading any file. Every value inside is SI; the file may
give a value in a display unit of the FMU (``unit = "bar"``), converted here
with the FMU's own ``UnitDefinitions``.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.fmu_info import FmuInfo, FmuInfoError, read_fmu_info
from harness.tables import read_table
from sweep import REPO_ROOT
from sweep import signals
from sweep.summaries import KINDS as SUMMARY_KINDS

DESIGN_KINDS = ("full_factorial", "latin_hypercube", "monte_carlo", "table")
DISTRIBUTIONS = {
    "uniform": ("low", "high"),
    "normal": ("mean", "std"),
    "lognormal": ("median", "sigma"),
    "triangular": ("low", "mode", "high"),
    "truncated_normal": ("mean", "std", "low", "high"),
}


class StudyError(Exception):
    """A design file that cannot be run, with the reason."""


@dataclass
class Factor:
    """One varied quantity: an FMU variable (``ps``) or a field of an input
    signal (``U.amplitude``)."""

    name: str
    spec: dict
    unit: str  # unit the file writes this factor's values in ("" = SI)
    si_unit: str
    scale: tuple[float, float]  # shown = factor * SI + offset
    kind: str  # "real", "integer" or "boolean"
    delta: bool = False  # a difference (no offset in the conversion)

    @property
    def input_field(self) -> tuple[str, str] | None:
        if "." in self.name:
            signal, _, name = self.name.partition(".")
            return signal, name
        return None

    def to_si(self, shown: float) -> float:
        factor, offset = self.scale
        return (shown - (0.0 if self.delta else offset)) / factor

    def shown(self, si: float) -> float:
        """An SI value in the unit the design file writes this factor in."""
        factor, offset = self.scale
        return si * factor + (0.0 if self.delta else offset)

    def coerce(self, si: float):
        if self.kind == "integer":
            return int(round(si))
        if self.kind == "boolean":
            return bool(si > 0.5)
        return float(si)


@dataclass
class Keep:
    """One summary quantity kept per run (``summaries.py``)."""

    name: str
    signal: str
    summary: str
    options: dict  # SI


@dataclass
class Study:
    path: Path
    title: str
    fmu: Path
    fmu_sha256: str
    info: FmuInfo
    start_time: float
    stop_time: float
    step: float
    tolerance: float | None
    fixed: dict  # variable -> typed SI value
    inputs: dict  # input name -> signal spec (SI, table loaded)
    factors: list[Factor]
    design: dict
    keep: list[Keep]
    traces: list[str] = field(default_factory=list)
    trace_every: int = 1

    @property
    def outputs(self) -> list[str]:
        """Signals the workers record: those of the summaries, then the traces."""
        names = []
        for name in [k.signal for k in self.keep if k.summary != "resonance"] + self.traces:
            if name not in names:
                names.append(name)
        return names

    def design_values(self) -> list[list[float]]:
        """The design's value of each factor in each run, in the factors' own
        units (as the file writes them), before rounding to integers."""
        return _design_values(self)

    def runs(self) -> list[dict]:
        """Every run as the specification a worker needs (plain data)."""
        runs = []
        for index, shown in enumerate(self.design_values()):
            values = {f.name: f.coerce(f.to_si(v)) for f, v in zip(self.factors, shown)}
            settings = dict(self.fixed)
            inputs = copy.deepcopy(self.inputs)
            for f in self.factors:
                if f.input_field:
                    signal, name = f.input_field
                    inputs[signal][name] = values[f.name]
                else:
                    settings[f.name] = values[f.name]
            spec = {
                "index": index,
                "fmu_sha256": self.fmu_sha256,
                "start_time": self.start_time,
                "stop_time": self.stop_time,
                "step": self.step,
                "tolerance": self.tolerance,
                "settings": settings,
                "inputs": inputs,
                "outputs": self.outputs,
                "keep": [k.__dict__ for k in self.keep],
                "traces": list(self.traces),
                "trace_every": self.trace_every,
                "values": values,
            }
            spec["key"] = run_key(spec)
            runs.append(spec)
        return runs


def run_key(spec: dict) -> str:
    """A digest of everything that decides a run's result: a journal entry
    with this key is this run's result (resume after a change of the design
    reruns exactly the runs the change touches)."""

    def plain(value):
        if isinstance(value, np.ndarray):
            return [float(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    body = {k: v for k, v in spec.items() if k != "key"}
    text = json.dumps(plain(body), sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StudyError(f"{where}: expected a number, got {value!r}")
    if not math.isfinite(value):
        raise StudyError(f"{where}: {value!r} is not finite")
    return float(value)


def unit_scale(info: FmuInfo, variable: str, unit: str, where: str) -> tuple[str, tuple[float, float]]:
    """The SI unit of ``variable`` and the conversion ``shown = factor * SI +
    offset`` of ``unit`` (a display unit of it, or its SI unit)."""
    var = info.variables[variable]
    conversion = info.unit_conversion(variable, unit or var.unit)
    if conversion is None:
        known = info.units_of(variable)
        raise StudyError(
            f"{where}: unit {unit!r} is not a unit of {variable} (SI {var.unit or 'none'}); "
            f"the FMU knows {', '.join(repr(k) for k in known) or 'no unit for it'}"
        )
    return var.unit, conversion


def _value_with_unit(info: FmuInfo, variable: str, raw, where: str):
    """A ``fixed`` entry: a number (SI) or ``{value = .., unit = ".."}``."""
    if isinstance(raw, dict):
        unknown = set(raw) - {"value", "unit"}
        if unknown or "value" not in raw:
            raise StudyError(f"{where}: write a number, or {{value = ..., unit = \"...\"}}")
        _, (factor, offset) = unit_scale(info, variable, str(raw.get("unit", "")), where)
        if isinstance(raw["value"], bool):
            return raw["value"]
        return (_number(raw["value"], where) - offset) / factor
    if isinstance(raw, bool):
        return raw
    return _number(raw, where)


def _settable(info: FmuInfo, name: str, where: str) -> None:
    var = info.variables.get(name)
    if var is None:
        raise StudyError(f"{where}: the FMU has no variable {name!r}")
    if var.causality not in ("parameter", "structuralParameter", "input"):
        raise StudyError(f"{where}: {name} has causality {var.causality}; only parameters and inputs can be set")
    if var.variability == "constant":
        raise StudyError(f"{where}: {name} is a constant")
    if var.kind not in ("real", "integer", "boolean"):
        raise StudyError(f"{where}: {name} is of type {var.type}, which the sweep tool does not set")


def _check_fields(where: str, raw: dict, required, optional, common: set, what: str) -> None:
    """No unknown field, every required one present."""
    allowed = set(required) | set(optional) | common
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise StudyError(f"{where}: unknown field(s) {', '.join(unknown)} for {what} (fields: {', '.join(sorted(allowed))})")
    missing = [f for f in required if f not in raw]
    if missing:
        raise StudyError(f"{where}: {what} needs {', '.join(missing)}")


def _load_input(info: FmuInfo, name: str, raw: dict, folder: Path) -> dict:
    where = f"[inputs.{name}]"
    var = info.variables.get(name)
    if var is None or var.causality != "input":
        inputs = sorted(v.name for v in info.variables.values() if v.causality == "input")
        raise StudyError(f"{where}: {name!r} is not an input of the FMU (its inputs: {', '.join(inputs) or 'none'})")
    if not isinstance(raw, dict) or raw.get("kind") not in signals.KINDS:
        raise StudyError(f"{where}: kind must be one of {', '.join(signals.KINDS)}")
    kind = raw["kind"]
    required, optional = signals.KINDS[kind]
    _check_fields(where, raw, required, optional, {"kind", "unit"}, f"kind {kind!r}")
    spec = {"kind": kind, **optional, **{k: v for k, v in raw.items() if k not in ("unit",)}}
    unit = str(raw.get("unit", ""))
    _, (factor, offset) = unit_scale(info, name, unit, where)
    for key in list(spec):
        if key in signals.VALUE_FIELDS:
            spec[key] = (_number(spec[key], f"{where} {key}") - offset) / factor
        elif key in signals.DELTA_FIELDS:
            spec[key] = _number(spec[key], f"{where} {key}") / factor
        elif key in signals.TIME_FIELDS + signals.FREQUENCY_FIELDS + signals.NUMBER_FIELDS:
            spec[key] = _number(spec[key], f"{where} {key}")
    if kind == "random_levels" and not spec["hold"] > 0:
        raise StudyError(f"{where}: hold must be > 0 s")
    if kind == "table":
        path = (folder / str(spec["file"])).resolve()
        try:
            table = read_table(path)
        except (OSError, ValueError) as err:
            raise StudyError(f"{where}: cannot read {path}: {err}") from None
        column = spec["column"] or name
        if column not in table.columns[1:]:
            raise StudyError(f"{where}: {path.name} has no column {column!r} (columns: {', '.join(table.columns[1:])})")
        if spec["interpolation"] not in ("step", "linear"):
            raise StudyError(f"{where}: interpolation must be 'step' or 'linear'")
        if np.any(np.diff(table.time) < 0):
            raise StudyError(f"{where}: the times of {path.name} decrease")
        # the values in the file's own unit (SI, or the spec's unit)
        spec["time_column"] = table.time.copy()
        spec["value_column"] = (table.column(column) - offset) / factor
        spec["file"] = str(path)
    return spec


def _load_factor(info: FmuInfo, study_inputs: dict, name: str, raw: dict) -> Factor:
    where = f"[factors.{name}]"
    if not isinstance(raw, dict):
        raise StudyError(f"{where}: expected a table (levels, low/high or a distribution)")
    unit = str(raw.get("unit", ""))
    if "." in name:
        signal, _, key = name.partition(".")
        if signal not in study_inputs:
            raise StudyError(f"{where}: varies a field of input {signal!r}, which has no [inputs.{signal}] section")
        kind = study_inputs[signal]["kind"]
        required, optional = signals.KINDS[kind]
        if key not in required + tuple(optional) or key in ("file", "column", "interpolation"):
            raise StudyError(f"{where}: {key!r} is not a numeric field of a {kind!r} input")
        si_unit = signals.field_unit(key, info.variables[signal].unit)
        delta = key in signals.DELTA_FIELDS
        if key in signals.VALUE_FIELDS or delta:
            _, scale = unit_scale(info, signal, unit, where)
        elif unit and unit != si_unit:
            raise StudyError(f"{where}: give {key} in {si_unit or 'plain numbers'}, not {unit!r}")
        else:
            scale = (1.0, 0.0)
        kind_of = "integer" if key == "seed" else "real"
        return Factor(name, raw, unit or si_unit, si_unit, scale, kind_of, delta)
    _settable(info, name, where)
    si_unit, scale = unit_scale(info, name, unit, where)
    var = info.variables[name]
    return Factor(name, raw, unit or si_unit, si_unit, scale, var.kind)


def _load_keep(info: FmuInfo, raw, number: int) -> Keep:
    where = f"[[keep]] #{number}"
    if not isinstance(raw, dict) or "signal" not in raw or "summary" not in raw:
        raise StudyError(f"{where}: needs signal and summary")
    signal, summary = str(raw["signal"]), str(raw["summary"])
    if summary not in SUMMARY_KINDS:
        raise StudyError(f"{where}: summary must be one of {', '.join(SUMMARY_KINDS)}, not {summary!r}")
    if signal not in info.variables:
        raise StudyError(f"{where}: the FMU has no variable {signal!r}")
    required, optional = SUMMARY_KINDS[summary]
    _check_fields(where, raw, required, optional, {"name", "signal", "summary", "unit"}, f"summary {summary!r}")
    options = {**optional, **{k: v for k, v in raw.items() if k not in ("name", "signal", "summary", "unit")}}
    if "threshold" in options:
        _, (factor, offset) = unit_scale(info, signal, str(raw.get("unit", "")), where)
        options["threshold"] = (_number(options["threshold"], f"{where} threshold") - offset) / factor
    if summary == "crossing" and options["direction"] not in ("rising", "falling", "either"):
        raise StudyError(f"{where}: direction must be rising, falling or either")
    if summary == "resonance":
        source = str(options["input"])
        if source not in info.variables or info.variables[source].causality != "input":
            raise StudyError(f"{where}: input {source!r} is not an input of the FMU")
        if info.major != 3:
            raise StudyError(f"{where}: the frequency-response tool runs FMI 3 FMUs; use the FMU from dist/fmi3/")
    name = str(raw.get("name", f"{signal}_{summary}"))
    return Keep(name, signal, summary, options)


def load_study(path: Path) -> Study:
    """Read and check a design file; raises ``StudyError`` saying what is wrong."""
    path = Path(path).resolve()
    try:
        raw = tomllib.loads(path.read_text())
    except OSError as err:
        raise StudyError(f"cannot read {path}: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise StudyError(f"{path}: not valid TOML: {err}") from None
    folder = path.parent
    known = {"title", "fmu", "start_time", "stop_time", "step", "tolerance", "fixed", "inputs", "factors", "design", "keep", "traces"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise StudyError(f"{path.name}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    if "fmu" not in raw:
        raise StudyError(f"{path.name}: no fmu = \"...\" (the .fmu file, relative to the design file)")
    fmu = (folder / str(raw["fmu"])).resolve()
    if not fmu.is_file():
        hint = " (build the FMUs: cargo run --release -p build-fmu)" if "dist" in fmu.parts else ""
        raise StudyError(f"{path.name}: FMU {fmu} not found{hint}")
    try:
        info = read_fmu_info(fmu)
    except FmuInfoError as err:
        raise StudyError(str(err)) from None
    data = fmu.read_bytes()
    fmu_sha256 = hashlib.sha256(data).hexdigest()

    start = _number(raw.get("start_time", 0.0), "start_time")
    if "stop_time" not in raw or "step" not in raw:
        raise StudyError(f"{path.name}: needs stop_time and step (the communication step, s)")
    stop = _number(raw["stop_time"], "stop_time")
    step = _number(raw["step"], "step")
    if not stop > start or not step > 0:
        raise StudyError(f"{path.name}: need stop_time > start_time and step > 0")
    if (stop - start) / step > 5e7:
        raise StudyError(f"{path.name}: {(stop - start) / step:.3g} steps per run is more than this tool is for")
    tolerance = raw.get("tolerance")
    if tolerance is not None:
        tolerance = _number(tolerance, "tolerance")

    for section in ("fixed", "inputs", "factors", "design", "traces"):
        if not isinstance(raw.get(section, {}), dict):
            raise StudyError(f"{path.name}: [{section}] must be a table (a [{section}] section)")
    if not isinstance(raw.get("keep", []), list):
        raise StudyError(f"{path.name}: keep must be a list of [[keep]] tables")
    fixed = {}
    for name, value in raw.get("fixed", {}).items():
        where = f"[fixed] {name}"
        _settable(info, name, where)
        fixed[name] = _coerce(info, name, _value_with_unit(info, name, value, where))
    inputs = {name: _load_input(info, name, spec, folder) for name, spec in raw.get("inputs", {}).items()}
    for name in inputs:
        if name in fixed:
            raise StudyError(f"input {name} is both in [fixed] and in [inputs]")
    factors = [_load_factor(info, inputs, name, spec) for name, spec in raw.get("factors", {}).items()]
    for f in factors:
        if f.name in fixed or f.name in inputs:
            raise StudyError(f"[factors.{f.name}]: {f.name} is also set in [fixed] or [inputs]")
    keep = [_load_keep(info, item, i + 1) for i, item in enumerate(raw.get("keep", []))]
    names = [k.name for k in keep]
    if len(set(names)) != len(names):
        raise StudyError("[[keep]]: two summaries have the same name; give each a name = \"...\"")
    reserved = {"run", "status", "error", "steps", "wall_s", "solver_steps", "solver_rejected", "solver_rhs_evals",
                "solver_jacobian_evals"}
    clash = set(names) & ({f.name for f in factors} | reserved)
    if clash:
        raise StudyError(f"[[keep]]: name(s) {', '.join(sorted(clash))} already used for a column")
    traces_raw = raw.get("traces", {})
    traces = [str(s) for s in traces_raw.get("signals", [])]
    for name in traces:
        if name not in info.variables:
            raise StudyError(f"[traces]: the FMU has no variable {name!r}")
    every = traces_raw.get("every", 1)
    if not isinstance(every, int) or every < 1:
        raise StudyError("[traces]: every must be a whole number >= 1 (keep every n-th communication point)")
    design = raw.get("design", {})
    if design.get("kind") not in DESIGN_KINDS:
        raise StudyError(f"[design]: kind must be one of {', '.join(DESIGN_KINDS)}")
    if not factors and design["kind"] != "table":
        raise StudyError("[factors]: a design needs at least one factor")
    study = Study(
        path=path,
        title=str(raw.get("title", path.stem)),
        fmu=fmu,
        fmu_sha256=fmu_sha256,
        info=info,
        start_time=start,
        stop_time=stop,
        step=step,
        tolerance=tolerance,
        fixed=fixed,
        inputs=inputs,
        factors=factors,
        design=dict(design),
        keep=keep,
        traces=traces,
        trace_every=every,
    )
    study.design_values()  # checks the design now, not in a worker
    return study


def _coerce(info: FmuInfo, name: str, value):
    kind = info.variables[name].kind
    if kind == "integer":
        if isinstance(value, float) and not value.is_integer():
            raise StudyError(f"{name} is an integer variable; {value!r} is not a whole number")
        return int(value)
    if kind == "boolean":
        return bool(value)
    return float(value)


def _levels(f: Factor) -> list[float]:
    spec = f.spec
    if "levels" in spec:
        levels = spec["levels"]
        if not isinstance(levels, list) or not levels:
            raise StudyError(f"[factors.{f.name}]: levels must be a non-empty list")
        return [_number(v, f"[factors.{f.name}] levels") for v in levels]
    if {"low", "high", "count"} <= set(spec):
        low, high = _number(spec["low"], f.name), _number(spec["high"], f.name)
        count = spec["count"]
        if not isinstance(count, int) or count < 1:
            raise StudyError(f"[factors.{f.name}]: count must be a whole number >= 1")
        return list(_spread(f, np.linspace(0.0, 1.0, count) if count > 1 else np.array([0.5]), low, high))
    raise StudyError(f"[factors.{f.name}]: a full factorial design needs levels = [...] or low, high and count")


def _spread(f: Factor, unit_values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Map values in [0, 1] onto [low, high], linearly or (scale = "log") geometrically."""
    if not high > low:
        raise StudyError(f"[factors.{f.name}]: need high > low")
    if f.spec.get("scale", "linear") == "log":
        if not low > 0:
            raise StudyError(f"[factors.{f.name}]: a log scale needs low > 0")
        return np.exp(np.log(low) + unit_values * (np.log(high) - np.log(low)))
    if f.spec.get("scale", "linear") != "linear":
        raise StudyError(f"[factors.{f.name}]: scale must be 'linear' or 'log'")
    return low + unit_values * (high - low)


def _runs_and_seed(design: dict) -> tuple[int, int]:
    runs, seed = design.get("runs"), design.get("seed")
    if not isinstance(runs, int) or runs < 1:
        raise StudyError(f"[design]: {design['kind']} needs runs = N (a whole number >= 1)")
    if not isinstance(seed, int) or seed < 0:
        raise StudyError(f"[design]: {design['kind']} needs seed = N (a whole number >= 0) so that it repeats")
    return runs, seed


def _sample(f: Factor, rng: np.random.Generator, n: int) -> np.ndarray:
    spec = f.spec
    name = spec.get("distribution")
    if name not in DISTRIBUTIONS:
        raise StudyError(f"[factors.{f.name}]: a Monte Carlo design needs distribution = one of {', '.join(DISTRIBUTIONS)}")
    missing = [p for p in DISTRIBUTIONS[name] if p not in spec]
    if missing:
        raise StudyError(f"[factors.{f.name}]: distribution {name} needs {', '.join(missing)}")
    p = {k: _number(spec[k], f"[factors.{f.name}] {k}") for k in DISTRIBUTIONS[name]}
    if name == "uniform":
        if not p["high"] > p["low"]:
            raise StudyError(f"[factors.{f.name}]: need high > low")
        return rng.uniform(p["low"], p["high"], n)
    if name == "normal":
        if not p["std"] >= 0:
            raise StudyError(f"[factors.{f.name}]: need std >= 0")
        return rng.normal(p["mean"], p["std"], n)
    if name == "lognormal":
        if not (p["median"] > 0 and p["sigma"] >= 0):
            raise StudyError(f"[factors.{f.name}]: need median > 0 and sigma >= 0")
        return p["median"] * np.exp(rng.normal(0.0, p["sigma"], n))
    if name == "triangular":
        if not p["low"] <= p["mode"] <= p["high"] or not p["high"] > p["low"]:
            raise StudyError(f"[factors.{f.name}]: need low <= mode <= high, low < high")
        return rng.triangular(p["low"], p["mode"], p["high"], n)
    # truncated normal: redraw the samples outside [low, high]
    if not (p["std"] > 0 and p["high"] > p["low"]):
        raise StudyError(f"[factors.{f.name}]: need std > 0 and high > low")
    out = rng.normal(p["mean"], p["std"], n)
    for _ in range(1000):
        bad = (out < p["low"]) | (out > p["high"])
        if not bad.any():
            return out
        out[bad] = rng.normal(p["mean"], p["std"], int(bad.sum()))
    raise StudyError(f"[factors.{f.name}]: [low, high] holds too little of the normal distribution")


def _design_values(study: Study) -> list[list[float]]:
    design, factors = study.design, study.factors
    kind = design["kind"]
    if kind == "full_factorial":
        return [list(row) for row in itertools.product(*[_levels(f) for f in factors])]
    if kind == "latin_hypercube":
        from scipy.stats import qmc

        runs, seed = _runs_and_seed(design)
        for f in factors:
            if "low" not in f.spec or "high" not in f.spec:
                raise StudyError(f"[factors.{f.name}]: a Latin hypercube design needs low and high")
        unit = qmc.LatinHypercube(d=len(factors), rng=np.random.default_rng(seed)).random(runs)
        columns = [_spread(f, unit[:, i], _number(f.spec["low"], f.name), _number(f.spec["high"], f.name)) for i, f in enumerate(factors)]
        return [list(row) for row in np.column_stack(columns)]
    if kind == "monte_carlo":
        runs, seed = _runs_and_seed(design)
        rng = np.random.default_rng(seed)
        columns = [_sample(f, rng, runs) for f in factors]
        return [list(row) for row in np.column_stack(columns)]
    # an explicit table: rows = [[...], ...] in the factors' order, or a CSV file
    if "rows" in design:
        rows = design["rows"]
        if not isinstance(rows, list) or not rows:
            raise StudyError("[design]: rows must be a non-empty list of lists")
        out = []
        for i, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != len(factors):
                raise StudyError(f"[design]: row {i + 1} needs {len(factors)} values ({', '.join(f.name for f in factors)})")
            out.append([_number(v, f"[design] row {i + 1}") for v in row])
        return out
    if "file" in design:
        path = (study.path.parent / str(design["file"])).resolve()
        import csv

        try:
            with open(path, newline="") as handle:
                records = list(csv.DictReader(handle))
        except OSError as err:
            raise StudyError(f"[design]: cannot read {path}: {err}") from None
        out = []
        for i, record in enumerate(records):
            row = []
            for f in factors:
                if f.name not in record:
                    raise StudyError(f"[design]: {path.name} has no column {f.name!r}")
                try:
                    row.append(float(record[f.name]))
                except ValueError:
                    raise StudyError(f"[design]: {path.name} line {i + 2}: {f.name} = {record[f.name]!r} is not a number") from None
            out.append(row)
        if not out:
            raise StudyError(f"[design]: {path.name} has no rows")
        return out
    raise StudyError("[design]: a table design needs rows = [[...], ...] or file = \"runs.csv\"")


def relative_to_repo(path: Path) -> str:
    """A path for messages: relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)
