"""Command line: ``python -m harness run | references | report | compare`` (with
``PYTHONPATH=validation/python``). See README.md beside this file."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from harness import REPO_ROOT
from harness.masters import apply_overrides, default_masters, extra_masters
from harness.scenario import ScenarioError, discover

DEFAULT_SCENARIOS = REPO_ROOT / "validation" / "scenarios"
DEFAULT_DIST = REPO_ROOT / "dist"
DEFAULT_OUT = REPO_ROOT / "target" / "validation"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m harness",
        description="Validation harness: run the circuit FMUs in several FMI masters against the reference traces.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run every scenario x FMI version x master x step, the checkers, then the report")
    run.add_argument("--scenarios", type=Path, default=DEFAULT_SCENARIOS, help="root of the scenario folders (default: %(default)s)")
    run.add_argument("--dist", type=Path, default=DEFAULT_DIST, help="folder with fmi2/<Model>.fmu and fmi3/<Model>.fmu (default: %(default)s)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    run.add_argument("--model", action="append", default=[], help="only this model (repeatable)")
    run.add_argument("--scenario", action="append", default=[], help="only this scenario name (repeatable)")
    run.add_argument("--master", action="append", default=[], help="only this master (repeatable)")
    run.add_argument("--skip-master", action="append", default=[], help="leave this master out (repeatable), e.g. fmi-rs")
    run.add_argument("--fmi-version", action="append", type=int, choices=(2, 3), default=[], help="only this FMI version (repeatable)")
    run.add_argument("--runner", action="append", default=[], metavar="NAME=COMMAND",
                     help="replace a master's runner command line, or add a master (repeatable)")
    run.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time (default: %(default)s, the cores)")
    run.add_argument("--timeout", type=float, default=900.0, help="seconds before a run counts as failed (default: %(default)s)")
    run.add_argument("--no-plots", action="store_true", help="report without PNG plots")
    run.add_argument("--solver-mode", choices=("adaptive", "fixed", "ahead"), default="adaptive",
                     help="adaptive: the FMUs' default integrator; fixed: the fixed-cost integrator (solver = 5) "
                          "with the substeps per step of <scenarios>/fixed_cost.json; ahead: the Rosenbrock-W "
                          "integrator stepping past communication points (solver = 6, rtol = atol = 1e-4) "
                          "(default: %(default)s)")
    run.add_argument("--skip-checkers", action="store_true", help="do not run fmpy validate and fmutool -check "
                     "(they check every FMU in --dist, or only the --model ones)")

    refs = sub.add_parser("references", help="regenerate every reference with its script and say which files changed")
    refs.add_argument("--scenarios", type=Path, default=DEFAULT_SCENARIOS, help="root of the scenario folders (default: %(default)s)")
    refs.add_argument("--check", action="store_true", help="only recompute and compare; write nothing (a recomputed "
                      "trace may move by 1e-6 RMS and 1e-4 at most of a signal's scale, a second solver's trace by "
                      "100 times that: other machines round differently)")
    refs.add_argument("--exact", action="store_true", help="with --check: every file must be byte-identical (a rerun "
                      "on the machine that wrote the files)")
    refs.add_argument("--quick", action="store_true", help="with --check: leave out the slow scripts' independent "
                      "second checks (valve drive: Euler convergence and unlocked-equation runs; hoses: the resonance "
                      "search), about 4 instead of 10 minutes; the traces and the published numbers are still compared")
    refs.add_argument("--short", action="store_true", help="with --check: as --quick, and the scripts with long traces "
                      "re-solve one short scenario each (valve drive: the 10 s repeatable input; hoses: HoseH n = 1; "
                      "four-bar: the linear curve) instead of all, about 1 minute on 2 cores; the test command's version")
    refs.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the scripts' logs go (default: %(default)s)")
    refs.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                      help="with --check: scripts at a time (default: %(default)s, the cores); writing runs one at a time")

    compare = sub.add_parser("compare", help="compare two runs trace by trace (and two builds' model descriptions): "
                             "did a change keep the FMUs' behaviour?")
    compare.add_argument("old", type=Path, help="output folder of the earlier run (with results/)")
    compare.add_argument("new", type=Path, help="output folder of the later run (with results/)")
    compare.add_argument("--tolerance", type=float, default=1e-12,
                         help="largest difference allowed, relative to each signal's largest magnitude (default: %(default)g)")
    compare.add_argument("--old-dist", type=Path, help="with --new-dist: also compare the model descriptions of the "
                         "FMUs of two builds (folders with fmi2/ and fmi3/)")
    compare.add_argument("--new-dist", type=Path, help="see --old-dist")

    report = sub.add_parser("report", help="rebuild the report from the verdict files of the last run")
    report.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder of the run (default: %(default)s)")
    report.add_argument("--no-plots", action="store_true", help="report without PNG plots")
    return parser


def command_run(args) -> int:
    from harness.report import build_report
    from harness.run import run_all

    started = time.perf_counter()
    scenarios, problems = discover(args.scenarios)
    if args.model:
        unknown = set(args.model) - {s.model for s in scenarios}
        problems += [f"no scenario of model {name} under {args.scenarios}" for name in sorted(unknown)]
        scenarios = [s for s in scenarios if s.model in args.model]
    if args.scenario:
        scenarios = [s for s in scenarios if s.name in args.scenario]
    if not scenarios:
        print(f"no scenario found under {args.scenarios} (filters: models {args.model}, scenarios {args.scenario})")
        return 1
    try:
        masters = apply_overrides(default_masters() + extra_masters(), args.runner)
    except ValueError as err:
        print(err)
        return 2
    known = {m.name for m in masters}
    unknown = (set(args.master) | set(args.skip_master)) - known
    if unknown:
        print(f"unknown master(s) {sorted(unknown)}; known: {sorted(known)}")
        return 2
    if args.master:
        masters = [m for m in masters if m.name in args.master]
    else:
        extra = {m.name for m in extra_masters()}
        masters = [m for m in masters if m.name not in extra]
    masters = [m for m in masters if m.name not in args.skip_master]
    versions = sorted(set(args.fmi_version)) or [2, 3]
    fixed_cost = None
    if args.solver_mode == "fixed":
        from harness.run import load_fixed_cost_table
        try:
            fixed_cost = load_fixed_cost_table(args.scenarios)
        except ScenarioError as err:
            print(err)
            return 2
    summary = run_all(scenarios, masters, versions, args.dist.resolve(), args.out.resolve(),
                      args.jobs, args.timeout, problems, checkers=not args.skip_checkers,
                      every_fmu=not args.model, fixed_cost=fixed_cost,
                      ahead=args.solver_mode == "ahead")
    report = build_report(args.out.resolve(), plots=not args.no_plots)
    counts = summary["counts"]
    print(f"report: {report}")
    print(f"verdicts: {counts['passed']} passed, {counts['failed']} failed, {counts['rejected']} rejected, "
          f"{counts['not_supported']} not supported by the master")
    print(f"total run time {time.perf_counter() - started:.1f} s")
    return 1 if summary["failing"] else 0


def command_report(args) -> int:
    from harness.report import build_report

    out = args.out.resolve()
    if not (out / "results").is_dir():
        print(f"no verdicts under {out}/results: run `python -m harness run` first")
        return 1
    print(f"report: {build_report(out, plots=not args.no_plots)}")
    return 0


def command_references(args) -> int:
    from harness.references import regenerate

    if args.exact and not args.check:
        print("--exact needs --check", file=sys.stderr)
        return 2
    if (args.quick or args.short) and not args.check:
        print(f"--{'short' if args.short else 'quick'} needs --check (writing a reference runs every check)",
              file=sys.stderr)
        return 2
    return regenerate(args.scenarios, args.check, args.out.resolve(), exact=args.exact, jobs=args.jobs,
                      quick=args.quick, short=args.short)


def command_compare(args) -> int:
    from harness.compare import compare_descriptions, compare_runs

    status = compare_runs(args.old.resolve(), args.new.resolve(), args.tolerance)
    if args.old_dist or args.new_dist:
        if not (args.old_dist and args.new_dist):
            print("--old-dist and --new-dist go together", file=sys.stderr)
            return 2
        status |= compare_descriptions(args.old_dist.resolve(), args.new_dist.resolve())
    return status


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return command_run(args)
    if args.command == "report":
        return command_report(args)
    if args.command == "compare":
        return command_compare(args)
    return command_references(args)


if __name__ == "__main__":
    sys.exit(main())
