"""Summary quantities of one run, computed from the recorded outputs.

Each ``[[keep]]`` entry of a design file names a signal and a summary:

- ``final``, ``max``, ``min``, ``mean``, ``rms`` (root mean square over the
  communication points), ``peak_to_peak``: over the window ``from``..``to``
  (s; default the whole run);
- ``at``: the value at ``time`` (s), interpolated linearly between points;
- ``crossing``: the time (s) the signal first crosses ``threshold`` (in the
  entry's ``unit``, default SI) in ``direction`` rising, falling or either,
  after ``from``; interpolated linearly; NaN when it never does;
- ``resonance``: the frequency (Hz) of the highest resonance peak of the
  signal's response to the input ``input`` (sinusoid of ``amplitude``, SI),
  measured by the project's frequency-response tool (``freq-response``)
  around the run's parameters, between ``fmin`` and ``fmax`` Hz at
  ``points`` frequencies; NaN when there is no peak.

Every value is SI, the same in every backend (plain NumPy on float64).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from sweep import REPO_ROOT

#: summary -> (required options, optional options with defaults)
KINDS: dict[str, tuple[tuple[str, ...], dict[str, object]]] = {
    "final": ((), {}),
    "max": ((), {"from": None, "to": None}),
    "min": ((), {"from": None, "to": None}),
    "mean": ((), {"from": None, "to": None}),
    "rms": ((), {"from": None, "to": None}),
    "peak_to_peak": ((), {"from": None, "to": None}),
    "at": (("time",), {}),
    "crossing": (("threshold",), {"direction": "rising", "from": None}),
    "resonance": (
        ("input", "amplitude"),
        {"fmin": 2.0, "fmax": 150.0, "points": 60, "log": False, "settle": 1.0, "max_step": 1e-3, "rtol": 1e-4},
    ),
}

#: Unit of a summary when it is not the signal's own.
TIME_SUMMARIES = ("crossing",)
FREQUENCY_SUMMARIES = ("resonance",)


def summary_unit(summary: str, signal_unit: str) -> str:
    if summary in TIME_SUMMARIES:
        return "s"
    if summary in FREQUENCY_SUMMARIES:
        return "Hz"
    return signal_unit


def _window(times: np.ndarray, y: np.ndarray, options: dict) -> np.ndarray:
    lo, hi = options.get("from"), options.get("to")
    mask = np.ones(len(times), dtype=bool)
    if lo is not None:
        mask &= times >= float(lo) - 1e-12
    if hi is not None:
        mask &= times <= float(hi) + 1e-12
    if not mask.any():
        raise ValueError(f"the window {lo}..{hi} s holds no communication point")
    return y[mask]


def compute(summary: str, options: dict, times: np.ndarray, y: np.ndarray) -> float:
    """One summary of the signal ``y`` sampled at ``times`` (not ``resonance``)."""
    if summary == "final":
        return float(y[-1])
    if summary == "at":
        t = float(options["time"])
        if not times[0] - 1e-12 <= t <= times[-1] + 1e-12:
            raise ValueError(f"time {t} s is outside the run ({times[0]}..{times[-1]} s)")
        return float(np.interp(t, times, y))
    if summary == "crossing":
        return crossing_time(times, y, float(options["threshold"]), options["direction"], options.get("from"))
    w = _window(times, y, options)
    if summary == "max":
        return float(np.max(w))
    if summary == "min":
        return float(np.min(w))
    if summary == "mean":
        return float(np.mean(w))
    if summary == "rms":
        return float(np.sqrt(np.mean(w * w)))
    if summary == "peak_to_peak":
        return float(np.max(w) - np.min(w))
    raise ValueError(f"unknown summary {summary!r}")


def crossing_time(times: np.ndarray, y: np.ndarray, threshold: float, direction: str, start=None) -> float:
    """The first time ``y`` crosses ``threshold`` in ``direction`` (linear
    interpolation between points); a signal that starts on the far side does
    not count as crossing at the start. NaN when it never crosses."""
    d = y - threshold
    first = 0 if start is None else int(np.searchsorted(times, float(start) - 1e-12))
    below, above = d[first:-1] < 0, d[first + 1 :] >= 0
    rising = below & above
    falling = (d[first:-1] >= 0) & (d[first + 1 :] < 0)
    hits = {"rising": rising, "falling": falling, "either": rising | falling}[direction]
    k = np.flatnonzero(hits)
    if k.size == 0:
        return math.nan
    i = first + int(k[0])
    t0, t1, d0, d1 = times[i], times[i + 1], d[i], d[i + 1]
    return float(t0 + (t1 - t0) * (-d0) / (d1 - d0)) if d1 != d0 else float(t1)


def freq_response_binary() -> Path:
    """The project's frequency-response tool (built by the test command, or
    ``cargo build --release -p validation --bin freq-response``);
    ``FLUIDFMU_FREQ_RESPONSE`` overrides the path."""
    override = os.environ.get("FLUIDFMU_FREQ_RESPONSE")
    return Path(override) if override else REPO_ROOT / "target" / "release" / "freq-response"


def resonance(fmu_path: Path, signal: str, options: dict, settings: dict) -> float:
    """The frequency (Hz) of the highest resonance peak of ``signal``, from
    the frequency-response tool run on ``fmu_path`` with ``settings``
    (parameters and operating-point inputs, SI); NaN when it finds none."""
    binary = freq_response_binary()
    if not binary.is_file():
        raise RuntimeError(
            f"the resonance summary needs the frequency-response tool {binary}: "
            "cargo build --release -p validation --bin freq-response (or set FLUIDFMU_FREQ_RESPONSE)"
        )
    with tempfile.TemporaryDirectory(prefix="sweep-freq-") as tmp:
        out = Path(tmp) / "response"
        command = [
            str(binary), "--fmu", str(fmu_path), "--input", str(options["input"]), "--output", signal,
            "--amplitude", repr(float(options["amplitude"])), "--fmin", repr(float(options["fmin"])),
            "--fmax", repr(float(options["fmax"])), "--points", str(int(options["points"])),
            "--settle", repr(float(options["settle"])), "--max-step", repr(float(options["max_step"])),
            "--rtol", repr(float(options["rtol"])), "--out", str(out), "--no-plot", "--json", str(out.with_suffix(".json")),
        ]
        # the tool spaces its frequencies logarithmically unless told
        # otherwise; a design's log = false (the default) asks for linear
        command.append("--log" if options.get("log") else "--linear")
        for name, value in settings.items():
            command += ["--set", f"{name}={float(value)!r}"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"freq-response failed: {(done.stderr or done.stdout).strip()[-600:]}")
        result = json.loads(out.with_suffix(".json").read_text())
    peaks = result["outputs"][signal]["resonances"]
    if not peaks:
        return math.nan
    return float(max(peaks, key=lambda p: p["peak_db"])["frequency_hz"])
