"""``harness report``: one page (``report.md`` and ``report.html``) with the
verdict tables and PNG plots, rebuilt from the verdict files under ``--out``.

Per model, scenario and step size, one plot per signal: the reference and
every master's trace (top) and each master's error, result minus reference at
the common time points, with the max-abs bound (bottom). Both panels are in
the signal's display unit from the FMU's model description (bar for Pa, mm
for m, L/min for m3/s, ...); the verdict tables keep SI.
"""

from __future__ import annotations

import html
import json
import math
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from harness.fmu_info import DisplayScale, FmuInfoError, read_fmu_info
from harness.records import FAILING, NOT_SUPPORTED, PASSED, VERDICTS, load_records
from harness.scenario import ScenarioError, load_scenario
from harness.tables import read_table

VERDICT_TEXT = {
    PASSED: "passed",
    "failed": "**FAILED**",
    "rejected": "**REJECTED**",
    NOT_SUPPORTED: "not supported by the master",
}


def _num(value, fmt=".3g") -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return format(value, fmt)


def _path(text: str) -> str:
    """A path relative to the repository root when it lies inside it."""
    from harness import REPO_ROOT

    path = Path(text)
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else text


def _short(text: str, limit: int = 180) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Page:
    """A list of blocks rendered both as Markdown and as HTML."""

    def __init__(self):
        self.blocks = []

    def heading(self, level: int, text: str):
        self.blocks.append(("h", level, text))

    def para(self, text: str):
        self.blocks.append(("p", text))

    def bullets(self, items: list[str]):
        if items:
            self.blocks.append(("ul", items))

    def table(self, header: list[str], rows: list[list[str]]):
        self.blocks.append(("table", header, rows))

    def images(self, items: list[tuple[str, str]]):
        if items:
            self.blocks.append(("img", items))

    def markdown(self) -> str:
        out = []
        for block in self.blocks:
            if block[0] == "h":
                out.append("#" * block[1] + " " + block[2])
            elif block[0] == "p":
                out.append(block[1])
            elif block[0] == "ul":
                out.append("\n".join(f"- {item}" for item in block[1]))
            elif block[0] == "table":
                header, rows = block[1], block[2]
                cell = lambda s: str(s).replace("|", "\\|")  # noqa: E731
                lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
                lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
                out.append("\n".join(lines))
            elif block[0] == "img":
                out.append("\n".join(f"![{alt}]({path})" for alt, path in block[1]))
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        def inline(text: str) -> str:
            escaped = html.escape(str(text))
            parts = escaped.split("**")
            return "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(parts)).replace("`", "")

        out = [
            "<!DOCTYPE html>", "<html><head><meta charset='utf-8'>", f"<title>{html.escape(title)}</title>",
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
            "td,th{border:1px solid #bbb;padding:3px 6px;font-size:90%}th{background:#eee}"
            "img{max-width:48%;margin:4px}</style></head><body>",
        ]
        for block in self.blocks:
            if block[0] == "h":
                out.append(f"<h{block[1]}>{inline(block[2])}</h{block[1]}>")
            elif block[0] == "p":
                out.append(f"<p>{inline(block[1])}</p>")
            elif block[0] == "ul":
                out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in block[1]) + "</ul>")
            elif block[0] == "table":
                rows = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in block[2])
                out.append("<table><tr>" + "".join(f"<th>{inline(h)}</th>" for h in block[1]) + "</tr>" + rows + "</table>")
            elif block[0] == "img":
                out.append("<div>" + "".join(
                    f"<a href='{html.escape(p)}'><img src='{html.escape(p)}' alt='{html.escape(a)}'></a>" for a, p in block[1]
                ) + "</div>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def _worst(record: dict, key: str, bound_key: str):
    """(ratio to bound, signal, value) of the signal closest to its bound."""
    best = None
    for s in record.get("signals", []):
        value, bound = s[key], s[bound_key]
        ratio = value / bound if bound else math.inf
        if isinstance(value, float) and math.isnan(value):
            ratio = math.inf
        if best is None or ratio > best[0]:
            best = (ratio, s["signal"], value)
    return best


def _analytic_text(record: dict) -> str:
    checks = record.get("analytic", [])
    if not checks:
        return "-"
    ok = sum(1 for c in checks if c["passed"])
    return f"{ok}/{len(checks)} ok" if ok == len(checks) else f"**{ok}/{len(checks)} ok**"


def display_scales(records: list[dict], signals) -> dict[str, DisplayScale]:
    """Each signal's display unit, from the model description of the first
    readable FMU the records ran; SI (factor 1) when none is readable."""
    for record in records:
        try:
            info = read_fmu_info(Path(record["fmu"]))
        except (FmuInfoError, KeyError, TypeError):
            continue
        return {s: info.display_scale(s) for s in signals}
    return {s: DisplayScale("SI") for s in signals}


def plot_scenario(runs: list[dict], out: Path) -> dict[tuple, list[tuple[str, str]]]:
    """Plots per (model, scenario, step) and signal; returns their relative paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from harness.metrics import common_points

    groups = defaultdict(list)
    for record in runs:
        groups[(record["model"], record["scenario"], record["step"])].append(record)
    images = {}
    for (model, scenario_name, step), records in sorted(groups.items()):
        try:
            scenario = load_scenario(Path(records[0]["scenario_dir"]))
            reference = read_table(scenario.reference_file)
        except (ScenarioError, OSError, ValueError):
            continue
        traces = []
        for record in records:
            path = Path(record["folder"]) / record["result_file"]
            if path.is_file():
                try:
                    traces.append((f"{record['master']} fmi{record['fmi']} ({record['verdict']})", read_table(path)))
                except (OSError, ValueError):
                    pass
        if not traces:
            continue
        folder = out / "plots" / model / scenario_name / f"{step:g}"
        folder.mkdir(parents=True, exist_ok=True)
        items = []
        scales = display_scales(records, scenario.signals)
        for signal, bounds in scenario.signals.items():
            if not reference.has(signal):
                continue
            unit = scales[signal]
            # values shown as factor * SI + offset, errors and the bound as factor * SI
            bound = unit.factor * bounds.max_abs
            fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 6.5), sharex=True,
                                              gridspec_kw={"height_ratios": [3, 2]})
            # fixed layout and legends outside the axes: "best" placement and
            # tight_layout cost more than the drawing with long traces
            fig.subplots_adjust(left=0.09, right=0.76, top=0.94, bottom=0.08, hspace=0.08)
            top.plot(reference.time, unit.factor * reference.column(signal) + unit.offset, color="black",
                     linewidth=3, alpha=0.35, label="reference")
            for label, table in traces:
                if not table.has(signal):
                    continue
                top.plot(table.time, unit.factor * table.column(signal) + unit.offset, linewidth=1, label=label)
                i_res, i_ref = common_points(table.time, reference.time)
                if len(i_ref):
                    error = table.column(signal)[i_res] - reference.column(signal)[i_ref]
                    bottom.plot(reference.time[i_ref], unit.factor * error, linewidth=1, label=label)
            largest = max((float(np.nanmax(np.abs(line.get_ydata()))) for line in bottom.get_lines()
                           if np.any(np.isfinite(line.get_ydata()))), default=0.0)
            if largest >= 0.05 * bound:
                for sign in (1, -1):
                    bottom.axhline(sign * bound, color="red", linestyle="--", linewidth=1,
                                   label="max abs bound" if sign > 0 else None)
            else:
                bottom.text(0.01, 0.95, f"max abs bound ±{bound:.3g} {unit.label} (off scale)",
                            transform=bottom.transAxes, fontsize=8, color="red", verticalalignment="top")
            top.set_ylabel(f"{signal} ({unit.label})")
            top.set_title(f"{model}/{scenario_name}: {signal}, communication step {step:g} s")
            top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            top.grid(True, alpha=0.3)
            bottom.set_ylabel(f"{signal} - reference ({unit.label})")
            bottom.set_xlabel("time (s)")
            bottom.grid(True, alpha=0.3)
            bottom.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            path = folder / f"{signal}.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            items.append((f"{model}/{scenario_name} {signal} h={step:g}", str(path.relative_to(out))))
        images[(model, scenario_name, step)] = items
    return images


def build_report(out: Path, plots: bool = True) -> Path:
    """Write ``report.md`` and ``report.html`` into ``out``; return the .md path."""
    out = Path(out)
    summary = {}
    if (out / "run.json").is_file():
        summary = json.loads((out / "run.json").read_text())
    runs = [r for r in load_records(out / "results") if r.get("kind") == "run"]
    checks = [r for r in load_records(out / "checkers") if r.get("kind") == "checker"]
    references = [r for r in load_records(out / "references") if r.get("kind") == "reference"]
    master_order = {m["name"]: i for i, m in enumerate(summary.get("masters", []))}
    runs.sort(key=lambda r: (r["model"], r["scenario"], r["fmi"], master_order.get(r["master"], 99), r["master"], r["step"]))
    checks.sort(key=lambda r: (r["model"], r["fmi"], r["checker"]))

    counts = {v: 0 for v in VERDICTS}
    for record in runs + checks + references:
        counts[record["verdict"]] += 1
    failing = sum(counts[v] for v in FAILING) + len(summary.get("scenario_problems", []))

    page = Page()
    page.heading(1, "Validation report")
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    page.para(
        f"Generated {generated}. "
        + (f"Run started {summary['started_at']}, total run time {summary['wall_time']:.1f} s "
           f"({summary.get('jobs', 1)} runs at a time), FMUs from `{_path(summary.get('dist', '?'))}`. " if summary else "")
        + f"**Overall: {'FAILED' if failing else 'passed'}** - "
        + ", ".join(f"{counts[v]} {v.replace('_', ' ')}" for v in VERDICTS)
        + " (runs, checker calls and reference checks)."
    )
    page.para(
        "Verdicts: *passed* - every compared signal within its relative-RMS and max-abs bounds, no sample outside "
        "FMPy's band, every analytic check holds; *failed* - a bound exceeded, a missing or short result, or the "
        "runner failed (non-zero exit, crash, time-out, not built); *rejected* - the master could not load or "
        "instantiate the FMU; *not supported by the master* - the master cannot run this FMI version (never a failure). "
        "Relative RMS = RMS(result - reference) / mean |reference| in %, on the reference times that coincide with "
        "communication points; max abs in SI units; band = % of result samples outside FMPy's `validate_signal` band."
    )
    for problem in summary.get("scenario_problems", []):
        page.para(f"**Scenario problem:** {problem}")
    awaiting = summary.get("awaiting_fmu", [])
    if awaiting:
        page.para("Scenarios of described circuits whose FMU is not built yet (skipped, not failed):")
        page.bullets([_short(line, 400) for line in awaiting])

    page.heading(2, "Summary")
    rows = []
    for r in runs:
        rel = _worst(r, "rel_rms_percent", "bound_rel_rms_percent")
        mx = _worst(r, "max_abs", "bound_max_abs")
        band = max((s["band_outside_percent"] for s in r.get("signals", [])), default=None)
        rows.append([
            r["model"], r["scenario"], f"FMI {r['fmi']}", r["master"], f"{r['step']:g}", VERDICT_TEXT[r["verdict"]],
            f"{_num(rel[2])} % ({rel[1]}, {_num(rel[0], '.2g')} x bound)" if rel else "-",
            f"{_num(mx[2])} ({mx[1]}, {_num(mx[0], '.2g')} x bound)" if mx else "-",
            f"{_num(band)} %" if band is not None else "-",
            _analytic_text(r),
            _num(r.get("wall_time"), ".2f"),
        ])
    page.table(["Model", "Scenario", "FMI", "Master", "Step (s)", "Verdict", "Worst rel RMS", "Worst max abs",
                "Band (outside)", "Analytic", "Wall (s)"], rows)

    page.heading(2, "Checkers")
    page.table(["FMU", "Checker", "Verdict", "Problems", "Wall (s)"], [
        [_path(r["fmu"]), r["checker"], VERDICT_TEXT[r["verdict"]], _short("; ".join(r["reasons"])) or "-", _num(r["wall_time"], ".2f")]
        for r in checks
    ])

    page.heading(2, "References")
    page.table(["Model", "Scenario", "Generated by", "Verdict", "Checks"], [
        [r["model"], r["scenario"], f"`{r.get('generated_by') or '-'}`", VERDICT_TEXT[r["verdict"]],
         "; ".join(r.get("reasons", []) + r.get("details", []))]
        for r in sorted(references, key=lambda r: (r["model"], r["scenario"]))
    ])

    images = plot_scenario(runs, out) if plots else {}
    by_scenario = defaultdict(list)
    for r in runs:
        by_scenario[(r["model"], r["scenario"])].append(r)
    for (model, scenario_name), records in by_scenario.items():
        page.heading(2, f"{model} / {scenario_name}")
        try:
            scenario = load_scenario(Path(records[0]["scenario_dir"]))
        except ScenarioError as err:
            page.para(f"**Scenario unreadable:** {err}")
            continue
        opt = scenario.options
        page.para(
            f"{scenario.spec.get('description', '')} Folder `{_path(str(scenario.folder))}`; {opt.start_time:g} to {opt.stop_time:g} s, "
            f"inputs {scenario.interpolation}-interpolated, parameters {json.dumps(scenario.parameters)}."
        )
        signals = list(scenario.signals)
        page.table(["Bounds"] + signals, [
            ["rel RMS %"] + [f"{scenario.signals[s].rel_rms_percent:g}" for s in signals],
            ["max abs"] + [f"{scenario.signals[s].max_abs:g}" for s in signals],
        ])
        if scenario.analytic:
            page.bullets([f"analytic: {a.describe()}" + (f" - {a.note}" if a.note else "") for a in scenario.analytic])
        rows = []
        for r in records:
            figures = {s["signal"]: s for s in r.get("signals", [])}
            cells = []
            for name in signals:
                s = figures.get(name)
                cells.append("-" if s is None else
                             f"{_num(s['rel_rms_percent'])} / {_num(s['max_abs'])} / {_num(s['band_outside_percent'])}")
            rows.append([f"FMI {r['fmi']}", r["master"], f"{r['step']:g}", VERDICT_TEXT[r["verdict"]]] + cells
                        + [_analytic_text(r), _num(r.get("wall_time"), ".2f"), _short("; ".join(r.get("reasons", []))) or "-"])
        page.para("Per signal: rel RMS % / max abs / % outside the band.")
        page.table(["FMI", "Master", "Step (s)", "Verdict"] + signals + ["Analytic", "Wall (s)", "Reasons"], rows)
        for key in sorted(k for k in images if k[0] == model and k[1] == scenario_name):
            page.heading(3, f"Plots, communication step {key[2]:g} s")
            page.images(images[key])

    markdown = out / "report.md"
    markdown.write_text(page.markdown())
    (out / "report.html").write_text(page.html("Validation report"))
    return markdown
