"""Benchmark of the sweep backends, measured side by side in one run.

``python -m sweep bench``: N runs (default 64) of the 50 s ValveCylinder
random scenario (the 100 random levels of U of Ustinov et al. (2022)) at a 10 ms communication
step, each with its own moving mass (Latin hypercube, 150..250 kg, so that no
two runs are the same), through

1. the serial backend (this process: the FMU extracted once, one instance
   reset between runs);
2. a local Dask cluster of W worker processes (default 2; the FMU scattered
   once, extracted once per worker, instances reused), timed from the
   cluster's start to the last result and also from the first submission;
3. the common way of doing it, for comparison: FMPy's ``simulate_fmu`` on
   the ``.fmu`` path for each run, which extracts the archive and
   instantiates the FMU anew every time, serially and as one Dask task per
   run on the same kind of cluster (``--no-baseline`` skips it).

It prints each row's wall time, runs per second and speed-up over its serial
counterpart, and checks that the serial and Dask results are identical.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import numpy as np

from sweep import REPO_ROOT
from sweep.backends import available_cores, run_dask, run_serial
from sweep.design import load_study

SCENARIO = REPO_ROOT / "validation" / "scenarios" / "ValveCylinder" / "random"


def _design(folder: Path, fmu: Path, runs: int) -> Path:
    path = folder / "bench.toml"
    path.write_text(f"""title = "bench: ValveCylinder random scenario"
fmu = "{fmu}"
stop_time = 50.0
step = 0.01

[inputs.U]
kind = "table"
file = "{SCENARIO / 'ValveCylinder_in.csv'}"

[factors.m]
low = 150
high = 250

[design]
kind = "latin_hypercube"
runs = {runs}
seed = 1

[[keep]]
signal = "x"
summary = "final"

