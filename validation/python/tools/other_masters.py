"""Every FMU's default experiment in FMI masters the project does not ship,
compared with FMPy.

What it does. For each FMU in ``DIST/fmi2`` and ``DIST/fmi3`` (both carry
Co-Simulation and Model Exchange) and each interface a master supports, the
tool runs the FMU's ``DefaultExperiment`` (stop time; its ``stepSize`` as
communication step and output interval) at relative tolerance 1e-6 in:

* OMSimulator's command line (``--omsimulator``): FMI 2 CS (``--mode=cs``)
  and ME (``--mode=me``), FMI 3 CS; FMI 3 ME is not supported by it;
* OMSimulator's Python API (``--omsimulator-python``, the
  ``OMSimulatorPython3`` wrapper, which runs ``python3`` from ``PATH``: the
  tool puts its own interpreter's folder first): ``FMU(path)``, which
  imports an FMU offering both interfaces as Co-Simulation, FMI 2 and 3;
* the reference ``fmusim`` in C (``--fmusim``): CS, and ME with CVODE;
* ``fmusim`` in Rust (``--fmusim-rs``, its ``simulate`` command): CS, and
  ME with its default solver (CVODE);

and the same FMU and interface in FMPy (``fmpy.simulate_fmu``; CVode for ME),
the reference of the comparison. In Model Exchange each master integrates
with its own solver, so a second FMPy solution at 1e-9 shows how much of a
difference is integration error: the column "ME: vs FMPy at 1e-9" gives
each run's largest rel against it (the FMPy row: FMPy's own error at 1e-6). A master left out of the command line is
skipped with a one-line note. Every run is a separate process with a time
limit (``--timeout``, 600 s): a crash, a hang or a refusal is a verdict of
its own, with an excerpt of what the master said.

The SSP files in ``DIST/ssp`` run in OMSimulator's command line
(``OMSimulator X.ssp --stopTime=T --tolerance=1e-6``; its fixed-step master at the step the
system's annotation names, the valve command left at its start value) and
are compared with a Jacobi loop written here: FMPy steps the two FMI 2 FMUs
of the archive at the same communication step, with the archive's parameter
bindings and connections, the inputs of both set from the outputs both had
at the start of the step.

The metric. For every output variable (causality ``output``, real-valued)
found in both results, the master's trace is interpolated linearly onto the
reference's output times inside the span both cover (OMSimulator writes
every row twice: the last row of each time is kept), and

    rel(v) = max_t |master_v(t) - fmpy_v(t)| / scale_v,
    scale_v = max(max_t |fmpy_w(t)| over the compared outputs w with the
                  unit of v, nominal_v)   (1 when that is 0)

with ``nominal_v`` the variable's ``nominal`` attribute (0 when it has
none). Outputs that share a unit share a scale, so that a signal which
stays near zero in the experiment (a loop-closure residual, an energy
balance, a velocity at rest) is measured against its siblings (the link
lengths, the mechanical energy), not against its own round-off. The table shows the largest ``rel`` over the variables and where it
occurs. Verdicts: ``agrees`` (largest rel <= ``--threshold``, 1e-6),
``differs`` (beyond it), ``stopped early`` (the master's trace ends before
the stop time), ``failed`` (non-zero exit, no result file or nothing to
compare), ``timeout``, ``not supported by the master``.

Written to ``--out`` (``target/other-masters``): ``results.md`` (the
table, the SSP table and the commands with ``$OMS``, ``$OMS_PY``,
``$FMUSIM``, ``$FMUSIM_RS`` for the masters), ``results.csv`` (one row per
run, with the full command and message), and each run's folder
``runs/<Model>-fmi<N>-<master>-<cs|me>/`` (result CSV and log).

Example (the masters built by hand somewhere outside the repository):

    target/venv/bin/python validation/python/tools/other_masters.py \\
        --omsimulator $OMS --omsimulator-python $OMS_PY \\
        --fmusim $FMUSIM --fmusim-rs $FMUSIM_RS [--model HoseH] [--fmi-version 3]

The project's tests never call a master; ``validation/python/tests/
test_other_masters.py`` checks the readers, the metric and the table.
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import REPO_ROOT  # noqa: E402
from harness.fmu_info import read_fmu_info  # noqa: E402

TOOL = Path(__file__).resolve()
TOLERANCE = 1e-6
# The tighter tolerance of the second FMPy solution in Model Exchange.
FINE_TOLERANCE = 1e-9
MASTERS = ("omsimulator", "omsimulator-python", "fmusim", "fmusim-rs")
PLACEHOLDERS = {"omsimulator": "$OMS", "omsimulator-python": "$OMS_PY", "fmusim": "$FMUSIM", "fmusim-rs": "$FMUSIM_RS"}
NOT_SUPPORTED = "not supported by the master"


# ---------------------------------------------------------------- the FMUs


@dataclass
class Experiment:
    start: float
    stop: float
    step: float


def default_experiment(fmu: Path) -> Experiment:
    """The ``DefaultExperiment`` of an FMU (stepSize 1e-3 when absent)."""
    with zipfile.ZipFile(fmu) as archive:
        root = ET.fromstring(archive.read("modelDescription.xml"))
    de = root.find("DefaultExperiment")
    get = (lambda k, d: float(de.get(k, d))) if de is not None else (lambda k, d: float(d))
    return Experiment(get("startTime", 0.0), get("stopTime", 1.0), get("stepSize", 1e-3))


def units_and_nominals(fmu: Path, prefix: str = "") -> tuple[dict[str, str], dict[str, float]]:
    """Unit and ``nominal`` attribute of the real variables (FMI 2 and 3),
    each name behind ``prefix``."""
    with zipfile.ZipFile(fmu) as archive:
        root = ET.fromstring(archive.read("modelDescription.xml"))
    units, nominal = {}, {}
    for element in root.iterfind("ModelVariables/*"):
        typed = element.find("Real") if element.tag == "ScalarVariable" else element
        if typed is None:
            continue
        name = prefix + element.get("name")
        if typed.get("unit"):
            units[name] = typed.get("unit")
        elif typed.get("declaredType"):
            units[name] = "type:" + typed.get("declaredType")
        if typed.get("nominal"):
            nominal[name] = abs(float(typed.get("nominal")))
    return units, nominal


def real_outputs(fmu: Path) -> list[str]:
    info = read_fmu_info(fmu)
    return [v.name for v in info.variables.values() if v.causality == "output" and v.kind == "real"]


# ------------------------------------------------------ reading the results


@dataclass
class Trace:
    """A result file: output times and one column per variable."""

    time: np.ndarray
    columns: dict[str, np.ndarray] = field(default_factory=dict)


def _number(text: str) -> float:
    text = text.strip().strip('"')
    try:
        return float(text)
    except ValueError:
        low = text.lower()
        return {"true": 1.0, "false": 0.0}.get(low, float("nan"))


def read_csv_trace(path: Path, wanted: list[str] | None = None) -> Trace:
    """Any of the masters' CSV files: FMPy's, fmusim's (C: quoted header;
    Rust: plain), OMSimulator's (quoted header, ``", "`` separators,
    ``model.system.component.`` prefixes, a column named like the first
    twice, every row written twice).

    A column is taken for a wanted name when it is that name or ends with
    ``.`` + that name (the first such column wins); without ``wanted`` every
    column is kept under its own name. Rows of a repeated time keep the last
    one; the time column is the first column."""
    with Path(path).open(newline="") as f:
        rows = [r for r in csv.reader(f, skipinitialspace=True) if r]
    if not rows:
        raise ValueError(f"{path}: empty file")
    header = [h.strip().strip('"') for h in rows[0]]
    data = np.array([[_number(x) for x in r[: len(header)]] for r in rows[1:] if len(r) >= len(header)], dtype=float)
    if data.size == 0:
        raise ValueError(f"{path}: no data rows")
    t = data[:, 0]
    # keep the last row of each repeated time (OMSimulator writes each twice)
    keep = np.ones(len(t), dtype=bool)
    keep[:-1] = t[1:] != t[:-1]
    data, t = data[keep], t[keep]
    columns: dict[str, np.ndarray] = {}
    for j, name in enumerate(header[1:], start=1):
        if wanted is None:
            columns.setdefault(name, data[:, j])
            continue
        for w in wanted:
            if name == w or name.endswith("." + w):
                columns.setdefault(w, data[:, j])
    return Trace(t, columns)


# ------------------------------------------------------------ the comparison


@dataclass
class Comparison:
    max_rel: float
    variable: str
    compared: int  # number of variables compared
    end: float  # last time the master's trace covers
    each: dict[str, float] = field(default_factory=dict)  # rel of every variable compared


def scales_of(ref: Trace, names: list[str], units: dict[str, str], nominal: dict[str, float]) -> dict[str, float]:
    """``scale_v`` of the module docstring for each name."""
    peak = {n: float(np.nanmax(np.abs(ref.columns[n]))) if len(ref.columns[n]) else 0.0 for n in names}
    by_unit: dict[str, float] = {}
    for n in names:
        u = units.get(n, "")
        if u:
            by_unit[u] = max(by_unit.get(u, 0.0), peak[n])
    out = {}
    for n in names:
        scale = max(peak[n], by_unit.get(units.get(n, ""), 0.0), nominal.get(n, 0.0))
        out[n] = scale if np.isfinite(scale) and scale > 0.0 else 1.0
    return out


def compare(ref: Trace, got: Trace, units: dict[str, str] | None = None,
            nominal: dict[str, float] | None = None) -> Comparison | None:
    """The metric of the module docstring; None when no variable is in both
    or the traces share no time span. ``units``: variable -> unit (outputs
    without one are scaled alone); ``nominal``: variable -> nominal."""
    names = [n for n in ref.columns if n in got.columns]
    if not names or len(got.time) == 0:
        return None
    lo, hi = max(ref.time[0], got.time[0]), min(ref.time[-1], got.time[-1])
    span = max(abs(ref.time[-1]), 1.0)
    mask = (ref.time >= lo - 1e-9 * span) & (ref.time <= hi + 1e-9 * span)
    if not mask.any():
        return None
    t = ref.time[mask]
    scales = scales_of(ref, names, units or {}, nominal or {})
    worst, where, each = -1.0, "", {}
    for name in names:
        r = ref.columns[name]
        scale = scales[name]
        g = np.interp(t, got.time, got.columns[name])
        d = np.abs(g - r[mask])
        rel = float(np.inf) if not np.all(np.isfinite(d)) else float(d.max()) / scale
        each[name] = rel
        if rel > worst:
            worst, where = rel, name
    return Comparison(worst, where, len(names), float(got.time[-1]), each)


# -------------------------------------------------------------------- runs


@dataclass
class Run:
    model: str
    fmi: int
    master: str
    interface: str  # "cs" or "me"
    verdict: str = ""
    max_rel: float | None = None
    variable: str = ""
    compared: int = 0
    each: dict[str, float] = field(default_factory=dict)
    wall: float | None = None
    message: str = ""
    command: str = ""
    # Model Exchange: the largest rel against FMPy at FINE_TOLERANCE (the
    # integration error of this run, as far as a tighter solution shows it).
    fine_rel: float | None = None


def excerpt(text: str, limit: int = 300) -> str:
    """The lines of a master's output that say what went wrong (else its
    last lines), on one line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    keys = ("error", "fatal", "panic", "abort", "segmentation", "exception", "failed", "traceback", "nan")
    picked = [ln for ln in lines if any(k in ln.lower() for k in keys)]
    chosen = (picked[-4:] if picked else lines[-3:])
    one = " | ".join(chosen)
    return one if len(one) <= limit else one[: limit - 3] + "..."


