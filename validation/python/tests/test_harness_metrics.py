"""Unit tests of the validation harness on synthetic data: metrics, input
sampling, scenario files, verdict rules, verdict files and the report page."""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import metrics  # noqa: E402
from harness.evaluate import run_verdict  # noqa: E402
from harness.masters import apply_overrides, default_masters  # noqa: E402
from harness.records import load_records, write_record  # noqa: E402
from harness.report import Page  # noqa: E402
from harness.scenario import (  # noqa: E402
    ScenarioError,
    communication_points,
    load_scenario,
    parse_options,
    sample_inputs,
)
from harness.tables import Table, read_table, write_table  # noqa: E402

T_REF = np.arange(5001) / 1000.0  # 0..5 s on a 1 ms grid, correctly rounded


def test_relative_rms_of_a_one_percent_offset_on_a_constant_is_one_percent():
    ref = np.full(100, 3.0e6)
    assert metrics.relative_rms_percent(0.01 * ref, ref) == pytest.approx(1.0, rel=1e-12)


def test_relative_rms_divides_the_rms_by_the_mean_absolute_reference():
    ref = np.array([1.0, -3.0, 2.0, -2.0])  # mean |ref| = 2
    diff = np.array([0.1, -0.1, 0.1, -0.1])  # RMS = 0.1
    assert metrics.relative_rms_percent(diff, ref) == pytest.approx(5.0)


def test_relative_rms_of_a_zero_reference():
    zeros = np.zeros(4)
    assert metrics.relative_rms_percent(zeros, zeros) == 0.0
    assert metrics.relative_rms_percent(np.ones(4), zeros) == math.inf


def test_common_points_match_a_coarser_result_grid_with_rounding_noise():
    t_res = communication_points(0.0, 5.0, 0.01)
    t_res = t_res + 3e-15 * np.arange(len(t_res)) / len(t_res)  # accumulated-sum noise, as ecos reports time
    i_res, i_ref = metrics.common_points(t_res, T_REF)
    assert len(i_ref) == 501
    assert np.all(np.abs(t_res[i_res] - T_REF[i_ref]) < 1e-12)
    assert T_REF[i_ref][1] == 0.01


def test_common_points_of_a_shifted_grid_are_none():
    i_res, i_ref = metrics.common_points(T_REF + 0.0005, T_REF)
    assert len(i_ref) == 0


def test_compare_signal_reports_offset_max_abs_and_its_time():
    y_ref = 1e6 * (1 - np.exp(-T_REF / 0.1))
    y = y_ref.copy()
    y[2500] += 50.0
    m = metrics.compare_signal("p", T_REF, y, T_REF, y_ref, bound_rel_rms_percent=0.05, bound_max_abs=100.0)
    assert m.passed and m.problems == []
    assert m.max_abs == pytest.approx(50.0)
    assert m.time_of_max_abs == 2.5
    assert m.compared_points == 5001
    assert m.band_outside_percent == 0.0


def test_compare_signal_fails_each_bound_separately():
    y_ref = 1e6 * (1 - np.exp(-T_REF / 0.1))
    off = metrics.compare_signal("p", T_REF, 1.01 * y_ref, T_REF, y_ref, 0.05, 1e9)
    assert not off.passed
    assert off.rel_rms_percent == pytest.approx(100 * 0.01 * np.sqrt(np.mean(y_ref**2)) / np.mean(y_ref), rel=1e-9)
    assert any("rel RMS" in p for p in off.problems) and not any("max abs" in p for p in off.problems)
    spike = y_ref.copy()
    spike[10] += 2e3
    peak = metrics.compare_signal("p", T_REF, spike, T_REF, y_ref, 1.0, 1e3)
    assert [p for p in peak.problems if "max abs" in p] and not [p for p in peak.problems if "rel RMS" in p]


def test_band_criterion_flags_a_large_deviation_and_nan():
    y_ref = np.sin(T_REF)
    fraction, _ = metrics.band_outside_fraction(T_REF, y_ref, T_REF, y_ref)
    assert fraction == 0.0
    # FMPy's band is 10 % of the reference's range high: 1 % stays inside, 50 % does not
    assert metrics.band_outside_fraction(T_REF, y_ref + 0.02, T_REF, y_ref)[0] == 0.0
    assert metrics.band_outside_fraction(T_REF, y_ref + 1.0, T_REF, y_ref)[0] > 0.9
    y = y_ref.copy()
    y[1000:1010] = np.nan
    fraction, _ = metrics.band_outside_fraction(T_REF, y, T_REF, y_ref)
    assert fraction == pytest.approx(10 / 5001)
    m = metrics.compare_signal("s", T_REF, y, T_REF, y_ref, 1.0, 1.0)
    assert not m.passed


def test_compare_signal_with_a_result_that_misses_the_reference_grid():
    y_ref = np.ones_like(T_REF)
    m = metrics.compare_signal("s", T_REF + 0.0005, y_ref, T_REF, y_ref, 1.0, 1.0)
    assert not m.passed and "coincide" in m.problems[0]


