"""FMI 3 terminals and icons of every FMI 3 FMU in dist/fmi3:
terminalsAndIcons/terminalsAndIcons.xml is valid against the standard's
schema (FMPy's copy of fmi3TerminalsAndIcons.xsd), every member names a
variable a terminal may hold, with the unit its terminal kind asks for, the
icons are PNG images of the declared size, and the ports of FMUs that are
meant to be connected match by member name (matchingRule plug)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from fmu_harness import DIST

FMUS = sorted((DIST / "fmi3").glob("*.fmu"))

#: Member name -> unit, per terminal kind (the project's two kinds).
KINDS = {
    "_fluidfmu_HydraulicPort": {"p": "Pa", "q": "m3/s"},
    "_fluidfmu_TranslationalFlange": {"s": "m", "v": "m/s", "f": "N"},
}
ALLOWED_CAUSALITY = {"input", "output", "parameter", "calculatedParameter"}


def schema():
    import fmpy
    import xmlschema

    xsd = Path(fmpy.__file__).parent / "schema" / "fmi3" / "fmi3TerminalsAndIcons.xsd"
    return xmlschema.XMLSchema(str(xsd))


def read(fmu: Path):
    with zipfile.ZipFile(fmu) as zf:
        names = set(zf.namelist())
        md = ET.fromstring(zf.read("modelDescription.xml"))
        tai = zf.read("terminalsAndIcons/terminalsAndIcons.xml")
        files = {n: zf.read(n) for n in names if n.startswith("terminalsAndIcons/")}
    variables = {v.get("name"): v for v in md.find("ModelVariables")}
    return variables, tai, files


def png_size(data: bytes):
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    image.load()  # decodes every pixel (checks the CRCs and the zlib stream)
    return image.size, image


def terminals(tai: bytes):
    root = ET.fromstring(tai)
    group = root.find("Terminals")
    return [] if group is None else list(group.findall("Terminal"))


def test_there_are_fmi3_fmus():
    assert FMUS, f"no FMUs in {DIST / 'fmi3'}: run `cargo run --release -p build-fmu`"


@pytest.mark.parametrize("fmu", FMUS, ids=[f.stem for f in FMUS])
def test_terminals_and_icons(fmu: Path):
    variables, tai, files = read(fmu)
    errors = list(schema().iter_errors(io.BytesIO(tai)))
    assert not errors, f"{fmu.name}: terminalsAndIcons.xml is not valid: {errors[0]}"

    (w, h), icon = png_size(files["terminalsAndIcons/icon.png"])
    assert (w, h) == (200, 200)
    assert len(icon.getcolors(1 << 16)) > 2, "the icon is blank"
    assert b"<svg" in files["terminalsAndIcons/icon.svg"]

    names = set()
    for t in terminals(tai):
        name = t.get("name")
        assert name not in names, f"terminal {name} repeated"
        names.add(name)
        assert t.get("matchingRule") == "plug"
        kind = KINDS[t.get("terminalKind")]
        members = {m.get("memberName"): m for m in t.findall("TerminalMemberVariable")}
        assert set(members) == set(kind), f"{name}: members {sorted(members)} instead of {sorted(kind)}"
        for member, unit in kind.items():
            m = members[member]
            var = variables.get(m.get("variableName"))
            assert var is not None, f"{name}.{member}: no variable {m.get('variableName')}"
            assert var.get("causality") in ALLOWED_CAUSALITY, f"{name}.{member}: causality {var.get('causality')}"
            assert var.tag == "Float64" and var.get("unit") == unit, f"{name}.{member}: {var.tag} in {var.get('unit')}"
            expected_kind = {"inflow", "outflow"} if member == "q" else {"signal"}
            assert m.get("variableKind") in expected_kind
        g = t.find("TerminalGraphicalRepresentation")
        base = g.get("iconBaseName")
        (tw, th), _ = png_size(files[f"terminalsAndIcons/{base}.png"])
        assert (tw, th) == (80, 80)
        x1, y1, x2, y2 = (float(g.get(k)) for k in ("x1", "y1", "x2", "y2"))
        assert abs(x2 - x1) == 20 and abs(y2 - y1) == 20
        # outside the icon's -100..100 box, touching it
        assert max(abs(x1), abs(x2), abs(y1), abs(y2)) == 120


def ports(model: str):
    fmu = DIST / "fmi3" / f"{model}.fmu"
    if not fmu.exists():
        pytest.fail(f"{fmu} missing: run `cargo run --release -p build-fmu`")
    _, tai, _ = read(fmu)
    return {t.get("name"): t for t in terminals(tai)}


def member_names(t):
    return sorted(m.get("memberName") for m in t.findall("TerminalMemberVariable"))


@pytest.mark.parametrize(
    "a, b",
    [
        (("ValveActuator", "rod"), ("SlidingMass", "rod")),
        (("FourBarActuator", "rod"), ("FourBarMechanism", "rod")),
        (("HoseY", "port_2"), ("HoseH", "port_1")),
        (("OrificeChain", "P"), ("HoseY", "port_2")),
    ],
    ids=["valve-actuator+sliding-mass", "four-bar", "hose+hose", "orifice-chain+hose"],
)
def test_ports_meant_to_be_connected_match(a, b):
    ta, tb = ports(a[0])[a[1]], ports(b[0])[b[1]]
    assert ta.get("terminalKind") == tb.get("terminalKind")
    assert member_names(ta) == member_names(tb)


def test_models_without_ports_still_have_an_icon():
    _, tai, files = read(DIST / "fmi3" / "FourBar.fmu")
    assert terminals(tai) == []
    assert "terminalsAndIcons/icon.png" in files


def test_fmi2_archives_carry_no_terminals():
    for fmu in sorted((DIST / "fmi2").glob("*.fmu")):
        with zipfile.ZipFile(fmu) as zf:
            assert not any(n.startswith("terminalsAndIcons/") for n in zf.namelist()), fmu.name
