"""The inspector shows every declared field of every element type with its unit, or as a chooser of the valid
targets, and refuses an out-of-range value at the field (the element types' field declarations,
core/elements/fields.py, drive it).

Widget tests on a bare Document (no main window): each element type of the registry fixtures
(tests/test_element_registry.py) and the spatial samples is selected; every field of its type must have its
editor: a chooser listing exactly the field's valid targets (bodies; joints of the accepted types only; the
choice's values; the named points of the field's body), a number field whose suffix is its unit (degrees for
angles), a check box, a direction's components, or a time function whose value carries its unit. Then every
bounded number field is given a value outside its bounds and a direction the zero vector: the field shows why,
the model keeps its value.
"""
from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox

from mechstudio.core.elements import element_type, element_types
from mechstudio.core.model import model_from_data
from mechstudio.gui.document import Document
from mechstudio.gui.widgets.inspector import Inspector

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the registry fixtures of tests/
from test_element_registry import ELEMENT_ITEMS, GROUND_VARIANTS, fixture_data  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def spherical_with_moments() -> dict[str, Any]:
    data = json.loads((ROOT / "sample_models" / "spherical_chain_3.json").read_text(encoding="utf-8"))
    data["joints"][0].update(spring=2.0, damping=0.05)
    data["joints"][1].update(torque=[0.1, 0.05, 0.0])
    return data


#: the spatial joints of maximal-coordinate models: case -> (sample, joint name)
SPATIAL_JOINT_CASES = {"hinge": ("collar_pendulum", "pivot"), "cylindrical": ("collar_pendulum", "post"),
                       "fixed_joint": ("collar_pendulum", "weld"), "universal": ("cardan_shaft", "cross1"),
                       "slider": ("cardan_shaft", "spline")}


def case_data(case: str) -> tuple[dict[str, Any], str, int]:
    """(model data, section, index of the element) of a test case."""
    if case in SPATIAL_JOINT_CASES:
        sample, joint = SPATIAL_JOINT_CASES[case]
        data = json.loads((ROOT / "sample_models" / f"{sample}.json").read_text(encoding="utf-8"))
        return data, "joints", [j["name"] for j in data["joints"]].index(joint)
    if case == "spherical":
        return spherical_with_moments(), "joints", 0
    if case == "spherical_torque":
        return spherical_with_moments(), "joints", 1
    if case == "rolling_disk":
        return json.loads((ROOT / "sample_models" / "rolling_disk.json").read_text(encoding="utf-8")), "joints", 0
    data = fixture_data(case)
    section = "joints" if case in GROUND_VARIANTS else ELEMENT_ITEMS[case][0]
    return data, section, len(data[section]) - 1


CASES = list(ELEMENT_ITEMS) + list(GROUND_VARIANTS) + ["spherical", "spherical_torque", "rolling_disk",
                                                      *SPATIAL_JOINT_CASES]


@pytest.fixture
def inspect(qtbot: Any):
    def make(case: str, angle_unit: str = "deg") -> tuple[Inspector, Document, dict[str, Any], str]:
        data, section, index = case_data(case)
        doc = Document(model_from_data(copy.deepcopy(data), f"<{case}>"))
        inspector = Inspector(doc, lambda: angle_unit)
        qtbot.addWidget(inspector)
        item = data[section][index]
        doc.set_selection([(section, item["name"])])
        return inspector, doc, item, f"/{section}/{index}"
    return make


def test_the_cases_cover_every_element_type():
    covered = {case_data(c)[0][case_data(c)[1]][case_data(c)[2]]["type"] for c in CASES}
    assert covered == {et.name for et in element_types()}


@pytest.mark.parametrize("angle_unit", ["deg", "rad"])
@pytest.mark.parametrize("case", CASES)
def test_every_field_has_its_unit_or_a_chooser(inspect, case, angle_unit):
    inspector, doc, item, ptr = inspect(case, angle_unit)
    et = element_type(item["type"])
    shown = 0
    for f in et.fields:
        if f.key not in item and not f.offered:
            continue  # optional without a default (a roller's radius on a flat face): not shown until written
        value = item.get(f.key, f.default)
        p = f"{ptr}/{f.key}"
        what = f"{item['type']}.{f.key}"
        if f.editor in ("body", "joint", "choice") or (f.editor == "point" and isinstance(value, str)):
            w = inspector.field(p)
            assert isinstance(w, QComboBox), what
            offered = [w.itemText(i) for i in range(w.count())]
            valid = f.choices(doc.model.data, item)
            assert offered == valid and value in offered, (what, offered, valid)
            if f.editor == "joint" and getattr(f, "types", ()):  # only joints of the accepted types
                types = {j["name"]: j["type"] for j in doc.model.data["joints"]}
                assert all(types[n] in f.types for n in offered), (what, offered)
        elif f.editor in ("number", "angle", "count"):
            w = inspector.field(p)
            assert isinstance(w, QDoubleSpinBox), what
            unit = ("°" if angle_unit == "deg" else "rad") if f.editor == "angle" else f.unit
            assert w.suffix().strip() == unit and unit, (what, w.suffix())
            expect = math.degrees(value) if f.editor == "angle" and angle_unit == "deg" else value
            assert w.value() == pytest.approx(expect, abs=1e-6), what
        elif f.editor == "flag":
            assert isinstance(inspector.field(p), QCheckBox), what
        elif f.editor in ("point", "direction"):
            spins = [inspector.field(f"{p}/{i}") for i in range(len(value))]
            assert all(isinstance(w, QDoubleSpinBox) for w in spins), what
            assert all(w.suffix().strip() == f.unit for w in spins), (what, [w.suffix() for w in spins])
        elif f.editor in ("time_function", "time_functions"):
            comps = value if isinstance(value, list) else [value]
            paths = [f"{p}/{i}" for i in range(len(comps))] if isinstance(value, list) else [p]
            for c, q in zip(comps, paths):
                assert inspector.findChild(QComboBox, f"field:{q}:type") is not None, what
                if isinstance(c, (int, float)) and f.unit:  # a constant: its value with the function's unit
                    unit = ("°" if angle_unit == "deg" else "rad") if f.unit == "rad" else f.unit
                    assert inspector.field(q).suffix().strip() == unit, (what, inspector.field(q).suffix())
        else:
            raise AssertionError(f"{what}: no check for editor kind {f.editor!r}")
        shown += 1
    assert shown, case


