"""Where the runs execute: this process, a local Dask cluster, or a Dask
scheduler given by address. All three call the same ``worker.simulate`` on
the same run specifications, so their results are the same, bit for bit.

- ``serial``: in this process, one run after the other. A crash of the FMU
  would end this process, so the journal keeps every run finished before it.
- ``local`` (what ``auto`` chooses when more than one core is free): a
  ``distributed.LocalCluster`` of worker processes with one thread each, on
  this machine's file system: each worker reads and extracts the FMU once
  (forked workers inherit it extracted) and reuses its instance; runs go in
  chunks
  (``chunk_size``). A worker process that dies (a crash inside an FMU) is
  restarted by its nanny; its chunk is retried once
  (``distributed.scheduler.allowed-failures = 1``), then split into single
  runs, and the single run that kills its worker again is recorded as
  failed; the other runs go on.
- ``scheduler``: ``--scheduler tcp://host:8786``: the same on any Dask
  cluster. The ``sweep`` and ``harness`` packages and the FMU archive are
  uploaded to the scheduler and every worker, present and future
  (``Client.upload_file``); the cluster needs the project's third-party
  Python packages (``validation/python/requirements.txt``: FMPy, NumPy,
  SciPy, Dask) and the FMU a binary for the workers' platform. The retry
  rule is the scheduler's own configuration.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, Iterable

from sweep import PYTHON_ROOT
from sweep.worker import simulate, simulate_chunk


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def choose_backend(requested: str, runs: int, workers: int | None) -> tuple[str, int, str]:
    """``(backend, workers, why)`` for ``--backend auto|serial|local``."""
    cores = available_cores()
    if requested == "serial":
        return "serial", 1, "asked for"
    if requested == "local":
        n = workers or cores
        return "local", max(1, n), "asked for"
    # auto: a local cluster when more than one core is free now (the load
    # average would still count the work that just ended)
    if runs < 2:
        return "serial", 1, "one run"
    busy = _busy_cores(cores)
    free = cores - busy
    if free < 1.5:
        return "serial", 1, f"{cores} core(s), {busy:.1f} busy: fewer than 2 free"
    n = workers or min(runs, max(2, int(free + 0.5)))
    return "local", n, f"{cores} cores, {busy:.1f} busy"


def _busy_cores(cores: int) -> float:
    """Cores in use over the next 0.3 s (all processes of the machine)."""
    try:
        import psutil

        return psutil.cpu_percent(interval=0.3) / 100.0 * cores
    except Exception:  # noqa: BLE001 - no psutil: fall back to the load average
        return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0


def failed_result(run: dict, error: str) -> dict:
    return {"index": run["index"], "key": run["key"], "status": "failed", "error": error,
            "summaries": {k["name"]: float("nan") for k in run["keep"]}, "counters": {}, "traces": None,
            "steps": 0, "wall_s": 0.0}


def run_serial(runs: Iterable[dict], fmu_path: Path, on_result: Callable[[dict], None]) -> None:
    for run in runs:
        on_result(simulate(run, str(fmu_path)))


def _package_zip(folder: Path) -> Path:
    """The ``sweep`` and ``harness`` packages as one zip for the workers."""
    path = folder / "fluidfmu_sweep.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for package in ("sweep", "harness"):
            for file in sorted((PYTHON_ROOT / package).rglob("*.py")):
                z.write(file, file.relative_to(PYTHON_ROOT).as_posix())
    return path


def chunk_size(runs: int, workers: int) -> int:
    """Runs per Dask task: about 8 tasks per worker, at most 16 runs each."""
    return max(1, min(16, runs // (8 * max(1, workers))))


def _preload(sha256: str, fmu_path: Path) -> None:
    """Import what a worker needs and extract the FMU before forking."""
    import fmpy.simulation  # noqa: F401

    from sweep.worker import _extract

    _extract(sha256, str(fmu_path))


def run_dask(runs: list[dict], fmu_path: Path, on_result: Callable[[dict], None], workers: int = 2,
             scheduler: str | None = None, say: Callable[[str], None] = print) -> None:
    """Run on a local cluster of ``workers`` processes, or on ``scheduler``."""
    import dask
    from distributed import Client, LocalCluster, as_completed

    if not runs:
        return
    # the spawned worker processes import sweep and harness from here
    path = os.environ.get("PYTHONPATH", "")
    if str(PYTHON_ROOT) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join([str(PYTHON_ROOT)] + ([path] if path else []))
    cluster = None
    # one task at a time per worker thread (worker-saturation 1.0): a worker
    # that dies takes only the run it was executing with it, so only that run
    # counts against allowed-failures. Queuing then balances the runs, so no
    # work stealing. The workers' statistical profiler (a stack sample every
    # 10 ms), the 20 ms event-loop tick and the 0.5 s system monitor of every
    # process cost CPU that the runs need on a small machine (on 2 cores the
    # cluster's processes took 7 % of a core while idle; 1.6 % without them).
    config = {
        "distributed.scheduler.allowed-failures": 1,
        "distributed.scheduler.worker-saturation": 1.0,
        "distributed.scheduler.work-stealing": False,
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "200ms",
        "distributed.admin.tick.limit": "10s",
        "distributed.admin.system-monitor.interval": "2s",
    }
    with dask.config.set(config):
        if scheduler:
            client = Client(scheduler, timeout="30s")
            # the code (importable on the scheduler, which unpickles the
            # tasks, and on the workers) and the FMU archive, also for
            # workers that start later
            sha = runs[0]["fmu_sha256"]
            with tempfile.TemporaryDirectory(prefix="sweep-upload-") as tmp:
                client.upload_file(str(_package_zip(Path(tmp))), load=True)
                fmu_copy = Path(tmp) / f"sweep-{sha}.fmu"
                fmu_copy.write_bytes(Path(fmu_path).read_bytes())
                client.upload_file(str(fmu_copy), load=False)
            source = ("uploaded", fmu_copy.name)
            say(f"Dask scheduler {scheduler}: {len(client.scheduler_info()['workers'])} worker(s)")
        else:
            # Workers forked from this process (where available) start in
            # 0.2 s instead of the 1 s a spawned interpreter needs to import
            # Dask again, and inherit the imported modules and the FMU
            # extracted here; a nanny restarts a dead worker the same way.
            # This process runs no FMU code itself and forks from Dask's
            # event-loop thread while its main thread waits.
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            if method == "fork":
                _preload(runs[0]["fmu_sha256"], fmu_path)
            dask.config.set({"distributed.worker.multiprocessing-method": method})
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                   silence_logs=logging.CRITICAL, memory_limit=0)
            client = Client(cluster)
            source = str(fmu_path)  # the workers share this file system
            say(f"local Dask cluster: {workers} worker processes, 1 thread each")
        try:
            # Runs go in chunks (chunk_size): each task costs the client and
            # the scheduler several ms of CPU, which on a small machine the
            # workers need. A chunk whose worker died is split into single
            # runs, so that only the run that kills its worker fails.
            size = chunk_size(len(runs), workers if not scheduler else len(client.scheduler_info()["workers"]))
            chunks = [runs[i : i + size] for i in range(0, len(runs), size)]
            keys = [f"sweep-runs-{c[0]['index']}-{c[-1]['index']}-{c[0]['key']}" for c in chunks]
            futures = client.map(simulate_chunk, chunks, [source] * len(chunks), key=keys, pure=False)
            by_key = {future.key: chunk for future, chunk in zip(futures, chunks)}
            pending = as_completed(futures)
            for future in pending:
                chunk = by_key.pop(future.key)
                try:
                    results = future.result()
                except Exception as err:  # noqa: BLE001 - a dead worker, a lost connection: the run failed
                    if len(chunk) > 1:
                        for run in chunk:
                            single = client.submit(simulate_chunk, [run], source, pure=False,
                                                   key=f"sweep-runs-{run['index']}-{run['index']}-{run['key']}")
                            by_key[single.key] = [run]
                            pending.add(single)
                        results = []
                    else:
                        results = [failed_result(chunk[0], f"the worker failed: {type(err).__name__}: {err}")]
                future.release()
                for result in results:
                    on_result(result)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def interactive() -> bool:
    return sys.stderr.isatty()
