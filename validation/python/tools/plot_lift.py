#!/usr/bin/env python3
"""The paper's Fig. 4 in display units: the LiftActuator FMU on the paper's
experiment (scenario ``lift_100kg`` of components/circuits/lift-circuit/MODEL.md:
5 s, u = 0 until 1 s, then u = 1), run by FMPy's ``simulate_fmu`` at a
1 ms communication step, with the committed reference trace overlaid when
it exists (validation/scenarios/LiftActuator/lift_100kg/
LiftActuator_ref.csv, the independent SciPy solution of
validation/python/reference/lift_actuator.py).

Writes target/lift/lift_fig4.png: on top the chamber pressures p_A and p_B,
below the piston position x_p with its velocity v_p on a twin axis; on the
left the whole experiment, on the right the lift itself. Every quantity is
shown in the display unit the FMU's modelDescription.xml declares for it
(bar, mm, m/s for the LiftActuator), read by the same code as the sweep
tool's (harness.fmu_info), so that the tools cannot show one quantity in
two units.
The phases are marked: rest (the load on the lower stop, both chambers
vented), jump (p_A rises towards p_S after the command step, up to its
peak), sag during motion (p_A falls while the piston accelerates to about
4.2 m/s and p_B rises as the outflow is throttled) and full stroke (from
x_p passing 0.99 of the stroke: p_A settles at p_S, p_B at p_T).

Prints the numbers it reads off the FMU's trace (and the reference's),
next to those components/circuits/lift-circuit/MODEL.md gives: p_A at 1.05 s and
1.2 s, peak p_B, peak v_p, when x_p passes 990 mm, p_A and p_B at 1.5 s and
at the end.

From the repository root, after ``cargo run --release -p build-fmu``:

    target/venv/bin/python validation/python/tools/plot_lift.py
    target/venv/bin/python validation/python/tools/plot_lift.py --fmi 2 --out /tmp/lift
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "validation" / "python"))

from harness.fmu_info import DisplayScale, read_fmu_info  # noqa: E402

DIST = Path(os.environ.get("FMU_DIST_DIR") or REPO / "dist")
BUILD_HINT = "build it with `cargo run --release -p build-fmu`"
REFERENCE = REPO / "validation" / "scenarios" / "LiftActuator" / "lift_100kg" / "LiftActuator_ref.csv"

#: The paper's experiment: stop time [s], time of the command step [s], u before and after it.
STOP, T_STEP, U_BEFORE, U_AFTER = 5.0, 1.0, 0.0, 1.0
#: Full stroke is taken to be reached when x_p passes this fraction of the stroke.
FULL_STROKE_FRACTION = 0.99
SIGNALS = ("x_p", "v_p", "p_A", "p_B")

#: The numbers components/circuits/lift-circuit/MODEL.md states for this experiment, by the labels
#: printed below: (SI value, its significant digits, approximate).
MODEL_MD = {
    "p_A at 1.05 s": (70.4e5, 3, False),
    "p_A at 1.2 s": (59.4e5, 3, False),
    "peak p_B": (12e5, 2, True),
    "peak v_p": (4.19, 3, False),
    "x_p passes 990 mm": (1.29, 3, False),
    "p_A at 1.5 s": (76.00e5, 4, False),
    "p_B at 1.5 s": (1.00e5, 3, False),
}

#: How times are shown.
SECONDS = DisplayScale("s")


@dataclass
class Trace:
    """time [s] and the signals (SI)."""

    time: np.ndarray
    values: dict[str, np.ndarray]

    def at(self, name: str, t: float) -> float:
        return float(np.interp(t, self.time, self.values[name]))

    def full_stroke_time(self, stroke: float) -> float | None:
        """When x_p first passes FULL_STROKE_FRACTION of the stroke (linear
        interpolation between samples); None if it never does."""
        x, level = self.values["x_p"], FULL_STROKE_FRACTION * stroke
        above = np.nonzero(x > level)[0]
        if len(above) == 0:
            return None
        i = int(above[0])
        if i == 0:
            return float(self.time[0])
        return float(self.time[i - 1] + (level - x[i - 1]) / (x[i] - x[i - 1]) * (self.time[i] - self.time[i - 1]))


def run_fmu(path: Path, step: float) -> tuple[Trace, dict[str, float]]:
    """The paper's experiment through simulate_fmu; also the parameter start values."""
    from fmpy import read_model_description, simulate_fmu

    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: {BUILD_HINT}")
    md = read_model_description(str(path))
    start = {v.name: float(v.start) for v in md.modelVariables if v.causality == "parameter" and v.start is not None}
    # Two rows at T_STEP: FMPy applies the value after the step from T_STEP on.
    inputs = np.array(
        [(0.0, U_BEFORE, 0.0), (T_STEP, U_BEFORE, 0.0), (T_STEP, U_AFTER, 0.0), (STOP, U_AFTER, 0.0)],
        dtype=[("time", np.float64), ("u", np.float64), ("F_ext", np.float64)],
    )
    result = simulate_fmu(
        str(path),
        start_time=0.0,
        stop_time=STOP,
        output_interval=step,
        input=inputs,
        output=list(SIGNALS),
        fmi_type="CoSimulation",
    )
    return Trace(np.asarray(result["time"]), {n: np.asarray(result[n]) for n in SIGNALS}), start


