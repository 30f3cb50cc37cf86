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


#: The other platforms' binaries build-fmu puts beside Linux x86-64 (when the
#: cross targets are installed, as the test command makes sure): folder per
#: FMI version, file suffix and what the file must be.
CROSS_BINARIES = {
    "x86_64-windows": ({2: "binaries/win64", 3: "binaries/x86_64-windows"}, ".dll", "pe-x86-64"),
    "aarch64-linux": ({2: "binaries/aarch64-linux", 3: "binaries/aarch64-linux"}, ".so", "elf-aarch64"),
}
EM_AARCH64 = 183
IMAGE_FILE_MACHINE_AMD64 = 0x8664
IMAGE_FILE_DLL = 0x2000


def binary_kind(data: bytes) -> str:
    """'elf-x86-64', 'elf-aarch64', 'pe-x86-64' or a description of what else it is."""
    if data[:4] == ELF_MAGIC:
        if data[4] != ELFCLASS64 or data[5] != ELF_LITTLE_ENDIAN:
            return "ELF but not 64-bit little-endian"
        e_type, e_machine = struct.unpack_from("<HH", data, 16)
        if e_type != ET_DYN:
            return f"ELF of type {e_type}, not a shared object"
        return {EM_X86_64: "elf-x86-64", EM_AARCH64: "elf-aarch64"}.get(e_machine, f"ELF for machine {e_machine}")
    if data[:2] == b"MZ":
        (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
        if data[pe_offset : pe_offset + 4] != b"PE\0\0":
            return "MZ file without a PE header"
        machine, _, _, _, _, _, characteristics = struct.unpack_from("<HHIIIHH", data, pe_offset + 4)
        if not characteristics & IMAGE_FILE_DLL:
            return "PE file that is not a DLL"
        return "pe-x86-64" if machine == IMAGE_FILE_MACHINE_AMD64 else f"PE for machine {machine:#x}"
    return "neither ELF nor PE"


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
@pytest.mark.parametrize("platform", sorted(CROSS_BINARIES))
def test_cross_platform_binaries(version: int, platform: str):
    folders, suffix, kind = CROSS_BINARIES[platform]
    fmu = require_fmu(MODEL, version)
    with zipfile.ZipFile(fmu) as zf:
        binary = f"{folders[version]}/{MODEL}{suffix}"
        assert binary in zf.namelist(), f"{fmu.name} has no {binary} (are the Rust target and cross linker installed?)"
        assert binary_kind(zf.read(binary)) == kind
        # Stripped of debug info: far below the 7 MB that line tables take.
        assert zf.getinfo(binary).file_size < 4_000_000, f"{binary} is {zf.getinfo(binary).file_size} bytes"


def test_binary_kind_tells_formats_apart():
    elf = bytearray(64)
    elf[:6] = ELF_MAGIC + bytes([ELFCLASS64, ELF_LITTLE_ENDIAN])
    struct.pack_into("<HH", elf, 16, ET_DYN, EM_AARCH64)
    assert binary_kind(bytes(elf)) == "elf-aarch64"
    struct.pack_into("<HH", elf, 16, ET_DYN, EM_X86_64)
    assert binary_kind(bytes(elf)) == "elf-x86-64"
    pe = bytearray(256)
    pe[:2] = b"MZ"
    struct.pack_into("<I", pe, 0x3C, 0x80)
    pe[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", pe, 0x84, IMAGE_FILE_MACHINE_AMD64, 1, 0, 0, 0, 0xF0, IMAGE_FILE_DLL)
    assert binary_kind(bytes(pe)) == "pe-x86-64"
    struct.pack_into("<HHIIIHH", pe, 0x84, IMAGE_FILE_MACHINE_AMD64, 1, 0, 0, 0, 0xF0, 0)
    assert binary_kind(bytes(pe)) == "PE file that is not a DLL"
    assert binary_kind(b"hello") == "neither ELF nor PE"
