"""Reading a circuit description file (``components/circuits/circuit-file``,
``docs/circuit-files.md``) for a reference script: the parts' parameters in
SI units, with the defaults the documentation's part tables list.

Written from the documentation, not from the Rust reader: a parameter is a
TOML number (SI) or a string ``"<number> <unit>"``, and this module knows the
units the example descriptions use, each with its factor to SI as
docs/circuit-files.md defines it (``rpm`` is 2 pi / 60 rad/s, ``rev`` 2 pi
rad, ``t`` 1000 kg, ``L`` 1e-3 m3). A unit it does not know is an error, not
a guess: add it to ``UNITS`` with its factor.

The scripts import it as a sibling module, like ``reference_common``.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = REPO_ROOT / "components" / "circuits" / "circuit-file" / "examples"

# Units the example descriptions use, with their factor to SI.
UNITS = {
    "": 1.0,
    "1": 1.0,
    "Pa": 1.0,
    "bar": 1e5,
    "m": 1.0,
    "mm": 1e-3,
    "cm2": 1e-4,
    "m2": 1.0,
    "L": 1e-3,
    "cm3": 1e-6,
    "m3": 1.0,
    "L/min": 1e-3 / 60.0,
    "m3/s": 1.0,
    "cm3/rev": 1e-6 / (2.0 * math.pi),
    "kg": 1.0,
    "t": 1e3,
    "kg m2": 1.0,
    "N": 1.0,
    "kN": 1e3,
    "N m": 1.0,
    "N/m": 1.0,
    "N s/m": 1.0,
    "kN s/m": 1e3,
    "N m s/rad": 1.0,
    "s": 1.0,
    "ms": 1e-3,
    "V": 1.0,
    "rad/s": 1.0,
    "rpm": 2.0 * math.pi / 60.0,
    "m3/(s Pa)": 1.0,
    "m3/(s sqrt(Pa))": 1.0,
    "m3/(s V sqrt(Pa))": 1.0,
    "m2/s": 1.0,
    "K": 1.0,
    "kg/m3": 1.0,
}


def quantity(value, where: str = "") -> float:
    """A parameter's value in SI: a TOML number as it is, or ``"<number>
    <unit>"`` times the unit's factor."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: a boolean is not a quantity")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    number, _, unit = text.partition(" ")
    unit = unit.strip()
    if unit not in UNITS:
        raise ValueError(f"{where}: unit {unit!r} of {text!r} is not in circuit_description.UNITS")
    return float(number) * UNITS[unit]


# The defaults of docs/circuit-files.md's part tables (SI) that the
# references rely on.
DEFAULTS = {
    "Tank": {"p_tank": 0.0},
    "Chamber": {"p0": 0.0, "E_max": 1.8e9, "p_max": 2.8e7, "bulk_a1": 0.5, "bulk_a2": 90.0, "bulk_a3": 3.0},
    "Accumulator": {"n": 1.4, "p_atm": 101325.0, "p_band": 1e5, "p_start": 0.0, "E_max": 1.8e9, "p_max": 2.8e7,
                    "bulk_a1": 0.5, "bulk_a2": 90.0, "bulk_a3": 3.0},
    "ChamberCylinder": {"p_A0": 0.0, "p_B0": 0.0, "E_max": 1.8e9, "p_max": 2.8e7, "bulk_a1": 0.5, "bulk_a2": 90.0,
                        "bulk_a3": 3.0},
    "ReliefValve": {"smoothing": 2e4},
    "CounterbalanceValve": {"p_tr": 1e4, "check_g_leak": 0.0},
    "CheckValve": {"p_tr": 1e4, "g_leak": 0.0},
    "Orifice": {"cd": 0.6, "rho": 900.0, "p_tr": 1e4},
    "DirectionalValve": {"p_tr": 1e4},
    "Spool": {"Kv": 1.0},
    "Mass": {"c": 0.0, "F_ext": 0.0, "s0": 0.0, "c_stop": 0.0},
    "FixedDisplacementPump": {"c_leak": 0.0, "b_visc": 0.0, "tau_c": 0.0, "omega_reg": 1.0},
    "FixedDisplacementMotor": {"c_leak": 0.0, "b_visc": 0.0, "tau_c": 0.0, "omega_reg": 1.0},
    "Inertia": {"b": 0.0, "tau_c": 0.0, "omega_reg": 1.0, "tau_load": 0.0, "w0": 0.0},
}


class Description:
    """A description file: its parts (name -> type and SI parameters with
    the defaults filled in), nodes, inputs, outputs and experiment."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.raw = tomllib.loads(self.path.read_text())
        self.name = self.raw["circuit"]["name"]
        self.parts: dict[str, dict] = {}
        self.types: dict[str, str] = {}
        for part, table in self.raw["parts"].items():
            kind = table["type"]
            self.types[part] = kind
            values = dict(DEFAULTS.get(kind, {}))
            for key, value in table.items():
                if key == "type":
                    continue
                # integers stay integers where a part counts something (n)
                values[key] = value if isinstance(value, int) and not isinstance(value, bool) and key == "n" \
                    else quantity(value, f"{self.path.name}: parts.{part}.{key}")
            self.parts[part] = values
        self.nodes = [list(node["ports"]) for node in self.raw.get("nodes", [])]
        self.inputs = list(self.raw.get("inputs", []))
        self.outputs = list(self.raw.get("outputs", []))
        experiment = self.raw.get("experiment", {})
        self.experiment = {k: (quantity(v, f"experiment.{k}") if k != "tolerance" else float(v))
                           for k, v in experiment.items()}

    def part(self, name: str) -> dict:
        return self.parts[name]

    def node_of(self, port: str) -> list[str]:
        """The node holding ``port`` (``part.port``)."""
        for node in self.nodes:
            if port in node:
                return node
        raise KeyError(f"{self.path.name}: port {port} is in no node")

    def output_names(self) -> list[str]:
        return [o["name"] for o in self.outputs]
