"""The sweep tool (validation/python/sweep/): designs, summaries, the three
backends giving the same results bit for bit, failures recorded without
stopping the sweep (an FMU error, and a worker process killed by a crash),
resuming, and every example design file of validation/sweeps/.

Runs the FMUs of dist/ (cargo run --release -p build-fmu); the resonance
summary needs target/release/freq-response (built by the test command).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

PYTHON_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PYTHON_ROOT.parents[1]
sys.path.insert(0, str(PYTHON_ROOT))

from sweep import worker  # noqa: E402
from sweep.design import StudyError, load_study  # noqa: E402
from sweep.summaries import compute, crossing_time, freq_response_binary  # noqa: E402

FMU3 = REPO_ROOT / "dist" / "fmi3" / "OrificeChain.fmu"
FMU2 = REPO_ROOT / "dist" / "fmi2" / "OrificeChain.fmu"
TOOL = PYTHON_ROOT / "tools" / "sweep.py"
EXAMPLES = REPO_ROOT / "validation" / "sweeps"

pytestmark = pytest.mark.skipif(
    not (FMU3.is_file() and FMU2.is_file()), reason="dist/fmi*/OrificeChain.fmu needed: cargo run --release -p build-fmu"
)

# An OrificeChain start-up with a seeded random supply pressure, 8 runs of a
# Latin hypercube over two orifice diameters and the input's seed.
ORIFICE_DESIGN = """
title = "test: orifice chain"
fmu = "{fmu}"
stop_time = 0.5
step = 0.001

[fixed]
p1_0 = 0.0
p2_0 = 0.0

[inputs.ps]
kind = "random_levels"
hold = 0.05
low = 60
high = 120
unit = "bar"
seed = 3

[factors.d1]
unit = "mm"
low = 0.8
high = 1.2

[factors.d3]
unit = "mm"
low = 0.8
high = 1.2

[factors."ps.seed"]
low = 1
high = 1000

[design]
kind = "latin_hypercube"
runs = 8
seed = 5

[[keep]]
signal = "p1"
summary = "final"

[[keep]]
signal = "p2"
summary = "rms"

[[keep]]
name = "t_p1_30bar"
signal = "p1"
summary = "crossing"
threshold = 30
unit = "bar"

[traces]
signals = ["p1", "Q3"]
every = 5
"""


def write_design(folder: Path, text: str, name: str = "design.toml", fmu: Path = FMU3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text.format(fmu=fmu))
    return path


def sweep_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=timeout)


def read_results(folder: Path) -> dict:
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "results.parquet").to_pydict()
    table.pop("wall_s")  # the one measured column
    return table


def same(a: dict, b: dict) -> bool:
    """Equal columns, NaN equal to NaN, floats compared bit for bit."""
    if a.keys() != b.keys():
        return False
    for name in a:
        for x, y in zip(a[name], b[name], strict=True):
            if isinstance(x, float) and isinstance(y, float):
                if not (x == y or (math.isnan(x) and math.isnan(y))):
                    return False
            elif x != y:
                return False
    return True


# --- the design file -------------------------------------------------------


def test_designs_expand_as_documented(tmp_path):
    base = """
fmu = "{fmu}"
stop_time = 0.1
step = 0.01
[inputs.ps]
kind = "constant"
value = 100
unit = "bar"
"""
    full = load_study(write_design(tmp_path, base + """
[factors.d1]
unit = "mm"
levels = [0.8, 1.0]
[factors.V2]
unit = "cm3"
low = 5
high = 20
count = 3
scale = "log"
[design]
kind = "full_factorial"
""", "full.toml"))
    runs = full.runs()
    assert len(runs) == 6
    # the first factor varies slowest; values converted to SI
    assert [r["values"]["d1"] for r in runs] == pytest.approx([0.8e-3] * 3 + [1.0e-3] * 3, rel=1e-15)
    assert [r["values"]["V2"] for r in runs[:3]] == pytest.approx([5e-6, 10e-6, 20e-6], rel=1e-12)
    assert runs[0]["inputs"]["ps"]["value"] == pytest.approx(1e7, rel=1e-15)  # 100 bar

    lhs_text = base + """
