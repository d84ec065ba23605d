"""The spatial tree editor adds children through every spatial joint type: its type and axes chosen with real
clicks and typing give the joint record expected, as one undo step; a zero axis and a refused field value are
said in the form, where the user looks, and nothing is added. The inspector shows and edits the new joints'
fields. (QTest drives the widgets; no OpenGL needed.)"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

pytestmark = pytest.mark.gui


def click(widget: Any) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def choose(combo: Any, text: str) -> None:
    """Pick the item shown as ``text`` with the keyboard (Home, then Down until it is current)."""
    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(combo.count()):
        if combo.currentText() == text:
            return
        QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText() == text


def type_number(spin: Any, value: str) -> None:
    """Select the spin box's text and type ``value``, then Tab away (what a user's keyboard does)."""
    spin.setFocus()
    QTest.keyClick(spin, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(spin, value)
    QTest.keyClick(spin, Qt.Key.Key_Tab)


def type_vector(vector: Any, values: str) -> None:
    for spin, v in zip(vector.spins, values.split()):
        type_number(spin, v)


@pytest.fixture
def tree(window: Any) -> Any:
    window.new_model()
    window.dock_tree.show()
    window.dock_tree.raise_()
    return window.tree_editor


def joints(window: Any) -> list[dict[str, Any]]:
    return window.document.model.data.get("joints", [])


def test_dock_is_the_spatial_tree(window: Any) -> None:
    assert window.dock_tree.windowTitle() == "Spatial tree"
    assert [window.tree_editor.joint_type.itemData(i) for i in range(window.tree_editor.joint_type.count())] == \
        ["spherical", "hinge", "slider", "cylindrical", "universal", "fixed_joint"]


def test_hinge_child_typed_gives_the_joint_record_and_one_undo_step(qtbot: Any, window: Any, tree: Any) -> None:
    stack = window.document.undo_stack
    before = stack.count()
    choose(tree.joint_type, "Hinge")
    assert tree.axis1.isVisible() and tree.axis2.isVisible()
    assert tree.axis1.value() == [0.0, 0.0, 1.0]  # the hinge's declared default
    type_vector(tree.axis1, "0 1 0")
    type_number(tree.findChild(type(tree.mass), "tree_field_hinge_spring"), "0.5")
    type_number(tree.findChild(type(tree.mass), "tree_field_hinge_damping"), "0.01")
    # the child turned 90 degrees about z: the same world direction y is x in the child's frame
    type_vector(tree.rotvec, f"0 0 {math.pi / 2:.9f}")
    assert np.allclose(tree.axis2.value(), [1.0, 0.0, 0.0], atol=1e-8), tree.axis2.value()
    click(tree.add_button)
    assert not tree.message.isVisible(), tree.message.text()
    assert stack.count() == before + 1
    (j,) = joints(window)
    axis2 = j.pop("axis2")
    assert j == {"name": "J1", "type": "hinge", "body1": "ground", "point1": "O", "body2": "link1", "point2": "in",
                 "axis1": [0.0, 1.0, 0.0], "spring": 0.5, "damping": 0.01}
    assert np.allclose(axis2, [1.0, 0.0, 0.0], atol=1e-8)
    body = window.document.model.data["bodies"][0]
    # the child's 'in' point (0, 0, 0.25) sits on the ground point O: its frame origin is 0.25 m below
    assert np.allclose([body["initial"][k] for k in "xyz"], [0.0, 0.0, -0.25], atol=1e-12)
    assert window.document.analysis.state == "assembled", window.document.analysis.message
    assert window.document.analysis.dof == 1
    stack.undo()
    assert joints(window) == [] and not window.document.model.data.get("bodies")
    assert stack.count() == before + 1  # (redo is still there)
    stack.redo()
    assert joints(window)[0]["type"] == "hinge"


def test_chain_of_spatial_joints_assembles(qtbot: Any, window: Any, tree: Any) -> None:
    """ground -hinge-> link1 -universal-> link2 -slider-> link3: each hangs from the previous 'out' point."""
    for label, dof in (("Hinge", 1), ("Universal joint", 3), ("Slider", 4), ("Fixed joint", 4),
                       ("Cylindrical joint", 6), ("Spherical joint", 9)):
        choose(tree.joint_type, label)
        click(tree.add_button)
        assert not tree.message.isVisible(), (label, tree.message.text())
        a = window.document.analysis
        assert a.state == "assembled", (label, a.message)
        assert a.dof == dof, (label, a.dof)
    types = [j["type"] for j in joints(window)]
    assert types == ["hinge", "universal", "slider", "fixed_joint", "cylindrical", "spherical"]
    uj = joints(window)[1]
    assert uj["axis1"] == [1.0, 0.0, 0.0] and uj["axis2"] == [0.0, 1.0, 0.0]  # perpendicular cross axes


def test_zero_axis_is_refused_under_the_axes(qtbot: Any, window: Any, tree: Any) -> None:
    choose(tree.joint_type, "Slider")
    type_vector(tree.axis1, "0 0 0")
    assert tree.axis_message.isVisible()
    assert "sliding axis in the parent's frame is zero" in tree.axis_message.text()
    count = window.document.undo_stack.count()
    click(tree.add_button)
    assert not window.document.model.data.get("bodies")
    assert window.document.undo_stack.count() == count
    assert tree.message.isVisible() and "zero" in tree.message.text()
    # a typed (not following) child axis of zero is refused too
    type_vector(tree.axis1, "1 0 0")
    assert not tree.axis_message.isVisible()
    click(tree.axis2_follows)
    assert not tree.axis2_follows.isChecked() and tree.axis2.spins[0].isEnabled()
    type_vector(tree.axis2, "0 0 0")
    assert "child's frame is zero" in tree.axis_message.text()
    click(tree.add_button)
    assert not window.document.model.data.get("bodies")


def test_negative_spring_is_refused(qtbot: Any, window: Any, tree: Any) -> None:
    choose(tree.joint_type, "Cylindrical joint")
    type_number(tree.findChild(type(tree.mass), "tree_field_cylindrical_linear_spring"), "-3")
    click(tree.add_button)
    assert not window.document.model.data.get("bodies")
    assert tree.message.isVisible() and "linear_spring" in tree.message.text(), tree.message.text()


def test_spherical_children_unchanged(qtbot: Any, window: Any, tree: Any) -> None:
    """The default type is spherical and writes what it always wrote (no axes, no positions)."""
    assert tree.current_joint_type() == "spherical"
    assert not tree.axis1.isVisible()
    click(tree.add_button)
    (j,) = joints(window)
    assert j == {"name": "J1", "type": "spherical", "body1": "ground", "point1": "O", "body2": "link1",
                 "point2": "in"}
    assert "x" not in window.document.model.data["bodies"][0]["initial"]


def test_inspector_shows_and_edits_hinge_fields(qtbot: Any, window: Any) -> None:
    from tests.gui.conftest import SAMPLES
    assert window.open_file(str(SAMPLES / "collar_pendulum.json"), ask=False)
    window.document.set_selection([("joints", "pivot")])
    ins = window.inspector
    ptr = "/joints/1"
    for key in ("axis1/0", "axis2/2", "spring", "damping", "free_angle"):
        assert ins.findChild(object, f"field:{ptr}/{key}") is not None, key
    # a driver and a torque the file omits can be added (a constant time function), one undo step each
    box = ins.findChild(object, f"field:{ptr}/angle:set")
    assert box is not None and not box.isChecked()
    count = window.document.undo_stack.count()
    click(box)
    qtbot.waitUntil(lambda: "angle" in window.document.model.data["joints"][1])
    assert window.document.model.data["joints"][1]["angle"] == 0.0
    assert window.document.undo_stack.count() == count + 1
    qtbot.waitUntil(lambda: ins.findChild(object, f"field:{ptr}/angle:type") is not None)
    assert ins.findChild(object, f"field:{ptr}/angle:set").isChecked()
    # a zero axis is refused at the field, with the reason under it
    spin = ins.findChild(object, f"field:{ptr}/axis1/1")
    type_number(spin, "0")
    assert window.document.model.data["joints"][1]["axis1"] == [0, 1, 0]
    assert "zero" in ins.error_text(f"{ptr}/axis1/1"), ins.error_text(f"{ptr}/axis1/1")
    # unticking removes the driver again
    click(ins.findChild(object, f"field:{ptr}/angle:set"))
    qtbot.waitUntil(lambda: "angle" not in window.document.model.data["joints"][1])
