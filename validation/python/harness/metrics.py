"""Comparison of a result trace with a reference trace, per signal.

- relative RMS error: RMS(result - reference) / mean |reference|, in %;
- maximum absolute error: max |result - reference| (signal's SI unit);
- FMPy's band criterion (``fmpy.util.validate_signal``, the FMI Cross-Check's
  test): the fraction of result samples outside a band around the reference.

The first two are computed on the reference times that coincide with a
result time (communication point), within 1e-6 of the smaller of the two
grid spacings: no interpolation, so no interpolation error enters the
figures. The band criterion takes the whole result trace, as the
Cross-Check does.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class SignalMetrics:
    """Figures of one signal of one run, and whether they meet the bounds."""

    signal: str
    compared_points: int
    rel_rms_percent: float
    max_abs: float
    time_of_max_abs: float
    band_outside_percent: float  # % of result samples outside FMPy's band
    bound_rel_rms_percent: float
    bound_max_abs: float
    passed: bool
    problems: list[str]

    def to_json(self) -> dict:
        return asdict(self)


def common_points(t_result: np.ndarray, t_reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into result, into reference) of times present in both grids."""
    if len(t_result) == 0 or len(t_reference) == 0:
        return np.array([], dtype=int), np.array([], dtype=int)
    spacings = [np.min(np.diff(t)) for t in (t_result, t_reference) if len(t) > 1 and np.any(np.diff(t) > 0)]
    spacings = [s for s in spacings if s > 0]
    tol = 1e-6 * (min(spacings) if spacings else 1.0)
    pos = np.clip(np.searchsorted(t_result, t_reference), 1, max(len(t_result) - 1, 1))
    left = np.clip(pos - 1, 0, len(t_result) - 1)
    right = np.clip(pos, 0, len(t_result) - 1)
    nearest = np.where(np.abs(t_result[left] - t_reference) <= np.abs(t_result[right] - t_reference), left, right)
    match = np.abs(t_result[nearest] - t_reference) <= tol
    return nearest[match], np.nonzero(match)[0]


def relative_rms_percent(difference: np.ndarray, reference: np.ndarray) -> float:
    """RMS of the difference over the mean absolute reference value, in %."""
    if len(difference) == 0:
        return math.nan
    rms = float(np.sqrt(np.mean(np.square(difference))))
    scale = float(np.mean(np.abs(reference)))
    if scale == 0.0:
        return 0.0 if rms == 0.0 else math.inf
    return 100.0 * rms / scale


def band_outside_fraction(t: np.ndarray, y: np.ndarray, t_ref: np.ndarray, y_ref: np.ndarray) -> tuple[float, tuple]:
    """FMPy's band criterion: fraction of the samples of y(t) outside the band
    that ``fmpy.util.validate_signal`` builds around y_ref(t_ref) (default
    band: 1000 samples, 20 samples wide, 10 % of the reference's range high).
    A NaN sample counts as outside. Returns the fraction and the band
    (t_band, y_min, y_max) for plotting."""
    from fmpy.util import validate_signal

    y = np.asarray(y, dtype=np.float64)
    finite = np.isfinite(y)
    t_band, y_min, y_max, outside = validate_signal(
        t=np.asarray(t, dtype=np.float64),
        y=np.where(finite, y, 0.0),
        t_ref=np.array(t_ref, dtype=np.float64),  # validate_signal edits t_ref in place
        y_ref=np.asarray(y_ref, dtype=np.float64),
    )
    outside = np.logical_or(outside, ~finite)
    return (float(np.sum(outside)) / len(outside) if len(outside) else 1.0), (t_band, y_min, y_max)


def compare_signal(
    name: str,
    t: np.ndarray,
    y: np.ndarray,
    t_ref: np.ndarray,
    y_ref: np.ndarray,
    bound_rel_rms_percent: float,
    bound_max_abs: float,
    bound_band_percent: float = 0.0,
) -> SignalMetrics:
    """All figures of one signal and the verdict of its bounds: passed when
    relative RMS <= its bound, max abs <= its bound and no more samples than
    allowed (none by default) lie outside FMPy's band."""
    i_res, i_ref = common_points(t, t_ref)
    problems = []
    if len(i_ref) < 2:
        problems.append(f"{name}: only {len(i_ref)} result times coincide with reference times")
        rel, mx, t_mx = math.nan, math.nan, math.nan
    else:
        diff = y[i_res] - y_ref[i_ref]
        rel = relative_rms_percent(diff, y_ref[i_ref])
        absdiff = np.abs(diff)
        if np.all(np.isfinite(absdiff)):
            k = int(np.argmax(absdiff))
            mx, t_mx = float(absdiff[k]), float(t_ref[i_ref][k])
        else:
            mx, t_mx = math.inf, float(t_ref[i_ref][int(np.argmax(~np.isfinite(absdiff)))])
    band = band_outside_fraction(t, y, t_ref, y_ref)[0] if len(t) >= 2 else 1.0
    if not rel <= bound_rel_rms_percent:
        problems.append(f"{name}: rel RMS {rel:.4g} % > {bound_rel_rms_percent:g} %")
    if not mx <= bound_max_abs:
        problems.append(f"{name}: max abs {mx:.4g} > {bound_max_abs:g} (at t = {t_mx:g} s)")
    if 100.0 * band > bound_band_percent:
        problems.append(
            f"{name}: {100 * band:.3g} % of the samples outside FMPy's band (allowed {bound_band_percent:g} %)"
        )
    return SignalMetrics(
        signal=name,
        compared_points=int(len(i_ref)),
        rel_rms_percent=rel,
        max_abs=mx,
        time_of_max_abs=t_mx,
        band_outside_percent=100.0 * band,
        bound_rel_rms_percent=bound_rel_rms_percent,
        bound_max_abs=bound_max_abs,
        passed=not problems,
        problems=problems,
    )


def value_at(t: np.ndarray, y: np.ndarray, time: float) -> float:
    """y at ``time``: the sample there if one lies within 1e-9 s (relative to
    the grid), else linear interpolation between the neighbours; NaN outside
    the trace."""
    if len(t) == 0 or time < t[0] - 1e-9 * max(1.0, abs(time)) or time > t[-1] + 1e-9 * max(1.0, abs(time)):
        return math.nan
    k = int(np.argmin(np.abs(t - time)))
    if abs(t[k] - time) <= 1e-9 * max(1.0, abs(time)):
        return float(y[k])
    return float(np.interp(time, t, y))
