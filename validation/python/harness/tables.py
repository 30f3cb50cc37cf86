"""Numeric CSV tables: a header of column names and rows of floats.

Used for the scenario files (``<Model>_in.csv``, ``<Model>_ref.csv``) and the
runners' result files. The first column is time in seconds; the others are
signals in SI units.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Table:
    """Columns of a numeric CSV file; ``columns[0]`` is time (s)."""

    columns: list[str]
    values: np.ndarray  # shape (rows, len(columns)), float64

    @property
    def time(self) -> np.ndarray:
        return self.values[:, 0]

    def has(self, name: str) -> bool:
        return name in self.columns

    def column(self, name: str) -> np.ndarray:
        return self.values[:, self.columns.index(name)]


def read_table(path: Path) -> Table:
    """Read a CSV file with a header line and numeric rows.

    Raises ``ValueError`` for an empty file, a row of the wrong length or a
    non-numeric entry ("true"/"false" read as 1/0, for Boolean columns).
    """
    with open(path, newline="") as handle:
        header_line = handle.readline()
    header = [name.strip().strip('"') for name in next(csv.reader([header_line]), [])]
    if header:
        try:  # fast path: plain numbers (numpy's C parser)
            values = np.loadtxt(path, delimiter=",", skiprows=1, comments="#", dtype=float, ndmin=2)
            if values.size == 0:
                values = values.reshape(0, len(header))
            if values.shape[1] == len(header):
                return Table(header, values)
        except ValueError:
            pass  # Boolean words, ragged rows: the checking path below says what is wrong
    with open(path, newline="") as handle:
        rows = [row for row in csv.reader(handle) if row and not row[0].startswith("#")]
    if not rows:
        raise ValueError(f"{path}: empty file")
    header = [name.strip().strip('"') for name in rows[0]]
    data = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}:{number}: {len(row)} values for {len(header)} columns")
        data.append([_number(cell, path, number) for cell in row])
    values = np.array(data, dtype=float).reshape(len(data), len(header))
    return Table(header, values)


def _number(cell: str, path: Path, line: int) -> float:
    text = cell.strip().lower()
    if text in ("true", "false"):
        return 1.0 if text == "true" else 0.0
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{path}:{line}: not a number: {cell!r}") from None


def write_table(path: Path, columns: list[str], rows) -> None:
    """Write a header and rows of numbers, each as the shortest repr that
    reads back to the same double."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        handle.write(",".join(columns) + "\n")
        for row in rows:
            handle.write(",".join(repr(float(v)) for v in row) + "\n")
