"""What a sweep writes into its output folder.

- ``runs.jsonl``: the journal, one line per finished run (appended and
  flushed as each result arrives, so an interrupted sweep keeps what it
  did). A rerun of the design file reads it and runs only the runs whose
  key (``design.run_key``: everything that decides the result) it lacks.
- ``results.parquet`` and ``results.csv``: one row per run of the design:
  ``run``, ``status`` (ok, failed), ``error``, the factors and the kept
  summaries in SI units, the solver counters of the FMU when it has them,
  ``steps`` and ``wall_s`` (the worker's wall time for the run, the one
  column that is a measurement and differs between runs of the sweep). The
  Parquet columns carry their unit, display unit and role as metadata.
- ``traces/run-NNNNNN.npz`` while running and ``traces.parquet`` at the end
  (``--traces``): the traced signals of every successful run, one row per
  kept communication point, with the run number.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from sweep.design import Study
from sweep.summaries import summary_unit

JOURNAL = "runs.jsonl"


def read_journal(out: Path) -> dict[str, dict]:
    """Finished runs by key (the last line of a key wins)."""
    path = Path(out) / JOURNAL
    done = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash of the client: that run is redone
            done[record["key"]] = record
    return done


class Journal:
    def __init__(self, out: Path, traces: bool):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.out / JOURNAL, "a")
        self.traces = traces

    def add(self, run: dict, result: dict) -> dict:
        record = {
            "index": run["index"],
            "key": run["key"],
            "status": result["status"],
            "error": result["error"],
            "values": run["values"],
            "summaries": result["summaries"],
            "counters": result.get("counters", {}),
            "steps": result.get("steps", 0),
            "wall_s": result.get("wall_s", 0.0),
        }
        if self.traces and result.get("traces") is not None:
            folder = self.out / "traces"
            folder.mkdir(exist_ok=True)
            np.savez(folder / f"run-{run['index']:06d}.npz", **result["traces"])
        self.handle.write(json.dumps(record) + "\n")
        self.handle.flush()
        return record

    def close(self) -> None:
        self.handle.close()


def _columns(study: Study, records: list[dict]) -> tuple[dict, dict]:
    """Column name -> values, and column name -> metadata."""
    info = study.info
    columns: dict[str, list] = {"run": [], "status": [], "error": []}
    meta: dict[str, dict] = {"run": {"role": "run"}, "status": {"role": "status"}, "error": {"role": "status"}}
    for f in study.factors:
        columns[f.name] = []
        meta[f.name] = {"role": "factor", "unit": f.si_unit, "design_unit": f.unit}
    for k in study.keep:
        columns[k.name] = []
        unit = summary_unit(k.summary, info.variables[k.signal].unit)
        meta[k.name] = {"role": "summary", "unit": unit, "signal": k.signal, "summary": k.summary}
    counters = sorted({c for r in records for c in r.get("counters", {})})
    for c in counters + ["steps", "wall_s"]:
        columns[c] = []
        meta[c] = {"role": "counter" if c != "wall_s" else "measurement", "unit": "s" if c == "wall_s" else ""}
    for r in records:
        columns["run"].append(r["index"])
        columns["status"].append(r["status"])
        columns["error"].append(r["error"])
        for f in study.factors:
            columns[f.name].append(r["values"][f.name])
        for k in study.keep:
            v = r["summaries"].get(k.name)
            columns[k.name].append(math.nan if v is None else float(v))
        for c in counters:
            columns[c].append(r.get("counters", {}).get(c, -1))
        columns["steps"].append(r.get("steps", 0))
        columns["wall_s"].append(r.get("wall_s", 0.0))
    return columns, meta


def write_results(study: Study, records: list[dict], out: Path) -> tuple[Path, Path]:
    """``results.parquet`` and ``results.csv`` from the records of the
    design's runs (sorted by run)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = sorted(records, key=lambda r: r["index"])
    columns, meta = _columns(study, records)
    fields, arrays = [], []
    for name, values in columns.items():
        array = pa.array(values)
        fields.append(pa.field(name, array.type, metadata={k: str(v) for k, v in meta[name].items()}))
        arrays.append(array)
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata={
        "design": str(study.path), "fmu": str(study.fmu), "fmu_sha256": study.fmu_sha256, "title": study.title}))
    parquet = Path(out) / "results.parquet"
    pq.write_table(table, parquet)
    table_csv = Path(out) / "results.csv"
    with open(table_csv, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")  # floats as repr: they read back exactly
        writer.writerow(columns)
        writer.writerows(zip(*columns.values()))
    return parquet, table_csv


def write_traces(study: Study, records: list[dict], out: Path) -> Path | None:
    """Gather the per-run trace files of the successful runs into
    ``traces.parquet`` (columns ``run``, ``time`` and the traced signals)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(out) / "traces"
    parts = []
    for r in sorted(records, key=lambda r: r["index"]):
        path = folder / f"run-{r['index']:06d}.npz"
        if r["status"] != "ok" or not path.is_file():
            continue
        with np.load(path) as data:
            n = len(data["time"])
            columns = {"run": pa.array(np.full(n, r["index"], dtype=np.int64)), "time": pa.array(data["time"])}
            for name in study.traces:
                columns[name] = pa.array(data[name])
        parts.append(pa.table(columns))
    if not parts:
        return None
    table = pa.concat_tables(parts)
    units = {name: study.info.variables[name].unit for name in study.traces}
    table = table.replace_schema_metadata({"units": json.dumps({"time": "s", **units}), "design": str(study.path)})
    path = Path(out) / "traces.parquet"
    pq.write_table(table, path)
    return path