[factors.d1]
unit = "mm"
low = 0.5
high = 1.5
[factors.d2]
low = 0.0005
high = 0.0015
[design]
kind = "latin_hypercube"
runs = 10
seed = {seed}
"""
    lhs = load_study(write_design(tmp_path, lhs_text.replace("{seed}", "1"), "lhs.toml"))
    values = np.array([[r["values"]["d1"], r["values"]["d2"]] for r in lhs.runs()])
    for column in values.T:  # one sample in each tenth of the range
        bins = np.floor((column - 0.5e-3) / 1e-3 * 10).astype(int)
        assert sorted(bins) == list(range(10))
    again = load_study(write_design(tmp_path, lhs_text.replace("{seed}", "1"), "lhs2.toml"))
    assert [r["values"] for r in again.runs()] == [r["values"] for r in lhs.runs()]
    other = load_study(write_design(tmp_path, lhs_text.replace("{seed}", "2"), "lhs3.toml"))
    assert [r["values"] for r in other.runs()] != [r["values"] for r in lhs.runs()]

    mc = load_study(write_design(tmp_path, base + """
[factors.d1]
unit = "mm"
distribution = "truncated_normal"
mean = 1.0
std = 0.2
low = 0.9
high = 1.1
[factors.Cd]
distribution = "uniform"
low = 0.55
high = 0.65
[design]
kind = "monte_carlo"
runs = 400
seed = 9
""", "mc.toml"))
    d1 = np.array([r["values"]["d1"] for r in mc.runs()])
    assert d1.min() >= 0.9e-3 and d1.max() <= 1.1e-3 and len(set(d1)) == 400
    cd = np.array([r["values"]["Cd"] for r in mc.runs()])
    assert 0.59 < cd.mean() < 0.61

    (tmp_path / "rows.csv").write_text("d1,Cd\n0.9,0.6\n1.1,0.62\n")
    table = load_study(write_design(tmp_path, base + """
