"""Simulates one run: the part of the sweep that executes in a worker.

A worker (this process when serial, a Dask worker process otherwise)
extracts each FMU once, into a temporary folder that lives as long as the
process, and keeps one FMU instance per thread. Between runs the instance is
reset with ``fmi2Reset`` / ``fmi3Reset``, which puts it back into the state
right after instantiation: every parameter, fixed ones included, can then be
set again, which restoring a saved FMU state taken after initialization
would not allow (fixed parameters cannot change after initialization). A run
that fails frees its instance, and the next run instantiates a fresh one.

``simulate(run, fmu)`` never raises for a failure of the FMU or of the
run: it returns a result with ``status = "failed"`` and the error, the FMU's
last log messages included.
"""

from __future__ import annotations

import atexit
import hashlib
import math
import os
import shutil
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.fmu_info import FmuInfo, read_fmu_info
from sweep import signals, summaries

_cache = threading.local()
_extract_lock = threading.Lock()
_extracted: dict[str, tuple[Path, FmuInfo, object]] = {}  # sha256 -> (folder, info, FMPy description)
_extracted_by: dict[str, int] = {}  # sha256 -> the process that extracted it


def _cleanup() -> None:
    # a forked worker inherits the table; only the extracting process removes
    for sha, (folder, _, _) in _extracted.items():
        if _extracted_by.get(sha) == os.getpid():
            shutil.rmtree(folder.parent, ignore_errors=True)


atexit.register(_cleanup)


def fmu_data(fmu) -> bytes:
    """The FMU archive's bytes from where the backend put them: the bytes
    themselves, a path every worker can read (str or Path), or
    ``("uploaded", name)``: a file that ``Client.upload_file`` placed into
    this Dask worker's local directory (also in a worker that the nanny
    restarted after a crash)."""
    if isinstance(fmu, bytes):
        return fmu
    if isinstance(fmu, tuple) and len(fmu) == 2 and fmu[0] == "uploaded":
        from distributed import get_worker

        return (Path(get_worker().local_directory) / fmu[1]).read_bytes()
    return Path(fmu).read_bytes()


def _extract(sha256: str, fmu) -> tuple[Path, FmuInfo, object]:
    """The FMU's folder, once per process (by content: two sweeps of one FMU
    share it)."""
    with _extract_lock:
        found = _extracted.get(sha256)
        if found is not None:
            return found
        from fmpy.model_description import read_model_description

        data = fmu_data(fmu)
        if hashlib.sha256(data).hexdigest() != sha256:
            raise RuntimeError("the FMU bytes this worker received do not match the sweep's checksum")
        base = Path(tempfile.mkdtemp(prefix="sweep-fmu-"))
        archive = base / "model.fmu"
        archive.write_bytes(data)
        folder = base / "unzipped"
        with zipfile.ZipFile(archive) as z:
            z.extractall(folder)
        info = read_fmu_info(archive)
        description = read_model_description(str(folder / "modelDescription.xml"), validate=False)
        _extracted[sha256] = (folder, info, description)
        _extracted_by[sha256] = os.getpid()
        return _extracted[sha256]


@dataclass
class _Instance:
    fmu: object  # FMPy FMU2Slave / FMU3Slave
    log: list = field(default_factory=list)  # the FMU's last log messages
    used: bool = False


def _logger(log: list):
    def write(*args):
        # FMI 2 (through FMPy's proxy): env, instance name, status, category, message;
        # FMI 3: env, status, category, message
        try:
            status, message = int(args[-3]), args[-1]
            text = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
            log.append((status, text))
            del log[:-20]
        except Exception:  # noqa: BLE001 - a logger must never raise into the FMU
            pass

    return write


def _instance(sha256: str, folder: Path, description) -> _Instance:
    instances = getattr(_cache, "instances", None)
    if instances is None:
        instances = _cache.instances = {}
    found = instances.get(sha256)
    if found is not None:
        return found
    from fmpy.simulation import instantiate_fmu

    log: list = []
    fmu = instantiate_fmu(str(folder), description, "CoSimulation", logger=_logger(log))
    inst = _Instance(fmu, log)
    instances[sha256] = inst
    return inst


