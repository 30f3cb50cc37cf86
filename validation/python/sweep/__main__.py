"""``python -m sweep``: see cli.py."""

import sys

from sweep.cli import main

sys.exit(main())
