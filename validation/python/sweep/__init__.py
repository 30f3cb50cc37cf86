"""Sweeps, Monte Carlo and designs of experiments over the project's FMUs.

One design file (TOML, see README.md beside this file) names the FMU, the
settings every run shares, the varied factors and the design that picks
their values, and the summary quantities to keep. ``python -m sweep run
DESIGN.toml`` runs it serially in this process or on Dask (a local cluster,
or any scheduler by address) with the same results, bit for bit; results go
to one Parquet table (and CSV) with one row per run, a run journal that lets
an interrupted sweep resume, optional traces and a summary plot.

Nothing here knows a model: the FMU's own ``modelDescription.xml`` gives the
variables, their units and display units.
"""

from pathlib import Path

#: Root of the repository (the folder with the workspace ``Cargo.toml``).
REPO_ROOT = Path(__file__).resolve().parents[3]

#: Folder that must be on ``sys.path`` to import ``sweep`` and ``harness``.
PYTHON_ROOT = Path(__file__).resolve().parents[1]