[factors.d1]
unit = "mm"
[factors.Cd]
[design]
kind = "table"
file = "rows.csv"
""", "table.toml"))
    assert [r["values"] for r in table.runs()] == [{"d1": pytest.approx(0.9e-3), "Cd": 0.6},
                                                     {"d1": pytest.approx(1.1e-3), "Cd": 0.62}]


@pytest.mark.parametrize(
    "extra, message",
    [
        ('[factors.d1]\nunit = "psi"\nlevels = [1]\n[design]\nkind = "full_factorial"', "unit 'psi' is not a unit of d1"),
        ('[factors.nope]\nlevels = [1]\n[design]\nkind = "full_factorial"', "no variable 'nope'"),
        ('[factors.p1]\nlevels = [1]\n[design]\nkind = "full_factorial"', "p1 has causality output"),
        ('[factors.d1]\nlow = 1\nhigh = 2\n[design]\nkind = "latin_hypercube"\nruns = 4', "needs seed"),
        ('[factors.d1]\nlevels = [1]\n[design]\nkind = "sobol"', "kind must be one of"),
        ('[factors.d1]\nlow = 2\nhigh = 1\n[design]\nkind = "latin_hypercube"\nruns = 4\nseed = 1', "need high > low"),
        ('[factors.d1]\nlevels = [1]\n[design]\nkind = "full_factorial"\n[[keep]]\nsignal = "p1"\nsummary = "median"', "summary must be one of"),
        ('[factors.d1]\nlevels = [1]\n[design]\nkind = "full_factorial"\n[fixed]\nmax_substeps = 2.5', "not a whole number"),
        ('[inputs.ps]\nkind = "constant"\nvalue = 1\n[factors."ps.frequency"]\nlevels = [1]\n[design]\nkind = "full_factorial"', "not a numeric field of a 'constant' input"),
        ('[inputs.p1]\nkind = "constant"\nvalue = 1', "'p1' is not an input"),
        ('[inputs.pt]\nkind = "table"\nfile = "missing.csv"', "cannot read"),
        ('[factors.d1]\ndistribution = "normal"\nmean = 1\n[design]\nkind = "monte_carlo"\nruns = 3\nseed = 1', "needs std"),
    ],
)
def test_bad_designs_get_clear_errors(tmp_path, extra, message):
    text = 'fmu = "{fmu}"\nstop_time = 0.1\nstep = 0.01\n' + extra + "\n"
    with pytest.raises(StudyError, match=re.escape(message)):
        load_study(write_design(tmp_path, text))
    done = sweep_cli("run", str(tmp_path / "design.toml"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "error:" in done.stderr


def test_missing_fmu_names_the_build_command(tmp_path):
    path = write_design(tmp_path, 'fmu = "../dist/fmi3/Nothing.fmu"\nstop_time = 1\nstep = 0.1\n')
    with pytest.raises(StudyError, match="cargo run --release -p build-fmu"):
        load_study(path)


# --- summaries -------------------------------------------------------------


def test_summaries_of_known_signals():
    t = np.linspace(0.0, 2.0, 2001)
    y = np.sin(2 * np.pi * t)
    assert compute("rms", {"from": None, "to": None}, t, y) == pytest.approx(math.sqrt(0.5), rel=1e-3)
    assert compute("max", {"from": 0.5, "to": 1.0}, t, y) == pytest.approx(0.0, abs=1e-12)  # sin is <= 0 there
    assert compute("peak_to_peak", {"from": None, "to": None}, t, y) == pytest.approx(2.0, rel=1e-6)
    assert compute("at", {"time": 0.25}, t, y) == pytest.approx(1.0, rel=1e-5)
    assert compute("final", {}, t, y) == pytest.approx(0.0, abs=1e-12)
    # sin crosses 0.5 rising at 1/12 s and falling at 5/12 s
    assert crossing_time(t, y, 0.5, "rising") == pytest.approx(1 / 12, abs=1e-6)
    assert crossing_time(t, y, 0.5, "falling") == pytest.approx(5 / 12, abs=1e-6)
    assert crossing_time(t, y, 0.5, "rising", start=0.2) == pytest.approx(1 + 1 / 12, abs=1e-6)
    assert math.isnan(crossing_time(t, y, 2.0, "either"))
    with pytest.raises(ValueError, match="outside the run"):
        compute("at", {"time": 3.0}, t, y)


# --- backends --------------------------------------------------------------


def test_serial_and_local_cluster_give_identical_results(tmp_path):
    design = write_design(tmp_path, ORIFICE_DESIGN)
    serial = sweep_cli("run", str(design), "--out", str(tmp_path / "serial"), "--backend", "serial", "--traces")
    assert serial.returncode == 0, serial.stdout + serial.stderr
    local = sweep_cli("run", str(design), "--out", str(tmp_path / "local"), "--backend", "local", "--workers", "2",
                      "--traces", "--no-plot")
    assert local.returncode == 0, local.stdout + local.stderr
    assert "local Dask cluster: 2 worker processes" in local.stdout
    a, b = read_results(tmp_path / "serial"), read_results(tmp_path / "local")
    assert a["status"] == ["ok"] * 8
    assert same(a, b)
    # the kept values mean something: the pressures settle between supply and tank
    assert all(0 < p < 120e5 for p in a["p1_final"])
    assert len(set(a["p1_final"])) == 8
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(tmp_path / "serial" / "traces.parquet"), pq.read_table(tmp_path / "local" / "traces.parquet")
    assert ta.equals(tb) and ta.num_rows == 8 * 101
    # the traced p1 ends at the kept p1_final of each run
    p1 = ta.column("p1").to_numpy().reshape(8, 101)
    assert list(p1[:, -1]) == a["p1_final"]
    assert (tmp_path / "serial" / "summary.png").stat().st_size > 10_000
    assert (tmp_path / "serial" / "tornado.png").is_file()
    csv = (tmp_path / "serial" / "results.csv").read_text().splitlines()
    assert csv[0].startswith("run,status,error,d1,d3,ps.seed,p1_final,p2_rms,t_p1_30bar") and len(csv) == 9


def test_a_reused_instance_gives_what_a_fresh_one_gives(tmp_path):
    study = load_study(write_design(tmp_path, ORIFICE_DESIGN))
    runs = study.runs()
    data = study.fmu.read_bytes()
    in_sequence = [worker.simulate(run, data) for run in runs]
    assert worker.instantiations() == 1  # one instance served every run
    fresh = []
    for run in runs:
        worker._drop_instance(study.fmu_sha256)
        fresh.append(worker.simulate(run, data))
    for a, b in zip(in_sequence, fresh):
        assert a["status"] == b["status"] == "ok"
        assert a["summaries"] == b["summaries"] or all(
            x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a["summaries"].values(), b["summaries"].values()))
        assert a["counters"] == b["counters"]


def test_fmi2_and_fmi3_binaries_agree_bit_for_bit(tmp_path):
    results = {}
    for version, fmu in (("2", FMU2), ("3", FMU3)):
        design = write_design(tmp_path / version, ORIFICE_DESIGN, fmu=fmu)
        done = sweep_cli("run", str(design), "--out", str(tmp_path / version / "out"), "--backend", "serial", "--no-plot")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"(FMI {version}.0)" in done.stdout
        results[version] = read_results(tmp_path / version / "out")
    assert same(results["2"], results["3"])


FAILING_DESIGN = """
fmu = "{fmu}"
stop_time = 0.2
step = 0.001

