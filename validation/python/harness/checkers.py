"""The FMU checkers, one verdict per FMU file: ``fmpy validate X.fmu`` and
``fmutool -input X.fmu -check`` (fmu-manipulation-toolbox).

Passed when the checker exits 0 and reports no problem (FMPy: "No problems
found."; fmutool: no ``ERROR`` line); failed otherwise.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Checker:
    name: str
    program: str  # console script installed in the venv beside the interpreter

    def command(self, fmu: Path) -> list[str]:
        program = str(Path(sys.executable).parent / self.program)
        if self.name == "fmpy-validate":
            return [program, "validate", str(fmu)]
        return [program, "-input", str(fmu), "-check"]

    def missing_program(self) -> str | None:
        program = Path(sys.executable).parent / self.program
        return None if program.is_file() else f"checker not installed: {program}"

    def problems(self, exit_code: int, output: str) -> list[str]:
        """Problems reported by the checker's output and exit code."""
        problems = []
        if self.name == "fmpy-validate":
            if exit_code != 0 or "No problems found" not in output:
                problems = [line.strip() for line in output.splitlines() if line.strip() and "problems were found" not in line]
        else:
            problems = [line.split("|", 1)[-1].strip() for line in output.splitlines() if "ERROR" in line]
        if exit_code != 0 and not problems:
            problems = [f"exit code {exit_code}"]
        return problems


CHECKERS = [Checker("fmpy-validate", "fmpy"), Checker("fmutool-check", "fmutool")]