#: folders of the masters given on the command line -> placeholder, so that
#: messages quoting a master's own files do not carry a machine's paths
SCRUB: dict[str, str] = {}


def scrub(text: str) -> str:
    for folder, placeholder in sorted(SCRUB.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(folder, placeholder)
    return text


def run_process(command: list[str], cwd: Path, timeout: float, env: dict | None = None):
    """Run a master in its own process group; (returncode or None on a
    timeout, combined output, wall seconds). A timeout kills the group."""
    start = time.perf_counter()
    with open(cwd / "log.txt", "w") as log:
        proc = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
    wall = time.perf_counter() - start
    return code, scrub((cwd / "log.txt").read_text(errors="replace")), wall


def fmt(x: float) -> str:
    return f"{x:.10g}"


def master_command(master: str, program: str, fmu: Path, fmi: int, interface: str, ex: Experiment, out: str) -> list[str] | None:
    """The command line of a master for one FMU and interface, or None when
    the master does not support the combination."""
    if master == "omsimulator":
        if fmi == 3 and interface == "me":
            return None
        return [program, f"--mode={interface}", f"--tolerance={fmt(TOLERANCE)}", f"--startTime={fmt(ex.start)}",
                f"--stopTime={fmt(ex.stop)}", f"--stepSize={fmt(ex.step)}", f"--resultFile={out}", str(fmu)]
    if master == "omsimulator-python":
        if interface == "me":
            return None
        return [program, str(TOOL), "_oms-python", str(fmu), fmt(ex.stop), fmt(ex.step), out]
    if master == "fmusim":
        cmd = [program, "--interface-type", interface]
        if interface == "me":
            cmd += ["--solver", "cvode"]
        return cmd + ["--tolerance", fmt(TOLERANCE), "--start-time", fmt(ex.start), "--stop-time", fmt(ex.stop),
                      "--output-interval", fmt(ex.step), "--output-file", out, str(fmu)]
    if master == "fmusim-rs":
        cmd = [program, "simulate", "--interface-type", interface]
        if interface == "me":
            cmd += ["--solver", "cvode"]
        return cmd + ["--tolerance", fmt(TOLERANCE), "--set-tolerance", "--start-time", fmt(ex.start),
                      "--stop-time", fmt(ex.stop), "--output-interval", fmt(ex.step), "--output-file", out, str(fmu)]
    raise ValueError(master)


NOT_SUPPORTED_WHY = {
    ("omsimulator", "me", 3): "OMSimulator imports FMI 3 FMUs as Co-Simulation only",
    ("omsimulator-python", "me", 2): "the Python FMU class imports an FMU offering both interfaces as Co-Simulation",
    ("omsimulator-python", "me", 3): "the Python FMU class imports an FMU offering both interfaces as Co-Simulation",
}


def shown_command(command: list[str], program: str, placeholder: str, dist: Path) -> str:
    """The command with the master's path as its placeholder and the FMU
    relative to the repository (or to --dist)."""
    out = []
    for part in command:
        part = part.replace(program, placeholder).replace(sys.executable, "target/venv/bin/python")
        part = part.replace(str(TOOL), "validation/python/tools/other_masters.py")
        for root in (REPO_ROOT, dist.parent):
            part = part.replace(str(root) + os.sep, "")
        out.append(part)
    return " ".join(out)


def venv_env() -> dict:
    """The environment for the OMSimulatorPython3 wrapper: this interpreter's
    folder first on PATH, so that its ``python3`` is ours (lxml, numpy)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def reference_run(fmu: Path, interface: str, ex: Experiment, folder: Path, timeout: float,
                  tolerance: float = 0.0):
    """FMPy's trace of the FMU (a separate process, with the time limit),
    at ``TOLERANCE`` or the given tolerance."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "result.csv"
    cmd = [sys.executable, str(TOOL), "_fmpy", str(fmu), interface, fmt(ex.stop), fmt(ex.step), str(out),
           fmt(tolerance or TOLERANCE)]
    code, log, wall = run_process(cmd, folder, timeout)
    return code, log, wall, out, cmd


def evaluate(run: Run, code, log: str, wall: float, result: Path, ref: Trace | None, wanted: list[str],
             scales: tuple[dict[str, str], dict[str, float]], stop: float, step: float, threshold: float, ref_problem: str = "") -> None:
    run.wall = wall
    if code is None:
        run.verdict, run.message = "timeout", f"no result within the time limit ({wall:.0f} s)"
        return
    if code != 0:
        run.verdict, run.message = "failed", f"exit status {code}: {excerpt(log)}"
        return
    if not result.exists():
        run.verdict, run.message = "failed", f"no result file: {excerpt(log)}"
        return
    try:
        got = read_csv_trace(result, wanted)
    except ValueError as err:
        run.verdict, run.message = "failed", str(err)
        return
    if ref is None:
        run.verdict, run.message = "no reference", ref_problem
        return
    c = compare(ref, got, *scales)
    if c is None:
        run.verdict, run.message = "failed", "no output variable in common with FMPy's result"
        return
    run.max_rel, run.variable, run.compared, run.each = c.max_rel, c.variable, c.compared, c.each
    if c.end < stop - 0.5 * step:
        run.verdict, run.message = "stopped early", f"the trace ends at t = {c.end:g} s: {excerpt(log)}"
    else:
        run.verdict = "agrees" if c.max_rel <= threshold else "differs"
        warnings = [ln for ln in log.splitlines() if "warn" in ln.lower()]
        if warnings:
            run.message = f"{len(warnings)} warning line(s), e.g. {excerpt(warnings[0], 160)}"


# ------------------------------------------------------------- FMU runs


def run_fmus(args, masters: dict[str, str], out: Path) -> list[Run]:
    fmus = []
    for fmi in args.fmi_version:
        for fmu in sorted((args.dist / f"fmi{fmi}").glob("*.fmu")):
            if args.model and fmu.stem not in args.model:
                continue
            fmus.append((fmu, fmi))
    runs: list[Run] = []
    for fmu, fmi in fmus:
        ex = default_experiment(fmu)
        wanted = real_outputs(fmu)
        scales = units_and_nominals(fmu)
        for interface in args.interface:
            folder = out / "runs" / f"{fmu.stem}-fmi{fmi}-fmpy-{interface}"
            code, log, wall, result, _ = reference_run(fmu, interface, ex, folder, args.timeout)
            ref, problem = None, ""
            if code == 0 and result.exists():
                ref = read_csv_trace(result, wanted)
            else:
                problem = "FMPy: " + ("timeout" if code is None else f"exit status {code}: {excerpt(log)}")
            reference = Run(fmu.stem, fmi, "fmpy (reference)", interface, "reference" if ref else "failed",
                            wall=wall, message=problem, command="fmpy.simulate_fmu")
            runs.append(reference)
            fine = None
            if interface == "me":
                # Each master integrates with its own solver: a solution at a
                # tighter tolerance shows how much of a difference is theirs.
                folder = out / "runs" / f"{fmu.stem}-fmi{fmi}-fmpy-fine-{interface}"
                code, _, _, result, _ = reference_run(fmu, interface, ex, folder, args.timeout, FINE_TOLERANCE)
                if code == 0 and result.exists():
                    fine = read_csv_trace(result, wanted)
                    if ref is not None:
                        c = compare(fine, ref, *scales)
                        reference.fine_rel = None if c is None else c.max_rel
            print(f"{fmu.stem} FMI {fmi} {interface.upper()} fmpy: {reference.verdict} ({wall:.1f} s) {problem}", flush=True)
            for master in MASTERS:
                if master not in masters:
                    continue
                run = Run(fmu.stem, fmi, master, interface)
                folder = out / "runs" / f"{fmu.stem}-fmi{fmi}-{master}-{interface}"
                folder.mkdir(parents=True, exist_ok=True)
                cmd = master_command(master, masters[master], fmu, fmi, interface, ex, str(folder / "result.csv"))
                if cmd is None:
                    run.verdict, run.message = NOT_SUPPORTED, NOT_SUPPORTED_WHY[(master, interface, fmi)]
                else:
                    run.command = shown_command(cmd, masters[master], PLACEHOLDERS[master], args.dist)
                    env = venv_env() if master == "omsimulator-python" else None
                    code, log, wall = run_process(cmd, folder, args.timeout, env)
                    evaluate(run, code, log, wall, folder / "result.csv", ref, wanted, scales, ex.stop, ex.step,
                             args.threshold, problem)
                    if fine is not None and (folder / "result.csv").exists() and run.max_rel is not None:
                        c = compare(fine, read_csv_trace(folder / "result.csv", wanted), *scales)
                        run.fine_rel = None if c is None else c.max_rel
                rel = "" if run.max_rel is None else f" max rel {run.max_rel:.2e} ({run.variable})"
                took = "" if run.wall is None else f" {run.wall:.1f} s"
                print(f"  {master} {interface.upper()}: {run.verdict}{took}{rel} {run.message}".rstrip(), flush=True)
                runs.append(run)
    return runs


# ------------------------------------------------------------------ SSP


@dataclass
class SspSystem:
    components: dict[str, str]  # instance name -> resource path in the archive
    parameters: dict[str, dict[str, float]]  # instance -> variable -> value
    connections: list[tuple[str, str, str, str]]  # (from element, connector, to element, connector)
    outputs: dict[str, list[str]]  # instance -> output connectors
    stop: float
    step: float
    tolerance: float


SSD = "{http://ssp-standard.org/SSP1/SystemStructureDescription}"
SSV = "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}"
SSC = "{http://ssp-standard.org/SSP1/SystemStructureCommon}"


def read_ssp(ssp: Path) -> SspSystem:
    """What the Jacobi loop needs from an SSP archive's SystemStructure.ssd:
    components, inline parameter bindings, connections, the default
    experiment's stop time and the communication step (OMSimulator's
    annotation, else the project's, else 1e-3)."""
    with zipfile.ZipFile(ssp) as zf:
        root = ET.fromstring(zf.read("SystemStructure.ssd"))
    system = root.find(f"{SSD}System")
    components, parameters, outputs = {}, {}, {}
    for comp in system.iterfind(f"{SSD}Elements/{SSD}Component"):
        name = comp.get("name")
        components[name] = comp.get("source")
        outputs[name] = [c.get("name") for c in comp.iterfind(f"{SSD}Connectors/{SSD}Connector") if c.get("kind") == "output"]
        parameters[name] = {
            p.get("name"): float(p.find(f"{SSV}Real").get("value"))
            for p in comp.iterfind(f".//{SSV}Parameter") if p.find(f"{SSV}Real") is not None
        }
    connections = [(c.get("startElement"), c.get("startConnector"), c.get("endElement"), c.get("endConnector"))
                   for c in system.iterfind(f"{SSD}Connections/{SSD}Connection")]
    step, tolerance = None, TOLERANCE
    for e in root.iter():
        if e.tag.endswith("FixedStepMaster"):
            step = float(e.get("stepSize"))
            tolerance = float(e.get("relativeTolerance", tolerance))
        elif e.tag.endswith("CommunicationStep") and step is None:
            step = float(e.get("value"))
    de = root.find(f"{SSD}DefaultExperiment")
    stop = float(de.get("stopTime", 1.0)) if de is not None else 1.0
    return SspSystem(components, parameters, connections, outputs, stop, step or 1e-3, tolerance)


def jacobi(ssp: Path, out_csv: Path) -> None:
    """FMPy steps the FMUs of the archive in a Jacobi loop (see the module
    docstring) and writes ``time, <instance>.<output>...`` to ``out_csv``."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    system = read_ssp(ssp)
    work = Path(tempfile.mkdtemp(prefix="ssp-"))
    with zipfile.ZipFile(ssp) as zf:
        zf.extractall(work)
    slaves, vrs = {}, {}
    for name, source in system.components.items():
        path = work / source
        md = read_model_description(str(path))
        vrs[name] = {v.name: v.valueReference for v in md.modelVariables}
        slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(path)),
                          modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
        slave.instantiate()
        slave.setupExperiment(tolerance=system.tolerance, startTime=0.0)
        for var, value in system.parameters[name].items():
            slave.setReal([vrs[name][var]], [value])
        slaves[name] = slave

    def exchange():
        values = {(a, c): slaves[a].getReal([vrs[a][c]])[0] for a, c, _, _ in system.connections}
        for a, c, b, d in system.connections:
            slaves[b].setReal([vrs[b][d]], [values[(a, c)]])

    for slave in slaves.values():
        slave.enterInitializationMode()
    exchange()
    exchange()
    for slave in slaves.values():
        slave.exitInitializationMode()
    names = [(n, o) for n in system.components for o in system.outputs[n]]
    n_steps = round(system.stop / system.step)
    rows = []
    for k in range(n_steps + 1):
        t = k * system.step
        rows.append([t] + [slaves[n].getReal([vrs[n][o]])[0] for n, o in names])
        if k == n_steps:
            break
        exchange()
        for slave in slaves.values():
            slave.doStep(currentCommunicationPoint=t, communicationStepSize=system.step)
    for slave in slaves.values():
        slave.terminate()
        slave.freeInstance()
    with out_csv.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time"] + [f"{n}.{o}" for n, o in names])
        w.writerows(rows)


def run_ssps(args, masters: dict[str, str], out: Path) -> list[Run]:
    runs = []
    if "omsimulator" not in masters:
        return runs
    for ssp in sorted((args.dist / "ssp").glob("*.ssp")):
        system = read_ssp(ssp)
        wanted = [f"{n}.{o}" for n in system.components for o in system.outputs[n]]
        folder = out / "runs" / f"{ssp.stem}-ssp-jacobi"
        folder.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, str(TOOL), "_jacobi", str(ssp), str(folder / "result.csv")]
        code, log, wall = run_process(cmd, folder, args.timeout)
        ref, problem = None, ""
        if code == 0:
            ref = read_csv_trace(folder / "result.csv", wanted)
        else:
            problem = "Jacobi loop: " + ("timeout" if code is None else excerpt(log))
        print(f"{ssp.stem}: Jacobi loop in FMPy {'done' if ref else 'failed'} ({wall:.1f} s) {problem}", flush=True)
        run = Run(ssp.stem, 2, "omsimulator", "ssp")
        folder = out / "runs" / f"{ssp.stem}-ssp-omsimulator"
        folder.mkdir(parents=True, exist_ok=True)
        # OMSimulator's command line hands its own tolerance (1e-4 unless
        # given) to the FMUs, whatever the system's annotation says.
        cmd = [masters["omsimulator"], str(ssp), f"--stopTime={fmt(system.stop)}", f"--tolerance={fmt(TOLERANCE)}",
               f"--resultFile={folder / 'result.csv'}"]
        run.command = shown_command(cmd, masters["omsimulator"], PLACEHOLDERS["omsimulator"], args.dist)
        code, log, wall = run_process(cmd, folder, args.timeout)
        units, nominal = {}, {}
        with zipfile.ZipFile(ssp) as zf, tempfile.TemporaryDirectory() as tmp:
            for name, source in system.components.items():
                path = Path(tmp) / f"{name}.fmu"
                path.write_bytes(zf.read(source))
                u, n = units_and_nominals(path, name + ".")
                units.update(u)
                nominal.update(n)
        evaluate(run, code, log, wall, folder / "result.csv", ref, wanted, (units, nominal), system.stop, system.step,
                 args.threshold, problem)
        rel = "" if run.max_rel is None else f" max rel {run.max_rel:.2e} ({run.variable})"
        print(f"  omsimulator SSP: {run.verdict} {wall:.1f} s{rel} {run.message}".rstrip(), flush=True)
        runs.append(run)
    return runs


# ------------------------------------------------------------------ tables

COLUMNS = ["FMU", "FMI", "master", "interface", "verdict", "max rel. diff", "at variable",
           "ME: vs FMPy at 1e-9", "wall s", "note"]


def row(run: Run) -> list[str]:
    return [
        run.model,
        str(run.fmi),
        run.master,
        run.interface.upper(),
        run.verdict,
        "" if run.max_rel is None else f"{run.max_rel:.2e}",
        run.variable,
        "" if run.fine_rel is None else f"{run.fine_rel:.2e}",
        "" if run.wall is None else f"{run.wall:.1f}",
        run.message,
    ]


def markdown_table(runs: list[Run]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(c) for c in row(r)) + " |" for r in runs]
    return "\n".join(lines) + "\n"


def variables_table(run: Run) -> str:
    lines = ["| variable | max rel. diff |", "|---|---|"]
    lines += [f"| {n} | {v:.2e} |" for n, v in run.each.items()]
    return "\n".join(lines) + "\n"


def summary(runs: list[Run]) -> str:
    counts: dict[str, int] = {}
    for r in runs:
        if r.master.startswith("fmpy"):
            continue
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def commands_section(runs: list[Run]) -> str:
    seen, lines = set(), []
    for r in runs:
        if not r.command or r.command == "fmpy.simulate_fmu":
            continue
        key = (r.master, r.interface, r.fmi)
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"# {r.master}, FMI {r.fmi}, {r.interface.upper()} ({r.model})\n{r.command}")
    return "```sh\n" + "\n".join(lines) + "\n```\n" if lines else ""


def write_outputs(runs: list[Run], ssp_runs: list[Run], out: Path, threshold: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "results.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["FMU", "FMI", "master", "interface", "verdict", "max_rel_diff", "variable", "variables_compared",
                    "rel_diff_to_fmpy_at_1e-9", "wall_s", "message", "command"])
        for r in runs + ssp_runs:
            w.writerow([r.model, r.fmi, r.master, r.interface, r.verdict,
                        "" if r.max_rel is None else repr(r.max_rel), r.variable, r.compared,
                        "" if r.fine_rel is None else repr(r.fine_rel),
                        "" if r.wall is None else f"{r.wall:.3f}", r.message, r.command])
    text = [f"# FMUs in other FMI masters, compared with FMPy\n\nThreshold {threshold:g}; {summary(runs)}.\n",
            markdown_table(runs)]
    if ssp_runs:
        text += ["\n## SSP files in OMSimulator vs a Jacobi loop in FMPy\n\n", markdown_table(ssp_runs)]
        for r in ssp_runs:
            text.append(f"\n{r.model}, every output:\n\n" + variables_table(r))
    text += ["\n## Commands\n\n", commands_section(runs + ssp_runs)]
    (out / "results.md").write_text("".join(text))


# -------------------------------------------------------- child processes


def child_fmpy(fmu: str, interface: str, stop: str, step: str, out: str, tolerance: str) -> None:
    """FMPy's run of one FMU, its outputs to a CSV (``_fmpy`` mode)."""
    import fmpy

    kwargs = dict(fmi_type="CoSimulation" if interface == "cs" else "ModelExchange",
                  relative_tolerance=float(tolerance),
                  stop_time=float(stop), output_interval=float(step))
    if interface == "me":
        kwargs["solver"] = "CVode"
    else:
        kwargs["step_size"] = float(step)
    result = fmpy.simulate_fmu(fmu, **kwargs)
    fmpy.write_csv(out, result)


def child_oms_python(fmu: str, stop: str, step: str, out: str) -> None:
    """OMSimulator's Python API on one FMU (``_oms-python`` mode, started by
    the OMSimulatorPython3 wrapper)."""
    from OMSimulator import FMU

    model = FMU(fmu)
    model.instantiate()
    model.setTolerance(TOLERANCE)
    model.setStopTime(float(stop))
    model.setStepSize(float(step))
    model.setResultFile(out)
    model.initialize()
    model.simulate()
    model.terminate()
    model.delete()


# -------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_fmpy":
        child_fmpy(*argv[1:])
        return 0
    if argv and argv[0] == "_oms-python":
        child_oms_python(*argv[1:])
        return 0
    if argv and argv[0] == "_jacobi":
        jacobi(Path(argv[1]), Path(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring for the metric.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--omsimulator", type=Path, help="OMSimulator's command-line program (bin/OMSimulator)")
    parser.add_argument("--omsimulator-python", type=Path, help="OMSimulator's Python wrapper (bin/OMSimulatorPython3)")
    parser.add_argument("--fmusim", type=Path, help="the reference fmusim (C)")
    parser.add_argument("--fmusim-rs", type=Path, help="fmusim in Rust (its `simulate` command is used)")
    parser.add_argument("--dist", type=Path, default=REPO_ROOT / "dist", help="folder with fmi2/, fmi3/, ssp/ [dist]")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "target" / "other-masters",
                        help="output folder [target/other-masters]")
    parser.add_argument("--model", action="append", help="only this model (repeatable)")
    parser.add_argument("--fmi-version", type=int, action="append", choices=(2, 3), help="only this FMI version")
    parser.add_argument("--interface", action="append", choices=("cs", "me"), help="only this interface")
    parser.add_argument("--no-ssp", action="store_true", help="do not run the SSP files")
    parser.add_argument("--timeout", type=float, default=600.0, help="time limit of every run, s [600]")
    parser.add_argument("--threshold", type=float, default=1e-6, help="largest relative difference that agrees [1e-6]")
    args = parser.parse_args(argv)
    args.fmi_version = args.fmi_version or [2, 3]
    args.interface = args.interface or ["cs", "me"]
    args.dist = args.dist.resolve()
    masters: dict[str, str] = {}
    for master in MASTERS:
        path = getattr(args, master.replace("-", "_"))
        if path is None:
            print(f"{master}: skipped (no --{master} given)")
        elif not path.is_file():
            print(f"{master}: skipped ({path} does not exist)")
        else:
            masters[master] = str(path.resolve())
            SCRUB[str(path.resolve().parent)] = f"$(dirname {PLACEHOLDERS[master]})"
            SCRUB[str(path.parent)] = f"$(dirname {PLACEHOLDERS[master]})"
            SCRUB[str(path.resolve().parent.parent)] = f"$(dirname {PLACEHOLDERS[master]})/.."
    if not masters:
        parser.error("no master given")
    print(f"FMUs from {args.dist}, results to {args.out}", flush=True)
    runs = run_fmus(args, masters, args.out)
    ssp_runs = [] if args.no_ssp else run_ssps(args, masters, args.out)
    write_outputs(runs, ssp_runs, args.out, args.threshold)
    print()
    print(markdown_table(runs))
    for r in ssp_runs:
        print(markdown_table([r]))
        print(variables_table(r))
    print(f"{summary(runs)}; written to {args.out / 'results.md'} and results.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
