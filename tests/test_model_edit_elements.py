"""Delete, copy/paste and rename for every element type (mechstudio.core.model.edit, driven by
mechstudio.core.elements.references): each edit leaves a valid model that survives an atomic save and a load.

Every joint, driver and force type of ``element_names()`` has a model that contains it (a sample, or a minimal
model written here); a new element type without one fails ``test_every_element_type_has_a_model``.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mechstudio.core.elements import BUILT_INS, element_names, element_type
from mechstudio.core.elements.references import Reference, references
from mechstudio.core.errors import ModelError
from mechstudio.core.model import GROUND, Model, load_model, model_from_data, save_model
from mechstudio.core.model import edit
from mechstudio.core.systems.compile import compile_model

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"


def _planar(bodies: list[dict[str, Any]], joints: list[dict[str, Any]] = (), drivers: list[dict[str, Any]] = (),
            forces: list[dict[str, Any]] = (), ground: dict[str, list[float]] | None = None,
            gravity: tuple[float, float] = (0.0, -9.81), **extra: Any) -> Model:
    data = {"format": "mechanism-studio-model", "version": 1, "name": "fixture", "kind": "planar",
            "gravity": list(gravity), "ground": {"points": ground or {"O": [0.0, 0.0]}}, "bodies": bodies,
            "joints": list(joints), "drivers": list(drivers), "forces": list(forces),
            "simulation": {"t_end": 0.1, "dt": 0.01}, **extra}
    return model_from_data(data, "<fixture>")


def _pendulum(**kw: Any) -> Model:
    """A 1 m bar hinged at the ground point O by revolute "hinge" (points a, b; a named point p at 0.5 m)."""
    bar = edit.bar_body("bar", 1.0, pose=(0.0, 0.0, -0.5))
    bar["points"]["p"] = [0.5, 0.0]
    return _planar([bar], [edit.joint_item("hinge", "revolute", GROUND, "O", "bar", "a")], **kw)


def _weld() -> Model:
    bar1, bar2 = edit.bar_body("bar1", 1.0), edit.bar_body("bar2", 0.5, pose=(1.0, 0.0, 0.5))
    return _planar([bar1, bar2], [edit.joint_item("hinge", "revolute", GROUND, "O", "bar1", "a"),
                                  edit.joint_item("fix", "weld", "bar1", "b", "bar2", "a", angle=0.5)])


def _knife_edge() -> Model:
    sleigh = edit.block_body("sleigh", 0.8, 0.3, mass=2.0)
    sleigh["points"]["blade"] = [-0.3, 0.0]
    return _planar([sleigh], [{"name": "skate", "type": "knife_edge", "body": "sleigh", "point": "blade",
                               "axis": [1.0, 0.0]}], gravity=(0.0, 0.0),
                   initial_velocities=[{"body": "sleigh", "coordinate": "x", "value": 1.0},
                                       {"body": "sleigh", "coordinate": "phi", "value": 1.0}])


def _slider_driven() -> Model:
    block = edit.block_body("block", 0.4, 0.2)
    return _planar([block], [edit.joint_item("slide", "prismatic", GROUND, "O", "block", "c", axis=[1.0, 0.0])],
                   [{"name": "push", "type": "joint_distance", "joint": "slide",
                     "function": {"type": "harmonic", "amplitude": 0.1, "frequency": 1.0}}])


#: (section, type) -> (the model, the element's name)
CASES: dict[tuple[str, str], Any] = {
    ("joints", "revolute"): lambda: (load_model(SAMPLES / "four_bar.json"), "A"),
    ("joints", "prismatic"): lambda: (load_model(SAMPLES / "slider_crank_driven.json"), "slide"),
    ("joints", "weld"): lambda: (_weld(), "fix"),
    ("joints", "pin_in_slot"): lambda: (load_model(SAMPLES / "slotted_lever.json"), None),
    ("joints", "knife_edge"): lambda: (_knife_edge(), "skate"),
    ("joints", "spherical"): lambda: (load_model(SAMPLES / "spherical_chain_3.json"), "J2"),
    ("joints", "rolling_disk"): lambda: (load_model(SAMPLES / "rolling_disk.json"), None),
    ("joints", "gear_pair"): lambda: (load_model(SAMPLES / "gear_train.json"), "mesh12"),
    ("joints", "rack_pinion"): lambda: (load_model(SAMPLES / "rack_and_pinion.json"), None),
    ("joints", "planar_rolling_disk"): lambda: (load_model(SAMPLES / "planar_rolling_disk_incline.json"), None),
    ("joints", "cam_follower"): lambda: (load_model(SAMPLES / "cam_follower.json"), None),
    ("joints", "hinge"): lambda: (load_model(SAMPLES / "rssr_linkage.json"), "crank_hinge"),
    ("joints", "universal"): lambda: (load_model(SAMPLES / "cardan_shaft.json"), "cross1"),
    ("joints", "slider"): lambda: (load_model(SAMPLES / "cardan_shaft.json"), "spline"),
    ("joints", "cylindrical"): lambda: (load_model(SAMPLES / "collar_pendulum.json"), "post"),
    ("joints", "fixed_joint"): lambda: (load_model(SAMPLES / "collar_pendulum.json"), "weld"),
    ("drivers", "joint_angle"): lambda: (load_model(SAMPLES / "slider_crank_driven.json"), "motor"),
    ("drivers", "joint_distance"): lambda: (_slider_driven(), "push"),
    ("drivers", "coordinate"): lambda: (_pendulum(drivers=[{"name": "swing", "type": "coordinate", "body": "bar",
                                                            "coordinate": "phi", "function": -0.5}]), "swing"),
    ("forces", "spring_damper"): lambda: (load_model(SAMPLES / "rack_and_pinion.json"), None),
    ("forces", "rotational_spring_damper"): lambda: (_pendulum(forces=[{
        "name": "coil", "type": "rotational_spring_damper", "joint": "hinge", "stiffness": 10.0, "damping": 0.1}]),
        "coil"),
    ("forces", "applied_force"): lambda: (_pendulum(forces=[{"name": "push", "type": "applied_force", "body": "bar",
                                                            "point": "b", "force": [1.0, 0.0]}]), "push"),
    ("forces", "applied_torque"): lambda: (_pendulum(forces=[{"name": "twist", "type": "applied_torque",
                                                             "body": "bar", "torque": 0.5}]), "twist"),
}
# an element type without a case above: the sample model named after it (sample_models/<type>.json)
CASES.update({(element_type(t).section, t): (lambda t=t: (load_model(SAMPLES / f"{t}.json"), None))
              for t in element_names() if (SAMPLES / f"{t}.json").is_file()
              and (element_type(t).section, t) not in CASES})
IDS = [t for _s, t in CASES]


def case(section: str, type_: str) -> tuple[Model, dict[str, Any]]:
    """The model of (section, type) and its element of that type (the named one, else the first)."""
    model, name = CASES[(section, type_)]()
    items = [e for e in model.data.get(section, []) if e["type"] == type_ and (name is None or e["name"] == name)]
    assert items, f"the model for {section}/{type_} has no such element"
    return model, items[0]


def target_key(section: str, item: dict[str, Any], r: Reference) -> tuple[str, str] | None:
    """The key of what reference ``r`` of ``item`` names (None: the ground itself)."""
    if r.kind == "body":
        return None if r.target == GROUND else ("bodies", r.target)
    if r.kind == "joint":
        return ("joints", r.target)
    owner = item[r.body_key]
    return ("ground_points", r.target) if owner == GROUND else edit.point_key(owner, r.target)


def assert_round_trip(model: Model, tmp_path: Path) -> None:
    """Valid (the loader raises no ModelError) and equal after an atomic save and a load."""
    model_from_data(copy.deepcopy(model.data))
    path = tmp_path / "edited.json"
    save_model(model, path)
    assert load_model(path).data == model.data
    assert not [p for p in tmp_path.iterdir() if p.name != "edited.json"], "the atomic save left a temporary file"


def test_every_element_type_has_a_model() -> None:
    assert sorted(t for _s, t in CASES) == sorted(element_names())
    for (section, type_) in CASES:
        assert type_ in BUILT_INS[section]


@pytest.mark.parametrize("section,type_", list(CASES), ids=IDS)
def test_delete_each_body_joint_and_point_it_refers_to(section: str, type_: str, tmp_path: Path) -> None:
    model, item = case(section, type_)
    key = (section, item["name"])
    refs = references(section, item)
    targets = [k for k in (target_key(section, item, r) for r in refs) if k is not None]
    assert any(k[0] in ("bodies", "joints") for k in targets), f"{type_}: no body or joint reference found"
    for target in dict.fromkeys(targets):
        new, deleted = edit.delete_with_dependents(model, [target])
        assert deleted[0] == target and key in deleted, f"{type_}: deleting {target} leaves {item['name']}"
        assert item["name"] not in edit.names(new, section)
        for coll, name in deleted:  # everything reported deleted is gone, the rest is still there
            if coll in edit.COLLECTIONS + ("ground_points",):
                assert name not in edit.names(new, coll)
        for coll in edit.COLLECTIONS:
            assert set(edit.names(new, coll)) == {n for n in edit.names(model, coll) if (coll, n) not in deleted}
        assert_round_trip(new, tmp_path)
    new, deleted = edit.delete_with_dependents(model, [key])  # the element alone
    assert deleted[0] == key
    assert_round_trip(new, tmp_path)


@pytest.mark.parametrize("section,type_", list(CASES), ids=IDS)
def test_copy_and_paste_it(section: str, type_: str, tmp_path: Path) -> None:
    model, item = case(section, type_)
    clip = json.loads(json.dumps(edit.copy_closure(model, [(section, item["name"])])))  # through the clipboard
    assert [section, item] in clip["items"]
    new, pasted = edit.paste_renamed(model, clip, (0.3, -0.3))
    old_names = edit.all_names(model)
    assert pasted and all(name not in old_names for _c, name in pasted)
    assert len(pasted) == len([i for i in clip["items"] if i[0] != edit.INITIAL_VELOCITIES])
    named = [i for i in clip["items"] if i[0] != edit.INITIAL_VELOCITIES]
    pasted_key = pasted[named.index([section, item])]  # pasted in the clipboard's order
    copy_item = edit.element(new, section, pasted_key[1])
    assert pasted_key[0] == section and copy_item["type"] == type_
    for r_old, r_new in zip(references(section, item), references(section, copy_item), strict=True):
        assert r_old.key == r_new.key
        target = target_key(section, copy_item, r_new)
        if target is not None and target[0] != edit.POINTS:  # the copy refers to the pasted elements
            assert target in pasted, f"{type_}.{r_new.key} refers to {r_new.target}, not to a pasted element"
    compile_model(new)
    assert_round_trip(new, tmp_path)
    again, _ = edit.paste_renamed(new, clip)  # a second paste gets other names
    assert len(edit.all_names(again)) == len(edit.all_names(new)) + len(pasted)


@pytest.mark.parametrize("section,type_", list(CASES), ids=IDS)
def test_rename_each_reference_and_the_element(section: str, type_: str, tmp_path: Path) -> None:
    model, item = case(section, type_)
    index = edit.index_of(model, section, item["name"])
    for r in references(section, item):
        target = target_key(section, item, r)
        if target is None:
            continue
        coll, name = target
        new = edit.rename(model, coll, name, "renamed_x")
        moved = new.data[section][index]
        assert moved[r.key] == "renamed_x", f"{type_}.{r.key} did not follow the rename of {target}"
        assert_round_trip(new, tmp_path)
        compile_model(new)
    new = edit.rename(model, section, item["name"], "renamed_element")
    assert new.data[section][index]["name"] == "renamed_element"
    assert_round_trip(new, tmp_path)


# ---- details ---------------------------------------------------------------------------------------------------
def test_references_of_raw_items() -> None:
    gear = {"name": "m", "type": "gear_pair", "joint1": "a1", "joint2": "a2", "radius1": 0.1, "radius2": 0.2}
    assert references("joints", gear) == [Reference("joint1", "joint", "a1"), Reference("joint2", "joint", "a2")]
    rev = {"name": "A", "type": "revolute", "body1": "ground", "point1": "O", "body2": "bar", "point2": [0.5, 0.0]}
    assert references("joints", rev) == [Reference("body1", "body", "ground"),
                                         Reference("point1", "point", "O", "body1"),
                                         Reference("body2", "body", "bar")]  # a point by coordinates names nothing
    assert references("initial_velocities", {"body": "bar", "coordinate": "x", "value": 1.0}) == [
        Reference("body", "body", "bar")]
    assert references("geometry", {"type": "bar", "from": "a", "to": [1.0, 0.0]}) == [
        Reference("from", "point", "a")]
    with pytest.raises(ValueError, match="sections"):
        references("bodies", {})
    with pytest.raises(KeyError, match="valid names"):
        references("joints", {"type": "swivel"})


def test_deleting_a_gear_body_takes_its_axle_and_both_meshes() -> None:
    model = load_model(SAMPLES / "gear_train.json")
    new, deleted = edit.delete_with_dependents(model, [("bodies", "idler")])
    assert deleted == [("bodies", "idler"), ("joints", "axle2"), ("joints", "mesh12"), ("joints", "mesh23")]
    assert edit.names(new, "joints") == ["axle1", "axle3"]
    compile_model(new)


def test_deleting_a_body_point_deletes_its_users_and_keeps_the_drawing() -> None:
    model = _pendulum(forces=[{"name": "push", "type": "applied_force", "body": "bar", "point": "b",
                               "force": [1.0, 0.0]}])
    new, deleted = edit.delete_with_dependents(model, [edit.point_key("bar", "b")])
    assert deleted == [("points", "bar.b"), ("forces", "push")]
    bar = edit.element(new, "bodies", "bar")
    assert "b" not in bar["points"] and bar["geometry"][0]["to"] == [1.0, 0.0]
    with pytest.raises(KeyError, match="no point named 'q'"):
        edit.delete_with_dependents(model, [edit.point_key("bar", "q")])


def test_deleting_a_link_of_a_spherical_tree_takes_the_links_hanging_from_it() -> None:
    model = load_model(SAMPLES / "spherical_chain_3.json")
    new, deleted = edit.delete_with_dependents(model, [("joints", "J2")])
    assert deleted[0] == ("joints", "J2")
    assert sorted(deleted[1:]) == [("bodies", "link2"), ("bodies", "link3"), ("joints", "J3")]
    assert edit.names(new, "bodies") == ["link1"]
    clip = edit.copy_closure(model, [("bodies", "link3")])  # a link needs its path to the ground
    assert {n for c, n in (tuple(i[:1]) + (i[1]["name"],) for i in clip["items"]) if c == "joints"} == {
        "J1", "J2", "J3"}


def test_initial_velocities_and_quasi_velocity_choices_follow_their_body() -> None:
    model = _knife_edge()
    new, deleted = edit.delete_with_dependents(model, [("bodies", "sleigh")])
    assert ("initial_velocities", "sleigh.x") in deleted and "initial_velocities" in new.data
    assert new.data["initial_velocities"] == []
    sleigh = load_model(SAMPLES / "chaplygin_sleigh.json")
    new, deleted = edit.delete_with_dependents(sleigh, [("bodies", "sleigh")])
    assert ("quasi_velocities", "choice") in deleted and "quasi_velocities" not in new.data
    assert edit.key_label(("quasi_velocities", "choice")) == "the file's quasi-velocity choice"
    skate = load_model(SAMPLES / "ice_skate_incline.json")
    renamed = edit.rename(skate, "bodies", "skate", "blade-runner")
    text = json.dumps(renamed.data["quasi_velocities"])
    assert "skate." not in text.replace("blade-runner.", "") and "d(blade-runner.x)" in text
    compile_model(renamed)  # the choices still name the model's coordinates


def test_rename_refuses_bad_and_used_names_at_the_name() -> None:
    model = load_model(SAMPLES / "four_bar.json")
    for bad, message in (("1st", "not a valid name"), ("a b", "not a valid name"), ("x" * 81, "not a valid name"),
                         ("crank.a", "not a valid name"), (GROUND, "reserved"), ("rocker", "already used"),
                         ("A", "already used")):
        with pytest.raises(ModelError) as info:
            edit.rename(model, "bodies", "coupler", bad)
        assert message in info.value.diagnostics[0].message and info.value.diagnostics[0].pointer == "/bodies/1/name"
    with pytest.raises(ModelError, match="already used"):
        edit.rename(model, "points", "crank.a", "b")
    assert edit.rename(model, "points", "crank.a", "rocker").data["bodies"][0]["points"]["rocker"] == [0.0, 0.0]


def test_paste_refuses_another_kind_and_foreign_clipboards() -> None:
    planar = load_model(SAMPLES / "four_bar.json")
    spatial = load_model(SAMPLES / "spherical_pendulum.json")
    clip = edit.copy_closure(spatial, [("bodies", edit.names(spatial, "bodies")[0])])
    with pytest.raises(ModelError) as info:
        edit.paste_renamed(planar, clip)
    assert info.value.diagnostics[0].pointer == "/kind" and "spatial" in info.value.diagnostics[0].message
    with pytest.raises(ModelError) as info:
        edit.paste_renamed(planar, {"format": "other", "items": []})
    assert info.value.diagnostics[0].file == "<clipboard>"
    with pytest.raises(ModelError) as info:
        edit.paste_renamed(planar, {"items": [["joints", {"name": "j", "type": "swivel"}]]})
    assert info.value.diagnostics[0].pointer == "/items/0/1/type"
