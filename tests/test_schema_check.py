"""The compiled schema check (core/model/schemacheck.py) gives jsonschema's answer, and the loader's item-by-item
validation gives jsonschema's diagnostics: compared on the samples, on hand-picked corner cases of the keywords and
on fuzzed documents of every mutant kind (core/robustness/fuzz.py)."""
from __future__ import annotations

import copy
import json
import random

import jsonschema
import pytest

from conftest import SAMPLES
from mechstudio.core.robustness.fuzz import make_mutant, sample_documents
from mechstudio.core.model.io import parse_json, schema, schema_errors
from mechstudio.core.model.migrate import migrate
from mechstudio.core.model.schemacheck import CompiledSchema

N_FUZZED = 600


@pytest.fixture(scope="module")
def validator():
    return jsonschema.Draft202012Validator(schema())


@pytest.fixture(scope="module")
def compiled(validator):
    return CompiledSchema(schema(), lambda: validator)


def test_the_model_schema_compiles_without_handing_anything_to_jsonschema(compiled):
    assert compiled.delegated == []


def diagnostics_of(errors):
    return sorted({("/".join(map(str, path)), e.message) for path, e in errors})


def test_samples_and_fuzzed_documents_get_jsonschemas_answer_and_diagnostics(compiled, validator):
    docs = sample_documents(SAMPLES)
    names = sorted(docs)
    documents = list(docs.values())
    for k in range(N_FUZZED):
        rng = random.Random(k)
        kind = ("structural", "absurd", "bombs", "bytes")[k % 4]
        mutant, _ = make_mutant(kind, docs[rng.choice(names)], rng)
        if isinstance(mutant, bytes):
            try:
                mutant = parse_json(mutant.decode("utf-8"))
            except Exception:  # noqa: BLE001 - a mutant that is no JSON has nothing to validate
                continue
        documents.append(mutant)
    valid = 0
    for doc in documents:
        if isinstance(doc, dict) and isinstance(doc.get("version"), int) and doc.get("version") == 1:
            doc = migrate(doc)
        expected = validator.is_valid(doc)
        assert compiled(doc) == expected, json.dumps(doc)[:300]
        valid += expected
        full = [(tuple(e.absolute_path), e) for e in validator.iter_errors(doc)]
        assert diagnostics_of(schema_errors(doc)) == diagnostics_of(full), json.dumps(doc)[:300]
    assert valid > len(documents) // 10 and len(documents) - valid > len(documents) // 3


@pytest.mark.parametrize("edit", [
    lambda d: d.update(version=1.0),  # an integer in JSON Schema
    lambda d: d.update(version=True),  # not one
    lambda d: d["bodies"][0].update(mass=True),  # a bool is no number
    lambda d: d["bodies"][0].update(mass=0),
    lambda d: d["bodies"][0].update(name="bar\n"),
    lambda d: d["bodies"][0].update(name="x" * 80),
    lambda d: d["bodies"][0].update(name="x" * 81),
    lambda d: d["bodies"][0].update(name=""),
    lambda d: d["bodies"][0].update(inertia=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]),  # the other oneOf branch
    lambda d: d["bodies"][0].update(inertia=[[1, 0, 0], [0, 1, 0]]),
    lambda d: d["bodies"][0]["initial"].update(hold=["x", "x"]),  # uniqueItems
    lambda d: d["bodies"][0]["initial"].update(hold=["x", "y"]),
    lambda d: d["bodies"][0]["initial"].update(hold=[1, 1.0]),
    lambda d: d["joints"][0].update(type="prismatic"),  # if/then: the prismatic branch wants an axis
    lambda d: d["joints"][0].pop("type"),  # no type: every "if" holds, so every "then" applies
    lambda d: d["joints"][0].update(point2=[0.0, 0.0, 0.0, 0.0]),
    lambda d: d.update(kind="planar "),
    lambda d: d.update(simulation={"formulation": 3}),
    lambda d: d.update(quasi_velocities={"alternatives": {"auto": {"choice": []}}}),  # propertyNames + not
    lambda d: d.update(quasi_velocities={"choice": [{"name": "u", "coefficients": {"bar.x": 1},
                                                      "expression": "d(bar.x)"}]}),  # oneOf: both
    lambda d: d.update(drivers=[{"name": "m", "type": "coordinate", "body": "bar", "coordinate": "phi",
                                 "function": {"type": "harmonic", "amplitude": 1}}]),
    lambda d: d.update(bodies={}),
    lambda d: d.update(extra=1),
])
def test_corner_cases_of_the_keywords(compiled, validator, edit):
    doc = json.loads((SAMPLES / "pendulum.json").read_text())
    edit(doc)
    assert compiled(doc) == validator.is_valid(copy.deepcopy(doc))
    full = [(tuple(e.absolute_path), e) for e in validator.iter_errors(doc)]
    assert diagnostics_of(schema_errors(doc)) == diagnostics_of(full)


def test_a_keyword_the_compiler_does_not_know_is_handed_to_jsonschema():
    root = {"type": "object", "properties": {"a": {"multipleOf": 3}, "b": {"type": "string", "format": "email"}}}
    compiled = CompiledSchema(root)
    assert compiled({"a": 9, "b": "x"}) and not compiled({"a": 10}) and not compiled({"b": 1})
    assert compiled.delegated == ["#/properties/a", "#/properties/b"]


def test_a_valid_model_loads_without_importing_jsonschema():
    """jsonschema words the diagnostics of what the compiled check rejects; a valid model never needs it, so a
    command's start-up does not pay for its import (a fresh interpreter: this one has imported it)."""
    import subprocess
    import sys
    from mechstudio.core.model.samples import sample_path
    code = ("import sys; from mechstudio.core.model import load_model; load_model(sys.argv[1]); "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(sample_path("four_bar"))], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False"]