def test_choosers_list_only_valid_targets(inspect):
    """Gear pairs choose among revolute joints, a rack's joint2 among prismatic joints, a follower and a rack's
    side among their values, a driver's joint among the joints its type drives."""
    inspector, doc, item, ptr = inspect("rack_pinion")
    j1, j2 = inspector.field(f"{ptr}/joint1"), inspector.field(f"{ptr}/joint2")
    assert [j1.itemText(i) for i in range(j1.count())] == ["RA"]  # the revolute; not the prismatic PB
    assert [j2.itemText(i) for i in range(j2.count())] == ["PB"]
    side = inspector.field(f"{ptr}/side")  # offered with its default
    assert [side.itemText(i) for i in range(side.count())] == ["right", "left"] and side.currentText() == "right"
    inspector, doc, item, ptr = inspect("gear_pair")
    j1 = inspector.field(f"{ptr}/joint1")
    assert [j1.itemText(i) for i in range(j1.count())] == ["RA", "RB"]
    inspector, doc, item, ptr = inspect("cam_roller")
    follower = inspector.field(f"{ptr}/follower")
    assert [follower.itemText(i) for i in range(follower.count())] == ["flat", "roller"]
    inspector, doc, item, ptr = inspect("joint_distance")
    joint = inspector.field(f"{ptr}/joint")
    assert [joint.itemText(i) for i in range(joint.count())] == ["Pr"]  # prismatic only


def test_choosing_a_valid_target_edits_the_model(inspect):
    inspector, doc, item, ptr = inspect("cam_follower")
    inspector.field(f"{ptr}/follower").setCurrentText("roller")  # a roller needs its radius: refused
    assert "radius" in inspector.error_text(f"{ptr}/follower")
    assert doc.model.data["joints"][-1]["follower"] == "flat"
    inspector, doc, item, ptr = inspect("rack_pinion")
    inspector.field(f"{ptr}/side").setCurrentText("left")
    assert doc.model.data["joints"][-1]["side"] == "left"


def bounded_numbers() -> list[tuple[str, str]]:
    out = []
    for case in CASES:
        data, section, index = case_data(case)
        item = data[section][index]
        for f in element_type(item["type"]).fields:
            if f.editor in ("number", "angle", "count") and (f.key in item or f.offered) and \
                    any(getattr(f, b) is not None for b in ("gt", "ge", "lt", "le")):
                out.append((case, f.key))
    return out


@pytest.mark.parametrize("case,key", bounded_numbers())
def test_an_out_of_range_value_is_refused_at_the_field(inspect, case, key):
    inspector, doc, item, ptr = inspect(case)
    f = element_type(item["type"]).fields.get(key)
    before = copy.deepcopy(doc.model.data)
    scale = math.degrees(1.0) if f.editor == "angle" else 1.0
    if f.gt is not None or f.ge is not None:
        bad = ((f.gt if f.gt is not None else f.ge) - 1.0) * scale
    else:
        bad = ((f.lt if f.lt is not None else f.le) + 1.0) * scale
    spin = inspector.field(f"{ptr}/{key}")
    spin.setValue(bad)
    message = inspector.error_text(f"{ptr}/{key}")
    assert key in message and "was not applied" in message, message
    assert doc.model.data == before
    if f.editor == "angle":
        assert "°" in message  # the bound in the unit the user sees


@pytest.mark.parametrize("case", [c for c in CASES if "axis" in element_type(
    case_data(c)[0][case_data(c)[1]][case_data(c)[2]]["type"]).fields and "axis" in
    case_data(c)[0][case_data(c)[1]][case_data(c)[2]]])
def test_a_zero_direction_is_refused_at_the_field(inspect, case):
    inspector, doc, item, ptr = inspect(case)
    refused = None
    for i in range(2):  # zero one component after the other: the one that would make the vector zero is refused
        inspector.field(f"{ptr}/axis/{i}").setValue(0.0)
        if "zero vector" in inspector.error_text(f"{ptr}/axis/{i}"):
            refused = i
            break
    assert refused is not None
    axis = doc.model.data[ptr.split("/")[1]][int(ptr.split("/")[2])]["axis"]
    assert any(abs(a) > 0 for a in axis)
