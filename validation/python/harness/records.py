"""Verdict files, Cross-Check style.

Every run, checker call and reference check gets a folder holding one marker
file named after its verdict (``passed``, ``failed``, ``rejected`` or
``not_supported``) whose text is the reason and the figures, plus
``verdict.json`` (the same, machine-readable; the report is rebuilt from it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

PASSED = "passed"
FAILED = "failed"
REJECTED = "rejected"
NOT_SUPPORTED = "not_supported"
VERDICTS = (PASSED, FAILED, REJECTED, NOT_SUPPORTED)
FAILING = (FAILED, REJECTED)  # verdicts that make the command exit 1

RECORD_FILE = "verdict.json"


def clear_folder_markers(folder: Path) -> None:
    """Remove the markers and record of an earlier run in ``folder``."""
    for name in (*VERDICTS, RECORD_FILE):
        path = folder / name
        if path.exists():
            path.unlink()


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "nan", "inf": JSON has no such numbers
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _json_restore(value):
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    if isinstance(value, dict):
        return {k: _json_restore(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_restore(v) for v in value]
    return value


def marker_text(record: dict) -> str:
    """Human-readable content of the marker file."""
    lines = [record["verdict"]]
    lines += [f"reason: {reason}" for reason in record.get("reasons", [])]
    for key in ("model", "scenario", "fmi", "master", "step", "checker", "fmu", "wall_time", "exit_code"):
        if key in record and record[key] is not None:
            lines.append(f"{key}: {record[key]}")
    for signal in record.get("signals", []):
        lines.append(
            f"{signal['signal']}: rel RMS {signal['rel_rms_percent']:.4g} % (bound {signal['bound_rel_rms_percent']:g} %), "
            f"max abs {signal['max_abs']:.4g} (bound {signal['bound_max_abs']:g}), "
            f"outside band {signal['band_outside_percent']:.3g} %, {signal['compared_points']} points"
        )
    for check in record.get("analytic", []):
        lines.append(f"analytic {check['describe']}: got {check['computed']:.12g} -> {'ok' if check['passed'] else 'FAILED'}")
    return "\n".join(lines) + "\n"


def write_record(folder: Path, record: dict) -> None:
    """Write the marker file and ``verdict.json`` into ``folder``."""
    if record["verdict"] not in VERDICTS:
        raise ValueError(f"unknown verdict {record['verdict']!r}")
    folder.mkdir(parents=True, exist_ok=True)
    clear_folder_markers(folder)
    (folder / record["verdict"]).write_text(marker_text(record))
    (folder / RECORD_FILE).write_text(json.dumps(_json_safe(record), indent=2) + "\n")


def load_records(root: Path) -> list[dict]:
    """Every ``verdict.json`` under ``root``, with its folder as ``folder``."""
    records = []
    for path in sorted(Path(root).glob(f"**/{RECORD_FILE}")):
        record = _json_restore(json.loads(path.read_text()))
        record["folder"] = str(path.parent)
        records.append(record)
    return records
