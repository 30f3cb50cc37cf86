"""The summary plots of a sweep, in display units.

- ``summary.png``: every kept quantity (rows) against every varied factor
  (columns), one dot per successful run.
- ``tornado.png``: for each kept quantity, the change across each factor's
  range in the design, from a least-squares linear fit of the quantity on
  all factors together (the other factors held at their mean), bars sorted
  by size. Drawn when there are more successful runs than factors + 1.

A factor is shown in the unit the design file writes it in; a summary in
its signal's display unit (time summaries in s, resonances in Hz).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sweep.design import Study
from sweep.summaries import FREQUENCY_SUMMARIES, TIME_SUMMARIES


def _summary_scale(study: Study, keep) -> tuple[str, float, float]:
    if keep.summary in TIME_SUMMARIES:
        return "s", 1.0, 0.0
    if keep.summary in FREQUENCY_SUMMARIES:
        return "Hz", 1.0, 0.0
    scale = study.info.display_scale(keep.signal)
    # spreads and RMS values are differences-like: no offset
    offset = 0.0 if keep.summary in ("peak_to_peak", "rms") else scale.offset
    return scale.label, scale.factor, offset


def _factor_values(records: list[dict], f) -> np.ndarray:
    return np.array([f.shown(r["values"][f.name]) for r in records], dtype=float)


def fit_effects(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Change of ``y`` across each column's range of ``x`` (runs x factors)
    from a linear least-squares fit with an intercept; None when the fit is
    not determined."""
    n, d = x.shape
    if n <= d + 1:
        return None
    span = x.max(axis=0) - x.min(axis=0)
    if np.any(span == 0):
        return None
    a = np.column_stack([np.ones(n), (x - x.mean(axis=0)) / span])
    if np.linalg.matrix_rank(a) < d + 1:
        return None
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    return coef[1:]


def draw(study: Study, records: list[dict], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in sorted(records, key=lambda r: r["index"]) if r["status"] == "ok"]
    factors, keep = study.factors, study.keep
    written = []
    if not ok or not factors or not keep:
        return written
    x = np.column_stack([_factor_values(ok, f) for f in factors])
    rows, cols = len(keep), len(factors)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols + 0.8, 2.6 * rows + 0.8), squeeze=False)
    for i, k in enumerate(keep):
        label, factor, offset = _summary_scale(study, k)
        y = np.array([r["summaries"][k.name] for r in ok], dtype=float) * factor + offset
        for j, f in enumerate(factors):
            ax = axes[i][j]
            ax.plot(x[:, j], y, "o", ms=3, alpha=0.7)
            ax.grid(alpha=0.3)
            if i == rows - 1:
                ax.set_xlabel(f"{f.name} [{f.unit or '1'}]")
            if j == 0:
                ax.set_ylabel(f"{k.name} [{label}]")
    failed = len(records) - len(ok)
    fig.suptitle(f"{study.title}: {len(ok)} runs" + (f" ({failed} failed, not shown)" if failed else ""))
    fig.tight_layout()
    path = Path(out) / "summary.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    effects = []
    for k in keep:
        label, factor, _ = _summary_scale(study, k)
        y = np.array([r["summaries"][k.name] for r in ok], dtype=float) * factor
        good = np.isfinite(y)
        e = fit_effects(x[good], y[good]) if good.sum() > 0 else None
        if e is not None:
            effects.append((k, label, e))
    if effects:
        fig, axes = plt.subplots(len(effects), 1, figsize=(7.5, 0.5 + (0.45 * len(factors) + 0.9) * len(effects)), squeeze=False)
        for ax, (k, label, e) in zip(axes[:, 0], effects):
            order = np.argsort(np.abs(e))
            names = [f"{factors[i].name} ({_range_text(x[:, i], factors[i].unit)})" for i in order]
            ax.barh(range(len(order)), e[order], color=["tab:red" if v < 0 else "tab:blue" for v in e[order]])
            ax.set_yticks(range(len(order)), names)
            ax.axvline(0, color="k", lw=0.8)
            ax.set_xlabel(f"change of {k.name} across the factor's range [{label}]")
            ax.grid(axis="x", alpha=0.3)
        fig.suptitle(f"{study.title}: effects (linear fit over {len(ok)} runs)")
        fig.tight_layout()
        path = Path(out) / "tornado.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def _range_text(values: np.ndarray, unit: str) -> str:
    return f"{values.min():.4g}..{values.max():.4g} {unit}".strip()
