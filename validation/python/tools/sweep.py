"""Launcher of the sweep tool: ``target/venv/bin/python validation/python/tools/sweep.py
run DESIGN.toml`` is ``python -m sweep run DESIGN.toml`` with ``validation/python``
on the path (``--help`` lists the commands and options)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sweep.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
