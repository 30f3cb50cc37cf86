"""Shared helpers of the end-to-end FMU tests: where the FMUs and the
validation scenarios are, the error metrics, FMPy log capture and a thin
wrapper over FMPy's low-level FMI 2 / FMI 3 Co-Simulation classes.

The scenarios (``scenario.json`` and the Cross-Check files beside it) are
read by the validation harness's own reader (``harness.scenario``,
``harness.tables``), and the error figures come from ``harness.metrics``:
one definition of each for the harness and these tests.

Everything here is test support; the tests themselves live in ``test_*.py``.
"""

from __future__ import annotations

import math
import os
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pytest
from fmpy import calloc, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)
from fmpy.fmi3 import FMU3Slave
from fmpy.logging import addLoggerProxy
from ctypes import byref

# --------------------------------------------------------------------------
# Where things are
# --------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "validation" / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "validation" / "python"))

from harness.metrics import relative_rms_percent  # noqa: E402
from harness.scenario import Scenario, discover  # noqa: E402
from harness.tables import Table, read_table  # noqa: E402

#: Packaged FMUs (build-fmu output); FMU_DIST_DIR points the suite elsewhere.
DIST = Path(os.environ.get("FMU_DIST_DIR") or REPO / "dist").resolve()
SCENARIO_ROOT = REPO / "validation" / "scenarios"
VENV_BIN = REPO / "target" / "venv" / "bin"

#: Models this suite runs scenarios for (one FMU per model and FMI version).
MODELS = ("OrificeChain",)
#: FMI major versions built by build-fmu.
FMI_VERSIONS = (2, 3)
#: Platform folder of the Linux x86-64 binary inside the archive.
BINARY_FOLDER = {2: "binaries/linux64", 3: "binaries/x86_64-linux"}

BUILD_HINT = "run `cargo run --release -p build-fmu` from the repository root to build it"

STATUS_NAMES = ("OK", "Warning", "Discard", "Error", "Fatal", "Pending")
FMI_ERROR = 3


def fmu_path(model: str, version: int) -> Path:
    """Path of the packaged FMU of `model` for FMI `version` under dist/."""
    return DIST / f"fmi{version}" / f"{model}.fmu"


def require_fmu(model: str, version: int) -> Path:
    """The FMU's path; fails the calling test (not skip) when it is missing."""
    path = fmu_path(model, version)
    if not path.is_file():
        pytest.fail(f"{path} is missing: {BUILD_HINT}", pytrace=False)
    return path


_EXTRACTED: dict[Path, Path] = {}


def extracted(model: str, version: int, tmp_root: Path) -> Path:
    """The FMU unpacked once per session under `tmp_root` (its folder)."""
    path = require_fmu(model, version)
    if path not in _EXTRACTED:
        target = tmp_root / f"fmi{version}-{model}"
        with zipfile.ZipFile(path) as zf:
            zf.extractall(target)
        _EXTRACTED[path] = target
    return _EXTRACTED[path]


# --------------------------------------------------------------------------
# Scenarios (FMI Cross-Check layout + scenario.json)
# --------------------------------------------------------------------------


def discover_scenarios(model: str) -> list[Scenario]:
    """Every scenario folder of ``model`` under validation/scenarios/, read by
    the harness's reader; a folder it cannot read fails the calling test."""
    scenarios, problems = discover(SCENARIO_ROOT)
    problems = [p for p in problems if f"/{model}/" in p]
    if problems:
        raise AssertionError("unreadable scenario folder(s):\n" + "\n".join(problems))
    return [s for s in scenarios if s.model == model]


def fmpy_input(table: Table) -> np.ndarray:
    """A Cross-Check table as the structured array FMPy's ``simulate_fmu``
    takes for ``input`` (field ``time`` first, then one per input)."""
    return np.rec.fromarrays(table.values.T, names=table.columns)


# --------------------------------------------------------------------------
# Error metrics
# --------------------------------------------------------------------------


@dataclass
class SignalError:
    """Errors of one simulated signal against its reference."""

    rel_rms_percent: float
    max_abs: float
    points: int