[fixed]
p1_0 = 0.0
p2_0 = 0.0

[factors.Cd]

[factors.max_substeps]

[design]
kind = "table"
rows = [[0.6, 100000], [1.5, 100000], [0.62, 100000], [0.6, 1], [0.64, 100000]]

[[keep]]
signal = "p1"
summary = "final"
"""


@pytest.mark.parametrize("backend", ["serial", "local"])
def test_failed_runs_are_recorded_and_the_rest_completes(tmp_path, backend):
    design = write_design(tmp_path, FAILING_DESIGN)
    done = sweep_cli("run", str(design), "--out", str(tmp_path / "out"), "--backend", backend, "--workers", "2", "--no-plot")
    assert done.returncode == 1, done.stdout + done.stderr
    r = read_results(tmp_path / "out")
    assert r["status"] == ["ok", "failed", "ok", "failed", "ok"]
    # Cd = 1.5 is above the FMU's maximum of 1: refused when set, with the FMU's own message
    assert "fmi3SetFloat64" in r["error"][1] and "Cd" in r["error"][1]
    # one substep cannot reach the communication point: doStep returns Discard
    assert "fmi3DoStep" in r["error"][3] and "discard" in r["error"][3]
    assert math.isnan(r["p1_final"][1]) and math.isnan(r["p1_final"][3])
    assert all(np.isfinite([r["p1_final"][i] for i in (0, 2, 4)]))
    assert "3 ok, 2 failed" in done.stdout
    # the runs after a failure are the same as without it
    alone = write_design(tmp_path / "alone", FAILING_DESIGN.replace(
        "rows = [[0.6, 100000], [1.5, 100000], [0.62, 100000], [0.6, 1], [0.64, 100000]]", "rows = [[0.62, 100000], [0.64, 100000]]"))
    sweep_cli("run", str(alone), "--out", str(tmp_path / "alone" / "out"), "--backend", "serial", "--no-plot")
    assert read_results(tmp_path / "alone" / "out")["p1_final"] == [r["p1_final"][2], r["p1_final"][4]]


def test_resume_runs_only_what_is_missing(tmp_path):
    design = write_design(tmp_path, ORIFICE_DESIGN)
    out = tmp_path / "out"
    first = sweep_cli("run", str(design), "--out", str(out), "--backend", "serial", "--limit", "3", "--no-plot")
    assert first.returncode == 0 and "3 to run" in first.stdout
    second = sweep_cli("run", str(design), "--out", str(out), "--backend", "serial", "--no-plot")
    assert "3 done earlier (0 failed)" in second.stdout and "5 to run" in second.stdout
    journal = (out / "runs.jsonl").read_text().splitlines()
    assert len(journal) == 8
    # lose two runs (and cut the last line, as a crash while writing would)
    (out / "runs.jsonl").write_text("\n".join(journal[:5] + [journal[6]] + [journal[7][:40]]) + "\n")
    third = sweep_cli("run", str(design), "--out", str(out), "--backend", "serial", "--no-plot")
    assert "6 done earlier" in third.stdout and "2 to run" in third.stdout
    nothing = sweep_cli("run", str(design), "--out", str(out), "--backend", "serial", "--no-plot")
    assert "0 to run" in nothing.stdout and nothing.returncode == 0
    fresh = sweep_cli("run", str(design), "--out", str(tmp_path / "fresh"), "--backend", "serial", "--no-plot")
    assert fresh.returncode == 0
    assert same(read_results(out), read_results(tmp_path / "fresh"))
    # a changed design reruns exactly the runs it changes: here all (new stop time)
    changed = write_design(tmp_path, ORIFICE_DESIGN.replace("stop_time = 0.5", "stop_time = 0.4"))
    rerun = sweep_cli("run", str(changed), "--out", str(out), "--backend", "serial", "--no-plot")
    assert "0 done earlier" in rerun.stdout and "8 to run" in rerun.stdout


# --- a worker process that dies ---------------------------------------------

CRASH_C = r"""
#include <stdlib.h>
#include <stddef.h>
static int token;
static double last = 0.0;
const char* fmi3GetVersion(void) { return "3.0"; }
void* fmi3InstantiateCoSimulation(void) { return &token; }
void* fmi3InstantiateModelExchange(void) { return &token; }
void* fmi3InstantiateScheduledExecution(void) { return &token; }
void fmi3FreeInstance(void* i) { (void)i; }
int fmi3SetFloat64(void* i, const unsigned* vr, size_t n, const double* v, size_t nv) {
    (void)i; (void)nv;
    for (size_t k = 0; k < n; k++) if (vr[k] == CRASH_VR) last = v[k];
    return 0;
}
int fmi3GetFloat64(void* i, const unsigned* vr, size_t n, double* v, size_t nv) {
    (void)i; (void)vr; (void)n;
    for (size_t k = 0; k < nv; k++) v[k] = 1.0;
    return 0;
}
int fmi3DoStep(void* i) { (void)i; if (last == 0.5) abort(); return 0; }
"""


def crash_fmu(folder: Path) -> Path:
    """OrificeChain's model description with a binary that aborts the
    process in doStep when Cd = 0.5 (and otherwise does nothing)."""
    from harness.fmu_info import read_fmu_info

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc needed to build the crashing FMU")
    info = read_fmu_info(FMU3)
    with zipfile.ZipFile(FMU3) as z:
        names = z.namelist()
        binary = next(n for n in names if n.startswith("binaries/x86_64-linux/") and n.endswith(".so"))
        (folder / "real.so").write_bytes(z.read(binary))
        exported = subprocess.run(["nm", "-D", "--defined-only", str(folder / "real.so")], capture_output=True,
                                  text=True, check=True).stdout
    defined = {"fmi3GetVersion", "fmi3InstantiateCoSimulation", "fmi3InstantiateModelExchange",
               "fmi3InstantiateScheduledExecution", "fmi3FreeInstance", "fmi3SetFloat64", "fmi3GetFloat64", "fmi3DoStep"}
    stubs = sorted({line.split()[-1] for line in exported.splitlines() if line.split()[-1].startswith("fmi3")} - defined)
    source = CRASH_C.replace("CRASH_VR", str(info.variables["Cd"].value_reference))
    source += "".join(f"int {name}(void) {{ return 0; }}\n" for name in stubs)
    (folder / "crash.c").write_text(source)
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(folder / "crash.so"), str(folder / "crash.c")], check=True)
    target = folder / "Crash.fmu"
    with zipfile.ZipFile(FMU3) as old, zipfile.ZipFile(target, "w") as new:
        for name in names:
            new.writestr(name, (folder / "crash.so").read_bytes() if name == binary else old.read(name))
    return target


def test_a_worker_killed_by_a_crash_is_recorded_and_the_sweep_goes_on(tmp_path):
    """40 runs go to 2 workers in chunks of 2 runs; the chunk with the
    crashing run is split into single runs after its workers died, so only
    that run fails."""
    from sweep.backends import chunk_size

    assert chunk_size(40, 2) == 2
    fmu = crash_fmu(tmp_path)
    rows = [[0.5 if i == 5 else 0.6 + 0.001 * i] for i in range(40)]
    design = write_design(tmp_path, """
