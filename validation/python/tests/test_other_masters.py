"""The pure parts of validation/python/tools/other_masters.py on synthetic
data: the result files of each master as it writes them (OMSimulator's
prefixed, quoted columns and doubled rows, fmusim's quoted header,
fmusim-rs's plain one, FMPy's CSV), the comparison metric (shared scale per
unit, interpolation onto the reference grid, a trace that stops early) and
the table. No master is run: a fresh clone has none of them."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import other_masters as om  # noqa: E402


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_omsimulator_csv_maps_prefixed_columns_and_keeps_the_last_of_doubled_rows(tmp_path):
    csv = write(tmp_path / "oms.csv", '"time","M.root.M.x","M.root.M.v","M.root.M.solver_steps","M.root.M.time"\n'
                "0, 1, 0, 0, 0\n"
                "0.001, 1.5, 2, 6, 0.001\n"
                "0.001, 1.25, 3, 6, 0.001\n"
                "0.002, 2, 4, 7, 0.002\n"
                "0.002, 2, 4, 7, 0.002\n")
    trace = om.read_csv_trace(csv, ["x", "v"])
    assert trace.time.tolist() == [0.0, 0.001, 0.002]
    assert trace.columns["x"].tolist() == [1.0, 1.25, 2.0]
    assert trace.columns["v"].tolist() == [0.0, 3.0, 4.0]
    assert set(trace.columns) == {"x", "v"}


def test_ssp_columns_keep_the_component_name(tmp_path):
    csv = write(tmp_path / "ssp.csv", '"time","S.S.mass.x","S.S.actuator.x","S.S.actuator.F"\n0, 1, 2, 3\n1, 4, 5, 6\n')
    trace = om.read_csv_trace(csv, ["mass.x", "actuator.x", "actuator.F"])
    assert trace.columns["mass.x"].tolist() == [1.0, 4.0]
    assert trace.columns["actuator.x"].tolist() == [2.0, 5.0]


@pytest.mark.parametrize("text", [
    '"time","x","v"\n0,1,0\n0.5,2,1\n1,3,2\n',  # fmusim (C)
    "time,x,v\n0,1,0\n0.5,2,1\n1,3,2\n",  # fmusim-rs, FMPy
    "time,x,v,flag\n0,1,0,true\n0.5,2,1,false\n1,3,2,true\n",  # a Boolean column
])
def test_fmusim_and_fmpy_csv(tmp_path, text):
    trace = om.read_csv_trace(write(tmp_path / "r.csv", text), ["x", "v"])
    assert trace.time.tolist() == [0.0, 0.5, 1.0]
    assert trace.columns["x"].tolist() == [1.0, 2.0, 3.0]
    assert trace.columns["v"].tolist() == [0.0, 1.0, 2.0]


def test_an_empty_result_is_an_error(tmp_path):
    with pytest.raises(ValueError):
        om.read_csv_trace(write(tmp_path / "e.csv", '"time","x"\n'), ["x"])


T = np.linspace(0.0, 1.0, 101)


def test_metric_is_the_largest_difference_over_the_reference_magnitude():
    ref = om.Trace(T, {"p": 1e7 * np.sin(T), "x": np.ones_like(T)})
    got = om.Trace(T, {"p": 1e7 * np.sin(T) + 5.0, "x": np.ones_like(T)})
    got.columns["p"][50] += 100.0
    c = om.compare(ref, got, {"p": "Pa", "x": "m"})
    assert c.variable == "p"
    assert c.max_rel == pytest.approx(105.0 / (1e7 * np.sin(1.0)))
    assert c.each["x"] == 0.0 and c.compared == 2


def test_outputs_of_one_unit_share_a_scale_and_a_nominal_is_a_floor():
    ref = om.Trace(T, {"s": np.full_like(T, 3.0), "residual": np.full_like(T, 1e-15), "w": np.zeros_like(T)})
    got = om.Trace(T, {"s": np.full_like(T, 3.0), "residual": np.full_like(T, 2e-15), "w": np.full_like(T, 1e-3)})
    c = om.compare(ref, got, {"s": "m", "residual": "m", "w": "J"}, {"w": 10.0})
    assert c.each["residual"] == pytest.approx(1e-15 / 3.0)
    assert c.each["w"] == pytest.approx(1e-4)
    # without a unit or a nominal a signal is its own scale; all zero: absolute
    alone = om.compare(ref, got)
    assert alone.each["residual"] == pytest.approx(1.0)
    assert alone.each["w"] == pytest.approx(1e-3)


def test_a_finer_master_grid_is_interpolated_onto_the_reference_times():
    fine = np.linspace(0.0, 1.0, 1001)
    ref = om.Trace(T, {"y": 2.0 * T + 1.0})
    got = om.Trace(fine, {"y": 2.0 * fine + 1.0})
    assert om.compare(ref, got, {"y": "m"}).max_rel < 1e-14


def test_a_trace_that_stops_early_is_compared_where_it_exists_and_flagged():
    ref = om.Trace(T, {"y": T.copy()})
    got = om.Trace(T[:51], {"y": T[:51].copy()})
    c = om.compare(ref, got)
    assert c.max_rel == 0.0 and c.end == pytest.approx(0.5)
    run = om.Run("M", 3, "fmusim", "me")
    result = Path(__file__)  # any existing file: evaluate reads it only through read_csv_trace
    om.evaluate(run, 0, "", 0.1, result.with_name("missing.csv"), ref, ["y"], ({}, {}), 1.0, 0.01, 1e-6)
    assert run.verdict == "failed" and "no result file" in run.message


def test_no_common_variable_is_none():
    assert om.compare(om.Trace(T, {"a": T}), om.Trace(T, {"b": T})) is None


def test_verdicts_of_exit_status_timeout_and_difference(tmp_path):
    ref = om.Trace(T, {"y": np.ones_like(T)})
    csv = write(tmp_path / "r.csv", "time,y\n" + "".join(f"{t},{1 + 1e-3 * t}\n" for t in T))
    args = (csv, ref, ["y"], ({"y": "m"}, {}), 1.0, 0.01, 1e-6)
    run = om.Run("M", 2, "fmusim", "cs")
    om.evaluate(run, 0, "[WARNING] root functions identically 0", 0.2, *args)
    assert run.verdict == "differs" and run.max_rel == pytest.approx(1e-3) and "1 warning" in run.message
    run = om.Run("M", 2, "fmusim", "cs")
    om.evaluate(run, None, "", 600.0, *args)
    assert run.verdict == "timeout"
    run = om.Run("M", 2, "fmusim", "cs")
    om.evaluate(run, -6, "line\n[ERROR] NaN in the derivatives\nAborted", 0.1, *args)
    assert run.verdict == "failed" and "NaN" in run.message and "-6" in run.message


def test_the_table_has_one_row_per_run_and_escapes_pipes():
    runs = [om.Run("HoseH", 3, "fmusim", "me", "agrees", 1.5e-9, "p1", 4, wall=0.12, fine_rel=2e-7),
            om.Run("HoseZ", 3, "omsimulator", "me", om.NOT_SUPPORTED, message="a | b")]
    text = om.markdown_table(runs)
    lines = text.strip().splitlines()
    assert len(lines) == 4 and lines[0].startswith("| FMU | FMI | master |")
    assert "| HoseH | 3 | fmusim | ME | agrees | 1.50e-09 | p1 | 2.00e-07 | 0.1 |" in lines[2]
    assert "a \\| b" in lines[3]
    assert om.summary(runs) in ("1 agrees, 1 not supported by the master", "1 not supported by the master, 1 agrees")


def test_commands_name_the_masters_by_placeholder(tmp_path):
    ex = om.Experiment(0.0, 0.2, 1e-4)
    fmu = tmp_path / "fmi3" / "HoseH.fmu"
    cmd = om.master_command("fmusim", "/opt/x/fmusim", fmu, 3, "me", ex, "out.csv")
    assert cmd[:5] == ["/opt/x/fmusim", "--interface-type", "me", "--solver", "cvode"]
    assert "--tolerance" in cmd and "0.2" in cmd and "0.0001" in cmd
    shown = om.shown_command(cmd, "/opt/x/fmusim", "$FMUSIM", tmp_path)
    assert shown.startswith("$FMUSIM --interface-type me") and "/opt/x" not in shown
    assert om.master_command("omsimulator", "/o", fmu, 3, "me", ex, "o.csv") is None
    oms = om.master_command("omsimulator", "/o", fmu, 2, "cs", ex, "o.csv")
    assert "--tolerance=1e-06" in oms and "--mode=cs" in oms and "--stepSize=0.0001" in oms
