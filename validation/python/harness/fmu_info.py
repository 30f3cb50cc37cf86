"""What the runners need from an FMU's ``modelDescription.xml``: its FMI
version and each variable's name, value reference, causality and type; and
what the report needs: each variable's unit and display unit with the
display unit's conversion (``UnitDefinitions``).

Read straight from the archive with the standard library, so that a master's
own parser (which may reject the FMU) is not involved.
"""

from __future__ import annotations

import zipfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

# Type names of FMI 2 (child element of ScalarVariable) and FMI 3 (element name).
REAL_TYPES = {"Real", "Float64", "Float32"}
INTEGER_TYPES = {"Integer", "Enumeration", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64"}
BOOLEAN_TYPES = {"Boolean"}
STRING_TYPES = {"String"}
FMI3_VARIABLE_TAGS = REAL_TYPES | INTEGER_TYPES | BOOLEAN_TYPES | STRING_TYPES | {"Binary", "Clock"}


class FmuInfoError(Exception):
    """The archive or its model description cannot be read."""


@dataclass
class Variable:
    name: str
    value_reference: int
    causality: str
    variability: str
    type: str  # FMI type name as written in the XML (Real, Float64, Boolean, ...)
    unit: str = ""  # SI unit as declared ("Pa", "m3/s", ...), "" when none
    display_unit: str = ""  # display unit as declared ("bar", "L/min", ...), "" when none

    @property
    def kind(self) -> str:
        """'real', 'integer', 'boolean', 'string' or 'other'."""
        if self.type in REAL_TYPES:
            return "real"
        if self.type in INTEGER_TYPES:
            return "integer"
        if self.type in BOOLEAN_TYPES:
            return "boolean"
        if self.type in STRING_TYPES:
            return "string"
        return "other"

    def coerce(self, value):
        """A scenario value (JSON) as the Python type of this variable."""
        kind = self.kind
        if kind == "real":
            return float(value)
        if kind == "integer":
            return int(value)
        if kind == "boolean":
            if isinstance(value, str):
                return value.strip().lower() in ("true", "1")
            return bool(value)
        return str(value)


@dataclass(frozen=True)
class DisplayScale:
    """How to show a variable: ``shown = factor * SI value + offset`` in
    ``label`` (FMI's DisplayUnit conversion; a difference of two values
    scales by ``factor`` alone)."""

    label: str
    factor: float = 1.0
    offset: float = 0.0


@dataclass
class FmuInfo:
    fmi_version: str  # "2.0", "3.0", ...
    model_name: str
    token: str  # FMI 2 guid / FMI 3 instantiationToken
    variables: dict[str, Variable]
    # UnitDefinitions: unit name -> display unit name -> (factor, offset)
    display_units: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)

    def display_scale(self, name: str) -> DisplayScale:
        """The display unit of variable ``name`` with its conversion from SI;
        the SI unit itself when the variable declares no display unit (or an
        unknown one); ``"1"`` for a variable without unit or not in the FMU."""
        var = self.variables.get(name)
        if var is None or not var.unit:
            return DisplayScale("1")
        conversion = self.unit_conversion(name, var.display_unit) if var.display_unit else None
        if conversion is not None:
            return DisplayScale(var.display_unit, *conversion)
        return DisplayScale(var.unit)

    def unit_conversion(self, name: str, unit: str) -> tuple[float, float] | None:
        """``(factor, offset)`` with ``shown = factor * SI + offset`` for
        ``unit``, the SI unit of variable ``name`` or one of that unit's
        display units; None for any other unit."""
        var = self.variables[name]
        if unit == var.unit:
            return (1.0, 0.0)
        return self.display_units.get(var.unit, {}).get(unit)

    def units_of(self, name: str) -> list[str]:
        """The units a value of variable ``name`` may be given in: its SI
        unit, then the display units of that unit."""
        var = self.variables[name]
        return [u for u in [var.unit, *self.display_units.get(var.unit, {})] if u]

    @property
    def major(self) -> int:
        return int(self.fmi_version.split(".")[0])

    def variable(self, name: str) -> Variable:
        try:
            return self.variables[name]
        except KeyError:
            raise FmuInfoError(f"the FMU has no variable {name!r}") from None


def read_fmu_info(fmu: Path) -> FmuInfo:
    """Parse ``modelDescription.xml`` inside the ``.fmu`` archive."""
    try:
        with zipfile.ZipFile(fmu) as archive:
            xml = archive.read("modelDescription.xml")
    except (OSError, KeyError, zipfile.BadZipFile) as err:
        raise FmuInfoError(f"{fmu}: cannot read modelDescription.xml ({err})") from None
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as err:
        raise FmuInfoError(f"{fmu}: modelDescription.xml is not well-formed XML ({err})") from None
    version = root.get("fmiVersion", "")
    token = root.get("guid") or root.get("instantiationToken") or ""
    display_units: dict[str, dict[str, tuple[float, float]]] = {}
    definitions = root.find("UnitDefinitions")
    if definitions is not None:
        for unit in definitions.findall("Unit"):
            display_units[unit.get("name", "")] = {
                d.get("name", ""): (float(d.get("factor", "1")), float(d.get("offset", "0")))
                for d in unit.findall("DisplayUnit")
            }
    variables = {}
    model_variables = root.find("ModelVariables")
    if model_variables is not None:
        for element in model_variables:
            if element.tag == "ScalarVariable":  # FMI 1/2
                typed = next((child for child in element if child.tag in REAL_TYPES | INTEGER_TYPES | BOOLEAN_TYPES | STRING_TYPES), None)
                type_name = typed.tag if typed is not None else "other"
                attributes = typed if typed is not None else element
            elif element.tag in FMI3_VARIABLE_TAGS:  # FMI 3
                type_name = element.tag
                attributes = element
            else:
                continue
            name = element.get("name")
            variables[name] = Variable(
                name=name,
                value_reference=int(element.get("valueReference", "-1")),
                causality=element.get("causality", "local"),
                variability=element.get("variability", "continuous"),
                type=type_name,
                unit=attributes.get("unit", ""),
                display_unit=attributes.get("displayUnit", ""),
            )
    return FmuInfo(version, root.get("modelName", ""), token, variables, display_units)
