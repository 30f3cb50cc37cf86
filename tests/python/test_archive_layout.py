"""Layout of the .fmu archives: the model description, the Linux x86-64
binary in the platform folder of each FMI version (FMI 2: binaries/linux64,
FMI 3: binaries/x86_64-linux) and the documentation."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
import zipfile

import pytest

from fmu_harness import BINARY_FOLDER, FMI_VERSIONS, require_fmu

MODEL = "OrificeChain"
IDS = [f"{MODEL}/fmi{v}" for v in FMI_VERSIONS]

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELF_LITTLE_ENDIAN = 1
ET_DYN = 3
EM_X86_64 = 62


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_archive_layout(version: int):
    fmu = require_fmu(MODEL, version)
    with zipfile.ZipFile(fmu) as zf:
        assert zf.testzip() is None, "corrupt member in the archive"
        names = set(zf.namelist())
        binary = f"{BINARY_FOLDER[version]}/{MODEL}.so"
        required = {"modelDescription.xml", binary, "documentation/index.html"}
        missing = required - names
        assert not missing, f"missing from {fmu.name}: {sorted(missing)}; archive holds {sorted(names)}"

        other = BINARY_FOLDER[3 if version == 2 else 2]
        assert not any(n.startswith(other + "/") for n in names), f"FMI {version} archive has the other version's {other}/"
        assert not any("\\" in n for n in names), "backslash in an archive path"

        root = ET.fromstring(zf.read("modelDescription.xml"))
        assert root.tag == "fmiModelDescription"
        assert root.get("fmiVersion", "").split(".")[0] == str(version), f"fmiVersion {root.get('fmiVersion')}"
        (cosim,) = root.findall("CoSimulation")
        assert cosim.get("modelIdentifier") == MODEL, "the binary must be named after the modelIdentifier"

        header = zf.read(binary)[:64]
        assert header[:4] == ELF_MAGIC, f"{binary} is not an ELF file"
        assert header[4] == ELFCLASS64 and header[5] == ELF_LITTLE_ENDIAN, f"{binary} is not 64-bit little-endian ELF"
        e_type, e_machine = struct.unpack_from("<HH", header, 16)
        assert e_type == ET_DYN, f"{binary} is not a shared object (e_type {e_type})"
        assert e_machine == EM_X86_64, f"{binary} is not x86-64 (e_machine {e_machine})"

        doc = zf.read("documentation/index.html").decode("utf-8", errors="replace")
        assert "<html" in doc.lower() and MODEL in doc, "documentation/index.html does not document the model"
