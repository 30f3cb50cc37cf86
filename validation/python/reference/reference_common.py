"""What the reference scripts share: the PASS / FAIL / DISCREPANCY / INFO
bookkeeping and the run summary, the comparison of a number with the way a
model card prints it, the Cross-Check CSV text (shortest round-trip
decimals), and the ``--check`` comparison of recomputed CSV files with the
committed ones.

The scripts import it as a sibling module (``python path/to/script.py``
puts the script's folder first on ``sys.path``; the unit tests add that
folder themselves).
"""

from __future__ import annotations

import argparse
import time
from decimal import Decimal
from pathlib import Path

import numpy as np

# --check: how far a recomputed file may move from the committed one before
# it counts as CHANGED, as a fraction of each column's scale (its mean
# magnitude; the hose scripts use the mean deviation from the operating
# point, the scale of their bounds). The traces are trustworthy to far less
# than the validation bounds (1e-3 .. 1e-2 relative), but not to the last
# bit: another machine's BLAS, libm or CPU changes rounding, an adaptive
# solver then takes other steps, and the trace moves by up to its own
# integration error. Measured: Radau at rtol 1e-10 against rtol 1e-12 moves
# by ~2e-11 of the mean; CVODE against Radau differs by up to ~1e-9 of the
# mean magnitude (OrificeChain) and ~1e-7 .. 1.5e-6 RMS of the mean
# deviation (hose); committed CVODE traces recomputed on another machine
# moved by 2.5e-8 and 4.7e-8 of the mean deviation.
#
# CHECK_LIMIT, for the reference traces (Radau) and every other CSV file:
# 1e-6 of the scale, 1000 times inside the tightest bound (0.1 % RMS of the
# hose's deviation, 0.05 % of the orifice pressures: 500 times), and above
# any rounding drift of a Radau trace at rtol 1e-10.
CHECK_LIMIT = 1e-6
# CROSSCHECK_LIMIT, for a second solver's trace (``*_cvode.csv``): it is
# only as good as CVODE at rtol 1e-10, so it may move by its own error; the
# limit is what the trace is accepted at in the first place (agreement with
# the reference within a tenth of the 0.1 % bound = 1e-4 of the scale).
CROSSCHECK_LIMIT = 1e-4
CROSSCHECK_SUFFIX = "_cvode.csv"


def check_limit(fname: str, limit: float = CHECK_LIMIT) -> float:
    """The ``--check`` limit of a file: CROSSCHECK_LIMIT for a second
    solver's trace, ``limit`` (default CHECK_LIMIT) otherwise."""
    return CROSSCHECK_LIMIT if fname.endswith(CROSSCHECK_SUFFIX) else limit


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--check`` and ``--exact`` options every reference script takes."""
    parser.add_argument("--check", action="store_true",
                        help="recompute and compare with the files on disk instead of writing them (a CSV may "
                        f"move by {CHECK_LIMIT:g} of a column's scale, a second solver's trace by "
                        f"{CROSSCHECK_LIMIT:g}: other machines round differently)")
    parser.add_argument("--exact", action="store_true",
                        help="with --check: every file must be byte-identical (a rerun on the machine that "
                        "wrote the files)")


def agrees_to_card(value: float, card: str) -> tuple[bool, str]:
    """True if ``value``, cut to the card's last digit, gives the card's
    number ``card`` (a decimal string).

    The cards state numbers to a few digits, sometimes rounded (-2.4e4 for
    -23907) and sometimes truncated (4.055e-5 for 4.05578e-5); both readings
    are accepted, nothing wider. The second item says what the value rounds
    and truncates to.
    """
    digit = Decimal(1).scaleb(Decimal(card).as_tuple().exponent)
    exact = Decimal(repr(float(value)))
    rounded = exact.quantize(digit, rounding="ROUND_HALF_EVEN")
    truncated = exact.quantize(digit, rounding="ROUND_DOWN")
    return Decimal(card) in (rounded, truncated), f"rounds to {rounded:f}, truncates to {truncated:f}"


class Checks:
    """Collects PASS / FAIL lines (printed as they come), documented
    discrepancies with a model card (printed, never failing) and INFO lines.

    ``trace_failures`` counts the failed checks marked ``trace=True`` (the
    accuracy of a reference trace): a script does not write a trace that
    failed one.
    """

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.discrepancies: list[str] = []
        self.trace_failures = 0
        self.started = time.perf_counter()

    def add(self, name: str, ok: bool, detail: str, trace: bool = False) -> bool:
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}: {detail}", flush=True)
        if not ok:
            self.failed.append(name)
            self.trace_failures += trace
        return ok

    def discrepancy(self, name: str, detail: str, summary: str | None = None) -> None:
        """A number the card's own equations do not give, documented in the
        script: reported, not failed."""
        print(f"  [DISCREPANCY] {name}: {detail}", flush=True)
        self.discrepancies.append(summary or name)

    @staticmethod
    def info(name: str, detail: str) -> None:
        print(f"  [INFO] {name}: {detail}", flush=True)

    def finish(self) -> int:
        """Prints the wall time, the discrepancies and the failures; the
        script's exit status (0: every check passed)."""
        print(f"\nwall time {time.perf_counter() - self.started:.1f} s", flush=True)
        if self.discrepancies:
            print(f"{len(self.discrepancies)} documented discrepancy(ies) with the card:", flush=True)
            for d in self.discrepancies:
                print(f"  - {d}", flush=True)
        if self.failed:
            print(f"{len(self.failed)} check(s) FAILED:", flush=True)
            for name in self.failed:
                print(f"  - {name}", flush=True)
            return 1
        print("all checks passed", flush=True)
        return 0