fmu = "{fmu}"
stop_time = 0.01
step = 0.001
[factors.Cd]
[design]
kind = "table"
rows = ROWS
[[keep]]
signal = "p1"
summary = "final"
""".replace("ROWS", str(rows)), fmu=fmu)
    done = sweep_cli("run", str(design), "--out", str(tmp_path / "out"), "--backend", "local", "--workers", "2", "--no-plot")
    assert done.returncode == 1, done.stdout + done.stderr
    r = read_results(tmp_path / "out")
    assert r["status"] == ["failed" if i == 5 else "ok" for i in range(40)]
    assert "KilledWorker" in r["error"][5]
    assert r["p1_final"][4] == 1.0  # what the stub returns; run 4 shared the crashing chunk


# --- a scheduler given by address -------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_by_address_gives_the_same_results(tmp_path):
    design = write_design(tmp_path, ORIFICE_DESIGN)
    serial = sweep_cli("run", str(design), "--out", str(tmp_path / "serial"), "--backend", "serial", "--no-plot")
    assert serial.returncode == 0
    dask = Path(sys.executable).parent / "dask"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    # the worker knows nothing of the project: no PYTHONPATH, another folder
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        time.sleep(1.0)
        procs.append(subprocess.Popen([str(dask), "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard"],
                                      cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True))
        remote = sweep_cli("run", str(design), "--out", str(tmp_path / "remote"), "--scheduler", address, "--no-plot", timeout=300)
        assert remote.returncode == 0, remote.stdout + remote.stderr
        assert "Dask scheduler tcp://127.0.0.1" in remote.stdout
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
    assert same(read_results(tmp_path / "serial"), read_results(tmp_path / "remote"))


# --- the example design files -----------------------------------------------


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_every_example_design_runs(tmp_path, example):
    path = EXAMPLES / example
    study = load_study(path)
    if not study.fmu.is_file():
        pytest.skip(f"{study.fmu} not built")
    if any(k.summary == "resonance" for k in study.keep) and not freq_response_binary().is_file():
        pytest.skip("target/release/freq-response not built")
    shown = sweep_cli("show", str(path))
    assert shown.returncode == 0 and f"{len(study.runs())} runs" in shown.stdout
    done = sweep_cli("run", str(path), "--out", str(tmp_path / "out"), "--backend", "serial", "--limit", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    r = read_results(tmp_path / "out")
    assert r["status"] == ["ok", "ok"]
    for k in study.keep:
        if k.summary not in ("crossing",):  # a crossing may legitimately never happen
            assert all(np.isfinite(r[k.name])), (k.name, r[k.name])


def test_resonance_summary_finds_the_hose_resonance(tmp_path):
    """HoseH with the hose of Grossschmidt and Harf (2017), 2 m and 16 mm,
    in 7 segments without wall hysteresis (b = 0) as in the frequency
    response of its model description (components/circuits/hose-line/MODEL.md),
    whose reference resonance of p1 to p2 is 97.76 Hz."""
    if not freq_response_binary().is_file():
        pytest.skip("target/release/freq-response not built")
    design = write_design(tmp_path, f"""