[[keep]]
signal = "pv"
summary = "max"
""")
    return path


def _share(runs: list[dict], fmu: Path) -> None:
    run_serial(runs, fmu, lambda r: None)


def _independent_processes(runs: list[dict], fmu: Path, workers: int) -> float:
    """Wall time of ``workers`` forked processes each running an equal share
    of the runs serially: what the machine gives two processes with nothing
    coordinating them (the bound for any scheduler)."""
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    t0 = time.perf_counter()
    procs = [context.Process(target=_share, args=(runs[i::workers], fmu)) for i in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    return time.perf_counter() - t0


def _fmpy_task(fmu: str, mass: float, inputs_csv: str) -> float:
    """One run the common way: FMPy's simulate_fmu on the archive (extracts
    and instantiates every time); returns x at the end."""
    from fmpy import simulate_fmu

    from harness.tables import read_table

    table = read_table(Path(inputs_csv))
    signal = np.zeros(len(table.time), dtype=[("time", np.float64), ("U", np.float64)])
    signal["time"], signal["U"] = table.time, table.column("U")
    result = simulate_fmu(fmu, stop_time=50.0, output_interval=0.01, start_values={"m": mass}, input=signal,
                          output=["x"])
    return float(result["x"][-1])


def _fmpy_dask(fmu: Path, masses: list[float], workers: int) -> float:
    import logging

    from distributed import Client, LocalCluster, wait

    started = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.CRITICAL, memory_limit=0) as cluster, Client(cluster) as client:
        futures = [client.submit(_fmpy_task, str(fmu), m, str(SCENARIO / "ValveCylinder_in.csv"), pure=False)
                   for m in masses]
        wait(futures)
        for f in futures:
            f.result()
    return time.perf_counter() - started


def main(args) -> int:
    import os

    fmu = Path(args.fmu).resolve()
    if not fmu.is_file():
        print(f"error: {fmu} not found (cargo run --release -p build-fmu)")
        return 2
    shown = fmu.relative_to(REPO_ROOT) if fmu.is_relative_to(REPO_ROOT) else fmu
    print(f"sweep benchmark: {args.runs} runs of the 50 s ValveCylinder random scenario at a 10 ms step, {shown}; "
          f"{available_cores()} cores available, load average {os.getloadavg()[0]:.2f}; "
          f"serial and local Dask alternately, {args.repeat} times", flush=True)
    serial_walls, local_walls, run_walls = [], [], []
    same = True
    with tempfile.TemporaryDirectory(prefix="sweep-bench-") as tmp:
        study = load_study(_design(Path(tmp), fmu, args.runs))
        runs = study.runs()
        for repeat in range(args.repeat):
            serial, local, marks = {}, {}, {}
            t0 = time.perf_counter()
            run_serial(runs, study.fmu, lambda r: serial.__setitem__(r["index"], r))
            serial_walls.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            run_dask(runs, study.fmu, lambda r: local.__setitem__(r["index"], r), workers=args.workers,
                     say=lambda text: marks.setdefault("ready", time.perf_counter()))
            local_walls.append(time.perf_counter() - t0)
            run_walls.append(time.perf_counter() - marks["ready"])
            same &= len(serial) == len(local) == len(runs) and all(
                serial[i]["status"] == local[i]["status"] == "ok"
                and all(_same(serial[i]["summaries"][k], local[i]["summaries"][k]) for k in serial[i]["summaries"])
                for i in serial)
            print(f"  round {repeat + 1}: serial {serial_walls[-1]:.2f} s, local Dask {local_walls[-1]:.2f} s "
                  f"({serial_walls[-1] / local_walls[-1]:.2f}x); one run inside its worker: serial "
                  f"{np.mean([r['wall_s'] for r in serial.values()]):.3f} s, Dask "
                  f"{np.mean([r['wall_s'] for r in local.values()]):.3f} s", flush=True)
        steps = sum(r["steps"] for r in serial.values())
        t_split = _independent_processes(runs, study.fmu, args.workers)
        print(f"  {args.workers} independent processes, each a share of the runs serially: {t_split:.2f} s", flush=True)
        t_serial = float(np.median(serial_walls))
        # speed-ups: the median of the rounds' own ratios (the machine's pace
        # drifts between rounds; each round compares runs done minutes apart)
        rows = [("sweep, serial (this process)", t_serial, 1.0),
                (f"sweep, local Dask, {args.workers} workers", float(np.median(local_walls)),
                 float(np.median([a / b for a, b in zip(serial_walls, local_walls)]))),
                ("  the same from the first submission (no Dask import, no start)", float(np.median(run_walls)),
                 float(np.median([a / b for a, b in zip(serial_walls, run_walls)]))),
                (f"bound: {args.workers} independent processes, no coordination (one round)", t_split, t_serial / t_split)]

        if not args.no_baseline:
            masses = [r["values"]["m"] for r in runs]
            t0 = time.perf_counter()
            for m in masses:
                _fmpy_task(str(fmu), m, str(SCENARIO / "ValveCylinder_in.csv"))
            t_fmpy = time.perf_counter() - t0
            print(f"  FMPy simulate_fmu serial: {t_fmpy:.2f} s", flush=True)
            t_fmpy_dask = _fmpy_dask(fmu, masses, args.workers)
            rows.append(("FMPy simulate_fmu per run, serial", t_fmpy, 1.0))
            rows.append((f"FMPy simulate_fmu per run, local Dask, {args.workers} workers", t_fmpy_dask, t_fmpy / t_fmpy_dask))

    simulated = args.runs * 50.0
    print()
    print(f"median of {args.repeat} rounds (FMPy rows: one round); speed-up over the serial row above it")
    print(f"{'backend':<66} {'wall s':>7} {'runs/s':>7} {'x real time':>11} {'speed-up':>9}")
    for name, wall, speedup in rows:
        print(f"{name:<66} {wall:7.2f} {args.runs / wall:7.2f} {simulated / wall:11.0f} {speedup:8.2f}x")
    print()
    print(f"{steps} communication steps per backend and round; serial and Dask results identical in every round: "
          f"{'yes' if same else 'NO'}")
    ratios = [a / b for a, b in zip(serial_walls, local_walls)]
    goal = float(np.median(ratios))
    print(f"goal: at least 1.7x on 2 workers, Dask's import and the cluster's start included: median {goal:.2f}x "
          f"(rounds {', '.join(f'{r:.2f}' for r in ratios)}; {'met' if goal >= 1.7 else 'not met'})")
    return 0 if same else 1


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b
