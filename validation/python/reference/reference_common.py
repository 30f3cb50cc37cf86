"""What the reference scripts share: the PASS / FAIL / DISCREPANCY / INFO
bookkeeping and the run summary, the comparison of a number with the way a
model description or a paper prints it, the Cross-Check CSV text (shortest round-trip
decimals), and the ``--check`` comparison of recomputed CSV files with the
committed ones.

The scripts import it as a sibling module (``python path/to/script.py``
puts the script's folder first on ``sys.path``; the unit tests add that
folder themselves).
"""

from __future__ import annotations

import argparse
import json
import time
from decimal import Decimal
from pathlib import Path

import numpy as np

# --check: how far a recomputed file may move from the committed one before
# it counts as CHANGED, per column, as a fraction of the column's scale (its
# mean magnitude; the hose script uses the mean deviation from the operating
# point, the scale of its bounds). Not bit for bit: another machine's BLAS,
# libm or CPU rounds differently, an adaptive solver then takes other steps,
# and a trace moves by up to its own integration error, which is far below
# the validation bounds (relative RMS 5e-4 .. 2e-2) but not zero. Measured:
# Radau at rtol 1e-10 against 1e-12 moves by ~2e-11 of the mean
# (OrificeChain); against rtol 1e-11, the SlidingMass v trace moves by
# 4e-8 RMS and 3e-6 at its worst sample (a stop impact a hair earlier or
# later); CVODE against Radau differs by up to ~1e-9 of the mean magnitude
# (OrificeChain), ~5e-7 RMS (valve drive) and ~1.5e-6 RMS of the mean
# deviation (hose); committed CVODE traces recomputed on another machine
# moved by 2.5e-8 and 4.7e-8 of the mean deviation.
#
# So a column passes when
# - its RMS change is at most CHECK_LIMIT = 1e-6 of the scale: the measure
#   of the verdicts (relative RMS), 500 to 20000 times inside their bounds,
#   and well above how far a Radau trace at rtol 1e-10 can be trusted;
# - its largest change at any sample is at most CHECK_LIMIT_MAX = 1e-4 of
#   the scale: an event (stop impact, valve switch) located a hair
#   differently moves the samples next to it by more than the RMS says.
CHECK_LIMIT = 1e-6
CHECK_LIMIT_MAX = 1e-4
# A second solver's trace (``*_cvode.csv``) is only as good as CVODE at
# rtol 1e-10, accepted at a tenth of the 0.1 % bound (1e-4 RMS of the scale):
# its limits are CROSSCHECK_FACTOR times the above.
CROSSCHECK_FACTOR = 100.0
CROSSCHECK_SUFFIX = "_cvode.csv"


def check_limits(fname: str) -> tuple[float, float]:
    """The ``--check`` limits (RMS change, largest change; fractions of a
    column's scale) of a CSV file."""
    factor = CROSSCHECK_FACTOR if fname.endswith(CROSSCHECK_SUFFIX) else 1.0
    return CHECK_LIMIT * factor, CHECK_LIMIT_MAX * factor


def judge_change(fname: str, header: list[str], old: np.ndarray, new: np.ndarray,
                 scale: np.ndarray, scale_name: str = "mean magnitude") -> tuple[bool, str]:
    """Whether a recomputed CSV (``new``, rows x columns) stays within the
    ``--check`` limits of the committed one (``old``), each column measured
    against ``scale``; and a line saying by how much it moved."""
    scale = np.maximum(np.asarray(scale, dtype=float), 1e-300)
    diff = np.abs(new - old)
    rms = np.sqrt(np.mean(diff**2, axis=0)) / scale
    largest = np.max(diff, axis=0) / scale
    lim_rms, lim_max = check_limits(fname)
    worst_rms, worst_max = int(np.argmax(rms / lim_rms)), int(np.argmax(largest / lim_max))
    ok = bool(np.all(rms <= lim_rms) and np.all(largest <= lim_max))
    return ok, (f"not bit-identical; of its {scale_name}: largest RMS change {rms[worst_rms]:.2e} in "
                f"{header[worst_rms]} (limit {lim_rms:g}), largest change {largest[worst_max]:.2e} in "
                f"{header[worst_max]} (limit {lim_max:g})")


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--check`` and ``--exact`` options every reference script takes."""
    parser.add_argument("--check", action="store_true",
                        help="recompute and compare with the files on disk instead of writing them (a CSV "
                        f"column may move by {CHECK_LIMIT:g} RMS and {CHECK_LIMIT_MAX:g} at most of its scale, a "
                        f"second solver's trace by {CROSSCHECK_FACTOR:g} times that: other machines round "
                        "differently)")
    parser.add_argument("--exact", action="store_true",
                        help="with --check: every file must be byte-identical (a rerun on the machine that "
                        "wrote the files)")


def agrees_to_published(value: float, published: str) -> tuple[bool, str]:
    """True if ``value``, cut to the last digit of the published number
    ``published`` (a decimal string), gives that number.

    Model descriptions and papers state numbers to a few digits, sometimes
    rounded (-2.4e4 for -23907) and sometimes truncated (4.055e-5 for
    4.05578e-5); both readings are accepted, nothing wider. The second item says what the value rounds
    and truncates to.
    """
    digit = Decimal(1).scaleb(Decimal(published).as_tuple().exponent)
    exact = Decimal(repr(float(value)))
    rounded = exact.quantize(digit, rounding="ROUND_HALF_EVEN")
    truncated = exact.quantize(digit, rounding="ROUND_DOWN")
    return Decimal(published) in (rounded, truncated), f"rounds to {rounded:f}, truncates to {truncated:f}"


class Checks:
    """Collects PASS / FAIL lines (printed as they come), documented
    discrepancies with a published number (printed, never failing) and INFO
    lines.

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
        """A published number that the model description's own equations do
        not give, documented in the script: reported, not failed."""
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
            print(f"{len(self.discrepancies)} documented discrepancy(ies) with the published numbers:", flush=True)
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
                           exact: bool = False) -> None:
    """``--check``: compare freshly computed files with the ones in
    ``folder`` and name the changed ones. A CSV file that is not identical
    passes when every column stays within the limits of
    :func:`judge_change` (scale: its mean magnitude); any other file must be
    identical. With ``exact`` every file must be identical."""
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
        try:
            old_header, old_values = parse_csv(old)
        except ValueError as err:
            checks.add(label, False, f"CHANGED: committed file unreadable ({err})")
            continue
        header, values = parse_csv(text)
        if old_header != header or old_values.shape != values.shape:
            checks.add(label, False, "CHANGED: columns or row count differ")
            continue
        if np.array_equal(old_values, values):
            checks.add(label, True, "unchanged (same numbers, different text)")
            continue
        ok, detail = judge_change(fname, header, old_values, values, np.mean(np.abs(values), axis=0))
        checks.add(label, ok, ("unchanged within tolerance" if ok else "CHANGED") + f" ({detail})")