def fmt(x: float) -> str:
    """Shortest decimal that reads back to the same double."""
    return repr(float(x))


def csv_text(header: list[str], columns) -> str:
    """A comment-free CSV text: the header, then one row per sample."""
    lines = [",".join(header)]
    for row in zip(*columns):
        lines.append(",".join(fmt(v) for v in row))
    return "\n".join(lines) + "\n"


def parse_csv(text: str) -> tuple[list[str], np.ndarray]:
    """Header and values (rows x columns) of a comment-free CSV text."""
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    values = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    return header, values


def compare_with_committed(checks: Checks, name: str, folder: Path, files: dict[str, str],
                           limit: float = CHECK_LIMIT, exact: bool = False) -> None:
    """``--check``: compare freshly computed files with the ones in
    ``folder`` and name the changed ones. A CSV file that is not identical
    passes when no column moved by more than its limit (:func:`check_limit`)
    of its mean magnitude; any other file must be identical. With ``exact``
    every file must be identical."""
    for fname, text in files.items():
        path = folder / fname
        label = f"{name}: {fname}"
        if not path.exists():
            checks.add(label, False, "CHANGED: missing on disk")
            continue
        old = path.read_text()
        if old == text:
            checks.add(label, True, "unchanged (identical)")
            continue
        if exact or not fname.endswith(".csv"):
            checks.add(label, False, "CHANGED (text differs" + (", --exact)" if exact else ")"))
            continue
        file_limit = check_limit(fname, limit)
        try:
            old_header, old_values = parse_csv(old)
        except ValueError as err:
            checks.add(label, False, f"CHANGED: committed file unreadable ({err})")
            continue
        header, values = parse_csv(text)
        if old_header != header or old_values.shape != values.shape:
            checks.add(label, False, "CHANGED: columns or row count differ")
            continue
        scale = np.maximum(np.mean(np.abs(values), axis=0), 1e-300)
        change = np.max(np.abs(old_values - values), axis=0) / scale
        if not np.any(change):
            checks.add(label, True, "unchanged (same numbers, different text)")
            continue
        worst = int(np.argmax(change))
        ok = change[worst] <= file_limit
        checks.add(
            label, ok,
            ("unchanged within tolerance" if ok else "CHANGED")
            + f" (not bit-identical; largest change in {header[worst]}: {change[worst]:.2e} of its mean"
            + f" magnitude, limit {file_limit:g})",
        )


def write_or_compare(checks: Checks, check: bool, name: str, folder: Path, files: dict[str, str],
                     write_ok: bool, limit: float = CHECK_LIMIT, exact: bool = False) -> None:
    """``--check``: compare ``files`` with the ones in ``folder``
    (:func:`compare_with_committed`, ``exact``: byte for byte); otherwise
    write them there, unless the trace failed a check (``write_ok`` false)."""
    if check:
        compare_with_committed(checks, name, folder, files, limit, exact)
    elif not write_ok:
        print(f"  NOT writing {folder}: the trace failed a check", flush=True)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (folder / fname).write_text(text)
        print(f"  wrote {', '.join(files)} to {folder}", flush=True)