fmu = "{REPO_ROOT / 'dist' / 'fmi3' / 'HoseH.fmu'}"
stop_time = 0.01
step = 0.001
[fixed]
n = 7
b = 0.0
[inputs.Q1]
kind = "constant"
value = 5e-4
[inputs.p2]
kind = "constant"
value = 1e7
[factors.L_hose]
[design]
kind = "table"
rows = [[2.0]]
[[keep]]
signal = "p1"
summary = "resonance"
input = "p2"
amplitude = 3e5
fmin = 80
fmax = 120
points = 41
""")
    done = sweep_cli("run", str(design), "--out", str(tmp_path / "out"), "--backend", "serial", "--no-plot")
    assert done.returncode == 0, done.stdout + done.stderr
    f = read_results(tmp_path / "out")["p1_resonance"]
    assert f[0] == pytest.approx(97.76, abs=1.0)


# --- one display unit per quantity across the tools --------------------------


def test_the_lift_tools_show_a_quantity_in_the_unit_the_fmu_declares():
    """The sweep tool and plot_lift.py both take a signal's display unit from
    the FMU's modelDescription.xml (harness.fmu_info), so they cannot show
    one quantity in two units; the LiftActuator declares m/s for the piston
    speed (about 4 m/s)."""
    study = load_study(EXAMPLES / "lift_tolerances.toml")
    if not study.fmu.is_file():
        pytest.skip(f"{study.fmu} not built")
    sys.path.insert(0, str(PYTHON_ROOT / "tools"))
    import plot_lift
    from sweep.plots import _summary_scale

    shown = plot_lift.display_scales(study.fmu)
    for k in study.keep:
        if k.signal in shown and k.summary not in ("crossing",):
            label, factor, _ = _summary_scale(study, k)
            assert (label, factor) == (shown[k.signal].label, shown[k.signal].factor), k.name
    assert shown["v_p"].label == "m/s" and shown["p_A"].label == "bar" and shown["x_p"].label == "mm"