def write_or_compare(checks: Checks, check: bool, name: str, folder: Path, files: dict[str, str],
                     write_ok: bool, exact: bool = False) -> None:
    """``--check``: compare ``files`` with the ones in ``folder``
    (:func:`compare_with_committed`, ``exact``: byte for byte); otherwise
    write them there, unless the trace failed a check (``write_ok`` false)."""
    if check:
        compare_with_committed(checks, name, folder, files, exact)
    elif not write_ok:
        print(f"  NOT writing {folder}: the trace failed a check", flush=True)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (folder / fname).write_text(text)
        print(f"  wrote {', '.join(files)} to {folder}", flush=True)


def scenario_json(model: str, name: str, description: str, parameters: dict, signals: dict, note: str,
                  analytic: list, *, model_description: str, script: str) -> dict:
    """The scenario.json document of one scenario folder (harness README):
    step inputs, harness steps 1 ms and 10 ms, the Cross-Check file names;
    `model_description` is the circuit's MODEL.md and `script` the
    generating script, both relative to the repository."""
    return {
        "model": model,
        "scenario": name,
        "description": description,
        "model_description": model_description,
        "generated_by": script,
        "interpolation": "step",
        "step_sizes": [0.001, 0.01],
        "parameters": parameters,
        "inputs": f"{model}_in.csv",
        "reference": f"{model}_ref.csv",
        "options": f"{model}_ref.opt",
        "signals": signals,
        "note": note,
        "analytic": analytic,
    }


# The trained small-volume models an FMU can put in place of its stiff
# pressure equation (MODEL.md of the circuit): parameter value and name.
SURROGATE_KINDS = {"narx": (1, "NARX network"), "lolimot": (2, "LOLIMOT local linear model tree")}


def surrogate_scenario_files(base: dict, kind: str, choice_parameter: str, period: float,
                             signals: dict, reached: str) -> tuple[str, dict[str, str]]:
    """The scenario folder (name, files) that runs the scenario ``base`` (a
    scenario.json document) with a trained surrogate: the same inputs and
    reference (``../<base>/`` files), the surrogate chosen by
    ``choice_parameter``, explicit RK4 at its sample period ``period``,
    the bounds ``signals`` (what the surrogate reaches, with a margin; the
    sentence ``reached`` says so). Co-simulation only (the surrogate
    updates once per period), in the harness's adaptive mode only (the
    parameters choose the integrator)."""
    number, title = SURROGATE_KINDS[kind]
    name = f"{base['scenario']}_{kind}"
    doc = dict(base)
    doc["scenario"] = name
    doc["description"] = (
        f"{base['description']} With the trained {title} in place of the small volume's pressure equation "
        f"({choice_parameter} = {number}), explicit RK4 at its sample period {period:g} s."
    )
    doc["parameters"] = {**base["parameters"], choice_parameter: number, "solver": 3, "explicit_step": period}
    for key in ("inputs", "reference", "options"):
        doc[key] = f"../{base['scenario']}/{base[key]}"
    doc["signals"] = signals
    doc["analytic"] = []
    doc["co_simulation_only"] = True
    doc["solver_modes"] = ["adaptive"]
    doc["note"] = (
        "The reference, inputs and error measures of the scenario " + base["scenario"] + ". " + reached
        + " The surrogate updates the pressure once per sample period, so Model Exchange masters do not run this "
        "scenario, and its parameters choose the integrator, so the harness's fixed-cost and stepping-ahead modes "
        "skip it. Weights: the FMU's resources folder, trained by `train-surrogates` (docs/surrogates.md)."
    )
    return name, {"scenario.json": json.dumps(doc, indent=2) + "\n"}
