"""Command line of the sweep tool: ``python -m sweep {run,show,plot,bench}``."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from sweep import REPO_ROOT
from sweep.backends import choose_backend, interactive, run_dask, run_serial
from sweep.design import StudyError, load_study, relative_to_repo
from sweep.store import Journal, read_journal, write_results, write_traces

EXIT_OK, EXIT_RUNS_FAILED, EXIT_BAD_DESIGN, EXIT_INTERRUPTED = 0, 1, 2, 130


def say(text: str) -> None:
    print(f"[sweep] {text}", flush=True)


class Progress:
    """Runs done and failed, and the time left (from the rate so far), on
    one refreshed line on a terminal, else a line every 10 % or 10 s."""

    def __init__(self, total: int):
        self.total, self.done, self.failed = total, 0, 0
        self.started = time.perf_counter()
        self.last_print = 0.0
        self.last_fraction = 0.0
        self.tty = interactive()

    def update(self, status: str) -> None:
        self.done += 1
        self.failed += status != "ok"
        now = time.perf_counter()
        elapsed = now - self.started
        fraction = self.done / self.total
        left = elapsed / self.done * (self.total - self.done)
        text = (f"{self.done}/{self.total} runs done, {self.failed} failed, "
                f"{elapsed:.1f} s elapsed, about {_duration(left)} left")
        if self.tty:
            width = 24
            bar = "#" * int(width * fraction) + "-" * (width - int(width * fraction))
            sys.stderr.write(f"\r[sweep] [{bar}] {text}   ")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        elif fraction - self.last_fraction >= 0.1 or now - self.last_print >= 10 or self.done == self.total:
            say(text)
            self.last_print, self.last_fraction = now, fraction


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60} min {seconds % 60:02d} s"


def default_out(design: Path) -> Path:
    return REPO_ROOT / "target" / "sweeps" / Path(design).stem


def _load(args: argparse.Namespace):
    """The design file's study, or None after printing what is wrong."""
    try:
        return load_study(args.design)
    except StudyError as err:
        print(f"error: {err}", file=sys.stderr)
        return None


def cmd_run(args: argparse.Namespace) -> int:
    study = _load(args)
    if study is None:
        return EXIT_BAD_DESIGN
    runs = study.runs()
    if args.limit is not None:
        runs = runs[: args.limit]
    out = Path(args.out) if args.out else default_out(args.design)
    done = read_journal(out)
    if args.fresh:
        done = {}
        (out / "runs.jsonl").unlink(missing_ok=True)
        shutil.rmtree(out / "traces", ignore_errors=True)
    wanted = {r["key"] for r in runs}
    kept = {k: v for k, v in done.items() if k in wanted}
    todo = [r for r in runs if r["key"] not in kept or (args.retry_failed and kept[r["key"]]["status"] != "ok")]
    if args.traces and study.traces:
        # a run done earlier without its trace file is done again
        todo_keys = {r["key"] for r in todo}
        for r in runs:
            if r["key"] in kept and kept[r["key"]]["status"] == "ok" and r["key"] not in todo_keys:
                if not (out / "traces" / f"run-{r['index']:06d}.npz").is_file():
                    todo.append(r)
        todo.sort(key=lambda r: r["index"])
    earlier_failed = sum(1 for r in runs if r["key"] in kept and kept[r["key"]]["status"] != "ok")
    say(f"{study.title}: {relative_to_repo(study.fmu)} (FMI {study.info.fmi_version}), "
        f"{len(study.factors)} factor(s), {study.design['kind'].replace('_', ' ')} design")
    say(f"{len(runs)} runs of {study.stop_time - study.start_time:g} s at a {study.step:g} s step; "
        f"{len(runs) - len(todo)} done earlier ({earlier_failed} failed) in {relative_to_repo(out)}, {len(todo)} to run")
    if args.traces and not study.traces:
        say("note: --traces, but the design has no [traces] signals = [...]")
    backend, workers, why = ("scheduler", 0, "asked for") if args.scheduler else choose_backend(args.backend, len(todo), args.workers)
    journal = Journal(out, traces=args.traces and bool(study.traces))
    new = {}
    started = time.perf_counter()
    interrupted = False
    if todo:
        say(f"backend: {backend}" + (f" ({workers} workers)" if backend == "local" else "") + f" - {why}")
        progress = Progress(len(todo))
        by_key = {r["key"]: r for r in todo}

        def on_result(result: dict) -> None:
            record = journal.add(by_key[result["key"]], result)
            new[result["key"]] = record
            progress.update(record["status"])
            if record["status"] != "ok" and not progress.tty:
                say(f"run {record['index']} failed: {record['error']}")

        try:
            if backend == "serial":
                run_serial(todo, study.fmu, on_result)
            else:
                run_dask(todo, study.fmu, on_result, workers=workers, scheduler=args.scheduler, say=say)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            journal.close()
    else:
        journal.close()
    wall = time.perf_counter() - started
    records_by_key = {**kept, **new}
    records = [records_by_key[r["key"]] for r in runs if r["key"] in records_by_key]
    if interrupted:
        say(f"interrupted: {len(new)} new run(s) kept in {relative_to_repo(out / 'runs.jsonl')}; run the same command to go on")
        return EXIT_INTERRUPTED
    parquet, csv = write_results(study, records, out)
    if todo:
        say(f"{len(todo)} runs in {wall:.2f} s ({len(todo) / wall:.2f} runs/s)")
    say(f"results: {relative_to_repo(parquet)} and {csv.name} ({len(records)} rows)")
    if args.traces and study.traces:
        path = write_traces(study, records, out)
        if path:
            say(f"traces: {relative_to_repo(path)} ({', '.join(study.traces)})")
    print_summary(study, records)
    if not args.no_plot:
        from sweep.plots import draw

        for path in draw(study, records, out):
            say(f"plot: {relative_to_repo(path)}")
    failed = [r for r in records if r["status"] != "ok"]
    for r in failed[:10]:
        say(f"failed run {r['index']} ({_values_text(study, r)}): {r['error']}")
    if len(failed) > 10:
        say(f"... and {len(failed) - 10} more failed runs (status and error in {csv.name})")
    return EXIT_RUNS_FAILED if failed else EXIT_OK


