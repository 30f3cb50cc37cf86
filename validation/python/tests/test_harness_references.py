"""``harness references`` with a stand-in reference script: it finds the script
through ``generated_by``, says which scenario files changed, and in
``--check`` mode fails when the script reports a change."""

import json
import os
import subprocess
import sys
from pathlib import Path

PYTHON_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PYTHON_ROOT.parents[1]

# Follows the reference-script contract (--out-dir ROOT, --check); the value it
# writes comes from the environment so that the test can change the "physics".
SCRIPT = '''
import argparse, os, sys
from pathlib import Path
p = argparse.ArgumentParser()
p.add_argument("--out-dir", type=Path, required=True)
p.add_argument("--check", action="store_true")
a = p.parse_args()
folder = a.out_dir / "Toy" / "s"
files = {
    "Toy_ref.csv": "time,y\\n0.0,0.0\\n1.0,%s\\n" % os.environ.get("TOY_VALUE", "1.0"),
    "Toy_in.csv": "time,u\\n0.0,1.0\\n",
    "Toy_ref.opt": "StartTime, 0.0\\nStopTime, 1.0\\nStepSize, 0.5\\nRelTol, 1e-06\\n",
}
changed = False
for name, text in files.items():
    path = folder / name
    if a.check:
        if not path.exists() or path.read_text() != text:
            print("Toy/s: %s CHANGED" % name)
            changed = True
    else:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
sys.exit(1 if changed else 0)
'''


def references(root: Path, out: Path, *args, value="1.0"):
    env = dict(os.environ, PYTHONPATH=str(PYTHON_ROOT), TOY_VALUE=value)
    completed = subprocess.run([sys.executable, "-m", "harness", "references", "--scenarios", str(root),
                                "--out", str(out), *args], capture_output=True, text=True, cwd=REPO_ROOT, env=env)
    print(completed.stdout, completed.stderr)
    return completed


def test_references_regenerate_report_changes_and_check(tmp_path):
    script = tmp_path / "toy_reference.py"
    script.write_text(SCRIPT)
    root = tmp_path / "scenarios"
    (root / "Toy" / "s").mkdir(parents=True)
    (root / "Toy" / "s" / "scenario.json").write_text(json.dumps({
        "model": "Toy", "generated_by": str(script), "signals": {"y": {"rel_rms_percent": 1, "max_abs": 1}},
    }))
    out = tmp_path / "out"

    first = references(root, out)
    assert first.returncode == 0
    assert "added: scenarios/Toy/s/Toy_ref.csv" in first.stdout

    again = references(root, out)
    assert again.returncode == 0 and "no file changed" in again.stdout

    assert references(root, out, "--check").returncode == 0

    check = references(root, out, "--check", value="2.0")
    assert check.returncode == 1 and "Toy_ref.csv CHANGED" in check.stdout
    assert (root / "Toy" / "s" / "Toy_ref.csv").read_text().endswith("1.0,1.0\n")  # --check wrote nothing

    rewrite = references(root, out, value="2.0")
    assert rewrite.returncode == 0 and "changed: scenarios/Toy/s/Toy_ref.csv" in rewrite.stdout
    assert (out / "reference-scripts" / "toy_reference.log").is_file()


def test_a_scenario_without_a_reference_script_is_a_problem(tmp_path):
    root = tmp_path / "scenarios"
    (root / "Toy" / "s").mkdir(parents=True)
    (root / "Toy" / "s" / "scenario.json").write_text(json.dumps({"model": "Toy"}))
    completed = references(root, tmp_path / "out")
    assert completed.returncode == 1 and "names no generated_by script" in completed.stdout
