"""Third-party FMU checkers accept both FMUs: FMPy's validator (XML schema,
variable names, model structure, start values, units) and fmutool -check
from fmu-manipulation-toolbox (XSD schema plus FMI semantic rules).

fmutool -check reports through its logger on stdout, one record per line as
``LEVEL    | message``: every problem is a record of level ERROR (CRITICAL
for unreadable input), a summary ``-check: N error(s) found.`` closes a
failed check, and the exit status is then non-zero. A clean check prints
``This FMU seems to be compliant with FMI-x.0.`` and ``No semantic error
against the FMI-x standard.``. The last test feeds both checkers a broken
copy of the FMU to show that this reading of their output does see
problems."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fmpy.validation import validate_fmu

from fmu_harness import FMI_VERSIONS, VENV_BIN, require_fmu

MODEL = "OrificeChain"
IDS = [f"{MODEL}/fmi{v}" for v in FMI_VERSIONS]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RECORD = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s*\|\s?(.*)$")


def fmutool_command() -> Path:
    """The fmutool entry point of the project venv (else next to python)."""
    for candidate in (VENV_BIN / "fmutool", Path(sys.executable).parent / "fmutool"):
        if candidate.is_file():
            return candidate
    pytest.fail("fmutool not found: install validation/python/requirements.txt into target/venv", pytrace=False)


def run_fmutool_check(fmu: Path) -> tuple[int, str, dict[str, list[str]]]:
    """Runs `fmutool -input FMU -check`; returns the exit status, the whole
    output and its log records grouped by level."""
    proc = subprocess.run(
        [str(fmutool_command()), "-input", str(fmu), "-check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = _ANSI.sub("", proc.stdout + proc.stderr)
    records: dict[str, list[str]] = {}
    for line in output.splitlines():
        match = _RECORD.match(line.strip())
        if match:
            records.setdefault(match.group(1), []).append(match.group(2).strip())
    if "Traceback" in proc.stderr:
        records.setdefault("ERROR", []).append("Python traceback on stderr")
    return proc.returncode, output, records


def problems_of(records: dict[str, list[str]]) -> list[str]:
    return records.get("ERROR", []) + records.get("CRITICAL", [])


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_fmpy_validate(version: int, report):
    fmu = require_fmu(MODEL, version)
    problems = validate_fmu(str(fmu))
    report.checks.append((MODEL, version, "fmpy validate", f"{len(problems)} problem(s)"))
    assert problems == [], f"fmpy validate found {len(problems)} problem(s):\n" + "\n".join(problems)


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_fmutool_check(version: int, report):
    fmu = require_fmu(MODEL, version)
    status, output, records = run_fmutool_check(fmu)
    problems = problems_of(records)
    warnings = records.get("WARNING", [])
    verdict = f"exit {status}, {len(problems)} error(s), {len(warnings)} warning(s)"
    report.checks.append((MODEL, version, "fmutool -check", verdict))
    for warning in warnings:
        report.notes.append(f"fmutool -check, {MODEL} FMI {version}: WARNING {warning}")
    assert status == 0 and not problems, f"fmutool -check failed ({verdict}):\n{output}"
    info = " ".join(records.get("INFO", []))
    assert f"compliant with FMI-{version}.0" in info, f"no compliance verdict in the output:\n{output}"
    assert f"No semantic error against the FMI-{version} standard" in info, f"no semantic verdict:\n{output}"


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_checkers_see_a_broken_copy(version: int, tmp_path: Path):
    """A copy whose modelDescription.xml declares the name "ps" twice (the
    tank pressure renamed) must fail both checkers as read above."""
    fmu = require_fmu(MODEL, version)
    broken = tmp_path / f"{MODEL}_broken.fmu"
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(broken, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "modelDescription.xml":
                text = data.decode("utf-8")
                assert 'name="pt"' in text
                data = text.replace('name="pt"', 'name="ps"', 1).encode("utf-8")
            dst.writestr(item, data, compress_type=zipfile.ZIP_STORED)

    assert validate_fmu(str(broken)), "fmpy validate accepted a duplicate variable name"
    status, output, records = run_fmutool_check(broken)
    assert status != 0 and problems_of(records), f"fmutool -check missed a duplicate variable name:\n{output}"
