"""Validation harness: runs every circuit FMU in several FMI masters against
the reference traces of its scenarios and writes verdicts and a report.

Nothing here knows a model: a model takes part by having scenario folders
under ``validation/scenarios/<Model>/<scenario>/`` (FMI Cross-Check layout plus
``scenario.json``) and FMUs named ``<Model>.fmu`` in ``dist/fmi2`` and
``dist/fmi3``. See ``README.md`` beside this file.
"""

from pathlib import Path

#: Root of the repository (the folder with the workspace ``Cargo.toml``).
REPO_ROOT = Path(__file__).resolve().parents[3]

#: Folder that must be on ``sys.path`` (``PYTHONPATH``) to import ``harness``.
PYTHON_ROOT = Path(__file__).resolve().parents[1]