def _drop_instance(sha256: str) -> None:
    instances = getattr(_cache, "instances", {})
    inst = instances.pop(sha256, None)
    if inst is not None:
        try:
            inst.fmu.freeInstance()
        except Exception:  # noqa: BLE001 - it failed already; the process goes on
            pass


def instantiations() -> int:
    """How many instances this thread holds (for tests)."""
    return len(getattr(_cache, "instances", {}))


class _Access:
    """Typed get/set by name for FMI 2 and 3 through FMPy."""

    def __init__(self, fmu, info: FmuInfo):
        self.fmu, self.info = fmu, info
        self.v3 = info.major == 3

    def set(self, name: str, value) -> None:
        var = self.info.variables[name]
        vr = [var.value_reference]
        kind = var.kind
        if self.v3:
            setter = {
                "Float64": self.fmu.setFloat64, "Float32": self.fmu.setFloat32, "Int32": self.fmu.setInt32,
                "Int64": self.fmu.setInt64, "UInt64": self.fmu.setUInt64, "Boolean": self.fmu.setBoolean,
                "Int8": self.fmu.setInt8, "UInt8": self.fmu.setUInt8, "Int16": self.fmu.setInt16,
                "UInt16": self.fmu.setUInt16, "UInt32": self.fmu.setUInt32, "Enumeration": self.fmu.setInt64,
            }[var.type]
        else:
            setter = {"real": self.fmu.setReal, "integer": self.fmu.setInteger, "boolean": self.fmu.setBoolean}[kind]
        cast = {"real": float, "integer": int, "boolean": bool}[kind]
        setter(vr, [cast(value)])

    def getter(self, names: list[str]):
        """A function returning the values of ``names`` as a float array: one
        FMI call per type. In the common all-real case it calls the FMU's
        getter directly (through FMPy's status check) into an array allocated
        once, and returns a view of it, valid until the next call."""
        import ctypes

        groups: dict[str, list[tuple[int, int]]] = {}
        for i, name in enumerate(names):
            var = self.info.variables[name]
            groups.setdefault(var.type, []).append((i, var.value_reference))
        n = len(names)
        real = "Float64" if self.v3 else "Real"
        if set(groups) == {real}:  # then the group is ``names`` in order
            vrs = (ctypes.c_uint32 * n)(*[vr for _, vr in groups[real]])
            values = (ctypes.c_double * n)()
            view = np.frombuffer(values, dtype=np.float64, count=n)
            component = self.fmu.component
            raw = self.fmu.fmi3GetFloat64 if self.v3 else self.fmu.fmi2GetReal
            args = (component, vrs, n, values, n) if self.v3 else (component, vrs, n, values)

            def get_real() -> np.ndarray:
                raw(*args)
                return view

            return get_real
        calls = []
        for type_name, items in groups.items():
            index = [i for i, _ in items]
            refs = [vr for _, vr in items]
            if self.v3:
                fn = getattr(self.fmu, f"get{'Int64' if type_name == 'Enumeration' else type_name}")
            else:
                fn = {"Real": self.fmu.getReal, "Integer": self.fmu.getInteger, "Enumeration": self.fmu.getInteger,
                      "Boolean": self.fmu.getBoolean}[type_name]
            calls.append((fn, refs, index))

        def get() -> np.ndarray:
            out = np.empty(n)
            for fn, refs, index in calls:
                out[index] = np.asarray(fn(refs), dtype=float)
            return out

        return get

    def stepper(self):
        """``step(t, h)``: one doStep, with its arguments allocated once."""
        import ctypes

        component = self.fmu.component
        if self.v3:
            flags = [ctypes.c_bool(), ctypes.c_bool(), ctypes.c_bool()]
            last = ctypes.c_double()
            refs = [ctypes.byref(f) for f in flags] + [ctypes.byref(last)]
            raw = self.fmu.fmi3DoStep

            def step(t: float, h: float) -> None:
                raw(component, t, h, True, *refs)
                if flags[1].value:
                    raise RuntimeError(f"the FMU asked to terminate the simulation at t = {t + h:g} s")

            return step
        raw2 = self.fmu.fmi2DoStep

        def step2(t: float, h: float) -> None:
            raw2(component, t, h, 1)

        return step2