def on_grid_matches(ref_time: np.ndarray, sim_time: np.ndarray, step: float, start: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (reference row, simulation row) for the reference times
    that lie on the communication grid start + k * step."""
    k = (ref_time - start) / step
    on_grid = np.abs(k - np.round(k)) <= 1e-6
    on_grid &= (ref_time >= sim_time[0] - 1e-12) & (ref_time <= sim_time[-1] + 1e-12)
    ref_idx = np.flatnonzero(on_grid)
    pos = np.clip(np.searchsorted(sim_time, ref_time[ref_idx]), 1, len(sim_time) - 1)
    left, right = sim_time[pos - 1], sim_time[pos]
    sim_idx = np.where(np.abs(left - ref_time[ref_idx]) <= np.abs(right - ref_time[ref_idx]), pos - 1, pos)
    gap = np.abs(sim_time[sim_idx] - ref_time[ref_idx])
    bad = gap > 1e-9 * np.maximum(1.0, np.abs(ref_time[ref_idx]))
    if bad.any():
        t = ref_time[ref_idx][bad][0]
        raise AssertionError(f"no simulation sample at reference time {t} s (nearest {sim_time[sim_idx][bad][0]} s)")
    return ref_idx, sim_idx


def signal_error(reference: np.ndarray, simulated: np.ndarray) -> SignalError:
    """Relative RMS error (RMS of the difference over mean |reference|, in %,
    as the harness computes it) and maximum absolute error."""
    diff = simulated - reference
    rel = relative_rms_percent(diff, reference)
    max_abs = float(np.max(np.abs(diff))) if diff.size else math.nan
    if not np.all(np.isfinite(simulated)):
        rel = max_abs = math.nan
    return SignalError(rel, max_abs, int(diff.size))


# --------------------------------------------------------------------------
# Figures handed to the end-of-session summary (conftest.py prints them)
# --------------------------------------------------------------------------


@dataclass
class TraceFigure:
    """Error of one signal in one (model, scenario, FMI version, step) run."""

    model: str
    scenario: str
    version: int
    step: float
    signal: str
    rel_rms_percent: float
    rel_rms_bound: float
    max_abs: float
    max_abs_bound: float
    points: int

    @property
    def ok(self) -> bool:
        return self.rel_rms_percent < self.rel_rms_bound and self.max_abs < self.max_abs_bound


@dataclass
class SuiteReport:
    """Figures the tests hand to the end-of-session summary."""

    traces: list[TraceFigure] = field(default_factory=list)
    #: (model, version, quantity, value, expected, relative error, limit)
    steady: list[tuple] = field(default_factory=list)
    #: (model, version, checker, verdict)
    checks: list[tuple] = field(default_factory=list)
    #: free-form remarks worth seeing at the end of the run
    notes: list[str] = field(default_factory=list)



# --------------------------------------------------------------------------
# FMU log messages through FMPy
# --------------------------------------------------------------------------


@dataclass
class FmuMessage:
    """One message an FMU sent through the master's logger callback."""

    status: int
    category: str
    message: str

    def __str__(self) -> str:
        label = STATUS_NAMES[self.status] if 0 <= self.status < len(STATUS_NAMES) else str(self.status)
        return f"[{label}] {self.category}: {self.message}"


def _text(value: bytes | None) -> str:
    return value.decode("utf-8", errors="replace") if value else ""


# FMPy formats FMI 2 (variadic, printf-style) log calls in a small C proxy
# (fmpy/logging) that keeps the Python logger in ONE process-wide static
# pointer: whichever FMI 2 callback struct went through addLoggerProxy last
# receives the messages of every FMI 2 instance. So there is exactly one
# Python logger for FMI 2 here, alive for the whole process, and it routes
# messages by instance name.
_SINKS: dict[str, list[FmuMessage]] = {}
UNROUTED: list[tuple[str, FmuMessage]] = []


def _route(instance_name: str, status: int, category: bytes | None, message: bytes | None) -> None:
    record = FmuMessage(int(status), _text(category), _text(message))
    sink = _SINKS.get(instance_name)
    if sink is None:
        UNROUTED.append((instance_name, record))
    else:
        sink.append(record)


def fmi2_log(env, instance_name, status, category, message) -> None:
    """FMI 2 logger (already formatted by FMPy's proxy), routed by instance."""
    try:
        _route(_text(instance_name), status, category, message)
    except Exception:  # never raise into C
        pass


_FMI2_LOGGER = fmi2CallbackLoggerTYPE(fmi2_log)


def fmi2_callbacks() -> fmi2CallbackFunctions:
    """FMI 2 callback functions whose logger is the process-wide router.
    Registering it also points FMPy's static proxy back at the router."""
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = _FMI2_LOGGER
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    return callbacks


class LogCapture:
    """Collects the messages of FMU instances named `instance_name`.

    Use ``logger_for(version)`` as ``simulate_fmu(..., logger=...)``."""

    def __init__(self, instance_name: str):
        self.instance_name = instance_name
        self.messages: list[FmuMessage] = []

    def __enter__(self) -> "LogCapture":
        _SINKS[self.instance_name] = self.messages
        return self

    def __exit__(self, *exc) -> None:
        if _SINKS.get(self.instance_name) is self.messages:
            del _SINKS[self.instance_name]
        # simulate_fmu wrapped fmi2_log in a temporary ctypes callback that
        # FMPy's static proxy still points to: point it back at the router.
        fmi2_callbacks()

    def fmi3_log(self, env, status, category, message) -> None:
        try:
            self.messages.append(FmuMessage(int(status), _text(category), _text(message)))
        except Exception:
            pass

    def logger_for(self, version: int) -> Callable:
        return fmi2_log if version == 2 else self.fmi3_log

    def text(self, last: int = 40) -> str:
        lines = [str(m) for m in self.messages[-last:]]
        return "\n".join(lines) if lines else "(no FMU log messages)"


# Register the router once at import, before any FMI 2 instance exists.
_BOOT_CALLBACKS = fmi2_callbacks()


# --------------------------------------------------------------------------
# Low-level FMI access through FMPy's FMU2Slave / FMU3Slave
# --------------------------------------------------------------------------


@dataclass
class Refusal:
    """What a refused call produced: the exception, the new log messages and
    the FMI call log line FMPy wrote for it."""

    error: FMICallException
    messages: list[FmuMessage] = field(default_factory=list)
    call_line: str = ""


class LowLevelSlave:
    """One Co-Simulation instance driven call by call, the same test code for
    FMI 2 (FMU2Slave) and FMI 3 (FMU3Slave)."""

    def __init__(self, version: int, unzipdir: Path, instance_name: str):
        self.version = version
        self.prefix = f"fmi{version}"
        self.md = read_model_description(str(unzipdir))
        self.instance_name = instance_name
        self.variables = {v.name: v for v in self.md.modelVariables}
        #: FMU log messages of this instance.
        self.messages: list[FmuMessage] = []
        #: FMI calls as FMPy's fmiCallLogger reports them.
        self.calls: list[str] = []
        cls = FMU2Slave if version == 2 else FMU3Slave
        self.fmu = cls(
            guid=self.md.guid,
            unzipDirectory=str(unzipdir),
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=instance_name,
            fmiCallLogger=self.calls.append,
        )
        self._instantiated = False

    # ---- life cycle -----------------------------------------------------

    def instantiate(self, logging_on: bool = False) -> None:
        _SINKS[self.instance_name] = self.messages
        if self.version == 2:
            self._callbacks = fmi2_callbacks()
            self.fmu.instantiate(callbacks=self._callbacks, loggingOn=logging_on)
        else:
            self.fmu.instantiate(loggingOn=logging_on, logMessage=self._fmi3_log)
        self._instantiated = True

    def _fmi3_log(self, env, status, category, message) -> None:
        try:
            self.messages.append(FmuMessage(int(status), _text(category), _text(message)))
        except Exception:
            pass

    def initialize(self, start_time: float = 0.0, stop_time: float | None = None, parameters: dict | None = None) -> None:
        """Sets parameters, then initialization mode in and out."""
        if self.version == 2:
            self.fmu.setupExperiment(startTime=start_time, stopTime=stop_time)
        for name, value in (parameters or {}).items():
            self.set_value(name, value)
        if self.version == 2:
            self.fmu.enterInitializationMode()
        else:
            self.fmu.enterInitializationMode(startTime=start_time, stopTime=stop_time)
        self.fmu.exitInitializationMode()

    def close(self) -> None:
        if self._instantiated:
            try:
                self.fmu.terminate()
            except FMICallException:
                pass
            self.fmu.freeInstance()
            self._instantiated = False
        if _SINKS.get(self.instance_name) is self.messages:
            del _SINKS[self.instance_name]

    def __enter__(self) -> "LowLevelSlave":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- variables --------------------------------------------------------

    def vr(self, name: str) -> int:
        return self.variables[name].valueReference

    def set_value(self, name: str, value: Any) -> None:
        var = self.variables[name]
        vr = [var.valueReference]
        if var.type in ("Real", "Float64"):
            self.set_real(vr, [float(value)])
        elif var.type == "Boolean":
            self.fmu.setBoolean(vr, [bool(value)])
        elif var.type in ("Integer", "Int32"):
            self.set_integer(vr, [int(value)])
        else:
            raise ValueError(f"no setter for {name} of type {var.type}")

    def get(self, names: Sequence[str]) -> list[float]:
        vrs = [self.vr(n) for n in names]
        return list(self.fmu.getReal(vrs) if self.version == 2 else self.fmu.getFloat64(vrs))

    def set_real(self, vrs: Sequence[int], values: Sequence[float]) -> None:
        if self.version == 2:
            self.fmu.setReal(list(vrs), list(values))
        else:
            self.fmu.setFloat64(list(vrs), list(values))

    def set_integer(self, vrs: Sequence[int], values: Sequence[int]) -> None:
        if self.version == 2:
            self.fmu.setInteger(list(vrs), list(values))
        else:
            self.fmu.setInt32(list(vrs), list(values))

    def get_boolean(self, vrs: Sequence[int]) -> list[bool]:
        return list(self.fmu.getBoolean(list(vrs)))

    # ---- stepping ---------------------------------------------------------

    def do_step(self, t: float, h: float) -> None:
        """doStep from `t` by `h`; noSetFMUStatePriorToCurrentPoint is false
        because the tests restore earlier states."""
        self.fmu.doStep(t, h, False)

    def step_grid(self, k_from: int, k_to: int, h: float) -> None:
        """doStep from k_from*h to k_to*h on the grid t_k = k*h."""
        for k in range(k_from, k_to):
            self.do_step(k * h, (k + 1) * h - k * h)

    # ---- FMU state --------------------------------------------------------

    def get_state(self):
        return self.fmu.getFMUState()

    def set_state(self, state) -> None:
        self.fmu.setFMUState(state)

    def free_state(self, state) -> None:
        self.fmu.freeFMUState(state)

    def serialize(self, state) -> bytes:
        return self.fmu.serializeFMUState(state)

    def deserialize(self, data: bytes):
        return self.fmu.deserializeFMUState(data)

    # ---- derivatives ------------------------------------------------------

    def directional_derivative(self, unknowns: Sequence[str], knowns: Sequence[str], seed: Sequence[float]) -> list[float]:
        return list(
            self.fmu.getDirectionalDerivative(
                [self.vr(n) for n in unknowns], [self.vr(n) for n in knowns], list(seed)
            )
        )

    # ---- refused calls ----------------------------------------------------

    def expect_refusal(self, call: Callable[[], Any]) -> Refusal:
        """Runs `call`, which must raise FMPy's FMICallException; returns it
        with the log messages and the call-log line it produced."""
        n_messages, n_calls = len(self.messages), len(self.calls)
        try:
            call()
        except FMICallException as error:
            new_calls = self.calls[n_calls:]
            return Refusal(error, self.messages[n_messages:], new_calls[-1] if new_calls else "")
        raise AssertionError(
            "the call was accepted; expected an FMI error.\n"
            f"FMI calls: {self.calls[n_calls:]}\nFMU log: {[str(m) for m in self.messages[n_messages:]]}"
        )

    def log_text(self, last: int = 30) -> str:
        lines = [str(m) for m in self.messages[-last:]]
        return "\n".join(lines) if lines else "(no FMU log messages)"

    def calls_text(self, last: int = 15) -> str:
        return "\n".join(self.calls[-last:])


def bits(values: Iterable[float]) -> bytes:
    """The exact IEEE-754 bytes of a list of doubles (bit-identity checks)."""
    return np.asarray(list(values), dtype=np.float64).tobytes()
