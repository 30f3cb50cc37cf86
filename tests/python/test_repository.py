"""The repository stands alone: no tracked file reads, links or points to
material outside it (the team's folder beside the checkout, with its model
notes and source papers). A user clones only the repository, so such a
reference is a broken link or, in a script, a FileNotFoundError.

The files are the ones ``git ls-files`` lists; outside a git checkout (an
unpacked source archive) the tree is walked instead, skipping ``.git/``,
``target/`` and ``dist/``. Binary files (a NUL byte in their first 8 KiB)
are skipped. Every offending file and line is named.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# Built from parts so that this file does not match itself.
_SHARED = "shared"
FORBIDDEN = re.compile(
    "|".join(
        re.escape(p)
        for p in (
            "../" + _SHARED,
            _SHARED + "/models",
            _SHARED + "/seeds",
        )
    )
)
SKIPPED_DIRS = {".git", "target", "dist", "__pycache__"}


def tracked_files(root: Path, use_git: bool = True) -> list[Path]:
    """The files git tracks under ``root``; the walked tree when ``root`` is
    not a git checkout, git is missing or ``use_git`` is false."""
    out = None
    if use_git:
        try:
            out = subprocess.run(
                ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            out = None
    if out is not None:
        return [root / name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        files.extend(Path(folder) / n for n in sorted(names))
    return files


def offending_lines(files: list[Path], root: Path) -> list[str]:
    """``path:line: text`` for every line of a text file that matches."""
    found = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:  # deleted in the work tree but still tracked, a dangling link, ...
            continue
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if FORBIDDEN.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()[:160]}")
    return found


def test_no_tracked_file_points_outside_the_repository():
    found = offending_lines(tracked_files(REPO_ROOT), REPO_ROOT)
    assert not found, (
        f"{len(found)} line(s) point to material outside the repository "
        "(commit the data, or describe it in the project's own words):\n" + "\n".join(found)
    )


def test_the_check_finds_a_pointer_and_skips_binaries(tmp_path):
    """The scan itself works: outside a git checkout it walks the tree, names
    the file and line, skips binaries and the build folders."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("fine\nsee ../" + _SHARED + "/models/x.md\n")
    (tmp_path / "data.bin").write_bytes(b"\0\1" + (_SHARED + "/seeds").encode())
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "log.txt").write_text(_SHARED + "/models\n")
    (tmp_path / "clean.py").write_text("print('shared by two models')\n")
    found = offending_lines(tracked_files(tmp_path, use_git=False), tmp_path)
    assert found == [f"{Path('docs') / 'notes.md'}:2: see ../{_SHARED}/models/x.md"], found
