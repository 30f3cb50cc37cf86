"""Value references are positions, in every built FMU and both FMI versions:
the variable at the 1-based position p of ModelVariables has value
reference p. A master that reads FMI 3's `derivative` attribute (or any
other reference to a variable) as a value reference and one that reads it
as a position, as OpenModelica's OMSimulator does, then find the same
variable; FMI 2's `derivative` and ModelStructure indices, which are
positions by the standard, name the same variables as the references."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from fmu_harness import BUILD_HINT, DIST

FMUS = sorted((DIST / "fmi2").glob("*.fmu")) + sorted((DIST / "fmi3").glob("*.fmu"))
FMI3_TYPES = {"Float32", "Float64", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64",
              "UInt64", "Boolean", "String", "Binary", "Enumeration", "Clock"}


def variables(root: ET.Element, version: int) -> list[ET.Element]:
    mv = root.find("ModelVariables")
    assert mv is not None
    if version == 2:
        return mv.findall("ScalarVariable")
    return [v for v in mv if v.tag in FMI3_TYPES]


def test_every_fmu_is_checked():
    # Fourteen circuits, each in both FMI versions.
    assert len(FMUS) >= 28, f"found {len(FMUS)} FMUs in {DIST}: {BUILD_HINT}"


@pytest.mark.parametrize("path", FMUS, ids=lambda p: f"{p.stem}/{p.parent.name}")
def test_value_references_are_positions(path: Path):
    version = 2 if path.parent.name == "fmi2" else 3
    with zipfile.ZipFile(path) as zf:
        root = ET.fromstring(zf.read("modelDescription.xml"))
    vars_ = variables(root, version)
    assert vars_, "no variables"
    wrong = [(p, v.get("name"), v.get("valueReference")) for p, v in enumerate(vars_, start=1)
             if int(v.get("valueReference")) != p]
    assert not wrong, f"(position, name, value reference) that differ: {wrong[:5]}"

    # Every `derivative` names a continuous state, read either way.
    by_position = {p: v for p, v in enumerate(vars_, start=1)}
    derivatives = 0
    for v in vars_:
        attr = (v.find("Real") if version == 2 else v)
        ref = attr.get("derivative") if attr is not None else None
        if ref is None:
            continue
        derivatives += 1
        state = by_position[int(ref)]
        assert state.get("variability", "continuous") == "continuous", (v.get("name"), state.get("name"))
        name = v.get("name")
        assert name == f"der({state.get('name')})", f"{name} points to {state.get('name')}"
    structure = root.find("ModelStructure")
    assert structure is not None
    if version == 2:
        listed = structure.find("Derivatives")
        n = len(listed.findall("Unknown")) if listed is not None else 0
        refs = [int(u.get("index")) for u in structure.iter("Unknown")]
    else:
        n = len(structure.findall("ContinuousStateDerivative"))
        refs = [int(u.get("valueReference")) for u in structure]
    assert derivatives == n, "every listed state derivative has a `derivative` attribute"
    assert all(1 <= r <= len(vars_) for r in refs), "ModelStructure refers to a position that does not exist"
    # The independent variable is a variable like the others.
    time = [v for v in vars_ if v.get("causality") == "independent"]
    assert [v.get("name") for v in time] == ["time"]
