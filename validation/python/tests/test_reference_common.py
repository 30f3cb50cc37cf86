"""The helpers the reference scripts share (reference_common.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import reference_common as rc  # noqa: E402


def test_published_numbers_are_read_as_rounded_or_truncated_and_nothing_wider():
    assert rc.agrees_to_published(-23907.4, "-2.4e4")[0]  # rounded
    assert rc.agrees_to_published(4.05578e-5, "4.055e-5")[0]  # truncated
    assert not rc.agrees_to_published(4.0566e-5, "4.055e-5")[0]
    ok, how = rc.agrees_to_published(97.76, "97.5")
    assert not ok and "97.8" in how and "97.7" in how


def test_csv_text_round_trips_every_double():
    values = [0.1, 1 / 3, -2.5e-300, 1e308]
    text = rc.csv_text(["time", "y"], [[0.0, 1.0, 2.0, 3.0], values])
    header, table = rc.parse_csv(text)
    assert header == ["time", "y"] and list(table[:, 1]) == values
    assert text.endswith("\n") and text.count("\n") == 5


def test_checks_count_failures_and_discrepancies_and_set_the_exit_status(capsys):
    checks = rc.Checks()
    assert checks.add("a", True, "fine")
    checks.discrepancy("b", "published 1, equations give 2")
    assert checks.finish() == 0
    assert not checks.add("c", False, "off", trace=True)
    checks.add("d", False, "off")
    assert checks.trace_failures == 1 and checks.failed == ["c", "d"]
    assert checks.finish() == 1
    out = capsys.readouterr().out
    assert "[DISCREPANCY] b" in out and "2 check(s) FAILED" in out and "all checks passed" in out


def test_compare_with_committed_names_what_changed(tmp_path):
    committed = {"x_ref.csv": rc.csv_text(["time", "y"], [[0.0, 1.0], [1.0, 2.0]]), "scenario.json": "{}\n"}
    for name, text in committed.items():
        (tmp_path / name).write_text(text)

    def run(files, exact=False):
        checks = rc.Checks()
        rc.compare_with_committed(checks, "s", tmp_path, files, exact=exact)
        return checks.failed

    assert run(committed) == []
    # last-bit noise passes, a real change fails, as does any other file's change
    assert run({"x_ref.csv": rc.csv_text(["time", "y"], [[0.0, 1.0], [1.0, 2.0 + 4e-16]])}) == []
    assert run({"x_ref.csv": rc.csv_text(["time", "y"], [[0.0, 1.0], [1.0, 2.001]])}) == ["s: x_ref.csv"]
    assert run({"x_ref.csv": rc.csv_text(["time", "z"], [[0.0, 1.0], [1.0, 2.0]])}) == ["s: x_ref.csv"]
    assert run({"scenario.json": "{ }\n"}) == ["s: scenario.json"]
    assert run({"missing.csv": "time\n0.0\n"}) == ["s: missing.csv"]
    # --exact: the last-bit noise fails too
    assert run({"x_ref.csv": rc.csv_text(["time", "y"], [[0.0, 1.0], [1.0, 2.0 + 4e-16]])}, exact=True) == ["s: x_ref.csv"]


def test_judge_change_limits_the_rms_change_and_the_largest_change():
    old = np.ones((1000, 2))
    scale = np.ones(2)
    new = old.copy()
    new[:, 1] += 5e-7  # RMS 5e-7 of the scale: within 1e-6
    assert rc.judge_change("a_ref.csv", ["time", "y"], old, new, scale)[0]
    new[:, 1] += 1e-6  # RMS 1.5e-6: CHANGED
    assert not rc.judge_change("a_ref.csv", ["time", "y"], old, new, scale)[0]
    new = old.copy()
    new[500, 1] = 1.0 + 2e-5  # RMS 6e-7, largest 2e-5: within both limits
    assert rc.judge_change("a_ref.csv", ["time", "y"], old, new, scale)[0]
    new[500, 1] = 1.0 + 3e-4  # largest 3e-4 > 1e-4: CHANGED
    assert not rc.judge_change("a_ref.csv", ["time", "y"], old, new, scale)[0]
    # a second solver's trace may move 100 times as much
    new = old.copy()
    new[:, 1] += 5e-5
    assert rc.judge_change("a_cvode.csv", ["time", "y"], old, new, scale)[0]
    assert not rc.judge_change("a_ref.csv", ["time", "y"], old, new, scale)[0]


@pytest.mark.parametrize("check", [True, False])
def test_write_or_compare_writes_only_an_accepted_trace(tmp_path, check):
    files = {"a.csv": "time\n0.0\n"}
    checks = rc.Checks()
    rc.write_or_compare(checks, check, "s", tmp_path / "out", files, write_ok=False)
    assert not (tmp_path / "out").exists()
    if not check:
        rc.write_or_compare(checks, False, "s", tmp_path / "out", files, write_ok=True)
        assert (tmp_path / "out" / "a.csv").read_text() == files["a.csv"]
