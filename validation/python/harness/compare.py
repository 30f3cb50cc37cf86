"""``harness compare``: two harness runs trace by trace, and two builds'
model descriptions file by file; the check that a change meant to keep
the FMUs' behaviour (a refactoring) kept it.

Traces: every ``result.csv`` under ``OLD/results`` with a twin under
``NEW/results`` (same model, scenario, FMI version, master and step) is
read, and for each signal the largest difference over the run divided by
the signal's largest magnitude in the old run is taken. A trace is
*identical* when every value is bit for bit the same, else the largest
such relative difference is reported and compared with ``--tolerance``.

Model descriptions: ``modelDescription.xml`` of every ``.fmu`` under
``--old-dist`` and ``--new-dist`` (``fmi2/`` and ``fmi3/``), compared as
text after dropping the generation time stamp, with the lines that
differ.
"""

from __future__ import annotations

import csv
import difflib
import math
import re
import zipfile
from pathlib import Path


def read_trace(path: Path) -> dict[str, list[float]]:
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}
    header, data = rows[0], rows[1:]
    columns: dict[str, list[float]] = {name: [] for name in header}
    for row in data:
        for name, value in zip(header, row):
            try:
                columns[name].append(float(value))
            except ValueError:
                columns[name].append(math.nan)
    return columns


def trace_difference(old: dict[str, list[float]], new: dict[str, list[float]]) -> tuple[bool, float, str]:
    """(identical, largest relative difference, where) of two traces; a
    signal missing from one, or runs of different length, count as an
    infinite difference."""
    if set(old) != set(new):
        missing = sorted(set(old) ^ set(new))
        return False, math.inf, f"signals differ: {', '.join(missing)}"
    identical = True
    worst, where = 0.0, ""
    for name, a in old.items():
        b = new[name]
        if len(a) != len(b):
            return False, math.inf, f"{name}: {len(a)} rows against {len(b)}"
        if a == b:
            continue
        identical = False
        scale = max((abs(v) for v in a if math.isfinite(v)), default=0.0) or 1.0
        diff = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
        if any(math.isnan(x) != math.isnan(y) for x, y in zip(a, b)):
            diff = math.inf
        if diff / scale > worst:
            worst, where = diff / scale, name
    return identical, worst, where


def compare_runs(old_out: Path, new_out: Path, tolerance: float) -> int:
    old_results, new_results = old_out / "results", new_out / "results"
    old_files = {p.relative_to(old_results) for p in old_results.rglob("result.csv")}
    new_files = {p.relative_to(new_results) for p in new_results.rglob("result.csv")}
    both = sorted(old_files & new_files)
    identical = within = beyond = 0
    worst_overall = 0.0
    for rel in both:
        same, worst, where = trace_difference(read_trace(old_results / rel), read_trace(new_results / rel))
        key = str(rel.parent)
        if same:
            identical += 1
        elif worst <= tolerance:
            within += 1
            print(f"within   {key}: {worst:.2e} ({where})")
        else:
            beyond += 1
            print(f"BEYOND   {key}: {worst:.2e} ({where})")
        worst_overall = max(worst_overall, 0.0 if same else worst)
    for rel in sorted(old_files - new_files):
        print(f"only in the old run: {rel.parent}")
    for rel in sorted(new_files - old_files):
        print(f"only in the new run: {rel.parent}")
    print(f"traces: {len(both)} compared, {identical} identical, {within} within {tolerance:g}, "
          f"{beyond} beyond; largest relative difference {worst_overall:.2e}")
    return 1 if beyond or not both else 0


STAMP = re.compile(r'\s*generationDateAndTime="[^"]*"')


def model_description(fmu: Path) -> str:
    with zipfile.ZipFile(fmu) as z:
        return STAMP.sub("", z.read("modelDescription.xml").decode())


def compare_descriptions(old_dist: Path, new_dist: Path) -> int:
    old = {p.relative_to(old_dist) for p in old_dist.glob("fmi*/*.fmu")}
    new = {p.relative_to(new_dist) for p in new_dist.glob("fmi*/*.fmu")}
    same = differ = 0
    for rel in sorted(old & new):
        a, b = model_description(old_dist / rel), model_description(new_dist / rel)
        if a == b:
            same += 1
            continue
        differ += 1
        print(f"differs: {rel}")
        for line in difflib.unified_diff(a.splitlines(), b.splitlines(), "old", "new", n=0, lineterm=""):
            print(f"  {line}")
    for rel in sorted(old ^ new):
        print(f"only in {'the old' if rel in old else 'the new'} build: {rel}")
        differ += 1
    print(f"model descriptions: {same} identical, {differ} different")
    return 1 if differ else 0