def test_value_at_takes_grid_points_and_interpolates_between():
    t = np.array([0.0, 1.0, 2.0])
    y = np.array([0.0, 10.0, 30.0])
    assert metrics.value_at(t, y, 1.0) == 10.0
    assert metrics.value_at(t, y, 1.5) == 20.0
    assert math.isnan(metrics.value_at(t, y, 2.5))


INPUT = Table(["time", "u"], np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 3.0], [2.0, 5.0]]))


def test_step_inputs_hold_the_last_row_and_take_the_later_row_at_a_discontinuity():
    times = np.array([-0.5, 0.0, 0.999, 1.0, 1.5, 2.0, 3.0])
    u = sample_inputs(INPUT, times, "step", 0.001)[:, 0]
    assert list(u) == [1.0, 1.0, 1.0, 3.0, 3.0, 5.0, 5.0]


def test_linear_inputs_interpolate_between_rows():
    times = np.array([0.5, 1.0, 1.5, 1.75, 2.0, 2.5])
    u = sample_inputs(INPUT, times, "linear", 0.001)[:, 0]
    assert list(u) == [1.0, 3.0, 4.0, 4.5, 5.0, 5.0]


def test_sampling_absorbs_rounding_of_the_communication_time():
    times = np.array([1.0 - 1e-15])  # a master's accumulated time just below the row
    assert sample_inputs(INPUT, times, "step", 0.001)[0, 0] == 3.0


def test_communication_points_are_computed_from_the_step_count():
    t = communication_points(0.0, 5.0, 0.001)
    assert len(t) == 5001 and t[-1] == 5.0 and t[1] == 0.001


def write_scenario(folder: Path, **spec) -> Path:
    folder.mkdir(parents=True)
    write_table(folder / "M_in.csv", ["time", "u"], [[0.0, 1.0], [1.0, 1.0]])
    write_table(folder / "M_ref.csv", ["time", "y"], [[0.0, 0.0], [0.5, 1.0], [1.0, 2.0]])
    (folder / "M_ref.opt").write_text("StartTime, 0.0\nStopTime, 1.0\nStepSize, 0.5\nRelTol, 1e-06\n")
    doc = {"model": "M", "signals": {"y": {"rel_rms_percent": 1.0, "max_abs": 0.1}}}
    doc.update(spec)
    (folder / "scenario.json").write_text(json.dumps(doc))
    return folder


def test_scenario_defaults_step_interpolation_and_the_opt_step(tmp_path):
    scenario = load_scenario(write_scenario(tmp_path / "M" / "s"))
    assert scenario.key == "M/s"
    assert scenario.interpolation == "step"
    assert scenario.step_sizes == [0.5]
    assert scenario.options.rel_tol == 1e-6
    assert scenario.analytic == []


def test_scenario_extra_step_sizes_and_analytic_checks(tmp_path):
    scenario = load_scenario(write_scenario(
        tmp_path / "M" / "s", interpolation="linear", step_sizes=[0.5, 0.25],
        analytic=[{"signal": "y", "time": 1.0, "value": 2.0, "rel_tol": 1e-6}],
    ))
    assert scenario.interpolation == "linear"
    assert scenario.step_sizes == [0.5, 0.25]
    assert scenario.analytic[0].tolerance() == pytest.approx(2e-6)


def test_co_simulation_only_scenarios_skip_model_exchange_masters_and_other_solver_modes(tmp_path, capsys):
    from harness.run import plan_runs, run_all

    plain = load_scenario(write_scenario(tmp_path / "M" / "plain"))
    trained = load_scenario(write_scenario(tmp_path / "M" / "trained", co_simulation_only=True,
                                           solver_modes=["adaptive"]))
    assert (plain.co_simulation_only, plain.solver_modes) == (False, ("adaptive", "fixed", "ahead"))
    assert (trained.co_simulation_only, trained.solver_modes) == (True, ("adaptive",))
    masters = default_masters()
    assert {m.name for m in masters if m.model_exchange} == {"fmi-rs-me"}
    tasks = plan_runs([plain, trained], masters, [3], tmp_path / "dist", tmp_path / "out")
    ran = {(t.scenario.name, t.master.name) for t in tasks}
    assert ("plain", "fmi-rs-me") in ran and ("trained", "fmi-rs") in ran
    assert ("trained", "fmi-rs-me") not in ran
    # In the stepping-ahead mode the scenario that chooses its integrator
    # is left out with a line saying so (here nothing else runs: no FMUs).
    summary = run_all([trained], [], [3], tmp_path / "dist", tmp_path / "out2", jobs=1, timeout=10.0,
                      problems=[], checkers=False, ahead=True)
    assert "not in this mode: M/trained" in capsys.readouterr().out
    assert summary is not None


