"""Scenarios of circuits that exist only as a description file
(``built_from`` in scenario.json): while the engine has not built their FMU,
``harness run`` skips them with a line saying how to build it, checks their
references, and does not fail; a scenario without ``built_from`` whose FMU
is missing still fails."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

PYTHON_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PYTHON_ROOT.parents[1]
SCENARIOS = REPO_ROOT / "validation" / "scenarios"
DESCRIBED = ("CraneBoom", "lift")


def harness(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_ROOT))
    completed = subprocess.run([sys.executable, "-m", "harness", "run", "--master", "fmpy", *args],
                               capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=300)
    print(completed.stdout, completed.stderr)
    return completed


def copy_scenario(root: Path, model: str, name: str) -> Path:
    target = root / model / name
    shutil.copytree(SCENARIOS / model / name, target)
    return target


def test_a_described_circuit_without_its_fmu_is_skipped_and_its_reference_checked(tmp_path):
    root = tmp_path / "scenarios"
    copy_scenario(root, *DESCRIBED)
    (tmp_path / "dist").mkdir()
    out = tmp_path / "out"
    completed = harness("--scenarios", str(root), "--dist", str(tmp_path / "dist"), "--out", str(out), "--no-plots")
    assert completed.returncode == 0
    built_from = json.loads((root / DESCRIBED[0] / DESCRIBED[1] / "scenario.json").read_text())["built_from"]
    for fmi in (2, 3):
        assert (f"skipped CraneBoom/lift FMI {fmi}: {tmp_path / 'dist'}/fmi{fmi}/CraneBoom.fmu is not built yet"
                in completed.stdout)
    assert f"build-fmu -- --circuit {built_from}" in completed.stdout
    assert "[ref] passed        CraneBoom/lift reference" in completed.stdout
    summary = json.loads((out / "run.json").read_text())
    assert summary["failing"] == 0 and len(summary["awaiting_fmu"]) == 2
    report = (out / "report.md").read_text()
    assert "not built yet" in report and "**Overall: passed**" in report
    assert not (out / "results").exists() or not any((out / "results").rglob("verdict.json"))


def test_a_missing_fmu_of_a_written_circuit_still_fails(tmp_path):
    root = tmp_path / "scenarios"
    folder = copy_scenario(root, *DESCRIBED)
    spec = json.loads((folder / "scenario.json").read_text())
    del spec["built_from"]
    (folder / "scenario.json").write_text(json.dumps(spec))
    (tmp_path / "dist").mkdir()
    completed = harness("--scenarios", str(root), "--dist", str(tmp_path / "dist"), "--out", str(tmp_path / "out"),
                        "--no-plots", "--skip-checkers", "--fmi-version", "2")
    assert completed.returncode == 1
    assert "FMU missing" in completed.stdout or "FMU missing" in (tmp_path / "out" / "report.md").read_text()
