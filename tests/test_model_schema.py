"""The model schema's element branches are the element types' field declarations, and a declaration that loses
a field is caught by name.

core/model/schema.json holds everything but the element types; core/model/schema.py adds each section's type enum
and one branch per type from core/elements/<type>.py. Checked here: the schema the loader validates with has, for
every registered type, exactly the branch its fields declare (and no other branch); every field of every
element of the sample models and of the registry fixtures is declared by its type, and every declared field is
used by one of them; so removing one field's declaration makes a test fail with a message naming the element
and the field (checked for every field of every type).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from mechstudio.core.elements import SECTIONS, element_names, element_type, element_types
from mechstudio.core.elements.base import Fields
from mechstudio.core.model import entities, model_from_data
from mechstudio.core.model.io import schema
from mechstudio.core.model.schema import DEFINITIONS, base_schema
from spatial_joint_models import every_field_model
from test_element_registry import ELEMENT_ITEMS, GROUND_VARIANTS, VARIANT_SUPPORT

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "sample_models").rglob("*.json")
                 if '"mechanism-studio-model"' in p.read_text(encoding="utf-8"))


def branches(section: str) -> dict[str, dict]:
    """type -> its 'then' branch, from the schema the loader validates with."""
    out = {}
    for branch in schema()["$defs"][DEFINITIONS[section]]["allOf"]:
        out[branch["if"]["properties"]["type"]["const"]] = branch["then"]
    return out


@pytest.mark.parametrize("section", SECTIONS)
def test_schema_branches_are_the_declarations(section):
    found = branches(section)
    assert sorted(found) == sorted(element_names(section))
    assert schema()["$defs"][DEFINITIONS[section]]["properties"]["type"]["enum"] == element_names(section)
    for name, then in found.items():
        et = element_type(name, section)
        assert then["additionalProperties"] is False
        assert set(then["properties"]) == {"name", "type"} | set(et.fields.names), name
        assert then["required"] == [f.key for f in et.fields if f.required], name
        for f in et.fields:
            assert then["properties"][f.key] == f.schema(), (name, f.key)
            assert f.doc or f.description(), (name, f.key)


def test_stored_schema_has_no_hand_kept_element_branches():
    for definition in DEFINITIONS.values():
        node = base_schema()["$defs"][definition]
        assert "allOf" not in node and "type" not in node.get("properties", {}), definition


def spherical_moments() -> dict:
    """spherical_chain_3 with joint springs, dampers and a joint torque (the spherical joint's optional fields)."""
    data = json.loads((ROOT / "sample_models" / "spherical_chain_3.json").read_text(encoding="utf-8"))
    data["joints"][0].update(spring=2.0, damping=0.05)
    data["joints"][1].update(torque=[{"type": "harmonic", "amplitude": 0.2, "frequency": 3.0}, 0.05, 0.0])
    return data


#: models beside the samples whose elements use fields the samples leave out
EXTRA_MODELS = {"spherical_chain_3 with joint moments": spherical_moments,
                "spatial joints with every field": every_field_model}


def test_extra_models_load():
    for name, make in EXTRA_MODELS.items():
        model_from_data(make(), f"<{name}>")


def _items() -> list[tuple[str, str, str, dict]]:
    """(where, section, type, item) of every element in the samples, the extra models and the registry
    fixtures (read as JSON: no element type is used to find them)."""
    out = []
    models = [(str(p.relative_to(ROOT)), json.loads(p.read_text(encoding="utf-8"))) for p in SAMPLES]
    models += [(name, make()) for name, make in EXTRA_MODELS.items()]
    for where, data in models:
        out += [(f"{where} /{s}/{i}", s, x["type"], x) for s in SECTIONS for i, x in enumerate(data.get(s, []))]
    for case, (section, support, item) in ELEMENT_ITEMS.items():
        out += [(f"fixture {case}", "joints", j["type"], j) for j in support]
        out.append((f"fixture {case}", section, item["type"], item))
    for case, item in GROUND_VARIANTS.items():
        out += [(f"fixture {case}", "joints", j["type"], j) for j in VARIANT_SUPPORT.get(case, [])]
        out.append((f"fixture {case}", "joints", item["type"], item))
    return out


def undeclared_fields() -> list[str]:
    """A line per field that a sample or fixture element uses and its type does not declare."""
    lines = []
    for where, section, type_, item in _items():
        declared = element_type(type_, section).fields.names
        lines += [f"{type_}: field {key!r} (used by {where}) is not declared in core/elements/{type_}.py"
                  for key in item if key not in ("name", "type") and key not in declared]
    return lines


def unused_fields() -> list[str]:
    """A line per declared field that no sample or fixture element uses (it would go unnoticed if removed)."""
    used = {(type_, key) for _, _, type_, item in _items() for key in item}
    return [f"{et.name}: field {f.key!r} is used by no sample model, no model of "
            f"EXTRA_MODELS and no fixture of tests/test_element_registry.py" for et in element_types() for f in et.fields
            if (et.name, f.key) not in used]


def test_every_field_in_use_is_declared():
    lines = undeclared_fields()
    assert not lines, "\n".join(lines)


def test_every_declared_field_is_used_by_a_sample_or_fixture():
    lines = unused_fields()
    assert not lines, "\n".join(lines)


@pytest.mark.parametrize("type_,key", [(et.name, f.key) for et in element_types() for f in et.fields])
def test_removing_a_field_declaration_fails_naming_element_and_field(type_, key, monkeypatch):
    """Drop one field from its type's declaration: the check above fails, and its message names the element
    type and the field."""
    et = element_type(type_)
    monkeypatch.setattr(type(et), "fields", Fields(f for f in et.fields if f.key != key))
    lines = undeclared_fields()
    assert lines and all(line.startswith(f"{type_}: field {key!r} ") for line in lines), lines


def cyclomatic_complexity(fn: ast.FunctionDef) -> int:
    """McCabe's number of a function, nested functions included: 1 + branches (if, loops, except, assert,
    conditional expressions, comprehension loops and filters, boolean operators)."""
    n = 1
    for node in ast.walk(fn):
        if isinstance(node, (ast.If, ast.For, ast.While, ast.AsyncFor, ast.IfExp, ast.ExceptHandler, ast.Assert)):
            n += 1
        elif isinstance(node, ast.comprehension):
            n += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
    return n


def test_parse_entities_knows_no_element_type():
    """The loader is bodies, then each item by its type's parse: no branch per element type (the union parser it
    replaces counted 77 by this measure), and no element type named in its source."""
    source = Path(entities.__file__).read_text(encoding="utf-8")
    fn = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "parse_entities")
    assert cyclomatic_complexity(fn) <= 15
    code = ast.get_source_segment(source, fn) or ""
    named = [t for t in element_names() if f'"{t}"' in code and t != "spherical"]  # spatial trees: one check
    assert not named, named