def _values_text(study, record) -> str:
    parts = []
    for f in study.factors:
        parts.append(f"{f.name} = {f.shown(record['values'][f.name]):.6g} {f.unit}".strip())
    return ", ".join(parts)


def print_summary(study, records: list[dict]) -> None:
    """Min, median and max of each kept quantity over the successful runs."""
    from sweep.plots import _summary_scale

    ok = [r for r in records if r["status"] == "ok"]
    say(f"{len(ok)} ok, {len(records) - len(ok)} failed")
    if not ok or not study.keep:
        return
    print(f"  {'quantity':<18} {'unit':<8} {'min':>12} {'median':>12} {'max':>12} {'NaN':>5}")
    for k in study.keep:
        label, factor, offset = _summary_scale(study, k)
        y = np.array([r["summaries"][k.name] for r in ok], dtype=float)
        finite = y[np.isfinite(y)] * factor + offset
        cells = [f"{v:12.5g}" for v in (finite.min(), np.median(finite), finite.max())] if finite.size else [f"{'-':>12}"] * 3
        print(f"  {k.name:<18} {label:<8} {' '.join(cells)} {int(np.sum(~np.isfinite(y))):>5}")


def cmd_show(args: argparse.Namespace) -> int:
    study = _load(args)
    if study is None:
        return EXIT_BAD_DESIGN
    runs = study.runs()
    say(f"{study.title}: {len(runs)} runs of {relative_to_repo(study.fmu)}")
    for f in study.factors:
        shown = [f.shown(r["values"][f.name]) for r in runs]
        say(f"  factor {f.name}: {min(shown):.6g} .. {max(shown):.6g} {f.unit}".rstrip())
    for r in runs[: args.rows]:
        print(f"  run {r['index']:>5}  {_values_text(study, r)}")
    if len(runs) > args.rows:
        print(f"  ... {len(runs) - args.rows} more")
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from sweep.plots import draw

    study = _load(args)
    if study is None:
        return EXIT_BAD_DESIGN
    out = Path(args.out) if args.out else default_out(args.design)
    done = read_journal(out)
    records = [done[r["key"]] for r in study.runs() if r["key"] in done]
    if not records:
        print(f"error: no finished runs of this design in {out}", file=sys.stderr)
        return EXIT_BAD_DESIGN
    for path in draw(study, records, out):
        say(f"plot: {relative_to_repo(path)}")
    return EXIT_OK


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sweep",
        description="Parameter sweeps, Monte Carlo and designs of experiments over the project's FMUs, "
        "serially or on Dask. Design files: validation/sweeps/*.toml; format in validation/python/sweep/README.md.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a design file (resumes: only runs missing from the output folder run)",
                         description="Run every run of the design that the output folder's journal lacks. "
                         "Exit status: 0 every run ok, 1 some runs failed (recorded with their error), "
                         "2 the design file is wrong, 130 interrupted (rerun to resume).")
    run.add_argument("design", type=Path, help="the design file (TOML)")
    run.add_argument("--out", type=Path, help="output folder (default target/sweeps/<design name>/)")
    run.add_argument("--backend", choices=("auto", "serial", "local"), default="auto",
                     help="serial: this process; local: a local Dask cluster; auto (default): local when more than one core is free")
    run.add_argument("--workers", type=int, help="worker processes of the local cluster (default: the free cores)")
    run.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786) to run on instead")
    run.add_argument("--traces", action="store_true", help="also keep the [traces] signals of every run (traces.parquet)")
    run.add_argument("--retry-failed", action="store_true", help="run again the runs that failed before")
    run.add_argument("--fresh", action="store_true", help="forget the earlier runs in the output folder")
    run.add_argument("--limit", type=int, help="only the first N runs of the design (a quick try)")
    run.add_argument("--no-plot", action="store_true", help="do not draw summary.png and tornado.png")
    run.set_defaults(func=cmd_run)
    show = sub.add_parser("show", help="check a design file and list its runs")
    show.add_argument("design", type=Path)
    show.add_argument("--rows", type=int, default=20, help="runs to list (default 20)")
    show.set_defaults(func=cmd_show)
    plot = sub.add_parser("plot", help="draw the summary plots of the finished runs again")
    plot.add_argument("design", type=Path)
    plot.add_argument("--out", type=Path)
    plot.set_defaults(func=cmd_plot)
    bench = sub.add_parser("bench", help="64 runs of the 50 s ValveCylinder random scenario: serial vs a local cluster")
    bench.add_argument("--runs", type=int, default=64)
    bench.add_argument("--workers", type=int, default=2)
    bench.add_argument("--fmu", type=Path, default=REPO_ROOT / "dist" / "fmi3" / "ValveCylinder.fmu")
    bench.add_argument("--repeat", type=int, default=3, help="rounds of serial then Dask (median reported; default 3)")
    bench.add_argument("--no-baseline", action="store_true", help="skip FMPy's simulate_fmu re-extracting per task")
    bench.set_defaults(func=lambda a: __import__("sweep.bench", fromlist=["main"]).main(a))
    args = parser.parse_args(argv)
    if getattr(args, "limit", None) is not None and args.limit < 1:
        parser.error("--limit must be >= 1")
    if getattr(args, "workers", None) is not None and args.workers < 1:
        parser.error("--workers must be >= 1")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