def read_reference(path: Path) -> tuple[Trace | None, str]:
    """The reference trace, or None and why not."""
    if not path.is_file():
        return None, f"no reference trace at {path} (the FMU alone is plotted)"
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header = [h.strip() for h in rows[0]]
        data = np.array([[float(x) for x in row] for row in rows[1:] if row], dtype=float)
        columns = {name: data[:, header.index(name)] for name in ("time", *SIGNALS)}
    except (OSError, ValueError, IndexError) as e:
        return None, f"reference trace {path} unreadable ({e}); the FMU alone is plotted"
    return Trace(columns["time"], {n: columns[n] for n in SIGNALS}), f"reference trace: {path} ({len(data)} rows)"


def key_numbers(trace: Trace, stroke: float) -> dict[str, tuple[str, float | None, float | None]]:
    """label -> (the quantity: a signal's name or "time", value in SI, time in s or None)."""
    end = float(trace.time[-1])
    i_pb, i_v = int(np.argmax(trace.values["p_B"])), int(np.argmax(trace.values["v_p"]))
    return {
        "p_A at 1.05 s": ("p_A", trace.at("p_A", 1.05), None),
        "p_A at 1.2 s": ("p_A", trace.at("p_A", 1.2), None),
        "peak p_B": ("p_B", float(trace.values["p_B"][i_pb]), float(trace.time[i_pb])),
        "peak v_p": ("v_p", float(trace.values["v_p"][i_v]), float(trace.time[i_v])),
        "x_p passes 990 mm": ("time", trace.full_stroke_time(stroke), None),
        "p_A at 1.5 s": ("p_A", trace.at("p_A", 1.5), None),
        "p_B at 1.5 s": ("p_B", trace.at("p_B", 1.5), None),
        f"p_A at {end:g} s": ("p_A", trace.at("p_A", end), None),
        f"p_B at {end:g} s": ("p_B", trace.at("p_B", end), None),
        f"x_p at {T_STEP:g} s": ("x_p", trace.at("x_p", T_STEP), None),
        f"x_p at {end:g} s": ("x_p", trace.at("x_p", end), None),
    }


def display_scales(path: Path) -> dict[str, DisplayScale]:
    """The display unit the FMU declares for each signal (its SI unit when it
    declares none), and seconds for "time"."""
    info = read_fmu_info(path)
    return {"time": SECONDS, **{name: info.display_scale(name) for name in SIGNALS}}


def _display(scale: DisplayScale, value: float | None, digits: int = 5) -> str:
    """An SI value in a display unit with ``digits`` significant digits:
    70.434 bar, 4.1895 m/s, 1.2909 s."""
    if value is None:
        return "never"
    shown = scale.factor * value + scale.offset
    magnitude = int(np.floor(np.log10(abs(shown)))) if shown != 0 else 0
    decimals = max(0, digits - 1 - magnitude)
    return f"{shown:.{decimals}f} {scale.label}"


def _published(scale: DisplayScale, value: float, digits: int, approximate: bool) -> str:
    """A number MODEL.md gives, in the same display unit as the FMU's."""
    return ("~" if approximate else "") + _display(scale, value, digits)


@dataclass
class Phases:
    """Phase boundaries [s]: the command step, p_A's peak after it, full stroke."""

    step: float
    peak: float | None
    full: float | None

    @staticmethod
    def of(trace: Trace, stroke: float) -> "Phases":
        full = trace.full_stroke_time(stroke)
        end = full if full is not None else float(trace.time[-1])
        window = (trace.time >= T_STEP) & (trace.time <= end)
        peak = float(trace.time[window][np.argmax(trace.values["p_A"][window])]) if window.any() else None
        return Phases(T_STEP, peak, full)

    def spans(self, end: float) -> list[tuple[str, float, float, str]]:
        """(label, from, to, colour) of each phase."""
        spans = [("rest", 0.0, self.step, "0.85")]
        if self.peak is not None:
            spans.append(("jump", self.step, self.peak, "tab:red"))
            if self.full is not None:
                spans.append(("sag during motion", self.peak, self.full, "tab:blue"))
        if self.full is not None:
            spans.append(("full stroke", self.full, end, "tab:green"))
        return spans


