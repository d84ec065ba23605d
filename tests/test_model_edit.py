"""mechstudio.core.model.edit: pure Model -> Model edits (no Qt)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model import empty_model_data, load_model, model_from_data
from mechstudio.core.model import edit
from mechstudio.core.model.schema import model_schema

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"


@pytest.fixture
def four_bar():
    return load_model(SAMPLES / "four_bar.json")


def test_edits_return_new_models_and_leave_the_input_untouched(four_bar):
    before = json.dumps(four_bar.data, sort_keys=True)
    new = edit.set_value(four_bar, "/bodies/0/mass", 2.0)
    assert new.data["bodies"][0]["mass"] == 2.0
    assert json.dumps(four_bar.data, sort_keys=True) == before
    assert new != four_bar


def test_pointers_roundtrip_and_escape():
    assert edit.split_pointer(edit.join_pointer("a/b", "c~d", 3)) == ["a/b", "c~d", "3"]
    assert edit.get_value({"x": [{"y": 1}]}, "/x/0/y") == 1
    assert edit.get_value({"x": []}, "/x/3", None) is None


def test_invalid_edit_raises_with_the_pointer(four_bar):
    with pytest.raises(ModelError) as info:
        edit.set_value(four_bar, "/bodies/1/mass", -1.0)
    assert info.value.diagnostics[0].pointer == "/bodies/1/mass"


def test_remove_body_cascades_to_joints_drivers_forces():
    model = load_model(SAMPLES / "slider_crank_driven.json")
    gone = edit.dependents(model, [("bodies", "crank")])
    assert gone[0] == ("bodies", "crank")
    assert {n for c, n in gone if c == "joints"} == {"O", "A"} and [n for c, n in gone if c == "drivers"] == ["motor"]
    new = edit.remove_body(model, "crank")
    assert "crank" not in edit.names(new, "bodies")
    assert edit.names(new, "joints") == ["B", "slide"] and edit.names(new, "drivers") == []


def test_rename_updates_references(four_bar):
    new = edit.rename(four_bar, "bodies", "coupler", "link")
    assert [j["body2"] for j in new.data["joints"]][1] == "link"
    new = edit.rename(new, "ground_points", "D", "D2")
    assert new.data["joints"][3]["point1"] == "D2" and "D2" in new.data["ground"]["points"]
    with pytest.raises(ModelError):
        edit.rename(four_bar, "bodies", "crank", "rocker")


def test_bar_template_matches_the_sample_and_resizes_with_its_density(four_bar):
    bar = edit.bar_body("coupler", pose=(0.0, 0.0, 0.0), color="#5cb85c")
    model = edit.add_element(model_from_data(empty_model_data()), "bodies", bar)
    model = edit.resize_bar(model, "coupler", 3.5)
    mine, theirs = model.data["bodies"][0], four_bar.data["bodies"][1]
    for key in ("mass", "inertia", "com", "points", "geometry", "color"):
        assert mine[key] == pytest.approx(theirs[key]) if key in ("mass", "inertia") else mine[key] == theirs[key]


def test_set_poses_and_frame_conversions():
    model = edit.add_element(model_from_data(empty_model_data()), "bodies", edit.bar_body("b1"))
    model = edit.set_poses(model, {"b1": (1.0, 2.0, math.pi / 2)})
    body = edit.element(model, "bodies", "b1")
    assert edit.to_global(body, [1.0, 0.0]) == pytest.approx([1.0, 3.0])
    assert edit.to_body_frame(body, [1.0, 3.0]) == pytest.approx([1.0, 0.0])


def test_unique_names():
    model = edit.add_element(model_from_data(empty_model_data()), "bodies", edit.bar_body("bar1"))
    assert edit.unique_name(model, "bar") == "bar2"
    assert edit.unique_name(model, "bar", taken={"bar2"}) == "bar3"


def test_quaternion_of_rotation_vector():
    assert edit.quaternion_from_rotation_vector([0, 0, 0]) == [1.0, 0.0, 0.0, 0.0]
    q = edit.quaternion_from_rotation_vector([0.0, 0.0, math.pi])
    assert q == pytest.approx([0.0, 0.0, 0.0, 1.0], abs=1e-15)


def test_tree_edits_build_the_spherical_chain_sample():
    path = SAMPLES / "spherical_chain_3.json"
    if not path.exists():
        pytest.skip("sample_models/spherical_chain_3.json is not in this checkout")
    sample = load_model(path).data
    model = model_from_data(empty_model_data())
    parent, point = "ground", "O"
    for k, b in enumerate(sample["bodies"]):
        child = edit.tree_body(b["name"], b["mass"], b["inertia"], in_point=b["points"]["in"],
                               out_point=b["points"].get("out"), quaternion=b["initial"]["quaternion"],
                               omega=b["initial"]["omega"], color=edit.next_color(model))
        model = edit.add_tree_body(model, parent, point, child)
        parent, point = b["name"], "out"
    model = edit.set_value(model, "/name", sample["name"])
    model = edit.set_value(model, "/description", sample["description"])
    model = edit.set_value(model, "/simulation", sample["simulation"])
    assert model.data == sample


def test_inertia_helpers():
    assert edit.inertia_rod(3.0, 2.0, axis=2) == [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0.0]]
    assert edit.inertia_sphere(5.0, 1.0)[1][1] == pytest.approx(2.0)
    c = edit.inertia_cylinder(2.0, 0.5, 1.0, axis=2)
    assert c[2][2] == pytest.approx(0.25) and c[0][0] == pytest.approx(2.0 * (0.75 + 1.0) / 12)


def test_model_format_doc_describes_every_schema_element():
    """docs/model-format.md names every key and element type of the model schema (kept in step)."""
    root = Path(__file__).resolve().parents[1]
    schema = model_schema()
    doc = (root / "docs" / "model-format.md").read_text()
    names: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.get("properties", {}).items():
                names.add(key)
            if "const" in node and isinstance(node["const"], str):
                names.add(node["const"])
            if "enum" in node and all(isinstance(v, str) for v in node["enum"]):
                names.update(node["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(schema)
    missing = sorted(n for n in names if f"`{n}`" not in doc and f'"{n}"' not in doc and f"`{n}." not in doc
                     and f".{n}`" not in doc)
    assert not missing, f"docs/model-format.md does not describe: {missing}"
