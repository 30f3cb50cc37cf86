"""Twin scenarios (``twin_of`` in scenario.json): a described circuit's
scenario is its written-out twin's (files, bounds, steps, checks) under its
own names; the twin's parameters are refused unless the scenario says the
description fixes them, and then none is set; ``harness references`` leaves
twin scenarios out, and the fixed-cost mode uses the twin's substeps."""

import json
import sys
from pathlib import Path

import pytest

PYTHON_ROOT = Path(__file__).resolve().parents[1]
if str(PYTHON_ROOT) not in sys.path:
    sys.path.insert(0, str(PYTHON_ROOT))

from harness.references import reference_scripts  # noqa: E402
from harness.run import mode_settings  # noqa: E402
from harness.scenario import ScenarioError, discover, load_scenario  # noqa: E402

SCENARIOS = PYTHON_ROOT.parents[1] / "validation" / "scenarios"


def write_twin(root: Path, parameters: dict) -> Path:
    folder = root / "Toy" / "s"
    folder.mkdir(parents=True)
    (folder / "scenario.json").write_text(json.dumps({
        "model": "Toy", "parameters": parameters, "step_sizes": [0.1, 0.05], "generated_by": "toy.py",
        "analytic": [{"signal": "y", "time": 1.0, "value": 2.0, "abs_tol": 0.1}],
        "signals": {"y": {"rel_rms_percent": 0.5, "max_abs": 2.0}},
    }))
    (folder / "Toy_ref.opt").write_text("StartTime, 0\nStopTime, 1\nStepSize, 0.1\n")
    (folder / "Toy_in.csv").write_text("time,u\n0,0\n1,10\n")
    (folder / "Toy_ref.csv").write_text("time,y\n0,1\n1,2\n")
    return folder


def write_own(root: Path, spec: dict) -> Path:
    folder = root / "ToyFile" / "s"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scenario.json").write_text(json.dumps(spec))
    return folder


def test_a_twin_scenario_is_its_twin_under_its_own_names(tmp_path):
    twin = write_twin(tmp_path, {})
    own = write_own(tmp_path, {"model": "ToyFile", "twin_of": "Toy/s", "built_from": "toy.toml",
                               "description": "the toy as a file"})
    s = load_scenario(own)
    assert (s.key, s.folder, s.twin_of, s.built_from) == ("ToyFile/s", own.resolve(), "Toy/s", "toy.toml")
    assert s.inputs_file == (twin / "Toy_in.csv").resolve() and s.reference_file == (twin / "Toy_ref.csv").resolve()
    assert s.step_sizes == [0.1, 0.05] and list(s.signals) == ["y"] and len(s.analytic) == 1
    assert s.spec["description"] == "the toy as a file" and s.spec["model"] == "ToyFile"
    assert s.parameters == {} and s.fixed_parameters == {}
    keys = [x.key for x in discover(tmp_path)[0]]
    assert keys == ["Toy/s", "ToyFile/s"]


@pytest.mark.parametrize(("spec", "fragment"), [
    ({"twin_of": "Toy"}, "twin_of must be"),
    ({"twin_of": "Toy/none"}, "no scenario folder"),
    ({"twin_of": "ToyFile/s"}, "same model"),
    ({"twin_of": "Toy/s", "signals": {"y": {"rel_rms_percent": 9, "max_abs": 9}}}, "must not state them"),
    ({"twin_of": "Toy/s", "twin_parameters_fixed_by_description": True}, "sets no parameters"),
    ({"twin_of": "Toy/s", "twin_parameters_fixed_by_description": "yes"}, "true or false"),
])
def test_a_bad_twin_scenario_is_refused(tmp_path, spec, fragment):
    write_twin(tmp_path, {})
    with pytest.raises(ScenarioError, match=fragment):
        load_scenario(write_own(tmp_path, spec))


def test_the_twins_parameters_need_the_description_to_fix_them(tmp_path):
    write_twin(tmp_path, {"n": 7, "b": 0.0})
    own = write_own(tmp_path, {"twin_of": "Toy/s"})
    with pytest.raises(ScenarioError, match="twin_parameters_fixed_by_description"):
        load_scenario(own)
    write_own(tmp_path, {"twin_of": "Toy/s", "twin_parameters_fixed_by_description": True})
    s = load_scenario(own)
    assert s.parameters == {} and s.fixed_parameters == {"n": 7, "b": 0.0}


def test_a_twin_of_a_twin_and_the_flag_alone_are_refused(tmp_path):
    write_twin(tmp_path, {})
    write_own(tmp_path, {"twin_of": "Toy/s"})
    third = tmp_path / "ToyCopy" / "s"
    third.mkdir(parents=True)
    (third / "scenario.json").write_text(json.dumps({"twin_of": "ToyFile/s"}))
    with pytest.raises(ScenarioError, match="itself a twin"):
        load_scenario(third)
    spec = json.loads((tmp_path / "Toy" / "s" / "scenario.json").read_text())
    spec["twin_parameters_fixed_by_description"] = True
    (tmp_path / "Toy" / "s" / "scenario.json").write_text(json.dumps(spec))
    with pytest.raises(ScenarioError, match="goes with twin_of"):
        load_scenario(tmp_path / "Toy" / "s")


def test_fixed_cost_falls_back_to_the_twin_and_references_skip_twins(tmp_path):
    write_twin(tmp_path, {})
    s = load_scenario(write_own(tmp_path, {"twin_of": "Toy/s"}))
    table = {"Toy/s": {"0.1": 3}}
    assert mode_settings(s, 0.1, table) == {"solver": 5, "fixed_substeps": 3}
    assert mode_settings(s, 0.1, {**table, "ToyFile/s": {"0.1": 4}})["fixed_substeps"] == 4
    with pytest.raises(ScenarioError):
        mode_settings(s, 0.05, table)
    scripts, problems = reference_scripts(tmp_path)
    assert problems == [] and [keys for keys in scripts.values()] == [["Toy/s"]]


def test_the_committed_twin_scenarios_read():
    twins = {s.key: s for s in discover(SCENARIOS)[0] if s.twin_of}
    assert {"OrificeChainFile/startup", "ValveCylinderFile/random", "ValveCylinderFile/repeatable",
            "LiftActuatorFile/lift_100kg", "HoseH7File/step_n7"} <= set(twins)
    for s in twins.values():
        assert s.built_from and (SCENARIOS.parents[1] / s.built_from).name.endswith(".toml")
        assert s.parameters == {}
    assert twins["HoseH7File/step_n7"].fixed_parameters == {"n": 7, "b": 0.0}
