"""Overlays the monolithic ValveCylinder trace and the coupled
ValveActuator + SlidingMass traces written by the co-simulation tool
(validation/src/bin/cosim-valve-actuator.rs), in display units, with the
coupling error underneath each signal.

Usage: plot_cosim.py TRACES.csv OUT.png [TITLE]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# signal: (display unit, factor from SI)
SIGNALS = {"x": ("mm", 1e3), "v": ("mm/s", 1e3), "p1": ("bar", 1e-5), "p2": ("bar", 1e-5), "pv": ("bar", 1e-5)}


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    t = [float(r["time"]) for r in rows]
    coupled = sorted({k.split("_coupled_")[1] for k in rows[0] if "_coupled_" in k}, key=float, reverse=True)
    fig, axes = plt.subplots(len(SIGNALS), 2, sharex=True, figsize=(13, 2.3 * len(SIGNALS)),
                             gridspec_kw={"width_ratios": [3, 2]})
    for (name, (unit, factor)), (ax, err) in zip(SIGNALS.items(), axes):
        ref = [float(r[f"{name}_monolithic"]) * factor for r in rows]
        ax.plot(t, ref, "k-", lw=1.2, label="ValveCylinder (monolithic)")
        for h in coupled:
            y = [float(r[f"{name}_coupled_{h}"]) * factor for r in rows]
            ax.plot(t, y, "--", lw=0.9, label=f"coupled, step {float(h) * 1e3:g} ms")
            err.plot(t, [a - b for a, b in zip(y, ref)], lw=0.8, label=f"step {float(h) * 1e3:g} ms")
        ax.set_ylabel(f"{name} [{unit}]")
        err.set_ylabel(f"{name} error [{unit}]")
        ax.grid(alpha=0.3)
        err.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8, loc="best")
    axes[0][1].legend(fontsize=8, loc="best")
    axes[-1][0].set_xlabel("time [s]")
    axes[-1][1].set_xlabel("time [s]")
    if len(sys.argv) > 3:
        fig.suptitle(sys.argv[3])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
