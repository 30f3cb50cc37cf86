"""The JSON Schema of circuit description files
(components/circuits/circuit-file/circuit.schema.json, written from the
part registry) is what an editor checks a description against: the example
description must pass it, and the mistakes an editor should underline
(a misspelt parameter, a part type that does not exist, a required
parameter left out, an unknown section) must not.
"""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
CRATE = ROOT / "components" / "circuits" / "circuit-file"


@pytest.fixture(scope="module")
def schema() -> dict:
    with open(CRATE / "circuit.schema.json", encoding="utf-8") as f:
        s = json.load(f)
    jsonschema.Draft7Validator.check_schema(s)
    return s


@pytest.fixture(scope="module")
def example() -> dict:
    with open(CRATE / "examples" / "pump_relief.toml", "rb") as f:
        return tomllib.load(f)


def test_the_example_description_passes_the_schema(schema, example):
    jsonschema.validate(example, schema)


def _broken(example: dict, how: str) -> dict:
    doc = copy.deepcopy(example)
    part = next(iter(doc["parts"].values()))
    if how == "misspelt parameter":
        part["no_such_parameter"] = "1 bar"
    elif how == "unknown type":
        part["type"] = "Chamer"
    elif how == "required parameter missing":
        chamber = next(p for p in doc["parts"].values() if p["type"] == "Chamber")
        del chamber["V"]
    elif how == "unknown section":
        doc["output"] = []
    elif how == "node of one port":
        doc["nodes"][0]["ports"] = doc["nodes"][0]["ports"][:1]
    return doc


@pytest.mark.parametrize(
    "how",
    [
        "misspelt parameter",
        "unknown type",
        "required parameter missing",
        "unknown section",
        "node of one port",
    ],
)
def test_mistakes_fail_the_schema(schema, example, how):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_broken(example, how), schema)
