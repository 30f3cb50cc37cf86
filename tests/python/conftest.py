"""pytest configuration of the FMPy end-to-end suite.

Run from the repository root:  target/venv/bin/python -m pytest tests/python

The measured figures (errors against the reference traces, steady-state
errors, checker verdicts) are collected during the run and printed as tables
at the end of the session by ``pytest_terminal_summary`` (no ``-s`` needed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fmu_harness  # noqa: E402
from fmu_harness import SuiteReport  # noqa: E402


REPORT_KEY = pytest.StashKey[SuiteReport]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[REPORT_KEY] = SuiteReport()


@pytest.fixture(scope="session")
def report(pytestconfig: pytest.Config) -> SuiteReport:
    """The session's figure collector."""
    return pytestconfig.stash[REPORT_KEY]


@pytest.fixture(scope="session")
def unpack(tmp_path_factory: pytest.TempPathFactory):
    """unpack(model, version) -> folder of the extracted FMU (once per
    session). Fails the calling test when the FMU has not been built."""
    root = tmp_path_factory.mktemp("fmus")

    def _unpack(model: str, version: int) -> Path:
        return fmu_harness.extracted(model, version, root)

    return _unpack


def _ms(step: float) -> str:
    return f"{step * 1e3:g} ms"


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    report = config.stash.get(REPORT_KEY, None)
    if report is None:
        return
    tr = terminalreporter
    if report.traces:
        tr.write_sep("=", "FMU vs reference trace (FMPy co-simulation)")
        header = (
            f"{'model':<13}{'scenario':<12}{'FMI':<5}{'step':<7}{'signal':<7}{'points':>7}"
            f"{'rel RMS %':>12}{'bound':>8}{'max |err|':>12}{'bound':>10}  result"
        )
        tr.write_line(header)
        tr.write_line("-" * len(header))
        for f in sorted(report.traces, key=lambda f: (f.model, f.scenario, f.version, f.step)):
            tr.write_line(
                f"{f.model:<13}{f.scenario:<12}{f.version:<5}{_ms(f.step):<7}{f.signal:<7}{f.points:>7}"
                f"{f.rel_rms_percent:>12.3e}{f.rel_rms_bound:>8g}{f.max_abs:>12.3e}{f.max_abs_bound:>10.2e}  "
                f"{'ok' if f.ok else 'OUT OF BOUNDS'}"
            )
        tr.write_line("(units of max |err|: Pa for p1, p2; m3/s for Q1..Q3)")
    if report.steady:
        tr.write_sep("=", "steady state at the end of the default experiment")
        header = f"{'model':<13}{'FMI':<5}{'quantity':<26}{'value':>16}{'expected':>16}{'rel err':>11}{'limit':>8}"
        tr.write_line(header)
        tr.write_line("-" * len(header))
        for model, version, quantity, value, expected, rel, limit in report.steady:
            tr.write_line(
                f"{model:<13}{version:<5}{quantity:<26}{value:>16.9e}{expected:>16.9e}{rel:>11.2e}{limit:>8g}"
            )
    if report.checks:
        tr.write_sep("=", "FMU checkers")
        for model, version, checker, verdict in report.checks:
            tr.write_line(f"{model:<13}FMI {version}  {checker:<16}{verdict}")
    notes = list(report.notes)
    notes += [f"FMU message from unregistered instance {name!r}: {msg}" for name, msg in fmu_harness.UNROUTED]
    if notes:
        tr.write_sep("=", "notes")
        for note in notes:
            tr.write_line(note)
