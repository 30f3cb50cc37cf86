"""Draws a Bode plot (amplitude ratio and phase) from a CSV written by the
frequency-response tool (validation/src/bin/freq-response.rs).

Usage: plot_bode.py RESPONSE.csv OUT.png [TITLE]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    freq = [float(r["frequency_hz"]) for r in rows]
    outputs = [k[: -len("_peak_ratio_db")] for k in rows[0] if k.endswith("_peak_ratio_db")]
    fig, (amp, ph) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for o in outputs:
        amp.plot(freq, [float(r[f"{o}_peak_ratio_db"]) for r in rows], label=f"{o} (peak)")
        amp.plot(freq, [float(r[f"{o}_ratio_db"]) for r in rows], "--", label=f"{o} (fundamental)")
        ph.plot(freq, [float(r[f"{o}_phase_deg"]) for r in rows], label=o)
    if max(freq) / min(freq) > 20:
        ph.set_xscale("log")
    amp.set_ylabel("amplitude ratio [dB] (output SI unit per input SI unit)")
    ph.set_ylabel("phase [deg]")
    ph.set_xlabel("frequency [Hz]")
    for a in (amp, ph):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8)
    if len(sys.argv) > 3:
        amp.set_title(sys.argv[3])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