def _error_text(err: Exception, log: list) -> str:
    text = str(err) or type(err).__name__
    messages = [m for status, m in log if status >= 1]
    if messages:
        text += " | FMU: " + " / ".join(messages[-3:])
    return text


def simulate(run: dict, fmu) -> dict:
    """Simulate one run; ``fmu`` says where the FMU archive is (``fmu_data``;
    read only the first time this process sees the FMU). Returns ``{index,
    key, status, error, summaries, counters, traces, steps, wall_s}``."""
    started = time.perf_counter()
    result = {"index": run["index"], "key": run["key"], "status": "ok", "error": "", "summaries": {}, "counters": {},
              "traces": None, "steps": 0}
    sha = run["fmu_sha256"]
    inst = None
    try:
        folder, info, description = _extract(sha, fmu)
        inst = _instance(sha, folder, description)
        _run(run, info, inst, result, folder)
    except Exception as err:  # noqa: BLE001 - every failure becomes a recorded result
        result["status"] = "failed"
        result["error"] = _error_text(err, inst.log if inst else [])
        result["summaries"] = {k["name"]: math.nan for k in run["keep"]}
        _drop_instance(sha)
    result["wall_s"] = time.perf_counter() - started
    return result


def simulate_chunk(runs: list[dict], fmu) -> list[dict]:
    """``simulate`` for each run of a chunk, in order (one Dask task)."""
    return [simulate(run, fmu) for run in runs]


def _run(run: dict, info: FmuInfo, inst: _Instance, result: dict, folder: Path) -> None:
    fmu = inst.fmu
    inst.log.clear()
    if inst.used:
        fmu.reset()
    inst.used = True
    access = _Access(fmu, info)
    times = run["start_time"] + np.arange(int(round((run["stop_time"] - run["start_time"]) / run["step"])) + 1) * run["step"]
    step = run["step"]
    inputs = {name: signals.values_at(spec, times, step) for name, spec in run["inputs"].items()}
    settings = run["settings"]
    structural = [n for n in settings if info.variables[n].causality == "structuralParameter"]
    if structural:
        fmu.enterConfigurationMode()
        for name in structural:
            access.set(name, settings[name])
        fmu.exitConfigurationMode()
    for name, value in settings.items():
        if name not in structural:
            access.set(name, value)
    for name, values in inputs.items():
        access.set(name, values[0])
    if info.major == 3:
        fmu.enterInitializationMode(tolerance=run["tolerance"], startTime=times[0], stopTime=times[-1])
    else:
        fmu.setupExperiment(tolerance=run["tolerance"], startTime=times[0], stopTime=times[-1])
        fmu.enterInitializationMode()
    fmu.exitInitializationMode()

    outputs = run["outputs"]
    get = access.getter(outputs)
    recorded = np.empty((len(times), len(outputs)))
    recorded[0] = get()
    input_names = list(inputs)
    setters = [(access, name, inputs[name]) for name in input_names]
    do_step = access.stepper()
    for k in range(len(times) - 1):
        for acc, name, values in setters:
            if k == 0 or values[k] != values[k - 1]:
                acc.set(name, values[k])
        do_step(float(times[k]), step)
        recorded[k + 1] = get()
    result["steps"] = len(times) - 1
    if not np.all(np.isfinite(recorded)):
        raise RuntimeError("an output is not finite")
    counters = [n for n in ("solver_steps", "solver_rejected", "solver_rhs_evals", "solver_jacobian_evals") if n in info.variables]
    if counters:
        result["counters"] = dict(zip(counters, (int(v) for v in access.getter(counters)())))
    fmu.terminate()

    column = {name: recorded[:, i] for i, name in enumerate(outputs)}
    for keep in run["keep"]:
        if keep["summary"] == "resonance":
            # the operating point: the run's settings and its inputs at the start
            point = dict(settings)
            point.update({name: values[0] for name, values in inputs.items()})
            value = summaries.resonance(folder.parent / "model.fmu", keep["signal"], keep["options"], point)
        else:
            value = summaries.compute(keep["summary"], keep["options"], times, column[keep["signal"]])
        result["summaries"][keep["name"]] = value
    if run["traces"]:
        every = run["trace_every"]
        result["traces"] = {"time": times[::every].copy(), **{n: column[n][::every].copy() for n in run["traces"]}}