@pytest.mark.parametrize("spec", [
    {"co_simulation_only": "yes"},
    {"solver_modes": ["fast"]},
    {"solver_modes": []},
    {"interpolation": "cubic"},
    {"signals": {}},
    {"signals": {"y": {"rel_rms_percent": 1.0}}},
    {"analytic": [{"signal": "y", "time": 1.0, "value": 2.0}]},
    {"model": "Other"},
])
def test_bad_scenario_files_are_refused(tmp_path, spec):
    with pytest.raises(ScenarioError):
        load_scenario(write_scenario(tmp_path / "M" / "s", **spec))


def test_opt_file_parsing(tmp_path):
    path = tmp_path / "x.opt"
    path.write_text("StartTime, 0.0\nStopTime, 50.0\nStepSize, 0.001\nRelTol, 1e-06\n")
    opt = parse_options(path)
    assert (opt.start_time, opt.stop_time, opt.step_size, opt.rel_tol) == (0.0, 50.0, 0.001, 1e-6)
    path.write_text("StartTime, 0.0\nStepSize, 0.001\n")
    with pytest.raises(ScenarioError):
        parse_options(path)


def test_csv_round_trip_is_exact(tmp_path):
    rows = [[0.0, 1 / 3, True], [0.001, 2.0e-5, False]]
    write_table(tmp_path / "r.csv", ["time", "a", "b"], rows)
    table = read_table(tmp_path / "r.csv")
    assert table.columns == ["time", "a", "b"]
    assert table.column("a")[0] == 1 / 3 and list(table.column("b")) == [1.0, 0.0]


@pytest.mark.parametrize("code, verdict", [(3, "not_supported"), (4, "rejected"), (1, "failed"), (-11, "failed"), (2, "failed")])
def test_exit_codes_map_to_verdicts(tmp_path, code, verdict):
    scenario = load_scenario(write_scenario(tmp_path / "M" / "s"))
    record = run_verdict(scenario, code, tmp_path / "none.csv", 0.5, "last line")
    assert record["verdict"] == verdict
    if code == -11:
        assert "SIGSEGV" in record["reasons"][0]


def test_a_good_result_passes_and_a_short_one_fails(tmp_path):
    scenario = load_scenario(write_scenario(tmp_path / "M" / "s"))
    write_table(tmp_path / "good.csv", ["time", "y"], [[0.0, 0.0], [0.5, 1.0], [1.0, 2.0]])
    assert run_verdict(scenario, 0, tmp_path / "good.csv", 0.5, "")["verdict"] == "passed"
    write_table(tmp_path / "short.csv", ["time", "y"], [[0.0, 0.0], [0.5, 1.0]])
    short = run_verdict(scenario, 0, tmp_path / "short.csv", 0.5, "")
    assert short["verdict"] == "failed" and "before the stop time" in short["reasons"][0]
    write_table(tmp_path / "other.csv", ["time", "z"], [[0.0, 0.0], [0.5, 1.0], [1.0, 2.0]])
    assert "missing" in run_verdict(scenario, 0, tmp_path / "other.csv", 0.5, "")["reasons"][0]
    assert run_verdict(scenario, 0, tmp_path / "absent.csv", 0.5, "")["verdict"] == "failed"


def test_a_runner_that_is_not_built_fails(tmp_path):
    masters = apply_overrides(default_masters(), [f"fmi-rs={tmp_path / 'fmi-runner'}"])
    fmi_rs = next(m for m in masters if m.name == "fmi-rs")
    reason = fmi_rs.missing_program()
    assert reason and "not built" in reason
    scenario = load_scenario(write_scenario(tmp_path / "M" / "s"))
    assert run_verdict(scenario, None, tmp_path / "x.csv", 0.5, "", missing_program=reason)["verdict"] == "failed"


def test_verdict_files_round_trip_with_non_finite_figures(tmp_path):
    record = {"kind": "run", "verdict": "failed", "reasons": ["x"], "model": "M",
              "signals": [{"signal": "y", "rel_rms_percent": math.nan, "bound_rel_rms_percent": 1.0, "max_abs": math.inf,
                           "bound_max_abs": 1.0, "band_outside_percent": 100.0, "compared_points": 0}]}
    write_record(tmp_path / "a", record)
    assert (tmp_path / "a" / "failed").read_text().startswith("failed\nreason: x")
    record["verdict"] = "passed"
    write_record(tmp_path / "a", record)
    assert not (tmp_path / "a" / "failed").exists() and (tmp_path / "a" / "passed").exists()
    loaded = load_records(tmp_path)
    assert len(loaded) == 1 and math.isnan(loaded[0]["signals"][0]["rel_rms_percent"])


def test_report_page_renders_markdown_and_html_tables():
    page = Page()
    page.heading(1, "T")
    page.table(["a", "b"], [["1", "x|y"], ["**FAILED**", "2"]])
    md = page.markdown()
    assert "| a | b |" in md and "x\\|y" in md
    assert "<b>FAILED</b>" in page.html("T")
