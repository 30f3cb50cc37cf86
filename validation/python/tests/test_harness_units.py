"""Display units for the report's plots, read from a model description:
each signal in its display unit (bar for Pa, L/min for m3/s, degC for K),
the SI unit where none is declared."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.fmu_info import DisplayScale, read_fmu_info  # noqa: E402

UNITS = """
  <UnitDefinitions>
    <Unit name="Pa"><BaseUnit kg="1" m="-1" s="-2"/><DisplayUnit name="bar" factor="1e-5"/></Unit>
    <Unit name="m3/s"><BaseUnit m="3" s="-1"/><DisplayUnit name="L/min" factor="60000.0"/></Unit>
    <Unit name="K"><BaseUnit K="1"/><DisplayUnit name="degC" offset="-273.15"/></Unit>
    <Unit name="N"><BaseUnit kg="1" m="1" s="-2"/></Unit>
  </UnitDefinitions>"""

FMI2 = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="Toy" guid="{{x}}">{UNITS}
  <ModelVariables>
    <ScalarVariable name="p" valueReference="1" causality="output"><Real unit="Pa" displayUnit="bar"/></ScalarVariable>
    <ScalarVariable name="Q" valueReference="2" causality="output"><Real unit="m3/s" displayUnit="L/min"/></ScalarVariable>
    <ScalarVariable name="T" valueReference="3" causality="parameter"><Real unit="K" displayUnit="degC" start="300"/></ScalarVariable>
    <ScalarVariable name="F" valueReference="4" causality="output"><Real unit="N"/></ScalarVariable>
    <ScalarVariable name="k" valueReference="5" causality="output"><Real/></ScalarVariable>
  </ModelVariables>
</fmiModelDescription>"""

FMI3 = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Toy" instantiationToken="{{x}}">{UNITS}
  <ModelVariables>
    <Float64 name="p" valueReference="1" causality="output" unit="Pa" displayUnit="bar"/>
    <Float64 name="Q" valueReference="2" causality="output" unit="m3/s" displayUnit="L/min"/>
    <Float64 name="T" valueReference="3" causality="parameter" unit="K" displayUnit="degC" start="300"/>
    <Float64 name="F" valueReference="4" causality="output" unit="N"/>
    <Float64 name="k" valueReference="5" causality="output"/>
  </ModelVariables>
</fmiModelDescription>"""


@pytest.mark.parametrize("xml", [FMI2, FMI3], ids=["fmi2", "fmi3"])
def test_display_scales_come_from_the_model_description(tmp_path, xml):
    fmu = tmp_path / "Toy.fmu"
    with zipfile.ZipFile(fmu, "w") as archive:
        archive.writestr("modelDescription.xml", xml)
    info = read_fmu_info(fmu)
    assert info.display_scale("p") == DisplayScale("bar", 1e-5, 0.0)
    assert info.display_scale("Q") == DisplayScale("L/min", 60000.0, 0.0)
    t = info.display_scale("T")
    assert t.label == "degC" and t.factor * 300.0 + t.offset == pytest.approx(26.85)
    assert info.display_scale("F") == DisplayScale("N")  # SI unit, no display unit declared
    assert info.display_scale("k") == DisplayScale("1")  # no unit at all
    assert info.display_scale("missing") == DisplayScale("1")