def plot(
    path: Path,
    fmu: Trace,
    ref: Trace | None,
    stroke: float,
    p_s: float,
    p_t: float,
    title: str,
    units: dict[str, DisplayScale],
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def shown(name: str, values):
        scale = units[name]
        return scale.factor * np.asarray(values) + scale.offset

    if units["p_A"] != units["p_B"]:
        raise ValueError(f"p_A and p_B share an axis but the FMU shows them in {units['p_A'].label} and {units['p_B'].label}")
    pressure = units["p_A"]
    phases = Phases.of(fmu, stroke)
    end = float(fmu.time[-1])
    zoom = (T_STEP - 0.05, (phases.full + 0.2) if phases.full is not None else min(end, T_STEP + 0.5))
    fig, axes = plt.subplots(2, 2, figsize=(14, 8), sharex="col", gridspec_kw={"width_ratios": (1, 1.5)})
    for col, (lo, hi) in enumerate(((0.0, end), zoom)):
        top, bottom = axes[0][col], axes[1][col]
        mask = (fmu.time >= lo) & (fmu.time <= hi)
        t = fmu.time[mask]
        top.plot(t, shown("p_A", fmu.values["p_A"][mask]), color="tab:red", lw=1.6, label="p_A (FMU)")
        top.plot(t, shown("p_B", fmu.values["p_B"][mask]), color="tab:blue", lw=1.6, label="p_B (FMU)")
        bottom.plot(t, shown("x_p", fmu.values["x_p"][mask]), color="k", lw=1.6, label="x_p (FMU)")
        twin = bottom.twinx()
        twin.plot(t, shown("v_p", fmu.values["v_p"][mask]), color="tab:purple", lw=1.2, label="v_p (FMU)")
        if ref is not None:
            rmask = (ref.time >= lo) & (ref.time <= hi)
            rt = ref.time[rmask]
            top.plot(rt, shown("p_A", ref.values["p_A"][rmask]), color="orange", lw=0.9, ls="--", label="p_A (reference)")
            top.plot(rt, shown("p_B", ref.values["p_B"][rmask]), color="cyan", lw=0.9, ls="--", label="p_B (reference)")
            bottom.plot(rt, shown("x_p", ref.values["x_p"][rmask]), color="0.6", lw=0.9, ls="--", label="x_p (reference)")
            twin.plot(rt, shown("v_p", ref.values["v_p"][rmask]), color="violet", lw=0.9, ls="--", label="v_p (reference)")
        top.axhline(shown("p_A", p_s), color="tab:red", lw=0.6, ls=":")
        top.axhline(shown("p_B", p_t), color="tab:blue", lw=0.6, ls=":")
        for ax in (top, bottom):
            for label, a, b, colour in phases.spans(end):
                if b > lo and a < hi:
                    ax.axvspan(max(a, lo), min(b, hi), color=colour, alpha=0.08, lw=0)
            ax.grid(True, alpha=0.3)
            ax.set_xlim(lo, hi)
        top.set_ylabel(f"pressure [{pressure.label}]")
        bottom.set_ylabel(f"x_p [{units['x_p'].label}]")
        twin.set_ylabel(f"v_p [{units['v_p'].label}]", color="tab:purple")
        twin.tick_params(axis="y", colors="tab:purple")
        bottom.set_xlabel("time [s]")
        if col == 0:
            top.legend(loc="center right", fontsize=8)
            lines = bottom.get_lines() + twin.get_lines()
            bottom.legend(lines, [ln.get_label() for ln in lines], loc="center right", fontsize=8)
    # Phase names: rest and full stroke on the whole run, all four on the lift.
    top_full, top_zoom = axes[0]
    for label, a, b, _ in phases.spans(end):
        if label in ("rest", "full stroke"):
            top_full.text(0.5 * (a + b), shown("p_A", 0.5 * (p_s + p_t)), label, ha="center", va="center", fontsize=9)
    ymax = shown("p_A", p_s)
    for label, a, b, _ in phases.spans(end):
        lo, hi = max(a, zoom[0]), min(b, zoom[1])
        if hi <= lo:
            continue
        y = {"rest": 0.45, "jump": 1.04, "sag during motion": 0.88, "full stroke": 0.45}[label] * ymax
        x = 0.5 * (lo + hi) if label != "jump" else hi
        top_zoom.annotate(label, (x, y), ha="center", va="bottom", fontsize=9)
    if phases.peak is not None:
        top_zoom.annotate(
            f"jump: {shown('p_A', fmu.at('p_A', phases.peak)):.1f} {pressure.label} at {phases.peak:.3f} s",
            (phases.peak, shown("p_A", fmu.at("p_A", phases.peak))),
            xytext=(phases.peak + 0.03, 0.72 * ymax),
            arrowprops={"arrowstyle": "->", "lw": 0.8},
            fontsize=8,
        )
    if phases.full is not None:
        top_zoom.annotate(
            f"x_p = {_display(units['x_p'], FULL_STROKE_FRACTION * stroke, 3)} at {phases.full:.3f} s",
            (phases.full, shown("p_A", fmu.at("p_A", phases.full))),
            xytext=(phases.full + 0.02, 0.62 * ymax),
            arrowprops={"arrowstyle": "->", "lw": 0.8},
            fontsize=8,
        )
    top_zoom.set_ylim(top=1.12 * ymax)
    axes[0][0].set_title("the whole experiment", fontsize=9)
    axes[0][1].set_title("the lift", fontsize=9)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Run the LiftActuator FMU on the paper's experiment (u = 1 from 1 s, 5 s) and plot the paper's "
        "Fig. 4 in the display units the FMU declares (bar, mm, m/s), with the reference trace when it exists.",
    )
    parser.add_argument("--fmi", type=int, choices=(2, 3), default=3, help="FMI version of the FMU (default: %(default)s)")
    parser.add_argument("--dist", type=Path, default=DIST, help="folder with fmi2/ and fmi3/ (default: %(default)s, or $FMU_DIST_DIR)")
    parser.add_argument("--out", type=Path, default=REPO / "target" / "lift", help="folder for the PNG (default: %(default)s)")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step and output interval [s] (default: %(default)g)")
    parser.add_argument("--ref", type=Path, default=REFERENCE, help="reference trace to overlay, if it exists (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.step <= 0 or args.step > 0.05:
        print("error: --step must be positive and at most 0.05 s (the lift takes 0.3 s)", file=sys.stderr)
        return 1

    path = Path(args.dist) / f"fmi{args.fmi}" / "LiftActuator.fmu"
    try:
        fmu, start = run_fmu(path, args.step)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - FMPy raises plain Exception and FMICallException
        print(f"error: the LiftActuator FMU (FMI {args.fmi}) failed: {e}", file=sys.stderr)
        return 1
    stroke, p_s, p_t = start["stroke"], start["p_S"], start["p_T"]
    units = display_scales(path)
    ref, note = read_reference(args.ref)
    print(f"LiftActuator (FMI {args.fmi}), paper's experiment: u = {U_AFTER:g} from {T_STEP:g} s, "
          f"{STOP:g} s, communication step {args.step * 1e3:g} ms")
    print(note)

    ours = key_numbers(fmu, stroke)
    theirs = key_numbers(ref, stroke) if ref is not None else {}
    print(f"  {'':<22}{'FMU':>16}{'reference':>16}{'model description':>20}")
    for label, (quantity, value, when) in ours.items():
        scale = units[quantity]
        at = f" (at {when:.3f} s)" if when is not None else ""
        r = _display(scale, theirs[label][1]) if label in theirs else "-"
        published = _published(scale, *MODEL_MD[label]) if label in MODEL_MD else "-"
        print(f"  {label:<22}{_display(scale, value):>16}{r:>16}{published:>20}{at}")
    if ref is not None:
        print("FMU minus reference, at the FMU's output points (reference interpolated):")
        for name in ("x_p", "v_p", "p_A", "p_B"):
            unit, factor = units[name].label, units[name].factor
            diff = factor * (fmu.values[name] - np.interp(fmu.time, ref.time, ref.values[name]))
            print(f"  {name:<4} max |difference| {np.max(np.abs(diff)):10.4g} {unit:<4} RMS {np.sqrt(np.mean(diff**2)):10.4g} {unit}")

    args.out.mkdir(parents=True, exist_ok=True)
    png = args.out / "lift_fig4.png"
    title = (f"LiftActuator FMU (FMI {args.fmi}): 100 kg lifted, u = 0 -> 1 at {T_STEP:g} s "
             f"(the paper's Fig. 4){'' if ref is None else ', with the reference trace'}")
    plot(png, fmu, ref, stroke, p_s, p_t, title, units)
    print(f"-> {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
