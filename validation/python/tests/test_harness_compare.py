"""``harness compare``: two runs' traces and two builds' model descriptions."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PYTHON_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PYTHON_ROOT.parents[1]


def write_run(root: Path, traces: dict[str, str]) -> Path:
    for key, text in traces.items():
        folder = root / "results" / key
        folder.mkdir(parents=True)
        (folder / "result.csv").write_text(text)
    return root


def compare(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", "compare", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO_ROOT, env={"PYTHONPATH": str(PYTHON_ROOT), "PATH": "/usr/bin:/bin"})


def test_identical_within_and_beyond_the_tolerance(tmp_path):
    base = "time,p\n0,1e7\n1,2e7\n"
    old = write_run(tmp_path / "old", {"M/a/fmi3/fmpy/0.001": base, "M/b/fmi3/fmpy/0.001": base,
                                       "M/c/fmi3/fmpy/0.001": base})
    new = write_run(tmp_path / "new", {"M/a/fmi3/fmpy/0.001": base,
                                       "M/b/fmi3/fmpy/0.001": "time,p\n0,1e7\n1,20000000.000000004\n",
                                       "M/c/fmi3/fmpy/0.001": "time,p\n0,1e7\n1,2.0002e7\n"})
    done = compare(old, new)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 compared, 1 identical, 1 within 1e-12, 1 beyond" in done.stdout
    assert "BEYOND   M/c/fmi3/fmpy/0.001: 1.00e-04 (p)" in done.stdout
    assert compare(old, new, "--tolerance", "1e-3").returncode == 0


def test_a_trace_only_in_one_run_or_with_other_signals_is_named(tmp_path):
    old = write_run(tmp_path / "old", {"M/a/fmi2/fmi-rs/0.01": "time,p\n0,1\n",
                                       "M/b/fmi2/fmi-rs/0.01": "time,p\n0,1\n"})
    new = write_run(tmp_path / "new", {"M/a/fmi2/fmi-rs/0.01": "time,q\n0,1\n"})
    done = compare(old, new)
    assert done.returncode == 1
    assert "signals differ: p, q" in done.stdout
    assert "only in the old run: M/b/fmi2/fmi-rs/0.01" in done.stdout


@pytest.mark.skipif(not (REPO_ROOT / "dist" / "fmi3" / "OrificeChain.fmu").is_file(),
                    reason="dist/fmi3/OrificeChain.fmu needed: cargo run --release -p build-fmu")
def test_model_descriptions_are_compared_without_their_time_stamp(tmp_path):
    run = write_run(tmp_path / "run", {"M/a/fmi3/fmpy/0.001": "time,p\n0,1\n"})
    old, new = tmp_path / "old", tmp_path / "new"
    for dist in (old, new):
        (dist / "fmi3").mkdir(parents=True)
        shutil.copy(REPO_ROOT / "dist" / "fmi3" / "OrificeChain.fmu", dist / "fmi3")
    # the same description written at another time, and one with a changed unit
    with zipfile.ZipFile(old / "fmi3" / "OrificeChain.fmu") as z:
        xml = z.read("modelDescription.xml").decode()
    stamped = xml.replace('generationDateAndTime="', 'generationDateAndTime="1999')
    rebuilt = new / "fmi3" / "OrificeChain.fmu"
    with zipfile.ZipFile(rebuilt, "w") as z:
        z.writestr("modelDescription.xml", stamped)
    done = compare(run, run, "--old-dist", old, "--new-dist", new)
    assert done.returncode == 0, done.stdout
    assert "model descriptions: 1 identical, 0 different" in done.stdout
    with zipfile.ZipFile(rebuilt, "w") as z:
        z.writestr("modelDescription.xml", stamped.replace('displayUnit="bar"', 'displayUnit="MPa"', 1))
    done = compare(run, run, "--old-dist", old, "--new-dist", new)
    assert done.returncode == 1
    assert "differs: fmi3/OrificeChain.fmu" in done.stdout
    assert '+' in done.stdout and 'displayUnit="MPa"' in done.stdout
