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


# A script that checks one model and meets its partner: it says it started,
# then waits for the other script to start too (so it passes only when the
# two run at the same time); MISBEHAVE makes it write into its folder
# although --check must write nothing.
RENDEZVOUS = '''
import argparse, os, sys, time
from pathlib import Path
p = argparse.ArgumentParser()
p.add_argument("--out-dir", type=Path, required=True)
p.add_argument("--check", action="store_true")
a = p.parse_args()
me, other = sys.argv[0].endswith("a.py") and ("a", "b") or ("b", "a")
meet = Path(os.environ["MEET"])
(meet / me).write_text("started")
deadline = time.time() + 20
while not (meet / other).exists():
    if time.time() > deadline:
        print("  [FAIL] rendezvous: the other script never started")
        sys.exit(1)
    time.sleep(0.05)
print("  [PASS] rendezvous: both scripts ran at the same time")
if os.environ.get("MISBEHAVE") == me:
    (a.out_dir / ("Toy" + me) / "s" / "stray.csv").write_text("x")
'''


def test_check_runs_scripts_side_by_side_and_names_a_script_that_writes(tmp_path):
    root = tmp_path / "scenarios"
    meet = tmp_path / "meet"
    for me in ("a", "b"):
        script = tmp_path / f"toy_{me}.py"
        script.write_text(RENDEZVOUS)
        folder = root / f"Toy{me}" / "s"
        folder.mkdir(parents=True)
        (folder / "scenario.json").write_text(json.dumps({
            "model": f"Toy{me}", "generated_by": str(script), "signals": {"y": {"rel_rms_percent": 1, "max_abs": 1}},
        }))
        (folder / f"Toy{me}_ref.csv").write_text("time,y\n0.0,0.0\n1.0,1.0\n")
        (folder / f"Toy{me}_in.csv").write_text("time,u\n0.0,1.0\n")
        (folder / f"Toy{me}_ref.opt").write_text("StartTime, 0.0\nStopTime, 1.0\nStepSize, 0.5\nRelTol, 1e-06\n")

    def run(*args, **env):
        meet.mkdir(exist_ok=True)
        for marker in meet.iterdir():
            marker.unlink()
        environment = dict(os.environ, PYTHONPATH=str(PYTHON_ROOT), MEET=str(meet), **env)
        completed = subprocess.run([sys.executable, "-m", "harness", "references", "--scenarios", str(root),
                                    "--out", str(tmp_path / "out"), "--check", *args],
                                   capture_output=True, text=True, cwd=REPO_ROOT, env=environment)
        print(completed.stdout, completed.stderr)
        return completed

    both = run("--jobs", "2")
    assert both.returncode == 0
    assert "reference checks: 2 passed, 0 failed" in both.stdout

    writer = run("--jobs", "2", MISBEHAVE="b")
    assert writer.returncode == 1
    assert "the script modified files in --check mode: Toyb/s/stray.csv" in writer.stdout
    assert "reference checks: 2 passed, 1 failed" in writer.stdout


def test_quick_and_short_pass_each_script_the_flags_it_knows(tmp_path):
    """--quick leaves out the slow scripts' second checks; --short also
    narrows the scripts with long traces to one short scenario that each
    script knows by that name; scripts without such flags run in full."""
    import importlib.util

    sys.path.insert(0, str(PYTHON_ROOT))
    from harness.references import script_command

    reference = REPO_ROOT / "validation" / "python" / "reference"

    def flags(name, **kw):
        return script_command(reference / name, tmp_path, check=True, **kw)[4:]

    assert flags("valve_cylinder.py") == ["--check"]
    assert flags("valve_cylinder.py", quick=True) == ["--check", "--quick"]
    assert flags("hose_line.py", quick=True) == ["--check", "--no-frequency"]
    assert flags("valve_cylinder.py", short=True) == ["--check", "--quick", "--scenario", "repeatable"]
    assert flags("hose_line.py", short=True) == ["--check", "--no-frequency", "--scenario", "HoseH/step_n1"]
    assert flags("four_bar.py", short=True) == ["--check", "--quick", "--scenario", "sine_linear"]
    assert flags("lift_actuator.py", short=True) == ["--check"]
    # every scenario named is one the script accepts
    for name in ("valve_cylinder.py", "hose_line.py", "four_bar.py"):
        spec = importlib.util.spec_from_file_location(name[:-3], reference / name)
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(reference))
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        chosen = flags(name, short=True)
        assert chosen[chosen.index("--scenario") + 1] in module.SCENARIOS, name
    assert "--short needs --check" in references(tmp_path, tmp_path / "out", "--short").stderr
