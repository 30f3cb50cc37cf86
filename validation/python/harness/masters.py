"""The runner table: every FMI master the harness drives, and its command line.

Each runner is a separate process following the protocol of README.md
(``<command> --fmu PATH --scenario DIR --step H --out RESULT.csv
--fmi-version 2|3``). The table says nothing about models.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from harness import REPO_ROOT


@dataclass
class Master:
    """One FMI master behind the runner protocol."""

    name: str
    command: list[str]  # program and its leading arguments
    fmi_versions: tuple[int, ...]  # what the master is expected to run (documentation only)
    build_hint: str = ""  # how to build the program when it is missing

    @property
    def model_exchange(self) -> bool:
        """Whether the master imports the FMUs as Model Exchange (its
        name ends in ``-me``)."""
        return self.name.endswith("-me")

    def missing_program(self) -> str | None:
        """Why the runner cannot be started, or None."""
        program = Path(self.command[0])
        if program.is_absolute() or "/" in self.command[0]:
            if not program.is_file():
                hint = f" (build it: {self.build_hint})" if self.build_hint else ""
                return f"runner not built: {program} does not exist{hint}"
        return None


def python_runner(name: str, fmi_versions: tuple[int, ...]) -> Master:
    module = name.replace("-", "_")
    return Master(name, [sys.executable, "-m", f"harness.runners.{module}"], fmi_versions)


def default_masters() -> list[Master]:
    """The masters the harness runs, in report order."""
    return [
        Master(
            "fmi-rs",
            [str(REPO_ROOT / "target" / "release" / "fmi-runner")],
            (2, 3),
            "cargo build --release -p validation --bin fmi-runner",
        ),
        Master(
            "fmi-rs-me",
            [str(REPO_ROOT / "target" / "release" / "fmi-runner"), "--model-exchange"],
            (2, 3),
            "cargo build --release -p validation --bin fmi-runner",
        ),
        python_runner("fmpy", (2, 3)),
        python_runner("ecospy", (2, 3)),
        python_runner("libcosimpy", (2,)),
    ]


def extra_masters() -> list[Master]:
    """Masters run only when named with ``--master``: FMPy as a Model
    Exchange master (``fmpy-me``, its CVODE integrates the FMUs'
    derivatives; about 3 minutes for every scenario in both FMI versions,
    so the test command runs it for FMI 3 in a stage of its own)."""
    return [python_runner("fmpy-me", (2, 3))]


def apply_overrides(masters: list[Master], overrides: list[str]) -> list[Master]:
    """``NAME=COMMAND`` replaces a master's command line (or adds a master)."""
    by_name = {m.name: m for m in masters}
    for override in overrides:
        name, sep, command = override.partition("=")
        if not sep or not name or not command.strip():
            raise ValueError(f"--runner expects NAME=COMMAND, got {override!r}")
        if name in by_name:
            by_name[name].command = shlex.split(command)
        else:
            master = Master(name, shlex.split(command), (2, 3))
            masters.append(master)
            by_name[name] = master
    return masters
